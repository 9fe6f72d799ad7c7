/* Solver-independent metrics (docs/metrics.md). Computed from lambda only (and the problem), never
 * from what a solver reports. One function fills every metric so that per-iteration traces and
 * final rows use the same code.
 *
 * Per-block conventions for the non-contact rows (documented in docs/metrics.md):
 *   bilateral:  natural map F = u;           ncp_dual = |u|;      ncp_primal = 0; compl = 0
 *   unilateral: F = lambda - max(0, lambda - u) = min(lambda, u);
 *               ncp_primal = max(0,-lambda); ncp_dual = max(0,-u); compl = |lambda u|
 *   soft:       F = lambda + k phi + c u (residual of its law); ncp_dual = |F|; primal 0
 *   contact:    F = lambda - Pi_K(lambda - (u + Gamma(u))) (NCP report 2025 eq. 163)
 */
#ifndef NCP_METRICS_H
#define NCP_METRICS_H

#include "core/problem.h"

/* The metric columns, in output order: the one list from which the struct, the names, the
 * values, the one-line docs of `ncpbench list metrics` and the count are generated (an X-macro,
 * as MuJoCo's mjxmacro.h). Each entry is X(column, one-line doc). Meanings in full:
 *   al_residual             Lee et al. 2025 §VII (strict operator, beta = 1, u = -lambda):
 *                           || [lambda_i - T_i(lambda_i - (J_i v + e_i))] ||_2 / ncontacts
 *                           (contact rows only, as in the paper; see al_residual_other)
 *   al_residual_other       the same over non-contact rows (their own T), not divided
 *   natural_map_abs         ||F||_2
 *   natural_map_inf         ||F||_inf (NCP report 2025 eq. 176)
 *   natural_map_rel_acary   ||F||_2 / ||v_f||_2 (Acary et al. 2018)
 *   natural_map_rel_siconos ||F||_2 / max(||v_f||, ||lambda||, ||u||) (Siconos >= 4.4)
 *   natural_map_rel_fclib   ||F||_2 / (1 + sqrt(||v_f||_2)) (FCLib merit)
 *   ncp_primal              NCP report 2025 eq. 156, L_inf
 *   ncp_dual                NCP report 2025 eq. 174, L_inf
 *   ncp_compl               NCP report 2025 eq. 175, L_inf
 *   penetration             max_i max(0, -(phi_i + h u_n,i)); 0 if no geometry
 *   sap_momentum            Castro et al. 2023 eq. 32 in SAP's compliant model
 *                           (core/sap_model.h, the paper's beta = 1, sigma = 1e-3, the
 *                           captured stiffness and dissipation; gamma = the model's impulse at
 *                           u = D lambda + v_f): ||D_s J^T(lambda - gamma)|| / max(||D_s p||,
 *                           ||D_s J^T gamma||, ||D_s J^T lambda||) (the last term is ours: see
 *                           ncp_sap_momentum_parts), D_s = diag(A)^{-1/2} (A dense or kept
 *                           sparse), p = b + J^T lambda;
 *                           without primal data in the form A = I, J = L^T (D = L L^T):
 *                           ||lambda - gamma||_D / max(||lambda||_D, ||gamma||_D)
 *   sap_compl               Castro et al. 2023 eq. 33:
 *                           mean_i |(u_hat_i + R_i lambda_i) . lambda_i| / l_p
 *   active_contacts         load-bearing contact blocks (issue 11): the number of contacts with
 *                           lambda_n,i > NCP_ACTIVE_REL max_k lambda_n,k (0 when no lambda_n is
 *                           positive). Relative, so invariant under lambda -> a lambda (units,
 *                           impulse or force); 1e-3: a contact below it moves the body by less
 *                           than 0.1 % of what the most loaded one does, and it stays far above
 *                           the 1e-8 relative accuracy the benchmarks solve to. A count, not a
 *                           residual (not meant as a stopping metric).
 *   boxlcp_residual         ||F_box||_2 / ||v_f||_2: the natural map of the box-friction LCP that
 *                           Bullet, DART and ODE solve instead of the Coulomb NCP (the engine
 *                           peers' own model, solvers/engine_peers.h), at lambda, normalised as
 *                           natural_map_rel_acary. Contact block: normal row
 *                           min(lambda_n, u_n); each friction row j the box natural map
 *                           lambda_j - clamp(lambda_j - u_j, -mu |lambda_n|, mu |lambda_n|) (the
 *                           bound follows the normal impulse, ODE's findex rule; no De Saxcé
 *                           shift, no disk: the two directions are boxed apart); other rows as in
 *                           the natural map. Set beside natural_map_rel_acary it separates the
 *                           formulation gap (the box model's answer is not a Coulomb answer)
 *                           from the solver's error on its own model. */
