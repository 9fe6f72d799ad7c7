/* Helical ISO metric thread: bolt (external thread) and hex nut (internal thread).
 *
 * Basic profile (ISO 68-1), in the meridional half-plane with
 * s the axial distance from the centre of a bolt crest, folded into one half period
 * s in [0, P/2], and r the radius:
 *     crest  r = d/2    for s in [0, P/16]            (flat P/8 wide)
 *     flank  r = d/2 - sqrt(3) (s - P/16)  for s in [P/16, 3P/8]   (60 degree thread)
 *     root   r = d1/2   for s in [3P/8, P/2]          (flat P/4 wide; d1 = d - 5H/4)
 * The same curve bounds the nut: its crest flat is the bolt's root flat (at D1 = d1) and its
 * root flat the bolt's crest flat (at D = d), as in the standard. The bolt's ISO-rounded root
 * (d3) is not modelled: with the basic profile the nut crest clears it anyway.
 *
 * Helix (the meridional-section SDF of deadsy/sdfx screw.go):
 * right-hand single start, u = z - k theta (k = P / 2 pi), s = |u - P round(u / P)|. g(r, s)
 * is the exact 2-D distance to the profile (both fold lines meet the profile at right angles,
 * so folding does not change it), negative inside the bolt. In 3-D,
 *     grad g = g_r e_r + g_u (e_z - (k / r) e_theta),
 * whose norm is at most lambda(r) = sqrt(1 + k^2 / r^2); we use f = g / lambda_c with
 * lambda_c = lambda(r_c), r_c = d1/2 - P, so f is 1-Lipschitz within one pitch of the thread
 * and has the exact zero set; the e_theta term tilts flank normals by the lead angle, which
 * couples axial force and torque in screwing (kept on purpose).
 *
 *   bolt: f = max(g / lambda_c + clearance, -z, z - length)
 *   nut:  f = max(hexprism(x; width_af, height), -g / lambda_c)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/sdf_thread.h"

static const double PI = 3.14159265358979323846;

/* Profile radius R(s) for s in [0, P/2] (basic profile, no clearance). */
static double profile_radius(const ncp_thread_geom *t, double s)
{
    double R1 = 0.5 * t->d, R0 = 0.5 * t->d1;
    if (s <= t->P / 16.0) return R1;
    if (s >= 3.0 * t->P / 8.0) return R0;
    return R1 - sqrt(3.0) * (s - t->P / 16.0);
}

/* Radius of the profile at phase u (any real). */
static double radius_at_phase(const ncp_thread_geom *t, double u)
{
    double uw = u - t->P * floor(u / t->P + 0.5);
    return profile_radius(t, fabs(uw));
}

/* Signed meridional distance g (negative for r < R) and its derivatives with respect to r and
 * to the phase u. The three segments are written out (crest and root horizontal, the flank
 * along the unit direction (1/2, -sqrt3/2) over 5P/8), so no division is needed. */
static double meridional(const ncp_thread_geom *t, double r, double u, double *gr, double *gu)
{
    const double P = t->P, R1 = 0.5 * t->d, R0 = 0.5 * t->d1, h3 = 0.8660254037844386;
    double uw = u - P * floor(u / P + 0.5), s = fabs(uw), sg = uw >= 0.0 ? 1.0 : -1.0;
    /* crest: s in [0, P/16] at R1 */
    double cs = s < P / 16.0 ? s : P / 16.0;
    double best = (s - cs) * (s - cs) + (r - R1) * (r - R1), qs = cs, qr = R1;
    int seg = 0;
    /* flank from (P/16, R1) along (1/2, -sqrt3/2), length 5P/8 */
    double tt = 0.5 * (s - P / 16.0) - h3 * (r - R1);
    tt = tt < 0.0 ? 0.0 : (tt > 0.625 * P ? 0.625 * P : tt);
    double fs = P / 16.0 + 0.5 * tt, fr = R1 - h3 * tt;
    double dd = (s - fs) * (s - fs) + (r - fr) * (r - fr);
    if (dd < best) best = dd, qs = fs, qr = fr, seg = 1;
    /* root: s in [3P/8, P/2] at R0 */
    cs = s > 0.375 * P ? s : 0.375 * P;
    dd = (s - cs) * (s - cs) + (r - R0) * (r - R0);
    if (dd < best) best = dd, qs = cs, qr = R0, seg = 2;
    double dist = sqrt(best);
    double sign = r < profile_radius(t, s) ? -1.0 : 1.0;
    double ns, nr;
    if (dist > 1e-14 * (R1 + P)) {
        ns = (s - qs) / dist;
        nr = (r - qr) / dist;
    } else { /* on the curve: the segment's normal towards larger r (outside the bolt) */
        ns = seg == 1 ? h3 : 0.0;
        nr = seg == 1 ? 0.5 : 1.0;
        sign = 1.0;
    }
    *gr = sign * nr;
    *gu = sign * ns * sg;
    return sign * dist;
}

