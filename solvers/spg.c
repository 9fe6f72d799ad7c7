/* spg — spectral projected gradient (Barzilai–Borwein steps, non-monotone line search) on the
 * CCP, with optional Jacobi preconditioning and the fall-back to the best iterate: the P-SPG-FB
 * that Tasora et al. 2021 plot against ADMM (Fig. 2; their §1 ref. 16, Heyn, Anitescu, Tasora,
 * Negrut, IJNME 95(7) 2013; the §8.1 text attributes it to ref. 17 by mistake).
 *
 * Source: Birgin, Martínez, Raydan, "Nonmonotone spectral projected gradient methods on convex
 * sets", SIAM J. Optim. 10(4) 2000, algorithm SPG2, on the CCP's convex QP (as apgd, see
 * solvers/apgd.c; soft rows as compliant bilateral rows, ncp_block_gradient in common.h)
 *     f(l) = 1/2 l^T N l + s^T l  over  l ∈ K,   g = N l + s.
 * Iteration k (P = the diagonal preconditioner, I without it):
 *     d_k   = Pi_K(l_k - alpha_k P^-1 g_k) - l_k                       (SPG2 step 2.1)
 *     t = 1; while f(l_k + t d_k) > max_{0<=j<M} f(l_{k-j}) + gamma t g_k^T d_k:   (2.2–2.3)
 *         t = clamp(t_q, sigma1 t, sigma2 t), t_q the minimiser of the quadratic along d_k
 *     l_{k+1} = l_k + t d_k,  s = t d_k,  y = g_{k+1} - g_k = N s
 *     alpha_{k+1} = alpha_max if s^T y <= 0, else clamp(s^T P s / s^T y, alpha_min, alpha_max)
 * f is quadratic, so f along d is f_k + t g^T d + t^2/2 d^T N d exactly: the line search and
 * the next gradient cost the one product N d of the iteration (core/dop.h operator). The
 * non-monotone rule (M > 1) lets the Barzilai–Borwein step raise f for a while; it guarantees
 * that the largest f over the last M iterates never increases (BMR 2000, Lemma 2.1 ff.).
 * Preconditioning ("P-", Heyn et al. 2013; Tasora et al. 2021 §6.1's diagonal scaling): P has one
 * value per block, 1 / step of ncp_block_fo_steps (contact: lambda_max of its 3x3 diagonal block
 * of D, as Chrono's ChSolverBB averages the triplet's diagonal), so that the P-metric projection
 * onto a cone is the Euclidean one (a cone is invariant under a uniform scaling) and d_k is a
 * descent direction in the P metric: g^T d <= -|d|_P^2 / alpha (BMR 2000, Lemma 2.1).
 * Fall-back ("FB", Heyn et al. 2013, Chrono's ChSolverBB: "fallback to best found solution ...
 * because of nonmonotonicity"): with fallback = 1 the iterate REPORTED after every iteration is
 * the best so far by the projected-gradient residual |l - Pi_K(l - g)|_2 (the CCP natural map),
 * while the iteration goes on from the current one: a run truncated at any iteration returns
 * what Chrono's rollback would. fallback = 0 reports the current iterate.
 * Constants from BMR 2000 §3: gamma 1e-4, sigma1 0.1, sigma2 0.9, alpha in [1e-30, 1e30], M 10.
 * Start: alpha_0 = 1 / max_b (curvature of block b in the metric used), which is 1 with
 * preconditioning; l_0 = Pi_K(lambda0) (or 0).
 * Resolved details: at most 60 line-search reductions, after which the step is taken (f along d
 * has the minimiser t_q > 0 whenever g^T d < 0, so the test always passes before that unless
 * round-off hides the decrease); u = D l + v_f is kept by updates u += t D d and recomputed
 * every 50 iterations, so round-off does not accumulate.
 *
 * Accuracy (tests/test_spg.c): 1e-8 in lambda and in the CCP natural map on CCPs with known
 * answers (sticking, open and sliding contacts, condition number up to 100), the windowed
 * monotonicity of the non-monotone rule, the line search's reductions and the fall-back on
 * crafted cases, and Tasora et al. 2021's TEST 1.B (scenes/tasora-test1b.json) to 1e-8 of the
 * analytic impulses. Measured (`ncpbench figures --paper tasora2021`): TEST 1.B to
 * natural_map_rel_acary 1e-10 in 567 iterations (312 without preconditioning; P-ADMM 308);
 * TEST 1.A (mass ratios of 1e3 along a chain of 21 contacts; ||v_f|| is only the floor contact's
 * h g, so the relative measure asks for about 1e-14 of the impulses) stays above 1e-3 after 3000
 * iterations (fallback 0: 3e-3; memory 1: 0.27), where apgd reaches 2e-10.
 *
 * Parameters (defaults): memory 10 (M), precond 1, fallback 1, stall_tol 1e-15 (STALLED when d =
 * 0 to that relative size: l is a fixed point of the projected gradient step).
 * Needs: dual (D, v_f), symmetric. Solves the CCP (Anitescu's relaxation; its answer is the NCP's
 * where no contact slides).
 */
