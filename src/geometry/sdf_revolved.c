/* Revolved-profile shapes: dishes (bowl, plate, pot) and a bottle, Lee et al. 2025 Appendix B:
 *
 *     SDF_3d(p) = SDF_2d([sqrt(p1^2 + p2^2), p3])                              (App. B)
 *     SDF_2d(p) = min(dist(p, OA), dist(p, AB)) - d                            (eq. 45)
 *
 * O on the axis, A and B in the (r, z) half-plane, d the padding (half the wall thickness).
 * We take the polyline O, A, B, C, ... (min over all its segments); the dishes use exactly
 * O-A-B, the bottle adds a shoulder and a neck. The revolution of an exact 2-D distance is an
 * exact 3-D distance here (a point is never closer to the mirrored half of the profile), so f
 * is exact and |grad f| = 1 away from the profile polyline itself (where f = -d). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/sdf_revolved.h"

static const double PI = 3.14159265358979323846;

/* 2-D signed distance f2 at (r, z) and its gradient (n_r, n_z). */
static double profile2d(const ncp_sdf *s, double r, double z, double *nr, double *nz)
{
    double best = INFINITY, qr = 0.0, qz = 0.0;
    int seg = 0;
    for (int i = 0; i + 1 < s->npts; i++) {
        const double *a = s->pts + 2 * i, *b = a + 2;
        double dr = b[0] - a[0], dz = b[1] - a[1];
        double t = ((r - a[0]) * dr + (z - a[1]) * dz) / (dr * dr + dz * dz);
        t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
        double cr = a[0] + t * dr, cz = a[1] + t * dz;
        double dd = (r - cr) * (r - cr) + (z - cz) * (z - cz);
        if (dd < best) {
            best = dd;
            qr = cr;
            qz = cz;
            seg = i;
        }
    }
    double dist = sqrt(best);
    if (nr) {
        if (dist > 1e-300) {
            *nr = (r - qr) / dist;
            *nz = (z - qz) / dist;
        } else { /* on the polyline: either normal of the segment is a subgradient */
            const double *a = s->pts + 2 * seg, *b = a + 2;
            double dr = b[0] - a[0], dz = b[1] - a[1], l = sqrt(dr * dr + dz * dz);
            *nr = -dz / l;
            *nz = dr / l;
        }
    }
    return dist - s->pad;
}

static double revolved_eval(const ncp_sdf *s, const double x[3], double grad[3])
{
    double r = sqrt(x[0] * x[0] + x[1] * x[1]), nr, nz;
    double f = profile2d(s, r, x[2], grad ? &nr : NULL, grad ? &nz : NULL);
    if (grad) {
        /* on the axis e_r is undefined; the profile starts on the axis perpendicular to it in
         * every preset, so n_r = 0 there and any e_r does */
        double ex = 1.0, ey = 0.0;
        if (r > 1e-300) {
            ex = x[0] / r;
            ey = x[1] / r;
        }
        grad[0] = nr * ex;
        grad[1] = nr * ey;
        grad[2] = nz;
    }
    return f;
}

