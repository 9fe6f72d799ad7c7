/* The velocity form of the Gauss–Seidel family (ncp_gs_vel's velocity route, solvers/common.h)
 * against the sweep on the dense D.
 *
 * The velocity form follows v = A^{-1}(b + J^T lambda) through Y = A^{-1} J^T (kept on the DOFs
 * of the bodies each row touches) and never reads D; the dense route adds a column of D per
 * changed row. Both are the same Gauss–Seidel iteration, so on every problem below each solver
 * of the family must return the same lambda after 1, 4 and 25 sweeps, to 1e-10 relative, with
 * the same status. Problems: one body with bilateral, unilateral and soft rows (dense A, one
 * block), a pile of 8 bodies kept sparse (A_sparse, J rows touching two bodies) and a capture of
 * scenes/laikago8.json (eight articulated robots, dense A with eight blocks, limits and contacts).
 * The reference runs on a view without primal data (only D's route is possible); pgs-decoupled,
 * which builds its dual from the primal data itself, is compared with its sweep=1 (the assembled
 * D's nonzeros, Lee et al. 2025's dual PGS).
 *
 * The route is also checked directly: with the problem's D and v_f removed, ncp_gs_vel_setup
 * still takes the velocity form (v_f from b), its diagonal blocks are D's, and three sweeps of
 * ncp_pgs_sweep_vel keep u = D lambda + v_f and agree with ncp_pgs_sweep on the dense D; Y holds
 * exactly the entries ncp_jmap_nnz predicts (6 per body a row touches); the automatic choice takes
 * the velocity form on the pile and on the capture, and keeps the problem's D when that D is not
 * J A^{-1} J^T (regularised); a route whose data are missing is refused with NCP_ERR_INPUT.
 * The estimates the choice compares are recomputed from nnz(J), nnz(Y) and the sizes, and every
 * solver of the family states its route in the row's note. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/la.h"
#include "solvers/common.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "testutil.h"

enum { NPROB = 3 };

/* ---- the problems ---- */

static int capture_laikago(ncp_problem *p)
{
    ncp_error err = {0};
    if (tutil_capture_largest("scenes/laikago8.json", 0, p)) return 1;
    /* D on demand (core/problem.h): the checks below compare the sweeps against it */
    CHECK_OK(ncp_problem_need_dual(p, &err), &err);
    return 0;
}

/* Problem pi: 0 one body with scalar rows, 1 the sparse pile, 2 the laikago8 capture. */
static int make(ncp_problem *p, int pi)
{
    ncp_error err = {0};
    int rc;
    if (pi == 0) {
        rc = tutil_random_problem(p, 31, 6, 30, 2, 2, 2, &err);
        if (!rc) tutil_feasible_shift(p);
    } else if (pi == 1) {
        rc = tutil_sparse_bodies_problem(p, 32, 8, 40, &err);
    } else {
        return capture_laikago(p);
    }
    CHECK_OK(rc, &err);
    return rc;
}

/* p with a dense A (pgs-decoupled's primal data): A_sparse densified into own. */
static ncp_problem dense_view(const ncp_problem *p, double **own)
{
    ncp_problem q = *p;
    *own = NULL;
    if (!p->A && p->has_sparse_primal) {
        *own = calloc((size_t)p->nv * p->nv, sizeof(double));
        CHECK(*own != NULL);
        if (*own) {
            ncp_csr_to_dense(&p->A_sparse, *own);
            q.A = *own;
            q.has_primal = 1;
        }
    }
    return q;
}

/* ---- the solvers through the harness ---- */

static const ncp_solver_desc *const family[] = {
    &ncp_solver_pgs,    &ncp_solver_pgs_ncp,   &ncp_solver_pgs_ccp,
    &ncp_solver_nbgs,   &ncp_solver_raisim,    &ncp_solver_raisim_ds,
    &ncp_solver_raisim_ds_es, &ncp_solver_pgs_decoupled,
};

static void solve_pair(const ncp_solver_desc *s, const ncp_problem *vel, int vel_sweep,
                       const ncp_problem *ref, int ref_sweep, int iters, double *worst)
{
    ncp_params a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    tutil_param(&a, "stall_tol", 0.0);
    tutil_param(&b, "stall_tol", 0.0);
    tutil_param(&a, "sweep", vel_sweep);
    tutil_param(&b, "sweep", ref_sweep);
    if (s == &ncp_solver_raisim_ds_es) { /* eq. 160's I_total: tr(A) or m, fixed for both */
        tutil_param(&a, "inertia", 10.0);
        tutil_param(&b, "inertia", 10.0);
    }
    ncp_result rv, rr;
    int cv = tutil_solve(s, vel, &a, NULL, 0.0, iters, &rv);
    int cr = tutil_solve(s, ref, &b, NULL, 0.0, iters, &rr);
    CHECK(cv == 0 && cr == 0);
    if (cv || cr) {
        if (!cv) ncp_result_free(&rv);
        if (!cr) ncp_result_free(&rr);
        return;
    }
    double d = tutil_maxdiff(vel->m, rv.lambda, rr.lambda);
    double sc = fmax(1.0, ncp_norminf(vel->m, rr.lambda));
    CHECK(rv.iterations == rr.iterations && rv.status == rr.status);
    CHECK(d <= 1e-10 * sc);
    if (!(d <= 1e-10 * sc))
        fprintf(stderr, "  %s on %s after %d sweeps: |dlambda| / |lambda| = %.3g\n", s->name,
                vel->name, iters, d / sc);
    *worst = fmax(*worst, d / sc);
    ncp_result_free(&rv);
    ncp_result_free(&rr);
}

