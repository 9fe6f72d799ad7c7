/* Robots, robot model files, constraints, wrenches and the integrator section of a scene (see
 * robot.h; schema in scenes/README.md). Validation is as strict as scene.c's: unknown keys are
 * errors, every value is range-checked, and every message names the file and the JSON path.
 *
 * A robot model file (scenes/robots/<name>.json) lists links in parent-before-child order, URDF
 * style: a link's frame is its joint frame moved by the joint; the joint frame sits at
 * "origin"/"rpy" (or "quat") in the parent's frame; inertial properties are about the centre of
 * mass in axes parallel to the link frame. The scene places each robot (fixed or free base, or
 * attached to a link of another robot) and gives its initial joint positions and controller. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_scan.h"
#include "util/json_util.h"
#include "scene/robot.h"
#include "scene/scene_json.h"
#include "scene/ranges.h"
#include "core/spatial.h"

/* Orientation: "quat" [w, x, y, z], "rpy" [roll, pitch, yaw] (URDF: R = Rz(y) Ry(p) Rx(r)), or
 * identity; at most one of them. */
static int get_rot(ncp_json_ctx *c, const cJSON *obj, const char *path, double q[4])
{
    const cJSON *vq = cJSON_GetObjectItemCaseSensitive(obj, "quat");
    const cJSON *vr = cJSON_GetObjectItemCaseSensitive(obj, "rpy");
    char p[NCP_JSON_PATH_MAX];
    if (vq && vr) {
        ncp_json_key(p, path, "rpy");
        return ncp_json_fail(c, p, "give the orientation either as quat or as rpy, not both");
    }
    if (vr) {
        double rpy[3], qx[4], qy[4], qz[4], t[4];
        static const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
        int rc = ncp_json_get_vec(c, obj, path, "rpy", 1, 3, NULL, rpy);
        if (rc) return rc;
        ncp_quat_from_axis_angle(ex, rpy[0], qx);
        ncp_quat_from_axis_angle(ey, rpy[1], qy);
        ncp_quat_from_axis_angle(ez, rpy[2], qz);
        ncp_quat_mul(qy, qx, t);
        ncp_quat_mul(qz, t, q);
        return NCP_OK;
    }
    return ncp_json_get_quat(c, obj, path, q);
}

/* A non-negative number (for every joint) or an array of n of them (one per joint). */
static int get_per_joint(ncp_json_ctx *c, const cJSON *obj, const char *path, const char *key, int n,
                         double def, double *out)
{
    char p[NCP_JSON_PATH_MAX];
    ncp_json_key(p, path, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNumber(v)) {
        double x;
        int rc = ncp_json_get_number(c, obj, path, key, 0, NCP_JSON_NONNEG, def, &x);
        for (int i = 0; !rc && i < n; i++) out[i] = x;
        return rc;
    }
    char what[96];
    snprintf(what, sizeof what, "a non-negative number or an array of %d of them (one per joint)", n);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) return ncp_json_expect(c, p, v, what);
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < 0.0) {
            char q[NCP_JSON_PATH_MAX];
            ncp_json_index(q, p, i);
            return ncp_json_expect(c, q, it, "a non-negative number");
        }
        out[i] = it->valuedouble;
    }
    return NCP_OK;
}

/* ---- model growth ---- */

static int add_bodies(ncp_model *m, int nb, int ns, ncp_error *err)
{
    ncp_body_model *b = realloc(m->bodies, (size_t)(m->nbodies + nb) * sizeof *b);
    if (!b) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory adding robot links");
    m->bodies = b;
    memset(b + m->nbodies, 0, (size_t)nb * sizeof *b);
    ncp_shape_model *s = realloc(m->shapes, (size_t)(m->nshapes + ns + 1) * sizeof *s);
    if (!s) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory adding robot shapes");
    m->shapes = s;
    memset(s + m->nshapes, 0, (size_t)(ns + 1) * sizeof *s);
    return NCP_OK;
}

static int find_body(const ncp_model *m, const char *name)
{
    for (int b = 0; b < m->nbodies; b++)
        if (strcmp(m->bodies[b].name, name) == 0) return b;
    return -1;
}

/* ---- links ---- */

/* Anchors of loops and constraints are given in a frame known only after the trees are built
 * (a robot's base frame at q0, or the world); they are kept here until then. */
typedef struct pending_link {
    int frame_body;   /* -1: anchors in the world; else in this body's frame (origin as written) */
    double anchor[2][3];
    double axis[3];
    int rest_given;
} pending_link;

typedef struct mb_ctx {
    ncp_json_ctx c;
    ncp_model *m;
    pending_link *pend; /* one per model link */
    double budget;      /* --max-memory (<= 0: the default), for model files' JSON */
} mb_ctx;

static const char *const joint_names[] = {"fixed", "revolute", "prismatic", "spherical", NULL};

