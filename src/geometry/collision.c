/* Narrow phase: contacts between two posed shapes (see collision.h for the conventions). */
#include <stdlib.h>
#include <string.h>

#include "geometry/collision.h"
#include "geometry/contact.h"
#include "geometry/sdf_contact.h"
#include "core/spatial.h"

/* A contact as the narrow phase finds it: normal from the pair's first to its second shape. */
typedef struct raw_contact {
    double n[3], p[3], d;
    int feature;
} raw_contact;

static void axis_of(const ncp_geom *g, int i, double a[3])
{
    a[0] = g->rot[i];
    a[1] = g->rot[3 + i];
    a[2] = g->rot[6 + i];
}

static void to_local(const ncp_geom *g, const double x[3], double l[3])
{
    double d[3];
    ncp_v3_sub(x, g->pos, d);
    ncp_m3_mulv_t(g->rot, d, l);
}

static void to_world(const ncp_geom *g, const double l[3], double x[3])
{
    ncp_m3_mulv(g->rot, l, x);
    ncp_v3_add(x, g->pos, x);
}

static void capsule_ends(const ncp_geom *g, double e0[3], double e1[3])
{
    double a[3];
    axis_of(g, 2, a);
    ncp_v3_copy(g->pos, e0);
    ncp_v3_copy(g->pos, e1);
    ncp_v3_axpy(-g->half_length, a, e0);
    ncp_v3_axpy(g->half_length, a, e1);
}

static double clamp01(double t) { return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t); }

/* Closest point to x on the segment [p, q]. */
static void closest_on_segment(const double p[3], const double q[3], const double x[3], double out[3])
{
    double d[3], px[3];
    ncp_v3_sub(q, p, d);
    ncp_v3_sub(x, p, px);
    double dd = ncp_v3_dot(d, d);
    double t = dd > 0.0 ? clamp01(ncp_v3_dot(px, d) / dd) : 0.0;
    ncp_v3_copy(p, out);
    ncp_v3_axpy(t, d, out);
}

/* Closest points between segments [p1, q1] and [p2, q2] (Ericson, Real-Time Collision
 * Detection §5.1.9). Writes the points c1, c2. */
static void closest_segments(const double p1[3], const double q1[3], const double p2[3],
                             const double q2[3], double c1[3], double c2[3])
{
    double d1[3], d2[3], r[3];
    ncp_v3_sub(q1, p1, d1);
    ncp_v3_sub(q2, p2, d2);
    ncp_v3_sub(p1, p2, r);
    double a = ncp_v3_dot(d1, d1), e = ncp_v3_dot(d2, d2), f = ncp_v3_dot(d2, r);
    double s, t;
    const double eps = 1e-300;
    if (a <= eps && e <= eps) {
        s = t = 0.0;
    } else if (a <= eps) {
        s = 0.0;
        t = clamp01(f / e);
    } else {
        double c = ncp_v3_dot(d1, r);
        if (e <= eps) {
            t = 0.0;
            s = clamp01(-c / a);
        } else {
            double b = ncp_v3_dot(d1, d2), den = a * e - b * b;
            s = den > 0.0 ? clamp01((b * f - c * e) / den) : 0.0;
            t = (b * s + f) / e;
            if (t < 0.0) {
                t = 0.0;
                s = clamp01(-c / a);
            } else if (t > 1.0) {
                t = 1.0;
                s = clamp01((b - c) / a);
            }
        }
    }
    ncp_v3_copy(p1, c1);
    ncp_v3_axpy(s, d1, c1);
    ncp_v3_copy(p2, c2);
    ncp_v3_axpy(t, d2, c2);
}

/* Two spheres (centres ca, cb): the core of sphere-sphere, sphere-capsule, capsule-capsule. */
static int spheres(const double ca[3], double ra, const double cb[3], double rb, double margin,
                   int feature, raw_contact *out)
{
    double d[3];
    ncp_v3_sub(cb, ca, d);
    double len = ncp_v3_norm(d);
    double dist = len - ra - rb;
    if (!(dist < margin)) return 0;
    if (len > 1e-12) ncp_v3_scale(d, 1.0 / len, out->n);
    else ncp_v3_set(out->n, 0, 0, 1); /* concentric: any direction is a minimiser; fix one */
    /* midpoint of the surface points ca + ra n and cb - rb n */
    for (int i = 0; i < 3; i++) out->p[i] = 0.5 * (ca[i] + cb[i] + (ra - rb) * out->n[i]);
    out->d = dist;
    out->feature = feature;
    return 1;
}