/* Thread term in 3-D: g / lambda_c and its gradient (sign +1 bolt, -1 nut). */
static double thread_term(const ncp_thread_geom *t, const double x[3], double sign, double grad[3])
{
    double r = sqrt(x[0] * x[0] + x[1] * x[1]);
    double theta = atan2(x[1], x[0]);
    double gr, gu;
    double g = meridional(t, r, x[2] - t->k * theta, &gr, &gu);
    if (grad) {
        double er[3] = {1.0, 0.0, 0.0}, et[3] = {0.0, 1.0, 0.0}, kr = 0.0;
        if (r > 1e-12) {
            er[0] = x[0] / r;
            er[1] = x[1] / r;
            et[0] = -er[1];
            et[1] = er[0];
            kr = t->k / r;
        }
        for (int i = 0; i < 3; i++)
            grad[i] = sign * (gr * er[i] + gu * ((i == 2 ? 1.0 : 0.0) - kr * et[i])) / t->lambda_c;
    }
    return sign * g / t->lambda_c;
}

/* Exact SDF of the regular hexagon with apothem a (flats normal to +-y and at +-60 degrees),
 * after Inigo Quilez's 2-D hexagon: fold into one sector, distance to one flat. */
static double hexagon(double px, double py, double a, double g[2])
{
    const double kx = -0.8660254037844386, ky = 0.5, kz = 0.5773502691896258;
    double sx = px < 0.0 ? -1.0 : 1.0, sy = py < 0.0 ? -1.0 : 1.0;
    double x = fabs(px), y = fabs(py);
    double dt = kx * x + ky * y;
    int refl = dt < 0.0;
    if (refl) {
        x -= 2.0 * dt * kx;
        y -= 2.0 * dt * ky;
    }
    double cx = x < -kz * a ? -kz * a : (x > kz * a ? kz * a : x);
    double qx = x - cx, qy = y - a;
    double len = sqrt(qx * qx + qy * qy), sg = qy < 0.0 ? -1.0 : 1.0;
    double gx, gy;
    if (len > 1e-300) {
        gx = sg * qx / len;
        gy = sg * qy / len;
    } else {
        gx = 0.0;
        gy = 1.0;
    }
    if (refl) { /* H = I - 2 k k^T is its own transpose */
        double d2 = kx * gx + ky * gy;
        gx -= 2.0 * d2 * kx;
        gy -= 2.0 * d2 * ky;
    }
    g[0] = sx * gx;
    g[1] = sy * gy;
    return len * sg;
}

/* Hexagonal prism |z| <= half_h, exact (extrusion of an exact 2-D SDF). */
static double hexprism(const double x[3], double apothem, double half_h, double grad[3])
{
    double g2[2];
    double d2 = hexagon(x[0], x[1], apothem, g2);
    double dz = fabs(x[2]) - half_h, sz = x[2] < 0.0 ? -1.0 : 1.0;
    if (d2 > 0.0 && dz > 0.0) {
        double l = sqrt(d2 * d2 + dz * dz);
        if (grad) {
            grad[0] = d2 * g2[0] / l;
            grad[1] = d2 * g2[1] / l;
            grad[2] = dz * sz / l;
        }
        return l;
    }
    if (d2 >= dz) {
        if (grad) {
            grad[0] = g2[0];
            grad[1] = g2[1];
            grad[2] = 0.0;
        }
        return d2;
    }
    if (grad) {
        grad[0] = grad[1] = 0.0;
        grad[2] = sz;
    }
    return dz;
}