static int parse_link(mb_ctx *x, const cJSON *lj, const char *path, const char *robot, int root_body,
                      int *nshape_used)
{
    static const char *const keys[] = {"name", "parent", "joint", "inertial", "mass", "density", "shapes", NULL};
    static const char *const jkeys[] = {"type", "origin", "rpy", "quat", "axis", "limits", "damping", "armature", NULL};
    static const char *const ikeys[] = {"mass", "com", "inertia", NULL};
    static const double zero[3] = {0, 0, 0}, zaxis[3] = {0, 0, 1};
    ncp_json_ctx *c = &x->c;
    ncp_model *m = x->m;
    int rc = ncp_json_check_keys(c, lj, path, keys);
    if (rc) return rc;
    int b = m->nbodies;
    ncp_body_model *bd = &m->bodies[b];
    char lname[NCP_NAME_MAX], p[NCP_JSON_PATH_MAX], q[NCP_JSON_PATH_MAX];
    rc = ncp_json_get_string(c, lj, path, "name", 1, "", lname, sizeof lname);
    if (!rc) {
        ncp_json_key(p, path, "name");
        rc = ncp_json_check_name(c, p, lname, "a link name");
    }
    if (rc) return rc;
    if (snprintf(bd->name, NCP_NAME_MAX, "%s/%s", robot, lname) >= NCP_NAME_MAX) {
        ncp_json_key(p, path, "name");
        return ncp_json_fail(c, p, "robot and link name \"%s/%s\" longer than %d characters", robot, lname, NCP_NAME_MAX - 1);
    }
    if (find_body(m, bd->name) >= 0) {
        ncp_json_key(p, path, "name");
        return ncp_json_fail(c, p, "body name \"%s\" is already used", bd->name);
    }
    bd->robot = m->nrobots;
    bd->parent = -1;
    bd->quat0[0] = bd->jquat[0] = 1.0;
    bd->q0[0] = 0.0;
    const cJSON *par = cJSON_GetObjectItemCaseSensitive(lj, "parent");
    const cJSON *jt = cJSON_GetObjectItemCaseSensitive(lj, "joint");
    if (!par) {
        if (root_body >= 0) {
            ncp_json_key(p, path, "parent");
            return ncp_json_fail(c, p, "missing (only the first link, the root, has no parent)");
        }
        if (jt) {
            ncp_json_key(p, path, "joint");
            return ncp_json_fail(c, p, "the root link takes no joint (the scene's robot entry sets the base)");
        }
    } else {
        ncp_json_key(p, path, "parent");
        if (root_body < 0) return ncp_json_fail(c, p, "the first link is the root and has no parent");
        if (!cJSON_IsString(par)) return ncp_json_expect(c, p, par, "the name of an earlier link");
        char full[2 * NCP_NAME_MAX];
        snprintf(full, sizeof full, "%s/%s", robot, par->valuestring);
        int pb = find_body(m, full);
        if (pb < root_body)
            return ncp_json_fail(c, p, "unknown link \"%s\" (expected a link listed earlier)", par->valuestring);
        bd->parent = pb;
        ncp_json_key(p, path, "joint");
        if (!jt) return ncp_json_fail(c, p, "missing (expected the joint to the parent)");
        rc = ncp_json_check_keys(c, jt, p, jkeys);
        if (!rc) rc = ncp_json_get_enum(c, jt, p, "type", 1, joint_names, 0, &bd->joint);
        if (!rc) rc = ncp_json_get_vec(c, jt, p, "origin", 0, 3, zero, bd->jpos);
        if (!rc) rc = get_rot(c, jt, p, bd->jquat);
        if (rc) return rc;
        int onedof = bd->joint == NCP_JOINT_REVOLUTE || bd->joint == NCP_JOINT_PRISMATIC;
        const char *onedof_keys[] = {"axis", "limits", NULL};
        for (int k = 0; onedof_keys[k] && !onedof; k++)
            if (cJSON_GetObjectItemCaseSensitive(jt, onedof_keys[k])) {
                ncp_json_key(q, p, onedof_keys[k]);
                return ncp_json_fail(c, q, "only revolute and prismatic joints take %s", onedof_keys[k]);
            }
        if (onedof) {
            rc = ncp_json_get_vec(c, jt, p, "axis", 0, 3, zaxis, bd->axis);
            if (!rc && ncp_v3_normalize(bd->axis) < 1e-12) {
                ncp_json_key(q, p, "axis");
                return ncp_json_fail(c, q, "must be a non-zero vector, got [0, 0, 0]");
            }
            double lim[2];
            if (!rc && cJSON_GetObjectItemCaseSensitive(jt, "limits")) {
                rc = ncp_json_get_vec(c, jt, p, "limits", 1, 2, NULL, lim);
                if (!rc && !(lim[0] < lim[1])) {
                    ncp_json_key(q, p, "limits");
                    return ncp_json_fail(c, q, "must be [lower, upper] with lower < upper, got [%g, %g]", lim[0], lim[1]);
                }
                bd->limited = 1;
                bd->lower = lim[0];
                bd->upper = lim[1];
            }
        }
        if (bd->joint == NCP_JOINT_SPHERICAL) bd->q0[0] = 1.0; /* identity quaternion */
        bd->ndof = ncp_joint_ndof(bd->joint); /* known before the trees are built: controllers */
        if (!rc) rc = ncp_json_get_number(c, jt, p, "damping", 0, NCP_JSON_NONNEG, 0.0, &bd->damping);
        if (!rc) rc = ncp_json_get_number(c, jt, p, "armature", 0, NCP_JSON_NONNEG, 0.0, &bd->armature);
        if (rc) return rc;
    }
    /* shapes (collision; mass too without "inertial") */
    const cJSON *shs = cJSON_GetObjectItemCaseSensitive(lj, "shapes");
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(lj, "inertial");
    const cJSON *vm = cJSON_GetObjectItemCaseSensitive(lj, "mass");
    const cJSON *vd = cJSON_GetObjectItemCaseSensitive(lj, "density");
    ncp_json_key(p, path, "shapes");
    if (shs && !cJSON_IsArray(shs)) return ncp_json_expect(c, p, shs, "an array of shapes");
    m->nbodies++; /* the body exists for the shape parser */
    bd->dynamic = 1; /* links may not hold planes */
    bd->shape0 = m->nshapes;
    int j = 0;
    for (const cJSON *sh = shs ? shs->child : NULL; sh && !rc; sh = sh->next, j++) {
        char r[NCP_JSON_PATH_MAX];
        ncp_json_index(r, p, j);
        rc = ncp_scene_parse_shape(sh, c->where, r, m, b, &m->shapes[m->nshapes], c->err);
        if (!rc) m->nshapes++;
    }
    bd->nshapes = j;
    *nshape_used += j;
    if (rc) return rc;
    int nmass = (in != NULL) + (vm != NULL) + (vd != NULL);
    if (nmass > 1) {
        ncp_json_key(p, path, in ? "inertial" : "density");
        return ncp_json_fail(c, p, "give one of inertial, mass or density");
    }
    if (in) {
        ncp_json_key(p, path, "inertial");
        double I6[6];
        rc = ncp_json_check_keys(c, in, p, ikeys);
        if (!rc) rc = ncp_json_get_number(c, in, p, "mass", 1, NCP_JSON_POSITIVE, 0.0, &bd->mass);
        if (!rc) rc = ncp_json_get_vec(c, in, p, "com", 0, 3, zero, bd->com_local);
        if (!rc) rc = ncp_json_get_vec(c, in, p, "inertia", 1, 6, NULL, I6);
        if (rc) return rc;
        /* (ixx, iyy, izz, ixy, ixz, iyz) about the COM, link axes */
        double I[9] = {I6[0], I6[3], I6[4], I6[3], I6[1], I6[5], I6[4], I6[5], I6[2]}, A[9], w3[3];
        memcpy(A, I, sizeof A);
        ncp_error e2 = {0};
        if (ncp_sym_eig(3, A, w3, &e2) || !(w3[0] > 0.0) || w3[0] + w3[1] < w3[2] * (1.0 - 1e-9)) {
            ncp_json_key(q, p, "inertia");
            return ncp_json_fail(c, q, "must be a positive definite inertia tensor satisfying the triangle "
                         "inequality (principal moments %g, %g, %g)", w3[0], w3[1], w3[2]);
        }
        memcpy(bd->inertia, I, sizeof I);
        for (int s = bd->shape0; s < bd->shape0 + bd->nshapes; s++)
            ncp_v3_sub(m->shapes[s].pos, bd->com_local, m->shapes[s].pos);
    } else if (vm || vd) {
        double mass = 0.0, dens = 0.0;
        rc = vm ? ncp_json_get_number(c, lj, path, "mass", 1, NCP_JSON_POSITIVE, 0.0, &mass)
                : ncp_json_get_number(c, lj, path, "density", 1, NCP_JSON_POSITIVE, 0.0, &dens);
        if (!rc) rc = ncp_model_body_mass(m, b, dens, mass, c->err);
        if (rc) return ncp_error_prefix(c->err, "%s: %s: ", c->where, path);
    } else {
        ncp_json_key(p, path, "inertial");
        return ncp_json_fail(c, p, "missing (a link needs inertial, mass or density)");
    }
    return NCP_OK;
}