/* ---- narrow phase, each for (lower type, higher type), normal from the first to the second ---- */

static int plane_sphere(const ncp_geom *pl, const ncp_geom *s, double margin, raw_contact *out)
{
    double h = ncp_v3_dot(pl->normal, s->pos) - pl->offset; /* centre height above the plane */
    double dist = h - s->radius;
    if (!(dist < margin)) return 0;
    ncp_v3_copy(pl->normal, out->n);
    /* midpoint of the sphere's lowest point c - r n and the plane point c - h n */
    ncp_v3_copy(s->pos, out->p);
    ncp_v3_axpy(-0.5 * (s->radius + h), pl->normal, out->p);
    out->d = dist;
    out->feature = 0;
    return 1;
}

static int plane_capsule(const ncp_geom *pl, const ncp_geom *c, double margin, raw_contact *out)
{
    double e[2][3];
    capsule_ends(c, e[0], e[1]);
    int n = 0;
    for (int k = 0; k < 2; k++) { /* one contact per end sphere */
        double h = ncp_v3_dot(pl->normal, e[k]) - pl->offset, dist = h - c->radius;
        if (!(dist < margin)) continue;
        ncp_v3_copy(pl->normal, out[n].n);
        ncp_v3_copy(e[k], out[n].p);
        ncp_v3_axpy(-0.5 * (c->radius + h), pl->normal, out[n].p);
        out[n].d = dist;
        out[n].feature = k;
        n++;
    }
    return n;
}

static void box_corner(const ncp_geom *b, int k, double x[3])
{
    double l[3] = {(k & 1) ? b->half[0] : -b->half[0], (k & 2) ? b->half[1] : -b->half[1],
                   (k & 4) ? b->half[2] : -b->half[2]};
    to_world(b, l, x);
}

static int plane_box(const ncp_geom *pl, const ncp_geom *b, double margin, raw_contact *out)
{
    /* Corners below the margin; if more than 4 (a thin box within the margin), the 4 deepest
     * (lowest corner index on ties), reported in corner order. */
    double x[8][3], d[8];
    int idx[8], n = 0;
    for (int k = 0; k < 8; k++) {
        box_corner(b, k, x[k]);
        d[k] = ncp_v3_dot(pl->normal, x[k]) - pl->offset;
        if (d[k] < margin) idx[n++] = k;
    }
    while (n > 4) { /* drop the shallowest (highest index on ties) */
        int worst = 0;
        for (int i = 1; i < n; i++)
            if (d[idx[i]] >= d[idx[worst]]) worst = i;
        memmove(idx + worst, idx + worst + 1, (size_t)(n - worst - 1) * sizeof(int));
        n--;
    }
    for (int i = 0; i < n; i++) {
        int k = idx[i];
        ncp_v3_copy(pl->normal, out[i].n);
        ncp_v3_copy(x[k], out[i].p);
        ncp_v3_axpy(-0.5 * d[k], pl->normal, out[i].p); /* midpoint of corner and its projection */
        out[i].d = d[k];
        out[i].feature = k;
    }
    return n;
}

static int sphere_sphere(const ncp_geom *a, const ncp_geom *b, double margin, raw_contact *out)
{
    return spheres(a->pos, a->radius, b->pos, b->radius, margin, 0, out);
}

static int sphere_capsule(const ncp_geom *s, const ncp_geom *c, double margin, raw_contact *out)
{
    double e0[3], e1[3], q[3];
    capsule_ends(c, e0, e1);
    closest_on_segment(e0, e1, s->pos, q);
    return spheres(s->pos, s->radius, q, c->radius, margin, 0, out);
}

