/* Tasora et al. 2021 TEST 2 (the wrecking ball, scenes/tasora-test2.json) at a reduced scale:
 * 2 walls of 3 rows x 2 bricks (3.96 x 2 x 4 m, 100 kg/m^3, running bond as
 * scripts/make_tasora_test2.py lays them) and the 8 m ball on its pendulum, with the simulator's
 * block route forced (ncp_model.block_mass_ndof), so the problem's A is the block-diagonal CSR
 * that the 600-brick scene has (3606 dofs > NCP_BLOCK_MASS_NDOF).
 *
 * Checked against independent computations:
 *  1. the contacts at the start: each brick touches exactly the bodies below it that the layout
 *     puts under it (the ground, or the bricks of the row below whose x ranges overlap its own,
 *     computed here from the positions), every contact at phi = 0 with a vertical normal; the
 *     ball, 0.1 m in front of the first wall, touches nothing;
 *  2. admm's saddle-point form on the sparse A (solvers/admm_common.c: K from A_sparse, sparse
 *     by default; form = 2) reaches the tolerance, and its impulses agree with those of the same solver on
 *     the dense-route problem (dense A, the saddle form the solver always had) to 1e-6;
 *  3. admm's and fadmm's saddle form with K kept sparse (k_factor = 2: fixed pattern analysed once,
 *     numeric refactorisation per rho) and with K dense (k_factor = 1), on the sparse-A and on the
 *     dense-A problem: the same iterates (lambda, and v where reported) to 1e-9 relative after
 *     1, 7 and 40 iterations (rho changes in between: the refactorisation path); and on a mass
 *     matrix made indefinite (a body no E row touches), both give a numeric error naming the
 *     saddle form and positive definiteness;
 *  4. pgs, jacobi and apgd run on the block problem (not unsupported, not failed). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/la.h"
#include "core/problem.h"
#include "scene/scene.h"
#include "sim/assemble.h"
#include "sim/dynamics.h"
#include "solve/harness.h"
#include "solve/params.h"
#include "solvers/registry.h"
#include "tcheck.h"

enum { ROWS = 3, COLS = 2, WALLS = 2, NBRICK = ROWS * COLS * WALLS };
#define BL 3.96 /* brick length (x), height 2 (z), width 4 (y), as the paper */

static double brick_x(int r, int c) { return (c - (COLS - 1) / 2.0) * 4.0 + (r % 2 ? 2.0 : 0.0); }

static ncp_scene *make_scene(void)
{
    size_t cap = 400 * (NBRICK + 4), n = 0;
    char *js = malloc(cap);
    if (!js) return NULL;
    n += (size_t)snprintf(js + n, cap - n,
                          "{\"name\":\"wreck\",\"timestep\":0.02,\"steps\":1,"
                          "\"contact\":{\"margin\":0.01},"
                          "\"materials\":[{\"name\":\"brick\",\"friction\":0.4}],"
                          "\"bodies\":[{\"name\":\"ground\",\"type\":\"static\",\"shapes\":"
                          "[{\"type\":\"plane\",\"material\":\"brick\"}]}");
    for (int w = 0; w < WALLS; w++)
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++)
                n += (size_t)snprintf(js + n, cap - n,
                                      ",{\"name\":\"b%d_%d_%d\",\"type\":\"dynamic\","
                                      "\"density\":100,\"position\":[%.17g,%.17g,%.17g],"
                                      "\"shapes\":[{\"type\":\"box\",\"half_extents\":"
                                      "[1.98,2,1],\"material\":\"brick\"}]}",
                                      w, r, c, brick_x(r, c), 8.0 * w, 1.0 + 2.0 * r);
    const double yb = -(2.0 + 0.1 + 4.0), zc = fmax(ROWS * 1.0, 4.1); /* as the script */
    snprintf(js + n, cap - n,
             ",{\"name\":\"ball\",\"type\":\"dynamic\",\"density\":8000,"
             "\"position\":[0,%.17g,%.17g],"
             "\"velocity\":[0,10,0],\"shapes\":[{\"type\":\"sphere\",\"radius\":4,\"material\":"
             "\"brick\"}]}],\"constraints\":[{\"name\":\"cable\",\"type\":\"point\",\"bodies\":"
             "[\"world\",\"ball\"],\"anchor\":[0,%.17g,%.17g]}]}",
             yb, zc, yb, zc + 30.0);
    ncp_error err = {0};
    ncp_scene *s = NULL;
    CHECK_OK(ncp_scene_parse(js, "wreck.json", NULL, &s, &err), &err);
    free(js);
    return s;
}

