/* Harness: budgets, clock pausing during the monitor, answer = last reported iterate, status
 * bookkeeping. Uses a test-only solver that reports a scripted sequence of iterates. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "util/clock.h"
#include "util/stats.h"
#include "solve/harness.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "testutil.h"
#include "solve/params.h"
#include "core/dop.h"

/* Spins for `ms` of this thread's CPU time (the solver's "work", on the solver clock). */
static void spin(double ms)
{
    double t0 = ncp_thread_cpu_ms();
    volatile double x = 0;
    while (ncp_thread_cpu_ms() - t0 < ms) x += 1.0;
    (void)x; /* the volatile store is the work; clang flags it as set but unused */
}

/* Iterate k is lambda0 * (1 - 2^-k) (or the scripted target), so the natural map falls
 * geometrically when lambda0 is an exact solution. */
static int scripted_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    (void)err;
    int m = in->prob->m;
    double work = ncp_params_get(in->params, "work_ms", 0.0);
    const double *target = in->lambda0;
    spin(ncp_params_get(in->params, "setup_ms", 0.0));
    if (ncp_run_setup_done(run)) return NCP_OK;
    /* a peer's parent: its work from here is timed elsewhere and charged (charge_ms) */
    if (ncp_params_get(in->params, "external", 0.0) > 0.0) (void)ncp_run_external(run);
    const double sleep_ms = ncp_params_get(in->params, "sleep_ms", 0.0);
    const double charge = ncp_params_get(in->params, "charge_ms", 0.0);
    for (int k = 1;; k++) {
        spin(work);
        if (sleep_ms > 0.0) { /* waiting: wall time without CPU time */
            struct timespec ts = {0, (long)(sleep_ms * 1e6)};
            while (nanosleep(&ts, &ts) && errno == EINTR) {
            }
        }
        /* CPU time a worker spent for the solve (ncp_run_add_cpu_ms); over the budget: stop */
        if (charge > 0.0 && ncp_run_add_cpu_ms(run, charge)) break;
        double f = 1.0 - ldexp(1.0, -k);
        for (int i = 0; i < m; i++) out->lambda[i] = target ? f * target[i] : 0.0;
        out->iterations = k;
        if (ncp_run_iterate(run, k, out->lambda, NULL)) break;
        if (k >= (int)ncp_params_get(in->params, "give_up", 1e9)) {
            out->status = NCP_STATUS_STALLED;
            break;
        }
    }
    return NCP_OK;
}

static const ncp_solver_desc scripted = {.name = "scripted", .source = "test", .summary = "test",
                                         .needs = NCP_NEEDS_DUAL, .file = "test",
                                         .solve = scripted_solve};

typedef struct slow_trace {
    double sleep_ms;
    int calls;
    double last_t;
} slow_trace;

static int slow_cb(void *ctx, int iter, double t, const ncp_metrics *mt)
{
    (void)iter;
    (void)mt;
    slow_trace *s = ctx;
    s->calls++;
    s->last_t = t;
    spin(s->sleep_ms);
    return 0;
}

/* The solver clock (util/clock.h): CPU by default, wall with --clock wall; the other one is
 * recorded beside it (solver_wall_ms); CPU charged by the solver counts under the CPU clock
 * only and can end the solve at the budget between iterates. */