static int capsule_capsule(const ncp_geom *a, const ncp_geom *b, double margin, raw_contact *out)
{
    double p1[3], q1[3], p2[3], q2[3], d1[3], d2[3], cr[3];
    capsule_ends(a, p1, q1);
    capsule_ends(b, p2, q2);
    ncp_v3_sub(q1, p1, d1);
    ncp_v3_sub(q2, p2, d2);
    ncp_v3_cross(d1, d2, cr);
    double l1 = ncp_v3_dot(d1, d1), l2 = ncp_v3_dot(d2, d2);
    /* Parallel (sin of the angle below 1e-3): the closest points form a segment; one contact at
     * each end of the overlap keeps a capsule lying on another from rocking about a single
     * point. The threshold is a modelling choice: it only decides between 1 and 2 contacts
     * when the axes are within 0.06 degrees. */
    if (l1 > 0.0 && l2 > 0.0 && ncp_v3_dot(cr, cr) <= 1e-6 * l1 * l2) {
        double s0[3], s1[3];
        ncp_v3_sub(p2, p1, s0);
        ncp_v3_sub(q2, p1, s1);
        double t0 = ncp_v3_dot(s0, d1) / l1, t1 = ncp_v3_dot(s1, d1) / l1;
        double lo = fmax(0.0, fmin(t0, t1)), hi = fmin(1.0, fmax(t0, t1));
        if (hi - lo > 1e-9) {
            int n = 0;
            double ts[2] = {lo, hi};
            for (int k = 0; k < 2; k++) {
                double x[3], y[3];
                ncp_v3_copy(p1, x);
                ncp_v3_axpy(ts[k], d1, x);
                closest_on_segment(p2, q2, x, y);
                n += spheres(x, a->radius, y, b->radius, margin, 1 + k, out + n);
            }
            return n;
        }
    }
    double c1[3], c2[3];
    closest_segments(p1, q1, p2, q2, c1, c2);
    return spheres(c1, a->radius, c2, b->radius, margin, 0, out);
}

/* Closest point of an axis-aligned box (half extents h, centred at 0) to a local point x, with
 * the outward normal and signed distance; face = 2*axis + (sign > 0) when the closest feature
 * is a face (x inside the box, or outside with exactly one coordinate clamped), else -1. */
typedef struct box_point {
    double q[3], n[3], dist;
    int face;
} box_point;

static void point_box(const double x[3], const double h[3], box_point *r)
{
    int clamped = 0, axis = -1;
    for (int i = 0; i < 3; i++) {
        r->q[i] = x[i];
        if (x[i] > h[i]) {
            r->q[i] = h[i];
            clamped++;
            axis = i;
        } else if (x[i] < -h[i]) {
            r->q[i] = -h[i];
            clamped++;
            axis = i;
        }
    }
    if (clamped > 0) {
        double d[3];
        ncp_v3_sub(x, r->q, d);
        r->dist = ncp_v3_norm(d);
        ncp_v3_scale(d, 1.0 / r->dist, r->n);
        r->face = clamped == 1 ? 2 * axis + (x[axis] > 0.0) : -1;
        return;
    }
    /* inside: the face of least penetration (lowest axis on ties) */
    int i = 0;
    for (int k = 1; k < 3; k++)
        if (h[k] - fabs(x[k]) < h[i] - fabs(x[i])) i = k;
    double sg = x[i] >= 0.0 ? 1.0 : -1.0;
    ncp_v3_set(r->n, 0, 0, 0);
    r->n[i] = sg;
    r->dist = -(h[i] - fabs(x[i]));
    r->q[i] = sg * h[i];
    r->face = 2 * i + (sg > 0.0);
}

/* Sphere (centre c, radius r) against box b, normal from the BOX to the sphere. */
static int box_sphere_core(const ncp_geom *b, const double c[3], double rad, double margin,
                           int feature, raw_contact *out, box_point *bp_out)
{
    double l[3];
    box_point bp;
    to_local(b, c, l);
    point_box(l, b->half, &bp);
    if (bp_out) *bp_out = bp;
    double dist = bp.dist - rad;
    if (!(dist < margin)) return 0;
    double q[3], s[3];
    ncp_m3_mulv(b->rot, bp.n, out->n);
    to_world(b, bp.q, q);
    ncp_v3_copy(c, s);
    ncp_v3_axpy(-rad, out->n, s); /* sphere surface point */
    for (int i = 0; i < 3; i++) out->p[i] = 0.5 * (q[i] + s[i]);
    out->d = dist;
    out->feature = feature;
    return 1;
}

