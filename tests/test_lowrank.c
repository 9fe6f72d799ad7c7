/* The solvers on a low-rank Delassus operator (core/dop.h: D = F F^T, F = J L^{-T}, m x nv).
 *
 * Every solver whose iterations are products with D or solves with D + diag(s) goes through the
 * shared operator, which takes the low-rank route when the primal data give D = J A^{-1} J^T
 * with nv <= m / 4 (O(m nv) per product, Woodbury for the shift, velocity-based Gauss–Seidel
 * sweeps) and the dense D otherwise. The two routes are the same algorithm on the same D up to
 * rounding, so each solver is run through the harness twice on a problem of rank 6 with 30
 * contacts and scalar rows: as it is (the low-rank route, asserted with ncp_dop_init) and with
 * its primal data hidden (has_primal = 0: the dense route, asserted too). Both runs must take
 * the same number of iterations, end with the same status and return the same lambda to 1e-9
 * relative. The solvers' own stall tests compare changes with rounding-level thresholds, which
 * the two routes need not cross in the same iteration; they are switched off here (stall_tol,
 * eps_* = 0) so that the harness's tolerance or the budget ends both runs. (admm and fadmm are
 * not here: their dense form stays dense, and on low-rank problems form = 0 takes their saddle
 * form, see solvers/admm_common.c.)
 *
 * The Gauss–Seidel velocity (ncp_gs_vel, solvers/common.h) is also checked directly: after a
 * sweep on any route (dense, low rank, the dense D's nonzeros), u equals D lambda + v_f computed
 * here with the dense D, and the sweep's lambda agrees with the dense sweep's; pgs-decoupled's
 * sweep=1 (the nonzeros route) returns the same lambda as its default.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dop.h"
#include "core/la.h"
#include "solvers/common.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "testutil.h"

enum { NV = 6, NC = 30, NBIL = 2, NUNI = 2, NSOFT = 2 };

/* A solver and the parameters that switch off its rounding-level own stop. */
typedef struct lr_case {
    const ncp_solver_desc *s;
    int np;
    const char *name[3];
    double val[3];
} lr_case;

static int make_problem(ncp_problem *p, uint64_t seed)
{
    ncp_error err = {0};
    int rc = tutil_random_problem(p, seed, NV, NC, NBIL, NUNI, NSOFT, &err);
    CHECK_OK(rc, &err);
    if (!rc) tutil_feasible_shift(p);
    return rc;
}

/* The route ncp_dop_init takes on p: its rank (0 = dense). */
static int route_rank(const ncp_problem *p)
{
    ncp_dop op;
    ncp_error err = {0};
    CHECK_OK(ncp_dop_init(&op, p, NCP_DOP_AUTO, &err), &err);
    int r = op.rank;
    ncp_dop_free(&op);
    return r;
}

static void check_case(const lr_case *c, const ncp_problem *p, const ncp_problem *q)
{
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    for (int i = 0; i < c->np; i++) tutil_param(&ps, c->name[i], c->val[i]);
    ncp_result lo, de;
    int rl = tutil_solve(c->s, p, &ps, NULL, 1e-8, 400, &lo);
    int rd = tutil_solve(c->s, q, &ps, NULL, 1e-8, 400, &de);
    CHECK(rl == 0 && rd == 0);
    if (rl || rd) {
        if (!rl) ncp_result_free(&lo);
        if (!rd) ncp_result_free(&de);
        return;
    }
    double d = tutil_maxdiff(p->m, lo.lambda, de.lambda);
    double sc = fmax(1.0, ncp_norminf(p->m, de.lambda));
    int ok = lo.iterations == de.iterations && lo.status == de.status && d <= 1e-9 * sc;
    CHECK(lo.iterations == de.iterations);
    CHECK(lo.status == de.status);
    CHECK(d <= 1e-9 * sc);
    if (!ok)
        fprintf(stderr, "  %s: low rank %s after %d, dense %s after %d, |dlambda| = %.3g\n",
                c->s->name, ncp_status_name(lo.status), lo.iterations,
                ncp_status_name(de.status), de.iterations, d / sc);
    else
        printf("  %-13s %-9s %4d iterations, |dlambda| / |lambda| = %.2g\n", c->s->name,
               ncp_status_name(lo.status), lo.iterations, d / sc);
    ncp_result_free(&lo);
    ncp_result_free(&de);
}

