/* Tests of the Siconos peers (solvers/siconos.c: Siconos numerics 4.4's fc3d solvers, Acary,
 * Brémond, Huber 2018), run through the harness as the benchmark runs them. Built only with
 * -Dsiconos (tests/meson.build).
 *
 *   (a) the registry lists the seven siconos-* solvers;
 *   (b) the hand-derived one-contact cases (testutil.h): every siconos-* solver reaches the known
 *       NCP answer;
 *   (c) seeded random contact-only problems with an SPD D: every siconos-* solver reaches
 *       natural_map_rel_acary <= 1e-8 (our metric, the harness's stopping rule), its answer
 *       passes the independent solution check (tutil_ref_check) and agrees with our nsn-fb's
 *       answer (unique for these problems: see rand_problem);
 *   (d) traces: the solvers that report through Siconos's callback or one call per iteration
 *       give one trace row per iteration (several rows), siconos-admm exactly one;
 *   (e) Siconos's own error (fc3d_compute_error) of an iterate of ours equals our natural map
 *       divided by Siconos's normalisation max(|q|, |r|, |u|): the same natural map computed by
 *       an independent implementation, and our natural_map_rel_siconos column;
 *   (f) a problem with bilateral / unilateral / soft rows is refused (unsupported or an input
 *       error naming the count); the iteration budget is used exactly; warm start from a
 *       solution stops within one iteration; an empty problem; siconos_tol validated;
 *   (g) the clock: a peer's time is its own process's CPU time, sent with each iterate (under
 *       the CPU clock it stays within the wall time the parent saw; under the wall clock it is
 *       that wall time), and a peer still inside a call when the time budget is spent is killed
 *       there: siconos-admm (one uninterruptible call, header of solvers/siconos.c) set to run
 *       1e8 iterations ends at a 200 ms budget with status timeout, no iterate, a note saying
 *       so, its time at least the budget and far below what the call would take.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <FrictionContactProblem.h>
#include <fc3d_compute_error.h>

#include "core/la.h"
#include "metrics/metrics.h"
#include "solve/harness.h"
#include "solvers/registry.h"
#include "solvers/siconos.h"
#include "util/clock.h"
#include "tcheck.h"
#include "testutil.h"

enum { NSIC = 7 };
static const char *const SIC_NAMES[NSIC] = {"siconos-nsgs",   "siconos-nsn-ac", "siconos-nsn-fb",
                                            "siconos-nsn-nm", "siconos-prox",   "siconos-admm",
                                            "siconos-vi-eg"};
static const ncp_solver_desc *SIC[NSIC];
static const ncp_solver_desc *S_NSNFB;

static int is_admm(const ncp_solver_desc *s) { return strcmp(s->name, "siconos-admm") == 0; }

/* Harness options: natural_map_rel_acary <= tol within max_iter (the benchmark's default
 * metric). */
/* Random contact-only problem #i: 1..8 contacts, D SPD (TUTIL_NV_SPD: J of full row rank), so
 * the NCP has a solution; for the friction coefficients tutil_random_problem draws, the solution
 * is unique in the problems used here (checked: nsn-fb and every Siconos solver agree). */
static int rand_problem(ncp_problem *p, int i, ncp_error *err)
{
    return tutil_random_family(p, 0x51c0000u, 7000u, i, 0, TUTIL_NV_SPD, NULL, err);
}

static void test_registry(void)
{
    for (int i = 0; i < NSIC; i++) {
        SIC[i] = ncp_solver_find(SIC_NAMES[i]);
        CHECK(SIC[i] != NULL);
        if (!SIC[i]) continue;
        CHECK(SIC[i]->needs == NCP_NEEDS_DUAL);
        CHECK(SIC[i]->ccp == 0);
        CHECK(strstr(SIC[i]->source, "Siconos numerics 4.4") != NULL);
        CHECK(strcmp(SIC[i]->file, "solvers/siconos.c") == 0);
    }
    S_NSNFB = ncp_solver_find("nsn-fb");
    CHECK(S_NSNFB != NULL);
}

