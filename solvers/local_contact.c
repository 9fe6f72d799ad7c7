/* Per-contact local solvers of NCP report 2025 §VI-C (see local_contact.h for the mathematics). */
#include "solvers/local_contact.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "core/cone.h"
#include "core/la.h"

static const double LC_PI = 3.14159265358979323846; /* M_PI is not in strict C11 */

/* ---------- preparation ---------- */

int ncp_local_contact_init(ncp_local_contact *lc, const double *D, int m, int row, double mu,
                           double dmin, ncp_error *err)
{
    memset(lc, 0, sizeof *lc);
    lc->mu = mu;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            lc->G[i + 3 * j] = 0.5 * (D[(row + i) + (size_t)(row + j) * m] +
                                      D[(row + j) + (size_t)(row + i) * m]);
    const double *G = lc->G;
    double tr = G[0] + G[4] + G[8];
    /* A negligible normal diagonal: the contact does not influence its own normal velocity;
     * no local solver has information about it (as ncp_block_steps decides for pgs). */
    if (!(G[0] > dmin && G[0] > 0.0 && tr > 0.0)) return NCP_OK;
    lc->active = 1;
    lc->step_ccp = 3.0 / tr;
    lc->step_n = 1.0 / G[0];
    double gt = fmin(G[4], G[8]), gT = fmax(G[4], G[8]);
    lc->step_t = (gt > dmin && gt > 0.0) ? 1.0 / gt : 0.0;
    lc->step_t_max = (gT > dmin && gT > 0.0) ? 1.0 / gT : 0.0;

    /* the explicit inverse, once: Alg. 4 applies it to a new right-hand side in every sweep */
    ncp_error local;
    double L[9];
    for (int k = 0; k <= 5; k++) {
        lc->reg = (k == 0) ? 0.0 : 1e-12 * tr * pow(100.0, k - 1);
        memcpy(L, G, sizeof L);
        for (int i = 0; i < 3; i++) L[4 * i] += lc->reg;
        ncp_error_clear(&local);
        if (ncp_chol_factor(3, L, &local) != NCP_OK) continue;
        memset(lc->Ginv, 0, sizeof lc->Ginv);
        lc->Ginv[0] = lc->Ginv[4] = lc->Ginv[8] = 1.0;
        if (ncp_chol_solve(3, L, 3, lc->Ginv, &local) == NCP_OK && ncp_all_finite(9, lc->Ginv))
            return NCP_OK;
    }
    return ncp_error_set(err, NCP_ERR_NUMERIC,
                         "its 3x3 Delassus block (rows %d-%d of the given matrix) cannot be "
                         "factorised even with regularisation 1e-4 tr(D_kk) (%s)",
                         row, row + 2, local.msg);
}

/* z = G lambda + c + s (the local augmented velocity, NCP report 2025 Algs. 2-3 line 1). */
static void local_velocity(const double *G, const double lambda[3], const double c[3],
                           const double s[3], double z[3])
{
    for (int i = 0; i < 3; i++)
        z[i] = G[i] * lambda[0] + G[i + 3] * lambda[1] + G[i + 6] * lambda[2] + c[i] + s[i];
}

/* ---------- Alg. 2 and Alg. 3 ---------- */

void ncp_local_pccp(const ncp_local_contact *lc, const double lambda[3], const double c[3],
                    const double s[3], double out[3])
{
    double z[3], x[3];
    if (!lc->active) {
        memmove(out, lambda, 3 * sizeof(double));
        return;
    }
    local_velocity(lc->G, lambda, c, s, z);
    for (int i = 0; i < 3; i++) x[i] = lambda[i] - lc->step_ccp * z[i];
    ncp_cone_project(lc->mu, x, out); /* eq. 150 */
}

void ncp_local_pncp(const ncp_local_contact *lc, int tangent_max, const double lambda[3],
                    const double c[3], const double s[3], double out[3])
{
    double z[3], x[3];
    if (!lc->active) {
        memmove(out, lambda, 3 * sizeof(double));
        return;
    }
    local_velocity(lc->G, lambda, c, s, z);
    double st = tangent_max ? lc->step_t_max : lc->step_t;
    x[0] = lambda[0] - lc->step_n * z[0];
    x[1] = lambda[1] - st * z[1];
    x[2] = lambda[2] - st * z[2];
    /* orthant (eq. 147) on the normal, then the disk of radius mu lambda_n (eq. 148) on the
     * tangent: exactly the strict operator of cone.h */
    ncp_cone_project_strict(lc->mu, x, out);
}