static void test_clocks(const ncp_problem *p, const double *sol)
{
    ncp_error err = {0};
    ncp_harness_opts o;
    ncp_result r;
    ncp_params ps = {0};
    ncp_harness_opts_default(&o);
    o.budget.tol = 0.0;
    o.budget.max_iter = 5;
    CHECK(o.clock == NCP_CLOCK_CPU);
    CHECK(ncp_clock_parse("cpu") == NCP_CLOCK_CPU && ncp_clock_parse("wall") == NCP_CLOCK_WALL);
    CHECK(ncp_clock_parse("Wall") < 0 && ncp_clock_parse("") < 0 && ncp_clock_parse(NULL) < 0);
    /* 5 iterations sleeping 10 ms each: 50 ms of wall time, next to no CPU time */
    ncp_params_set(&ps, "sleep_ms", 10.0, &err);
    CHECK_OK(ncp_harness_solve(&scripted, p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.clock == NCP_CLOCK_CPU && r.iterations == 5);
    CHECK(r.solver_wall_ms >= 50.0);
    CHECK(r.setup_ms + r.solve_ms < 0.5 * r.solver_wall_ms); /* sleeping is not CPU */
    CHECK(r.setup_ms >= 0.0 && r.solve_ms >= 0.0);
    ncp_result_free(&r);
    o.clock = NCP_CLOCK_WALL;
    CHECK_OK(ncp_harness_solve(&scripted, p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.clock == NCP_CLOCK_WALL);
    CHECK(r.setup_ms + r.solve_ms >= 50.0);
    CHECK_NEAR(r.setup_ms + r.solve_ms, r.solver_wall_ms, 1e-9); /* one clock, read once */
    ncp_result_free(&r);
    /* 7 ms charged per iterate: counted by the CPU clock (>= 35 ms over 5), not the wall's */
    ps.n = 0;
    ncp_params_set(&ps, "charge_ms", 7.0, &err);
    CHECK_OK(ncp_harness_solve(&scripted, p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.iterations == 5 && r.status == NCP_STATUS_MAX_ITER);
    CHECK(r.setup_ms + r.solve_ms < 35.0);
    ncp_result_free(&r);
    o.clock = NCP_CLOCK_CPU;
    CHECK_OK(ncp_harness_solve(&scripted, p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.iterations == 5 && r.status == NCP_STATUS_MAX_ITER);
    CHECK(r.setup_ms + r.solve_ms >= 35.0);
    CHECK(r.solver_wall_ms < r.setup_ms + r.solve_ms); /* the charge is not wall time */
    CHECK(strcmp(r.note, "") == 0);
    ncp_result_free(&r);
    /* a 20 ms budget: the third charge (21 ms) spends it inside iteration 3; the answer is
     * iterate 2 and the note says where the solve was ended */
    o.budget.time_ms = 20.0;
    o.budget.max_iter = 100;
    CHECK_OK(ncp_harness_solve(&scripted, p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_TIMEOUT);
    CHECK(r.iterations == 2);
    CHECK(r.setup_ms + r.solve_ms >= 20.0);
    CHECK(strstr(r.note, "time budget spent inside iteration 3") != NULL);
    ncp_result_free(&r);
    /* ncp_run_external (a peer's parent, which only forks and waits): 8 ms of setup on the
     * thread count, the 5 x 10 ms the thread spins after it do not, the 5 x 1 ms charged do;
     * the monitor's time is still measured; under the wall clock everything counts */
    o.budget.time_ms = 0.0;
    o.budget.max_iter = 5;
    ps.n = 0;
    ncp_params_set(&ps, "external", 1.0, &err);
    ncp_params_set(&ps, "setup_ms", 8.0, &err);
    ncp_params_set(&ps, "work_ms", 10.0, &err);
    ncp_params_set(&ps, "charge_ms", 1.0, &err);
    CHECK_OK(ncp_harness_solve(&scripted, p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.iterations == 5 && r.status == NCP_STATUS_MAX_ITER);
    CHECK(r.setup_ms >= 8.0 && r.setup_ms < 8.0 + 5.0);
    CHECK(r.solve_ms >= 5.0 && r.solve_ms < 5.0 + 5.0); /* without it: >= 55 ms */
    CHECK(r.solver_wall_ms >= 58.0);
    CHECK(r.monitor_ms > 0.0);
    ncp_result_free(&r);
    o.clock = NCP_CLOCK_WALL;
    CHECK_OK(ncp_harness_solve(&scripted, p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.setup_ms + r.solve_ms >= 58.0);
    ncp_result_free(&r);
    ncp_clock ck;
    ncp_clock_start(&ck, NCP_CLOCK_WALL);
    CHECK(ncp_clock_external(&ck) == 0 && !ck.external);
    ncp_clock_start(&ck, NCP_CLOCK_CPU);
    spin(3.0);
    CHECK(ncp_clock_external(&ck) == 1);
    double before = ncp_clock_ms(&ck);
    spin(10.0);
    CHECK(before >= 2.99 && ncp_clock_ms(&ck) == before); /* less a reading's cost */
    ncp_clock_add_cpu(&ck, 2.0);
    CHECK(ncp_clock_ms(&ck) == before + 2.0);
    CHECK(ncp_clock_wall_ms(&ck) >= 13.0);
    /* a reading's cost is taken off every interval (clock.h): 2000 empty intervals (resume and
     * pause back to back) hold 2000 readings' worth of CPU time, about half of what the 4000
     * readings took in all (measured here on the thread's clock, independently of ck); charged,
     * a small fraction of it remains */
    for (int kind = NCP_CLOCK_CPU; kind <= NCP_CLOCK_WALL; kind++) {
        ncp_clock_start(&ck, kind);
        CHECK(ck.cost_ms > 0.0 && ck.cost_wall_ms > 0.0 && isfinite(ck.cost_ms));
        ncp_clock_pause(&ck);
        double charged0 = ncp_clock_ms(&ck), raw0 = ncp_thread_cpu_ms(), wall0 = ncp_now_ms();
        for (int i = 0; i < 2000; i++) {
            ncp_clock_resume(&ck);
            ncp_clock_pause(&ck);
        }
        double raw = kind == NCP_CLOCK_CPU ? ncp_thread_cpu_ms() - raw0 : ncp_now_ms() - wall0;
        double charged = ncp_clock_ms(&ck) - charged0;
        CHECK(charged >= 0.0 && charged <= 0.2 * raw);
        if (!(charged <= 0.2 * raw))
            fprintf(stderr, "  %s clock: 2000 empty intervals charged %.4f ms of %.4f ms read\n",
                    ncp_clock_name(kind), charged, raw);
    }
}

/* The problem set's checksum (bench.h): the same for a copy, another for one changed bit of the
 * data it covers or another order, unchanged by derived data (D of a primal problem). */
static void test_checksum(const ncp_problem *dual_only)
{
    ncp_error err = {0};
    ncp_problem a, b;
    ncp_problem_init(&a);
    ncp_problem_init(&b);
    CHECK_OK(tutil_random_problem(&a, 7, 6, 3, 1, 1, 0, &err), &err);
    CHECK_OK(ncp_problem_copy(&b, &a, &err), &err);
    const uint64_t h0 = NCP_CHECKSUM_START;
    uint64_t ha = ncp_bench_problem_checksum(h0, &a);
    CHECK(ha != h0 && ha == ncp_bench_problem_checksum(h0, &b));
    uint64_t ab = ncp_bench_problem_checksum(ncp_bench_problem_checksum(h0, &a), dual_only);
    uint64_t ba = ncp_bench_problem_checksum(ncp_bench_problem_checksum(h0, dual_only), &a);
    CHECK(ab != ba);
    uint64_t bits;
    memcpy(&bits, &b.b[0], sizeof bits);
    bits ^= 1; /* the last bit of b's first entry */
    memcpy(&b.b[0], &bits, sizeof bits);
    CHECK(ncp_bench_problem_checksum(h0, &b) != ha);
    CHECK(a.has_primal && a.has_dual && a.D);
    a.D[0] += 1.0; /* derived from the primal data: not covered */
    CHECK(ncp_bench_problem_checksum(h0, &a) == ha);
    ncp_problem_free(&a);
    ncp_problem_free(&b);
}

/* What the scripted solver below was handed (a test-only record, one solve at a time). */
typedef struct seen {
    int has_primal, nv, a_identity, d_symmetric, v0_given;
} seen;

/* The scripted solver, recording the problem it is handed. Solvers receive nothing but the
 * problem and named reals, so the address of the test's `seen` travels as two 32-bit halves
 * (exact in a double) rather than through a global. */
static int recording_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,
                           ncp_error *err)
{
    uintptr_t hi = (uintptr_t)ncp_params_get(in->params, "seen_hi", 0.0);
    uintptr_t lo = (uintptr_t)ncp_params_get(in->params, "seen_lo", 0.0);
    seen *sn = (seen *)((hi << 32) | lo);
    const ncp_problem *p = in->prob;
    sn->has_primal = p->has_primal;
    sn->nv = p->nv;
    sn->a_identity = p->has_primal;
    for (int j = 0; p->has_primal && j < p->nv; j++)
        for (int i = 0; i < p->nv; i++)
            if (p->A[i + (size_t)j * p->nv] != (i == j ? 1.0 : 0.0)) sn->a_identity = 0;
    double asym = 1.0;
    ncp_harness_dual_symmetric(p, &asym, NULL);
    sn->d_symmetric = asym == 0.0;
    sn->v0_given = in->v0 != NULL;
    return scripted_solve(in, out, run, err);
}

static void set_seen(ncp_params *ps, seen *sn)
{
    ncp_error err = {0};
    uintptr_t a = (uintptr_t)sn;
    ps->n = 0;
    ncp_params_set(ps, "seen_hi", (double)(a >> 32), &err);
    ncp_params_set(ps, "seen_lo", (double)(a & 0xffffffffu), &err);
}

/* A problem whose exact solution is known: one contact with D = I, v_f = (-1, 0, 0):
 * lambda = (1, 0, 0), u = 0 (sticking at rest). */
static void one_contact(ncp_problem *p, ncp_error *err)
{
    ncp_problem_init(p);
    ncp_problem_alloc_blocks(p, 1, err);
    p->blocks[0].type = NCP_CONTACT;
    p->blocks[0].mu = 0.5;
    ncp_problem_layout(p);
    p->D = calloc(9, sizeof(double));
    p->vf = calloc(3, sizeof(double));
    p->D[0] = p->D[4] = p->D[8] = 1.0;
    p->vf[0] = -1.0;
    p->has_dual = 1;
    p->name = strdup("one");
}

/* The graded metrics of lambda on p as given, for comparison with a result. */
static void metrics_on(const ncp_problem *p, const double *lambda, ncp_metrics *mt)
{
    ncp_error err = {0};
    ncp_metrics_ws *ws = NULL;
    CHECK_OK(ncp_metrics_ws_create(p, &ws, &err), &err);
    CHECK_OK(ncp_metrics_eval(ws, lambda, mt, &err), &err);
    ncp_metrics_ws_free(ws);
}

/* The same metrics bit for bit (NaN equal to NaN). */
static int same_metrics(const ncp_metrics *a, const ncp_metrics *b)
{
    for (int k = 0; k < ncp_metrics_count(); k++) {
        double x = ncp_metrics_at(a, k), y = ncp_metrics_at(b, k);
        if (!(x == y || (isnan(x) && isnan(y)))) return 0;
    }
    return 1;
}

/* Unsupported statuses with their reasons, and each reconstruction changing exactly what the
 * solver is handed while the grading stays on the problem as given. */
static void test_unsupported_and_reconstructions(const ncp_problem *one)
{
    ncp_error err = {0};
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    o.budget.tol = 1e-3;
    o.unsupported_ok = 1;
    double sol[3] = {1.0, 0.0, 0.0};
    seen sn;
    ncp_params ps;
    ncp_result r;
    ncp_solver_desc rec = {.name = "recording", .source = "test", .summary = "test",
                           .needs = NCP_NEEDS_DUAL, .file = "test", .solve = recording_solve};

    /* (a) a dual-only problem and a primal solver: unsupported, then A = I, J from D */
    ncp_solver_desc rec_primal = rec;
    rec_primal.needs = NCP_NEEDS_DUAL | NCP_NEEDS_PRIMAL;
    set_seen(&ps, &sn);
    CHECK_OK(ncp_harness_solve(&rec_primal, one, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_UNSUPPORTED && r.unsupported == NCP_UNSUP_PRIMAL);
    CHECK(strncmp(r.note, "needs primal data (A, b, J, e): ", 32) == 0);
    CHECK(strstr(r.note, "dual-only") && strstr(r.note, "--reconstruct-primal"));
    CHECK(!r.lambda && !r.u && !r.v && r.iterations == 0 && r.converged == 0);
    CHECK(isnan(r.final.natural_map_abs) && r.setup_ms == 0.0 && r.solve_ms == 0.0);
    ncp_result_free(&r);
    /* without unsupported_ok (the trajectory driver): an input error with the same reason */
    ncp_harness_opts strict = o;
    strict.unsupported_ok = 0;
    ncp_error e2 = {0};
    CHECK(ncp_harness_solve(&rec_primal, one, &ps, sol, NULL, &strict, &r, &e2) == NCP_ERR_INPUT);
    CHECK(strstr(e2.msg, "needs primal data") && strstr(e2.msg, "recording"));
    /* allowed: the solver gets A = I (nv = m), the metrics and u stay those of D as given,
     * and no velocity is reported (the reconstructed one is not the problem's) */
    o.allow = NCP_RECON_PRIMAL_FROM_D;
    memset(&sn, 0, sizeof sn);
    CHECK_OK(ncp_harness_solve(&rec_primal, one, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_CONVERGED && r.iterations == 10);
    CHECK(r.applied == NCP_RECON_PRIMAL_FROM_D && !strcmp(r.note, "primal reconstructed from D"));
    CHECK(sn.has_primal && sn.nv == 3 && sn.a_identity);
    CHECK(!r.v);
    ncp_metrics want;
    metrics_on(one, r.lambda, &want);
    CHECK(same_metrics(&r.final, &want));
    ncp_result_free(&r);
    /* the same solve by a dual solver on the same problem is untouched: nothing applied */
    CHECK_OK(ncp_harness_solve(&rec, one, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.applied == 0 && r.note[0] == '\0' && !sn.has_primal);
    ncp_result_free(&r);
    /* the real CANAL on it: unsupported, then solved through the reconstruction */
    const ncp_solver_desc *canal = ncp_solver_find("canal");
    o.allow = 0;
    CHECK_OK(ncp_harness_solve(canal, one, NULL, NULL, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_UNSUPPORTED && r.unsupported == NCP_UNSUP_PRIMAL);
    ncp_result_free(&r);
    o.allow = NCP_RECON_PRIMAL_FROM_D;
    o.budget.tol = 1e-10;
    CHECK_OK(ncp_harness_solve(canal, one, NULL, NULL, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_CONVERGED && r.applied == NCP_RECON_PRIMAL_FROM_D);
    CHECK(r.lambda && fabs(r.lambda[0] - 1.0) < 1e-8);
    ncp_result_free(&r);
    o.budget.tol = 1e-3;
    /* a D that is not positive semi-definite has no primal form: unsupported, not an error */
    ncp_problem neg;
    CHECK_OK(ncp_problem_copy(&neg, one, &err), &err);
    neg.D[4] = -1.0;
    CHECK_OK(ncp_harness_solve(&rec_primal, &neg, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_UNSUPPORTED && r.unsupported == NCP_UNSUP_PRIMAL &&
          r.applied == 0 && strstr(r.note, "no primal form"));
    ncp_result_free(&r);
    ncp_problem_free(&neg);

    /* (b) a non-symmetric D: D_12 = 0.3, D_21 = 0.1 (symmetric part SPD) */
    ncp_problem ns;
    CHECK_OK(ncp_problem_copy(&ns, one, &err), &err);
    ns.D[0] = ns.D[4] = ns.D[8] = 2.0;
    ns.D[3] = 0.3; /* (0, 1) */
    ns.D[1] = 0.1; /* (1, 0) */
    ns.vf[0] = -2.0;
    ns.dual_symmetric = 0;
    double asym = 0.0;
    CHECK(!ncp_harness_dual_symmetric(&ns, &asym, NULL) && fabs(asym - 0.2) < 1e-15);
    ncp_solver_desc rec_sym = rec;
    rec_sym.needs = NCP_NEEDS_DUAL | NCP_NEEDS_SYMMETRIC;
    o.allow = 0;
    CHECK_OK(ncp_harness_solve(&rec_sym, &ns, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_UNSUPPORTED && r.unsupported == NCP_UNSUP_SYMMETRIC);
    CHECK(strncmp(r.note, "needs a symmetric D: max |D - D^T| = 0.2 ", 40) == 0);
    CHECK(strstr(r.note, "--symmetrize") != NULL);
    ncp_result_free(&r);
    /* a solver that uses D as given runs on it, untouched */
    memset(&sn, 0, sizeof sn);
    CHECK_OK(ncp_harness_solve(&rec, &ns, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status != NCP_STATUS_UNSUPPORTED && r.applied == 0 && !sn.d_symmetric);
    ncp_result_free(&r);
    /* --symmetrize: the solver gets (D + D^T)/2; u and the metrics are those of D as given */
    o.allow = NCP_RECON_SYMMETRIZE;
    memset(&sn, 0, sizeof sn);
    CHECK_OK(ncp_harness_solve(&rec_sym, &ns, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status != NCP_STATUS_UNSUPPORTED && r.applied == NCP_RECON_SYMMETRIZE);
    CHECK(strncmp(r.note, "D symmetrised (max |D - D^T| = 0.2)", 35) == 0);
    CHECK(sn.d_symmetric);
    metrics_on(&ns, r.lambda, &want);
    CHECK(same_metrics(&r.final, &want));
    double u1 = ns.D[1] * r.lambda[0] + ns.D[4] * r.lambda[1] + ns.D[7] * r.lambda[2] + ns.vf[1];
    CHECK(r.u[1] == u1); /* row 1 of D as given (0.1 lambda_0 + ...), not 0.2 lambda_0 */
    ncp_result_free(&r);
    /* the real NEEDS_SYMMETRIC solvers refuse it; pgs solves it as given */
    const char *needs_sym[] = {"apgd", "admm", "fadmm", "admm-ccp", "admm-ncp-fp", "admm-ncp-la",
                               "admm-ncp-sa", "sap"};
    o.allow = 0;
    for (size_t i = 0; i < sizeof needs_sym / sizeof needs_sym[0]; i++) {
        const ncp_solver_desc *d = ncp_solver_find(needs_sym[i]);
        CHECK(d && (d->needs & NCP_NEEDS_SYMMETRIC));
        if (!d) continue;
        CHECK_OK(ncp_harness_solve(d, &ns, NULL, NULL, NULL, &o, &r, &err), &err);
        CHECK(r.status == NCP_STATUS_UNSUPPORTED && r.unsupported == NCP_UNSUP_SYMMETRIC);
        ncp_result_free(&r);
    }
    CHECK_OK(ncp_harness_solve(ncp_solver_find("pgs"), &ns, NULL, NULL, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_CONVERGED && r.applied == 0);
    ncp_result_free(&r);
    /* a primal rebuilt from a non-symmetric D needs --symmetrize as well */
    o.allow = NCP_RECON_PRIMAL_FROM_D;
    CHECK_OK(ncp_harness_solve(&rec_primal, &ns, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_UNSUPPORTED && r.unsupported == NCP_UNSUP_SYMMETRIC);
    CHECK(strstr(r.note, "rebuild the primal data") != NULL);
    ncp_result_free(&r);
    o.allow = NCP_RECON_PRIMAL_FROM_D | NCP_RECON_SYMMETRIZE;
    CHECK_OK(ncp_harness_solve(&rec_primal, &ns, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.applied == (NCP_RECON_PRIMAL_FROM_D | NCP_RECON_SYMMETRIZE));
    CHECK(strstr(r.note, "D symmetrised") && strstr(r.note, "primal reconstructed from D"));
    ncp_result_free(&r);
    ncp_problem_free(&ns);

    /* (c) no structure: subadmm is unsupported, whatever the options */
    o.allow = NCP_RECON_PRIMAL_FROM_D | NCP_RECON_PRIMAL_DENSE | NCP_RECON_SYMMETRIZE;
    CHECK_OK(ncp_harness_solve(ncp_solver_find("subadmm"), one, NULL, NULL, NULL, &o, &r, &err),
             &err);
    CHECK(r.status == NCP_STATUS_UNSUPPORTED && r.unsupported == NCP_UNSUP_STRUCTURE);
    CHECK(strncmp(r.note, "needs the subsystem structure: problem one has none", 51) == 0);
    ncp_result_free(&r);

    /* (d) sparse primal (A = 2 I kept sparse, J = I): unsupported, densified on request, and
     * beyond the memory limit unsupported again */
    ncp_problem sp;
    CHECK_OK(ncp_problem_copy(&sp, one, &err), &err);
    sp.nv = 3;
    sp.has_sparse_primal = 1;
    CHECK_OK(ncp_csr_alloc(&sp.A_sparse, 3, 3, 3, &err), &err);
    CHECK_OK(ncp_csr_alloc(&sp.J, 3, 3, 3, &err), &err);
    for (int i = 0; i < 3; i++) {
        sp.A_sparse.rowptr[i + 1] = sp.J.rowptr[i + 1] = i + 1;
        sp.A_sparse.col[i] = sp.J.col[i] = i;
        sp.A_sparse.val[i] = 2.0;
        sp.J.val[i] = 1.0;
    }
    sp.b = calloc(3, sizeof(double));
    sp.e = calloc(3, sizeof(double));
    sp.e[0] = -1.0;
    for (int i = 0; i < 3; i++) sp.D[4 * i] = 0.5; /* D = J A^-1 J^T, v_f = e */
    o.allow = NCP_RECON_PRIMAL_FROM_D | NCP_RECON_SYMMETRIZE;
    CHECK_OK(ncp_harness_solve(&rec_primal, &sp, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_UNSUPPORTED && r.unsupported == NCP_UNSUP_SPARSE);
    CHECK(strstr(r.note, "--primal dense") != NULL);
    ncp_result_free(&r);
    /* a solver that reads the sparse A too (NCP_NEEDS_PRIMAL_SPARSE) is handed it as it is */
    ncp_solver_desc rec_sparse = rec_primal;
    rec_sparse.needs |= NCP_NEEDS_PRIMAL_SPARSE;
    memset(&sn, 0, sizeof sn);
    CHECK_OK(ncp_harness_solve(&rec_sparse, &sp, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status != NCP_STATUS_UNSUPPORTED && r.applied == 0);
    CHECK(!sn.has_primal && sn.nv == 3);
    ncp_result_free(&r);
    o.allow = NCP_RECON_PRIMAL_DENSE;
    double v0[3] = {0.5, 0.0, 0.0};
    memset(&sn, 0, sizeof sn);
    CHECK_OK(ncp_harness_solve(&rec_primal, &sp, &ps, sol, v0, &o, &r, &err), &err);
    CHECK(r.applied == NCP_RECON_PRIMAL_DENSE && !strcmp(r.note, "A densified"));
    CHECK(sn.has_primal && sn.nv == 3 && !sn.a_identity && sn.v0_given);
    CHECK(r.v && fabs(r.v[0] - 0.5 * (r.lambda[0] + 0.0)) < 1e-15); /* v = A^-1 (b + J^T l) */
    ncp_result_free(&r);
    o.dense_max_bytes = 100.0; /* 2 x 9 doubles = 144 bytes > 100 */
    CHECK_OK(ncp_harness_solve(&rec_primal, &sp, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_UNSUPPORTED && r.unsupported == NCP_UNSUP_MEMORY);
    ncp_result_free(&r);
    ncp_problem_free(&sp);

    /* (e) a warm start at the solution: far fewer iterations than from zero */
    const ncp_solver_desc *pgs = ncp_solver_find("pgs");
    ncp_problem rp;
    CHECK_OK(tutil_random_problem(&rp, 4242, 12, 4, 0, 0, 0, &err), &err);
    ncp_harness_opts_default(&o);
    o.budget.tol = 1e-12;
    o.budget.max_iter = 100000;
    CHECK_OK(ncp_harness_solve(pgs, &rp, NULL, NULL, NULL, &o, &r, &err), &err);
    int cold = r.iterations;
    double *lam = malloc(sizeof(double) * (size_t)rp.m);
    memcpy(lam, r.lambda, sizeof(double) * (size_t)rp.m);
    CHECK(r.converged);
    ncp_result_free(&r);
    CHECK_OK(ncp_harness_solve(pgs, &rp, NULL, lam, NULL, &o, &r, &err), &err);
    CHECK(r.converged && r.iterations <= 1 && r.iterations < cold);
    ncp_result_free(&r);
    free(lam);
    ncp_problem_free(&rp);
}

/* The note of a metrics.csv row parsed back into what it records. */
static void test_note_parse(void)
{
    ncp_note_info ni;
    char memory[160]; /* today's wording, and that of older journals (resume reads both) */
    snprintf(memory, sizeof memory, "%s: nv = 9 ...", ncp_unsupported_name(NCP_UNSUP_MEMORY));
    CHECK(strstr(memory, "dense matrix too large") != NULL);
    ncp_note_parse(memory, &ni);
    CHECK(ni.unsupported == NCP_UNSUP_MEMORY && ni.applied == 0 && !ni.warm_guess);
    ncp_note_parse("needs a dense A too large for the memory limit: nv = 9 ...", &ni);
    CHECK(ni.unsupported == NCP_UNSUP_MEMORY && ni.applied == 0 && !ni.warm_guess);
    ncp_note_parse("needs a dense A: the problem's A is sparse", &ni);
    CHECK(ni.unsupported == NCP_UNSUP_SPARSE);
    ncp_note_parse("D symmetrised (max |D - D^T| = 0.2); primal reconstructed from D; "
                   NCP_NOTE_WARM_GUESS, &ni);
    CHECK(ni.unsupported == 0 && ni.warm_guess &&
          ni.applied == (NCP_RECON_SYMMETRIZE | NCP_RECON_PRIMAL_FROM_D));
    ncp_note_parse(NCP_NOTE_WARM_NONE, &ni);
    CHECK(!ni.warm_guess && !ni.applied && !ni.unsupported);
    for (int s = NCP_STATUS_CONVERGED; s <= NCP_STATUS_UNSUPPORTED; s++)
        CHECK(ncp_status_from_name(ncp_status_name(s)) == s);
    CHECK(!strcmp(ncp_status_name(NCP_STATUS_UNSUPPORTED), "unsupported"));
    CHECK(ncp_status_from_name("bogus") == -1);
}

/* Trace rows as the callback saw them. */
typedef struct rows {
    int n;
    int iter[4096];
    double stop[4096];
} rows;

static int record_row(void *ctx, int iter, double t, const ncp_metrics *mt)
{
    (void)t;
    rows *r = ctx;
    if (r->n < 4096) {
        r->iter[r->n] = iter;
        r->stop[r->n] = mt->natural_map_rel_acary;
        r->n++;
    }
    return 0;
}

/* Sampled monitoring (trace_sample = 1): the same solve as with every row (iterations, status,
 * answer bit for bit: the stopping test evaluates the same bits), rows exactly at the log sample
 * and at the last iterate, each equal to the full run's row there; monitor time accounted. */
static void test_sampled_monitor(const char *solver, double tol, int max_iter)
{
    ncp_error err = {0};
    ncp_problem p;
    CHECK_OK(tutil_random_problem(&p, 42, 6, 30, 1, 1, 0, &err), &err);
    const ncp_solver_desc *s = ncp_solver_find(solver);
    CHECK(s != NULL);
    if (!s) return;
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    o.budget.tol = tol;
    o.budget.max_iter = max_iter;
    o.trace = record_row;
    static rows all, some;
    memset(&all, 0, sizeof all);
    memset(&some, 0, sizeof some);
    ncp_result ra, rs;
    o.trace_ctx = &all;
    CHECK_OK(ncp_harness_solve(s, &p, NULL, NULL, NULL, &o, &ra, &err), &err);
    o.trace_ctx = &some;
    o.trace_sample = 1;
    CHECK_OK(ncp_harness_solve(s, &p, NULL, NULL, NULL, &o, &rs, &err), &err);
    CHECK(ra.iterations == rs.iterations && ra.status == rs.status);
    CHECK(ra.lambda && rs.lambda && !memcmp(ra.lambda, rs.lambda, sizeof(double) * p.m));
    CHECK(all.n == ra.iterations);
    int k = 0, ok = 1;
    for (int it = 1; it <= rs.iterations; it++) {
        if (!ncp_log_sample_keep(it) && it != rs.iterations) continue;
        ok &= k < some.n && some.iter[k] == it && some.stop[k] == all.stop[it - 1];
        k++;
    }
    CHECK(ok && k == some.n);
    CHECK(some.n < all.n || ra.iterations <= 21);
    CHECK(rs.monitor_ms > 0.0 && rs.monitor_ms <= rs.wall_ms);
    CHECK(rs.setup_ms + rs.solve_ms + rs.monitor_ms <= rs.wall_ms + 1e-9);
    ncp_result_free(&ra);
    ncp_result_free(&rs);
    ncp_problem_free(&p);
}

/* What a solver was handed: the problem pointer's D (NULL when none) and a copy of it. */
typedef struct seen_d {
    const double *D;
    int has_dual;
    double *copy;
} seen_d;
static seen_d g_seen;

static int seeing_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    (void)err;
    const ncp_problem *p = in->prob;
    g_seen.D = p->D;
    g_seen.has_dual = p->has_dual;
    free(g_seen.copy);
    g_seen.copy = NULL;
    size_t mm = (size_t)p->m * p->m;
    if (p->D && (g_seen.copy = malloc(mm * sizeof(double))))
        memcpy(g_seen.copy, p->D, mm * sizeof(double));
    if (ncp_run_setup_done(run)) return NCP_OK;
    for (int i = 0; i < p->m; i++) out->lambda[i] = 0.0;
    out->iterations = 1;
    ncp_run_iterate(run, 1, out->lambda, NULL);
    return NCP_OK;
}

/* D built only on demand (core/problem.h): a problem with primal data and no D is graded with
 * the same metrics as its twin that keeps D (to 1e-12: the operator's primal route against the
 * dense D); a solver declaring NCP_NEEDS_DUAL is handed the dense D, bit for bit the eager one,
 * and one declaring NCP_NEEDS_DUAL_OP is handed none; the given problem keeps no D after either
 * solve; a D above the memory budget is an unsupported row before anything is allocated. */
static void test_lazy_dual(void)
{
    ncp_error err = {0};
    ncp_solver_desc dense = {.name = "seeing", .source = "test", .summary = "test",
                             .needs = NCP_NEEDS_DUAL, .file = "test", .solve = seeing_solve};
    ncp_solver_desc op = dense;
    op.needs = NCP_NEEDS_DUAL_OP;
    int routes_without_d = 0;
    for (int sparse = 0; sparse < 2; sparse++) {
        ncp_problem eager, lazy;
        /* many contacts on few bodies: the sparse product pays (dop_route 2) */
        if (sparse) CHECK_OK(tutil_sparse_bodies_problem(&eager, 17, 6, 120, &err), &err);
        else CHECK_OK(tutil_random_problem(&eager, 17, 8, 10, 1, 1, 1, &err), &err);
        CHECK(eager.has_dual && eager.D);
        CHECK_OK(ncp_problem_copy(&lazy, &eager, &err), &err);
        CHECK(ncp_problem_drop_dual(&lazy) == 1 && !lazy.D && !lazy.has_dual && lazy.vf);
        lazy.dop_route = eager.dop_route = 0;
        CHECK_OK(ncp_dop_check_problem(&lazy, &err), &err);
        CHECK_OK(ncp_dop_check_problem(&eager, &err), &err);
        const int m = eager.m;
        ncp_harness_opts o;
        ncp_harness_opts_default(&o);
        o.budget.max_iter = 50;
        o.budget.tol = 1e-300;
        const char *names[] = {"apgd", "jacobi", "admm", "pgs", "nsn-fb"};
        for (int si = 0; si < 5; si++) {
            const ncp_solver_desc *s = ncp_solver_find(names[si]);
            ncp_result re, rl;
            CHECK_OK(ncp_harness_solve(s, &eager, NULL, NULL, NULL, &o, &re, &err), &err);
            CHECK_OK(ncp_harness_solve(s, &lazy, NULL, NULL, NULL, &o, &rl, &err), &err);
            CHECK(re.status == rl.status && re.iterations == rl.iterations);
            double worst = 0.0, scale = 0.0;
            for (int i = 0; i < m; i++) {
                worst = fmax(worst, fabs(re.lambda[i] - rl.lambda[i]));
                scale = fmax(scale, fabs(re.lambda[i]));
            }
            CHECK(worst <= 1e-10 * fmax(scale, 1.0));
            for (int k = 0; k < ncp_metrics_count(); k++) {
                double a = ncp_metrics_at(&re.final, k), b = ncp_metrics_at(&rl.final, k);
                CHECK((isnan(a) && isnan(b)) || fabs(a - b) <= 1e-12 * fmax(1.0, fabs(a)) +
                                                            1e-10 * fabs(a));
            }
            printf("harness: lazy D (%s A), %s: %d iterations, max |lambda - lambda_eager| "
                   "%.2g\n", sparse ? "sparse" : "dense", names[si], rl.iterations, worst);
            ncp_result_free(&re);
            ncp_result_free(&rl);
        }
        CHECK(!lazy.has_dual && !lazy.D); /* no solve left a D on the problem */
        /* the dense D to a solver that declares it needs it, the eager bits */
        ncp_result r;
        CHECK_OK(ncp_harness_solve(&dense, &lazy, NULL, NULL, NULL, &o, &r, &err), &err);
        CHECK(g_seen.D && g_seen.has_dual && g_seen.copy &&
              memcmp(g_seen.copy, eager.D, (size_t)m * m * sizeof(double)) == 0);
        ncp_result_free(&r);
        CHECK(!lazy.has_dual && !lazy.D);
        CHECK_OK(ncp_harness_solve(&op, &lazy, NULL, NULL, NULL, &o, &r, &err), &err);
        /* the operator only, unless the dense D is the problem's cheapest operator (a small
         * problem, dop_route -1: then it is built outside the solver's clock) */
        CHECK((g_seen.D != NULL) == (lazy.dop_route < 0));
        routes_without_d += lazy.dop_route > 0;
        ncp_result_free(&r);
        /* the memory budget: 8 m^2 above it, an unsupported row, nothing built */
        o.dense_max_bytes = 4.0 * (double)m * m;
        o.unsupported_ok = 1;
        g_seen.D = (const double *)&g_seen;
        CHECK_OK(ncp_harness_solve(&dense, &lazy, NULL, NULL, NULL, &o, &r, &err), &err);
        CHECK(r.status == NCP_STATUS_UNSUPPORTED && r.unsupported == NCP_UNSUP_MEMORY &&
              strstr(r.note, "dense Delassus matrix D"));
        CHECK(g_seen.D == (const double *)&g_seen); /* the solver never ran */
        ncp_result_free(&r);
        ncp_problem_free(&eager);
        ncp_problem_free(&lazy);
    }
    CHECK(routes_without_d == 2); /* both problems are served without D */
    free(g_seen.copy);
    g_seen.copy = NULL;
}

int main(void)
{
    test_lazy_dual();
    test_sampled_monitor("pgs", 1e-30, 300);   /* runs to max_iter */
    test_sampled_monitor("nsn-fb", 1e-10, 300); /* converges: the last row is the converged one */
    test_sampled_monitor("raisim-ds-es", 1e-30, 300); /* stops on its own (stalled) */
    ncp_error err = {0};
    ncp_problem p;
    one_contact(&p, &err);
    double sol[3] = {1.0, 0.0, 0.0};
    ncp_params ps = {0};
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    ncp_result r;

    /* 1. converges by the common metric: natural map of iterate k is |1 - f_k| = 2^-k (the
     * contact sticks, F = lambda - Pi(lambda - u) = lambda - 1 for the normal), relative
     * Siconos form divides by max(1, ||lambda||, ||u||) = 1. tol 1e-3 -> first k with
     * 2^-k <= 1e-3 is k = 10. */
    o.budget.tol = 1e-3;
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_CONVERGED);
    CHECK(r.converged == 1);
    CHECK(r.iterations == 10);
    CHECK_NEAR(r.lambda[0], 1.0 - ldexp(1.0, -10), 1e-15); /* answer = last iterate */
    CHECK_NEAR(r.final.natural_map_abs, ldexp(1.0, -10), 1e-15);
    CHECK_NEAR(r.u[0], -1.0 + r.lambda[0], 1e-15);
    ncp_result_free(&r);

    /* 2. iteration budget is exact */
    o.budget.tol = 1e-300;
    o.budget.max_iter = 7;
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_MAX_ITER);
    CHECK(r.iterations == 7);
    CHECK(r.converged == 0);
    ncp_result_free(&r);

    /* 3. the solver's own stop (stalled) is kept */
    o.budget.max_iter = 100;
    ncp_params_set(&ps, "give_up", 3, &err);
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_STALLED);
    CHECK(r.iterations == 3);
    ncp_result_free(&r);
    ps.n = 0;

    /* 4. the clock is paused in the monitor: 20 iterations with 1 ms of solver work and a
     * monitor that spins 20 ms each; solver time must stay far below the 400 ms spent in the
     * monitor (accounting invariant, generous margin: it is not a speed test). */
    slow_trace st = {20.0, 0, 0.0};
    o.budget.max_iter = 20;
    o.trace = slow_cb;
    o.trace_ctx = &st;
    ncp_params_set(&ps, "work_ms", 1.0, &err);
    double t0 = ncp_now_ms();
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, sol, NULL, &o, &r, &err), &err);
    double wall = ncp_now_ms() - t0;
    CHECK(st.calls == 20);
    CHECK(wall >= 400.0);
    CHECK(r.setup_ms + r.solve_ms >= 20.0 * 1.0);     /* the work itself is counted */
    CHECK(r.setup_ms + r.solve_ms < 0.5 * wall);       /* the monitor's 400 ms are not */
    CHECK(st.last_t <= r.setup_ms + r.solve_ms + 1e-9); /* trace times are solver times */
    ncp_result_free(&r);
    o.trace = NULL;

    /* 5. time budget: 2 ms per iteration, 10 ms budget -> TIMEOUT; the overshoot is at most one
     * iteration, i.e. the iteration count cannot exceed budget / work + 1 plus scheduling
     * noise; we check the structural property (stopped by time, long before max_iter). */
    ps.n = 0;
    ncp_params_set(&ps, "work_ms", 2.0, &err);
    o.budget.max_iter = 100000;
    o.budget.time_ms = 10.0;
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_TIMEOUT);
    CHECK(r.iterations >= 1 && r.iterations <= 6);
    ncp_result_free(&r);

    /* 6. setup exceeding the budget: no iteration, answer = start point */
    ps.n = 0;
    ncp_params_set(&ps, "setup_ms", 15.0, &err);
    double start[3] = {2.0, 0.0, 0.0}; /* not a solution: natural map 1 */
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, start, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_TIMEOUT);
    CHECK(r.iterations == 0);
    CHECK_NEAR(r.lambda[0], 2.0, 0.0);
    CHECK_NEAR(r.final.natural_map_abs, 1.0, 1e-15);
    CHECK(r.setup_ms >= 15.0);
    ncp_result_free(&r);

    /* 7. interrupt flag stops the solver after the current iteration */
    volatile int flag = 1;
    o.budget.time_ms = 0.0;
    o.budget.max_iter = 100;
    o.interrupt = &flag;
    ps.n = 0;
    CHECK_OK(ncp_harness_solve(&scripted, &p, &ps, sol, NULL, &o, &r, &err), &err);
    CHECK(r.status == NCP_STATUS_STOPPED);
    CHECK(r.iterations == 1);
    ncp_result_free(&r);

    /* 8. a solver that needs the structure is refused with a clear message */
    ncp_solver_desc needs_struct = scripted;
    needs_struct.needs |= NCP_NEEDS_STRUCTURE;
    ncp_error e2 = {0};
    CHECK(ncp_harness_solve(&needs_struct, &p, &ps, sol, NULL, &o, &r, &e2) == NCP_ERR_INPUT);
    CHECK(strstr(e2.msg, "structure") != NULL);

    test_unsupported_and_reconstructions(&p);
    test_note_parse();
    test_clocks(&p, sol);
    test_checksum(&p);
    ncp_problem_free(&p);
    return tcheck_exit("harness");
}