static int revolved_mass(ncp_sdf *s, ncp_error *err)
{
    /* 2-D midpoint quadrature in (r, z) of the revolved volume element 2 pi r dr dz over
     * f2 < 0, with the covered fraction of a boundary cell taken as clamp(1/2 - f2/h, 0, 1)
     * (exact for a straight boundary through the cell centre along a grid line; second order
     * in h otherwise). h = pad/8 keeps the relative volume error below ~1e-4 for the
     * presets (checked against the analytic volume of a padded disk in test_geometry). */
    double rmax = 0.0, zmin = INFINITY, zmax = -INFINITY;
    for (int i = 0; i < s->npts; i++) {
        rmax = fmax(rmax, s->pts[2 * i]);
        zmin = fmin(zmin, s->pts[2 * i + 1]);
        zmax = fmax(zmax, s->pts[2 * i + 1]);
    }
    rmax += s->pad;
    zmin -= s->pad;
    zmax += s->pad;
    double h = s->pad / 8.0;
    double ext = fmax(rmax, zmax - zmin);
    if (ext / h > 8000.0) h = ext / 8000.0;
    long nr = (long)ceil(rmax / h), nzc = (long)ceil((zmax - zmin) / h);
    if (nr * nzc > 64L * 1000 * 1000)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: padding %g m is too thin for its %g m size "
                             "(expected padding > size / 8000)", s->label, s->pad, ext);
    double V = 0.0, Mz = 0.0, Sxx = 0.0, Szz = 0.0;
    for (long i = 0; i < nr; i++) {
        double r = (i + 0.5) * h;
        for (long j = 0; j < nzc; j++) {
            double z = zmin + (j + 0.5) * h;
            double f = profile2d(s, r, z, NULL, NULL);
            double frac = 0.5 - f / h;
            if (frac <= 0.0) continue;
            if (frac > 1.0) frac = 1.0;
            double dV = 2.0 * PI * r * h * h * frac;
            V += dV;
            Mz += z * dV;
            Sxx += 0.5 * r * r * dV; /* int x^2 dV over the ring = r^2 / 2 per unit volume */
            Szz += z * z * dV;
        }
    }
    s->volume = V;
    s->centroid[0] = s->centroid[1] = 0.0;
    s->centroid[2] = V > 0.0 ? Mz / V : 0.0;
    double Szc = Szz - V * s->centroid[2] * s->centroid[2];
    memset(s->inertia1, 0, sizeof s->inertia1);
    s->inertia1[0] = s->inertia1[4] = Sxx + Szc;
    s->inertia1[8] = 2.0 * Sxx;
    s->lo[0] = s->lo[1] = -rmax;
    s->hi[0] = s->hi[1] = rmax;
    s->lo[2] = zmin;
    s->hi[2] = zmax;
    return NCP_OK;
}

/* Pushes the revolution of the 2-D boundary point (r, z) as a ring of points. */
static int push_ring(ncp_sdf *s, int *cap, double r, double z, int parity, ncp_error *err)
{
    int n = (int)ceil(2.0 * PI * r / s->spacing);
    if (n < 1) n = 1;
    for (int j = 0; j < n; j++) {
        double th = 2.0 * PI * (j + 0.5 * parity) / n;
        int rc = ncp_sdf_push_sample(s, cap, r * cos(th), r * sin(th), z, err);
        if (rc) return rc;
    }
    return NCP_OK;
}

static int revolved_sample(ncp_sdf *s, ncp_error *err)
{
    /* The boundary of the union of the segments' 2-D capsules: each capsule's two offset lines
     * and two end arcs, sampled at arc spacing <= spacing, keeping the points on the union's
     * boundary (not inside another capsule) with r >= 0; each point is revolved into a ring. */
    const double h = s->spacing, pad = s->pad, tol = 1e-9 * (1.0 + pad);
    int cap = 0, count = 0;
    for (int i = 0; i + 1 < s->npts; i++) {
        const double *a = s->pts + 2 * i, *b = a + 2;
        double dr = b[0] - a[0], dz = b[1] - a[1], L = sqrt(dr * dr + dz * dz);
        double tr = dr / L, tz = dz / L, nr = -tz, nz = tr;
        int nl = (int)ceil(L / h), na = (int)ceil(PI * pad / h);
        for (int side = -1; side <= 1; side += 2)
            for (int q = 0; q < nl; q++) {
                double t = (q + 0.5) * L / nl;
                double r = a[0] + t * tr + side * pad * nr, z = a[1] + t * tz + side * pad * nz;
                if (r < 0.0 || fabs(profile2d(s, r, z, NULL, NULL)) > tol) continue;
                int rc = push_ring(s, &cap, r, z, count++ & 1, err);
                if (rc) return rc;
            }
        for (int end = 0; end < 2; end++) { /* half circle facing away from the segment */
            const double *c = end ? b : a;
            double base = atan2(end ? tz : -tz, end ? tr : -tr);
            for (int q = 0; q < na; q++) {
                double ang = base - 0.5 * PI + (q + 0.5) * PI / na;
                double r = c[0] + pad * cos(ang), z = c[1] + pad * sin(ang);
                if (r < 0.0 || fabs(profile2d(s, r, z, NULL, NULL)) > tol) continue;
                int rc = push_ring(s, &cap, r, z, count++ & 1, err);
                if (rc) return rc;
            }
        }
    }
    return NCP_OK;
}

