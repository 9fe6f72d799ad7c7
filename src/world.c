/* The rigid-body world: mass properties of the model, state, kinematics, mass matrix and
 * forces, the body Jacobian, and position integration (see world.h). */
#include <stdlib.h>
#include <string.h>

#include "la.h"
#include "spatial.h"
#include "world.h"

const char *ncp_shape_type_name(int type)
{
    switch (type) {
    case NCP_SHAPE_PLANE: return "plane";
    case NCP_SHAPE_SPHERE: return "sphere";
    case NCP_SHAPE_CAPSULE: return "capsule";
    case NCP_SHAPE_BOX: return "box";
    default: return "unknown";
    }
}

double ncp_shape_volume(const ncp_shape_model *s)
{
    const double pi = 3.14159265358979323846;
    switch (s->type) {
    case NCP_SHAPE_SPHERE: return 4.0 / 3.0 * pi * s->radius * s->radius * s->radius;
    case NCP_SHAPE_BOX: return 8.0 * s->half[0] * s->half[1] * s->half[2];
    case NCP_SHAPE_CAPSULE: {
        double r = s->radius;
        return pi * r * r * 2.0 * s->half_length + 4.0 / 3.0 * pi * r * r * r;
    }
    default: return 0.0;
    }
}

/* Inertia (row-major 3x3) of a solid shape of mass m about its centre, in its own axes. */
static void shape_inertia(const ncp_shape_model *s, double m, double I[9])
{
    memset(I, 0, 9 * sizeof(double));
    switch (s->type) {
    case NCP_SHAPE_SPHERE:
        I[0] = I[4] = I[8] = 0.4 * m * s->radius * s->radius;
        break;
    case NCP_SHAPE_BOX: {
        /* solid cuboid with full sides 2a, 2b, 2c: I_xx = m (b^2 + c^2) / 3 */
        double a2 = s->half[0] * s->half[0], b2 = s->half[1] * s->half[1],
               c2 = s->half[2] * s->half[2];
        I[0] = m * (b2 + c2) / 3.0;
        I[4] = m * (a2 + c2) / 3.0;
        I[8] = m * (a2 + b2) / 3.0;
        break;
    }
    case NCP_SHAPE_CAPSULE: {
        /* Cylinder of length L = 2 half_length plus two hemispheres (together one sphere).
         * Each hemisphere about a transverse axis through the capsule centre:
         * m_h (83/320 r^2 + (L/2 + 3r/8)^2) = m_h (2/5 r^2 + L^2/4 + 3 L r / 8). */
        const double pi = 3.14159265358979323846;
        double r = s->radius, L = 2.0 * s->half_length;
        double vc = pi * r * r * L, vs = 4.0 / 3.0 * pi * r * r * r;
        double mc = m * vc / (vc + vs), ms = m - mc;
        double axial = mc * r * r / 2.0 + ms * 0.4 * r * r;
        double trans = mc * (L * L / 12.0 + r * r / 4.0) + ms * (0.4 * r * r + L * L / 4.0 + 3.0 * L * r / 8.0);
        I[0] = I[4] = trans;
        I[8] = axial;
        break;
    }
    default: break;
    }
}

