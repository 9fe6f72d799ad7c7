/* Forward kinematics, motion subspaces, body Jacobians and the integration of positions on the
 * joint manifolds (world.h). Conventions: Featherstone, "Rigid Body Dynamics Algorithms"
 * (2008), with every spatial vector in world coordinates about the world origin (world.h). */
#include <string.h>

#include "core/spatial.h"
#include "sim/world.h"
#include "sim/kinematics.h"

void ncp_model_forward_kinematics(const ncp_model *m, const double *q, double *origin, double *quat,
                                  double *janchor)
{
    for (int b = 0; b < m->nbodies; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        /* joint frame: the parent's frame (or the world) moved by jpos, jquat */
        double oj[3], qj[4];
        if (bd->parent >= 0) {
            const double *op = origin + 3 * bd->parent, *qp = quat + 4 * bd->parent;
            double Rp[9], d[3];
            ncp_quat_to_mat(qp, Rp);
            ncp_m3_mulv(Rp, bd->jpos, d);
            ncp_v3_add(op, d, oj);
            ncp_quat_mul(qp, bd->jquat, qj);
        } else {
            ncp_v3_copy(bd->jpos, oj);
            memcpy(qj, bd->jquat, sizeof qj);
        }
        double *o = origin + 3 * b, *qb = quat + 4 * b;
        const double *qc = bd->qpos >= 0 ? q + bd->qpos : NULL;
        switch (bd->joint) {
        case NCP_JOINT_REVOLUTE: {
            double dq[4];
            ncp_quat_from_axis_angle(bd->axis, qc[0], dq);
            ncp_quat_mul(qj, dq, qb);
            ncp_v3_copy(oj, o);
            break;
        }
        case NCP_JOINT_PRISMATIC: {
            double R[9], a[3];
            ncp_quat_to_mat(qj, R);
            ncp_m3_mulv(R, bd->axis, a);
            for (int i = 0; i < 3; i++) o[i] = oj[i] + qc[0] * a[i];
            memcpy(qb, qj, 4 * sizeof(double));
            break;
        }
        case NCP_JOINT_SPHERICAL: {
            double rel[4];
            memcpy(rel, qc, sizeof rel);
            ncp_quat_normalize(rel);
            ncp_quat_mul(qj, rel, qb);
            ncp_v3_copy(oj, o);
            break;
        }
        case NCP_JOINT_FREE: {
            /* coordinates: centre of mass and orientation; the frame origin follows */
            double R[9], c[3];
            memcpy(qb, qc + 3, 4 * sizeof(double));
            ncp_quat_normalize(qb);
            ncp_quat_to_mat(qb, R);
            ncp_m3_mulv(R, bd->com_local, c);
            ncp_v3_sub(qc, c, o);
            break;
        }
        default: /* fixed */
            ncp_v3_copy(oj, o);
            memcpy(qb, qj, 4 * sizeof(double));
            break;
        }
        ncp_quat_normalize(qb);
        if (janchor) ncp_v3_copy(oj, janchor + 3 * b);
    }
}

void ncp_world_kinematics(ncp_world *w)
{
    const ncp_model *m = w->model;
    int nb = m->nbodies;
    /* w->pos holds the frame origins until the COMs are computed below */
    ncp_model_forward_kinematics(m, w->q, w->pos, w->quat, w->janchor);
    for (int b = 0; b < nb; b++) /* static bodies with a prescribed motion (motion.h) */
        if (m->bodies[b].motion.active)
            ncp_motion_pose(&m->bodies[b].motion, w->time, w->pos + 3 * b, w->quat + 4 * b, w->pos + 3 * b, w->quat + 4 * b);
    for (int b = 0; b < nb; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        double *R = w->rot + 9 * b, c[3];
        ncp_quat_to_mat(w->quat + 4 * b, R);
        ncp_m3_mulv(R, bd->com_local, c);
        ncp_v3_add(w->pos + 3 * b, c, w->pos + 3 * b);
        ncp_m3_rotate_sym(R, bd->inertia, w->inertia_w + 9 * b);
        /* motion subspace columns (omega; v_O) of the joint's dofs, world frame */
        if (!bd->ndof) continue;
        double *S = w->S + 6 * (size_t)bd->dof;
        const double *oj = w->janchor + 3 * b;
        memset(S, 0, 6 * (size_t)bd->ndof * sizeof(double));
        switch (bd->joint) {
        case NCP_JOINT_REVOLUTE: {
            /* rotation about the world axis a through the joint origin o: v_O = o x a */
            double a[3];
            ncp_m3_mulv(R, bd->axis, a); /* the axis is invariant under its own rotation */
            ncp_v3_copy(a, S);
            ncp_v3_cross(oj, a, S + 3);
            break;
        }
        case NCP_JOINT_PRISMATIC:
            ncp_m3_mulv(R, bd->axis, S + 3);
            break;
        case NCP_JOINT_SPHERICAL:
            /* relative angular velocity in world components, about the joint origin */
            for (int k = 0; k < 3; k++) {
                double e[3] = {0, 0, 0};
                e[k] = 1.0;
                ncp_v3_copy(e, S + 6 * k);
                ncp_v3_cross(oj, e, S + 6 * k + 3);
            }
            break;
        case NCP_JOINT_FREE:
            /* (v_c, omega): the body's twist is (omega; v_c + c x omega) */
            for (int k = 0; k < 3; k++) {
                double e[3] = {0, 0, 0};
                e[k] = 1.0;
                ncp_v3_copy(e, S + 6 * k + 3);
                ncp_v3_copy(e, S + 6 * (k + 3));
                ncp_v3_cross(w->pos + 3 * b, e, S + 6 * (k + 3) + 3);
            }
            break;
        default: break;
        }
    }
    for (int s = 0; s < m->nshapes; s++) {
        const ncp_shape_model *sh = &m->shapes[s];
        ncp_geom *g = &w->geoms[s];
        const double *R = w->rot + 9 * sh->body, *x = w->pos + 3 * sh->body;
        double Rs[9], p[3];
        ncp_quat_to_mat(sh->quat, Rs);
        ncp_m3_mul(R, Rs, g->rot);
        ncp_m3_mulv(R, sh->pos, p);
        ncp_v3_add(x, p, g->pos);
        g->type = sh->type;
        g->sdf = sh->sdf;
        g->radius = sh->radius;
        g->half_length = sh->half_length;
        ncp_v3_copy(sh->half, g->half);
        if (sh->type == NCP_SHAPE_PLANE) {
            /* local plane {y : n.y = d} -> world {x : (Rn).x = d + (Rn).pos} */
            ncp_m3_mulv(g->rot, sh->normal, g->normal);
            g->offset = sh->offset + ncp_v3_dot(g->normal, g->pos);
        }
    }
}

