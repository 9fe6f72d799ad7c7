/* The compliant contact model of Castro et al. 2023 (Castro, Permenter, Han, "An Unconstrained Convex
 * Formulation of Compliant Contact": SAP) written once, for the solver (solvers/sap.c) and for
 * the sap_momentum / sap_compl metrics (metrics/metrics.c).
 *
 * The problem SAP solves, in our variables. Our constraint velocity is u = J v + e (problem.h).
 * SAP's is u_hat = u + shift, and every block b has a convex cost l_b(u_hat) whose negative
 * gradient is the block's impulse gamma_b(u_hat) and whose Hessian is G_b (Castro et al. 2023 eqs. 23,
 * 35-37, 39). SAP minimises over v
 *     l_p(v) = 1/2 ||v - v*||_A^2 + sum_b l_b(u_hat_b(v)),    v* = A^{-1} b      (eq. 24)
 * whose optimality condition A (v - v*) = J^T gamma(v) is the momentum balance. Per block:
 *   CONTACT  y = -R^{-1} u_hat with R = diag(R_n, R_t, R_t) (normal first), gamma = P_F(y), the
 *            projection onto the friction cone F = K_mu in the R-norm (eq. 23, App. C eq. 27);
 *            l = 1/2 gamma^T R gamma. Equivalently (derived from eq. 19-21, Moreau):
 *                K_mu ∋ gamma  ⊥  u_hat + R gamma ∈ K*_mu                  (a CCP, not our NCP)
 *            R_n = max(beta^2/(4 pi^2) w, 1/(h k (h + tau_d)))                        (eq. 29)
 *            R_t = sigma w,   w = ||W_ii||_F / 3 (the RMS of the 3x3 diagonal block of D) (eq. 30)
 *            shift: SAP's stabilisation velocity v_hat_n = -phi0/(h + tau_d) (§V-A) replaces our
 *            bias e, so u_hat = J v - v_hat: shift = -e - v_hat (normal: phi0/(h+tau_d) - e_n).
 *   BILATERAL / UNILATERAL (not in the paper; Drake's SapHolonomicConstraint / SapLimitConstraint
 *            in the near-rigid regime, infinite stiffness): R = beta^2/(4 pi^2) D_rr, the row's
 *            own e is the stabilisation (shift 0); gamma = -u_hat/R, resp. max(0, -u_hat/R).
 *   SOFT     the row's own law lambda = -k phi - c u (problem.h) is already a convex cost:
 *            l = 1/2 c u^2 + k phi u, gamma = -(c u + k phi), G = c; exact, no regularisation.
 *
 * Relative to our NCP (K* ∋ u + Gamma(u) ⊥ lambda ∈ K): SAP drops the De Saxce term (its rigid
 * limit is the convex CCP relaxation, which in sliding lifts the contact, the "gliding" of §V-A)
 * and regularises every row (impulses follow a stiff spring-damper instead of a rigid
 * constraint). As beta -> 0 and sigma -> 0 with k = inf, tau_d = 0 and phi0 >= 0 (so that
 * v_hat = -e), u_hat -> u and SAP's solution tends to the CCP solution, which equals the NCP's
 * where no contact slides. Our NCP metrics on a SAP answer therefore measure the model gap
 * (regularisation + CCP relaxation), not SAP's convergence; sap_momentum measures that.
 *
 * Where the geometry is not known (p->contacts == NULL, h <= 0, or no primal e: FCLib imports),
 * a contact's stabilisation is the problem's own bias (shift 0: u_hat = u) and the compliant
 * branch of eq. 29 is off (rigid). Material parameters come from ncp_contact_info: stiffness
 * 0 (not given) or +inf = rigid, i.e. the near-rigid branch of eq. 29 (R_n from beta);
 * dissipation >= 0 (default 0). */
#ifndef NCP_SAP_MODEL_H
#define NCP_SAP_MODEL_H

#include "core/dop.h"
#include "core/problem.h"

/* The paper's defaults (§V-B: "In all of our simulations, we use beta = 1.0", sigma = 1e-3). The
 * sap_* metrics use these; sap's parameters default to them. */
#define NCP_SAP_BETA 1.0
#define NCP_SAP_SIGMA 1e-3

/* Regions of the R-norm projection (App. C). */
enum { NCP_SAP_STICK = 0, NCP_SAP_SLIDE = 1, NCP_SAP_OPEN = 2 };

