/* The world's own constraint rows (assemble.h): joint limits, loop closures, welds, springs.
 *
 * Every row is body-level: r = lin . (v_p1(body1) - v_p0(body0)) + ang . (w(body1) - w(body0)),
 * so its Jacobian goes through the trees (ncp_world_body_jacobian) and the structure gets its
 * J_{i,b} for free (assemble.c).
 *
 * Bias (Lee et al. 2025 §III-B1, eq. 3: "e_i is a scaled and biased error, e.g. Baumgarte"):
 *   bilateral rows (closures, welds):  e = joint_erp * err / h, with err the position error
 *     along the row, so u = d(err)/dt + joint_erp err / h = 0 removes the fraction joint_erp of
 *     the error per step;
 *   limit rows, gap g >= 0 (inside the range): e = g / h, like a separated contact (the joint
 *     may reach its limit within the step but not pass it); g < 0: e = joint_erp g / h.
 * A limit row exists while the joint is within limit_margin of that limit (speculatively, like
 * contacts within the contact margin; NCP report 2025 eq. 29 creates it only at g <= 0).
 *
 * Springs (Lee et al. 2025 eq. 4, lambda = -k e - b J v): a spring of stiffness K and damping B between
 * two anchor points, stretch phi = |p1 - p0| - rest, gives over a step the impulse
 * lambda = h F with F = -K (phi + h u) - B u evaluated at the end of the step (implicit, so a
 * stiff spring stays stable): the SOFT row's k = h K, c = h (h K + B), phi = phi, e = 0.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/assemble.h"
#include "core/spatial.h"
#include "geometry/contact.h"
#include "sim/constraints.h"

typedef struct rows_buf {
    ncp_cons_entry *e;
    int n, cap;
} rows_buf;

static ncp_cons_entry *push(rows_buf *r, ncp_error *err)
{
    if (r->n == r->cap) {
        int nc = r->cap ? 2 * r->cap : 32;
        ncp_cons_entry *ne = realloc(r->e, (size_t)nc * sizeof *ne);
        if (!ne) {
            ncp_error_set(err, NCP_ERR_NOMEM, "out of memory building constraint rows");
            return NULL;
        }
        r->e = ne;
        r->cap = nc;
    }
    ncp_cons_entry *e = &r->e[r->n++];
    memset(e, 0, sizeof *e);
    e->contact = -1;
    return e;
}

/* World direction of a vector given in body b's frame (or in the world for b = -1). */
static void dir_world(const ncp_world *w, int b, const double a[3], double out[3])
{
    if (b < 0) ncp_v3_copy(a, out);
    else ncp_m3_mulv(w->rot + 9 * b, a, out);
}

/* World position of an anchor given in body b's COM frame (or in the world for b = -1). */
static void anchor_world(const ncp_world *w, int b, const double a[3], double out[3])
{
    if (b < 0) {
        ncp_v3_copy(a, out);
        return;
    }
    double r[3];
    dir_world(w, b, a, r);
    ncp_v3_add(w->pos + 3 * b, r, out);
}

static void body_quat(const ncp_world *w, int b, double q[4])
{
    if (b < 0) {
        q[0] = 1.0;
        q[1] = q[2] = q[3] = 0.0;
    } else {
        memcpy(q, w->quat + 4 * b, 4 * sizeof(double));
    }
}

static int limit_rows(const ncp_world *w, rows_buf *rb, ncp_error *err)
{
    const ncp_model *m = w->model;
    double h = m->h;
    for (int b = 0; b < m->nbodies; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        if (!bd->limited || bd->ndof != 1) continue;
        double q = w->q[bd->qpos];
        for (int side = 0; side < 2; side++) {
            double g = side == 0 ? q - bd->lower : bd->upper - q, sgn = side == 0 ? 1.0 : -1.0;
            if (!(g < m->limit_margin)) continue;
            ncp_cons_entry *e = push(rb, err);
            if (!e) return NCP_ERR_NOMEM;
            e->type = NCP_UNILATERAL;
            e->body[0] = bd->parent;
            e->body[1] = b;
            /* qdot = a . (w_b - w_parent) (revolute) or a . (v_b - v_parent) at any common point
             * (prismatic: no relative rotation); the joint axis a in the world */
            double a[3];
            ncp_m3_mulv(w->rot + 9 * b, bd->axis, a);
            ncp_v3_scale(a, sgn, a);
            if (bd->joint == NCP_JOINT_REVOLUTE) ncp_v3_copy(a, e->ang[0]);
            else ncp_v3_copy(a, e->lin[0]);
            ncp_v3_copy(w->pos + 3 * b, e->point[0]);
            ncp_v3_copy(w->pos + 3 * b, e->point[1]);
            e->e[0] = g >= 0.0 ? g / h : m->joint_erp * g / h;
            e->key[0] = 1;
            e->key[1] = b;
            e->key[2] = side;
        }
    }
    return NCP_OK;
}

