/* src/core/cone.h checked against invariants and independent computations (normal FIRST):
 *   - Moreau decomposition x = Pi_K(x) + Pi_{K°}(x), K° = -K*, with orthogonality;
 *   - idempotence of every projection;
 *   - Pi_K(x) and Pi_{K*}(x) are the nearest points: brute-force search over a fine grid on
 *     the cone surface (refined once around the best cell);
 *   - mu = 0 and ||x_t|| = 0 edge cases, hand-written values;
 *   - the Jacobian of Pi_K against central finite differences away from region boundaries,
 *     and its exact values in the open / stick regions;
 *   - the strict operator's defining properties (normal clamp, then radial clamp);
 *   - the De Saxce term and the cone violation by their definitions. */
#include <math.h>
#include <string.h>

#include "core/cone.h"
#include "tcheck.h"
#include "testutil.h"

static const double MUS[] = {0.0, 0.1, 0.5, 1.0, 3.0};
#define NMU ((int)(sizeof MUS / sizeof MUS[0]))

static double tnorm(const double *x) { return sqrt(x[1] * x[1] + x[2] * x[2]); }
static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static double dist3(const double *a, const double *b)
{
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrt(dot3(d, d));
}
static void rand3(trng *r, double scale, double *x)
{
    for (int j = 0; j < 3; j++) x[j] = scale * trng_normal(r);
}
/* Membership by definition (not through ncp_cone_violation). */
static int in_K(double mu, const double *x, double tol)
{
    return x[0] >= -tol && tnorm(x) <= mu * x[0] + tol;
}
static int in_Kdual(double mu, const double *x, double tol) { return mu * tnorm(x) <= x[0] + tol; }

