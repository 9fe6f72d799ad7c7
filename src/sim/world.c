/* The model (mass properties, kinematic trees, dofs, subsystems), the world state and its
 * accessors (see world.h; kinematics, dynamics and stepping live in their own files). */
#include <stdlib.h>
#include <string.h>

#include "core/la.h"
#include "geometry/sdf.h"
#include "core/spatial.h"
#include "sim/world.h"
#include "sim/kinematics.h"

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
    case NCP_SHAPE_SDF: return s->sdf ? ncp_sdf_volume(s->sdf) : 0.0;
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
    case NCP_SHAPE_SDF: /* about the shape's centroid (its frame origin, sdf.h) */
        if (s->sdf) ncp_sdf_inertia(s->sdf, m, I);
        break;
    default: break;
    }
}

const char *ncp_joint_type_name(int type)
{
    switch (type) {
    case NCP_JOINT_FIXED: return "fixed";
    case NCP_JOINT_REVOLUTE: return "revolute";
    case NCP_JOINT_PRISMATIC: return "prismatic";
    case NCP_JOINT_SPHERICAL: return "spherical";
    case NCP_JOINT_FREE: return "free";
    default: return "unknown";
    }
}

int ncp_joint_ndof(int type)
{
    static const int n[5] = {0, 1, 1, 3, 6};
    return type >= 0 && type < 5 ? n[type] : 0;
}

int ncp_joint_nq(int type)
{
    static const int n[5] = {0, 1, 1, 4, 7};
    return type >= 0 && type < 5 ? n[type] : 0;
}

const char *ncp_link_type_name(int type)
{
    switch (type) {
    case NCP_LINK_POINT: return "point";
    case NCP_LINK_HINGE: return "hinge";
    case NCP_LINK_WELD: return "weld";
    case NCP_LINK_SPRING: return "spring";
    default: return "unknown";
    }
}

int ncp_model_body_mass(ncp_model *m, int b, double density, double mass, ncp_error *err)
{
    ncp_body_model *bd = &m->bodies[b];
    double vol = 0.0;
    for (int s = bd->shape0; s < bd->shape0 + bd->nshapes; s++) vol += ncp_shape_volume(&m->shapes[s]);
    if (!(vol > 0.0))
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "body \"%s\": a dynamic body needs at least one sphere, box or "
                             "capsule with positive volume (or explicit inertial properties)", bd->name);
    double rho = density > 0.0 ? density : mass / vol;
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
    if (!ncp_all_finite(9, bd->inertia) || !(bd->mass > 0.0) || !isfinite(bd->mass))
        return ncp_error_set(err, NCP_ERR_INPUT, "body \"%s\": mass properties are not finite "
                             "(mass %g)", bd->name, bd->mass);
    return NCP_OK;
}

int ncp_model_finalize(ncp_model *m, const double *density, const double *mass, ncp_error *err)
{
    /* The scene's own bodies are roots: a dynamic body hangs from the world by a FREE joint
     * placed at its initial pose, a static one by a FIXED joint. */
    for (int b = 0; b < m->nbodies; b++) {
        ncp_body_model *bd = &m->bodies[b];
        bd->parent = -1;
        bd->robot = -1;
        bd->joint = bd->dynamic ? NCP_JOINT_FREE : NCP_JOINT_FIXED;
        ncp_v3_copy(bd->pos0, bd->jpos);
        memcpy(bd->jquat, bd->quat0, sizeof bd->jquat);
        if (!bd->dynamic) {
            bd->mass = 0.0;
            memset(bd->inertia, 0, sizeof bd->inertia);
            memset(bd->com_local, 0, sizeof bd->com_local);
            continue;
        }
        if (density[b] > 0.0 || mass[b] > 0.0) {
            int rc = ncp_model_body_mass(m, b, density[b], mass[b], err);
            if (rc) return rc;
        }
    }
    return ncp_model_build(m, err);
}