#include <math.h>
#include <stdlib.h>

#include "solvers/common.h"
#include "core/la.h"
#include "solvers/registry.h"

static const ncp_param_doc spg_params[] = {
    {"memory", 10.0, "M >= 1: non-monotone line search against the largest f of the last M iterates (1 = monotone)"},
    {"precond", 1.0, "1 = Jacobi (per-block diagonal) preconditioning (P-SPG), 0 = off"},
    {"fallback", 1.0,
     "1 = report the best iterate so far by |l - Pi_K(l - g)| (the FB of P-SPG-FB), 0 = the current one"},
    {"stall_tol", 1e-15, "stop (STALLED) when |d|_inf <= stall_tol * max(1, |l|_inf)"},
    {NULL, 0.0, NULL},
};

#define SPG_GAMMA 1e-4
#define SPG_SIGMA1 0.1
#define SPG_SIGMA2 0.9
#define SPG_ALPHA_MIN 1e-30
#define SPG_ALPHA_MAX 1e30
enum { SPG_MAX_REDUCTIONS = 60, SPG_REFRESH = 50, SPG_MAX_MEMORY = 1000 };

typedef struct spg_ws {
    int memory, precond, fallback;
    double stall_tol;
    double *l, *g, *u, *s0, *d, *Nd, *x, *best, *pinv; /* pinv: per row, 1 / P */
    double *fhist;                                     /* the last M values of f, ring */
    double best_res, alpha0;
    ncp_dop op;
} spg_ws;

static void spg_ws_free(spg_ws *w)
{
    free(w->l);
    free(w->g);
    free(w->u);
    free(w->s0);
    free(w->d);
    free(w->Nd);
    free(w->x);
    free(w->best);
    free(w->pinv);
    free(w->fhist);
    ncp_dop_free(&w->op);
}

/* g from u = D l + v_f (CCP gradient, ncp_block_gradient with desaxce 0). */
static void spg_gradient(const ncp_problem *p, const double *l, const double *u, double *g)
{
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        ncp_block_gradient(b, 0, l + b->row, u + b->row, g + b->row);
    }
}

/* out = Pi_K(l - a .* v) block by block (a: per-row scale, or the scalar `t` when a is NULL). */
static void spg_project_step(const ncp_problem *p, const double *l, const double *v,
                             const double *a, double t, double *out)
{
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row, n = ncp_block_type_size(b->type);
        double x[3];
        for (int i = 0; i < n; i++) x[i] = l[r + i] - t * (a ? a[r + i] : 1.0) * v[r + i];
        ncp_block_project(b, x, out + r);
    }
}

/* The CCP natural map |l - Pi_K(l - g)|_2 (the fall-back's measure). */
static double spg_residual(const ncp_problem *p, spg_ws *w)
{
    spg_project_step(p, w->l, w->g, NULL, 1.0, w->x);
    double s = 0.0;
    for (int i = 0; i < p->m; i++) s += (w->l[i] - w->x[i]) * (w->l[i] - w->x[i]);
    return sqrt(s);
}

