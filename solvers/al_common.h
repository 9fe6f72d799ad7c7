/* The augmented-Lagrangian machinery shared by `canal`, `al-trdogleg` and `al-dampedsn`
 * (Lee et al. 2025 §IV-§V, Alg. 1, Table II), private to those files (solvers/al.h is the
 * family's public side). The three differ only in the surrogate problem of one AL loop and in how
 * it is solved (their ncp_al_config); everything else is here:
 *
 *   - the per-block closed-form operators T of eqs. 14-17 (strict) / 21 (proximal), their
 *     derivatives (eq. 23 and the strict-operator Jacobian) and the potentials psi of h (eq. 22);
 *   - r(v) of eq. 19/21 and the linear systems with dr/dv = A + beta sum J_i^T G_i J_i (eq. 24),
 *     assembled sparsely and factorised per connected component, or for canal on large sparse
 *     problems by a fixed-pattern sparse Cholesky analysed once per solve (see al_common.c);
 *   - the outer AL loop of Alg. 1: cascade e~ (eq. 21), z and u updates (eq. 12), the beta
 *     schedule (eq. 27), the stopping tests and the reporting to the harness.
 * Dependencies go one way: each solver file uses this core; the core knows the solvers only
 * through the ncp_al_config it is handed.
 *
 * Conventions (normal FIRST, docs/design.md): the paper's slack z is J v; ours includes the bias,
 * z = J v + e, so that z is the constraint velocity u of problem.h at a fixed point (the paper's
 * contact e has only a normal entry; captured problems may carry tangential e, which this
 * reading treats as part of the velocity, as metrics/ does). Because z is defined from lambda,
 * eq. 12 gives u^{l+1} = -lambda^{l+1} exactly, so the multiplier is never stored:
 * x_i = lambda^l_i - beta (J_i v + e~_i) is the operator argument of eq. 18/21.
 */
#ifndef NCP_AL_COMMON_H
#define NCP_AL_COMMON_H

#include "solve/solver.h"
#include "solvers/al.h"

/* ---- parameter values of one run ---- */

struct ncp_al_settings {
    double beta0;       /* absolute initial penalty (paper: 1e4); 0 = scale-free: beta0_rel / mean
                           diag(J A^-1 J^T) (al_common.c, problem_scale) */
    double beta0_rel;   /* dimensionless beta0 D of the scale-free rule */
    double beta_max_ratio; /* eq. 27 cap beta_max = beta_max_ratio beta0 */
    double kappa;       /* eq. 27 growth factor (> 1) */
    double zeta;        /* Alg. 1 line 19: raise beta when res > zeta res_prev */
    double theta_al;    /* Alg. 1 line 16 on ||J v - z|| (0 = off) */
    double theta_n;     /* Alg. 1 line 8, scale-free: theta_N = theta_n x the problem's momentum
                           scale (problem_scale) */
    double theta_n_abs; /* Alg. 1 line 8 literal: an absolute theta_N (> 0 replaces theta_n) */
    double inner_tol;   /* relative test ||r|| <= inner_tol ||J^T (lambda - lambda^l)|| (0 = off) */
    int inner_max;      /* inner steps per AL loop */
    double stall_tol;   /* own stop: max change of lambda <= stall_tol max(1, |lambda|_inf) */
    int cold_v;         /* cold start (no v0, no lambda0): 0 v^0 = 0, 1 v^0 = A^-1 b */
    int newton_factor;  /* canal: Newton system 0 auto, 1 dense per component, 2 sparse
                           (al_common.c); the ablations' non-symmetric systems are always dense */
    /* inner-solver specific (each solver reads, through its read_params, what it documents) */
    double ls_tol;      /* canal: rtsafe tolerance on |phi'| relative to |phi'(0)| */
    int ls_max;         /* canal: rtsafe iterations; dampedsn: step halvings */
    int ls_abort;       /* dampedsn: 1 = a line search without Armijo decrease ends the loop */
    double armijo;      /* dampedsn: sufficient decrease */
    double dsn_rho;     /* dampedsn: descent test grad^T d <= -rho |d|^p */
    double dsn_p;
    double tr_eta;      /* trdogleg: acceptance ratio */
};