static void test_family(const ncp_problem *p, int pi)
{
    ncp_problem dual = *p; /* only D's route is possible on this view */
    dual.has_primal = 0;
    dual.has_sparse_primal = 0;
    double *own;
    ncp_problem dec = dense_view(p, &own);
    for (size_t si = 0; si < sizeof family / sizeof family[0]; si++) {
        const ncp_solver_desc *s = family[si];
        double worst = 0.0;
        static const int iters[] = {1, 4, 25};
        for (int k = 0; k < 3; k++) {
            if (s == &ncp_solver_pgs_decoupled) {
                if (dec.has_primal)
                    solve_pair(s, &dec, NCP_GS_VELOCITY, &dec, NCP_GS_NONZEROS, iters[k], &worst);
            } else {
                solve_pair(s, p, NCP_GS_VELOCITY, &dual, NCP_GS_AUTO, iters[k], &worst);
            }
        }
        printf("  problem %d (m %4d, nv %3d) %-14s velocity vs dense D: %.2g\n", pi, p->m, p->nv,
               s->name, worst);
    }
    free(own);
}

/* The route of every solver of the family reaches the row's note (ncp_run_note), one
 * "; "-separated part: the velocity form on the primal problem when the estimate chose it, a
 * route on D on the view without primal data. */
static void test_notes(const ncp_problem *p, int pi)
{
    ncp_problem dual = *p;
    dual.has_primal = 0;
    dual.has_sparse_primal = 0;
    double *own;
    ncp_problem dec = dense_view(p, &own);
    ncp_error err = {0};
    int route = -1;
    CHECK_OK(ncp_gs_vel_route(p, NCP_GS_AUTO, &route, &err), &err);
    for (size_t si = 0; si < sizeof family / sizeof family[0]; si++) {
        const ncp_solver_desc *s = family[si];
        const int decoupled = s == &ncp_solver_pgs_decoupled;
        if (decoupled && !dec.has_primal) continue;
        for (int view = 0; view < 2 - decoupled; view++) {
            ncp_result r;
            if (tutil_solve(s, view ? &dual : decoupled ? &dec : p, NULL, NULL, 0.0, 2, &r)) {
                CHECK(0);
                continue;
            }
            const char *want = view ? "sweep D " : route == NCP_GS_VELOCITY ? "sweep velocity form: "
                                                                           : "sweep D ";
            const char *at = strstr(r.note, want);
            CHECK(at && (at == r.note || !strncmp(at - 2, "; ", 2)) &&
                  strstr(at, view ? "(no primal data for the velocity form)" : "flops/sweep"));
            if (!at) fprintf(stderr, "  %s on problem %d (view %d): note '%s'\n", s->name, pi,
                             view, r.note);
            ncp_result_free(&r);
        }
    }
    free(own);
}

/* ---- the route itself ---- */

