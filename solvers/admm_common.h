/* What `admm` (solvers/admm.c) and `fadmm` (solvers/fadmm.c) share: Tasora et al. 2021 (Tasora, Mangoni,
 * Benatti, Garziera 2021) in ncpbench's notation. Private to those two files.
 *
 * The problem both solve is Tasora et al. 2021's CCP (eqs. 14-15): min 1/2 g^T N g + r^T g over g in Y,
 *   N = D + C (Delassus plus compliance, Corollary 3),  r = v_f + s,
 * i.e. K* ∋ N g + r ⊥ g ∈ K, Anitescu's convex relaxation (no De Saxcé term). Rows, by block:
 *   CONTACT     Y_j = K_mu (Euclidean projection ncp_cone_project), step rho w_j;
 *   UNILATERAL  Y = R+ (max(0, .)), step rho w_i;
 *   BILATERAL   Y = R (identity), step rho_b w_i (eq. 44: rows whose y is known to be 0);
 *   SOFT c > 0  the law lambda = -k phi - c u is a bilateral row with compliance C_ii = 1/c and
 *               shift s_i = k phi / c (Corollary 3): u + (lambda + k phi)/c = 0. Free, rho_b.
 *   SOFT c = 0  lambda = -k phi exactly: Y_i = {-k phi}, a one-point convex set (Tasora et al. 2021 §3
 *               allows any convex set), step rho w_i.
 * Only contacts are relaxed: on the other rows the CCP and the NCP coincide.
 *
 * Preconditioning (§6.1, the unscaled form (47)): the step is Theta = rho diag(w) with w the
 * diagonal of N averaged over each contact's 3 rows (S_ii = 1/sqrt(w_i), uniform per cone so
 * that the projection is unchanged; averaging as Chrono does, the paper leaves it open); with
 * precond = 0, w = 1 (plain ADMM, eq. 44). A w below 1e-14 of the largest (a row that does not
 * move its own velocity) uses the largest instead.
 *
 * The gamma-update (N + Theta) g = Theta z - y - r (eq. 31 / 47a) is the shifted Delassus system of
 * solvers/dshift.h with d = C + Theta: the dense Cholesky of N + Theta, or the saddle-point
 * system (eqs. 32, 33a, 47a) on the primal data, H = A, D_eps = J^T, k = b, b_eps = e + s, by
 * block elimination with the bilateral rows (whose d = rho_b w is tiny) kept in the Schur
 * complement; its velocity v (Corollary 2) is reported. form = 0 (auto) takes the form of lower
 * estimated cost per iteration (the factorisation's flops amortised over the iterations between
 * two rho changes, plus one solve: ncp_admm_setup), continuous in the problem's size; form = 1 / 2
 * force one. The choice is recorded in the row's note (ncp_run_note).
 *
 * Iterate reported: g (the paper's output, eq. 31 / Alg. 1), not z (in Y by construction).
 * Identity used by the stopping test: after the gamma-update, N g + r = -y - Theta (z - z_old)
 * in ADMM (Alg. 1 order) and N g + r = -y in FADMM (Alg. 3 order), exactly (up to the linear
 * solve's rounding), so the CCP natural map at g costs O(m):
 *   F = g - Pi_Y(g - u), u = N g + r (soft rows: c u + g + k phi, the metrics' convention).
 * This replaces the paper's own test (||r_p|| < eps_primal and ||r_d|| < eps_dual, Alg. 1 line 8,
 * tolerances not given; Chrono uses 1e-6 absolute), whose absolute tolerances in N s and m/s
 * mean different accuracies on different scenes; r_p and r_d still drive the rho policy.
 * The solver stops on its own (status STALLED: the harness's "converged" refers to the NCP
 * metric, which a CCP solution of a sliding contact does not satisfy) when
 * ||F||_2 <= tol_ccp ||v_f||_2 (the normalisation of the harness's default stopping metric,
 * natural_map_rel_acary), with tol_ccp = 0 meaning a tenth of the budget's tolerance: where no
 * contact slides the CCP and NCP solutions coincide, but the two natural maps of an iterate
 * differ by the small De Saxcé term, and at the budget's own tolerance the CCP test sometimes
 * fired an iteration before the harness's NCP test (a converged run reported as stalled).
 */
#ifndef NCP_ADMM_COMMON_H
#define NCP_ADMM_COMMON_H

#include "core/dop.h"
#include "solve/solver.h"
#include "solvers/common.h"
#include "solvers/dshift.h"

enum {
    NCP_ADMM_FORM_AUTO = NCP_DSHIFT_AUTO,
    NCP_ADMM_FORM_DENSE = NCP_DSHIFT_DENSE,
    NCP_ADMM_FORM_SADDLE = NCP_DSHIFT_SADDLE
};
enum { NCP_ADMM_RHO_BALANCED = 1, NCP_ADMM_RHO_NORMALIZED = 2 };

/* Parameters shared by admm and fadmm, with per-solver defaults for rho and adapt_every. Used
 * inside each solver's ncp_param_doc table (so the defaults live in that one table). */