/* Depth-first numbering of q and v (see world.h). `next` holds the children lists. */
static void number_subtree(ncp_model *m, const int *first_child, const int *next_sibling, int root,
                           int *stack, int *nq, int *nv)
{
    int top = 0;
    stack[top++] = root;
    while (top > 0) {
        int b = stack[--top];
        ncp_body_model *bd = &m->bodies[b];
        bd->ndof = ncp_joint_ndof(bd->joint);
        int nqb = ncp_joint_nq(bd->joint);
        bd->qpos = nqb ? *nq : -1;
        bd->dof = bd->ndof ? *nv : -1;
        *nq += nqb;
        *nv += bd->ndof;
        const ncp_body_model *pa = bd->parent >= 0 ? &m->bodies[bd->parent] : NULL;
        bd->dynamic = bd->ndof > 0 || (pa && pa->dynamic);
        /* a moving body whose parent does not move starts a new subsystem */
        if (!bd->dynamic) bd->subsystem = -1;
        else if (pa && pa->dynamic) bd->subsystem = pa->subsystem;
        else bd->subsystem = m->nsub++;
        /* children pushed in reverse so they are visited in body order */
        int nch = 0;
        for (int c = first_child[b]; c >= 0; c = next_sibling[c]) nch++;
        int k = 0;
        for (int c = first_child[b]; c >= 0; c = next_sibling[c], k++) stack[top + nch - 1 - k] = c;
        top += nch;
    }
}

int ncp_model_build(ncp_model *m, ncp_error *err)
{
    int nb = m->nbodies;
    for (int b = 0; b < nb; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        if (bd->parent < -1 || bd->parent >= b)
            return ncp_error_set(err, NCP_ERR_INPUT, "body \"%s\": its parent must be listed before "
                                 "it (got parent index %d for body %d)", bd->name, bd->parent, b);
        if (bd->joint < NCP_JOINT_FIXED || bd->joint > NCP_JOINT_FREE)
            return ncp_error_set(err, NCP_ERR_INPUT, "body \"%s\": unknown joint type %d", bd->name, bd->joint);
        if (bd->joint == NCP_JOINT_FREE && bd->parent != -1)
            return ncp_error_set(err, NCP_ERR_INPUT, "body \"%s\": a free joint may only connect a "
                                 "root body to the world (its parent is \"%s\")", bd->name,
                                 m->bodies[bd->parent].name);
    }
    int *first = ncp_malloc(err, (size_t)nb, sizeof(int));
    int *next = ncp_malloc(err, (size_t)nb, sizeof(int));
    int *stack = ncp_malloc(err, (size_t)nb, sizeof(int));
    if (!first || !next || !stack) {
        free(first);
        free(next);
        free(stack);
        return NCP_ERR_NOMEM;
    }
    for (int b = 0; b < nb; b++) first[b] = next[b] = -1;
    for (int b = nb - 1; b >= 0; b--) /* prepend in reverse: lists come out in body order */
        if (m->bodies[b].parent >= 0) {
            next[b] = first[m->bodies[b].parent];
            first[m->bodies[b].parent] = b;
        }
    int nq = 0, nv = 0;
    m->nsub = 0;
    for (int b = 0; b < nb; b++)
        if (m->bodies[b].parent < 0) number_subtree(m, first, next, b, stack, &nq, &nv);
    free(first);
    free(next);
    free(stack);
    m->nq = nq;
    m->nv = nv;
    m->ndynamic = 0;
    for (int b = 0; b < nb; b++) m->ndynamic += m->bodies[b].dynamic;

    free(m->dof_body);
    free(m->sub_dof_start);
    free(m->sub_ndof);
    m->dof_body = ncp_malloc(err, (size_t)nv, sizeof(int));
    m->sub_dof_start = ncp_malloc(err, (size_t)m->nsub, sizeof(int));
    m->sub_ndof = ncp_calloc(err, (size_t)m->nsub, sizeof(int));
    if (!m->dof_body || !m->sub_dof_start || !m->sub_ndof) return NCP_ERR_NOMEM;
    for (int j = 0; j < m->nsub; j++) m->sub_dof_start[j] = nv;
    for (int b = 0; b < nb; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        for (int k = 0; k < bd->ndof; k++) m->dof_body[bd->dof + k] = b;
        if (bd->ndof) {
            int j = bd->subsystem;
            if (bd->dof < m->sub_dof_start[j]) m->sub_dof_start[j] = bd->dof;
            m->sub_ndof[j] += bd->ndof;
        }
        /* the Jacobian of a body covers the dofs on its path to the world */
        int chain = 0;
        for (int a = b; a >= 0; a = m->bodies[a].parent) chain += m->bodies[a].ndof;
        if (chain > NCP_MAX_CHAIN_DOF)
            return ncp_error_set(err, NCP_ERR_INPUT, "body \"%s\": %d dofs between it and the world "
                                 "(at most %d are supported)", bd->name, chain, NCP_MAX_CHAIN_DOF);
    }
    /* initial poses: forward kinematics at q0 */
    double *q = ncp_calloc(err, (size_t)nq, sizeof(double));
    double *org = ncp_malloc(err, 3 * (size_t)nb, sizeof(double));
    double *qt = ncp_malloc(err, 4 * (size_t)nb, sizeof(double));
    int rc = (!q || !org || !qt) ? NCP_ERR_NOMEM : NCP_OK;
    if (!rc) {
        ncp_model_initial_q(m, q);
        ncp_model_forward_kinematics(m, q, org, qt, NULL);
        for (int b = 0; b < nb; b++) {
            ncp_body_model *bd = &m->bodies[b];
            double R[9], c[3];
            memcpy(bd->quat0, qt + 4 * b, sizeof bd->quat0);
            ncp_quat_to_mat(bd->quat0, R);
            ncp_m3_mulv(R, bd->com_local, c);
            ncp_v3_add(org + 3 * b, c, bd->pos0);
        }
    }
    free(q);
    free(org);
    free(qt);
    return rc;
}