static void test_route(const ncp_problem *p, int pi)
{
    const int m = p->m;
    ncp_error err = {0};
    int route = -1;
    CHECK_OK(ncp_gs_vel_route(p, NCP_GS_AUTO, &route, &err), &err);
    if (pi > 0) CHECK(route == NCP_GS_VELOCITY);

    ncp_problem q = *p; /* no dual data at all: the velocity form must not need them */
    q.has_dual = 0;
    q.D = NULL;
    q.vf = NULL;
    q.dop_route = 0;
    double *step = calloc((size_t)p->nblocks, sizeof(double));
    double *step1 = calloc((size_t)p->nblocks, sizeof(double));
    double *l0 = calloc((size_t)m, sizeof(double)), *u0 = calloc((size_t)m, sizeof(double));
    double *l1 = calloc((size_t)m, sizeof(double)), *u1 = calloc((size_t)m, sizeof(double));
    CHECK(step && step1 && l0 && u0 && l1 && u1);
    ncp_gs_vel g;
    if (!step || !step1 || !l0 || !u0 || !l1 || !u1 ||
        ncp_gs_vel_setup(&g, &q, NCP_GS_AUTO, u1, &err) != NCP_OK) {
        CHECK(0);
        goto done;
    }
    CHECK(g.route == NCP_GS_VELOCITY || pi == 0);
    if (g.route == NCP_GS_VELOCITY) {
        /* Y's entries: the prediction from A's blocks, 6 per body row i touches on the pile */
        int *block = malloc((size_t)p->nv * sizeof(int)), *size = calloc((size_t)p->nv, sizeof(int));
        int *mark = malloc((size_t)p->nv * sizeof(int));
        ncp_csr Ad = {0};
        const ncp_csr *A = &p->A_sparse;
        if (!p->has_sparse_primal) {
            CHECK_OK(ncp_csr_from_dense(&Ad, p->nv, p->nv, p->A, 0.0, &err), &err);
            A = &Ad;
        }
        CHECK(block && size && mark);
        if (block && size && mark) {
            int nb = ncp_csr_components(A, block, &err);
            CHECK(nb >= 1);
            for (int i = 0; i < p->nv; i++) size[block[i]]++;
            CHECK(g.Y.ptr[m] == ncp_jmap_nnz(nb, block, size, &p->J, mark));
            /* the estimates the choice compared (halved flops per sweep): 2 nnz(J) + nnz(Y)
             * against m^2 (D's columns) or 3 m nv (F F^T, dense A with nv <= m / 4); the note
             * states them */
            double del = (double)m * m;
            if (p->has_primal && 4 * p->nv <= m) del = fmin(del, 3.0 * m * p->nv);
            CHECK(g.est_vel == 2.0 * p->J.nnz + (double)g.Y.ptr[m] && g.est_del == del);
            CHECK(NCP_GS_VEL_FLOP_WEIGHT * g.est_vel <= g.est_del && !g.fallback);
            char text[200], want[200];
            ncp_gs_vel_describe(&g, text, sizeof text);
            snprintf(want, sizeof want, "sweep velocity form: est. velocity form %.2g flops/sweep, "
                     "D route %.2g", 2.0 * g.est_vel, 2.0 * del);
            CHECK(!strcmp(text, want));
            if (pi == 1) CHECK(nb == 8 && g.Y.ptr[m] <= (size_t)12 * m);
            if (pi == 2) CHECK(nb == 8);
            printf("  problem %d: %d blocks of A, nnz(J) %d, nnz(Y) %zu (dense Y: %zu)\n", pi, nb,
                   p->J.nnz, g.Y.ptr[m], (size_t)m * p->nv);
        }
        free(block);
        free(size);
        free(mark);
        ncp_csr_free(&Ad);
    }
    /* the diagonal blocks and v_f against the problem's D and v_f */
    double derr = 0.0, dmax = 0.0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int k = ncp_block_type_size(b->type);
        for (int c = 0; c < k; c++)
            for (int a = 0; a < k; a++) {
                double d = p->D[(b->row + a) + (size_t)(b->row + c) * m];
                derr = fmax(derr, fabs(g.dblk[9 * (size_t)bi + a + 3 * c] - d));
                dmax = fmax(dmax, fabs(d));
            }
    }
    CHECK(derr <= 1e-12 * dmax);
    CHECK(tutil_reldiff((size_t)m, g.vf, p->vf, 1.0) <= 1e-12);
    CHECK_OK(ncp_block_steps(p, step, NULL, &err), &err);
    CHECK_OK(ncp_block_steps_diag(&q, g.dblk, step1, NULL, &err), &err);
    CHECK(tutil_reldiff((size_t)p->nblocks, step1, step, 0.0) <= 1e-12);
    ncp_copy(m, p->vf, u0);
    ncp_gs_vel_start(&g, l1);
    CHECK(tutil_velocity_error(p, l1, u1) < 1e-12);
    for (int it = 0; it < 3; it++) {
        double d0 = ncp_pgs_sweep(p, step, 1.0, 2, l0, u0);
        double d1 = ncp_pgs_sweep_vel(&q, &g, step, 1.0, 2, l1);
        CHECK(d0 > 0.0);
        CHECK_NEAR(d1, d0, 1e-10 * fmax(1.0, d0));
        CHECK(tutil_velocity_error(p, l1, u1) < 1e-12);
        CHECK(tutil_maxdiff(m, l0, l1) <= 1e-10 * fmax(1.0, ncp_norminf(m, l0)));
    }
    /* a warm start: u = D lambda + v_f through Y */
    ncp_gs_vel_start(&g, l0);
    CHECK(tutil_velocity_error(p, l0, u1) < 1e-12);
    ncp_gs_vel_free(&g);

    /* a problem that keeps v_f without D (a completed primal problem, core/problem.h): the sweep
     * follows that v_f, the one the answer is graded with, not one rebuilt from b (here it
     * differs from J A^{-1} b + e, so a rebuilt one would show) */
    double *vfk = malloc((size_t)m * sizeof(double));
    CHECK(vfk != NULL);
    if (vfk) {
        for (int i = 0; i < m; i++) vfk[i] = p->vf[i] + 0.25 * (1 + i % 3);
        ncp_problem k = q;
        k.vf = vfk;
        CHECK_OK(ncp_gs_vel_setup(&g, &k, NCP_GS_VELOCITY, u1, &err), &err);
        CHECK(g.vf == vfk && !g.vf_own);
        ncp_zero(m, l1);
        ncp_gs_vel_start(&g, l1);
        CHECK(tutil_maxdiff(m, u1, vfk) == 0.0);
        ncp_gs_vel_free(&g);
        free(vfk);
    }

    /* the routes on D, on a problem that keeps none (core/problem.h): the setup builds it (the
     * low-rank route needs none), its diagonal blocks those of p's D; q keeps no D after */
    for (int rt = NCP_GS_NONZEROS; rt <= NCP_GS_DELASSUS; rt++) {
        q.dop_route = p->dop_route;
        CHECK_OK(ncp_gs_vel_setup(&g, &q, rt, u1, &err), &err);
        CHECK(g.D_own != NULL || (rt == NCP_GS_DELASSUS && q.dop_route == 1));
        double worst = 0.0;
        for (int bi = 0; g.dblk && bi < p->nblocks; bi++) {
            const ncp_block *b = &p->blocks[bi];
            const int k = ncp_block_type_size(b->type);
            for (int c = 0; c < k; c++)
                for (int a = 0; a < k; a++)
                    worst = fmax(worst, fabs(g.dblk[9 * (size_t)bi + a + 3 * c] -
                                             p->D[(b->row + a) + (size_t)(b->row + c) * m]));
        }
        CHECK(worst <= 1e-12 * fmax(1.0, ncp_gs_diag_max(p, NULL)));
        ncp_gs_vel_free(&g);
        CHECK(!q.D && !q.has_dual);
    }
    /* the velocity form needs the primal data */
    ncp_problem dual = *p;
    dual.has_primal = 0;
    dual.has_sparse_primal = 0;
    CHECK(ncp_gs_vel_setup(&g, &dual, NCP_GS_VELOCITY, u1, &err) == NCP_ERR_INPUT);
    ncp_gs_vel_free(&g);
    CHECK_OK(ncp_gs_vel_route(&dual, NCP_GS_AUTO, &route, &err), &err);
    CHECK(route == NCP_GS_DELASSUS);

    /* a D that is not J A^{-1} J^T (regularised on its diagonal): the automatic choice keeps
     * the problem's D; the velocity form asked for explicitly still runs from the primal data */
    double *Dreg = malloc((size_t)m * m * sizeof(double));
    CHECK(Dreg != NULL);
    if (Dreg) {
        memcpy(Dreg, p->D, (size_t)m * m * sizeof(double));
        for (int i = 0; i < m; i++) Dreg[i + (size_t)i * m] *= 1.0 + 1e-6;
        ncp_problem r = *p;
        r.D = Dreg;
        r.dop_route = 0;
        CHECK_OK(ncp_gs_vel_setup(&g, &r, NCP_GS_AUTO, u1, &err), &err);
        CHECK(g.route == NCP_GS_DELASSUS);
        char text[200];
        ncp_gs_vel_describe(&g, text, sizeof text);
        CHECK(pi == 0 || (strstr(text, "sweep D ") == text &&
                          strstr(text, " (D is not J A^-1 J^T)") != NULL));
        ncp_gs_vel_free(&g);
        CHECK_OK(ncp_gs_vel_setup(&g, &r, NCP_GS_VELOCITY, u1, &err), &err);
        CHECK(g.route == NCP_GS_VELOCITY);
        ncp_gs_vel_free(&g);
        CHECK_OK(ncp_gs_vel_setup(&g, p, NCP_GS_AUTO, u1, &err), &err);
        CHECK(g.route == NCP_GS_VELOCITY || pi == 0);
        ncp_gs_vel_free(&g);
        free(Dreg);
    }
done:
    free(step);
    free(step1);
    free(l0);
    free(u0);
    free(l1);
    free(u1);
}

int main(void)
{
    for (int pi = 0; pi < NPROB; pi++) {
        ncp_problem p;
        if (make(&p, pi)) continue;
        int types = 0;
        for (int b = 0; b < p.nblocks; b++) types |= 1 << p.blocks[b].type;
        printf("problem %d: m %d, nv %d, block types 0x%x\n", pi, p.m, p.nv, types);
        test_route(&p, pi);
        test_family(&p, pi);
        test_notes(&p, pi);
        ncp_problem_free(&p);
    }
    return tcheck_exit("gsvel");
}