/* Loops of a model file / constraints of the scene. In a model file, bodies are link names and
 * anchors are in the robot's root frame; in the scene, bodies are body names ("robot/link" for
 * links) and anchors in the world, both at the initial configuration. */
static int parse_constraint(mb_ctx *x, const cJSON *cj, const char *path, const char *robot,
                            int frame_body)
{
    static const char *const keys[] = {"name", "type", "bodies", "anchor", "anchors", "axis",
                                       "stiffness", "damping", "rest_length", NULL};
    static const char *const types[] = {"point", "hinge", "weld", "spring", NULL};
    ncp_json_ctx *c = &x->c;
    ncp_model *m = x->m;
    char p[NCP_JSON_PATH_MAX];
    ncp_link_model *lk = &m->links[m->nlinks];
    pending_link *pd = &x->pend[m->nlinks];
    memset(lk, 0, sizeof *lk);
    memset(pd, 0, sizeof *pd);
    int rc = ncp_json_check_keys(c, cj, path, keys);
    if (!rc) rc = ncp_json_get_string(c, cj, path, "name", 0, "", lk->name, sizeof lk->name);
    if (!rc) rc = ncp_json_get_enum(c, cj, path, "type", 1, types, 0, &lk->type);
    if (rc) return rc;
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(cj, "bodies");
    ncp_json_key(p, path, "bodies");
    if (!cJSON_IsArray(bs) || cJSON_GetArraySize(bs) != 2 || !cJSON_IsString(bs->child) ||
        !cJSON_IsString(bs->child->next))
        return ncp_json_expect(c, p, bs, robot ? "an array of 2 link names (or \"world\")"
                                               : "an array of 2 body names (or \"world\")");
    int k = 0;
    for (const cJSON *it = bs->child; it; it = it->next, k++) {
        if (strcmp(it->valuestring, "world") == 0) {
            lk->body[k] = -1;
            continue;
        }
        char full[2 * NCP_NAME_MAX + 2];
        if (robot) snprintf(full, sizeof full, "%s/%s", robot, it->valuestring);
        else snprintf(full, sizeof full, "%s", it->valuestring);
        lk->body[k] = find_body(m, full);
        if (lk->body[k] < 0) {
            char q[NCP_JSON_PATH_MAX];
            ncp_json_index(q, p, k);
            return ncp_json_fail(c, q, "unknown %s \"%s\"", robot ? "link" : "body", it->valuestring);
        }
    }
    if (lk->body[0] == lk->body[1]) return ncp_json_fail(c, p, "the two bodies must differ");
    pd->frame_body = frame_body;
    const cJSON *a1 = cJSON_GetObjectItemCaseSensitive(cj, "anchor");
    const cJSON *a2 = cJSON_GetObjectItemCaseSensitive(cj, "anchors");
    if ((a1 != NULL) == (a2 != NULL)) {
        ncp_json_key(p, path, "anchor");
        return ncp_json_fail(c, p, "give either anchor (one point on both bodies) or anchors (one point per body)");
    }
    if (a1) {
        rc = ncp_json_get_vec(c, cj, path, "anchor", 1, 3, NULL, pd->anchor[0]);
        ncp_v3_copy(pd->anchor[0], pd->anchor[1]);
    } else {
        ncp_json_key(p, path, "anchors");
        if (!cJSON_IsArray(a2) || cJSON_GetArraySize(a2) != 2) return ncp_json_expect(c, p, a2, "an array of 2 points");
        k = 0;
        for (const cJSON *it = a2->child; it && !rc; it = it->next, k++) {
            char q[NCP_JSON_PATH_MAX];
            ncp_json_index(q, p, k);
            int got = ncp_json_numbers(it, 3, pd->anchor[k]);
            if (got < 0) return ncp_json_expect(c, q, it, "an array of 3 finite numbers");
            if (got < 3) return ncp_json_expect(c, q, cJSON_GetArrayItem(it, got), "a finite number");
        }
    }
    if (rc) return rc;
    if (lk->type == NCP_LINK_HINGE) {
        rc = ncp_json_get_vec(c, cj, path, "axis", 1, 3, NULL, pd->axis);
        if (!rc && ncp_v3_normalize(pd->axis) < 1e-12) {
            ncp_json_key(p, path, "axis");
            return ncp_json_fail(c, p, "must be a non-zero vector, got [0, 0, 0]");
        }
    } else if (cJSON_GetObjectItemCaseSensitive(cj, "axis")) {
        ncp_json_key(p, path, "axis");
        return ncp_json_fail(c, p, "only hinge constraints take an axis");
    }
    if (lk->type == NCP_LINK_SPRING) {
        rc = ncp_json_get_number(c, cj, path, "stiffness", 1, NCP_JSON_NONNEG, 0.0, &lk->stiffness);
        if (!rc) rc = ncp_json_get_number(c, cj, path, "damping", 0, NCP_JSON_NONNEG, 0.0, &lk->damping);
        pd->rest_given = cJSON_GetObjectItemCaseSensitive(cj, "rest_length") != NULL;
        if (!rc) rc = ncp_json_get_number(c, cj, path, "rest_length", 0, NCP_JSON_NONNEG, 0.0, &lk->rest);
    } else {
        const char *sk[] = {"stiffness", "damping", "rest_length", NULL};
        for (int i = 0; sk[i]; i++)
            if (cJSON_GetObjectItemCaseSensitive(cj, sk[i])) {
                ncp_json_key(p, path, sk[i]);
                return ncp_json_fail(c, p, "only spring constraints take %s", sk[i]);
            }
    }
    if (!rc) m->nlinks++;
    return rc;
}