static void assemble_at_start(ncp_scene *s, ncp_problem *p)
{
    ncp_error err = {0};
    CHECK_OK(ncp_model_initial_problem(ncp_scene_model(s), p, &err), &err);
}

/* Body index of brick (w, r, c) in the problem's contacts: the model's index (scene order, the
 * ground is model body 0) for a dynamic body, -1 for the static ground (assemble.c). */
static int brick_body(int w, int r, int c) { return 1 + (w * ROWS + r) * COLS + c; }

static int solve(const char *name, const ncp_problem *p, double form, ncp_result *res)
{
    ncp_error err = {0};
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    if (form > 0) CHECK_OK(ncp_params_set(&ps, "form", form, &err), &err);
    ncp_harness_opts ho;
    ncp_harness_opts_default(&ho);
    ho.budget.tol = 1e-8;
    ho.budget.max_iter = 3000;
    ho.unsupported_ok = 1;
    const ncp_solver_desc *d = ncp_solver_find(name);
    CHECK(d != NULL);
    if (!d) return 0;
    CHECK_OK(ncp_harness_solve(d, p, &ps, NULL, NULL, &ho, res, &err), &err);
    printf("wreckingball: %-7s form %g: %s, %d iterations, natural map %.2e\n", name, form,
           ncp_status_name(res->status), res->iterations, res->final.natural_map_rel_acary);
    return 1;
}

/* The ADMM solver `name` in the saddle form with K factorised by k_factor, stopped after
 * exactly `iters` iterations (tol 1e-300) and rho adapted every 3 (refactorisations; adapt_work 0:
 * the two K's different cost estimates would raise n_s differently). Returns the harness's code
 * (the error path is tested too). */
static int run_k(const char *name, const ncp_problem *p, int k_factor, int iters,
                 ncp_result *res, ncp_error *err)
{
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    CHECK_OK(ncp_params_set(&ps, "form", 2, err), err);
    CHECK_OK(ncp_params_set(&ps, "k_factor", k_factor, err), err);
    CHECK_OK(ncp_params_set(&ps, "adapt_every", 3, err), err);
    CHECK_OK(ncp_params_set(&ps, "adapt_work", 0, err), err);
    ncp_harness_opts ho;
    ncp_harness_opts_default(&ho);
    ho.budget.tol = 1e-300;
    ho.budget.max_iter = iters;
    const ncp_solver_desc *d = ncp_solver_find(name);
    CHECK(d != NULL);
    if (!d) return NCP_ERR_INTERNAL;
    return ncp_harness_solve(d, p, &ps, NULL, NULL, &ho, res, err);
}

/* Largest |x - y| over largest |y| (1 when y is 0). */
static double rel_diff(int n, const double *x, const double *y)
{
    double d = 0.0, s = 0.0;
    for (int i = 0; i < n; i++) {
        d = fmax(d, fabs(x[i] - y[i]));
        s = fmax(s, fabs(y[i]));
    }
    return d / (s > 0.0 ? s : 1.0);
}

static void check_sparse_k(const char *what, const ncp_problem *p)
{
    static const char *const names[2] = {"admm", "fadmm"};
    static const int iters[3] = {1, 7, 40};
    double worst = 0.0;
    for (int si = 0; si < 2; si++)
        for (int ki = 0; ki < 3; ki++) {
            ncp_error err = {0};
            ncp_result rs, rd;
            CHECK_OK(run_k(names[si], p, 2, iters[ki], &rs, &err), &err);
            CHECK_OK(run_k(names[si], p, 1, iters[ki], &rd, &err), &err);
            CHECK(rs.iterations == iters[ki] && rd.iterations == iters[ki]);
            /* the harness keeps the solver's v only with a dense primal (harness.h) */
            CHECK(rs.has_solver_v == p->has_primal && rd.has_solver_v == p->has_primal);
            if (rs.lambda && rd.lambda) {
                double dl = rel_diff(p->m, rs.lambda, rd.lambda);
                CHECK(dl <= 1e-9);
                if (dl > 1e-9)
                    fprintf(stderr, "  %s %s k %d: sparse vs dense K: lambda %.3g\n", what,
                            names[si], iters[ki], dl);
                worst = fmax(worst, dl);
            }
            if (rs.solver_v && rd.solver_v) {
                double dv = rel_diff(p->nv, rs.solver_v, rd.solver_v);
                CHECK(dv <= 1e-9);
                worst = fmax(worst, dv);
            }
            ncp_result_free(&rs);
            ncp_result_free(&rd);
        }
    printf("wreckingball: %s: admm, fadmm sparse vs dense K: largest relative difference %.2e\n",
           what, worst);
}

