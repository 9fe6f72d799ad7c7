/* The per-block AL operator (al_operator.h). */
#include <math.h>
#include <string.h>

#include "core/cone.h"
#include "solvers/al_operator.h"

/* Jacobian of the strict operator (Lee et al. 2025 eq. 17) at x, normal first (differentiated
 * here): 0 when x_n <= 0; I inside the disk; otherwise lambda_t = mu x_n x_t / s gives
 *   d lambda_n / dx = (1, 0, 0),  d lambda_t / dx_n = mu x_t / s,
 *   d lambda_t / dx_t = (mu x_n / s) P,
 * P = I - t t^T, t = x_t / s. Non-symmetric (the ablations use LU). At the kinks (x_n = 0,
 * s = mu x_n) we take the element of the inner region's side listed first above. */
static void strict_jacobian(double mu, const double x[3], double G[9])
{
    memset(G, 0, 9 * sizeof(double));
    double xn = x[0], s = hypot(x[1], x[2]);
    if (xn <= 0.0) return;
    if (s <= mu * xn) {
        G[0] = G[4] = G[8] = 1.0;
        return;
    }
    double t1 = x[1] / s, t2 = x[2] / s, f = mu * xn / s;
    G[0] = 1.0;           /* (0,0) */
    G[1] = mu * t1;       /* (1,0) */
    G[2] = mu * t2;       /* (2,0) */
    G[4] = f * (1.0 - t1 * t1); /* (1,1) */
    G[5] = -f * t1 * t2;        /* (2,1) */
    G[7] = -f * t1 * t2;        /* (1,2) */
    G[8] = f * (1.0 - t2 * t2); /* (2,2) */
}

double ncp_al_block_T(const ncp_block *b, int prox, double beta, const double *x, double *out,
                      double *G, int want_psi)
{
    double psi = 0.0;
    switch (b->type) {
    case NCP_BILATERAL: /* lambda free: T = identity */
        out[0] = x[0];
        if (G) G[0] = 1.0;
        if (want_psi) psi = x[0] * x[0] / (2.0 * beta);
        break;
    case NCP_UNILATERAL: /* eq. 14 */
        out[0] = x[0] > 0.0 ? x[0] : 0.0;
        if (G) G[0] = x[0] > 0.0 ? 1.0 : 0.0;
        if (want_psi) psi = out[0] * out[0] / (2.0 * beta);
        break;
    case NCP_SOFT: {
        /* eq. 15 in problem.h's terms: lambda = -k phi - c z with beta z = beta(Jv + e) + u +
         * lambda and x = -beta(Jv + e) - u gives lambda = (c x - beta k phi) / (c + beta).
         * psi = (c x^2/2 - beta k phi x) / (beta (c + beta)) has grad psi = T / beta (the
         * paper's ||lambda||^2/(2 beta) of eq. 22 does not, for this row). */
        double den = b->c + beta;
        out[0] = (b->c * x[0] - beta * b->k * b->phi) / den;
        if (G) G[0] = b->c / den;
        if (want_psi)
            psi = (0.5 * b->c * x[0] * x[0] - beta * b->k * b->phi * x[0]) / (beta * den);
        break;
    }
    case NCP_CONTACT:
        if (prox) { /* eq. 21 with eq. 23; psi = ||Pi_K(x)||^2 / (2 beta) (eq. 22) */
            ncp_cone_project(b->mu, x, out);
            if (G) ncp_cone_project_jacobian(b->mu, x, G);
            if (want_psi)
                psi = (out[0] * out[0] + out[1] * out[1] + out[2] * out[2]) / (2.0 * beta);
        } else { /* eqs. 16-17 */
            ncp_cone_project_strict(b->mu, x, out);
            if (G) strict_jacobian(b->mu, x, G);
        }
        break;
    default:
        break;
    }
    return psi;
}