/* ---- controllers ---- */

static int link_of(const ncp_model *m, const ncp_robot_model *r, const char *name)
{
    char full[2 * NCP_NAME_MAX + 2];
    snprintf(full, sizeof full, "%s/%s", r->name, name);
    int b = find_body(m, full);
    return b >= r->body0 && b < r->body0 + r->nbodies ? b : -1;
}

static int parse_controller(mb_ctx *x, const cJSON *cj, const char *path, ncp_robot_model *r)
{
    static const char *const keys[] = {"joints", "kp", "kd", "gravity_compensation", "interpolation",
                                       "waypoints", "gripper", NULL};
    static const char *const gkeys[] = {"joints", "open", "closed", "kp", "kd", "time", "initial", "commands", NULL};
    static const char *const interp[] = {"min_jerk", "linear", NULL};
    ncp_json_ctx *c = &x->c;
    ncp_model *m = x->m;
    ncp_controller_model *ct = &r->ctrl;
    char p[NCP_JSON_PATH_MAX], q[NCP_JSON_PATH_MAX];
    int rc = ncp_json_check_keys(c, cj, path, keys);
    if (rc) return rc;
    ct->active = 1;
    ct->grip_time = 0.5;
    /* gripper first: its joints are left out of the default joint list */
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(cj, "gripper");
    if (g) {
        ncp_json_key(p, path, "gripper");
        rc = ncp_json_check_keys(c, g, p, gkeys);
        if (rc) return rc;
        const cJSON *gj = cJSON_GetObjectItemCaseSensitive(g, "joints");
        ncp_json_key(q, p, "joints");
        if (!cJSON_IsArray(gj) || cJSON_GetArraySize(gj) < 1 || cJSON_GetArraySize(gj) > NCP_MAX_GRIP)
            return ncp_json_expect(c, q, gj, "an array of 1 to 4 finger joint names");
        int k = 0;
        for (const cJSON *it = gj->child; it; it = it->next, k++) {
            int b = cJSON_IsString(it) ? link_of(m, r, it->valuestring) : -1;
            char e[NCP_JSON_PATH_MAX];
            ncp_json_index(e, q, k);
            if (b < 0 || m->bodies[b].ndof != 1)
                return ncp_json_expect(c, e, it, "the name of a revolute or prismatic joint's link of this robot");
            ct->grip[k] = b;
        }
        ct->ngrip = k;
        rc = ncp_json_get_vec(c, g, p, "open", 1, k, NULL, ct->grip_open);
        if (!rc) rc = ncp_json_get_vec(c, g, p, "closed", 1, k, NULL, ct->grip_closed);
        if (!rc) rc = ncp_json_get_number(c, g, p, "kp", 1, NCP_JSON_NONNEG, 0.0, &ct->grip_kp);
        if (!rc) rc = ncp_json_get_number(c, g, p, "kd", 0, NCP_JSON_NONNEG, 0.0, &ct->grip_kd);
        if (!rc) rc = ncp_json_get_number(c, g, p, "time", 0, NCP_JSON_POSITIVE, 0.5, &ct->grip_time);
        static const char *const init[] = {"open", "closed", NULL};
        if (!rc) rc = ncp_json_get_enum(c, g, p, "initial", 0, init, 0, &ct->grip_start_closed);
        if (rc) return rc;
        const cJSON *cmds = cJSON_GetObjectItemCaseSensitive(g, "commands");
        ncp_json_key(q, p, "commands");
        if (cmds && !cJSON_IsArray(cmds)) return ncp_json_expect(c, q, cmds, "an array of {time, command}");
        int nc = cmds ? cJSON_GetArraySize(cmds) : 0;
        ct->cmd_time = ncp_calloc(c->err, (size_t)nc, sizeof(double));
        ct->cmd_close = ncp_calloc(c->err, (size_t)nc, sizeof(int));
        if (!ct->cmd_time || !ct->cmd_close) return NCP_ERR_NOMEM;
        k = 0;
        for (const cJSON *it = cmds ? cmds->child : NULL; it && !rc; it = it->next, k++) {
            static const char *const ck[] = {"time", "command", NULL};
            static const char *const cn[] = {"open", "close", NULL};
            char e[NCP_JSON_PATH_MAX];
            ncp_json_index(e, q, k);
            rc = ncp_json_check_keys(c, it, e, ck);
            if (!rc) rc = ncp_json_get_number(c, it, e, "time", 1, NCP_JSON_NONNEG, 0.0, &ct->cmd_time[k]);
            if (!rc) rc = ncp_json_get_enum(c, it, e, "command", 1, cn, 0, &ct->cmd_close[k]);
            if (!rc && k > 0 && !(ct->cmd_time[k] > ct->cmd_time[k - 1]))
                rc = ncp_json_fail(c, e, "times must increase (got %g after %g)", ct->cmd_time[k], ct->cmd_time[k - 1]);
        }
        ct->ncommands = k;
        if (rc) return rc;
    }
    /* the impedance-controlled joints */
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(cj, "joints");
    int cap = r->nbodies;
    ct->joints = ncp_calloc(c->err, (size_t)cap, sizeof(int));
    if (!ct->joints) return NCP_ERR_NOMEM;
    ncp_json_key(p, path, "joints");
    if (js) {
        if (!cJSON_IsArray(js)) return ncp_json_expect(c, p, js, "an array of joint (link) names");
        int k = 0;
        for (const cJSON *it = js->child; it; it = it->next, k++) {
            char e[NCP_JSON_PATH_MAX];
            ncp_json_index(e, p, k);
            int b = cJSON_IsString(it) ? link_of(m, r, it->valuestring) : -1;
            if (b < 0 || m->bodies[b].ndof != 1)
                return ncp_json_expect(c, e, it, "the name of a revolute or prismatic joint's link of this robot");
            for (int i = 0; i < ct->njoints; i++)
                if (ct->joints[i] == b) return ncp_json_fail(c, e, "joint \"%s\" is listed twice", it->valuestring);
            for (int i = 0; i < ct->ngrip; i++)
                if (ct->grip[i] == b) return ncp_json_fail(c, e, "joint \"%s\" is a gripper joint", it->valuestring);
            if (ct->njoints >= cap) return ncp_json_fail(c, e, "too many joints");
            ct->joints[ct->njoints++] = b;
        }
    } else {
        for (int b = r->body0; b < r->body0 + r->nbodies; b++) {
            int grip = 0;
            for (int i = 0; i < ct->ngrip; i++) grip |= ct->grip[i] == b;
            if (m->bodies[b].ndof == 1 && !grip) ct->joints[ct->njoints++] = b;
        }
    }
    int n = ct->njoints;
    ct->kp = ncp_calloc(c->err, (size_t)n, sizeof(double));
    ct->kd = ncp_calloc(c->err, (size_t)n, sizeof(double));
    if (!ct->kp || !ct->kd) return NCP_ERR_NOMEM;
    rc = get_per_joint(c, cj, path, "kp", n, 0.0, ct->kp);
    if (!rc) rc = get_per_joint(c, cj, path, "kd", n, 0.0, ct->kd);
    if (!rc) rc = ncp_json_get_bool(c, cj, path, "gravity_compensation", 0, &ct->gravity_comp);
    if (!rc) rc = ncp_json_get_enum(c, cj, path, "interpolation", 0, interp, NCP_INTERP_MINJERK, &ct->interp);
    if (rc) return rc;
    const cJSON *wps = cJSON_GetObjectItemCaseSensitive(cj, "waypoints");
    ncp_json_key(p, path, "waypoints");
    if (wps && (!cJSON_IsArray(wps) || cJSON_GetArraySize(wps) < 1))
        return ncp_json_expect(c, p, wps, "a non-empty array of {time, q}");
    int nw = wps ? cJSON_GetArraySize(wps) : 1;
    ct->wp_time = ncp_calloc(c->err, (size_t)nw, sizeof(double));
    ct->wp_q = ncp_calloc(c->err, (size_t)nw * (n ? n : 1), sizeof(double));
    if (!ct->wp_time || !ct->wp_q) return NCP_ERR_NOMEM;
    ct->nwaypoints = nw;
    if (!wps) { /* hold the initial joint positions */
        for (int j = 0; j < n; j++) ct->wp_q[j] = m->bodies[ct->joints[j]].q0[0];
        return NCP_OK;
    }
    int k = 0;
    for (const cJSON *it = wps->child; it && !rc; it = it->next, k++) {
        static const char *const wk[] = {"time", "q", NULL};
        char e[NCP_JSON_PATH_MAX];
        ncp_json_index(e, p, k);
        rc = ncp_json_check_keys(c, it, e, wk);
        if (!rc) rc = ncp_json_get_number(c, it, e, "time", 1, NCP_JSON_NONNEG, 0.0, &ct->wp_time[k]);
        if (!rc) rc = ncp_json_get_vec(c, it, e, "q", 1, n, NULL, ct->wp_q + (size_t)k * n);
        if (!rc && k > 0 && !(ct->wp_time[k] > ct->wp_time[k - 1]))
            rc = ncp_json_fail(c, e, "times must increase (got %g after %g)", ct->wp_time[k], ct->wp_time[k - 1]);
    }
    return rc;
}