/* (b) Siconos 4.4's NSN-FB and NSN-NM cannot take a frictionless contact: their Newton matrix
 * is singular at mu = 0 (its LU fails on the normal row, "DGETRF failed"), and they make no
 * progress; those two pairs are left out. ADMM stops on its own test (siconos.c header), set
 * tighter than the check. */
static void one_case(const tutil_contact_case *k, ncp_problem *p, void *ctx)
{
    (void)ctx;
    for (int i = 0; i < NSIC; i++) {
        const char *n = SIC[i]->name;
        if (k->mu == 0.0 && (!strcmp(n, "siconos-nsn-fb") || !strcmp(n, "siconos-nsn-nm")))
            continue;
        ncp_params ps = {0};
        if (is_admm(SIC[i])) tutil_param(&ps, "siconos_tol", 1e-14);
        tutil_check_answer(k->name, SIC[i], p, &ps, 1e-10, 200, k->ncp, 1e-7);
    }
}

/* (c), (d): every solver on n random problems. */
static void test_random(int n)
{
    ncp_error err;
    int rows_total[NSIC] = {0};
    for (int i = 0; i < n; i++) {
        ncp_problem p;
        ncp_error_clear(&err);
        CHECK_OK(rand_problem(&p, i, &err), &err);
        if (err.code) continue;
        ncp_harness_opts ref_o = tutil_rel_opts(1e-13, 200);
        ncp_result ref;
        int rc = tutil_solve_opts(S_NSNFB, &p, NULL, NULL, NULL, &ref_o, &ref);
        CHECK(rc == 0 && ref.converged);
        for (int s = 0; !rc && s < NSIC; s++) {
            int rows = 0;
            ncp_harness_opts o = tutil_rel_opts(1e-8, is_admm(SIC[s]) ? 20000 : 2000);
            o.trace = tutil_count_rows;
            o.trace_ctx = &rows;
            ncp_params ps = {0};
            if (is_admm(SIC[s])) /* Siconos's own test, tighter than ours (siconos.c header) */
                tutil_param(&ps, "siconos_tol", 1e-11);
            ncp_result res;
            if (tutil_solve_opts(SIC[s], &p, &ps, NULL, NULL, &o, &res)) {
                CHECK(0);
                continue;
            }
            double rel = res.final.natural_map_rel_acary;
            tutil_ref ck = tutil_ref_check(&p, res.lambda, 0, NULL);
            double scale = fmax(1.0, ncp_norminf(p.m, ref.lambda));
            double d = tutil_maxdiff(p.m, res.lambda, ref.lambda);
            int ok = res.converged && rel <= 1e-8 &&
                     ck.nat <= 1e-6 * fmax(1.0, ncp_norm2(p.m, p.vf)) && d <= 1e-5 * scale;
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "  %s on random #%d (m %d): %s after %d, rel %.3g, ref nat %.3g, "
                        "|lambda - nsn-fb| %.3g\n", SIC[s]->name, i, p.m,
                        ncp_status_name(res.status), res.iterations, rel, ck.nat, d);
            /* one trace row per reported iterate; admm reports once */
            CHECK(rows == res.iterations || (is_admm(SIC[s]) && rows == 1));
            if (is_admm(SIC[s])) CHECK(rows == 1);
            rows_total[s] += rows;
            ncp_result_free(&res);
        }
        if (!rc) ncp_result_free(&ref);
        ncp_problem_free(&p);
    }
    /* several rows per solve for the solvers with a per-iteration hook */
    for (int s = 0; s < NSIC; s++) {
        printf("  %-15s %d random problems, %.1f trace rows per solve\n", SIC_NAMES[s], n,
               (double)rows_total[s] / n);
        if (!is_admm(SIC[s])) CHECK(rows_total[s] > n);
    }
}

/* (e) Siconos's fc3d_compute_error on an iterate of ours (a few pgs sweeps: far from solved)
 * against our metrics. */