#define NCP_METRIC_COLUMNS(X) \
    X(al_residual, "Lee et al. 2025 §VII: ||lambda - T_strict(lambda - u)|| over contact rows / #contacts") \
    X(al_residual_other, "same over non-contact rows (their own T), not divided") \
    X(natural_map_abs, "||F||_2, F = lambda - Pi_K(lambda - (u + Gamma(u))) (natural map)") \
    X(natural_map_inf, "||F||_inf (NCP report 2025 eq. 176)") \
    X(natural_map_rel_acary, "||F||_2 / ||v_f||_2 (Acary et al. 2018)") \
    X(natural_map_rel_siconos, "||F||_2 / max(||v_f||, ||lambda||, ||u||) (Siconos >= 4.4)") \
    X(natural_map_rel_fclib, "||F||_2 / (1 + sqrt(||v_f||_2)) (FCLib merit normalisation)") \
    X(ncp_primal, "NCP report 2025 eq. 156: L_inf cone infeasibility of lambda") \
    X(ncp_dual, "NCP report 2025 eq. 174: L_inf dual-cone infeasibility of u + Gamma(u)") \
    X(ncp_compl, "NCP report 2025 eq. 175: L_inf per-block lambda^T (u + Gamma(u))") \
    X(penetration, "max over contacts of max(0, -(phi + h u_n)) after the step") \
    X(sap_momentum, "Castro et al. 2023 eq. 32: SAP momentum error of lambda in SAP's compliant model (beta 1, sigma 1e-3)") \
    X(sap_compl, "Castro et al. 2023 eq. 33: SAP complementarity error mean |g_i . lambda_i| / l_p") \
    X(active_contacts, "contacts carrying load: #{i : lambda_n,i > 1e-3 max_k lambda_n,k} (a count, not a residual)") \
    X(boxlcp_residual, "||F_box|| / ||v_f||: natural map of the box-friction LCP (Bullet/DART/ODE's model: friction rows in +-mu |lambda_n|), the engine peers' own-model residual")

/* Threshold of active_contacts, relative to the case's largest normal impulse. */
#define NCP_ACTIVE_REL 1e-3

typedef struct ncp_metrics {
#define NCP_METRIC_FIELD(name, doc) double name;
    NCP_METRIC_COLUMNS(NCP_METRIC_FIELD)
#undef NCP_METRIC_FIELD
} ncp_metrics;

/* Column indices (NCP_METRIC_al_residual, ...) and their number, NCP_NMETRICS: size buffers of
 * metric values with it. */
enum {
#define NCP_METRIC_ENUM(name, doc) NCP_METRIC_##name,
    NCP_METRIC_COLUMNS(NCP_METRIC_ENUM)
#undef NCP_METRIC_ENUM
    NCP_NMETRICS
};

/* Names of the metric columns, in the order of ncp_metrics_values(). */
int ncp_metrics_count(void); /* NCP_NMETRICS */
const char *ncp_metrics_name(int i);
/* Its one-line description (`ncpbench list metrics`). */
const char *ncp_metrics_doc(int i);
/* out: NCP_NMETRICS values in column order. */
void ncp_metrics_values(const ncp_metrics *mt, double *out);
/* One metric by column index (NaN if out of range). */
double ncp_metrics_at(const ncp_metrics *mt, int i);
/* Index of a metric by name, or -1. */
int ncp_metrics_index(const char *name);

/* Workspace so that per-iteration evaluation does not allocate. */
typedef struct ncp_metrics_ws ncp_metrics_ws;
int ncp_metrics_ws_create(const ncp_problem *p, ncp_metrics_ws **ws, ncp_error *err);
void ncp_metrics_ws_free(ncp_metrics_ws *ws);

/* Evaluates every metric at lambda. D is applied through the workspace's operator (core/dop.h:
 * the problem's D when it has one, else its primal route, no D built); al_residual additionally
 * uses the primal data when present (v = A^{-1}(b + J^T lambda), u = J v + e) and falls back
 * to u = D lambda + v_f otherwise (mathematically identical). */
int ncp_metrics_eval(ncp_metrics_ws *ws, const double *lambda, ncp_metrics *out, ncp_error *err);

/* u = D lambda + v_f (m entries) for an answer: ncp_dense_madd on the problem's D when it has
 * one and the operator is not on its sparse route (the reference BLAS's bits), else through the
 * operator (the dense D of a large problem is neither streamed nor built); u = v_f at
 * lambda = 0 without a product. */
void ncp_metrics_velocity(ncp_metrics_ws *ws, const double *lambda, double *u);

/* One metric column (index idx) at lambda, the same bits as ncp_metrics_eval gives for it; the
 * natural-map columns cost only u and the natural map (the harness's stopping test after every
 * iterate), any other column a full evaluation. NaN for a non-finite iterate.
 * bound: the evaluation may end as soon as the value is proved to be above it (+INFINITY: never).
 * The natural map's sum of squares (and its max) only grows as blocks are added, in floating
 * point too (adding a non-negative number never decreases a sum under round-to-nearest; sqrt and
 * the division by a fixed norm are monotone), so a partial value above `bound` proves the whole
 * one is: *value is then that partial value (a lower bound, > bound), never a value <= bound
 * that is not exact. Columns whose denominator depends on the iterate (natural_map_rel_siconos)
 * are always evaluated whole. The stopping test "value <= tol" thus stays exact while an iterate
 * far from the tolerance costs a few blocks instead of all of them. */
int ncp_metrics_eval_stop(ncp_metrics_ws *ws, const double *lambda, int idx, double bound,
                          double *value, ncp_error *err);

#endif