/* ---- robots ---- */

static int parse_robot(mb_ctx *x, const cJSON *rj, const char *path, const char *scene_dir)
{
    static const char *const keys[] = {"name", "model", "links", "loops", "base", "attach", "position",
                                       "quat", "rpy", "velocity", "angular_velocity", "q0",
                                       "self_collision", "controller", NULL};
    static const char *const bases[] = {"fixed", "free", NULL};
    static const double zero[3] = {0, 0, 0};
    ncp_json_ctx *c = &x->c;
    ncp_model *m = x->m;
    char p[NCP_JSON_PATH_MAX], rname[NCP_NAME_MAX];
    int rc = ncp_json_check_keys(c, rj, path, keys);
    if (!rc) rc = ncp_json_get_string(c, rj, path, "name", 1, "", rname, sizeof rname);
    if (!rc) {
        ncp_json_key(p, path, "name");
        rc = ncp_json_check_name(c, p, rname, "a robot name");
        for (int r = 0; !rc && r < m->nrobots; r++)
            if (strcmp(m->robots[r].name, rname) == 0) rc = ncp_json_fail(c, p, "robot name \"%s\" is already used", rname);
    }
    if (rc) return rc;
    /* the links: from the model file or inline */
    const cJSON *mf = cJSON_GetObjectItemCaseSensitive(rj, "model");
    const cJSON *il = cJSON_GetObjectItemCaseSensitive(rj, "links");
    if ((mf != NULL) == (il != NULL)) {
        ncp_json_key(p, path, "model");
        return ncp_json_fail(c, p, "give either model (a robot model file) or links (inline), not both or none");
    }
    cJSON *doc = NULL;
    char *text = NULL, fpath[1024];
    ncp_json_ctx fc = *c; /* messages about the model file name that file */
    const cJSON *src = rj;
    const char *lpath = path;
    char fwhere[1100];
    if (mf) {
        ncp_json_key(p, path, "model");
        if (!cJSON_IsString(mf) || !mf->valuestring[0]) return ncp_json_expect(c, p, mf, "a robot model file name");
        if (mf->valuestring[0] == '/') snprintf(fpath, sizeof fpath, "%s", mf->valuestring);
        else snprintf(fpath, sizeof fpath, "%s/%s", scene_dir, mf->valuestring);
        rc = ncp_scene_check_file(fpath, "robot model file", c->err);
        if (!rc) rc = ncp_json_read_text(fpath, "robot model file", (size_t)16 << 20, &text, c->err);
        if (rc) return ncp_error_prefix(c->err, "%s: %s: ", c->where, p);
        /* the text's buffer (at most twice its length) counts with the tree */
        rc = ncp_json_parse_doc(text, fpath, x->budget, 2.0 * ((double)strlen(text) + 1.0), &doc, c->err);
        free(text);
        if (rc) return ncp_error_prefix(c->err, "%s: %s: ", c->where, p);
        snprintf(fwhere, sizeof fwhere, "%s", fpath);
        fc.where = fwhere;
        src = doc;
        lpath = "";
        /* shapes are built while parsing: their sizes first (ranges.h) */
        rc = ncp_scene_check_ranges(doc, fwhere, "robots[]", NCP_RANGES_SHAPES_EARLY, c->err);
        if (rc) {
            cJSON_Delete(doc);
            return rc;
        }
        static const char *const fkeys[] = {"name", "description", "links", "loops", NULL};
        rc = ncp_json_check_keys(&fc, doc, "", fkeys);
        if (rc) {
            cJSON_Delete(doc);
            return rc;
        }
    }
    mb_ctx fx = *x;
    fx.c = fc;
    const cJSON *links = cJSON_GetObjectItemCaseSensitive(src, "links");
    char lp[NCP_JSON_PATH_MAX];
    ncp_json_key(lp, lpath, "links");
    if (!cJSON_IsArray(links) || cJSON_GetArraySize(links) < 1) {
        rc = ncp_json_expect(&fc, lp, links, "a non-empty array of links");
        cJSON_Delete(doc);
        return rc;
    }
    int nl = cJSON_GetArraySize(links), ns = 0;
    for (const cJSON *l = links->child; l; l = l->next) {
        const cJSON *s = cJSON_IsObject(l) ? cJSON_GetObjectItemCaseSensitive(l, "shapes") : NULL;
        if (cJSON_IsArray(s)) ns += cJSON_GetArraySize(s);
    }
    ncp_robot_model *rb = realloc(m->robots, (size_t)(m->nrobots + 1) * sizeof *rb);
    if (!rb) {
        cJSON_Delete(doc);
        return ncp_error_set(c->err, NCP_ERR_NOMEM, "out of memory adding a robot");
    }
    m->robots = rb;
    ncp_robot_model *r = &m->robots[m->nrobots];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", rname);
    r->body0 = m->nbodies;
    rc = add_bodies(m, nl, ns, c->err);
    int used = 0, k = 0;
    for (const cJSON *l = links->child; l && !rc; l = l->next, k++) {
        char e[NCP_JSON_PATH_MAX];
        ncp_json_index(e, lp, k);
        rc = parse_link(&fx, l, e, rname, k ? r->body0 : -1, &used);
    }
    r->nbodies = m->nbodies - r->body0;
    m->nrobots++; /* owned by the model from here on (freed with it) */
    if (rc) {
        cJSON_Delete(doc);
        return rc;
    }
    /* loops of the model */
    const cJSON *loops = cJSON_GetObjectItemCaseSensitive(src, "loops");
    char lo[NCP_JSON_PATH_MAX];
    ncp_json_key(lo, lpath, "loops");
    if (loops) {
        if (!cJSON_IsArray(loops)) rc = ncp_json_expect(&fc, lo, loops, "an array of constraints");
        int n = rc ? 0 : cJSON_GetArraySize(loops);
        ncp_link_model *nlk = realloc(m->links, (size_t)(m->nlinks + n + 1) * sizeof *nlk);
        pending_link *np = realloc(x->pend, (size_t)(m->nlinks + n + 1) * sizeof *np);
        if (nlk) m->links = nlk;
        if (np) x->pend = fx.pend = np;
        if (!rc && (!nlk || !np)) rc = ncp_error_set(c->err, NCP_ERR_NOMEM, "out of memory adding loops");
        k = 0;
        for (const cJSON *it = loops->child; it && !rc; it = it->next, k++) {
            char e[NCP_JSON_PATH_MAX];
            ncp_json_index(e, lo, k);
            rc = parse_constraint(&fx, it, e, rname, r->body0);
        }
    }
    /* after the parser's checks, the model file's numbers in their ranges: its links are the
     * scene's robots[].links[] (ranges.h) */
    if (!rc && doc) rc = ncp_scene_check_ranges(doc, fwhere, "robots[]", NCP_RANGES_ALL, c->err);
    cJSON_Delete(doc);
    if (rc) return rc;
    /* placement of the root */
    ncp_body_model *root = &m->bodies[r->body0];
    int base = 0;
    const cJSON *att = cJSON_GetObjectItemCaseSensitive(rj, "attach");
    rc = ncp_json_get_vec(c, rj, path, "position", 0, 3, zero, root->jpos);
    if (!rc) rc = get_rot(c, rj, path, root->jquat);
    if (!rc) rc = ncp_json_get_enum(c, rj, path, "base", 0, bases, 0, &base);
    if (rc) return rc;
    if (att) {
        ncp_json_key(p, path, "attach");
        if (cJSON_GetObjectItemCaseSensitive(rj, "base")) return ncp_json_fail(c, p, "an attached robot takes no base");
        if (!cJSON_IsString(att)) return ncp_json_expect(c, p, att, "the name of a body (\"robot/link\" for a link)");
        int pb = find_body(m, att->valuestring);
        if (pb < 0 || pb >= r->body0)
            return ncp_json_fail(c, p, "unknown body \"%s\" (expected a scene body or a link of an earlier robot)",
                                 att->valuestring);
        root->parent = pb;
        root->joint = NCP_JOINT_FIXED;
    } else {
        root->joint = base ? NCP_JOINT_FREE : NCP_JOINT_FIXED;
    }
    root->ndof = ncp_joint_ndof(root->joint);
    const char *vk[] = {"velocity", "angular_velocity", NULL};
    for (int i = 0; vk[i] && root->joint != NCP_JOINT_FREE; i++)
        if (cJSON_GetObjectItemCaseSensitive(rj, vk[i])) {
            ncp_json_key(p, path, vk[i]);
            return ncp_json_fail(c, p, "only a free-base robot takes %s", vk[i]);
        }
    if (!rc) rc = ncp_json_get_vec(c, rj, path, "velocity", 0, 3, zero, root->vel0);
    if (!rc) rc = ncp_json_get_vec(c, rj, path, "angular_velocity", 0, 3, zero, root->omega0);
    if (!rc) rc = ncp_json_get_bool(c, rj, path, "self_collision", 0, &r->self_collision);
    if (rc) return rc;
    /* initial joint positions */
    const cJSON *q0 = cJSON_GetObjectItemCaseSensitive(rj, "q0");
    ncp_json_key(p, path, "q0");
    if (q0 && !cJSON_IsObject(q0)) return ncp_json_expect(c, p, q0, "an object {link name: joint position}");
    for (const cJSON *it = q0 ? q0->child : NULL; it; it = it->next) {
        char e[NCP_JSON_PATH_MAX];
        ncp_json_key(e, p, it->string);
        int b = link_of(m, r, it->string);
        if (b < 0) return ncp_json_fail(c, e, "unknown link of robot %s", rname);
        ncp_body_model *bd = &m->bodies[b];
        if (bd->ndof == 0 && bd->joint != NCP_JOINT_REVOLUTE && bd->joint != NCP_JOINT_PRISMATIC &&
            bd->joint != NCP_JOINT_SPHERICAL)
            return ncp_json_fail(c, e, "the joint of this link has no coordinates (%s)", ncp_joint_type_name(bd->joint));
        if (bd->joint == NCP_JOINT_SPHERICAL) {
            int got = ncp_json_numbers(it, 4, bd->q0);
            if (got < 0) return ncp_json_expect(c, e, it, "a quaternion [w, x, y, z]");
            if (got < 4) return ncp_json_expect(c, e, cJSON_GetArrayItem(it, got), "a finite number");
            if (ncp_quat_normalize(bd->q0) < 1e-12) return ncp_json_fail(c, e, "must be a non-zero quaternion");
        } else {
            if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) return ncp_json_expect(c, e, it, "a finite joint position");
            bd->q0[0] = it->valuedouble;
            if (bd->limited && (bd->q0[0] < bd->lower || bd->q0[0] > bd->upper))
                return ncp_json_fail(c, e, "%g is outside the joint's limits [%g, %g]", bd->q0[0], bd->lower, bd->upper);
        }
    }
    /* the controller (after q0: a controller without waypoints holds q0) */
    const cJSON *ctl = cJSON_GetObjectItemCaseSensitive(rj, "controller");
    if (ctl) {
        ncp_json_key(p, path, "controller");
        rc = parse_controller(x, ctl, p, &m->robots[m->nrobots - 1]);
    }
    return rc;
}