/* A mass matrix made indefinite on the last body (the ball: only the cable's bilateral rows, kept
 * out of K, touch it): K is then indefinite and both factorisations must say so. */
static void check_indefinite(ncp_problem *pb)
{
    ncp_csr *A = &pb->A_sparse;
    int r0 = pb->nv - 6, q = -1;
    double a00 = 0.0;
    for (int k = A->rowptr[r0]; k < A->rowptr[r0 + 1]; k++) {
        if (A->col[k] == r0) a00 = A->val[k];
        if (A->col[k] == r0 + 1) q = k;
    }
    int qt = -1;
    for (int k = A->rowptr[r0 + 1]; k < A->rowptr[r0 + 2]; k++)
        if (A->col[k] == r0) qt = k;
    CHECK(q >= 0 && qt >= 0 && a00 > 0.0); /* full 6 x 6 blocks (test_blockmass) */
    if (q < 0 || qt < 0) return;
    double keep = A->val[q];
    A->val[q] = A->val[qt] = 2.0 * a00; /* [[a, 2a], [2a, a]] (the ball's a11 = a00) */
    static const char *const names[2] = {"admm", "fadmm"};
    for (int si = 0; si < 2; si++)
        for (int kf = 1; kf <= 2; kf++) {
            ncp_error err = {0};
            ncp_result r;
            /* through the harness: a numerical failure is a FAILED result before any iterate */
            CHECK_OK(run_k(names[si], pb, kf, 5, &r, &err), &err);
            CHECK(r.status == NCP_STATUS_FAILED && r.iterations == 0);
            ncp_result_free(&r);
            /* the solver's own error (which the harness turns into that status): the same call
             * without the harness, safe with no run since it fails before the first iterate */
            ncp_params ps;
            memset(&ps, 0, sizeof ps);
            CHECK_OK(ncp_params_set(&ps, "form", 2, &err), &err);
            CHECK_OK(ncp_params_set(&ps, "k_factor", kf, &err), &err);
            ncp_solve_in in = {.prob = pb, .params = &ps};
            in.budget.max_iter = 5;
            double *lam = calloc((size_t)pb->m, sizeof(double));
            ncp_solve_out out = {.lambda = lam, .status = -1};
            const ncp_solver_desc *d = ncp_solver_find(names[si]);
            CHECK(lam != NULL && d != NULL);
            if (lam && d) {
                int rc = d->solve(&in, &out, NULL, &err);
                CHECK(rc == NCP_ERR_NUMERIC);
                CHECK(strstr(err.msg, names[si]) != NULL && strstr(err.msg, "saddle") != NULL &&
                      strstr(err.msg, "not positive definite") != NULL);
                printf("wreckingball: indefinite M, %s k_factor %d: %s\n", names[si], kf,
                       err.msg);
            }
            free(lam);
        }
    A->val[q] = A->val[qt] = keep;
}

