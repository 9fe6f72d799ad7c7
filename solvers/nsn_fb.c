/* nsn-fb — semismooth Newton on the Fischer–Burmeister function of the second-order cones.
 *
 * Source: Acary, Brémond, Huber, "On solving contact problems with Coulomb friction:
 * formulations and numerical comparisons" (2018, INRIA RR-9118), NSN-FB (Siconos fc3d id 513,
 * fc3d_nonsmooth_Newton_FischerBurmeister); the SOC Fischer–Burmeister function and its Jordan
 * algebra from Fukushima, Luo, Tseng, "Smoothing functions for second-order-cone complementarity
 * problems", SIAM J. Optim. 12 (2001), and Chen, Tseng, Math. Program. 104 (2005).
 *
 * Jordan algebra of the Lorentz cone L = {x_0 >= |x_bar|} in R^3: x o y = (x^T y, x_0 y_bar +
 * y_0 x_bar); x^2 = x o x; for z ∈ L with eigenvalues l1,2 = z_0 -/+ |z_bar| and w = z_bar/|z_bar|,
 * sqrt(z) = ((sqrt l1 + sqrt l2)/2, (sqrt l2 - sqrt l1)/2 w). The FB function
 *     phi(x, y) = x + y - sqrt(x^2 + y^2)
 * is zero exactly when L ∋ x ⊥ y ∈ L.
 * The Coulomb NCP K* ∋ w ⊥ lambda ∈ K, w = u + Gamma(u) (the De Saxcé velocity), is mapped to L:
 * lambda ∈ K_mu <=> x = (mu lambda_n, lambda_t) ∈ L and w ∈ K*_mu <=> (w_n, mu w_t) ∈ L, with
 * x^T (w_n, mu w_t) = mu lambda^T w. (Our choice of scaling: the paper does not print one; this
 * one keeps both arguments bounded as mu -> 0. It degenerates at mu = 0, where lambda_n drops
 * out, so frictionless contacts use the scalar FB on the normal and lambda_t = 0.) Per block,
 * with u = D lambda + v_f:
 *   contact mu > 0   F_k = phi(x, rho_k (w_n, mu w_t))                          (3 rows)
 *   contact mu = 0   F_k = (phi_R(lambda_n, rho_k u_n), lambda_t1, lambda_t2)
 *   unilateral       F_r = phi_R(lambda_r, rho_r u_r),  phi_R(a, b) = a + b - sqrt(a^2 + b^2)
 *   bilateral        F_r = rho_r u_r
 *   soft             F_r = lambda_r + k phi + c u_r (the row's law)
 * rho_k = rho_scale / lambda_max(D_kk) (contacts), rho_scale / D_rr (scalar rows), as in nsn-nm,
 * so that both FB arguments are impulses and the Jacobian rows are O(1).
 *
 * Generalised Jacobian. Where z = x^2 + y^2 ∈ int L (l1 > 0), phi is differentiable:
 * 2 L_s ds = 2 L_x dx + 2 L_y dy (s = sqrt z, L_a the arrow matrix [a_0, a_bar^T; a_bar, a_0 I])
 * gives V_x = I - L_s^-1 L_x, V_y = I - L_s^-1 L_y, with the closed-form inverse
 *     L_s^-1 = [s_0^2, -s_0 s_bar^T; -s_0 s_bar, det I + s_bar s_bar^T] / (s_0 det),
 *     det = s_0^2 - |s_bar|^2 = sqrt(l1 l2).
 * Where l1 <= 1e-12 l2 (z on the boundary of L) we evaluate the same formula at the smoothed
 * z + eps^2 e, eps^2 = 1e-12 l2, e = (1, 0, 0): the smoothed FB's Jacobian tends to an element of
 * the generalised Jacobian as eps -> 0 (the Jacobian consistency of the smoothed SOC FB, e.g.
 * Hayashi, Yamashita, Fukushima, SIAM J. Optim. 15 (2005)); at z = 0
 * we take V_x = V_y = (1 - 1/sqrt 2) I (the limit along x = y). Scalar FB: V = 1 - a/|(a, b)|,
 * (1 - 1/sqrt 2) at the origin. The chain rule then gives, for a contact,
 *     dF_k = V_x S_x E_k + rho_k V_y S_y (I + dGamma/du) D_k,  S_x = diag(mu, 1, 1),
 *     S_y = diag(1, mu, mu), dGamma/du = [0, mu u_t^T / |u_t|; 0, 0] (0 at u_t = 0, as nsn-nm).
 *
 * Globalisation: the semismooth Newton driver shared with nsn-nm (solvers/nsn_common.h):
 * nonmonotone Armijo on Psi = 1/2 |F|^2; Newton by LU with the descent test of FB-LSA (De Luca,
 * Facchinei, Kanzow 1996: grad Psi^T d <= -1e-8 |d|^2.1), else Levenberg–Marquardt (between the
 * Newton and FB-LSA's gradient step, its delta -> infinity limit); on stagnation projected
 * Gauss–Seidel bursts and the next rho of a fixed cycle. For monotone SOCCPs (the CCP) every
 * stationary point of the FB merit is a solution (Chen & Tseng 2005); the De Saxcé term breaks
 * monotonicity, so local minima of Psi that are not solutions exist, hence the fallbacks.
 *
 * rho_scale = 10 by default (nsn-nm: 1). FB balances x and y: with y = rho w small against the
 * final x, its linearisation at lambda = 0 (V_x = I for the open contacts) acts as a proximal term
 * that shortens Newton steps along D's weak directions. Full captures, tol 1e-8 on
 * natural_map_rel_acary, 300 iterations, mean iterations on box-on-plane (240 problems) /
 * sphere-stack (240, mass ratio 1e4) / incline (300): rho_scale 1: 6.1 / 59.6 / 5.1;
 * 3: 5.1 / 18.8 / 5.1; 10: 5.1 / 6.3 / 4.6; 30: 5.4 / 6.0 / 4.2 (all converge; without the
 * driver's rho cycle, rho_scale 1 solved 0 of the sphere-stack problems).
 *
 * Accuracy (tests/test_solvers_more.c): natural map <= 1e-10 on 80 seeded random problems (mean 5-6
 * iterations, max 9); from 1e-5 off a solution <= 3 iterations to 1e-12 (quadratic); box-on-plane
 * step 17 from a cold start in 10 iterations, equal to Siconos' answer to 2e-14.
 *
 * Parameters (defaults): rho_scale 10, armijo 1e-4, newton_ls 20, lm_ls 30, nonmonotone 5,
 * window 10, pgs_burst 10, rho_cycle 1.
 * Needs: v_f and D or the primal data. Per iteration a dense m x m Jacobian and an LU (O(m^3)),
 * or with dense primal data of few dofs (nv <= m/4) the same Newton and LM systems solved
 * through D = F F^T in O(m nv^2), or with primal data the sparse saddle-point form in A and J
 * (no D; nsn_sparse.h), whichever is estimated cheapest (parameter route, nsn_common.h).
 * Solves the NCP.
 */