static void flip(raw_contact *c, int n)
{
    for (int i = 0; i < n; i++) ncp_v3_scale(c[i].n, -1.0, c[i].n);
}

static int sphere_box(const ncp_geom *s, const ncp_geom *b, double margin, raw_contact *out)
{
    int n = box_sphere_core(b, s->pos, s->radius, margin, 0, out, NULL);
    flip(out, n); /* the pair is (sphere, box): normal from the sphere to the box */
    return n;
}

/* Signed distance to the box (convex in x) of the local point l0 + t d. */
static double seg_box_sd(const double l0[3], const double d[3], double t, const double h[3])
{
    double x[3];
    box_point bp;
    ncp_v3_copy(l0, x);
    ncp_v3_axpy(t, d, x);
    point_box(x, h, &bp);
    return bp.dist;
}

static int capsule_box(const ncp_geom *c, const ncp_geom *b, double margin, raw_contact *out)
{
    double e0[3], e1[3], l0[3], l1[3], d[3];
    capsule_ends(c, e0, e1);
    to_local(b, e0, l0);
    to_local(b, e1, l1);
    ncp_v3_sub(l1, l0, d);
    /* The deepest point of the core segment: the box's signed distance is convex, so along the
     * segment it is a convex function of t, minimised by golden-section search (80 steps shrink
     * the bracket by 0.618^80 ~ 2e-17). */
    const double gr = 0.6180339887498949;
    double lo = 0.0, hi = 1.0;
    double ta = hi - gr * (hi - lo), tb = lo + gr * (hi - lo);
    double fa = seg_box_sd(l0, d, ta, b->half), fb = seg_box_sd(l0, d, tb, b->half);
    for (int it = 0; it < 80; it++) {
        if (fa <= fb) { /* ties move towards t = 0, so the choice is deterministic */
            hi = tb;
            tb = ta;
            fb = fa;
            ta = hi - gr * (hi - lo);
            fa = seg_box_sd(l0, d, ta, b->half);
        } else {
            lo = ta;
            ta = tb;
            fa = fb;
            tb = lo + gr * (hi - lo);
            fb = seg_box_sd(l0, d, tb, b->half);
        }
    }
    double ts = 0.5 * (lo + hi);
    /* the search never evaluates the ends exactly; they win when they are at least as deep */
    if (seg_box_sd(l0, d, 0.0, b->half) <= seg_box_sd(l0, d, ts, b->half)) ts = 0.0;
    if (seg_box_sd(l0, d, 1.0, b->half) < seg_box_sd(l0, d, ts, b->half)) ts = 1.0;
    double xs[3], cw[3];
    ncp_v3_copy(l0, xs);
    ncp_v3_axpy(ts, d, xs);
    box_point bp;
    point_box(xs, b->half, &bp);
    if (!(bp.dist - c->radius < margin)) return 0;
    if (bp.face >= 0) {
        /* Face feature: like plane-capsule restricted to the face. Clip the segment to the
         * face's slab (the other two coordinates within the face rectangle) and put one contact
         * at each end of the clipped part, with the face normal; a capsule lying on a face then
         * gets 2 contacts, a tilted one keeps its deep end only (the other is beyond margin). */
        int ax = bp.face / 2;
        double sg = (bp.face & 1) ? 1.0 : -1.0;
        double tlo = 0.0, thi = 1.0;
        for (int k = 0; k < 3 && tlo <= thi; k++) {
            if (k == ax) continue;
            if (fabs(d[k]) < 1e-300) {
                if (fabs(l0[k]) > b->half[k]) tlo = 1.0, thi = 0.0;
                continue;
            }
            double t1 = (-b->half[k] - l0[k]) / d[k], t2 = (b->half[k] - l0[k]) / d[k];
            tlo = fmax(tlo, fmin(t1, t2));
            thi = fmin(thi, fmax(t1, t2));
        }
        if (tlo <= thi) { /* else the deepest point lies inside, off the slab: fall through */
            double tt[2] = {tlo, thi};
            int n = 0, cnt = (thi - tlo) * ncp_v3_norm(d) > 1e-9 ? 2 : 1;
            double nw[3], nl[3] = {0, 0, 0};
            nl[ax] = sg;
            ncp_m3_mulv(b->rot, nl, nw);
            for (int k = 0; k < cnt; k++) {
                double p[3], h;
                ncp_v3_copy(l0, p);
                ncp_v3_axpy(tt[k], d, p);
                h = sg * p[ax] - b->half[ax]; /* core point height above the face plane */
                double dist = h - c->radius;
                if (!(dist < margin)) continue;
                double pw[3];
                to_world(b, p, pw);
                ncp_v3_scale(nw, -1.0, out[n].n); /* pair is (capsule, box) */
                ncp_v3_copy(pw, out[n].p);
                ncp_v3_axpy(-0.5 * (c->radius + h), nw, out[n].p);
                out[n].d = dist;
                out[n].feature = 1 + k;
                n++;
            }
            return n;
        }
    }
    to_world(b, xs, cw);
    int n = box_sphere_core(b, cw, c->radius, margin, 0, out, NULL);
    flip(out, n);
    return n;
}