/* ---------- the conic section of Alg. 4's slip case ---------- */

/* Point of the section at angle theta: lambda = (kappa / w) (1/mu, cos, sin), kappa = -c_n > 0.
 * Returns w(theta) and fills lambda (if w > 0). */
static double section_lambda(const ncp_local_contact *lc, double kappa, double theta,
                             double lambda[3])
{
    const double *G = lc->G;
    double ct = cos(theta), st = sin(theta);
    double u[3] = {1.0 / lc->mu, ct, st};
    double w = G[0] * u[0] + G[3] * u[1] + G[6] * u[2]; /* row n of G times u */
    if (w > 0.0) {
        double r = kappa / w;
        for (int i = 0; i < 3; i++) lambda[i] = r * u[i];
    }
    return w;
}

/* f(lambda) = 1/2 lambda^T G lambda + q^T lambda. */
static double objective(const double *G, const double q[3], const double l[3])
{
    double f = 0.0;
    for (int i = 0; i < 3; i++) {
        double gi = G[i] * l[0] + G[i + 3] * l[1] + G[i + 6] * l[2];
        f += l[i] * (0.5 * gi + q[i]);
    }
    return f;
}

/* df/dtheta along the section = (G lambda + q) . dlambda/dtheta (the RaiSim bisection's
 * "gradient along the ellipse"). Returns NAN when w(theta) <= 0. */
static double section_slope(const ncp_local_contact *lc, double kappa, const double q[3],
                            double theta)
{
    const double *G = lc->G;
    double ct = cos(theta), st = sin(theta);
    double u[3] = {1.0 / lc->mu, ct, st}, ud[3] = {0.0, -st, ct};
    double w = G[0] * u[0] + G[3] * u[1] + G[6] * u[2];
    if (!(w > 0.0)) return NAN;
    double wd = G[3] * ud[1] + G[6] * ud[2];
    double l[3], ld[3], sl = 0.0;
    for (int i = 0; i < 3; i++) {
        l[i] = kappa * u[i] / w;
        ld[i] = kappa * (ud[i] * w - u[i] * wd) / (w * w);
    }
    for (int i = 0; i < 3; i++)
        sl += (G[i] * l[0] + G[i + 3] * l[1] + G[i + 6] * l[2] + q[i]) * ld[i];
    return sl;
}

/* ---------- polynomials (coefficients c[0] + c[1] t + ...), degree <= 6 ---------- */

enum { PMAX = 7 };

static void pzero(double *p) { memset(p, 0, PMAX * sizeof(double)); }

/* out += k a b (degrees add; stays within PMAX by construction). */
static void pmul_add(double *out, double k, const double *a, int na, const double *b, int nb)
{
    for (int i = 0; i <= na; i++)
        for (int j = 0; j <= nb; j++) out[i + j] += k * a[i] * b[j];
}

static void pderiv(const double *p, int n, double *d)
{
    pzero(d);
    for (int i = 1; i <= n; i++) d[i - 1] = i * p[i];
}

static double peval(int n, const double *c, double t, double *dp)
{
    double p = c[n], d = 0.0;
    for (int i = n - 1; i >= 0; i--) {
        d = d * t + p;
        p = p * t + c[i];
    }
    if (dp) *dp = d;
    return p;
}

/* Root of p in (a, b) where p(a) has the sign of pa and p(b) the opposite one: Newton kept
 * inside the shrinking bracket, bisection when a step would leave it. */
static double refine_root(int n, const double *c, double a, double b, double pa)
{
    double x = 0.5 * (a + b);
    for (int it = 0; it < 200; it++) {
        double dp, p = peval(n, c, x, &dp);
        if (p == 0.0) return x;
        if ((p < 0.0) == (pa < 0.0))
            a = x;
        else
            b = x;
        double xn = (dp != 0.0) ? x - p / dp : 0.5 * (a + b);
        if (!(xn > a && xn < b)) xn = 0.5 * (a + b);
        if (fabs(xn - x) <= 4.0 * DBL_EPSILON * fmax(1.0, fabs(x))) return xn;
        x = xn;
    }
    return x;
}