/* ---- sections ---- */

static int parse_dynamics(ncp_json_ctx *c, const cJSON *root, ncp_model *m)
{
    static const char *const keys[] = {"integrator", "theta", "joint_erp", "limit_margin", NULL};
    static const char *const integ[] = {"theta", "midpoint", NULL};
    static const cJSON empty = {0};
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "dynamics");
    int rc = NCP_OK;
    if (d) rc = ncp_json_check_keys(c, d, "dynamics", keys);
    else d = &empty;
    if (!rc) rc = ncp_json_get_enum(c, d, "dynamics", "integrator", 0, integ, NCP_INTEGRATOR_THETA, &m->integrator);
    if (!rc) rc = ncp_json_get_number(c, d, "dynamics", "theta", 0, NCP_JSON_UNIT_OPEN, 0.0, &m->theta);
    if (!rc && m->integrator == NCP_INTEGRATOR_MIDPOINT && cJSON_GetObjectItemCaseSensitive(d, "theta"))
        rc = ncp_json_fail(c, "dynamics.theta", "only the theta integrator takes theta (the midpoint rule is theta = 1/2 "
                   "in positions and velocities)");
    if (!rc) rc = ncp_json_get_number(c, d, "dynamics", "joint_erp", 0, NCP_JSON_UNIT, 0.2, &m->joint_erp);
    if (!rc) rc = ncp_json_get_number(c, d, "dynamics", "limit_margin", 0, NCP_JSON_NONNEG, 0.02, &m->limit_margin);
    return rc;
}

