/* Tests of the engine peers (solvers/engine_peers.c: Bullet's, DART's and ODE's boxed-LCP
 * solvers), run through the harness as the benchmark runs them. Built only with -Dbullet or
 * -Ddart (tests/meson.build); each check covers the engines that are built.
 *
 *   (a) the registry lists them as peers solving the box-friction LCP;
 *   (b) one contact, D = I, hand answers of the box-friction LCP (engine_peers.h):
 *       sliding v_f = (-1, 0.5, 0), mu = 0.3: lambda = (1, -0.3, 0) (also the Coulomb answer);
 *       sticking v_f = (-1, 0.1, -0.05), mu = 0.5: lambda = (1, -0.1, 0.05), u = 0;
 *       the box answer that is no Coulomb answer, v_f = (-1, 0.5, 0.5), mu = 0.3:
 *       lambda = (1, -0.3, -0.3), |lambda_t| = 0.42 > mu lambda_n: boxlcp_residual 0, the
 *       Coulomb natural map that of the independent reference (tutil_ref_natural_map);
 *       the dependent bound, D = 2I, v_f = (-1, 0.5, 0), mu = 0.3: lambda_n = 0.5, the bound
 *       0.15 binds: (0.5, -0.15, 0); Bullet's Lemke ignores the dependency and boxes friction
 *       by the fixed mu = 0.3, inside which the unconstrained -0.25 lies: (0.5, -0.25, 0);
 *   (c) a soft row (c > 0, constraint force mixing): D = 1, v_f = 0, k = 2, phi = 0.5, c = 1:
 *       lambda = -k phi - c u with u = lambda: lambda = -0.5; a soft row with c = 0 is declined
 *       (unsupported, reason naming the rows);
 *   (d) random problems with contacts, bilateral and unilateral rows and an SPD D: the PGS
 *       solvers solve their own model (boxlcp_residual, metrics/) to 1e-6 within 20000 sweeps,
 *       the pivoting ones to 1e-9 with mu = 0 (see test_random for why not with friction): the
 *       mapping's signs, bounds and row types, checked by an evaluation independent of the
 *       engines;
 *   (e) D = 0, v_f_n = -1 (no x gives w_n >= 0): dart-dantzig (early termination) rejects it:
 *       a failed row that keeps the start point and holds the engine's reason; every other
 *       engine gives a row, never a crash; D = 1e-4 I: every engine gives lambda_n = 1e4 (Bullet's
 *       Dantzig limit 1000 judges its start, not its answer);
 *   (f) budgets: bullet-pgs reports max_iter iterations (status max_iter), dart-pgs at most
 *       max_iter; one trace row per solve; a bullet-pgs run past the time budget (the child's
 *       CPU time, charged as it runs) is killed:
 *       status timeout, the start point kept; an interrupted run kills it at once (status
 *       stopped, the start point kept);
 *   (g) what is timed (engine_peers.h): each adapter calls `started` once, between its
 *       conversion (setup_ms) and the engine's call (solve_ms), both on its thread's CPU clock:
 *       the two intervals lie on either side of that call within the adapter's own time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/la.h"
#include "metrics/metrics.h"
#include "solve/harness.h"
#include "util/clock.h"
#include "solvers/engine_peers.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "testutil.h"

static const char *const NAMES[] = {
#ifdef NCP_HAVE_BULLET
    "bullet-pgs", "bullet-dantzig", "bullet-lemke",
#endif
#ifdef NCP_HAVE_DART
    "dart-pgs", "dart-dantzig", "ode-dantzig",
#endif
};
enum { NENG = (int)(sizeof NAMES / sizeof NAMES[0]) };

static int is_pgs(const char *n) { return strstr(n, "-pgs") != NULL; }
static int is_lemke(const char *n) { return strcmp(n, "bullet-lemke") == 0; }

/* Runs the engine `name` on p through the harness, an unsupported solve as a row (as the
 * benchmark does); 0 when it gave a result (r to be freed). */