#include <math.h>
#include <stdlib.h>

#include "core/cone.h"
#include "solvers/nsn_common.h"
#include "solvers/registry.h"

static const ncp_param_doc fb_params[] = {
    {"rho_scale", 10.0, "FB scaling of the velocity: rho_k = rho_scale / lambda_max(D_kk) (> 0)"},
    {"armijo", 1e-4, "Armijo sufficient-decrease constant on 1/2|F|^2, in (0, 0.5)"},
    {"newton_ls", 20.0, "max step halvings for the Newton direction before falling back to LM"},
    {"lm_ls", 30.0, "max step halvings for the Levenberg-Marquardt direction"},
    {"nonmonotone", 5.0, "Armijo reference = max Psi over this many last iterations (1..64)"},
    NCP_NSN_PARAM_DOCS_TAIL, /* window, pgs_burst, rho_cycle (their theta is Psi here) */
};

/* ---------- the Fischer–Burmeister function of L in R^3 ---------- */

/* Arrow matrix L_a (column-major 3x3). */
static void arrow(const double a[3], double A[9])
{
    A[0] = a[0]; A[3] = a[1]; A[6] = a[2];
    A[1] = a[1]; A[4] = a[0]; A[7] = 0.0;
    A[2] = a[2]; A[5] = 0.0;  A[8] = a[0];
}