static void test_solvers(void)
{
    static const lr_case cases[] = {
        {&ncp_solver_apgd, 1, {"stall_tol"}, {0.0}},
        {&ncp_solver_jacobi, 1, {"stall_tol"}, {0.0}},
        {&ncp_solver_admm_ccp, 3, {"eps_p", "eps_d", "eps_cp"}, {0.0, 0.0, 0.0}},
        {&ncp_solver_admm_ncp_fp, 3, {"eps_p", "eps_d", "eps_cp"}, {0.0, 0.0, 0.0}},
        {&ncp_solver_admm_ncp_la, 3, {"eps_p", "eps_d", "eps_cp"}, {0.0, 0.0, 0.0}},
        {&ncp_solver_admm_ncp_sa, 3, {"eps_p", "eps_d", "eps_cp"}, {0.0, 0.0, 0.0}},
        {&ncp_solver_pgs, 1, {"stall_tol"}, {0.0}},
        {&ncp_solver_pgs_ncp, 1, {"stall_tol"}, {0.0}},
        {&ncp_solver_pgs_ccp, 1, {"stall_tol"}, {0.0}},
        {&ncp_solver_nbgs, 1, {"stall_tol"}, {0.0}},
        {&ncp_solver_raisim, 1, {"stall_tol"}, {0.0}},
        {&ncp_solver_raisim_ds, 1, {"stall_tol"}, {0.0}},
        /* eq. 160's I_total is tr(A) with primal data, m without: fix it for both runs */
        {&ncp_solver_raisim_ds_es, 2, {"stall_tol", "inertia"}, {0.0, 10.0}},
    };
    for (uint64_t seed = 11; seed <= 12; seed++) {
        ncp_problem p;
        if (make_problem(&p, seed)) continue;
        ncp_problem q = p; /* a view without the primal data: the dense route */
        q.has_primal = 0;
        CHECK(route_rank(&p) == NV);
        CHECK(route_rank(&q) == 0);
        printf("problem %d: m = %d, rank %d\n", (int)seed, p.m, NV);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_case(&cases[i], &p, &q);
        ncp_problem_free(&p);
    }
}

/* Problem pi of the route tests: 0 the one-body problem of make_problem (D full, rank 6), 1 a
 * pile of 8 bodies kept sparse with 40 contacts (D with zero blocks between contacts that share
 * no body). Nonzero when it could not be made (already counted as a failed check). */
static int make_route_problem(ncp_problem *p, int pi, uint64_t seed)
{
    if (pi == 0) return make_problem(p, seed);
    ncp_error err = {0};
    int rc = tutil_sparse_bodies_problem(p, seed, 8, 40, &err);
    CHECK_OK(rc, &err);
    return rc;
}

/* The runs of the nonzeros route cover exactly D's nonzero entries: their total length is the
 * count of nonzeros, each run lies inside its column and holds no zero, and runs are separated
 * by at least one zero. */
static void check_runs(const ncp_problem *p, const ncp_gs_vel *g, size_t *nnz_out)
{
    const int m = p->m;
    size_t nnz = 0, covered = 0;
    for (size_t i = 0; i < (size_t)m * m; i++) nnz += p->D[i] != 0.0;
    for (int j = 0; j < m; j++) {
        const double *col = p->D + (size_t)j * m;
        int prev_end = -2;
        for (size_t q = g->run_ptr[j]; q < g->run_ptr[j + 1]; q++) {
            int first = g->run[2 * q], len = g->run[2 * q + 1];
            CHECK(first >= 0 && len >= 1 && first + len <= m && first > prev_end);
            if (first < 0 || len < 1 || first + len > m) return;
            for (int i = first; i < first + len; i++) CHECK(col[i] != 0.0);
            covered += (size_t)len;
            prev_end = first + len;
        }
    }
    CHECK(covered == nnz);
    *nnz_out = nnz;
}

/* Three sweeps of ncp_pgs_sweep_vel on each route (dense, low rank, the dense D's nonzeros)
 * against the dense ncp_pgs_sweep, on a one-body problem (D full) and on a pile of bodies kept
 * sparse (D with zero blocks between contacts that share no body; no low-rank route). */