/* Rotation vector of a unit quaternion (the log map), angle in [0, pi]. */
static void quat_log(const double q[4], double out[3])
{
    double s = q[0] < 0.0 ? -1.0 : 1.0; /* q and -q are the same rotation */
    double v[3] = {s * q[1], s * q[2], s * q[3]}, n = ncp_v3_norm(v);
    if (n < 1e-300) {
        ncp_v3_set(out, 0, 0, 0);
        return;
    }
    double ang = 2.0 * atan2(n, s * q[0]);
    ncp_v3_scale(v, ang / n, out);
}

/* A new row of link l between its two bodies, at their anchors p0 and p1 (world); key (2, l,
 * row). The caller sets the row's direction (lin / ang) and bias. NULL when out of memory. */
static ncp_cons_entry *link_row(rows_buf *rb, const ncp_link_model *lk, int l, int type, int row,
                                const double p0[3], const double p1[3], ncp_error *err)
{
    ncp_cons_entry *e = push(rb, err);
    if (!e) return NULL;
    e->type = type;
    e->body[0] = lk->body[0];
    e->body[1] = lk->body[1];
    ncp_v3_copy(p0, e->point[0]);
    ncp_v3_copy(p1, e->point[1]);
    e->key[0] = 2;
    e->key[1] = l;
    e->key[2] = row;
    return e;
}

static int link_rows(const ncp_world *w, rows_buf *rb, ncp_error *err)
{
    const ncp_model *m = w->model;
    double h = m->h, erp = m->joint_erp;
    for (int l = 0; l < m->nlinks; l++) {
        const ncp_link_model *lk = &m->links[l];
        double p0[3], p1[3], d[3];
        anchor_world(w, lk->body[0], lk->anchor[0], p0);
        anchor_world(w, lk->body[1], lk->anchor[1], p1);
        ncp_v3_sub(p1, p0, d);
        int row = 0;
        if (lk->type == NCP_LINK_SPRING) {
            double L = ncp_v3_norm(d), n[3] = {0, 0, 1};
            if (L > 1e-12) ncp_v3_scale(d, 1.0 / L, n); /* coincident anchors: any direction */
            ncp_cons_entry *e = link_row(rb, lk, l, NCP_SOFT, 0, p0, p1, err);
            if (!e) return NCP_ERR_NOMEM;
            ncp_v3_copy(n, e->lin[0]);
            e->phi = L - lk->rest;
            e->k = h * lk->stiffness;
            e->c = h * (h * lk->stiffness + lk->damping);
            continue;
        }
        /* translation: the anchors coincide, rows along the world axes */
        for (int i = 0; i < 3; i++, row++) {
            ncp_cons_entry *e = link_row(rb, lk, l, NCP_BILATERAL, row, p0, p1, err);
            if (!e) return NCP_ERR_NOMEM;
            e->lin[0][i] = 1.0;
            e->e[0] = erp * d[i] / h;
        }
        if (lk->type == NCP_LINK_HINGE) {
            /* the two axes stay aligned: (a0 x a1) . t_k = 0 for the two directions t_k normal to
             * a0; its rate is t_k . (w1 - w0) at alignment */
            double a0[3], a1[3], cr[3], fr[9];
            dir_world(w, lk->body[0], lk->axis[0], a0);
            dir_world(w, lk->body[1], lk->axis[1], a1);
            ncp_v3_cross(a0, a1, cr);
            ncp_contact_frame(a0, fr);
            for (int t = 1; t < 3; t++, row++) {
                ncp_cons_entry *e = link_row(rb, lk, l, NCP_BILATERAL, row, p0, p1, err);
                if (!e) return NCP_ERR_NOMEM;
                ncp_v3_copy(fr + 3 * t, e->ang[0]);
                e->e[0] = erp * ncp_v3_dot(fr + 3 * t, cr) / h;
            }
        } else if (lk->type == NCP_LINK_WELD) {
            /* orientation error: rotation vector of R1 (R0 R_rel)^T, world; rate w1 - w0 */
            double q0[4], q1[4], qt[4], qe[4], rv[3];
            body_quat(w, lk->body[0], q0);
            body_quat(w, lk->body[1], q1);
            ncp_quat_mul(q0, lk->rel, qt);
            qt[1] = -qt[1], qt[2] = -qt[2], qt[3] = -qt[3]; /* inverse of a unit quaternion */
            ncp_quat_mul(q1, qt, qe);
            quat_log(qe, rv);
            for (int i = 0; i < 3; i++, row++) {
                ncp_cons_entry *e = link_row(rb, lk, l, NCP_BILATERAL, row, p0, p1, err);
                if (!e) return NCP_ERR_NOMEM;
                e->ang[0][i] = 1.0;
                e->e[0] = erp * rv[i] / h;
            }
        }
    }
    return NCP_OK;
}

int ncp_world_rows(const ncp_world *w, ncp_cons_entry **out, int *n, ncp_error *err)
{
    rows_buf rb = {*out, 0, 0};
    free(rb.e); /* the caller's old list is replaced */
    rb.e = NULL;
    *out = NULL;
    *n = 0;
    int rc = limit_rows(w, &rb, err);
    if (!rc) rc = link_rows(w, &rb, err);
    if (rc) {
        free(rb.e);
        return rc;
    }
    *out = rb.e;
    *n = rb.n;
    return NCP_OK;
}