/* sqrt(z) for z ∈ L given its spectral data; eps2 shifts both eigenvalues (smoothing). */
static void soc_sqrt(double z0, const double zb[2], double eps2, double s[3])
{
    double nz = hypot(zb[0], zb[1]);
    double l1 = fmax(z0 - nz, 0.0) + eps2, l2 = z0 + nz + eps2;
    double r1 = sqrt(l1), r2 = sqrt(l2);
    s[0] = 0.5 * (r1 + r2);
    double c = nz > 0.0 ? 0.5 * (r2 - r1) / nz : 0.0;
    s[1] = c * zb[0];
    s[2] = c * zb[1];
}

/* phi(x, y) into f; if Vx, Vy are non-NULL, an element of the generalised Jacobian (header). */
static void soc_fb(const double x[3], const double y[3], double f[3], double *Vx, double *Vy)
{
    double z0 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
    double zb[2] = {2.0 * (x[0] * x[1] + y[0] * y[1]), 2.0 * (x[0] * x[2] + y[0] * y[2])};
    double s[3];
    soc_sqrt(z0, zb, 0.0, s);
    for (int i = 0; i < 3; i++) f[i] = x[i] + y[i] - s[i];
    if (!Vx) return;
    if (!(z0 > 0.0)) { /* x = y = 0 */
        double c = 1.0 - 1.0 / sqrt(2.0);
        for (int i = 0; i < 9; i++) Vx[i] = Vy[i] = (i % 4 == 0) ? c : 0.0;
        return;
    }
    double nz = hypot(zb[0], zb[1]);
    double l1 = z0 - nz, l2 = z0 + nz;
    if (l1 <= 1e-12 * l2) soc_sqrt(z0, zb, 1e-12 * l2, s); /* boundary: smoothed element */
    double sb2 = s[1] * s[1] + s[2] * s[2];
    double det = s[0] * s[0] - sb2;
    double Li[9]; /* L_s^-1 */
    double q = 1.0 / (s[0] * det);
    Li[0] = s[0] * s[0] * q;
    Li[3] = -s[0] * s[1] * q;
    Li[6] = -s[0] * s[2] * q;
    Li[1] = Li[3];
    Li[2] = Li[6];
    Li[4] = (det + s[1] * s[1]) * q;
    Li[8] = (det + s[2] * s[2]) * q;
    Li[7] = s[1] * s[2] * q;
    Li[5] = Li[7];
    double Lx[9], Ly[9];
    arrow(x, Lx);
    arrow(y, Ly);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            double ax = 0.0, ay = 0.0;
            for (int k = 0; k < 3; k++) {
                ax += Li[i + 3 * k] * Lx[k + 3 * j];
                ay += Li[i + 3 * k] * Ly[k + 3 * j];
            }
            Vx[i + 3 * j] = (i == j ? 1.0 : 0.0) - ax;
            Vy[i + 3 * j] = (i == j ? 1.0 : 0.0) - ay;
        }
}

/* Scalar FB and its partial derivatives (da, db). */
static double fb_scalar(double a, double b, double *da, double *db)
{
    double r = hypot(a, b);
    if (da) {
        if (r > 0.0) {
            *da = 1.0 - a / r;
            *db = 1.0 - b / r;
        } else {
            *da = *db = 1.0 - 1.0 / sqrt(2.0);
        }
    }
    return a + b - r;
}