static void test_edge_cases(void)
{
    double out[3];
    /* mu = 0: K_0 is the ray {t = 0, n >= 0}. */
    ncp_cone_project(0.0, (double[3]){2.0, 3.0, -1.0}, out);
    CHECK_NEAR(out[0], 2.0, 1e-15);
    CHECK_NEAR(out[1], 0.0, 1e-15);
    CHECK_NEAR(out[2], 0.0, 1e-15);
    ncp_cone_project(0.0, (double[3]){-2.0, 3.0, -1.0}, out);
    CHECK_NEAR(out[0], 0.0, 1e-15);
    CHECK_NEAR(out[1], 0.0, 1e-15);
    CHECK_NEAR(out[2], 0.0, 1e-15);
    /* mu = 0: K*_0 is the half-space n >= 0. */
    ncp_cone_project_dual(0.0, (double[3]){-2.0, 3.0, -1.0}, out);
    CHECK_NEAR(out[0], 0.0, 1e-15);
    CHECK_NEAR(out[1], 3.0, 1e-15);
    CHECK_NEAR(out[2], -1.0, 1e-15);
    ncp_cone_project_dual(0.0, (double[3]){2.0, 3.0, -1.0}, out);
    CHECK_NEAR(out[0], 2.0, 1e-15);
    CHECK_NEAR(out[1], 3.0, 1e-15);
    CHECK_NEAR(out[2], -1.0, 1e-15);
    /* mu = 0 strict: normal clamp, radius 0. */
    ncp_cone_project_strict(0.0, (double[3]){2.0, 3.0, -1.0}, out);
    CHECK_NEAR(out[0], 2.0, 1e-15);
    CHECK_NEAR(out[1], 0.0, 1e-15);
    CHECK_NEAR(out[2], 0.0, 1e-15);

    for (int k = 0; k < NMU; k++) {
        double mu = MUS[k];
        /* ||x_t|| = 0: on the axis the cone and its dual both contain (+a, 0, 0) and their
         * polars contain (-a, 0, 0). */
        ncp_cone_project(mu, (double[3]){1.5, 0.0, 0.0}, out);
        CHECK_NEAR(out[0], 1.5, 1e-15);
        CHECK_NEAR(tnorm(out), 0.0, 1e-15);
        ncp_cone_project(mu, (double[3]){-1.5, 0.0, 0.0}, out);
        CHECK_NEAR(out[0], 0.0, 1e-15);
        CHECK_NEAR(tnorm(out), 0.0, 1e-15);
        ncp_cone_project_dual(mu, (double[3]){1.5, 0.0, 0.0}, out);
        CHECK_NEAR(out[0], 1.5, 1e-15);
        CHECK_NEAR(tnorm(out), 0.0, 1e-15);
        ncp_cone_project_dual(mu, (double[3]){-1.5, 0.0, 0.0}, out);
        CHECK_NEAR(out[0], 0.0, 1e-15);
        CHECK_NEAR(tnorm(out), 0.0, 1e-15);
        ncp_cone_project_strict(mu, (double[3]){-1.5, 0.0, 0.0}, out);
        CHECK_NEAR(dot3(out, out), 0.0, 1e-30);
        ncp_cone_project_strict(mu, (double[3]){1.5, 0.0, 0.0}, out);
        CHECK_NEAR(out[0], 1.5, 1e-15);
        CHECK_NEAR(tnorm(out), 0.0, 1e-15);
        /* origin */
        ncp_cone_project(mu, (double[3]){0.0, 0.0, 0.0}, out);
        CHECK_NEAR(dot3(out, out), 0.0, 1e-30);
        ncp_cone_project_dual(mu, (double[3]){0.0, 0.0, 0.0}, out);
        CHECK_NEAR(dot3(out, out), 0.0, 1e-30);
        /* Jacobian on the axis, strictly inside (stick): identity; strictly in the polar
         * cone (open): zero. */
        double G[9];
        if (mu > 0.0) {
            ncp_cone_project_jacobian(mu, (double[3]){1.0, 0.0, 0.0}, G);
            for (int i = 0; i < 9; i++) CHECK_NEAR(G[i], (i % 4 == 0) ? 1.0 : 0.0, 1e-15);
        }
        ncp_cone_project_jacobian(mu, (double[3]){-1.0, 0.0, 0.0}, G);
        for (int i = 0; i < 9; i++) CHECK_NEAR(G[i], 0.0, 1e-15);
    }

    /* A hand-computed slip projection: mu = 0.5, x = (1, 3, 4): s = 5,
     * a = (x_n + mu s)/(1 + mu^2) = (1 + 2.5)/1.25 = 2.8, Pi = (2.8, mu a (3,4)/5) =
     * (2.8, 0.84, 1.12). */
    ncp_cone_project(0.5, (double[3]){1.0, 3.0, 4.0}, out);
    CHECK_NEAR(out[0], 2.8, 1e-14);
    CHECK_NEAR(out[1], 0.84, 1e-14);
    CHECK_NEAR(out[2], 1.12, 1e-14);
    /* Dual of the same: K*_0.5 = {0.5 ||t|| <= n} = K_2; x = (1,3,4) with mu' = 2:
     * a = (1 + 2*5)/(1+4) = 2.2, Pi = (2.2, 2*2.2*(3,4)/5) = (2.2, 2.64, 3.52). */
    ncp_cone_project_dual(0.5, (double[3]){1.0, 3.0, 4.0}, out);
    CHECK_NEAR(out[0], 2.2, 1e-14);
    CHECK_NEAR(out[1], 2.64, 1e-14);
    CHECK_NEAR(out[2], 3.52, 1e-14);
    /* Strict of the same: normal 1, radius 0.5, tangent 0.5*(3,4)/5 = (0.3, 0.4). */
    ncp_cone_project_strict(0.5, (double[3]){1.0, 3.0, 4.0}, out);
    CHECK_NEAR(out[0], 1.0, 1e-15);
    CHECK_NEAR(out[1], 0.3, 1e-15);
    CHECK_NEAR(out[2], 0.4, 1e-15);
    /* Aliasing is allowed for ncp_cone_project. */
    double x[3] = {1.0, 3.0, 4.0};
    ncp_cone_project(0.5, x, x);
    CHECK_NEAR(x[0], 2.8, 1e-14);
    CHECK_NEAR(x[1], 0.84, 1e-14);
    CHECK_NEAR(x[2], 1.12, 1e-14);
}