int main(void)
{
    ncp_scene *s = make_scene();
    if (!s) return tcheck_exit("wreckingball");
    const ncp_model *m = ncp_scene_model(s);
    CHECK(m->nv == 6 * (NBRICK + 1));
    ncp_problem pb, pd;
    ((ncp_model *)m)->block_mass_ndof = 6; /* the block route, as at 600 bricks */
    assemble_at_start(s, &pb);
    ((ncp_model *)m)->block_mass_ndof = INT_MAX;
    assemble_at_start(s, &pd);
    CHECK(pb.has_sparse_primal && !pb.has_primal && !pb.has_dual && pb.vf);
    CHECK(pd.has_primal && !pd.has_sparse_primal && !pd.has_dual && pd.vf);
    /* D on demand (core/problem.h), for the comparisons against it below; with it, the
     * indefinite-M check's grading does not need A's factor */
    ncp_error e0 = {0};
    CHECK_OK(ncp_problem_need_dual(&pb, &e0), &e0);
    CHECK_OK(ncp_problem_need_dual(&pd, &e0), &e0);
    CHECK(pb.m == pd.m && pb.ncontacts == pd.ncontacts);
    printf("wreckingball: nv = %d, m = %d, %d contacts\n", pb.nv, pb.m, pb.ncontacts);

    /* 1. contacts: per brick, the set of bodies under it, against the layout */
    int ball = NBRICK + 1;
    for (int w = 0; w < WALLS; w++)
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++) {
                int b = brick_body(w, r, c);
                double x0 = brick_x(r, c);
                /* expected partners below: the ground (-1) for row 0, else each brick of row
                 * r - 1 whose x range [x - 1.98, x + 1.98] overlaps this one's */
                int want[COLS + 1], nwant = 0;
                if (r == 0) want[nwant++] = -1;
                else
                    for (int c2 = 0; c2 < COLS; c2++)
                        if (fabs(brick_x(r - 1, c2) - x0) < BL)
                            want[nwant++] = brick_body(w, r - 1, c2);
                for (int k = 0; k < nwant; k++) {
                    int cnt = 0;
                    for (int i = 0; i < pb.ncontacts; i++) {
                        const ncp_contact_info *ci = &pb.contacts[i];
                        if (!((ci->body[0] == want[k] && ci->body[1] == b) ||
                              (ci->body[1] == want[k] && ci->body[0] == b)))
                            continue;
                        cnt++;
                        CHECK(fabs(ci->gap) <= 1e-9);
                        CHECK(fabs(fabs(ci->frame[2]) - 1.0) <= 1e-9); /* vertical normal */
                    }
                    CHECK(cnt >= 1 && cnt <= 4); /* a face on a face or the ground: <= 4 points */
                }
                /* nothing else touches it from below, and the ball touches nothing */
                for (int i = 0; i < pb.ncontacts; i++) {
                    const ncp_contact_info *ci = &pb.contacts[i];
                    CHECK(ci->body[0] != ball && ci->body[1] != ball);
                    int other = ci->body[0] == b   ? ci->body[1]
                                : ci->body[1] == b ? ci->body[0]
                                                   : -2;
                    if (other == -2) continue;
                    int below = other == -1 || (other != ball && other < b);
                    if (!below) continue;
                    int ok = 0;
                    for (int k = 0; k < nwant; k++) ok |= other == want[k];
                    CHECK(ok);
                }
            }

    /* 2. admm's saddle form on the sparse A against the dense-A problem */
    ncp_result rb, rd;
    if (solve("admm", &pb, 2, &rb) && solve("admm", &pd, 2, &rd)) {
        CHECK(rb.converged && rd.converged);
        if (rb.lambda && rd.lambda) {
            double dmax = 0.0, smax = 0.0;
            for (int i = 0; i < pb.m; i++) {
                dmax = fmax(dmax, fabs(rb.lambda[i] - rd.lambda[i]));
                smax = fmax(smax, fabs(rd.lambda[i]));
            }
            printf("wreckingball: admm sparse-A vs dense-A saddle: max |dlambda| / max |lambda| = "
                   "%.2e\n", dmax / smax);
            CHECK(dmax <= 1e-6 * smax);
        }
        ncp_result_free(&rb);
        ncp_result_free(&rd);
    }
    /* the default form (the cheaper by its estimate: the saddle form here) also solves */
    if (solve("admm", &pb, 0, &rb)) {
        CHECK(rb.converged);
        CHECK(strstr(rb.note, "form saddle") != NULL);
        ncp_result_free(&rb);
    }
    /* 3. the saddle form's K kept sparse against the dense K */
    check_sparse_k("sparse A", &pb);
    check_sparse_k("dense A", &pd);
    check_indefinite(&pb);
    /* 4. the dual solvers run on the block problem */
    static const char *const dual[3] = {"pgs", "jacobi", "apgd"};
    for (int i = 0; i < 3; i++)
        if (solve(dual[i], &pb, 0, &rb)) {
            CHECK(rb.status != NCP_STATUS_UNSUPPORTED && rb.status != NCP_STATUS_FAILED);
            ncp_result_free(&rb);
        }
    ncp_problem_free(&pb);
    ncp_problem_free(&pd);
    ncp_scene_free(s);
    return tcheck_exit("wreckingball");
}
