/* Contact generation for signed distance shapes (method in sdf_contact.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/sdf.h"
#include "geometry/sdf_contact.h"
#include "core/spatial.h"
#include "geometry/contact.h"

typedef struct cand {
    double p[3], n[3], d;
    int feature;
} cand;

typedef struct cand_list {
    cand *c;
    int n, cap;
} cand_list;

static int push_cand(cand_list *l, const double p[3], const double n[3], double d, int feature,
                     ncp_error *err)
{
    if (l->n == l->cap) {
        int nc = l->cap ? 2 * l->cap : 256;
        cand *c = realloc(l->c, (size_t)nc * sizeof *c);
        if (!c) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory collecting SDF contact candidates");
        l->c = c;
        l->cap = nc;
    }
    cand *c = &l->c[l->n++];
    ncp_v3_copy(p, c->p);
    ncp_v3_copy(n, c->n);
    c->d = d;
    c->feature = feature;
    return NCP_OK;
}

/* ---- signed distance of any shape, in its local frame ---- */

static double box_sdf(const double h[3], const double x[3], double g[3])
{
    double q[3], out2 = 0.0;
    int inside = 1;
    for (int i = 0; i < 3; i++) {
        q[i] = fabs(x[i]) - h[i];
        if (q[i] > 0.0) {
            inside = 0;
            out2 += q[i] * q[i];
        }
    }
    if (!inside) {
        double d = sqrt(out2);
        for (int i = 0; i < 3; i++) g[i] = q[i] > 0.0 ? (x[i] < 0.0 ? -q[i] : q[i]) / d : 0.0;
        return d;
    }
    int k = 0; /* the face of least penetration (lowest axis on ties) */
    for (int i = 1; i < 3; i++)
        if (q[i] > q[k]) k = i;
    ncp_v3_set(g, 0, 0, 0);
    g[k] = x[k] < 0.0 ? -1.0 : 1.0;
    return q[k];
}

/* Local signed distance of a finite shape; gradient in local axes. */
static double local_sdf(const ncp_geom *g, const double x[3], double grad[3])
{
    switch (g->type) {
    case NCP_SHAPE_SPHERE: {
        double l = ncp_v3_norm(x);
        if (l > 1e-300) ncp_v3_scale(x, 1.0 / l, grad);
        else ncp_v3_set(grad, 0, 0, 1);
        return l - g->radius;
    }
    case NCP_SHAPE_CAPSULE: {
        double zc = x[2] < -g->half_length ? -g->half_length : (x[2] > g->half_length ? g->half_length : x[2]);
        double d[3] = {x[0], x[1], x[2] - zc}, l = ncp_v3_norm(d);
        if (l > 1e-300) ncp_v3_scale(d, 1.0 / l, grad);
        else ncp_v3_set(grad, 1, 0, 0);
        return l - g->radius;
    }
    case NCP_SHAPE_BOX: return box_sdf(g->half, x, grad);
    default: return ncp_sdf_eval(g->sdf, x, grad);
    }
}

static void local_box(const ncp_geom *g, double lo[3], double hi[3])
{
    switch (g->type) {
    case NCP_SHAPE_SPHERE:
        for (int k = 0; k < 3; k++) lo[k] = -g->radius, hi[k] = g->radius;
        break;
    case NCP_SHAPE_CAPSULE:
        for (int k = 0; k < 3; k++) lo[k] = -g->radius, hi[k] = g->radius;
        lo[2] -= g->half_length;
        hi[2] += g->half_length;
        break;
    case NCP_SHAPE_BOX:
        for (int k = 0; k < 3; k++) lo[k] = -g->half[k], hi[k] = g->half[k];
        break;
    default:
        ncp_v3_copy(g->sdf->lo, lo);
        ncp_v3_copy(g->sdf->hi, hi);
    }
}

void ncp_sdf_geom_aabb(const ncp_geom *g, double lo[3], double hi[3])
{
    double llo[3], lhi[3], c[3], e[3];
    local_box(g, llo, lhi);
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5 * (llo[k] + lhi[k]);
        e[k] = 0.5 * (lhi[k] - llo[k]);
    }
    double cw[3];
    ncp_m3_mulv(g->rot, c, cw);
    for (int k = 0; k < 3; k++) {
        double ext = 0.0;
        for (int j = 0; j < 3; j++) ext += fabs(g->rot[3 * k + j]) * e[j];
        lo[k] = g->pos[k] + cw[k] - ext;
        hi[k] = g->pos[k] + cw[k] + ext;
    }
}