static double thread_eval(const ncp_sdf *s, const double x[3], double grad[3])
{
    const ncp_thread_geom *t = &s->th;
    double g[3];
    if (s->kind == NCP_SDF_BOLT) {
        double f = thread_term(t, x, 1.0, grad ? g : NULL) + t->clearance;
        double fb = -x[2], ft = x[2] - t->length;
        if (grad) memcpy(grad, g, sizeof g);
        if (fb > f) {
            f = fb;
            if (grad) grad[0] = grad[1] = 0.0, grad[2] = -1.0;
        }
        if (ft > f) {
            f = ft;
            if (grad) grad[0] = grad[1] = 0.0, grad[2] = 1.0;
        }
        return f;
    }
    double fb = thread_term(t, x, -1.0, grad ? g : NULL);
    /* The hexagon contains the disk of its apothem a, so hexprism <= max(r - a, |z| - h/2)
     * inside the slab and the cylinder: when that bound is below the bore term the prism
     * cannot win the max (saves the prism in the bore, where most queries land). */
    double a = 0.5 * t->width_af, dz = fabs(x[2]) - 0.5 * t->length;
    double rr = sqrt(x[0] * x[0] + x[1] * x[1]) - a;
    if (rr <= 0.0 && dz <= 0.0 && (rr > dz ? rr : dz) < fb) {
        if (grad) memcpy(grad, g, sizeof g);
        return fb;
    }
    double fh = hexprism(x, a, 0.5 * t->length, grad);
    if (fb > fh) {
        if (grad) memcpy(grad, g, sizeof g);
        return fb;
    }
    return fh;
}

/* ---- mass properties ---- */

/* Second moments of a solid bounded by r <= R(theta, z) for z in [z0, z1], by midpoint
 * quadrature in (theta, z) with the radial integrals done exactly:
 * V = int R^2/2, int x dV = int R^3/3 cos, int x^2 dV = int R^4/4 cos^2, ... Outputs the
 * volume, first moments m1 and the second-moment matrix S = int x x^T dV (about the origin). */
static void radial_moments(const ncp_thread_geom *t, double clearance, double z0, double z1,
                           double *V, double m1[3], double S[9])
{
    const int nth = 256;
    int nz = (int)ceil((z1 - z0) / (t->P / 256.0));
    if (nz < 64) nz = 64;
    double dth = 2.0 * PI / nth, dz = (z1 - z0) / nz, w = dth * dz;
    *V = 0.0;
    memset(m1, 0, 3 * sizeof(double));
    memset(S, 0, 9 * sizeof(double));
    for (int i = 0; i < nth; i++) {
        double th = (i + 0.5) * dth, c = cos(th), sn = sin(th);
        for (int j = 0; j < nz; j++) {
            double z = z0 + (j + 0.5) * dz;
            double R = radius_at_phase(t, z - t->k * th) - clearance;
            double R2 = R * R, R3 = R2 * R, R4 = R2 * R2;
            *V += w * R2 / 2.0;
            m1[0] += w * c * R3 / 3.0;
            m1[1] += w * sn * R3 / 3.0;
            m1[2] += w * z * R2 / 2.0;
            S[0] += w * c * c * R4 / 4.0;
            S[4] += w * sn * sn * R4 / 4.0;
            S[8] += w * z * z * R2 / 2.0;
            S[1] += w * c * sn * R4 / 4.0;
            S[2] += w * z * c * R3 / 3.0;
            S[5] += w * z * sn * R3 / 3.0;
        }
    }
    S[3] = S[1];
    S[6] = S[2];
    S[7] = S[5];
}

/* Unit-density inertia about the centroid from volume, first and second moments. */
static void inertia_from_moments(double V, const double m1[3], const double S[9], double c[3],
                                 double I[9])
{
    for (int k = 0; k < 3; k++) c[k] = m1[k] / V;
    double Sc[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Sc[3 * i + j] = S[3 * i + j] - V * c[i] * c[j];
    double tr = Sc[0] + Sc[4] + Sc[8];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) I[3 * i + j] = (i == j ? tr : 0.0) - Sc[3 * i + j];
}

static int thread_mass(ncp_sdf *s, ncp_error *err)
{
    (void)err;
    const ncp_thread_geom *t = &s->th;
    double V, m1[3], S[9];
    if (s->kind == NCP_SDF_BOLT) {
        /* the clearance offsets the surface along its normal; moving it radially instead
         * changes the volume by less than 0.1 % for the flanks' 30 degrees */
        radial_moments(t, t->clearance, 0.0, t->length, &V, m1, S);
        double R = 0.5 * t->d;
        s->lo[0] = s->lo[1] = -R;
        s->hi[0] = s->hi[1] = R;
        s->lo[2] = 0.0;
        s->hi[2] = t->length;
    } else {
        /* hexagonal prism (apothem a, circumradius 2a/sqrt3, height m) minus the bore:
         * area 2 sqrt3 a^2, in-plane second moments int x^2 dA = int y^2 dA = 5 sqrt3 / 16 R^4
         * (R the circumradius) */
        double a = 0.5 * t->width_af, Rc = 2.0 * a / sqrt(3.0), m = t->length;
        double Vh = 2.0 * sqrt(3.0) * a * a * m;
        double Vb, b1[3], Sb[9];
        radial_moments(t, 0.0, -0.5 * m, 0.5 * m, &Vb, b1, Sb);
        double Sh[9] = {0};
        Sh[0] = Sh[4] = 5.0 * sqrt(3.0) / 16.0 * Rc * Rc * Rc * Rc * m;
        Sh[8] = Vh * m * m / 12.0;
        V = Vh - Vb;
        for (int k = 0; k < 3; k++) m1[k] = -b1[k];
        for (int k = 0; k < 9; k++) S[k] = Sh[k] - Sb[k];
        s->lo[0] = -Rc;
        s->hi[0] = Rc;
        s->lo[1] = -a;
        s->hi[1] = a;
        s->lo[2] = -0.5 * m;
        s->hi[2] = 0.5 * m;
    }
    s->volume = V;
    inertia_from_moments(V, m1, S, s->centroid, s->inertia1);
    return NCP_OK;
}