int ncp_sdf_dish_preset(const char *kind, double *rz, int *npts, double *pad)
{
    /* Dimensions (m) after the YCB bowl (159 x 53 mm) and plate (258 x 24 mm), a 24 cm pot and
     * a 0.5 L bottle; O at the origin, the base's underside at
     * z = -pad. Outer size = (B_r + pad) radius, (B_z + 2 pad) height. */
    static const struct {
        const char *name;
        int n;
        double pts[2 * 5];
        double pad;
    } presets[] = {
        {"bowl", 3, {0, 0, 0.035, 0, 0.077, 0.048}, 0.0025},
        {"plate", 3, {0, 0, 0.060, 0, 0.127, 0.020}, 0.002},
        {"pot", 3, {0, 0, 0.115, 0, 0.118, 0.120}, 0.002},
        {"bottle", 5, {0, 0, 0.032, 0, 0.032, 0.150, 0.018, 0.180, 0.018, 0.200}, 0.0015},
    };
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcmp(presets[i].name, kind) == 0) {
            *npts = presets[i].n;
            memcpy(rz, presets[i].pts, 2 * (size_t)presets[i].n * sizeof(double));
            *pad = presets[i].pad;
            return 0;
        }
    return -1;
}

static const ncp_sdf_ops revolved_ops = {revolved_eval, revolved_mass, revolved_sample};

int ncp_sdf_revolved_create(const char *label, const double *rz, int npts, double pad,
                            double spacing, ncp_sdf **out, ncp_error *err)
{
    *out = NULL;
    if (npts < 2 || npts > NCP_SDF_MAX_PROFILE)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: profile has %d points (expected 2 to %d)",
                             label, npts, NCP_SDF_MAX_PROFILE);
    if (rz[0] != 0.0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: the first profile point must lie on the axis "
                             "(r = 0, point O of Lee et al. 2025 App. B), got r = %g", label, rz[0]);
    for (int i = 0; i < npts; i++) {
        if (!isfinite(rz[2 * i]) || !isfinite(rz[2 * i + 1]) || rz[2 * i] < 0.0)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: profile point %d (%g, %g) must be finite "
                                 "with r >= 0", label, i, rz[2 * i], rz[2 * i + 1]);
        if (i > 0 && hypot(rz[2 * i] - rz[2 * i - 2], rz[2 * i + 1] - rz[2 * i - 1]) <= 1e-9)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: profile points %d and %d coincide "
                                 "(expected distinct consecutive points)", label, i - 1, i);
    }
    if (!(pad > 0.0) || !(spacing > 0.0))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: padding %g m and spacing %g m must be positive",
                             label, pad, spacing);
    ncp_sdf *s = ncp_calloc(err, 1, sizeof *s);
    if (!s) return NCP_ERR_NOMEM;
    s->kind = NCP_SDF_REVOLVED;
    s->ops = &revolved_ops;
    snprintf(s->label, sizeof s->label, "%s", label);
    s->npts = npts;
    memcpy(s->pts, rz, 2 * (size_t)npts * sizeof(double));
    s->pad = pad;
    s->spacing = spacing;
    int rc = ncp_sdf_finish(s, err);
    if (rc) {
        ncp_sdf_free(s);
        return rc;
    }
    *out = s;
    return NCP_OK;
}