/* The real roots of p (degree <= n) at which p changes sign, ascending. Exact isolation:
 * between consecutive sign-changing roots of p' (found recursively) p is monotone, so each
 * such interval holds at most one; the outer ends are Fujiwara's bound. Leading coefficients
 * below 1e-14 of the largest are dropped: that perturbs only the roots that run off towards
 * |t| = infinity, i.e. theta near theta_r + pi, which the caller examines separately. */
static int sign_roots(int n, const double *c, double *roots)
{
    double scale = 0.0;
    for (int i = 0; i <= n; i++) scale = fmax(scale, fabs(c[i]));
    if (!(scale > 0.0)) return 0;
    while (n > 0 && fabs(c[n]) <= 1e-14 * scale) n--;
    if (n == 0) return 0;
    if (n == 1) {
        roots[0] = -c[0] / c[1];
        return 1;
    }
    double d[PMAX], crit[PMAX];
    pderiv(c, n, d);
    int nc = sign_roots(n - 1, d, crit);
    /* Fujiwara's bound on |root|: 2 max_i |c_i / c_n|^(1/(n-i)) (much tighter than Cauchy's
     * 1 + max |c_i / c_n| when the leading coefficient is small) */
    double B = 0.0;
    for (int i = 0; i < n; i++) {
        double a = fabs(c[i] / c[n]);
        if (a > 0.0) B = fmax(B, pow(i == 0 ? 0.5 * a : a, 1.0 / (n - i)));
    }
    B = 2.0 * B * (1.0 + 1e-12) + DBL_MIN;
    double pts[PMAX + 2];
    int np = 0;
    pts[np++] = -B;
    for (int i = 0; i < nc; i++)
        if (crit[i] > -B && crit[i] < B) pts[np++] = crit[i];
    pts[np++] = B;
    int nr = 0;
    double pa = peval(n, c, pts[0], NULL);
    for (int i = 0; i + 1 < np; i++) {
        double pb = peval(n, c, pts[i + 1], NULL);
        if ((pa < 0.0 && pb > 0.0) || (pa > 0.0 && pb < 0.0))
            roots[nr++] = refine_root(n, c, pts[i], pts[i + 1], pa);
        pa = pb;
    }
    return nr;
}

/* ---------- Alg. 4 slip case: exact minimiser on the section ---------- */

/* Candidates for the minimiser: the stationary points of f(theta_r + phi), phi = 2 atan(t),
 * from the polynomial below, plus phi = pi (t = infinity). With u~(t) = (1+t^2) u =
 * ((1+t^2)/mu, 1-t^2, 2t) (quadratics in t), w~ = g^T u~, a~ = u~^T G u~, b~ = q^T u~:
 *     f(t) = kappa^2/2 a~/w~^2 + kappa b~/w~,
 *     df/dt = kappa / w~^3 [ kappa/2 (a~' w~ - 2 a~ w~') + (b~' w~ - b~ w~') w~ ],
 * so on the arc (w~ > 0) the sign of df/dt is that of the bracket, a polynomial of degree <= 6
 * whose sign-changing roots are exactly the strict local extrema of f. Working in the frame
 * rotated by theta_r (the angle of the unconstrained solution, near which the minimiser usually
 * lies) keeps the relevant roots near t = 0. Returns the best theta, or NAN if none. */