static int run(const char *name, const ncp_problem *p, const ncp_params *ps,
               const ncp_harness_opts *o, ncp_result *r)
{
    const ncp_solver_desc *s = ncp_solver_find(name);
    ncp_harness_opts ro = *o;
    ro.unsupported_ok = 1;
    CHECK(s != NULL);
    if (!s || tutil_solve_opts(s, p, ps, NULL, NULL, &ro, r)) {
        CHECK(0);
        return 1;
    }
    return 0;
}

static void test_registry(void)
{
    for (int i = 0; i < NENG; i++) {
        const ncp_solver_desc *s = ncp_solver_find(NAMES[i]);
        CHECK(s != NULL);
        CHECK(ncp_registry_is_peer(NAMES[i]));
        CHECK(s && (s->needs & NCP_NEEDS_DUAL));
        CHECK(ncp_registry_model(NAMES[i]) != NULL); /* `list`: solves the box-friction LCP */
    }
    CHECK(!ncp_registry_is_peer("pgs"));
    CHECK(ncp_registry_model("pgs") == NULL);
    CHECK(ncp_registry_model("siconos-nsgs") == NULL);
}

/* Runs every engine on p and checks the answer want (3 entries per engine, or the lemke
 * variant). */
static void one_contact(const char *what, const double G[9], const double vf[3], double mu,
                        const double want[3], const double want_lemke[3])
{
    ncp_error err;
    ncp_error_clear(&err);
    ncp_problem p;
    CHECK_OK(tutil_one_contact(&p, G, vf, mu, &err), &err);
    for (int i = 0; i < NENG; i++) {
        ncp_harness_opts o = tutil_rel_opts(1e-300, 200);
        ncp_result r;
        if (run(NAMES[i], &p, NULL, &o, &r)) continue;
        const double *w = is_lemke(NAMES[i]) && want_lemke ? want_lemke : want;
        double d = tutil_maxdiff(3, r.lambda, w);
        if (!(d <= 1e-9))
            fprintf(stderr, "  %s %s: lambda (%g %g %g), want (%g %g %g), status %s: %s\n", what,
                    NAMES[i], r.lambda[0], r.lambda[1], r.lambda[2], w[0], w[1], w[2],
                    ncp_status_name(r.status), r.note);
        CHECK(d <= 1e-9);
        if (w == want) CHECK(r.final.boxlcp_residual <= 1e-12);
        ncp_result_free(&r);
    }
    ncp_problem_free(&p);
}

static void test_one_contact(void)
{
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, I2[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2};
    {
        const double vf[3] = {-1.0, 0.5, 0.0}, want[3] = {1.0, -0.3, 0.0};
        one_contact("sliding", I, vf, 0.3, want, NULL);
    }
    {
        const double vf[3] = {-1.0, 0.1, -0.05}, want[3] = {1.0, -0.1, 0.05};
        one_contact("sticking", I, vf, 0.5, want, NULL);
    }
    {
        const double vf[3] = {-1.0, 0.5, 0.5}, want[3] = {1.0, -0.3, -0.3};
        one_contact("box corner", I, vf, 0.3, want, NULL);
        /* the Coulomb grade of that answer: the independent reference's natural map */
        ncp_error err;
        ncp_error_clear(&err);
        ncp_problem p;
        CHECK_OK(tutil_one_contact(&p, I, vf, 0.3, &err), &err);
        ncp_metrics_ws *ws = NULL;
        ncp_metrics mt;
        CHECK_OK(ncp_metrics_ws_create(&p, &ws, &err), &err);
        if (ws) {
            CHECK_OK(ncp_metrics_eval(ws, want, &mt, &err), &err);
            double ref = tutil_ref_natural_map(&p, want, 0) / sqrt(1.5);
            CHECK_NEAR(mt.natural_map_rel_acary, ref, 1e-12);
            CHECK(ref > 0.09); /* 0.0972 by hand: the formulation gap */
            CHECK_NEAR(mt.boxlcp_residual, 0.0, 1e-15);
        }
        ncp_metrics_ws_free(ws);
        ncp_problem_free(&p);
    }
    {
        const double vf[3] = {-1.0, 0.5, 0.0}, want[3] = {0.5, -0.15, 0.0},
                     lemke[3] = {0.5, -0.25, 0.0};
        one_contact("dependent bound", I2, vf, 0.3, want, lemke);
    }
}