/* ---- workspace ---- */

typedef struct ncp_al_lin ncp_al_lin; /* sparse assembly + per-component factorisation */

struct ncp_al_ws {
    const ncp_problem *p;
    const ncp_al_config *cfg; /* the solver being run */
    ncp_al_settings set;      /* its parameter values */
    int n, m;
    double beta;
    double theta_n;     /* the absolute Newton threshold theta_N of this run (Alg. 1 line 8) */
    double *lam_prev;   /* lambda^l (m) */
    double *eshift;     /* e~^l (m) */
    double *v;          /* current velocity (n) */
    /* filled by ncp_al_eval at w->v */
    double *x;          /* operator argument (m) */
    double *T;          /* lambda = T(x) (m) */
    double *G;          /* 9 per block: dT/dx (column-major 3x3; scalar blocks use G[0]) */
    double *Av;         /* A v (n) */
    double *jtT;        /* J^T T (n) */
    double *jtl;        /* J^T lambda^l (n), set by the outer loop; n more entries of scratch */
    double *r;          /* A v - b - J^T T (n) */
    double rnorm;       /* ||r|| */
    double rtol;        /* the inner stopping threshold at this point (see ncp_al_eval) */
    double rfloor;      /* round-off level of r at this point (see ncp_al_eval) */
    double lam_floor;   /* round-off level of lambda = T(x): 64 eps ||terms of x|| (active rows) */
    /* scratch for the inner solvers */
    double *d, *g, *t1, *t2, *vt; /* n each */
    double *w, *xs;     /* m each */
    ncp_al_lin *lin;
    ncp_al_stats *st;   /* never NULL inside (a local one when the caller gave none) */
    ncp_al_step_fn on_step; /* the caller's inner-step observer, or NULL */
    void *on_step_ctx;
    int al_iter;
};


/* Evaluates x, T, r at v (w->v or another vector) into w (x, T, Av, r, rnorm, rtol, rfloor)
 * and, if deriv, G. The inner solve of an AL loop is done (ncp_al_inner_done) when
 *   rnorm <= rtol = max(theta_N, inner_tol ||J^T (T - lambda^l)||):
 * theta_N is Alg. 1 line 8's absolute threshold (w->theta_n, fixed for the run); the relative
 * term (off by default) is an inexact proximal-point rule in the spirit of Rockafellar 1976,
 * criterion (B), that tightens as the AL iteration converges; or when r is at its round-off
 * level and the last step no longer halved it:
 *   rnorm <= rfloor = 4 eps (||A v|| + ||b|| + ||J^T T|| + ||J^T |x terms|||),
 * |x terms|_i = |lambda^l_i| + beta (|J_i v| + |e~_i|) on rows where T is active (x is computed
 * with that absolute error, which grows with beta). */
void ncp_al_eval(ncp_al_ws *w, const double *v, int deriv);
/* The inner stopping test at the last evaluation: rnorm <= rtol, or rnorm <= rfloor and
 * rnorm > prev_rnorm / 2 (prev_rnorm: ||r|| before the last step; INFINITY before the first). */
int ncp_al_inner_done(const ncp_al_ws *w, double prev_rnorm);
/* out = A y: densely, or over A's non-zeros on canal's sparse route (al_common.c). */
void ncp_al_mass_apply(const ncp_al_ws *w, const double *y, double *out);
/* out = (A + beta sum J^T G J) y, or its transpose (G from the last ncp_al_eval with deriv). */
void ncp_al_jac_apply(ncp_al_ws *w, int trans, const double *y, double *out);
/* Solves (A + beta sum J_i^T G_i J_i) y = rhs in place (G from the last ncp_al_eval with deriv):
 * Cholesky per component when spd, LU otherwise. NCP_ERR_NUMERIC if singular / not SPD. */
int ncp_al_lin_solve(ncp_al_ws *w, int spd, double *rhs, ncp_error *err);