/* ---------- the equation F(lambda) = 0 ---------- */

/* The contact's FB arguments: x = (mu l_n, l_t), y = rho (w_n, mu w_t), w = u + Gamma(u). */
static void fb_contact_args(double mu, double rho, const double *l, const double *u, double x[3],
                            double y[3])
{
    double w[3];
    ncp_desaxce(mu, u, w);
    x[0] = mu * l[0];
    x[1] = l[1];
    x[2] = l[2];
    y[0] = rho * w[0];
    y[1] = rho * mu * w[1];
    y[2] = rho * mu * w[2];
}

/* F on a unilateral row or a contact block (the driver does the bilateral and soft rows). */
static void fb_block_F(const ncp_block *b, double rho, const double *lam, const double *u,
                       double *F)
{
    if (b->type == NCP_CONTACT && b->mu > 0.0) {
        double x[3], y[3];
        fb_contact_args(b->mu, rho, lam, u, x, y);
        soc_fb(x, y, F, NULL, NULL);
        return;
    }
    /* unilateral, or a frictionless contact: scalar FB on the normal, lambda_t = 0 */
    F[0] = fb_scalar(lam[0], rho * u[0], NULL, NULL);
    if (b->type == NCP_CONTACT) {
        F[1] = lam[1];
        F[2] = lam[2];
    }
}

/* The block's generalised Jacobian (header): P = dF/dlambda_b, Q = dF/du_b (n x n). */
static void fb_block_jac(const ncp_block *b, double rho, const double *lam, const double *u,
                         double *P, double *Q)
{
    double da, db;
    if (b->type == NCP_UNILATERAL) {
        fb_scalar(lam[0], rho * u[0], &da, &db);
        P[0] = da;
        Q[0] = db * rho;
        return;
    }
    double mu = b->mu;
    if (!(mu > 0.0)) { /* scalar FB on the normal, F_t = lambda_t */
        fb_scalar(lam[0], rho * u[0], &da, &db);
        for (int i = 0; i < 9; i++) P[i] = Q[i] = 0.0;
        P[0] = da;
        P[4] = P[8] = 1.0;
        Q[0] = db * rho;
        return;
    }
    double x[3], y[3], f[3], Vx[9], Vy[9];
    fb_contact_args(mu, rho, lam, u, x, y);
    soc_fb(x, y, f, Vx, Vy);
    /* Q = rho V_y S_y (I + dGamma/du), S_y = diag(1, mu, mu); P = V_x S_x, S_x = diag(mu, 1, 1) */
    double h[2];
    ncp_nsn_dgamma(mu, u, h);
    double M[9] = {1.0, 0.0, 0.0, h[0], mu, 0.0, h[1], 0.0, mu}; /* S_y (I + dGamma/du) */
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += Vy[i + 3 * k] * M[k + 3 * j];
            Q[i + 3 * j] = rho * s;
            P[i + 3 * j] = Vx[i + 3 * j] * (j == 0 ? mu : 1.0);
        }
}

static const ncp_nsn_eq fb_equation = {fb_block_F, fb_block_jac, 1, 0};

static int fb_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_nsn_solve(&ncp_solver_nsn_fb, &fb_equation, in, out, run, err);
}

const ncp_solver_desc ncp_solver_nsn_fb = {
    .name = "nsn-fb",
    .source = "Acary, Bremond, Huber 2018 (INRIA RR-9118), NSN-FB; Siconos fc3d id 513; "
              "Fukushima, Luo, Tseng 2001 (SOC FB)",
    .summary = "semismooth Newton on the SOC Fischer-Burmeister function, Armijo + LM safeguard",
    .needs = NCP_NEEDS_DUAL_OP,
    .ccp = 0,
    .file = "solvers/nsn_fb.c",
    .params = fb_params,
    .solve = fb_solve,
};