/* f(l) = 1/2 l^T (g + s0): g = N l + s0 with s0 the linear term. */
static double spg_f(int m, const double *l, const double *g, const double *s0)
{
    double f = 0.0;
    for (int i = 0; i < m; i++) f += l[i] * (g[i] + s0[i]);
    return 0.5 * f;
}

static void spg_exact_state(const ncp_problem *p, spg_ws *w)
{
    ncp_copy(p->m, p->vf, w->u);
    ncp_dop_apply(&w->op, 1.0, w->l, 1.0, w->u);
    spg_gradient(p, w->l, w->u, w->g);
}

static void spg_iterate(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, spg_ws *w)
{
    const ncp_problem *p = in->prob;
    int m = p->m, status = -1, k = 0, nh = 0;
    /* l_0 = Pi_K(lambda0): the method needs a feasible start (SPG2's x_0 in Omega) */
    if (in->lambda0) spg_project_step(p, in->lambda0, in->lambda0, NULL, 0.0, w->l);
    spg_exact_state(p, w);
    double fk = spg_f(m, w->l, w->g, w->s0);
    double alpha = w->alpha0;
    w->fhist[0] = fk;
    nh = 1;
    w->best_res = spg_residual(p, w);
    ncp_copy(m, w->l, w->best);
    if (ncp_run_setup_done(run) == 0) {
        for (k = 1;; k++) {
            /* d = Pi_K(l - alpha P^-1 g) - l */
            spg_project_step(p, w->l, w->g, w->pinv, alpha, w->d);
            double dmax = 0.0;
            for (int i = 0; i < m; i++) {
                w->d[i] -= w->l[i];
                dmax = fmax(dmax, fabs(w->d[i]));
            }
            ncp_ccp_hessian_apply(p, &w->op, w->d, w->Nd);
            double gd = ncp_dot(m, w->g, w->d), dNd = ncp_dot(m, w->d, w->Nd);
            double fref = w->fhist[0];
            for (int j = 1; j < nh; j++) fref = fmax(fref, w->fhist[j]);
            /* non-monotone Armijo test with safeguarded quadratic interpolation */
            double t = 1.0, ft = fk + gd + 0.5 * dNd;
            for (int j = 0; j < SPG_MAX_REDUCTIONS && ft > fref + SPG_GAMMA * t * gd; j++) {
                double tq = dNd > 0.0 ? -gd / dNd : 0.5 * t;
                t = fmin(SPG_SIGMA2 * t, fmax(SPG_SIGMA1 * t, tq));
                ft = fk + t * gd + 0.5 * t * t * dNd;
            }
            double sPs = 0.0;
            for (int i = 0; i < m; i++) {
                double si = t * w->d[i];
                w->l[i] += si;
                sPs += w->pinv[i] > 0.0 ? si * si / w->pinv[i] : 0.0;
            }
            if (k % SPG_REFRESH == 0) {
                spg_exact_state(p, w);
                ft = spg_f(m, w->l, w->g, w->s0);
            } else {
                ncp_dop_apply(&w->op, t, w->d, 1.0, w->u);
                spg_gradient(p, w->l, w->u, w->g);
            }
            fk = ft;
            double sy = t * t * dNd; /* s^T y = s^T N s on the quadratic */
            alpha = sy > 0.0 ? fmin(SPG_ALPHA_MAX, fmax(SPG_ALPHA_MIN, sPs / sy)) : SPG_ALPHA_MAX;
            w->fhist[k % w->memory] = fk;
            if (nh < w->memory) nh++;
            const double *rep = w->l;
            if (w->fallback) {
                double res = spg_residual(p, w);
                if (!(res > w->best_res)) { /* NaN too: the non-finite test below catches it */
                    w->best_res = res;
                    ncp_copy(m, w->l, w->best);
                }
                rep = w->best;
            }
            int stalled = dmax <= w->stall_tol * fmax(1.0, ncp_norminf(m, w->l));
            if (ncp_solver_iter_end(run, k, m, rep, stalled, &status)) break;
        }
    }
    ncp_solver_finish(out, m, w->fallback ? w->best : w->l, k, status);
}