/* Inner solver of one AL loop (ncp_al_config.inner): from w->v, solve r(v) = 0 for the current
 * lam_prev, eshift, beta; on return w->v is the new velocity and w->T = T(x(w->v)) is
 * lambda^{l+1} (ncp_al_eval at w->v must be the last evaluation). *ok = 1 if ||r|| <= rtol was
 * reached. Counts go to w->st (each step to inner_iterations; the AL loop derives
 * inner_max_per_loop from them). Returns an error code only for allocation / internal failures
 * (NCP_ERR_NUMERIC: a singular system, which ends the run as FAILED). */
typedef int (*ncp_al_inner_fn)(ncp_al_ws *w, int *ok, ncp_error *err);

/* The documentation rows (ncp_param_doc) of the parameters every AL solver has, one text for
 * the three files; loop names the inner loop ("Newton loop"), steps its steps ("Newton steps"). */
#define NCP_AL_DOC_COMMON(loop, steps)                                                         \
    {"beta0", 0.0,                                                                             \
     "initial penalty beta, absolute (paper: 1e4); 0 = beta0_rel / mean diag(J A^-1 J^T)"},    \
    {"beta0_rel", 1e4,                                                                         \
     "scale-free initial penalty: beta0 mean diag(J A^-1 J^T) when beta0 = 0, > 0"},           \
    {"beta_max_ratio", 1e2, "upper bound of beta (eq. 27) as a multiple of beta0, >= 1"},      \
    {"kappa", 3.0,                                                                             \
     "beta <- min(kappa beta, beta_max) when the AL residual stalls (eq. 27), > 1"},           \
    {"zeta", 0.5,                                                                              \
     "raise beta when ||Jv - z|| > zeta x its previous value (Alg. 1 line 19), >= 0"},         \
    {"theta_al", 0.0, "own stop when ||Jv - z|| < theta_al (Alg. 1 line 16); 0 = off"},        \
    {"theta_n", 1e-10,                                                                         \
     loop " stops when ||r|| < theta_n x (||b|| + ||J^T lambda0|| + ||J^T (|e| / diag D)||) "  \
          "(Alg. 1 line 8, scale-free), >= 0"},                                                \
    {"theta_n_abs", 0.0, "absolute theta_N of Alg. 1 line 8 (> 0 replaces theta_n)"},          \
    {"inner_tol", 0.0,                                                                         \
     loop " also stops when ||r|| <= inner_tol ||J^T (lambda - lambda^l)|| (0 = off)"},        \
    {"inner_max", 100.0, steps " per AL loop (integer >= 1)"},                                 \
    {"stall_tol", 1e-15,                                                                       \
     "stop (STALLED) when an AL loop changes lambda by <= stall_tol * max(1, |lambda|_inf)"},  \
    {"cold_v", 0.0, "cold start (no v0, no lambda0): 0 = v^0 = 0, 1 = v^0 = A^-1 b"}

/* A member's solve function (solver.h): the common parameters (NCP_AL_DOC_COMMON) and then
 * cfg->read_params's from in->params, validated against cfg->desc's table, and the AL loop of
 * Alg. 1 with cfg->inner under the harness's budget. */
int ncp_al_solve(const ncp_al_config *cfg, const ncp_solve_in *in, ncp_solve_out *out,
                 ncp_run *run, ncp_error *err);

/* D's diagonal d (m entries) for the scale rules (al_common.c problem_scale): the problem's D
 * where it has one, else J_i A^-1 J_i^T from the Delassus operator's diagonal blocks on its
 * sparse route (core/dop.h: from the blocks of A each constraint block touches, O(nnz(J) + A's
 * block factors), no m x n work). NCP_ERR_INPUT when the operator cannot factor A's blocks
 * densely (a connected block beyond NCP_SPARSE_DENSE_BYTES: problem_scale then solves row by
 * row), NCP_ERR_NUMERIC when A is not SPD, NCP_ERR_NOMEM. */
int ncp_al_delassus_diag(const ncp_problem *p, double *d, ncp_error *err);

/* Hands one inner step (1-based `step` of the current AL loop, from v_before to v_after with
 * length alpha; r_before = ||r(v_before)||) to the caller's observer, if there is one. */
void ncp_al_notify_step(const ncp_al_ws *w, int step, const double *v_before,
                        const double *v_after, double alpha, double r_before);

#endif