int ncp_sdf_pair_cap(const ncp_geom *a, const ncp_geom *b)
{
    if (a->type == NCP_SHAPE_SPHERE || b->type == NCP_SHAPE_SPHERE) return NCP_SDF_SPHERE_CONTACTS;
    int cap = 1 << 30;
    if (a->type == NCP_SHAPE_SDF && a->sdf->max_contacts < cap) cap = a->sdf->max_contacts;
    if (b->type == NCP_SHAPE_SDF && b->sdf->max_contacts < cap) cap = b->sdf->max_contacts;
    return cap;
}

/* ---- surface samples of the primitives, generated at a given spacing (local frame) ---- */

static int push_pt(double **buf, int *n, int *cap, double x, double y, double z, ncp_error *err)
{
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 1024;
        double *nb = realloc(*buf, 3 * (size_t)nc * sizeof(double));
        if (!nb) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory sampling a shape surface");
        *buf = nb;
        *cap = nc;
    }
    double *p = *buf + 3 * (size_t)(*n)++;
    p[0] = x;
    p[1] = y;
    p[2] = z;
    return NCP_OK;
}

static int sample_primitive(const ncp_geom *g, double h, double **pts, int *np, ncp_error *err)
{
    const double PI = 3.14159265358979323846;
    int cap = 0, rc = NCP_OK;
    *np = 0;
    *pts = NULL;
    /* at most ~200k points: coarsen the spacing of a shape much larger than the SDF's */
    double area = 0.0;
    if (g->type == NCP_SHAPE_BOX)
        area = 8.0 * (g->half[0] * g->half[1] + g->half[1] * g->half[2] + g->half[0] * g->half[2]);
    else
        area = 2.0 * PI * g->radius * (2.0 * g->half_length + 2.0 * g->radius);
    if (area / (h * h) > 2e5) h = sqrt(area / 2e5);
    if (g->type == NCP_SHAPE_BOX) {
        for (int ax = 0; ax < 3 && !rc; ax++) {
            int u = (ax + 1) % 3, v = (ax + 2) % 3;
            int nu = (int)ceil(2.0 * g->half[u] / h) + 1, nv = (int)ceil(2.0 * g->half[v] / h) + 1;
            for (int s = -1; s <= 1 && !rc; s += 2)
                for (int i = 0; i < nu && !rc; i++)
                    for (int j = 0; j < nv && !rc; j++) {
                        double x[3];
                        x[ax] = s * g->half[ax];
                        x[u] = -g->half[u] + 2.0 * g->half[u] * i / (nu - 1);
                        x[v] = -g->half[v] + 2.0 * g->half[v] * j / (nv - 1);
                        rc = push_pt(pts, np, &cap, x[0], x[1], x[2], err);
                    }
        }
        return rc;
    }
    /* capsule: cylinder rings, then latitude rings of the two hemispheres */
    double r = g->radius, hl = g->half_length;
    int nth = (int)ceil(2.0 * PI * r / h);
    if (nth < 4) nth = 4;
    int nz = (int)ceil(2.0 * hl / h) + 1;
    for (int i = 0; i < nz && hl > 0.0 && !rc; i++) {
        double z = nz > 1 ? -hl + 2.0 * hl * i / (nz - 1) : 0.0;
        for (int j = 0; j < nth && !rc; j++) {
            double t = 2.0 * PI * j / nth;
            rc = push_pt(pts, np, &cap, r * cos(t), r * sin(t), z, err);
        }
    }
    int nl = (int)ceil(0.5 * PI * r / h);
    for (int s = -1; s <= 1 && !rc; s += 2)
        for (int i = 0; i <= nl && !rc; i++) {
            double lat = 0.5 * PI * i / (nl > 0 ? nl : 1);
            double rr = r * cos(lat), z = s * (hl + r * sin(lat));
            int n = (int)ceil(2.0 * PI * rr / h);
            if (n < 1) n = 1;
            if (i == 0 && hl > 0.0) continue; /* the equator is the cylinder's end ring */
            for (int j = 0; j < n && !rc; j++) {
                double t = 2.0 * PI * j / n;
                rc = push_pt(pts, np, &cap, rr * cos(t), rr * sin(t), z, err);
            }
        }
    return rc;
}