int ncp_world_body_jacobian(const ncp_world *w, int body, const double p[3], int *dofs,
                            double *Jlin, double *Jang)
{
    const ncp_model *m = w->model;
    int n = 0;
    for (int a = body; a >= 0; a = m->bodies[a].parent) n += m->bodies[a].ndof;
    if (n == 0) return 0;
    /* walk up from the body; ancestors own lower dofs, so fill from the right */
    int col = n;
    for (int a = body; a >= 0; a = m->bodies[a].parent) {
        const ncp_body_model *bd = &m->bodies[a];
        for (int k = bd->ndof - 1; k >= 0; k--) {
            int d = bd->dof + k;
            const double *S = w->S + 6 * (size_t)d;
            col--;
            dofs[col] = d;
            /* point velocity v_p = v_O + omega x p */
            double wxp[3];
            ncp_v3_cross(S, p, wxp);
            for (int r = 0; r < 3; r++) {
                Jang[r * n + col] = S[r];
                Jlin[r * n + col] = S[3 + r] + wxp[r];
            }
        }
    }
    return n;
}

void ncp_world_body_twists(const ncp_world *w, const double *v, double *twist)
{
    const ncp_model *m = w->model;
    for (int b = 0; b < m->nbodies; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        double *t = twist + 6 * b;
        if (bd->parent >= 0) memcpy(t, twist + 6 * bd->parent, 6 * sizeof(double));
        else memset(t, 0, 6 * sizeof(double));
        for (int k = 0; k < bd->ndof; k++) {
            const double *S = w->S + 6 * (size_t)(bd->dof + k);
            for (int i = 0; i < 6; i++) t[i] += S[i] * v[bd->dof + k];
        }
    }
}

void ncp_world_advance_q(const ncp_world *w, const double *q, const double *v, double h,
                         double *q_out)
{
    const ncp_model *m = w->model;
    if (q_out != q) memcpy(q_out, q, (size_t)m->nq * sizeof(double));
    for (int b = 0; b < m->nbodies; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        if (!bd->ndof) continue;
        double *qb = q_out + bd->qpos;
        const double *vb = v + bd->dof;
        switch (bd->joint) {
        case NCP_JOINT_REVOLUTE:
        case NCP_JOINT_PRISMATIC: qb[0] += h * vb[0]; break;
        case NCP_JOINT_SPHERICAL: {
            /* R_b = R_j R(q_rel) with R_j the joint frame: dR_rel/dt = [R_j^T omega_rel] R_rel,
             * so q_rel <- exp(h R_j^T omega_rel / 2) q_rel (R_j at the world's state) */
            double Rb[9], Rr[9], Rj[9], wj[3], dq[4];
            ncp_quat_to_mat(w->quat + 4 * b, Rb);
            double rel[4];
            memcpy(rel, w->q + bd->qpos, sizeof rel);
            ncp_quat_normalize(rel);
            ncp_quat_to_mat(rel, Rr);
            ncp_m3_mul_bt(Rb, Rr, Rj);
            ncp_m3_mulv_t(Rj, vb, wj);
            ncp_v3_scale(wj, h, wj);
            ncp_quat_from_rotvec(wj, dq);
            ncp_quat_mul(dq, qb, qb);
            ncp_quat_normalize(qb);
            break;
        }
        case NCP_JOINT_FREE: {
            /* COM += h v_c; world-frame omega: q <- exp(h omega / 2) q (left multiplication) */
            double rv[3], dq[4];
            ncp_v3_axpy(h, vb, qb);
            ncp_v3_scale(vb + 3, h, rv);
            ncp_quat_from_rotvec(rv, dq);
            ncp_quat_mul(dq, qb + 3, qb + 3);
            ncp_quat_normalize(qb + 3);
            break;
        }
        default: break;
        }
    }
}