static void test_siconos_error(int n)
{
    const ncp_solver_desc *pgs = ncp_solver_find("pgs");
    CHECK(pgs != NULL);
    if (!pgs) return;
    ncp_error err;
    for (int i = 0; i < n; i++) {
        ncp_problem p;
        ncp_error_clear(&err);
        CHECK_OK(rand_problem(&p, 100 + i, &err), &err);
        if (err.code) continue;
        ncp_harness_opts o = tutil_rel_opts(0.0, 3);
        ncp_result res;
        FrictionContactProblem *fp = NULL;
        if (tutil_solve_opts(pgs, &p, NULL, NULL, NULL, &o, &res) == 0) {
            CHECK_OK(ncp_siconos_problem(&p, &fp, &err), &err);
            double *r = calloc((size_t)p.m + 1, sizeof(double));
            double *w = calloc((size_t)p.m + 1, sizeof(double));
            CHECK(r && w);
            if (fp && r && w) {
                ncp_siconos_gather(&p, res.lambda, r);
                double qn = ncp_norm2(p.m, p.vf), sic = NAN;
                fc3d_compute_error(fp, r, w, 1e-8, NULL, qn, &sic);
                /* the same normalisation written out: max(|q|, |r|, |u|) */
                double scale = fmax(qn, fmax(ncp_norm2(p.m, res.lambda), ncp_norm2(p.m, res.u)));
                double ours = res.final.natural_map_abs / scale;
                CHECK(res.final.natural_map_abs > 1e-6); /* not trivially zero */
                CHECK_NEAR(sic, ours, 1e-10 * fmax(ours, 1e-300));
                CHECK_NEAR(sic, res.final.natural_map_rel_siconos,
                           1e-10 * fmax(ours, 1e-300));
                /* and the independent reference of testutil */
                CHECK_NEAR(sic * scale, tutil_ref_natural_map(&p, res.lambda, 0),
                           1e-10 * fmax(sic * scale, 1e-300));
            }
            free(r);
            free(w);
            if (fp) frictionContactProblem_free(fp);
            ncp_result_free(&res);
        }
        ncp_problem_free(&p);
    }
}

/* (f) */
static void test_refusals_budgets_warm(void)
{
    ncp_error err;
    ncp_problem p;
    ncp_error_clear(&err);
    /* mixed: contacts plus bilateral / unilateral / soft rows */
    CHECK_OK(tutil_random_family(&p, 0x51c0001u, 7100u, 3, 1, TUTIL_NV_SPD, NULL, &err), &err);
    int other = 0;
    for (int b = 0; b < p.nblocks; b++)
        if (p.blocks[b].type != NCP_CONTACT) other += ncp_block_type_size(p.blocks[b].type);
    CHECK(other > 0);
    CHECK(ncp_siconos_other_rows(&p) == other);
    char want[32];
    snprintf(want, sizeof want, "has %d bilateral", other);
    for (int s = 0; s < NSIC; s++) {
        ncp_harness_opts o = tutil_rel_opts(1e-8, 100);
        ncp_result res;
        ncp_error_clear(&err);
        int rc = ncp_harness_solve(SIC[s], &p, NULL, NULL, NULL, &o, &res, &err);
        CHECK(rc == NCP_ERR_INPUT || (rc == 0 && res.status == NCP_STATUS_UNSUPPORTED &&
                                      res.iterations == 0));
        CHECK(strstr(err.msg, "contact-only") != NULL && strstr(err.msg, want) != NULL);
        if (rc == 0) ncp_result_free(&res);
    }
    ncp_problem_free(&p);

    /* budgets, warm start, parameter checks on a random contact-only problem */
    ncp_error_clear(&err);
    CHECK_OK(rand_problem(&p, 7, &err), &err);
    ncp_harness_opts ref_o = tutil_rel_opts(1e-13, 200);
    ncp_result ref;
    if (tutil_solve_opts(S_NSNFB, &p, NULL, NULL, NULL, &ref_o, &ref) == 0) {
        for (int s = 0; s < NSIC; s++) {
            tutil_check_budgets(SIC[s], &p, NULL);
            /* ADMM restarts its own internal variables: it needs a few iterations from a
             * solution, in one call (one row) */
            if (!is_admm(SIC[s])) tutil_check_warm_start(SIC[s], &p, NULL, ref.lambda, 1e-8);
            tutil_check_empty(SIC[s]);
        }
        ncp_result_free(&ref);
    }
    const ncp_solver_desc *admm = ncp_solver_find("siconos-admm");
    if (admm) {
        tutil_check_bad_param(admm, &p, "siconos_tol", 2.0);
        tutil_check_bad_param(admm, &p, "siconos_tol", -1.0);
        tutil_check_param_defaults(admm, &p, 1e-8, 2000);
    }
    ncp_problem_free(&p);
}

