/* The semismooth Newton solvers' sparse route (solvers/nsn_sparse.h: the Newton and LM systems
 * as saddle-point systems in A and J, factorised by UMFPACK) against their D route (the dense
 * LU of J = P + Q D, or the low-rank route F F^T), through the harness, on real captures:
 * laikago8 (eight articulated robots: bilateral, unilateral and contact rows, dense A of eight
 * blocks), bolt-nut (one body, 360 rows: the D route is the low-rank one), the 10^2-contact
 * wrecking-ball wall of the scaling family (many bodies), the FCLib global sample Box_Stacks
 * (A_sparse, when /work/shared/fclib-samples is there) and a random sparse pile whose D is
 * given. The routes solve the same linear systems, so for nsn-fb and nsn-nm, with route = 1
 * (D) forced against each sparse route forced, route = 2 (the saddle form in its diagonal-pivot
 * order) and route = 3 (P + Q D on D's block pattern, nsn_dsparse.h):
 *   - the iterates after 1, 2, 4 and 8 Newton steps agree to 1e-8 relative wherever the D route
 *     itself is insensitive to rounding there: the routes factorise different matrices, and the
 *     globalised semismooth iteration can amplify a rounding difference into another step (a
 *     kink crossed, a line search accepted one halving earlier; nsn_common.h). The reference
 *     for that is the D route on D x (1 + 1e-15 noise), symmetric: where it departs from the D
 *     route by more than 1e-8, the step is rounding-sensitive and the comparison says nothing
 *     (the random pile: both depart by 1e-2 at step 3, 0.15 at step 4);
 *   - run to a natural map of 1e-9 (at most 300 iterations), both end with the same status
 *     where the first 8 steps were not rounding-sensitive (laikago8 is: nsn-nm ends there
 *     after 16 iterations on the sparse D route and stops at 300 on the D route);
 *   - the row's note names the route taken (and the automatic choice takes the sparse route on
 *     the wall and on laikago8, where the estimates differ by orders of magnitude);
 *   - route = 2 and route = 3 on a problem that has only D are refused with NCP_ERR_INPUT.
 * The automatic choice (ncp_nsn_route_auto) bounds each sparse form's estimate from counts and
 * analyses a form only when its bound can win; against the full choice (both forms analysed)
 * on every problem of quick captures of bolt-nut, laikago8, box-on-plane, castro-clutter and
 * the 10^2-contact wall, and on random problems (one dense body to piles of 115 bodies):
 *   - the same route, and the one the full estimates give (the least, ties to the D route,
 *     then the saddle form), computed here from them;
 *   - every bound at most its form's estimate, an analysed form's estimate the full one's;
 *   - on bolt-nut (one body under 120 contacts: D's pattern dense, the low-rank D route far
 *     cheaper) neither sparse form is analysed, and the row's note says so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/la.h"
#include "core/sparse_lu.h"
#include "capture/capture.h"
#include "scene/scene.h"
#include "solvers/nsn_common.h"
#include "solvers/nsn_dsparse.h"
#include "solvers/nsn_sparse.h"
#include "solvers/registry.h"
#include "store/store.h"
#include "tcheck.h"
#include "testutil.h"

static int solve(const ncp_solver_desc *s, const ncp_problem *p, int route, double tol, int iters,
                 ncp_result *r)
{
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    if (route >= 0) tutil_param(&ps, "route", route);
    return tutil_solve(s, p, &ps, NULL, tol, iters, r);
}

/* p with its D (built from the primal data if it keeps none) times 1 + 1e-15 noise, entry by
 * entry, kept symmetric; *own holds the allocation. */
static ncp_problem noisy_view(const ncp_problem *p, double **own)
{
    ncp_problem q;
    double *built = NULL;
    ncp_error err = {0};
    *own = NULL;
    CHECK_OK(ncp_problem_dual_view(p, &q, &built, &err), &err);
    const size_t m = (size_t)p->m;
    double *D = malloc(sizeof(double) * (m * m + m));
    CHECK(D != NULL && q.D != NULL);
    if (!D || !q.D) {
        free(built);
        free(D);
        return *p;
    }
    trng g = {4242};
    for (size_t j = 0; j < m; j++)
        for (size_t i = 0; i <= j; i++)
            D[i + j * m] = D[j + i * m] = q.D[i + j * m] * (1.0 + 1e-15 * trng_normal(&g));
    memcpy(D + m * m, q.vf, sizeof(double) * m);
    q.D = D;
    q.vf = D + m * m;
    q.has_dual = 1;
    q.dop_route = 0;
    free(built);
    *own = D;
    return q;
}