static double exact_theta(const ncp_local_contact *lc, double kappa, const double q[3],
                          double theta_r, int *at_pi)
{
    const double *G = lc->G;
    double cr = cos(theta_r), sr = sin(theta_r);
    /* R = [e_n, e1, e2] with e1 = (0, cr, sr), e2 = (0, -sr, cr); G' = R^T G R, q' = R^T q */
    double R[9] = {1, 0, 0, 0, cr, sr, 0, -sr, cr}, GR[9], Gp[9], qp[3];
    for (int j = 0; j < 3; j++) /* 3x3 products written out: a BLAS call costs more here */
        for (int i = 0; i < 3; i++)
            GR[i + 3 * j] = G[i] * R[3 * j] + G[i + 3] * R[1 + 3 * j] + G[i + 6] * R[2 + 3 * j];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            Gp[i + 3 * j] = R[3 * i] * GR[3 * j] + R[1 + 3 * i] * GR[1 + 3 * j] +
                            R[2 + 3 * i] * GR[2 + 3 * j];
    for (int i = 0; i < 3; i++) qp[i] = R[3 * i] * q[0] + R[1 + 3 * i] * q[1] + R[2 + 3 * i] * q[2];

    double U[3][3] = {{1.0 / lc->mu, 0.0, 1.0 / lc->mu}, {1.0, 0.0, -1.0}, {0.0, 2.0, 0.0}};
    double one[1] = {1.0};
    double w[PMAX], a[PMAX], b[PMAX], wd[PMAX], ad[PMAX], bd[PMAX], N[PMAX];
    pzero(w);
    pzero(a);
    pzero(b);
    pzero(N);
    for (int j = 0; j < 3; j++) {
        pmul_add(w, Gp[0 + 3 * j], U[j], 2, one, 0);
        pmul_add(b, qp[j], U[j], 2, one, 0);
        for (int i = 0; i < 3; i++) pmul_add(a, Gp[i + 3 * j], U[i], 2, U[j], 2);
    }
    pderiv(w, 2, wd);
    pderiv(a, 4, ad);
    pderiv(b, 2, bd);
    pmul_add(N, 0.5 * kappa, ad, 3, w, 2);
    pmul_add(N, -kappa, a, 4, wd, 1);
    double bw[PMAX];
    pzero(bw);
    pmul_add(bw, 1.0, bd, 1, w, 2);
    pmul_add(bw, -1.0, b, 2, wd, 1);
    pmul_add(N, 1.0, bw, 3, w, 2);

    double roots[PMAX];
    int nr = sign_roots(6, N, roots);
    double best = INFINITY, best_theta = NAN, l[3];
    for (int i = 0; i < nr; i++) {
        double th = theta_r + 2.0 * atan(roots[i]);
        if (!(section_lambda(lc, kappa, th, l) > 0.0)) continue;
        double f = objective(G, q, l);
        if (f < best) {
            best = f;
            best_theta = th;
            *at_pi = 0;
        }
    }
    double th = theta_r + LC_PI;
    if (section_lambda(lc, kappa, th, l) > 0.0) {
        double f = objective(G, q, l);
        if (f < best) {
            best = f;
            best_theta = th;
            *at_pi = 1;
        }
    }
    if (isnan(best_theta)) {
        /* f constant on the section (N identically zero, e.g. lambda0 on the axis of a circular
         * section): every point is a minimiser; take the one at theta_r */
        double sc = 0.0;
        for (int i = 0; i < PMAX; i++) sc = fmax(sc, fabs(N[i]));
        if (sc == 0.0 && section_lambda(lc, kappa, theta_r, l) > 0.0) best_theta = theta_r;
    }
    return best_theta;
}

/* ---------- Alg. 4 slip case: Hwangbo et al.'s bisection search ---------- */

/* From theta_r (the angle of the unconstrained solution) walk along the section in the
 * descent direction with steps 0.01 rad growing x1.3 while the slope keeps its sign and
 * shrinking x0.5 when a step leaves the arc (w <= 0), until the slope changes sign; then bisect
 * the bracket on the sign of the slope. (The constants are those of Le Lidec et al.'s
 * reimplementation in ContactBench, which NCP report 2025 [73] builds on; the paper gives none.)
 * Finds the local minimiser nearest theta_r downhill. */