static void test_sweep_velocity(void)
{
    for (int pi = 0; pi < 2; pi++) {
        ncp_problem p;
        ncp_error err = {0};
        if (make_route_problem(&p, pi, pi == 0 ? 21 : 22)) continue;
        const int m = p.m;
        double *step = calloc((size_t)p.nblocks, sizeof(double));
        double *l0 = calloc((size_t)m, sizeof(double)), *u0 = calloc((size_t)m, sizeof(double));
        double *l1 = calloc((size_t)m, sizeof(double)), *u1 = calloc((size_t)m, sizeof(double));
        CHECK(step && l0 && u0 && l1 && u1);
        if (!step || !l0 || !u0 || !l1 || !u1) goto next;
        CHECK_OK(ncp_block_steps(&p, step, NULL, &err), &err);
        for (int route = 0; route < 3; route++) { /* dense, low rank, nonzeros */
            if (pi == 1 && route == 1) continue;
            ncp_dop op;
            ncp_gs_vel g;
            CHECK_OK(ncp_dop_init(&op, &p, route == 1 ? NCP_DOP_LOWRANK : NCP_DOP_DENSE, &err),
                     &err);
            CHECK(op.rank == (route == 1 ? NV : 0));
            if (route == 2) {
                CHECK_OK(ncp_gs_vel_init_nonzeros(&g, &op, u1, &err), &err);
                size_t nnz = 0;
                check_runs(&p, &g, &nnz);
                /* the pile's D is sparse: the route must read less than the dense one */
                if (pi == 1) CHECK(nnz < (size_t)m * m / 2);
            } else {
                CHECK_OK(ncp_gs_vel_init(&g, &op, u1, &err), &err);
            }
            ncp_zero(m, l0);
            ncp_zero(m, l1);
            ncp_copy(m, p.vf, u0);
            ncp_copy(m, p.vf, u1);
            for (int k = 0; k < 3; k++) {
                double d0 = ncp_pgs_sweep(&p, step, 1.0, 2, l0, u0);
                double d1 = ncp_pgs_sweep_vel(&p, &g, step, 1.0, 2, l1);
                CHECK(d0 > 0.0);
                CHECK_NEAR(d1, d0, 1e-10 * fmax(1.0, d0));
                CHECK(tutil_velocity_error(&p, l1, u1) < 1e-12);
                CHECK(tutil_maxdiff(m, l0, l1) <= 1e-10 * fmax(1.0, ncp_norminf(m, l0)));
            }
            ncp_gs_vel_free(&g);
            ncp_dop_free(&op);
        }
        if (pi == 0) { /* the nonzeros route needs the dense operator */
            ncp_dop op;
            ncp_gs_vel g;
            CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_LOWRANK, &err), &err);
            CHECK(ncp_gs_vel_init_nonzeros(&g, &op, u1, &err) == NCP_ERR_INPUT);
            ncp_gs_vel_free(&g);
            ncp_dop_free(&op);
        }
    next:
        free(step);
        free(l0);
        free(u0);
        free(l1);
        free(u1);
        ncp_problem_free(&p);
    }
}

/* pgs-decoupled with sweep=1 (the assembled D's nonzeros) against its default (the operator's
 * route: low rank on the one-body problem, dense on the pile): the same iterations, status and
 * lambda to 1e-9 (stall test off, as test_solvers). */
static void test_decoupled_sweep(void)
{
    for (int pi = 0; pi < 2; pi++) {
        ncp_problem p;
        if (make_route_problem(&p, pi, pi == 0 ? 11 : 23)) continue;
        if (pi == 1) { /* pgs-decoupled builds D from dense primal data: densify A, keep J */
            p.A = calloc((size_t)p.nv * p.nv, sizeof(double));
            CHECK(p.A != NULL);
            if (!p.A) {
                ncp_problem_free(&p);
                continue;
            }
            ncp_csr_to_dense(&p.A_sparse, p.A);
            p.has_primal = 1;
        }
        ncp_params a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        tutil_param(&a, "stall_tol", 0.0);
        tutil_param(&b, "stall_tol", 0.0);
        tutil_param(&b, "sweep", 1.0);
        ncp_result ra, rb;
        int rca = tutil_solve(&ncp_solver_pgs_decoupled, &p, &a, NULL, 1e-8, 400, &ra);
        int rcb = tutil_solve(&ncp_solver_pgs_decoupled, &p, &b, NULL, 1e-8, 400, &rb);
        CHECK(rca == 0 && rcb == 0);
        if (!rca && !rcb) {
            double sc = fmax(1.0, ncp_norminf(p.m, ra.lambda));
            CHECK(ra.iterations == rb.iterations);
            CHECK(ra.status == rb.status);
            CHECK(tutil_maxdiff(p.m, ra.lambda, rb.lambda) <= 1e-9 * sc);
            printf("  pgs-decoupled sweep 0 / 1 on problem %d: %s after %d / %s after %d\n", pi,
                   ncp_status_name(ra.status), ra.iterations, ncp_status_name(rb.status),
                   rb.iterations);
        }
        if (!rca) ncp_result_free(&ra);
        if (!rcb) ncp_result_free(&rb);
        ncp_problem_free(&p);
    }
}

int main(void)
{
    test_sweep_velocity();
    test_decoupled_sweep();
    test_solvers();
    return tcheck_exit("lowrank");
}