/* (g) */
static void test_clock_and_kill(void)
{
    ncp_error err;
    ncp_problem p;
    ncp_error_clear(&err);
    CHECK_OK(rand_problem(&p, 3, &err), &err);
    const ncp_solver_desc *nsgs = ncp_solver_find("siconos-nsgs");
    for (int clock = NCP_CLOCK_CPU; nsgs && clock <= NCP_CLOCK_WALL; clock++) {
        ncp_harness_opts o = tutil_rel_opts(1e-300, 50);
        o.clock = clock;
        ncp_result r;
        if (tutil_solve_opts(nsgs, &p, NULL, NULL, NULL, &o, &r)) continue;
        double t = r.setup_ms + r.solve_ms;
        CHECK(r.iterations >= 1 && r.clock == clock && t > 0.0); /* may stagnate first */
        if (clock == NCP_CLOCK_WALL) CHECK_NEAR(t, r.solver_wall_ms, 1e-9);
        else CHECK(t <= r.solver_wall_ms + 1.0); /* one process works while the other waits */
        ncp_result_free(&r);
    }
    ncp_problem_free(&p);

    /* 100 contacts, D SPD (nv = m + 3): an ADMM iteration costs a product with a 300 x 300 D */
    CHECK_OK(tutil_random_problem(&p, 0x51c0002u, 303, 100, 0, 0, 0, &err), &err);
    const ncp_solver_desc *admm = ncp_solver_find("siconos-admm");
    for (int clock = NCP_CLOCK_CPU; admm && clock <= NCP_CLOCK_WALL; clock++) {
        ncp_harness_opts o = tutil_rel_opts(1e-300, 100000000);
        o.clock = clock;
        o.budget.time_ms = 200.0;
        ncp_result r;
        if (tutil_solve_opts(admm, &p, NULL, NULL, NULL, &o, &r)) continue;
        double t = r.setup_ms + r.solve_ms;
        CHECK(r.status == NCP_STATUS_TIMEOUT && r.iterations == 0);
        CHECK(strstr(r.note, "time budget spent inside iteration 1") != NULL);
        CHECK(t >= 200.0 && r.solver_wall_ms < 20000.0);
        CHECK(r.lambda && ncp_all_zero(p.m, r.lambda)); /* the start point */
        if (r.status != NCP_STATUS_TIMEOUT || !(t >= 200.0))
            fprintf(stderr, "  siconos-admm, %s clock, 200 ms budget: %s after %.1f ms (%.1f ms "
                    "wall), note '%s'\n", ncp_clock_name(clock), ncp_status_name(r.status), t,
                    r.solver_wall_ms, r.note);
        ncp_result_free(&r);
    }
    ncp_problem_free(&p);
}

int main(void)
{
    test_registry();
    for (int i = 0; i < NSIC; i++)
        if (!SIC[i] || !S_NSNFB) return tcheck_exit("siconos");
    tutil_for_contact_cases(one_case, NULL);
    test_random(24);
    test_siconos_error(6);
    test_refusals_budgets_warm();
    test_clock_and_kill();
    return tcheck_exit("siconos");
}