static int parse_wrenches(ncp_json_ctx *c, const cJSON *root, ncp_model *m)
{
    static const char *const keys[] = {"body", "start", "end", "force", "torque", NULL};
    static const double zero[3] = {0, 0, 0};
    const cJSON *ws = cJSON_GetObjectItemCaseSensitive(root, "wrenches");
    if (!ws) return NCP_OK;
    if (!cJSON_IsArray(ws)) return ncp_json_expect(c, "wrenches", ws, "an array of {body, start, end, force, torque}");
    int n = cJSON_GetArraySize(ws), k = 0, rc = NCP_OK;
    m->wrenches = ncp_calloc(c->err, (size_t)n, sizeof *m->wrenches);
    if (!m->wrenches) return NCP_ERR_NOMEM;
    for (const cJSON *it = ws->child; it && !rc; it = it->next, k++) {
        char p[NCP_JSON_PATH_MAX], name[NCP_NAME_MAX], q[NCP_JSON_PATH_MAX];
        ncp_wrench_model *w = &m->wrenches[k];
        ncp_json_index(p, "wrenches", k);
        rc = ncp_json_check_keys(c, it, p, keys);
        if (!rc) rc = ncp_json_get_string(c, it, p, "body", 1, "", name, sizeof name);
        if (!rc) {
            w->body = find_body(m, name);
            ncp_json_key(q, p, "body");
            if (w->body < 0) rc = ncp_json_fail(c, q, "unknown body \"%s\"", name);
            else if (!m->bodies[w->body].dynamic) rc = ncp_json_fail(c, q, "body \"%s\" does not move", name);
        }
        if (!rc) rc = ncp_json_get_number(c, it, p, "start", 0, NCP_JSON_NONNEG, 0.0, &w->start);
        if (!rc) rc = ncp_json_get_number(c, it, p, "end", 0, NCP_JSON_NONNEG, INFINITY, &w->end);
        if (!rc && cJSON_GetObjectItemCaseSensitive(it, "end") && !(w->end > w->start)) {
            ncp_json_key(q, p, "end");
            rc = ncp_json_fail(c, q, "must be later than start (%g), got %g", w->start, w->end);
        }
        if (!rc) rc = ncp_json_get_vec(c, it, p, "force", 0, 3, zero, w->force);
        if (!rc) rc = ncp_json_get_vec(c, it, p, "torque", 0, 3, zero, w->torque);
        if (!rc) m->nwrenches = k + 1;
    }
    return rc;
}