/* ---- box-box: separating axes and face clipping ---- */

/* Sutherland-Hodgman: keep the part of polygon `in` (n points) with s . x <= lim. A convex
 * polygon gains at most one vertex per clip, so a rectangle clipped 4 times has at most 8;
 * CLIP_CAP guards the buffer regardless. */
#define CLIP_CAP 8
static int clip_poly(const double (*in)[3], int n, const double s[3], double lim, double (*out)[3])
{
    int m = 0;
    for (int i = 0; i < n && m < CLIP_CAP; i++) {
        const double *a = in[i], *b = in[(i + 1) % n];
        double da = ncp_v3_dot(s, a) - lim, db = ncp_v3_dot(s, b) - lim;
        if (da <= 0.0) ncp_v3_copy(a, out[m++]);
        if (m < CLIP_CAP && ((da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0))) {
            double t = da / (da - db);
            for (int k = 0; k < 3; k++) out[m][k] = a[k] + t * (b[k] - a[k]);
            m++;
        }
    }
    return m;
}

static int box_box(const ncp_geom *A, const ncp_geom *B, double margin, raw_contact *out)
{
    double a[3][3], b[3][3], T[3];
    for (int i = 0; i < 3; i++) {
        axis_of(A, i, a[i]);
        axis_of(B, i, b[i]);
    }
    ncp_v3_sub(B->pos, A->pos, T);
    double hmin = fmin(fmin(fmin(A->half[0], A->half[1]), fmin(A->half[2], B->half[0])),
                       fmin(B->half[1], B->half[2]));
    /* Separation along a unit axis L: |T.L| - (projected radius of A) - (of B). The axis of
     * largest separation is the SAT axis; faces of A are preferred to faces of B, and faces to
     * edge pairs, unless the other is clearly better (by 2% of the separation plus 1e-3 of the
     * smallest half extent, after Box2D's b2CollidePolygons tolerances), so that resting
     * contacts do not flicker between equivalent axes. */
    double best[2] = {-INFINITY, -INFINITY}, nfb[2][3] = {{0}}, best_edge = -INFINITY, ne[3] = {0};
    int fid[2] = {-1, -1}, edge_i = -1, edge_j = -1;
    for (int k = 0; k < 6; k++) {
        const double *L = k < 3 ? a[k] : b[k - 3];
        double ra = 0.0, rb = 0.0;
        for (int i = 0; i < 3; i++) {
            ra += A->half[i] * fabs(ncp_v3_dot(a[i], L));
            rb += B->half[i] * fabs(ncp_v3_dot(b[i], L));
        }
        double tl = ncp_v3_dot(T, L), s = fabs(tl) - ra - rb;
        int w = k < 3 ? 0 : 1;
        if (s > best[w]) { /* strict: the lower axis wins ties */
            best[w] = s;
            fid[w] = k;
            ncp_v3_scale(L, tl >= 0.0 ? 1.0 : -1.0, nfb[w]);
        }
    }
    /* "clearly better": by 2% of the separation plus 1e-3 of the smallest half extent */
    double tol_face = 0.02 * fabs(best[0]) + 1e-3 * hmin;
    int wb = best[1] > best[0] + tol_face;
    double best_face = best[wb], *nf = nfb[wb];
    int face_id = fid[wb];
    if (best_face > margin) return 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double L[3];
            ncp_v3_cross(a[i], b[j], L);
            if (ncp_v3_normalize(L) < 1e-6) continue; /* parallel edges: covered by the faces */
            double ra = 0.0, rb = 0.0;
            for (int k = 0; k < 3; k++) {
                ra += A->half[k] * fabs(ncp_v3_dot(a[k], L));
                rb += B->half[k] * fabs(ncp_v3_dot(b[k], L));
            }
            double tl = ncp_v3_dot(T, L), s = fabs(tl) - ra - rb;
            if (s > margin) return 0;
            if (s > best_edge) {
                best_edge = s;
                edge_i = i;
                edge_j = j;
                ncp_v3_scale(L, tl >= 0.0 ? 1.0 : -1.0, ne);
            }
        }
    if (edge_i >= 0 && best_edge > best_face + 0.02 * fabs(best_face) + 1e-3 * hmin) {
        /* Edge-edge: the edge of A furthest along n against the edge of B furthest along -n. */
        double ca[3], cb[3], pa0[3], pa1[3], pb0[3], pb1[3], xa[3], xb[3];
        ncp_v3_copy(A->pos, ca);
        ncp_v3_copy(B->pos, cb);
        for (int k = 0; k < 3; k++) {
            if (k != edge_i) ncp_v3_axpy(ncp_v3_dot(a[k], ne) >= 0.0 ? A->half[k] : -A->half[k], a[k], ca);
            if (k != edge_j) ncp_v3_axpy(ncp_v3_dot(b[k], ne) >= 0.0 ? -B->half[k] : B->half[k], b[k], cb);
        }
        ncp_v3_copy(ca, pa0), ncp_v3_axpy(-A->half[edge_i], a[edge_i], pa0);
        ncp_v3_copy(ca, pa1), ncp_v3_axpy(A->half[edge_i], a[edge_i], pa1);
        ncp_v3_copy(cb, pb0), ncp_v3_axpy(-B->half[edge_j], b[edge_j], pb0);
        ncp_v3_copy(cb, pb1), ncp_v3_axpy(B->half[edge_j], b[edge_j], pb1);
        closest_segments(pa0, pa1, pb0, pb1, xa, xb);
        ncp_v3_copy(ne, out->n);
        for (int k = 0; k < 3; k++) out->p[k] = 0.5 * (xa[k] + xb[k]);
        out->d = best_edge;
        out->feature = 0;
        return 1;
    }
    /* Face contact. Reference box R owns the SAT face; nr is its outward face normal (towards
     * the incident box I). */
    const ncp_geom *R = face_id < 3 ? A : B, *I = face_id < 3 ? B : A;
    const double (*raxes)[3] = face_id < 3 ? a : b, (*iaxes)[3] = face_id < 3 ? b : a;
    int rax = face_id % 3;
    double nr[3];
    ncp_v3_scale(nf, face_id < 3 ? 1.0 : -1.0, nr);
    double fc[3];
    ncp_v3_copy(R->pos, fc);
    ncp_v3_axpy(R->half[rax], nr, fc); /* reference face centre */
    /* incident face: the face of I most anti-parallel to nr */
    int im = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(ncp_v3_dot(iaxes[k], nr)) > fabs(ncp_v3_dot(iaxes[im], nr))) im = k;
    double sgn = ncp_v3_dot(iaxes[im], nr) > 0.0 ? -1.0 : 1.0;
    double ic[3];
    ncp_v3_copy(I->pos, ic);
    ncp_v3_axpy(sgn * I->half[im], iaxes[im], ic);
    int u = (im + 1) % 3, v = (im + 2) % 3;
    double poly[CLIP_CAP][3], tmp[CLIP_CAP][3];
    const double su[4] = {1, -1, -1, 1}, sv[4] = {1, 1, -1, -1}; /* around the rectangle */
    for (int k = 0; k < 4; k++) {
        ncp_v3_copy(ic, poly[k]);
        ncp_v3_axpy(su[k] * I->half[u], iaxes[u], poly[k]);
        ncp_v3_axpy(sv[k] * I->half[v], iaxes[v], poly[k]);
    }
    int np = 4;
    for (int k = 0; k < 3 && np > 0; k++) {
        if (k == rax) continue;
        double c0 = ncp_v3_dot(raxes[k], R->pos), neg[3];
        np = clip_poly((const double(*)[3])poly, np, raxes[k], c0 + R->half[k], tmp);
        ncp_v3_scale(raxes[k], -1.0, neg);
        np = clip_poly((const double(*)[3])tmp, np, neg, -c0 + R->half[k], poly);
    }
    /* depth along the reference normal; keep points closer than the margin */
    double dep[8];
    int keep[8], nk = 0;
    for (int k = 0; k < np; k++) {
        double r[3];
        ncp_v3_sub(poly[k], fc, r);
        dep[k] = ncp_v3_dot(nr, r);
        if (dep[k] < margin) keep[nk++] = k;
    }
    if (nk > 4) {
        /* Reduce to 4 spread points: the deepest, the farthest from it, then the points of
         * largest positive and negative area on either side of that diagonal. */
        int used[8] = {0};
        int i0 = keep[0];
        for (int k = 1; k < nk; k++)
            if (dep[keep[k]] < dep[i0]) i0 = keep[k];
        used[i0] = 1;
        int i1 = -1;
        double far = -1.0;
        for (int k = 0; k < nk; k++) {
            double r[3];
            ncp_v3_sub(poly[keep[k]], poly[i0], r);
            if (!used[keep[k]] && ncp_v3_dot(r, r) > far) far = ncp_v3_dot(r, r), i1 = keep[k];
        }
        used[i1] = 1;
        double diag[3];
        ncp_v3_sub(poly[i1], poly[i0], diag);
        for (int side = 0; side < 2; side++) {
            int ib = -1;
            double best = -INFINITY;
            for (int k = 0; k < nk; k++) {
                if (used[keep[k]]) continue;
                double r[3], cr[3];
                ncp_v3_sub(poly[keep[k]], poly[i0], r);
                ncp_v3_cross(diag, r, cr);
                double area = ncp_v3_dot(cr, nr) * (side == 0 ? 1.0 : -1.0);
                if (area > best) best = area, ib = keep[k];
            }
            used[ib] = 1;
        }
        nk = 0;
        for (int k = 0; k < np; k++)
            if (used[k]) keep[nk++] = k;
    }
    for (int q = 0; q < nk; q++) {
        int k = keep[q];
        ncp_v3_copy(nf, out[q].n);
        ncp_v3_copy(poly[k], out[q].p);
        ncp_v3_axpy(-0.5 * dep[k], nr, out[q].p); /* midpoint of incident point and projection */
        out[q].d = dep[k];
        /* clip order is stable while the configuration persists (warm-start key) */
        out[q].feature = 1 + 16 * face_id + k;
    }
    return nk;
}

