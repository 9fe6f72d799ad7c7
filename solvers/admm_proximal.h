/* The proximal ADMM of the NCP report 2025 (Alg. 6, §VI-F, after Carpentier et al.), shared by its
 * four configurations of Table I: admm-ccp, admm-ncp-fp, admm-ncp-la, admm-ncp-sa
 * (solvers/admm_ccp.c, admm_ncp_fp.c, admm_ncp_la.c, admm_ncp_sa.c).
 *
 * The paper says the configurations "are so similar that they can share a common
 * implementation": the NCP adds the De Saxcé estimate (eq. 167a) and the proximal term eta; the
 * three NCP variants differ only in the penalty rule. So the algorithm lives once, in
 * solvers/admm_proximal.c (its header comment documents it); each configuration's file holds its
 * parameter table, reads and validates its parameters into ncp_admm_prox_opts and calls
 * ncp_admm_prox_solve. This is the pgs / common.c split, for the same reason.
 */
#ifndef NCP_SOLVERS_ADMM_PROXIMAL_H
#define NCP_SOLVERS_ADMM_PROXIMAL_H

#include "solve/solver.h"

/* Penalty rule (NCP report 2025 §VI-F "Penalty Adaptation"). */
typedef enum ncp_admm_prox_rule {
    NCP_ADMM_PROX_FIXED = 0,   /* FP: rho = rho0 throughout */
    NCP_ADMM_PROX_LINEAR = 1,  /* LA, eq. 171: rho *= tau_inc or /= tau_dec by residual balance */
    NCP_ADMM_PROX_SPECTRAL = 2 /* SA, eq. 172: rho0 = sqrt(L m) kappa^p0, rho *= kappa^(+-alpha) */
} ncp_admm_prox_rule;

typedef struct ncp_admm_prox_opts {
    int desaxce;          /* 1: NCP, s = Gamma(z) (eq. 167a); 0: CCP, s = 0 */
    double eta;           /* proximal parameter (eq. 166); 0 for the CCP */
    ncp_admm_prox_rule rule;
    double rho0;          /* FIXED, LINEAR: (initial) penalty */
    double mu_thr;        /* LINEAR, SPECTRAL: threshold on r_p / r_d and r_d / r_p */
    double tau_inc;       /* LINEAR */
    double tau_dec;       /* LINEAR */
    double p0;            /* SPECTRAL: initialisation power */
    double alpha;         /* SPECTRAL: adaptation power */
    double relax;         /* over-relaxation of x (Alg. 6 line 7), in (0, 2); 1 = none */
    double eps_p, eps_d, eps_cp; /* own stopping rule on the residuals of eq. 170 */
    int form, k_factor;   /* the x-update's linear algebra (solvers/dshift.h: NCP_DSHIFT_*) */
} ncp_admm_prox_opts;

/* Parameter-table rows every configuration documents (the defaults are written only here). The
 * paper gives no tolerances; 1e-12 lets the harness's tolerance decide on problems of ordinary
 * scale, and the rule then only ends runs that have stalled at rounding level. */
#define NCP_ADMM_PROX_COMMON_PARAMS                                                                \
    {"relax", 1.0,                                                                                 \
     "over-relaxation x <- relax x + (1 - relax) y_prev (Alg. 6 line 7; the paper gives no "       \
     "value), in (0, 2); 1 = none"},                                                               \
    {"eps_p", 1e-12, "own stop when, together with eps_d and eps_cp, the primal residual "         \
                     "||x - y||_inf (eq. 170a) <= eps_p"},                                         \
    {"eps_d", 1e-12, "own stop: dual residual ||rho dy + eta dx||_inf (eq. 170b) <= eps_d"},       \
    {"eps_cp", 1e-12, "own stop: complementarity max_k |x_k . z_k| (eq. 170c) <= eps_cp"},      \
    {"form", 0.0,                                                                                  \
     "x-update's system: 0 = auto (lowest estimated flops per iteration), 1 = dense Cholesky of "  \
     "D + (rho + eta) I, 2 = saddle point on (A, J), 3 = Woodbury on a low-rank D"},              \
    {"k_factor", 0.0,                                                                              \
     "saddle form's K = A + J^T J / (rho + eta): 0 = sparse when its estimated cost is lower, "    \
     "1 = dense, 2 = sparse"}

/* Reads relax, eps_p, eps_d, eps_cp, form, k_factor (documented by NCP_ADMM_PROX_COMMON_PARAMS
 * in d's table). */
int ncp_admm_prox_common_params(const ncp_solver_desc *d, const ncp_params *ps,
                              ncp_admm_prox_opts *o, ncp_error *err);

/* Runs Alg. 6 with options o (already validated) for solver d (named in messages). Needs the
 * dual data. Protocol of solver.h: reports y (the iterate in K) after every iteration. */
int ncp_admm_prox_solve(const ncp_solver_desc *d, const ncp_admm_prox_opts *o,
                      const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,
                      ncp_error *err);

#endif