static void test_soft(void)
{
    ncp_error err;
    ncp_error_clear(&err);
    ncp_problem p;
    int types[1] = {NCP_SOFT};
    CHECK_OK(tutil_dual_problem(&p, 1, types, &err), &err);
    p.D[0] = 1.0;
    p.vf[0] = 0.0;
    p.blocks[0].k = 2.0;
    p.blocks[0].phi = 0.5;
    p.blocks[0].c = 1.0;
    for (int i = 0; i < NENG; i++) {
        ncp_harness_opts o = tutil_rel_opts(1e-300, 100);
        ncp_result r;
        if (run(NAMES[i], &p, NULL, &o, &r)) continue;
        CHECK_NEAR(r.lambda[0], -0.5, 1e-12);
        ncp_result_free(&r);
    }
    p.blocks[0].c = 0.0;
    for (int i = 0; i < NENG; i++) {
        ncp_harness_opts o = tutil_rel_opts(1e-10, 100);
        ncp_result r;
        if (run(NAMES[i], &p, NULL, &o, &r)) continue;
        CHECK(r.status == NCP_STATUS_UNSUPPORTED);
        CHECK(strstr(r.note, "soft rows with c = 0") != NULL);
        ncp_result_free(&r);
    }
    ncp_problem_free(&p);
}

static void test_random(void)
{
    ncp_error err;
    ncp_error_clear(&err);
    for (int seed = 1; seed <= 3; seed++) {
        ncp_problem p;
        CHECK_OK(tutil_random_problem(&p, (uint64_t)seed, 30, 4, 1, 2, 0, &err), &err);
        double mu0[16];
        for (int b = 0; b < p.nblocks && b < 16; b++) mu0[b] = p.blocks[b].mu;
        CHECK(p.nblocks <= 16);
        for (int i = 0; i < NENG; i++) {
            if (is_lemke(NAMES[i])) continue; /* its own model has fixed friction boxes */
            const int pgs = is_pgs(NAMES[i]);
            /* ODE's Dantzig (all three pivoting peers) sets a friction row's bounds from the
             * normal impulses its pivoting has when it reaches that row and does not revisit
             * them (ODE's "friction approximation", lcp.h): its answer solves the box LCP with
             * bounds of an intermediate lambda_n, not exactly the final one. Frictionless, the
             * model is exact and so must be its answer. */
            for (int b = 0; b < p.nblocks; b++)
                if (p.blocks[b].type == NCP_CONTACT) p.blocks[b].mu = pgs ? mu0[b] : 0.0;
            ncp_params ps = {0};
            if (!strcmp(NAMES[i], "dart-pgs")) {
                tutil_param(&ps, "dx_threshold", 0.0);
                tutil_param(&ps, "rel_dx_tol", 0.0);
            }
            ncp_harness_opts o = tutil_rel_opts(1e-300, pgs ? 20000 : 10);
            ncp_result r;
            if (run(NAMES[i], &p, &ps, &o, &r)) continue;
            const double want = pgs ? 1e-6 : 1e-9;
            if (!(r.final.boxlcp_residual <= want))
                fprintf(stderr, "  random %d %s: boxlcp_residual %g, status %s: %s\n", seed,
                        NAMES[i], r.final.boxlcp_residual, ncp_status_name(r.status), r.note);
            CHECK(r.final.boxlcp_residual <= want);
            ncp_result_free(&r);
        }
        ncp_problem_free(&p);
    }
}

