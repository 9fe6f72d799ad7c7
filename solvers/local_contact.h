/* Per-contact local solvers of NCP report 2025 §VI-C, shared by the projective-splitting solvers
 * (solvers/splitting.c: pgs-ccp, pgs-ncp, nbgs, raisim, raisim-ds, raisim-ds-es).
 *
 * Each one solves (or approximates) the single-contact problem of one 3x3 diagonal block
 *     u = G lambda + c,   G = D_kk,   c = v_f,k + sum_{m != k} D_km lambda_m
 * given a De Saxcé estimate s = (s_n, 0, 0) (zero for the solvers without it). Normal FIRST
 * (n, t1, t2) throughout; the paper writes the normal last (NCP report 2025 eq. 34), its formulas are
 * translated here, storage is never reordered.
 *
 *   ncp_local_pccp   Alg. 2 (P_CCP): one projected step lambda <- Pi_K(lambda - 3/tr(G) (u + s)).
 *   ncp_local_pncp   Alg. 3 (P_NCP): decoupled normal/tangent steps, orthant then disk.
 *   ncp_local_nb     Alg. 4 (P_NB): the decision tree open / frictionless / stick / slip, the slip
 *                    case being the QCP (152) restricted to the conic section where the cone
 *                    surface meets the plane of zero normal velocity (G lambda + c)_n = 0:
 *                        minimise f(lambda) = 1/2 lambda^T G lambda + lambda^T (c + s)
 *                        over {lambda : ||lambda_t|| = mu lambda_n, (G lambda + c)_n = 0}.
 *                    NCP_NB_EXACT finds the global minimiser on the section to rounding
 *                    (nbgs; Preclik et al. solve the same QCP through a quartic), NCP_NB_BISECT
 *                    the local minimiser that Hwangbo et al.'s bisection search reaches (raisim).
 *
 * What the slip QCP solves. Its stationarity on the section gives v_n = 0, lambda on bd K and
 * (u + s) orthogonal to the section's tangent. When G has no normal/tangent coupling
 * (G_nt = 0) and s = 0 this is exactly Coulomb's law (u_t opposite lambda_t); with coupling it
 * is not (the maximal-dissipation violation of Lidec et al. [73], NCP report 2025 §VI-C), unless
 * s = Gamma(u) at the solution: then the exact Coulomb slip point is a stationary point of the
 * corrected objective (u + s = s_t (mu, -d) is normal to the cone, d = lambda_t/|lambda_t|),
 * which is why the -DS variants re-estimate s.
 *
 * The missing Appendix C (eqs. 222, 224) is replaced by one parametrisation valid for every
 * shape of the section (ellipse, parabola, hyperbola branch; NCP report 2025 Alg. 4 lines 9-13):
 *     lambda(theta) = r(theta) (1/mu, cos theta, sin theta),
 *     r(theta) = -c_n / w(theta),  w(theta) = G_nn/mu + G_nt1 cos theta + G_nt2 sin theta,
 * on the arc w > 0 (where the plane meets the upper nappe; the whole circle for an ellipse).
 * f -> +inf at the ends of an open arc, so its minimum is interior. The degenerate sections
 * (plane through the apex) need c_n = 0, which Alg. 4 sends to the open branch (c_n >= 0).
 */
#ifndef NCP_LOCAL_CONTACT_H
#define NCP_LOCAL_CONTACT_H

#include "util/ncp_error.h"

/* One contact's local data, prepared once per solve. */
typedef struct ncp_local_contact {
    double G[9];      /* D_kk, symmetrised, column-major */
    double Ginv[9];   /* (G + reg I)^{-1} by Cholesky, for Alg. 4's unconstrained solve */
    double reg;       /* regularisation added before factorising (0 unless G is singular) */
    double mu;
    double step_ccp;  /* Alg. 2: 3 / tr(G) */
    double step_n;    /* Alg. 3: 1 / G_nn */
    double step_t;    /* Alg. 3: 1 / min(G_t1t1, G_t2t2), 0 if that diagonal is negligible */
    double step_t_max; /* 1 / max(G_t1t1, G_t2t2), 0 if negligible (the safer variant) */
    int active;       /* 0: G_nn is negligible (no normal self-influence): the solvers keep
                         lambda */
} ncp_local_contact;