/* ---- one side: samples of `ga` evaluated in `gb` ---- */

static int side_candidates(const ncp_geom *ga, const double *samples, int i0, int i1,
                           const ncp_geom *gb, double margin, int side, cand_list *out,
                           ncp_error *err)
{
    /* zeroed: only the non-plane branch uses them, which GCC -O3 cannot see */
    double blo[3] = {0}, bhi[3] = {0}, M[9] = {0}, t[3] = {0}, dp[3];
    int plane = gb->type == NCP_SHAPE_PLANE;
    if (!plane) {
        local_box(gb, blo, bhi);
        for (int k = 0; k < 3; k++) blo[k] -= margin, bhi[k] += margin;
        /* y = Rb^T (Ra s + pa - pb) = M s + t */
        double RbT[9];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) RbT[3 * i + j] = gb->rot[3 * j + i];
        ncp_m3_mul(RbT, ga->rot, M);
        ncp_v3_sub(ga->pos, gb->pos, dp);
        ncp_m3_mulv(RbT, dp, t);
    }
    for (int i = i0; i < i1; i++) {
        const double *s = samples + 3 * (size_t)i;
        double x[3], gw[3], f;
        ncp_m3_mulv(ga->rot, s, x);
        ncp_v3_add(x, ga->pos, x);
        if (plane) {
            f = ncp_v3_dot(gb->normal, x) - gb->offset;
            if (!(f < margin)) continue;
            ncp_v3_copy(gb->normal, gw);
        } else {
            double y[3], gl[3];
            ncp_m3_mulv(M, s, y);
            ncp_v3_add(y, t, y);
            if (y[0] < blo[0] || y[0] > bhi[0] || y[1] < blo[1] || y[1] > bhi[1] || y[2] < blo[2] ||
                y[2] > bhi[2])
                continue;
            f = local_sdf(gb, y, gl);
            if (!(f < margin)) continue;
            ncp_m3_mulv(gb->rot, gl, gw);
            if (ncp_v3_normalize(gw) < 1e-12) continue; /* no direction: not a usable contact */
        }
        double n[3], p[3];
        ncp_v3_scale(gw, side == 0 ? -1.0 : 1.0, n); /* from a to b */
        ncp_v3_copy(x, p);
        ncp_v3_axpy(-0.5 * f, gw, p);
        int rc = push_cand(out, p, n, f, (side << 24) | i, err);
        if (rc) return rc;
    }
    return NCP_OK;
}

/* z-range of gb's margin-grown local box expressed in ga's local frame. */
static void z_range_in(const ncp_geom *ga, const ncp_geom *gb, double margin, double *zlo, double *zhi)
{
    double lo[3], hi[3];
    local_box(gb, lo, hi);
    *zlo = INFINITY;
    *zhi = -INFINITY;
    for (int k = 0; k < 8; k++) {
        double c[3] = {(k & 1) ? hi[0] + margin : lo[0] - margin, (k & 2) ? hi[1] + margin : lo[1] - margin,
                       (k & 4) ? hi[2] + margin : lo[2] - margin};
        double w[3], d[3];
        ncp_m3_mulv(gb->rot, c, w);
        ncp_v3_add(w, gb->pos, w);
        ncp_v3_sub(w, ga->pos, d);
        /* local z = (column 2 of Ra) . d */
        double z = ga->rot[2] * d[0] + ga->rot[5] * d[1] + ga->rot[8] * d[2];
        *zlo = fmin(*zlo, z);
        *zhi = fmax(*zhi, z);
    }
}

/* Candidates from the samples of ga (if it has a surface to sample) evaluated in gb. */
static int sample_side(const ncp_geom *ga, const ncp_geom *gb, double margin, double spacing, int side,
                       cand_list *out, ncp_error *err)
{
    if (ga->type == NCP_SHAPE_PLANE || ga->type == NCP_SHAPE_SPHERE) return NCP_OK;
    if (ga->type == NCP_SHAPE_SDF) {
        int i0 = 0, i1 = ga->sdf->nsamples;
        if (gb->type != NCP_SHAPE_PLANE) {
            double zlo, zhi;
            z_range_in(ga, gb, margin, &zlo, &zhi);
            ncp_sdf_sample_range(ga->sdf, zlo, zhi, &i0, &i1);
        }
        return side_candidates(ga, ga->sdf->samples, i0, i1, gb, margin, side, out, err);
    }
    double *pts = NULL;
    int np = 0;
    int rc = sample_primitive(ga, spacing, &pts, &np, err);
    if (!rc) rc = side_candidates(ga, pts, 0, np, gb, margin, side, out, err);
    free(pts);
    return rc;
}