void ncp_model_initial_q(const ncp_model *m, double *q)
{
    for (int b = 0; b < m->nbodies; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        double *qb = bd->qpos >= 0 ? q + bd->qpos : NULL;
        switch (bd->joint) {
        case NCP_JOINT_REVOLUTE:
        case NCP_JOINT_PRISMATIC: qb[0] = bd->q0[0]; break;
        case NCP_JOINT_SPHERICAL:
            memcpy(qb, bd->q0, 4 * sizeof(double));
            if (ncp_quat_normalize(qb) < 1e-12) ncp_v3_set(qb, 1, 0, 0), qb[3] = 0.0;
            break;
        case NCP_JOINT_FREE: {
            /* the root's frame is placed at jpos/jquat; the coordinates are its COM and quat */
            double R[9], c[3];
            ncp_quat_to_mat(bd->jquat, R);
            ncp_m3_mulv(R, bd->com_local, c);
            ncp_v3_add(bd->jpos, c, qb);
            memcpy(qb + 3, bd->jquat, 4 * sizeof(double));
            break;
        }
        default: break;
        }
    }
}

/* The body that carries b rigidly: b, or its nearest ancestor across FIXED joints. */
static int rigid_group(const ncp_model *m, int b)
{
    while (m->bodies[b].joint == NCP_JOINT_FIXED && m->bodies[b].parent >= 0) b = m->bodies[b].parent;
    return b;
}

int ncp_model_bodies_collide(const ncp_model *m, int a, int b)
{
    const ncp_body_model *ba = &m->bodies[a], *bb = &m->bodies[b];
    if (a == b || (!ba->dynamic && !bb->dynamic)) return 0;
    if (ba->robot >= 0 && ba->robot == bb->robot && !m->robots[ba->robot].self_collision) return 0;
    /* Bodies welded together, and bodies on the two sides of one joint (after merging welded
     * bodies, as MuJoCo does), overlap at the joint by design: never in contact. This also
     * covers a robot attached to another one's link. */
    /* bodies joined by a closure or a weld overlap at the joint in the same way */
    for (int l = 0; l < m->nlinks; l++)
        if (m->links[l].type != NCP_LINK_SPRING &&
            ((m->links[l].body[0] == a && m->links[l].body[1] == b) ||
             (m->links[l].body[0] == b && m->links[l].body[1] == a)))
            return 0;
    int ga = rigid_group(m, a), gb = rigid_group(m, b);
    if (ga == gb) return 0;
    int pa = m->bodies[ga].parent, pb = m->bodies[gb].parent;
    if ((pa >= 0 && rigid_group(m, pa) == gb) || (pb >= 0 && rigid_group(m, pb) == ga)) return 0;
    return 1;
}