static void test_reject(void)
{
    ncp_error err;
    ncp_error_clear(&err);
    const double Z[9] = {0}, small[9] = {1e-4, 0, 0, 0, 1e-4, 0, 0, 0, 1e-4},
                 vf[3] = {-1.0, 0.0, 0.0};
    for (int c = 0; c < 2; c++) {
        ncp_problem p;
        CHECK_OK(tutil_one_contact(&p, c == 0 ? Z : small, vf, 0.5, &err), &err);
        for (int i = 0; i < NENG; i++) {
            ncp_harness_opts o = tutil_rel_opts(1e-10, 100);
            ncp_result r;
            if (run(NAMES[i], &p, NULL, &o, &r)) continue; /* a result, never a crash */
            /* D = 0: DART's Dantzig (early termination) gives up. lambda_n = 1e4 on D = 1e-4:
             * Bullet's Dantzig accepts only |x| < 1000 but tests the start, not its answer
             * (engine_bullet.cpp): every engine solves it */
            int must_fail = c == 0 && !strcmp(NAMES[i], "dart-dantzig");
            if (must_fail) {
                if (r.status != NCP_STATUS_FAILED)
                    fprintf(stderr, "  reject %s: status %s, note '%s'\n", NAMES[i],
                            ncp_status_name(r.status), r.note);
                CHECK(r.status == NCP_STATUS_FAILED);
                CHECK(strstr(r.note, NAMES[i]) != NULL); /* the reason, naming the solver */
                CHECK_NEAR(r.lambda[0], 0.0, 0.0); /* the start point */
            }
            if (c == 1 && !must_fail) CHECK_NEAR(r.lambda[0], 1e4, 1e-6);
            ncp_result_free(&r);
        }
        ncp_problem_free(&p);
    }
}

static void test_budget(void)
{
    ncp_error err;
    ncp_error_clear(&err);
    ncp_problem p;
    CHECK_OK(tutil_random_problem(&p, 7, 30, 6, 0, 0, 0, &err), &err);
    for (int i = 0; i < NENG; i++) {
        if (!is_pgs(NAMES[i])) continue;
        ncp_harness_opts o = tutil_rel_opts(1e-300, 7);
        int rows = 0;
        o.trace = tutil_count_rows;
        o.trace_ctx = &rows;
        ncp_result r;
        if (run(NAMES[i], &p, NULL, &o, &r)) continue;
        CHECK(rows == 1);
        if (!strcmp(NAMES[i], "bullet-pgs")) {
            CHECK(r.iterations == 7);
            CHECK(r.status == NCP_STATUS_MAX_ITER);
        } else {
            CHECK(r.iterations >= 1 && r.iterations <= 7);
        }
        ncp_result_free(&r);
        /* Bullet's 10^8 sweeps (it has no stop of its own; DART's stops where x no longer
         * changes) cannot end within 50 ms: the child is killed at the budget, the row keeps
         * the start point with status timeout (and the test ends) */
        if (strcmp(NAMES[i], "bullet-pgs")) continue;
        o = tutil_rel_opts(1e-300, 100000000);
        o.budget.time_ms = 50.0;
        if (run(NAMES[i], &p, NULL, &o, &r)) continue;
        if (r.status != NCP_STATUS_TIMEOUT)
            fprintf(stderr, "  %s: status %s after %g ms\n", NAMES[i], ncp_status_name(r.status),
                    r.setup_ms + r.solve_ms);
        CHECK(r.status == NCP_STATUS_TIMEOUT);
        CHECK(r.iterations <= 1);
        CHECK(tutil_maxdiff(p.m, r.lambda, (double[18]){0}) == 0.0);
        /* its time is the child's CPU time (the default clock), charged up to the budget */
        CHECK(r.clock == NCP_CLOCK_CPU && r.setup_ms + r.solve_ms >= 50.0);
        ncp_result_free(&r);
        /* the same run, no time budget, the run interrupted: the child is killed at once */
        static volatile int stop = 1;
        o.budget.time_ms = 0.0;
        o.interrupt = &stop;
        double t0 = ncp_now_ms();
        if (run(NAMES[i], &p, NULL, &o, &r)) continue;
        CHECK(r.status == NCP_STATUS_STOPPED);
        CHECK(tutil_maxdiff(p.m, r.lambda, (double[18]){0}) == 0.0);
        CHECK(ncp_now_ms() - t0 < 5000.0); /* 10^8 sweeps would take minutes */
        ncp_result_free(&r);
    }
    ncp_problem_free(&p);
}