/* Converts the pending anchors (world or a robot's root frame at q0) to the bodies' COM frames
 * at the initial configuration (ncp_model_build has set pos0 and quat0). */
static int resolve_links(mb_ctx *x)
{
    ncp_model *m = x->m;
    for (int l = 0; l < m->nlinks; l++) {
        ncp_link_model *lk = &m->links[l];
        const pending_link *pd = &x->pend[l];
        double Rf[9], of[3], pw[2][3], aw[3];
        ncp_m3_identity(Rf);
        ncp_v3_set(of, 0, 0, 0);
        if (pd->frame_body >= 0) { /* the root link's frame: origin = COM - R com_local */
            const ncp_body_model *fb = &m->bodies[pd->frame_body];
            double c[3];
            ncp_quat_to_mat(fb->quat0, Rf);
            ncp_m3_mulv(Rf, fb->com_local, c);
            ncp_v3_sub(fb->pos0, c, of);
        }
        for (int k = 0; k < 2; k++) {
            ncp_m3_mulv(Rf, pd->anchor[k], pw[k]);
            ncp_v3_add(of, pw[k], pw[k]);
        }
        ncp_m3_mulv(Rf, pd->axis, aw);
        for (int k = 0; k < 2; k++) {
            int b = lk->body[k];
            if (b < 0) {
                ncp_v3_copy(pw[k], lk->anchor[k]);
                ncp_v3_copy(aw, lk->axis[k]);
                continue;
            }
            double R[9], d[3];
            ncp_quat_to_mat(m->bodies[b].quat0, R);
            ncp_v3_sub(pw[k], m->bodies[b].pos0, d);
            ncp_m3_mulv_t(R, d, lk->anchor[k]);
            ncp_m3_mulv_t(R, aw, lk->axis[k]);
        }
        /* weld: body[1]'s orientation relative to body[0]'s */
        double q0[4] = {1, 0, 0, 0}, q1[4] = {1, 0, 0, 0};
        if (lk->body[0] >= 0) memcpy(q0, m->bodies[lk->body[0]].quat0, sizeof q0);
        if (lk->body[1] >= 0) memcpy(q1, m->bodies[lk->body[1]].quat0, sizeof q1);
        q0[1] = -q0[1], q0[2] = -q0[2], q0[3] = -q0[3];
        ncp_quat_mul(q0, q1, lk->rel);
        if (lk->type == NCP_LINK_SPRING && !pd->rest_given) {
            double d[3];
            ncp_v3_sub(pw[1], pw[0], d);
            lk->rest = ncp_v3_norm(d);
        }
    }
    return NCP_OK;
}

int ncp_scene_parse_multibody(const cJSON *root, const char *where, double budget, ncp_model *m,
                              ncp_error *err)
{
    mb_ctx x = {{where, err}, m, NULL, budget};
    int rc = parse_dynamics(&x.c, root, m);
    if (rc) return rc;
    /* the scene file's directory: robot model paths are relative to it */
    char dir[1024] = ".";
    const char *slash = strrchr(where, '/');
    if (slash) {
        size_t n = (size_t)(slash - where);
        if (n >= sizeof dir) return ncp_error_set(err, NCP_ERR_INPUT, "%s: path too long", where);
        memcpy(dir, where, n);
        dir[n] = '\0';
    }
    const cJSON *robots = cJSON_GetObjectItemCaseSensitive(root, "robots");
    if (robots) {
        if (!cJSON_IsArray(robots)) return ncp_json_expect(&x.c, "robots", robots, "an array of robots");
        int k = 0;
        for (const cJSON *it = robots->child; it && !rc; it = it->next, k++) {
            char p[NCP_JSON_PATH_MAX];
            ncp_json_index(p, "robots", k);
            rc = parse_robot(&x, it, p, dir);
        }
    }
    const cJSON *cons = cJSON_GetObjectItemCaseSensitive(root, "constraints");
    if (!rc && cons) {
        if (!cJSON_IsArray(cons)) rc = ncp_json_expect(&x.c, "constraints", cons, "an array of constraints");
        int n = rc ? 0 : cJSON_GetArraySize(cons);
        ncp_link_model *nlk = rc ? NULL : realloc(m->links, (size_t)(m->nlinks + n + 1) * sizeof *nlk);
        pending_link *np = rc ? NULL : realloc(x.pend, (size_t)(m->nlinks + n + 1) * sizeof *np);
        if (nlk) m->links = nlk;
        if (np) x.pend = np;
        if (!rc && (!nlk || !np)) rc = ncp_error_set(err, NCP_ERR_NOMEM, "out of memory adding constraints");
        int k = 0;
        for (const cJSON *it = rc ? NULL : cons->child; it && !rc; it = it->next, k++) {
            char p[NCP_JSON_PATH_MAX];
            ncp_json_index(p, "constraints", k);
            rc = parse_constraint(&x, it, p, NULL, -1);
        }
    }
    if (!rc) rc = ncp_model_build(m, err);
    if (!rc) rc = parse_wrenches(&x.c, root, m);
    if (!rc) rc = resolve_links(&x);
    free(x.pend);
    return rc;
}