static void compare(const ncp_solver_desc *s, const ncp_problem *p, const char *what, int auto_sparse,
                    int sroute)
{
    double worst = 0.0, *own;
    int sensitive_from = 0;
    ncp_problem pn = noisy_view(p, &own);
    static const int iters[] = {1, 2, 4, 8};
    for (int k = 0; k < 4; k++) {
        ncp_result rd, rs, rn;
        int cd = solve(s, p, 1, 0.0, iters[k], &rd);
        int cs = solve(s, p, sroute, 0.0, iters[k], &rs);
        int cn = solve(s, &pn, 1, 0.0, iters[k], &rn);
        CHECK(cd == NCP_OK && cs == NCP_OK && cn == NCP_OK);
        if (cd == NCP_OK && cs == NCP_OK && cn == NCP_OK) {
            double sc = fmax(1e-300, ncp_norminf(p->m, rd.lambda));
            double dl = tutil_maxdiff(p->m, rd.lambda, rs.lambda) / sc;
            double dn = tutil_maxdiff(p->m, rd.lambda, rn.lambda) / sc;
            if (dn > 1e-8 && !sensitive_from) sensitive_from = iters[k];
            if (!sensitive_from) {
                worst = fmax(worst, dl);
                CHECK(rd.iterations == rs.iterations);
                CHECK(dl <= 1e-8);
                if (!(dl <= 1e-8))
                    fprintf(stderr, "  %s on %s after %d steps: |dlambda| / |lambda| = %.3g (D "
                            "route under 1e-15 noise: %.3g)\n", s->name, what, iters[k], dl, dn);
            }
            if (k == 0) {
                CHECK(strstr(rd.note, "Newton matrix from D") != NULL);
                CHECK(strstr(rs.note, sroute == 2 ? "Newton matrix sparse saddle form"
                                                  : "Newton matrix sparse on D's pattern") != NULL);
            }
        }
        if (cd == NCP_OK) ncp_result_free(&rd);
        if (cs == NCP_OK) ncp_result_free(&rs);
        if (cn == NCP_OK) ncp_result_free(&rn);
    }
    free(own);
    ncp_result rd, rs, ra;
    int cd = solve(s, p, 1, 1e-9, 300, &rd);
    int cs = solve(s, p, sroute, 1e-9, 300, &rs);
    int ca = solve(s, p, -1, 0.0, 1, &ra);
    CHECK(cd == NCP_OK && cs == NCP_OK && ca == NCP_OK);
    if (cd == NCP_OK && cs == NCP_OK) {
        char sens[64] = "";
        if (sensitive_from)
            snprintf(sens, sizeof sens, " up to step %d (rounding-sensitive from there)",
                     sensitive_from / 2);
        printf("  %-7s %-10s %-7s m %4d nv %4d: iterates |dl|/|l| <= %.1e%s; to 1e-9: status %d / "
               "%d, iterations %d / %d, solve %.1f / %.1f ms (D / sparse)\n", s->name, what,
               sroute == 2 ? "saddle" : "D-sparse",
               p->m, p->nv, worst, sens, rd.status, rs.status, rd.iterations, rs.iterations,
               rd.solve_ms, rs.solve_ms);
        if (!sensitive_from) CHECK(rd.status == rs.status);
    }
    if (ca == NCP_OK) {
        if (auto_sparse) CHECK(strstr(ra.note, "Newton matrix sparse") != NULL);
        printf("    auto: %.160s\n", ra.note);
        ncp_result_free(&ra);
    }
    if (cd == NCP_OK) ncp_result_free(&rd);
    if (cs == NCP_OK) ncp_result_free(&rs);
}

static void run_problem(const ncp_problem *p, const char *what, int auto_sparse)
{
    for (int sroute = 2; sroute <= 3; sroute++) {
        compare(&ncp_solver_nsn_fb, p, what, auto_sparse, sroute);
        compare(&ncp_solver_nsn_nm, p, what, auto_sparse, sroute);
    }
}

/* What the route choices did, over all problems checked. */
typedef struct route_tally {
    int problems, routes[4], analysed, skipped, lowrank_skipped_both;
    double worst_bound[2]; /* per form, the largest bound / estimate */
} route_tally;