int ncp_model_finalize(ncp_model *m, const double *density, const double *mass, ncp_error *err)
{
    int dof = 0, ndyn = 0;
    for (int b = 0; b < m->nbodies; b++) {
        ncp_body_model *bd = &m->bodies[b];
        if (!bd->dynamic) {
            bd->dof = -1;
            bd->mass = 0.0;
            memset(bd->inertia, 0, sizeof bd->inertia);
            memset(bd->com_local, 0, sizeof bd->com_local);
            continue;
        }
        double vol = 0.0;
        for (int s = bd->shape0; s < bd->shape0 + bd->nshapes; s++) vol += ncp_shape_volume(&m->shapes[s]);
        if (!(vol > 0.0))
            return ncp_error_set(err, NCP_ERR_INPUT,
                                 "body \"%s\": a dynamic body needs at least one sphere, box or "
                                 "capsule with positive volume", bd->name);
        double rho = density[b] > 0.0 ? density[b] : mass[b] / vol;
        bd->mass = rho * vol;
        /* centre of mass: volume-weighted centroid of the shapes (uniform density) */
        double com[3] = {0, 0, 0};
        for (int s = bd->shape0; s < bd->shape0 + bd->nshapes; s++) {
            const ncp_shape_model *sh = &m->shapes[s];
            ncp_v3_axpy(rho * ncp_shape_volume(sh) / bd->mass, sh->pos, com);
        }
        /* inertia about the COM: rotated shape inertias plus the parallel-axis terms
         * m_s (|d|^2 I - d d^T) */
        double I[9] = {0};
        for (int s = bd->shape0; s < bd->shape0 + bd->nshapes; s++) {
            ncp_shape_model *sh = &m->shapes[s];
            double ms = rho * ncp_shape_volume(sh);
            if (ms <= 0.0) continue;
            double Is[9], R[9], Ir[9], d[3];
            shape_inertia(sh, ms, Is);
            ncp_quat_to_mat(sh->quat, R);
            ncp_m3_rotate_sym(R, Is, Ir);
            ncp_v3_sub(sh->pos, com, d);
            double dd = ncp_v3_dot(d, d);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    I[3 * i + j] += Ir[3 * i + j] + ms * ((i == j ? dd : 0.0) - d[i] * d[j]);
        }
        memcpy(bd->inertia, I, sizeof I);
        ncp_v3_copy(com, bd->com_local);
        for (int s = bd->shape0; s < bd->shape0 + bd->nshapes; s++)
            ncp_v3_sub(m->shapes[s].pos, com, m->shapes[s].pos);
        /* the scene gives the body frame's origin; the state is the COM */
        double R[9], c[3];
        ncp_quat_to_mat(bd->quat0, R);
        ncp_m3_mulv(R, com, c);
        ncp_v3_add(bd->pos0, c, bd->pos0);
        if (!ncp_all_finite(9, bd->inertia) || !(bd->mass > 0.0) || !isfinite(bd->mass))
            return ncp_error_set(err, NCP_ERR_INPUT, "body \"%s\": mass properties are not finite "
                                 "(mass %g)", bd->name, bd->mass);
        bd->dof = dof;
        dof += NCP_BODY_NDOF;
        ndyn++;
    }
    m->nv = dof;
    m->ndynamic = ndyn;
    return NCP_OK;
}

void ncp_model_free(ncp_model *m)
{
    if (!m) return;
    free(m->materials);
    free(m->pair_friction);
    free(m->bodies);
    free(m->shapes);
    memset(m, 0, sizeof *m);
}

/* ---- world state ---- */


int ncp_world_create(const ncp_model *m, ncp_world **out, ncp_error *err)
{
    *out = NULL;
    ncp_world *w = ncp_calloc(err, 1, sizeof *w);
    if (!w) return NCP_ERR_NOMEM;
    w->model = m;
    int nb = m->nbodies;
    w->pos = ncp_calloc(err, 3 * (size_t)nb, sizeof(double));
    w->quat = ncp_calloc(err, 4 * (size_t)nb, sizeof(double));
    w->rot = ncp_calloc(err, 9 * (size_t)nb, sizeof(double));
    w->inertia_w = ncp_calloc(err, 9 * (size_t)nb, sizeof(double));
    w->v = ncp_calloc(err, (size_t)m->nv, sizeof(double));
    w->geoms = ncp_calloc(err, (size_t)m->nshapes, sizeof(ncp_geom));
    if (!w->pos || !w->quat || !w->rot || !w->inertia_w || !w->v || !w->geoms) {
        ncp_world_free(w);
        return NCP_ERR_NOMEM;
    }
    for (int b = 0; b < nb; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        memcpy(w->pos + 3 * b, bd->pos0, 3 * sizeof(double));
        memcpy(w->quat + 4 * b, bd->quat0, 4 * sizeof(double));
        if (bd->dynamic) {
            memcpy(w->v + bd->dof, bd->vel0, 3 * sizeof(double));
            memcpy(w->v + bd->dof + 3, bd->omega0, 3 * sizeof(double));
        }
    }
    ncp_world_kinematics(w);
    *out = w;
    return NCP_OK;
}

