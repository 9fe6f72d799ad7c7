/* Friction-cone operators, normal FIRST: x = (x_n, x_t1, x_t2). The one place where cone
 * projections live; solvers and metrics call these. Formulas: Lee et al. 2025 §III-C (eqs. 16-17),
 * NCP report 2025 eqs. 146-151 (translated from normal-last). */
#ifndef NCP_CONE_H
#define NCP_CONE_H

/* Euclidean projection onto K_mu = {||x_t|| <= mu x_n} (the "proximal" operator, Lee et al. 2025
 * eq. 16; NCP report 2025 eq. 150). Cases tested in the order stick, open, slip; mu = 0 gives
 * (max(x_n, 0), 0, 0). out may alias x. */
void ncp_cone_project(double mu, const double x[3], double out[3]);

/* Euclidean projection onto the dual cone K*_mu = {mu ||x_t|| <= x_n} (NCP report 2025 eq. 151).
 * mu = 0: K*_0 is the half-space x_n >= 0, so the result is (max(x_n, 0), x_t). */
void ncp_cone_project_dual(double mu, const double x[3], double out[3]);

/* Strict operator (Lee et al. 2025 eq. 17): clamp the normal to >= 0 first, then clamp the tangent
 * radially to the disk of radius mu * lambda_n. */
void ncp_cone_project_strict(double mu, const double x[3], double out[3]);

/* Generalised Jacobian (3x3, column-major) of ncp_cone_project at x (Lee et al. 2025 eq. 23, normal
 * first): 0 in the open region, I when stick, the symmetric slip matrix otherwise. */
void ncp_cone_project_jacobian(double mu, const double x[3], double G[9]);

/* De Saxcé term Gamma(u) = (mu ||u_t||, 0, 0) added to u: out = u + Gamma(u). */
void ncp_desaxce(double mu, const double u[3], double out[3]);

/* Is x in K_mu up to tol (absolute)? Returns the violation max(0, ||x_t|| - mu x_n, -x_n). */
double ncp_cone_violation(double mu, const double x[3]);

#endif