/* (g): the adapter's `started`, with the thread's CPU clock at that moment */
typedef struct started_at {
    int calls;
    double t;
} started_at;

static void on_started(ncp_engine_call *c)
{
    started_at *s = c->ctx;
    s->calls++;
    s->t = ncp_thread_cpu_ms();
}

static void test_timed_parts(void)
{
    for (int i = 0; i < NENG; i++) {
        /* one sliding contact, D = I, v_f = (-1, 0.5, 0), mu = 0.3 (b): x = (1, -0.3, 0) */
        double A[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, b[3] = {1.0, -0.5, 0.0};
        double lo[3] = {0.0, -0.3, -0.3}, hi[3] = {INFINITY, 0.3, 0.3}, x[3] = {0, 0, 0};
        int findex[3] = {-1, 0, 0};
        ncp_boxlcp l = {3, 4, A, b, lo, hi, findex};
        started_at s = {0, 0.0};
        ncp_engine_call c;
        memset(&c, 0, sizeof c);
        c.max_iter = 50;
        c.started = on_started;
        c.ctx = &s;
        int rc = -1;
        double t0 = ncp_thread_cpu_ms();
#ifdef NCP_HAVE_BULLET
        if (!strncmp(NAMES[i], "bullet-", 7)) {
            hi[0] = 1e10;
            c.solver = !strcmp(NAMES[i], "bullet-pgs")       ? NCP_ENGINE_BULLET_PGS
                       : !strcmp(NAMES[i], "bullet-dantzig") ? NCP_ENGINE_BULLET_DANTZIG
                                                             : NCP_ENGINE_BULLET_LEMKE;
            rc = ncp_engine_bullet_run(&l, x, &c);
        }
#endif
#ifdef NCP_HAVE_DART
        if (strncmp(NAMES[i], "bullet-", 7)) {
            c.solver = !strcmp(NAMES[i], "dart-pgs")       ? NCP_ENGINE_DART_PGS
                       : !strcmp(NAMES[i], "dart-dantzig") ? NCP_ENGINE_DART_DANTZIG
                                                           : NCP_ENGINE_ODE_DANTZIG;
            rc = ncp_engine_dart_run(&l, x, &c);
        }
#endif
        double t1 = ncp_thread_cpu_ms();
        CHECK(rc == NCP_ENGINE_SOLVED);
        if (rc != NCP_ENGINE_SOLVED) fprintf(stderr, "  %s: %s\n", NAMES[i], c.msg);
        CHECK(tutil_maxdiff(3, x, (const double[3]){1.0, -0.3, 0.0}) <= 1e-9);
        CHECK(s.calls == 1);
        CHECK(c.setup_ms >= 0.0 && c.solve_ms >= 0.0);
        /* setup before `started`, the call after it, both within the adapter's time */
        const double eps = 1e-3;
        CHECK(t0 + c.setup_ms <= s.t + eps);
        CHECK(s.t + c.solve_ms <= t1 + eps);
    }
}

int main(void)
{
    test_registry();
    test_one_contact();
    test_soft();
    test_random();
    test_reject();
    test_budget();
    test_timed_parts();
    return tcheck_exit("engines");
}