/* Moreau: x = Pi_K(x) + Pi_{K°}(x) with Pi_{K°}(x) = -Pi_{K*}(-x), the two parts orthogonal;
 * each part in its cone; idempotence; the projection is a contraction toward K. */
static void test_moreau_idempotence(void)
{
    trng r = {12345};
    for (int k = 0; k < NMU; k++) {
        double mu = MUS[k];
        for (int it = 0; it < 2000; it++) {
            double x[3], p[3], q[3], mx[3], pp[3], d[3], dd[3];
            rand3(&r, it % 3 == 0 ? 100.0 : 1.0, x);
            double sc = fmax(1.0, sqrt(dot3(x, x)));
            ncp_cone_project(mu, x, p);
            for (int j = 0; j < 3; j++) mx[j] = -x[j];
            ncp_cone_project_dual(mu, mx, q);
            for (int j = 0; j < 3; j++) q[j] = -q[j]; /* Pi_{K°}(x) */
            for (int j = 0; j < 3; j++) CHECK_NEAR(p[j] + q[j], x[j], 1e-13 * sc);
            CHECK_NEAR(dot3(p, q), 0.0, 1e-12 * sc * sc);
            CHECK(in_K(mu, p, 1e-13 * sc));
            double mq[3] = {-q[0], -q[1], -q[2]};
            CHECK(in_Kdual(mu, mq, 1e-13 * sc));
            /* idempotence */
            ncp_cone_project(mu, p, pp);
            for (int j = 0; j < 3; j++) CHECK_NEAR(pp[j], p[j], 1e-13 * sc);
            ncp_cone_project_dual(mu, x, d);
            CHECK(in_Kdual(mu, d, 1e-13 * sc));
            ncp_cone_project_dual(mu, d, dd);
            for (int j = 0; j < 3; j++) CHECK_NEAR(dd[j], d[j], 1e-13 * sc);
            ncp_cone_project_strict(mu, x, d);
            CHECK(in_K(mu, d, 1e-13 * sc));
            ncp_cone_project_strict(mu, d, dd);
            for (int j = 0; j < 3; j++) CHECK_NEAR(dd[j], d[j], 1e-13 * sc);
            /* a point of K is its own projection */
            if (in_K(mu, x, 0.0)) {
                for (int j = 0; j < 3; j++) CHECK_NEAR(p[j], x[j], 1e-15 * sc);
            }
        }
    }
}

/* Squared distance from x to the surface point of K_mu (cone = 0) or K*_mu (cone = 1) with
 * radius parameter rr and angle th. K boundary: (r, mu r cos, mu r sin); K* boundary:
 * (mu r, r cos, r sin) (for mu = 0 this sweeps the whole plane n = 0, the boundary of K*_0). */