typedef struct ncp_sap_model {
    int m;
    double *R;      /* m: diagonal regularisation per row (contact: R_n, R_t, R_t; soft: 0) */
    double *shift;  /* m: u_hat = u + shift */
    double *work;   /* 2 max(nv, m) scratch for ncp_sap_momentum_parts */
} ncp_sap_model;

/* Builds R and shift for problem p from the diagonal blocks of its Delassus operator op (core/
 * dop.h: the dense D, or a primal route without it). beta, sigma > 0. NCP_ERR_INPUT if a contact's stiffness is NaN or negative or its
 * dissipation is not a finite number >= 0 (the message names the contact). */
int ncp_sap_model_build(const ncp_problem *p, const ncp_dop *op, double beta, double sigma,
                        ncp_sap_model *sm, ncp_error *err);
void ncp_sap_model_free(ncp_sap_model *sm);

/* Projection of y onto F = {|g_t| <= mu g_n} in the norm of R = diag(Rn, Rt, Rt), normal
 * first (Castro et al. 2023 App. C eq. 27; Rn, Rt > 0). Regions tested stick (y in F), open (y_n <
 * -mu_hat y_r, the interior of the R-polar cone), else slide; the boundaries go to stick and
 * slide as App. D says. dg (may be NULL) receives dgamma/dy, 3x3 column-major. Returns the
 * region. out may alias y. */
int ncp_sap_project(double mu, double Rn, double Rt, const double y[3], double g[3],
                    double dg[9]);

/* Block bi at u_hat (its rows): fills gamma (its rows) and, if G is non-NULL, its Hessian
 * G = -dgamma/du_hat (column-major, size x size: 9 entries for a contact, 1 otherwise; symmetric
 * PSD). Returns l_b(u_hat). */
double ncp_sap_block(const ncp_problem *p, const ncp_sap_model *sm, int bi, const double *uhat,
                     double *gamma, double *G);

/* Every block: gamma (m) = gamma(u_hat); G9 (9 per block, may be NULL). Returns sum_b l_b. */
double ncp_sap_eval(const ncp_problem *p, const ncp_sap_model *sm, const double *uhat,
                    double *gamma, double *G9);

/* Castro et al. 2023 eq. 32 at an impulse lambda whose velocity is v = A^{-1}(b + J^T lambda), with gamma
 * the model's impulse there: the momentum residual is J^T (lambda - gamma), p = A v = b + J^T
 * lambda, j_c = J^T gamma, scaled by D_s = diag(A)^{-1/2} (the paper's diag(M)^{-1/2}; A = M for
 * rigid bodies). num = ||D_s J^T(lambda - gamma)||,
 * den = max(||D_s p||, ||D_s J^T gamma||, ||D_s J^T lambda||).
 * The paper evaluates eq. 32 at SAP's own (v, gamma(v)), where its j_c is THE contact impulse.
 * At another solver's lambda the two impulses differ (e.g. a resting rigid answer: u = 0, so the
 * compliant model's gamma is ~0 and p = A v ~0): we take the larger of the two, which keeps the
 * ratio in [0, 2] and equals eq. 32 when lambda = gamma.
 * A kept sparse (A_sparse) is the same primal form: its diagonal scales the same sums.
 * Without primal data it uses the canonical primal form of docs/design.md (A = I, J = L^T with
 * D = L L^T, b = 0, so p = J^T lambda): num = ||lambda - gamma||_D, den = max(||lambda||_D,
 * ||gamma||_D), with ||x||_D = sqrt(x^T D x) (D = p->D). Uses sm->work. */
void ncp_sap_momentum_parts(const ncp_problem *p, ncp_sap_model *sm, const double *lambda,
                            const double *gamma, double *num, double *den);

/* Castro et al. 2023 eq. 33 at lambda: (1/n_c) sum_contacts |g_i . lambda_i| / l_p with
 * g_i = u_hat_i + R_i lambda_i (eq. 19 with sigma = lambda) and
 * l_p = 1/2 lambda^T D lambda + 1/2 sum_rows R_r lambda_r^2 (soft rows: only the first term).
 * u = D lambda + v_f is given. 0 when both are 0 (no impulse); without contacts 0. */
double ncp_sap_compl(const ncp_problem *p, const ncp_sap_model *sm, const double *lambda,
                     const double *u, const double *vf);

#endif