void ncp_world_free(ncp_world *w)
{
    if (!w) return;
    free(w->pos);
    free(w->quat);
    free(w->rot);
    free(w->inertia_w);
    free(w->v);
    free(w->geoms);
    free(w->warm);
    free(w);
}

void ncp_world_kinematics(ncp_world *w)
{
    const ncp_model *m = w->model;
    for (int b = 0; b < m->nbodies; b++) {
        double *R = w->rot + 9 * b;
        ncp_quat_to_mat(w->quat + 4 * b, R);
        if (m->bodies[b].dynamic) ncp_m3_rotate_sym(R, m->bodies[b].inertia, w->inertia_w + 9 * b);
        else memset(w->inertia_w + 9 * b, 0, 9 * sizeof(double));
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
    const ncp_body_model *bd = &w->model->bodies[body];
    if (!bd->dynamic) return 0;
    /* Free body, dofs (v_com, omega) in world: v_p = v_com + omega x r = v_com - [r]x omega,
     * r = p - x_com. */
    double r[3];
    ncp_v3_sub(p, w->pos + 3 * body, r);
    for (int k = 0; k < NCP_BODY_NDOF; k++) dofs[k] = bd->dof + k;
    memset(Jlin, 0, 3 * NCP_BODY_NDOF * sizeof(double));
    memset(Jang, 0, 3 * NCP_BODY_NDOF * sizeof(double));
    for (int i = 0; i < 3; i++) {
        Jlin[i * NCP_BODY_NDOF + i] = 1.0;
        Jang[i * NCP_BODY_NDOF + 3 + i] = 1.0;
    }
    /* -[r]x = [[0, r2, -r1], [-r2, 0, r0], [r1, -r0, 0]] in the omega columns */
    Jlin[0 * NCP_BODY_NDOF + 4] = r[2];
    Jlin[0 * NCP_BODY_NDOF + 5] = -r[1];
    Jlin[1 * NCP_BODY_NDOF + 3] = -r[2];
    Jlin[1 * NCP_BODY_NDOF + 5] = r[0];
    Jlin[2 * NCP_BODY_NDOF + 3] = r[1];
    Jlin[2 * NCP_BODY_NDOF + 4] = -r[0];
    return NCP_BODY_NDOF;
}

void ncp_world_dynamics(const ncp_world *w, double *A, double *b)
{
    const ncp_model *m = w->model;
    int nv = m->nv;
    if (A) memset(A, 0, (size_t)nv * nv * sizeof(double));
    for (int k = 0; k < m->nbodies; k++) {
        const ncp_body_model *bd = &m->bodies[k];
        if (!bd->dynamic) continue;
        int d = bd->dof;
        const double *I = w->inertia_w + 9 * k, *vl = w->v + d, *om = w->v + d + 3;
        if (A) {
            for (int i = 0; i < 3; i++) {
                A[(size_t)(d + i) * nv + d + i] = bd->mass;
                for (int j = 0; j < 3; j++) A[(size_t)(d + 3 + j) * nv + d + 3 + i] = I[3 * i + j];
            }
        }
        if (b) {
            /* b = M v_k + h (f_ext - omega x I omega): semi-implicit Euler with the gyroscopic
             * term explicit (DESIGN.md §3 primal form A v_{k+1} = b + J^T lambda). */
            double Iw[3], gyro[3];
            ncp_m3_mulv(I, om, Iw);
            ncp_v3_cross(om, Iw, gyro);
            for (int i = 0; i < 3; i++) {
                b[d + i] = bd->mass * vl[i] + m->h * (bd->mass * m->gravity[i] + bd->force[i]);
                b[d + 3 + i] = Iw[i] + m->h * (bd->torque[i] - gyro[i]);
            }
        }
    }
}

int ncp_world_solve_mass(const ncp_world *w, const double *b, double *v, ncp_error *err)
{
    const ncp_model *m = w->model;
    for (int k = 0; k < m->nbodies; k++) {
        const ncp_body_model *bd = &m->bodies[k];
        if (!bd->dynamic) continue;
        int d = bd->dof;
        for (int i = 0; i < 3; i++) v[d + i] = b[d + i] / bd->mass;
        double L[9], x[3];
        memcpy(L, w->inertia_w + 9 * k, sizeof L); /* symmetric: row- and column-major agree */
        memcpy(x, b + d + 3, sizeof x);
        int rc = ncp_chol_factor(3, L, err);
        if (!rc) rc = ncp_chol_solve(3, L, 1, x, err);
        if (rc) return ncp_error_prefix(err, "inertia of body \"%s\": ", bd->name);
        memcpy(v + d + 3, x, sizeof x);
    }
    return NCP_OK;
}

void ncp_world_integrate(ncp_world *w, const double *v_next)
{
    const ncp_model *m = w->model;
    if (m->nv > 0) memcpy(w->v, v_next, (size_t)m->nv * sizeof(double));
    for (int k = 0; k < m->nbodies; k++) {
        const ncp_body_model *bd = &m->bodies[k];
        if (!bd->dynamic) continue;
        const double *vl = w->v + bd->dof, *om = w->v + bd->dof + 3;
        ncp_v3_axpy(m->h, vl, w->pos + 3 * k);
        /* world-frame omega: q_{k+1} = exp(h omega / 2) q_k (left multiplication) */
        double rv[3], dq[4], *q = w->quat + 4 * k;
        ncp_v3_scale(om, m->h, rv);
        ncp_quat_from_rotvec(rv, dq);
        ncp_quat_mul(dq, q, q);
        ncp_quat_normalize(q);
    }
    w->step++;
    w->time = w->step * m->h; /* not accumulated, so long runs do not drift */
    ncp_world_kinematics(w);
}

int ncp_world_find_body(const ncp_world *w, const char *name)
{
    for (int b = 0; b < w->model->nbodies; b++)
        if (strcmp(w->model->bodies[b].name, name) == 0) return b;
    return -1;
}

void ncp_world_body_position(const ncp_world *w, int body, double out[3])
{
    ncp_v3_copy(w->pos + 3 * body, out);
}

void ncp_world_body_orientation(const ncp_world *w, int body, double quat_out[4])
{
    memcpy(quat_out, w->quat + 4 * body, 4 * sizeof(double));
}

void ncp_world_body_velocity(const ncp_world *w, int body, double lin[3], double ang[3])
{
    const ncp_body_model *bd = &w->model->bodies[body];
    if (!bd->dynamic) {
        if (lin) ncp_v3_set(lin, 0, 0, 0);
        if (ang) ncp_v3_set(ang, 0, 0, 0);
        return;
    }
    if (lin) ncp_v3_copy(w->v + bd->dof, lin);
    if (ang) ncp_v3_copy(w->v + bd->dof + 3, ang);
}

void ncp_world_set_body_state(ncp_world *w, int body, const double pos[3], const double quat[4],
                              const double lin[3], const double ang[3])
{
    const ncp_body_model *bd = &w->model->bodies[body];
    if (pos) ncp_v3_copy(pos, w->pos + 3 * body);
    if (quat) {
        memcpy(w->quat + 4 * body, quat, 4 * sizeof(double));
        ncp_quat_normalize(w->quat + 4 * body);
    }
    if (bd->dynamic) {
        if (lin) ncp_v3_copy(lin, w->v + bd->dof);
        if (ang) ncp_v3_copy(ang, w->v + bd->dof + 3);
    }
}