#define NCP_ADMM_PARAM_DOCS(RHO_DEFAULT, ADAPT_DEFAULT)                                          \
    {"rho", RHO_DEFAULT,                                                                         \
     "initial step rho^0 (> 0), relative to the per-cone diagonal of N when precond = 1"},       \
    {"rho_b", 1e-9, "step of bilateral and compliant soft rows (eq. 44), relative as rho"},      \
    {"adapt_every", ADAPT_DEFAULT,                                                               \
     "n_s: residual balancing of rho every n_s iterations (0 = fixed rho), refactorising"},     \
    {"adapt_work", 0.0,                                                                          \
     "n_s grows to ceil(adapt_work F / S) when larger, F and S one factorisation's and one "     \
     "iteration's estimated flops (0 = n_s as given, the paper's text)"},                       \
    {"rho_policy", 1.0, "1 = balanced (eq. 42), 2 = balanced normalised (eq. 43)"},              \
    {"rho_sqrt", 1.0, "1 = rho *= sqrt(eta) (Chrono, OSQP), 0 = rho *= eta (the paper's text)"},  \
    {"max_rho_changes", 10.0,                                                                    \
     "rho is kept fixed after this many changes (ours: fixed-rho ADMM always converges)"},      \
    {"precond", 1.0, "1 = per-cone diagonal preconditioning (eq. 47), 0 = off"},                 \
    {"form", 0.0,                                                                                \
     "0 = auto (the form of lower estimated flops per iteration), 1 = dense N + Theta, "          \
     "2 = saddle point on (A, J)"},                                                              \
    {"k_factor", 0.0,                                                                            \
     "saddle form's K = A + J_E^T d_E^-1 J_E: 0 = sparse (ordered once per solve) when its "      \
     "estimated cost is lower, else dense; 1 = dense, 2 = sparse"},                               \
    {"tol_ccp", 0.0,                                                                             \
     "own stop: CCP natural map <= tol_ccp ||v_f||_2 (0 = budget tol / 10), status stalled"}

typedef struct ncp_admm_cfg {
    double rho0, rho_b, tol_ccp;
    double adapt_work; /* n_s's floor in factorisations' work (ncp_admm_interval) */
    int adapt_every, policy, rho_sqrt, max_changes, precond, form;
    int k_factor; /* saddle form's K: 0 auto, 1 dense, 2 sparse (NCP_ADMM_KFACTOR_*) */
} ncp_admm_cfg;

enum {
    NCP_ADMM_KFACTOR_AUTO = NCP_DSHIFT_K_AUTO,
    NCP_ADMM_KFACTOR_DENSE = NCP_DSHIFT_K_DENSE,
    NCP_ADMM_KFACTOR_SPARSE = NCP_DSHIFT_K_SPARSE
};

/* Reads and validates the shared parameters of solver d. */
int ncp_admm_read_params(const ncp_solver_desc *d, const ncp_params *ps, ncp_admm_cfg *cfg,
                         ncp_error *err);

/* Row kinds (one per row of lambda). */
enum { NCP_ADMM_ROW_CONE = 0, NCP_ADMM_ROW_UNI = 1, NCP_ADMM_ROW_FREE = 2, NCP_ADMM_ROW_FIXED = 3 };

/* The state both solvers share: row sets, preconditioner, the current step and its factors. */
typedef struct ncp_admm {
    const ncp_problem *p; /* the problem (the dense form's view with D: ls.p) */
    const char *name;    /* solver name, for messages */
    int m, nv;           /* nv: the saddle form's dofs, else 0 */
    double rho, rho_b;   /* current rho (Theta = Theta(rho)) */
    int policy, rho_sqrt, max_changes, changes; /* residual balancing (ncp_admm_balance) */
    int adapt_every;     /* the n_s used: the parameter, raised by adapt_work (ncp_admm_interval);
                            0 = fixed rho */
    double stop_thresh;  /* own test: ||F_ccp||_2 <= stop_thresh */
    unsigned char *kind; /* m: NCP_ADMM_ROW_* */
    double *w;           /* m: preconditioner weight (N averaged per cone, or 1) */
    double *sw;          /* m: sqrt(w) */
    double *comp;        /* m: compliance C_ii (soft rows with c > 0), else 0 */
    double *shift;       /* m: s_i (soft rows: k phi / c), else 0 */
    double *fixed;       /* m: the point of a one-point set (soft rows with c = 0) */
    double *theta;       /* m: current Theta_ii */
    double *d;           /* m: C + Theta, the diagonal factorised */
    ncp_dshift ls;       /* the gamma-update's system (N + Theta) g = ... (dshift.h); ls.op is D */
    char route[160];     /* the form and K chosen, with both estimates: for the row's note */
    int unsupported;     /* setup declined the problem (reason in err): report UNSUPPORTED */
} ncp_admm;

