/* Signed distance shapes: dispatch, surface sample post-processing, mass properties in the
 * shape frame (see sdf.h). The geometry of each kind lives in sdf_thread.c and
 * sdf_revolved.c, reached through the shape's ops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/sdf.h"

static double geom_eval(const ncp_sdf *s, const double x[3], double grad[3])
{
    return s->ops->eval(s, x, grad);
}

double ncp_sdf_eval(const ncp_sdf *s, const double x[3], double grad[3])
{
    double xg[3] = {x[0] + s->centroid[0], x[1] + s->centroid[1], x[2] + s->centroid[2]};
    return geom_eval(s, xg, grad);
}

double ncp_sdf_volume(const ncp_sdf *s) { return s->volume; }

void ncp_sdf_inertia(const ncp_sdf *s, double mass, double I[9])
{
    double rho = s->volume > 0.0 ? mass / s->volume : 0.0;
    for (int i = 0; i < 9; i++) I[i] = rho * s->inertia1[i];
}

void ncp_sdf_free(ncp_sdf *s)
{
    if (!s) return;
    free(s->samples);
    free(s);
}

int ncp_sdf_push_sample(ncp_sdf *s, int *cap, double x, double y, double z, ncp_error *err)
{
    if (s->nsamples == *cap) {
        int nc = *cap ? 2 * *cap : 4096;
        if (nc > (1 << 24))
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: more than %d surface samples; use a "
                                 "larger sample spacing than %g m", s->label, 1 << 24, s->spacing);
        double *ns = realloc(s->samples, 3 * (size_t)nc * sizeof(double));
        if (!ns) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory sampling the %s surface", s->label);
        s->samples = ns;
        *cap = nc;
    }
    double *p = s->samples + 3 * (size_t)s->nsamples++;
    p[0] = x;
    p[1] = y;
    p[2] = z;
    return NCP_OK;
}

static int cmp_z(const void *a, const void *b)
{
    const double *p = a, *q = b;
    for (int k = 2; k >= 0; k--) /* z, then y, then x: a total order, so sorting is deterministic */
        if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
    return 0;
}

void ncp_sdf_sample_range(const ncp_sdf *s, double zlo, double zhi, int *i0, int *i1)
{
    int lo = 0, hi = s->nsamples;
    while (lo < hi) { /* first with z >= zlo */
        int mid = lo + (hi - lo) / 2;
        if (s->samples[3 * (size_t)mid + 2] < zlo) lo = mid + 1;
        else hi = mid;
    }
    *i0 = lo;
    hi = s->nsamples;
    while (lo < hi) { /* first with z > zhi */
        int mid = lo + (hi - lo) / 2;
        if (s->samples[3 * (size_t)mid + 2] <= zhi) lo = mid + 1;
        else hi = mid;
    }
    *i1 = lo;
}

int ncp_sdf_finish(ncp_sdf *s, ncp_error *err)
{
    if (s->max_contacts <= 0) s->max_contacts = NCP_SDF_DEFAULT_MAX_CONTACTS;
    int rc = s->ops->mass(s, err);
    if (rc) return rc;
    if (!(s->volume > 0.0) || !isfinite(s->volume))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: the shape has no volume (check its "
                             "dimensions)", s->label);
    rc = s->ops->sample(s, err);
    if (rc) return rc;
    /* Project every candidate onto f = 0 (two Newton steps along the gradient: exact on flat
     * and straight parts, quadratic elsewhere) and keep those that land on the surface: the
     * samplers may propose points on parts of a piece's boundary that another piece covers. */
    double tol = 1e-4 * s->spacing;
    int n = 0;
    for (int i = 0; i < s->nsamples; i++) {
        double x[3], g[3], f = 0.0;
        memcpy(x, s->samples + 3 * (size_t)i, sizeof x);
        for (int it = 0; it < 3; it++) {
            f = geom_eval(s, x, g);
            double gg = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
            if (!(gg > 0.25)) {
                f = INFINITY; /* flat spot of a max/min: not a regular surface point */
                break;
            }
            if (it < 2)
                for (int k = 0; k < 3; k++) x[k] -= f * g[k] / gg;
        }
        if (!(fabs(f) <= tol)) continue;
        for (int k = 0; k < 3; k++) s->samples[3 * (size_t)n + k] = x[k] - s->centroid[k];
        n++;
    }
    s->nsamples = n;
    if (n == 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: no surface samples (sample spacing %g m "
                             "too large for the shape?)", s->label, s->spacing);
    qsort(s->samples, (size_t)n, 3 * sizeof(double), cmp_z);
    for (int k = 0; k < 3; k++) {
        s->lo[k] -= s->centroid[k];
        s->hi[k] -= s->centroid[k];
    }
    return NCP_OK;
}