static int spg_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    const ncp_solver_desc *self = &ncp_solver_spg;
    const ncp_problem *p = in->prob;
    spg_ws w = {0};
    int rc;
    if ((rc = ncp_solver_param_int(self, in->params, "memory", 1, SPG_MAX_MEMORY, &w.memory,
                                   err)) ||
        (rc = ncp_solver_param_int(self, in->params, "precond", 0, 1, &w.precond, err)) ||
        (rc = ncp_solver_param_int(self, in->params, "fallback", 0, 1, &w.fallback, err)) ||
        (rc = ncp_solver_param_real(self, in->params, "stall_tol", 0.0, INFINITY, 0,
                                    &w.stall_tol, err)) ||
        (rc = ncp_solver_need_dual_op(self, p, err)))
        return rc;
    size_t m = (size_t)p->m, nb = (size_t)p->nblocks;
    double *step = ncp_calloc(err, nb + 1, sizeof(double));
    w.l = ncp_calloc(err, m + 1, sizeof(double));
    w.g = ncp_calloc(err, m + 1, sizeof(double));
    w.u = ncp_calloc(err, m + 1, sizeof(double));
    w.s0 = ncp_calloc(err, m + 1, sizeof(double));
    w.d = ncp_calloc(err, m + 1, sizeof(double));
    w.Nd = ncp_calloc(err, m + 1, sizeof(double));
    w.x = ncp_calloc(err, m + 1, sizeof(double));
    w.best = ncp_calloc(err, m + 1, sizeof(double));
    w.pinv = ncp_calloc(err, m + 1, sizeof(double));
    w.fhist = ncp_calloc(err, (size_t)w.memory, sizeof(double));
    if (!step || !w.l || !w.g || !w.u || !w.s0 || !w.d || !w.Nd || !w.x || !w.best || !w.pinv ||
        !w.fhist) {
        rc = NCP_ERR_NOMEM;
    } else if ((rc = ncp_block_fo_steps(p, step, err)) ||
               (rc = ncp_dop_init(&w.op, p, NCP_DOP_AUTO, err))) {
        ncp_error_prefix(err, "%s: ", self->name);
    } else {
        ncp_note_dop(run, &w.op);
        /* the linear term s0 = g(0); the metric: P^-1 = the block's first-order step, or 1 */
        spg_gradient(p, w.l, p->vf, w.s0);
        double cmax = 0.0; /* largest block curvature in the metric: alpha_0 = 1 / cmax */
        for (int bi = 0; bi < p->nblocks; bi++) {
            const ncp_block *b = &p->blocks[bi];
            for (int i = 0; i < ncp_block_type_size(b->type); i++)
                w.pinv[b->row + i] = w.precond ? step[bi] : 1.0;
            if (step[bi] > 0.0) cmax = fmax(cmax, w.pinv[b->row] / step[bi]);
        }
        w.alpha0 = cmax > 0.0 ? 1.0 / cmax : 1.0;
        spg_iterate(in, out, run, &w);
    }
    free(step);
    spg_ws_free(&w);
    return rc;
}

const ncp_solver_desc ncp_solver_spg = {
    .name = "spg",
    .source = "Birgin, Martinez, Raydan 2000 (SIAM J. Optim.) SPG2; Heyn, Anitescu, Tasora, "
              "Negrut 2013 (IJNME) P-SPG-FB",
    .summary = "spectral (Barzilai-Borwein) projected gradient on the CCP, non-monotone line "
               "search, Jacobi preconditioning, fall-back to the best iterate",
    .needs = NCP_NEEDS_DUAL_OP | NCP_NEEDS_SYMMETRIC,
    .ccp = 1,
    .file = "solvers/spg.c",
    .params = spg_params,
    .solve = spg_solve,
};