/* The iterations between two residual balancings (n_s) given one factorisation's estimated
 * flops F and one iteration's S: max(n_s, ceil(adapt_work F / S)), n_s = adapt_every (0 stays
 * 0: fixed rho; adapt_work 0: n_s as given). Tasora et al. 2021 §8.1 chooses n_s = 5 as "a good
 * tradeoff" with the back solve at "less than 1/10" of the factorisation's time (§5.2) and notes
 * that "the higher the performance for the back solve respect to the factorization, the higher
 * is the optimal n_s"; adapt_work = 0.5 keeps that tradeoff (5 iterations per 10 solves' worth
 * of factorisation, i.e. the work between two updates at least half a factorisation) where
 * the factorisation costs more than 10 iterations, so that refactorising adds at most twice an
 * iteration's cost per iteration at any size (OSQP, Stellato et al. 2020, sets its
 * adaptive_rho_interval the same way from measured times, adaptive_rho_fraction 0.4; operation
 * counts keep the iterates deterministic). */
int ncp_admm_interval(int adapt_every, double adapt_work, double F, double S);

/* Builds the row sets, preconditioner and form; does not factorise (call ncp_admm_factor). The
 * problem must have dual data; the saddle form also needs the primal data (dense A, or a sparse
 * A_sparse). A problem the solver cannot solve
 * at its size (the dense form above NCP_DENSE_FACTOR_MAX_ROWS rows) returns NCP_OK with
 * a->unsupported set and the reason in err: the caller reports NCP_STATUS_UNSUPPORTED. */
int ncp_admm_setup(ncp_admm *a, const ncp_solver_desc *self, const ncp_solve_in *in,
                   const ncp_admm_cfg *cfg, ncp_error *err);
void ncp_admm_free(ncp_admm *a);

/* Sets rho (Theta = Theta(rho)) and factorises the gamma-update's matrix for it. */
int ncp_admm_factor(ncp_admm *a, double rho, ncp_error *err);

/* The gamma-update (eq. 31 / 36 / 47a): solves (N + Theta) g = Theta z - y - r for g; in the
 * saddle form also returns the velocity v (nv), else v is untouched (may be NULL). */
int ncp_admm_solve(ncp_admm *a, const double *z, const double *y, double *g, double *v,
                   ncp_error *err);

/* The z-update (eq. 35 / 47b): z = Pi_Y(g + Theta^{-1} y). z may not alias g or y. */
void ncp_admm_zstep(const ncp_admm *a, const double *g, const double *y, double *z);

/* Start point. Warm (lambda0 given): Alg. 2, g = lambda0, y = -(N g + r) (minus the constraint
 * velocity at g), except y = 0 on free rows (bilateral and compliant soft): there y* = 0, and a
 * nonzero y with the tiny step rho_b would send z = g + y / (rho_b w) far away for an iteration.
 * Cold (lambda0 NULL): Alg. 1's y = 0 (and g = 0). Alg. 2 from g = 0 would be y = -r, with which
 * ADMM's first gamma-update returns g exactly ((N + Theta) g^1 = Theta g^0 - r - y^0 =
 * (N + Theta) g^0): from a solution that is the one-iteration stop, from zero a wasted step. */
void ncp_admm_start(ncp_admm *a, const double *lambda0, double *g, double *y);

/* ||F||_2 of the CCP natural map at g given u = N g + r (see the header comment). */
double ncp_admm_ccp_residual(const ncp_admm *a, const double *g, const double *u);

/* Residual balancing (§5.2, eqs. 41-43) on the preconditioned residuals r_p = g - z and
 * r_d = Theta (z - z_old) (scaled: sqrt(w) r_p, r_d / sqrt(w), as Chrono does; the paper leaves
 * the metric open). eta = r_p / r_d (eq. 42; eq. 43 divides each by its iterate's size), then
 * with rho_sqrt = 1 eta = sqrt(eta) (Chrono's rule; the paper prints none), then
 * clamped to [1/50, 50] and set to 1 inside the dead band [1/2, 2] (the paper's defaults).
 * Measured on the 180 random problems of tests/test_admm.c (admm, n_s = 5, no cap): without
 * the root rho oscillated with period 2 (x3.5 up, x3.5 down, every 5 iterations) and 17 did not
 * converge in 20000 iterations; with it, 1 did not (mean 180 iterations on the rest).
 * Safeguards (ours, not in the paper): the new rho is kept in [1e-6, 1e6] (a step far outside
 * makes N + Theta or K needlessly ill-conditioned), and after max_rho_changes changes rho stays
 * fixed, which restores ADMM's convergence guarantee (fixed-rho ADMM converges on any convex
 * CCP that has a solution); with both the 180 all converge, mean 80 iterations at n_s = 5
 * (adapt_work 0, the default), 95 with adapt_work 0.5, which raises n_s on their larger dense
 * problems (fewer factorisations, more iterations).
 * Returns the new rho (== a->rho when unchanged) and counts a change. */
double ncp_admm_balance(ncp_admm *a, const double *rp, const double *rd, const double *z,
                        const double *g, const double *y);

/* Reports iterate k (g, and v in the saddle form) to the harness; a non-finite iterate sets
 * *status = FAILED. Returns non-zero when the solver must stop. */
int ncp_admm_report(ncp_run *run, const ncp_admm *a, int k, const double *g, const double *v,
                    int *status);

/* Fills out after the last iteration k. */
void ncp_admm_finish(const ncp_admm *a, ncp_solve_out *out, const double *g, const double *v,
                     int k, int status);

#endif