static double surf_d2(int cone, double mu, const double *x, double rr, double th, double *pt)
{
    double c = cos(th), s = sin(th);
    if (cone == 0) {
        pt[0] = rr;
        pt[1] = mu * rr * c;
        pt[2] = mu * rr * s;
    } else {
        pt[0] = mu * rr;
        pt[1] = rr * c;
        pt[2] = rr * s;
    }
    double d0 = x[0] - pt[0], d1 = x[1] - pt[1], d2 = x[2] - pt[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* Brute-force nearest point on the cone surface: a 1200 x 720 grid over (r, theta), then a
 * 200 x 200 grid over the 4 x 4 cells around the best point. Only used for x outside the
 * cone, whose nearest point lies on the surface. */
static double brute_dist(int cone, double mu, const double *x, double rmax)
{
    const int NR = 1200, NT = 720;
    const double TWO_PI = 6.283185307179586;
    double pt[3], best = INFINITY, br = 0.0, bt = 0.0;
    for (int i = 0; i <= NR; i++) {
        double rr = rmax * i / NR;
        for (int j = 0; j < NT; j++) {
            double th = TWO_PI * j / NT;
            double d2 = surf_d2(cone, mu, x, rr, th, pt);
            if (d2 < best) {
                best = d2;
                br = rr;
                bt = th;
            }
        }
    }
    double dr = rmax / NR, dt = TWO_PI / NT;
    for (int i = 0; i <= 200; i++) {
        double rr = fmax(0.0, br - 2.0 * dr + 4.0 * dr * i / 200);
        for (int j = 0; j <= 200; j++) {
            double th = bt - 2.0 * dt + 4.0 * dt * j / 200;
            double d2 = surf_d2(cone, mu, x, rr, th, pt);
            if (d2 < best) best = d2;
        }
    }
    return sqrt(best);
}

static void test_nearest_point(void)
{
    trng r = {777};
    const double mus[] = {0.0, 0.3, 1.0, 2.0};
    for (int k = 0; k < 4; k++) {
        double mu = mus[k];
        for (int cone = 0; cone < 2; cone++) {
            int done = 0;
            while (done < 4) {
                double x[3], p[3];
                rand3(&r, 1.0, x);
                if (cone == 0 ? in_K(mu, x, 0.0) : in_Kdual(mu, x, 0.0)) continue;
                done++;
                if (cone == 0)
                    ncp_cone_project(mu, x, p);
                else
                    ncp_cone_project_dual(mu, x, p);
                double dp = dist3(x, p);
                /* the nearest point of a cone lies within ||x|| of the apex */
                double xn = sqrt(dot3(x, x));
                double rmax = 1.05 * xn; /* surface point norm = r sqrt(1 + mu^2) <= ||x|| */
                double db = brute_dist(cone, mu, x, rmax);
                /* The projection is in the cone and no grid point is closer than it (it is
                 * the minimiser); the refined grid gets within 1e-6 of it. */
                CHECK(cone == 0 ? in_K(mu, p, 1e-14) : in_Kdual(mu, p, 1e-14));
                CHECK(dp <= db + 1e-12);
                CHECK_NEAR(db, dp, 1e-6);
            }
        }
    }
}

/* Generalised Jacobian against central differences, away from the region boundaries. */
static void test_jacobian(void)
{
    trng r = {4242};
    int tested[3] = {0, 0, 0}; /* open, stick, slip */
    for (int k = 0; k < NMU; k++) {
        double mu = MUS[k];
        for (int it = 0; it < 600; it++) {
            double x[3], G[9];
            rand3(&r, 1.0, x);
            double s = tnorm(x);
            /* margins to the boundaries stick/slip (s = mu x_n) and slip/open (mu s = -x_n),
             * measured as distances to the boundary surfaces */
            double m1 = fabs(s - mu * x[0]) / sqrt(1.0 + mu * mu);
            double m2 = fabs(mu * s + x[0]) / sqrt(1.0 + mu * mu);
            if (m1 < 1e-2 || m2 < 1e-2 || s < 1e-2) continue;
            int region = (s <= mu * x[0]) ? 1 : (mu * s <= -x[0]) ? 0 : 2;
            tested[region]++;
            ncp_cone_project_jacobian(mu, x, G);
            const double h = 1e-6;
            for (int j = 0; j < 3; j++) {
                double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]}, pp[3], pm[3];
                xp[j] += h;
                xm[j] -= h;
                ncp_cone_project(mu, xp, pp);
                ncp_cone_project(mu, xm, pm);
                for (int i = 0; i < 3; i++)
                    CHECK_NEAR(G[i + 3 * j], (pp[i] - pm[i]) / (2.0 * h), 1e-6);
            }
            /* the projection's Jacobian is symmetric with eigenvalues in [0, 1] */
            CHECK_NEAR(G[1], G[3], 1e-14);
            CHECK_NEAR(G[2], G[6], 1e-14);
            CHECK_NEAR(G[5], G[7], 1e-14);
            if (region == 1)
                for (int i = 0; i < 9; i++) CHECK_NEAR(G[i], (i % 4 == 0) ? 1.0 : 0.0, 1e-15);
            if (region == 0)
                for (int i = 0; i < 9; i++) CHECK_NEAR(G[i], 0.0, 1e-15);
        }
    }
    /* every region was exercised (mu = 0 has no stick region of positive measure) */
    CHECK(tested[0] > 100);
    CHECK(tested[1] > 100);
    CHECK(tested[2] > 100);
}