static double bisect_theta(const ncp_local_contact *lc, double kappa, const double q[3],
                           double theta_r, const ncp_nb_opts *o)
{
    const double beta1 = 1e-2, beta2 = 0.5, beta3 = 1.3;
    double d0 = section_slope(lc, kappa, q, theta_r);
    if (isnan(d0) || d0 == 0.0) return theta_r;
    double dir = d0 > 0.0 ? -1.0 : 1.0, step = beta1;
    double ta = theta_r, tb = NAN, travelled = 0.0;
    for (int it = 0; it < o->bisect_max; it++) {
        double t = ta + dir * step;
        double d = section_slope(lc, kappa, q, t);
        if (isnan(d)) { /* left the arc: shorter step */
            step *= beta2;
            continue;
        }
        if ((d > 0.0) == (d0 > 0.0) && d != 0.0) {
            ta = t;
            travelled += step;
            step *= beta3;
            if (travelled > 2.0 * LC_PI) break; /* no sign change on a whole turn */
        } else {
            tb = t;
            break;
        }
    }
    if (isnan(tb)) return ta;
    for (int it = 0; it < o->bisect_max && fabs(tb - ta) > o->bisect_tol; it++) {
        double tm = 0.5 * (ta + tb);
        double d = section_slope(lc, kappa, q, tm);
        if (!isnan(d) && (d > 0.0) == (d0 > 0.0) && d != 0.0)
            ta = tm;
        else
            tb = tm;
    }
    return 0.5 * (ta + tb);
}

/* ---------- Alg. 4 ---------- */

int ncp_local_nb(const ncp_local_contact *lc, const ncp_nb_opts *o, const double lambda[3],
                 const double c[3], const double s[3], double out[3])
{
    if (!lc->active) {
        memmove(out, lambda, 3 * sizeof(double));
        return NCP_LOCAL_INACTIVE;
    }
    if (c[0] >= 0.0) { /* line 20: separating (or grazing) contact */
        out[0] = out[1] = out[2] = 0.0;
        return NCP_LOCAL_OPEN;
    }
    if (lc->mu <= 0.0) { /* line 4: frictionless, zero normal velocity */
        out[0] = -c[0] / lc->G[0];
        out[1] = out[2] = 0.0;
        return NCP_LOCAL_FRICTIONLESS;
    }
    double q[3] = {c[0] + s[0], c[1] + s[1], c[2] + s[2]};
    /* Line 1 writes lambda0 = -G^{-1}(c + s) for both uses of lambda0. We test sticking with
     * the uncorrected -G^{-1} c and use -G^{-1}(c + s) only to start the slip search, as Le
     * Lidec et al.'s own RaiSim-DS does ([73]; ContactBench's RaisimCorrectedSolver): the
     * sticking candidate has u = 0, so its consistent estimate is Gamma(0) = 0. With the literal
     * line 1 a slipping iterate's s_n = mu |u_t| > 0 can reject a valid stick for good, a
     * fixed point with u_t along lambda_t (scenes/quadruped.json: 125 of 200 problems stopped
     * at natural map ~0.13). Identical to line 1 when s = 0 (every solver without De Saxcé). */
    double l0[3], ls[3];
    for (int i = 0; i < 3; i++) {
        l0[i] = -(lc->Ginv[i] * c[0] + lc->Ginv[i + 3] * c[1] + lc->Ginv[i + 6] * c[2]);
        ls[i] = -(lc->Ginv[i] * q[0] + lc->Ginv[i + 3] * q[1] + lc->Ginv[i + 6] * q[2]);
    }
    if (!ncp_all_finite(3, l0) || !ncp_all_finite(3, ls)) {
        ncp_local_pncp(lc, 1, lambda, c, s, out);
        return NCP_LOCAL_FALLBACK;
    }
    if (hypot(l0[1], l0[2]) <= lc->mu * l0[0]) { /* line 6: sticking */
        memcpy(out, l0, sizeof l0);
        return NCP_LOCAL_STICK;
    }
    double kappa = -c[0];
    double theta_r = atan2(ls[2], ls[1]);
    double theta;
    if (o->method == NCP_NB_BISECT) {
        theta = bisect_theta(lc, kappa, q, theta_r, o);
    } else {
        int at_pi = 0;
        theta = exact_theta(lc, kappa, q, theta_r, &at_pi);
        /* the best candidate was the point opposite theta_r, whose neighbouring stationary point
         * may sit beyond the polynomial's reach (t -> infinity): look again from there */
        if (at_pi) theta = exact_theta(lc, kappa, q, theta, &at_pi);
    }
    double l[3];
    if (isnan(theta) || !(section_lambda(lc, kappa, theta, l) > 0.0) || !ncp_all_finite(3, l)) {
        ncp_local_pncp(lc, 1, lambda, c, s, out);
        return NCP_LOCAL_FALLBACK;
    }
    memcpy(out, l, sizeof l);
    return NCP_LOCAL_SLIP;
}