typedef int (*narrow_fn)(const ncp_geom *, const ncp_geom *, double, raw_contact *);

/* Dispatch table indexed by (lower type, higher type). */
static narrow_fn narrow_table(int ta, int tb)
{
    if (ta > NCP_SHAPE_BOX || tb > NCP_SHAPE_BOX) return NULL; /* SDF pairs: ncp_sdf_collide */
    static const narrow_fn table[4][4] = {
        {NULL, plane_sphere, plane_capsule, plane_box},
        {NULL, sphere_sphere, sphere_capsule, sphere_box},
        {NULL, NULL, capsule_capsule, capsule_box},
        {NULL, NULL, NULL, box_box},
    };
    return table[ta][tb];
}

int ncp_collide_geoms(const ncp_geom *a, const ncp_geom *b, double margin, ncp_contact *out)
{
    int swap = a->type > b->type;
    const ncp_geom *g0 = swap ? b : a, *g1 = swap ? a : b;
    narrow_fn f = narrow_table(g0->type, g1->type);
    if (!f) return 0; /* plane-plane */
    raw_contact raw[NCP_MAX_PAIR_CONTACTS];
    int n = f(g0, g1, margin, raw);
    for (int i = 0; i < n; i++) {
        if (swap) ncp_v3_scale(raw[i].n, -1.0, raw[i].n);
        memset(&out[i], 0, sizeof out[i]);
        ncp_contact_frame(raw[i].n, out[i].frame);
        ncp_v3_copy(raw[i].p, out[i].point);
        out[i].dist = raw[i].d;
        out[i].feature = raw[i].feature;
        out[i].shape[0] = out[i].shape[1] = -1;
        out[i].body[0] = out[i].body[1] = -1;
    }
    return n;
}