/* Prepares lc from the 3x3 block of the m x m column-major D at (row, row). dmin: diagonal
 * entries <= dmin count as zero (ncp_block_steps uses 1e-14 x the largest diagonal of D).
 * A singular G (a contact whose three rows are dependent) is factorised with the smallest
 * regularisation 1e-12 tr(G) x 100^k (k = 0..4) that succeeds. Fails (NCP_ERR_NUMERIC) only if
 * none does. */
int ncp_local_contact_init(ncp_local_contact *lc, const double *D, int m, int row, double mu,
                           double dmin, ncp_error *err);

/* NCP report 2025 Alg. 2: out = Pi_K(lambda - 3/tr(G) (G lambda + c + s)). out may alias lambda. */
void ncp_local_pccp(const ncp_local_contact *lc, const double lambda[3], const double c[3],
                    const double s[3], double out[3]);

/* NCP report 2025 Alg. 3: z = G lambda + c + s; lambda_n <- max(0, lambda_n - z_n/G_nn) (eq. 147);
 * lambda_t <- Pi_disk(mu lambda_n)(lambda_t - z_t / min(G_t1t1, G_t2t2)) (eq. 148). z is
 * computed once (line 1), so the tangential step uses the old normal impulse. The tangential
 * step is the inverse of the SMALLEST tangential diagonal entry, as the text says ("the smallest
 * of the two diagonal components is used"); tangent_max = 1 uses the largest one instead (the
 * shorter, safer step: the text's is the longer one). out may alias lambda. */
void ncp_local_pncp(const ncp_local_contact *lc, int tangent_max, const double lambda[3],
                    const double c[3], const double s[3], double out[3]);

/* How Alg. 4 solved the last call (for tests and statistics). */
enum {
    NCP_LOCAL_OPEN = 0,         /* c_n >= 0: lambda = 0 */
    NCP_LOCAL_FRICTIONLESS = 1, /* mu = 0: lambda = (-c_n / G_nn, 0, 0) */
    NCP_LOCAL_STICK = 2,        /* the unconstrained -G^{-1} c lies in K (tested without s:
                                   u = 0 there, so Gamma(u) = 0; see ncp_local_nb) */
    NCP_LOCAL_SLIP = 3,         /* the QCP on the conic section */
    NCP_LOCAL_INACTIVE = 4,     /* lc->active == 0: lambda kept */
    NCP_LOCAL_FALLBACK = 5      /* no minimiser on the section (G singular along it): Alg. 3
                                   with tangent_max = 1 */
};

enum { NCP_NB_EXACT = 0, NCP_NB_BISECT = 1 };

/* Options of the slip case. */
typedef struct ncp_nb_opts {
    int method;        /* NCP_NB_EXACT or NCP_NB_BISECT */
    double bisect_tol; /* BISECT: stop when the bracket is <= bisect_tol radians wide */
    int bisect_max;    /* BISECT: at most this many bracketing and bisection steps each */
} ncp_nb_opts;

/* NCP report 2025 Alg. 4 (see the file header). lambda is the current impulse (used only by the
 * fallback). The stick test uses -G^{-1} c and the slip search starts from the angle of
 * -G^{-1}(c + s) (line 1 literally uses c + s for both: that gives raisim-ds spurious fixed
 * points, see solvers/raisim_ds.c; the two agree when s = 0). Returns the NCP_LOCAL_* case.
 * out may alias lambda. */
int ncp_local_nb(const ncp_local_contact *lc, const ncp_nb_opts *o, const double lambda[3],
                 const double c[3], const double s[3], double out[3]);

#endif