/* The cheap automatic choice against the full one on p (see the top of the file). */
static void check_route_choice(const ncp_problem *p, const char *what, route_tally *t)
{
    ncp_nsn_route_est cheap, full;
    ncp_nsn_sparse sp;
    ncp_nsn_dsparse dsp;
    ncp_dop op;
    memset(&op, 0, sizeof op);
    ncp_error err = {0};
    int rc = ncp_nsn_route_auto(p, &op, 0, &cheap, &sp, &dsp, &err);
    CHECK_OK(rc, &err);
    ncp_nsn_sparse_free(&sp);
    ncp_nsn_dsparse_free(&dsp);
    int rf = ncp_nsn_route_auto(p, &op, 1, &full, &sp, &dsp, &err);
    CHECK_OK(rf, &err);
    ncp_nsn_sparse_free(&sp);
    ncp_nsn_dsparse_free(&dsp);
    if (rc || rf) return;
    /* the full estimates' choice, independently */
    int expect = 1;
    double best = full.d;
    if (full.est[0] < best) expect = 2, best = full.est[0];
    if (full.est[1] < best) expect = 3;
    CHECK(full.route == expect);
    CHECK(cheap.route == full.route);
    CHECK(cheap.d == full.d);
    for (int f = 0; f < 2; f++) {
        CHECK(cheap.bound[f] == full.bound[f]);
        if (full.analysed[f]) {
            CHECK(full.bound[f] <= full.est[f]);
            if (!(full.bound[f] <= full.est[f]))
                fprintf(stderr, "  %s problem %s: %s form's bound %.6g above its estimate %.6g\n",
                        what, p->name ? p->name : "?", f ? "sparse D" : "saddle", full.bound[f],
                        full.est[f]);
            t->worst_bound[f] = fmax(t->worst_bound[f], full.bound[f] / full.est[f]);
        }
        if (cheap.analysed[f]) {
            CHECK(full.analysed[f] && cheap.est[f] == full.est[f]);
            t->analysed++;
        } else if (full.analysed[f]) {
            t->skipped++;
        }
    }
    if (cheap.route != full.route)
        fprintf(stderr, "  %s problem %s: cheap route %d, full %d (D %.3g; saddle %.3g >= %.3g; "
                "sparse D %.3g >= %.3g)\n", what, p->name ? p->name : "?", cheap.route,
                full.route, full.d, full.est[0], full.bound[0], full.est[1], full.bound[1]);
    t->problems++;
    t->routes[full.route]++;
}

typedef struct route_ctx {
    const char *what;
    route_tally *t;
} route_ctx;

static int route_fn(void *ctx, const ncp_problem *p, ncp_error *err)
{
    (void)err;
    route_ctx *c = ctx;
    check_route_choice(p, c->what, c->t);
    return NCP_OK;
}

static void test_route_choice(void)
{
    static const char *scenes[] = {"scenes/boltnut.json", "scenes/laikago8.json",
                                   "scenes/box-on-plane.json", "scenes/castro-clutter.json",
                                   "scenes/scaling/wall-1e2.json"};
    for (size_t i = 0; i < sizeof scenes / sizeof *scenes; i++) {
        ncp_error err = {0};
        ncp_scene *s = NULL;
        CHECK_OK(ncp_scene_load(scenes[i], ncp_registry_catalog(), &s, &err), &err);
        if (!s) continue;
        route_tally t = {0};
        route_ctx c = {scenes[i], &t};
        ncp_capture_opts o = {1, 1, 0, NULL, NULL};
        CHECK_OK(ncp_capture_scene(s, &o, route_fn, &c, &err), &err);
        ncp_scene_free(s);
        CHECK(t.problems > 0);
        printf("  route choice on %s: %d problems, routes D %d / saddle %d / sparse D %d, "
               "forms analysed %d, left out by their bound %d, bound / estimate <= %.2f "
               "(saddle), %.2f (sparse D)\n", scenes[i], t.problems, t.routes[1], t.routes[2],
               t.routes[3], t.analysed, t.skipped, t.worst_bound[0], t.worst_bound[1]);
        if (i == 0) CHECK(t.analysed == 0 && t.routes[1] == t.problems); /* bolt-nut */
    }
    /* random problems: one body with a dense A (D dense or low rank), piles of bodies, and
     * larger piles (where the sparse D form's bound counts its factorisation: E + 2 E^2 / m) */
    route_tally t = {0};
    for (int k = 0; k < 30; k++) {
        ncp_error err = {0};
        ncp_problem p;
        int rc = k < 8 ? tutil_random_problem(&p, 900 + k, 6 + 6 * (k % 4), 4 + 9 * k, 0, 0, 0,
                                               &err)
                       : k < 24 ? tutil_sparse_bodies_problem(&p, 900 + k, 2 + 3 * (k % 13),
                                                              6 + 11 * (k - 8), &err)
                                : tutil_sparse_bodies_problem(&p, 900 + k, 40 + 15 * (k - 24),
                                                              (3 + (k % 3)) * (40 + 15 * (k - 24)),
                                                              &err);
        CHECK_OK(rc, &err);
        if (rc) continue;
        check_route_choice(&p, "random", &t);
        ncp_problem_free(&p);
    }
    printf("  route choice on 30 random problems: routes D %d / saddle %d / sparse D %d, forms "
           "analysed %d, left out by their bound %d, bound / estimate <= %.2f (saddle), %.2f "
           "(sparse D)\n", t.routes[1], t.routes[2], t.routes[3], t.analysed, t.skipped,
           t.worst_bound[0], t.worst_bound[1]);
}