static void controller_free(ncp_controller_model *c)
{
    free(c->joints);
    free(c->kp);
    free(c->kd);
    free(c->wp_time);
    free(c->wp_q);
    free(c->cmd_time);
    free(c->cmd_close);
    memset(c, 0, sizeof *c);
}

void ncp_model_free(ncp_model *m)
{
    if (!m) return;
    free(m->materials);
    free(m->pair_friction);
    free(m->bodies);
    for (int s = 0; m->shapes && s < m->nshapes; s++) ncp_sdf_free(m->shapes[s].sdf);
    free(m->shapes);
    free(m->dof_body);
    free(m->sub_dof_start);
    free(m->sub_ndof);
    free(m->links);
    for (int r = 0; m->robots && r < m->nrobots; r++) controller_free(&m->robots[r].ctrl);
    free(m->robots);
    free(m->wrenches);
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
    w->q = ncp_calloc(err, (size_t)m->nq, sizeof(double));
    w->v = ncp_calloc(err, (size_t)m->nv, sizeof(double));
    w->pos = ncp_calloc(err, 3 * (size_t)nb, sizeof(double));
    w->quat = ncp_calloc(err, 4 * (size_t)nb, sizeof(double));
    w->rot = ncp_calloc(err, 9 * (size_t)nb, sizeof(double));
    w->inertia_w = ncp_calloc(err, 9 * (size_t)nb, sizeof(double));
    w->janchor = ncp_calloc(err, 3 * (size_t)nb, sizeof(double));
    w->S = ncp_calloc(err, 6 * (size_t)m->nv, sizeof(double));
    w->geoms = ncp_calloc(err, (size_t)m->nshapes, sizeof(ncp_geom));
    if (!w->q || !w->v || !w->pos || !w->quat || !w->rot || !w->inertia_w || !w->janchor || !w->S ||
        !w->geoms) {
        ncp_world_free(w);
        return NCP_ERR_NOMEM;
    }
    ncp_model_initial_q(m, w->q);
    for (int b = 0; b < nb; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        double *vb = bd->dof >= 0 ? w->v + bd->dof : NULL;
        switch (bd->joint) {
        case NCP_JOINT_REVOLUTE:
        case NCP_JOINT_PRISMATIC: vb[0] = bd->qd0[0]; break;
        case NCP_JOINT_SPHERICAL: ncp_v3_copy(bd->qd0, vb); break;
        case NCP_JOINT_FREE:
            ncp_v3_copy(bd->vel0, vb);
            ncp_v3_copy(bd->omega0, vb + 3);
            break;
        default: break;
        }
    }
    ncp_world_kinematics(w);
    *out = w;
    return NCP_OK;
}

void ncp_world_free(ncp_world *w)
{
    if (!w) return;
    free(w->q);
    free(w->v);
    free(w->pos);
    free(w->quat);
    free(w->rot);
    free(w->inertia_w);
    free(w->janchor);
    free(w->S);
    free(w->geoms);
    free(w->warm);
    free(w);
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
    int dofs[NCP_MAX_CHAIN_DOF];
    double Jl[3 * NCP_MAX_CHAIN_DOF], Ja[3 * NCP_MAX_CHAIN_DOF], l[3] = {0, 0, 0}, a[3] = {0, 0, 0};
    int n = ncp_world_body_jacobian(w, body, w->pos + 3 * body, dofs, Jl, Ja);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < n; k++) {
            l[r] += Jl[r * n + k] * w->v[dofs[k]];
            a[r] += Ja[r * n + k] * w->v[dofs[k]];
        }
    if (lin) ncp_v3_copy(l, lin);
    if (ang) ncp_v3_copy(a, ang);
}

void ncp_world_set_body_state(ncp_world *w, int body, const double pos[3], const double quat[4],
                              const double lin[3], const double ang[3])
{
    const ncp_body_model *bd = &w->model->bodies[body];
    if (bd->joint != NCP_JOINT_FREE) return;
    double *q = w->q + bd->qpos, *v = w->v + bd->dof;
    if (pos) ncp_v3_copy(pos, q);
    if (quat) {
        memcpy(q + 3, quat, 4 * sizeof(double));
        ncp_quat_normalize(q + 3);
    }
    if (lin) ncp_v3_copy(lin, v);
    if (ang) ncp_v3_copy(ang, v + 3);
}