/* ---- surface samples (candidates; sdf.c projects them onto f = 0) ---- */

/* Samples of the helical surface r = R(z - k theta) for z in [z0, z1]: for each of n_theta
 * meridians, points along the profile polyline at arc spacing <= h over every period that
 * meets [z0, z1]. */
static int sample_helicoid(ncp_sdf *s, int *cap, double z0, double z1, double radial_shift,
                           ncp_error *err)
{
    const ncp_thread_geom *t = &s->th;
    const double P = t->P, R1 = 0.5 * t->d, R0 = 0.5 * t->d1, h = s->spacing;
    /* one period of the unfolded profile, u from -P/2 to P/2 */
    const double pu[6] = {-P / 2, -3 * P / 8, -P / 16, P / 16, 3 * P / 8, P / 2};
    const double pr[6] = {R0, R0, R1, R1, R0, R0};
    int nth = (int)ceil(2.0 * PI * R1 / h);
    for (int i = 0; i < nth; i++) {
        double th = 2.0 * PI * i / nth, c = cos(th), sn = sin(th);
        double shift = t->k * th;
        long n0 = (long)floor((z0 - shift) / P) - 1, n1 = (long)ceil((z1 - shift) / P) + 1;
        for (long n = n0; n <= n1; n++)
            for (int sgi = 0; sgi < 5; sgi++) {
                double du = pu[sgi + 1] - pu[sgi], dr = pr[sgi + 1] - pr[sgi];
                int ns = (int)ceil(sqrt(du * du + dr * dr) / h);
                for (int q = 0; q < ns; q++) {
                    double tt = (q + 0.5) / ns;
                    double z = pu[sgi] + tt * du + shift + n * P, r = pr[sgi] + tt * dr + radial_shift;
                    if (z < z0 || z > z1) continue;
                    int rc = ncp_sdf_push_sample(s, cap, r * c, r * sn, z, err);
                    if (rc) return rc;
                }
            }
    }
    return NCP_OK;
}

/* Polar grid on the plane z = zc for r0 <= r <= r1; keeps the points on or inside the solid
 * (a cap point beyond the thread lies outside and would project onto the flanks). */
static int sample_disk(ncp_sdf *s, int *cap, double zc, double r0, double r1, ncp_error *err)
{
    const double h = s->spacing;
    int nr = (int)ceil((r1 - r0) / h);
    for (int i = 0; i < nr; i++) {
        double r = r0 + (i + 0.5) * (r1 - r0) / nr;
        int nth = (int)ceil(2.0 * PI * r / h);
        if (nth < 3) nth = 3;
        for (int j = 0; j < nth; j++) {
            double th = 2.0 * PI * (j + 0.5 * (i & 1)) / nth;
            double x[3] = {r * cos(th), r * sin(th), zc};
            if (thread_eval(s, x, NULL) > 1e-9) continue;
            int rc = ncp_sdf_push_sample(s, cap, x[0], x[1], x[2], err);
            if (rc) return rc;
        }
    }
    return NCP_OK;
}

