/* Solver-independent metrics (DESIGN.md §6). Computed from lambda only (and the problem), never
 * from what a solver reports. One function fills every metric so that per-iteration traces and
 * final rows use the same code.
 *
 * Per-block conventions for the non-contact rows (documented in README.md):
 *   bilateral:  natural map F = u;           ncp_dual = |u|;      ncp_primal = 0; compl = 0
 *   unilateral: F = lambda - max(0, lambda - u) = min(lambda, u);
 *               ncp_primal = max(0,-lambda); ncp_dual = max(0,-u); compl = |lambda u|
 *   soft:       F = lambda + k phi + c u (residual of its law); ncp_dual = |F|; primal 0
 *   contact:    F = lambda - Pi_K(lambda - (u + Gamma(u))) (seed 004 eq. 163)
 */
#ifndef NCP_METRICS_H
#define NCP_METRICS_H

#include "problem.h"

typedef struct ncp_metrics {
    double al_residual;             /* seed 000 §VII (strict operator, beta = 1, u = -lambda):
                                       || [lambda_i - T_i(lambda_i - (J_i v + e_i))] ||_2 / ncontacts
                                       (contact rows only, as in the paper; see al_residual_other) */
    double al_residual_other;       /* the same over non-contact rows (their own T), not divided */
    double natural_map_abs;         /* ||F||_2 */
    double natural_map_inf;         /* ||F||_inf (seed 004 eq. 176) */
    double natural_map_rel_acary;   /* ||F||_2 / ||v_f||_2          (Acary et al. 2018) */
    double natural_map_rel_siconos; /* ||F||_2 / max(||v_f||, ||lambda||, ||u||) (Siconos >= 4.4) */
    double natural_map_rel_fclib;   /* ||F||_2 / (1 + sqrt(||v_f||_2))  (FCLib merit) */
    double ncp_primal;              /* seed 004 eq. 156, L_inf */
    double ncp_dual;                /* seed 004 eq. 174, L_inf */
    double ncp_compl;               /* seed 004 eq. 175, L_inf */
    double penetration;             /* max_i max(0, -(phi_i + h u_n,i)); 0 if no geometry */
    /* Seed 001 (SAP) errors of lambda w.r.t. SAP's compliant model (src/sap_model.h) with the
     * paper's beta = 1, sigma = 1e-3 and the captured stiffness/dissipation; gamma = the model's
     * impulse at u = D lambda + v_f (see ncp_sap_momentum_parts, ncp_sap_compl): */
    double sap_momentum;            /* eq. 32: ||D_s J^T(lambda - gamma)|| / max(||D_s p||,
                                       ||D_s J^T gamma||, ||D_s J^T lambda||) (the last term is
                                       ours: see ncp_sap_momentum_parts), D_s = diag(A)^{-1/2},
                                       p = b + J^T lambda;
                                       without primal data in the form A = I, J = L^T (D = L L^T):
                                       ||lambda - gamma||_D / max(||lambda||_D, ||gamma||_D) */
    double sap_compl;               /* eq. 33: mean_i |(u_hat_i + R_i lambda_i) . lambda_i| / l_p */
} ncp_metrics;

/* Names of the metric columns, in the order of ncp_metrics_values(). */
int ncp_metrics_count(void);
const char *ncp_metrics_name(int i);
void ncp_metrics_values(const ncp_metrics *mt, double *out);
/* Index of a metric by name, or -1. */
int ncp_metrics_index(const char *name);

/* Workspace so that per-iteration evaluation does not allocate. */
typedef struct ncp_metrics_ws ncp_metrics_ws;
int ncp_metrics_ws_create(const ncp_problem *p, ncp_metrics_ws **ws, ncp_error *err);
void ncp_metrics_ws_free(ncp_metrics_ws *ws);

/* Evaluates every metric at lambda. Needs the dual data (D, v_f); al_residual additionally
 * uses the primal data when present (v = A^{-1}(b + J^T lambda), u = J v + e) and falls back
 * to u = D lambda + v_f otherwise (mathematically identical). */
int ncp_metrics_eval(ncp_metrics_ws *ws, const double *lambda, ncp_metrics *out, ncp_error *err);

#endif