/* The row of an automatic solve of bolt-nut says that neither sparse form was analysed. */
static void test_route_note(const ncp_problem *p)
{
    ncp_result r;
    int rc = solve(&ncp_solver_nsn_fb, p, -1, 0.0, 1, &r);
    CHECK(rc == NCP_OK);
    if (rc) return;
    CHECK(strstr(r.note, "Newton matrix from D (low rank)") != NULL);
    CHECK(strstr(r.note, "sparse D form not analysed (>= ") != NULL &&
          strstr(r.note, "saddle form not analysed (>= ") != NULL);
    ncp_result_free(&r);
}

/* route = 2 or 3 without primal data: a clear NCP_ERR_INPUT */
static void test_refused(const ncp_problem *p)
{
    ncp_problem q = *p;
    q.has_primal = 0;
    q.has_sparse_primal = 0;
    for (int route = 2; route <= 3; route++) {
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        tutil_param(&ps, "route", route);
        ncp_result r;
        int rc = tutil_solve(&ncp_solver_nsn_fb, &q, &ps, NULL, 0.0, 1, &r);
        CHECK(rc == NCP_ERR_INPUT);
        if (rc == NCP_OK) ncp_result_free(&r);
    }
}

int main(void)
{
    if (!ncp_splu_available()) {
        printf("built without UMFPACK: the sparse route is not there, skipped\n");
        return tcheck_exit("nsn_sparse");
    }
    ncp_problem p;
    ncp_error err = {0};
    if (!tutil_capture_largest("scenes/laikago8.json", 0, &p)) {
        run_problem(&p, "laikago8", 1);
        ncp_problem_free(&p);
    }
    test_route_choice();
    if (!tutil_capture_largest("scenes/boltnut.json", 0, &p)) {
        test_route_note(&p);
        run_problem(&p, "boltnut", 0);
        ncp_problem_free(&p);
    }
    if (!tutil_capture_largest("scenes/scaling/wall-1e2.json", 2, &p)) {
        run_problem(&p, "wall-1e2", 1);
        ncp_problem_free(&p);
    }
    const char *sd = getenv("NCP_FCLIB_SAMPLES");
    if (!sd) sd = "/work/shared/fclib-samples";
    char box[512];
    snprintf(box, sizeof box, "%s/Box_Stacks-i0122-82-5.hdf5", sd);
    struct stat sb;
    if (stat(box, &sb) == 0) {
        ncp_problem *q = NULL;
        int n = 0;
        CHECK_OK(ncp_load_problems(box, &q, &n, &err), &err);
        if (q && n == 1) {
            CHECK(q->has_sparse_primal && !q->has_dual);
            run_problem(q, "Box_Stacks", 0);
        }
        if (q) ncp_problems_free(q, n);
    } else {
        printf("%s absent: FCLib sample skipped\n", box);
    }
    CHECK_OK(tutil_sparse_bodies_problem(&p, 77, 30, 90, &err), &err);
    CHECK(p.has_dual && p.D);
    run_problem(&p, "pile (D)", 0);
    test_refused(&p);
    ncp_problem_free(&p);
    return tcheck_exit("nsn_sparse");
}