/* ---- reduction: k-centre clustering, deepest member of each cluster ---- */

static double feat_d2(const cand *a, const cand *b, double w)
{
    double s = 0.0;
    for (int k = 0; k < 3; k++) {
        double dp = a->p[k] - b->p[k], dn = w * (a->n[k] - b->n[k]);
        s += dp * dp + dn * dn;
    }
    return s;
}

/* Pre-clustering on a voxel grid: keeps the deepest candidate (lowest index on ties) of each
 * (cell of side `cell`, normal octant), in candidate order. Linear time (open addressing), so
 * the quadratic k-centre step below sees hundreds of points instead of tens of thousands. */
static int voxel_reduce(cand_list *l, double cell, ncp_error *err)
{
    int n = l->n;
    if (n < 2) return n;
    size_t cap = 1;
    while (cap < 2 * (size_t)n) cap <<= 1;
    uint64_t *keys = ncp_malloc(err, n, sizeof(uint64_t));
    int *slot = ncp_malloc(err, cap, sizeof(int));
    char *win = ncp_calloc(err, n, 1);
    if (!keys || !slot || !win) {
        free(keys), free(slot), free(win);
        return -1;
    }
    for (size_t i = 0; i < cap; i++) slot[i] = -1;
    for (int i = 0; i < n; i++) {
        const cand *c = &l->c[i];
        uint64_t key = 0;
        for (int k = 0; k < 3; k++) {
            /* 20 bits per axis: cells wrap after 2^20 cells, far beyond one pair's extent */
            uint64_t q = (uint64_t)(int64_t)floor(c->p[k] / cell) & 0xFFFFFu;
            key = (key << 20) | q;
        }
        key = (key << 3) | (uint64_t)((c->n[0] < 0.0) | (c->n[1] < 0.0) << 1 | (c->n[2] < 0.0) << 2);
        keys[i] = key;
        size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
        for (;;) {
            int j = slot[h];
            if (j < 0) {
                slot[h] = i;
                win[i] = 1;
                break;
            }
            if (keys[j] == key) {
                if (c->d < l->c[j].d) { /* strictly deeper replaces: ties keep the lower index */
                    win[j] = 0;
                    win[i] = 1;
                    slot[h] = i;
                }
                break;
            }
            h = (h + 1) & (cap - 1);
        }
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (win[i]) l->c[m++] = l->c[i];
    l->n = m;
    free(keys), free(slot), free(win);
    return m;
}

/* Reduces l to at most k candidates in place; returns the new count. */
static int reduce(cand_list *l, int k, double w, ncp_error *err)
{
    int n = l->n;
    if (n <= k) return n;
    double *dist = ncp_malloc(err, (size_t)n, sizeof(double));
    int *label = ncp_malloc(err, (size_t)n, sizeof(int));
    int *center = ncp_malloc(err, (size_t)k, sizeof(int));
    int *rep = ncp_malloc(err, (size_t)k, sizeof(int));
    cand *keep = ncp_malloc(err, (size_t)k, sizeof(cand));
    if (!dist || !label || !center || !rep || !keep) {
        free(dist), free(label), free(center), free(rep), free(keep);
        return -1;
    }
    int c0 = 0;
    for (int i = 1; i < n; i++)
        if (l->c[i].d < l->c[c0].d) c0 = i;
    center[0] = c0;
    for (int i = 0; i < n; i++) {
        dist[i] = feat_d2(&l->c[i], &l->c[c0], w);
        label[i] = 0;
    }
    int nc = 1;
    while (nc < k) {
        int far = 0;
        for (int i = 1; i < n; i++)
            if (dist[i] > dist[far]) far = i;
        if (!(dist[far] > 0.0)) break; /* the rest duplicate existing centres */
        center[nc] = far;
        for (int i = 0; i < n; i++) {
            double d2 = feat_d2(&l->c[i], &l->c[far], w);
            if (d2 < dist[i]) {
                dist[i] = d2;
                label[i] = nc;
            }
        }
        nc++;
    }
    for (int j = 0; j < nc; j++) rep[j] = -1;
    for (int i = 0; i < n; i++) {
        int j = label[i];
        if (rep[j] < 0 || l->c[i].d < l->c[rep[j]].d) rep[j] = i;
    }
    for (int j = 0; j < nc; j++) keep[j] = l->c[rep[j]];
    memcpy(l->c, keep, (size_t)nc * sizeof(cand));
    l->n = nc;
    free(dist), free(label), free(center), free(rep), free(keep);
    return nc;
}

/* ---- sphere against an SDF ---- */

/* Moves y to the point of the SDF surface locally closest to c: alternate the projection of c
 * onto the tangent plane at y and the projection of that point onto the surface. */
static void refine_closest(const ncp_geom *g, const double c[3], double y[3])
{
    for (int it = 0; it < 4; it++) {
        double gw[3];
        double l[3], d[3], gl[3];
        ncp_v3_sub(y, g->pos, d);
        ncp_m3_mulv_t(g->rot, d, l);
        ncp_sdf_eval(g->sdf, l, gl);
        ncp_m3_mulv(g->rot, gl, gw);
        if (ncp_v3_normalize(gw) < 1e-12) return;
        double cy[3];
        ncp_v3_sub(c, y, cy);
        double yt[3];
        ncp_v3_copy(c, yt);
        ncp_v3_axpy(-ncp_v3_dot(cy, gw), gw, yt); /* c projected onto the tangent plane */
        ncp_v3_sub(yt, g->pos, d);
        ncp_m3_mulv_t(g->rot, d, l);
        double f = ncp_sdf_eval(g->sdf, l, gl);
        double gg = ncp_v3_dot(gl, gl);
        if (!(gg > 1e-24)) return;
        ncp_m3_mulv(g->rot, gl, gw);
        ncp_v3_copy(yt, y);
        ncp_v3_axpy(-f / gg, gw, y);
    }
}

static int sphere_sdf(const ncp_geom *sph, const ncp_geom *g, double margin, int swap,
                      cand_list *out, ncp_error *err)
{
    const double *c = sph->pos;
    double r = sph->radius, cos_merge = cos(25.0 * 3.14159265358979323846 / 180.0);
    /* proposals: the centre's closest point, then SDF samples near the sphere, by depth */
    cand_list prop = {NULL, 0, 0};
    double l[3], d[3], gl[3], gw[3];
    ncp_v3_sub(c, g->pos, d);
    ncp_m3_mulv_t(g->rot, d, l);
    double fc = ncp_sdf_eval(g->sdf, l, gl);
    ncp_m3_mulv(g->rot, gl, gw);
    int rc = NCP_OK;
    if (ncp_v3_normalize(gw) > 1e-12 && fc - r < margin) {
        double y[3];
        ncp_v3_copy(c, y);
        ncp_v3_axpy(-fc, gw, y);
        rc = push_cand(&prop, y, gw, fc - r, 2 << 24, err);
    }
    double zlo, zhi;
    int i0, i1;
    z_range_in(g, sph, margin, &zlo, &zhi);
    ncp_sdf_sample_range(g->sdf, zlo, zhi, &i0, &i1);
    int first_sample = prop.n;
    double reach2 = (r + margin) * (r + margin);
    for (int i = i0; i < i1 && !rc; i++) {
        const double *s = g->sdf->samples + 3 * (size_t)i;
        double ds[3], x[3], cx[3];
        ncp_v3_sub(s, l, ds); /* cull in the SDF's frame (l: the centre there) before posing */
        if (ncp_v3_dot(ds, ds) >= reach2) continue;
        ncp_m3_mulv(g->rot, s, x);
        ncp_v3_add(x, g->pos, x);
        ncp_v3_sub(c, x, cx);
        double len = ncp_v3_norm(cx);
        if (!(len - r < margin) || len < 1e-12) continue;
        ncp_v3_scale(cx, 1.0 / len, cx);
        rc = push_cand(&prop, x, cx, len - r, i, err);
    }
    if (rc) {
        free(prop.c);
        return rc;
    }
    /* sample proposals deepest first (stable on ties: index order); the centre's stays first */
    for (int i = first_sample + 1; i < prop.n; i++) {
        cand t = prop.c[i];
        int j = i;
        while (j > first_sample && prop.c[j - 1].d > t.d) {
            prop.c[j] = prop.c[j - 1];
            j--;
        }
        prop.c[j] = t;
    }
    cand kept[NCP_SDF_SPHERE_CONTACTS];
    int nk = 0;
    for (int i = 0; i < prop.n && nk < NCP_SDF_SPHERE_CONTACTS; i++) {
        int dup = 0;
        for (int j = 0; j < nk && !dup; j++)
            if (ncp_v3_dot(prop.c[i].n, kept[j].n) > cos_merge) dup = 1;
        if (dup) continue;
        cand k = prop.c[i];
        if ((k.feature >> 24) != 2) {
            refine_closest(g, c, k.p);
            ncp_v3_sub(k.p, g->pos, d);
            ncp_m3_mulv_t(g->rot, d, l);
            ncp_sdf_eval(g->sdf, l, gl);
            ncp_m3_mulv(g->rot, gl, gw);
            if (ncp_v3_normalize(gw) < 1e-12) continue;
            double cy[3];
            ncp_v3_sub(c, k.p, cy);
            double dist = ncp_v3_norm(cy);
            /* A centre outside the solid (fc > 0) that lies behind this surface point sees the
             * far side of a thin wall (the bottle's outer skin from inside): not a contact. */
            if (ncp_v3_dot(cy, gw) < 0.0 && fc > 0.0) continue;
            k.d = (ncp_v3_dot(cy, gw) >= 0.0 ? dist : -dist) - r;
            ncp_v3_copy(gw, k.n);
            if (!(k.d < margin)) continue;
            for (int j = 0; j < nk && !dup; j++)
                if (ncp_v3_dot(k.n, kept[j].n) > cos_merge) dup = 1;
            if (dup) continue;
        }
        kept[nk++] = k;
    }
    free(prop.c);
    for (int i = 0; i < nk && !rc; i++) {
        /* k.p is the SDF surface point, k.n its outward normal (towards the sphere) */
        double p[3], n[3];
        ncp_v3_copy(kept[i].p, p);
        ncp_v3_axpy(0.5 * kept[i].d, kept[i].n, p);
        ncp_v3_scale(kept[i].n, swap ? 1.0 : -1.0, n); /* a = sphere: from the sphere to the SDF */
        rc = push_cand(out, p, n, kept[i].d, kept[i].feature, err);
    }
    return rc;
}

int ncp_sdf_collide(const ncp_geom *a, const ncp_geom *b, double margin, int max_out,
                    ncp_contact *out, int *nout, ncp_error *err)
{
    *nout = 0;
    cand_list cl = {NULL, 0, 0};
    int rc = NCP_OK;
    if (a->type == NCP_SHAPE_SPHERE && b->type == NCP_SHAPE_SDF) {
        rc = sphere_sdf(a, b, margin, 0, &cl, err);
    } else if (b->type == NCP_SHAPE_SPHERE && a->type == NCP_SHAPE_SDF) {
        rc = sphere_sdf(b, a, margin, 1, &cl, err);
    } else {
        double spacing = INFINITY;
        if (a->type == NCP_SHAPE_SDF) spacing = fmin(spacing, a->sdf->spacing);
        if (b->type == NCP_SHAPE_SDF) spacing = fmin(spacing, b->sdf->spacing);
        rc = sample_side(a, b, margin, spacing, 0, &cl, err);
        if (!rc) rc = sample_side(b, a, margin, spacing, 1, &cl, err);
        int cap = ncp_sdf_pair_cap(a, b);
        if (cap > max_out) cap = max_out;
        /* voxels of 2 sample spacings first, coarsened until at most 4 candidates per
         * cluster remain (only when there is something to reduce) */
        for (double cell = 2.0 * spacing; !rc && cl.n > 4 * cap; cell *= 1.5)
            if (voxel_reduce(&cl, cell, err) < 0) rc = NCP_ERR_NOMEM;
        if (!rc && reduce(&cl, cap, 10.0 * spacing, err) < 0) rc = NCP_ERR_NOMEM;
    }
    if (!rc) {
        int n = cl.n < max_out ? cl.n : max_out;
        for (int i = 0; i < n; i++) {
            ncp_contact *c = &out[i];
            memset(c, 0, sizeof *c);
            ncp_contact_frame(cl.c[i].n, c->frame);
            ncp_v3_copy(cl.c[i].p, c->point);
            c->dist = cl.c[i].d;
            c->feature = cl.c[i].feature;
            c->shape[0] = c->shape[1] = -1;
            c->body[0] = c->body[1] = -1;
        }
        *nout = n;
    }
    free(cl.c);
    return rc;
}
