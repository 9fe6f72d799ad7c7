/* Friction-cone operators, normal first (see cone.h). */
#include <math.h>
#include <string.h>

#include "core/cone.h"

/* |(a, b)|: sqrt(a^2 + b^2) where neither square can overflow or underflow, hypot otherwise.
 * glibc's hypot (correctly rounded, with its own scaling) took a fifth of the harness's time on
 * bolt-nut, where every iterate projects 120 contacts; the two differ by at most an ulp. */
static inline double tnorm(double a, double b)
{
    double m = fmax(fabs(a), fabs(b));
    if (m < 1e150 && m > 1e-150) return sqrt(a * a + b * b);
    return hypot(a, b);
}

void ncp_cone_project(double mu, const double x[3], double out[3])
{
    double xn = x[0], t1 = x[1], t2 = x[2];
    double s = tnorm(t1, t2);
    if (xn >= 0.0 && s <= mu * xn) { /* stick: inside K (xn >= 0 matters when mu = 0, s = 0) */
        out[0] = xn;
        out[1] = t1;
        out[2] = t2;
    } else if (mu * s <= -xn) { /* open: inside the polar cone */
        out[0] = out[1] = out[2] = 0.0;
    } else { /* slip: s > 0 here (s = 0 falls in one of the cases above) */
        double a = (xn + mu * s) / (1.0 + mu * mu); /* NCP report 2025 eq. 150 */
        double f = mu * a / s;
        out[0] = a;
        out[1] = f * t1;
        out[2] = f * t2;
    }
}

void ncp_cone_project_dual(double mu, const double x[3], double out[3])
{
    double xn = x[0], t1 = x[1], t2 = x[2];
    double s = tnorm(t1, t2);
    if (mu * s <= xn) { /* inside K* */
        out[0] = xn;
        out[1] = t1;
        out[2] = t2;
    } else if (s <= -mu * xn) { /* inside the polar of K* (= -K) */
        out[0] = out[1] = out[2] = 0.0;
    } else { /* NCP report 2025 eq. 151: K*_mu = K_{1/mu}; s > 0 here */
        double t = (s + mu * xn) / (1.0 + mu * mu);
        out[0] = mu * t;
        out[1] = t * t1 / s;
        out[2] = t * t2 / s;
    }
}

void ncp_cone_project_strict(double mu, const double x[3], double out[3])
{
    /* Lee et al. 2025 eq. 17: clamp the normal, then clamp the tangent radially onto the disk of
     * radius mu * lambda_n (not the Euclidean projection). */
    double ln = x[0] > 0.0 ? x[0] : 0.0;
    double r = mu * ln;
    double s = tnorm(x[1], x[2]);
    out[0] = ln;
    if (s <= r) {
        out[1] = x[1];
        out[2] = x[2];
    } else {
        double f = r / s; /* s > r >= 0 */
        out[1] = f * x[1];
        out[2] = f * x[2];
    }
}

void ncp_cone_project_jacobian(double mu, const double x[3], double G[9])
{
    double xn = x[0], t1 = x[1], t2 = x[2];
    double s = tnorm(t1, t2);
    memset(G, 0, 9 * sizeof(double));
    if (xn >= 0.0 && s <= mu * xn) {
        G[0] = G[4] = G[8] = 1.0;
    } else if (mu * s <= -xn) {
        /* zero */
    } else {
        /* Lee et al. 2025 eq. 23 (slip), normal first, block transposes corrected:
         * G = 1/(1+mu^2) [[1, mu tb^T], [mu tb, mu^2 I + (mu xn / s) P]], P = I - tb tb^T. */
        double tb[2] = {t1 / s, t2 / s};
        double c = 1.0 / (1.0 + mu * mu);
        double q = mu * xn / s;
        G[0] = c;
        for (int a = 0; a < 2; a++) {
            G[(a + 1) + 0 * 3] = c * mu * tb[a];
            G[0 + (a + 1) * 3] = c * mu * tb[a];
            for (int b = 0; b < 2; b++) {
                double P = (a == b ? 1.0 : 0.0) - tb[a] * tb[b];
                G[(a + 1) + (b + 1) * 3] = c * (mu * mu * (a == b ? 1.0 : 0.0) + q * P);
            }
        }
    }
}

void ncp_desaxce(double mu, const double u[3], double out[3])
{
    double s = tnorm(u[1], u[2]);
    out[0] = u[0] + mu * s;
    out[1] = u[1];
    out[2] = u[2];
}

double ncp_cone_violation(double mu, const double x[3])
{
    double s = tnorm(x[1], x[2]);
    double v = s - mu * x[0];
    if (-x[0] > v) v = -x[0];
    return v > 0.0 ? v : 0.0;
}