/* Strict operator (Lee et al. 2025 eq. 17): lambda_n = max(x_n, 0), then the tangent is clamped
 * radially to the disk of radius mu lambda_n. */
static void test_strict(void)
{
    trng r = {99};
    int clamped = 0, kept = 0;
    for (int k = 0; k < NMU; k++) {
        double mu = MUS[k];
        for (int it = 0; it < 2000; it++) {
            double x[3], out[3];
            rand3(&r, 1.0, x);
            ncp_cone_project_strict(mu, x, out);
            double n = x[0] > 0.0 ? x[0] : 0.0;
            CHECK_NEAR(out[0], n, 0.0);
            double s = tnorm(x), rad = mu * n;
            if (s <= rad) {
                kept++;
                CHECK_NEAR(out[1], x[1], 0.0);
                CHECK_NEAR(out[2], x[2], 0.0);
            } else {
                clamped++;
                /* same direction as x_t, length exactly the radius */
                CHECK_NEAR(tnorm(out), rad, 1e-15);
                CHECK_NEAR(out[1] * x[2] - out[2] * x[1], 0.0, 1e-15);
                CHECK(out[1] * x[1] + out[2] * x[2] >= 0.0);
            }
            /* it is not the Euclidean projection in the slip region: the normal never moves
             * there, whereas Pi_K raises or lowers it (checked on a hand case above). */
            CHECK(in_K(mu, out, 1e-15));
        }
    }
    CHECK(clamped > 100);
    CHECK(kept > 100);
}

static void test_desaxce_violation(void)
{
    trng r = {5};
    for (int k = 0; k < NMU; k++) {
        double mu = MUS[k];
        for (int it = 0; it < 200; it++) {
            double u[3], out[3];
            rand3(&r, 1.0, u);
            ncp_desaxce(mu, u, out);
            CHECK_NEAR(out[0], u[0] + mu * hypot(u[1], u[2]), 1e-15);
            CHECK_NEAR(out[1], u[1], 0.0);
            CHECK_NEAR(out[2], u[2], 0.0);
            /* u + Gamma(u) is in K* exactly when u_n >= 0 */
            CHECK((in_Kdual(mu, out, 1e-14) == (u[0] >= -1e-14)) || fabs(u[0]) < 1e-12);
            double v = ncp_cone_violation(mu, u);
            double want = fmax(0.0, fmax(hypot(u[1], u[2]) - mu * u[0], -u[0]));
            CHECK_NEAR(v, want, 1e-15);
            CHECK((v == 0.0) == in_K(mu, u, 0.0));
        }
    }
    /* hand values: mu = 0.5, x = (1, 3, 4): ||x_t|| - mu x_n = 5 - 0.5 = 4.5 */
    CHECK_NEAR(ncp_cone_violation(0.5, (double[3]){1.0, 3.0, 4.0}), 4.5, 1e-15);
    /* x = (-2, 0, 0): -x_n = 2, ||x_t|| - mu x_n = 1 -> 2 */
    CHECK_NEAR(ncp_cone_violation(0.5, (double[3]){-2.0, 0.0, 0.0}), 2.0, 1e-15);
    CHECK_NEAR(ncp_cone_violation(0.5, (double[3]){2.0, 0.6, 0.8}), 0.0, 0.0);
}

int main(void)
{
    test_edge_cases();
    test_moreau_idempotence();
    test_nearest_point();
    test_jacobian();
    test_strict();
    test_desaxce_violation();
    return tcheck_exit("cone");
}