static int thread_sample(ncp_sdf *s, ncp_error *err)
{
    const ncp_thread_geom *t = &s->th;
    int cap = 0, rc;
    if (s->kind == NCP_SDF_BOLT) {
        rc = sample_helicoid(s, &cap, 0.0, t->length, -t->clearance, err);
        if (!rc) rc = sample_disk(s, &cap, 0.0, 0.0, 0.5 * t->d, err);
        if (!rc) rc = sample_disk(s, &cap, t->length, 0.0, 0.5 * t->d, err);
        return rc;
    }
    double a = 0.5 * t->width_af, Rc = 2.0 * a / sqrt(3.0), hm = 0.5 * t->length, h = s->spacing;
    rc = sample_helicoid(s, &cap, -hm, hm, 0.0, err);
    if (!rc) rc = sample_disk(s, &cap, -hm, 0.5 * t->d1 - h, Rc, err);
    if (!rc) rc = sample_disk(s, &cap, hm, 0.5 * t->d1 - h, Rc, err);
    /* the six side faces: outward normals at 30 + 60 i degrees, side length Rc */
    int nu = (int)ceil(Rc / h), nz = (int)ceil(t->length / h);
    for (int f = 0; f < 6 && !rc; f++) {
        double ph = PI / 6.0 + f * PI / 3.0, nx = cos(ph), ny = sin(ph);
        for (int i = 0; i < nu && !rc; i++) {
            double tau = -0.5 * Rc + (i + 0.5) * Rc / nu;
            for (int j = 0; j < nz && !rc; j++) {
                double z = -hm + (j + 0.5) * t->length / nz;
                rc = ncp_sdf_push_sample(s, &cap, a * nx - tau * ny, a * ny + tau * nx, z, err);
            }
        }
    }
    return rc;
}

/* ---- creation ---- */

static int thread_common(ncp_sdf *s, double d, double P, ncp_error *err)
{
    if (!(d > 0.0) || !(P > 0.0) || !(P < 0.4 * d))
        return ncp_error_set(err, NCP_ERR_INPUT, "thread: diameter %g m and pitch %g m are not a "
                             "valid thread (expected 0 < pitch < 0.4 diameter)", d, P);
    ncp_thread_geom *t = &s->th;
    t->d = d;
    t->P = P;
    t->d1 = d - 1.25 * sqrt(3.0) / 2.0 * P; /* d - 2 (5H/8), H = sqrt3/2 P */
    t->k = P / (2.0 * PI);
    double rc = 0.5 * t->d1 - P;
    t->lambda_c = sqrt(1.0 + t->k * t->k / (rc * rc));
    return NCP_OK;
}

static const ncp_sdf_ops thread_ops = {thread_eval, thread_mass, thread_sample};

int ncp_sdf_bolt_create(double d, double P, double length, double clearance, double spacing,
                        ncp_sdf **out, ncp_error *err)
{
    *out = NULL;
    if (!(length > 0.0) || !(clearance >= 0.0) || !(spacing > 0.0))
        return ncp_error_set(err, NCP_ERR_INPUT, "bolt: length %g m, clearance %g m and spacing %g m "
                             "must be positive (clearance >= 0)", length, clearance, spacing);
    ncp_sdf *s = ncp_calloc(err, 1, sizeof *s);
    if (!s) return NCP_ERR_NOMEM;
    s->kind = NCP_SDF_BOLT;
    s->ops = &thread_ops;
    snprintf(s->label, sizeof s->label, "bolt");
    s->spacing = spacing;
    int rc = thread_common(s, d, P, err);
    if (!rc && !(clearance < 0.05 * P))
        rc = ncp_error_set(err, NCP_ERR_INPUT, "bolt: clearance %g m is too large for pitch %g m "
                           "(expected < pitch / 20)", clearance, P);
    s->th.length = length;
    s->th.clearance = clearance;
    if (!rc) rc = ncp_sdf_finish(s, err);
    if (rc) {
        ncp_sdf_free(s);
        return rc;
    }
    *out = s;
    return NCP_OK;
}

int ncp_sdf_nut_create(double D, double P, double height, double width_af, double spacing,
                       ncp_sdf **out, ncp_error *err)
{
    *out = NULL;
    if (!(height > 0.0) || !(spacing > 0.0))
        return ncp_error_set(err, NCP_ERR_INPUT, "nut: height %g m and spacing %g m must be positive",
                             height, spacing);
    if (!(width_af > D * 1.05))
        return ncp_error_set(err, NCP_ERR_INPUT, "nut: width across flats %g m must exceed the "
                             "thread diameter %g m by at least 5%%", width_af, D);
    ncp_sdf *s = ncp_calloc(err, 1, sizeof *s);
    if (!s) return NCP_ERR_NOMEM;
    s->kind = NCP_SDF_NUT;
    s->ops = &thread_ops;
    snprintf(s->label, sizeof s->label, "nut");
    s->spacing = spacing;
    int rc = thread_common(s, D, P, err);
    s->th.length = height;
    s->th.width_af = width_af;
    if (!rc) rc = ncp_sdf_finish(s, err);
    if (rc) {
        ncp_sdf_free(s);
        return rc;
    }
    *out = s;
    return NCP_OK;
}
