/* JSON readers of scene objects shared by the scene and robot parsers (scene_json.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/spatial.h"
#include "scene/scene_json.h"
#include "scene/sdf_scene.h"

int ncp_json_get_quat(const ncp_json_ctx *c, const cJSON *obj, const char *path, double q[4])
{
    static const double ident[4] = {1, 0, 0, 0};
    int rc = ncp_json_get_vec(c, obj, path, "quat", 0, 4, ident, q);
    if (!rc && ncp_quat_normalize(q) < 1e-12) {
        char p[NCP_JSON_PATH_MAX];
        ncp_json_key(p, path, "quat");
        return ncp_json_fail(c, p, "must be a non-zero quaternion [w, x, y, z], got a zero quaternion");
    }
    return rc;
}

/* Orientation: "quat" [w, x, y, z] (normalised here) or "axis" + "angle" (rad); identity if
 * neither is given. */
int ncp_scene_get_orientation(ncp_json_ctx *c, const cJSON *obj, const char *path, double q[4])
{
    const cJSON *vq = cJSON_GetObjectItemCaseSensitive(obj, "quat");
    const cJSON *va = cJSON_GetObjectItemCaseSensitive(obj, "axis");
    const cJSON *vg = cJSON_GetObjectItemCaseSensitive(obj, "angle");
    char p[NCP_JSON_PATH_MAX];
    if (vq && (va || vg)) {
        ncp_json_key(p, path, va ? "axis" : "angle");
        return ncp_json_fail(c, p, "give the orientation either as quat or as axis and angle, not both");
    }
    if (vq || !(va || vg)) return ncp_json_get_quat(c, obj, path, q);
    double axis[3], angle;
    int rc = ncp_json_get_vec(c, obj, path, "axis", 1, 3, NULL, axis);
    if (!rc) rc = ncp_json_get_number(c, obj, path, "angle", 1, NCP_JSON_FINITE, 0.0, &angle);
    if (rc) return rc;
    if (ncp_v3_norm(axis) < 1e-12) {
        ncp_json_key(p, path, "axis");
        return ncp_json_fail(c, p, "must be a non-zero rotation axis, got [0, 0, 0]");
    }
    ncp_quat_from_axis_angle(axis, angle, q);
    return NCP_OK;
}

int ncp_scene_check_file(const char *path, const char *what, ncp_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: cannot open %s: %s", path, what, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: is a directory (expected a %s, JSON)", path, what);
    if (!S_ISREG(st.st_mode))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: is not a regular file (expected a %s, JSON)", path, what);
    return NCP_OK;
}

int ncp_scene_find_material(const ncp_model *m, const char *name)
{
    for (int i = 0; i < m->nmaterials; i++)
        if (strcmp(m->materials[i].name, name) == 0) return i;
    return -1;
}

/* ---- sections ---- */

static const char *const shape_names[] = {"plane", "sphere", "capsule", "box", "sdf", NULL};

static int parse_shape(ncp_json_ctx *c, const cJSON *sh, const char *path, ncp_model *m, int body,
                       ncp_shape_model *s)
{
    /* keys common to every shape, then the type's own */
    static const char *const k_plane[] = {"type", "position", "quat", "axis", "angle", "material", "normal", "offset", NULL};
    static const char *const k_sphere[] = {"type", "position", "quat", "axis", "angle", "material", "radius", NULL};
    static const char *const k_capsule[] = {"type", "position", "quat", "axis", "angle", "material", "radius", "half_length", NULL};
    static const char *const k_box[] = {"type", "position", "quat", "axis", "angle", "material", "half_extents", NULL};
    static const char *const *keys[] = {k_plane, k_sphere, k_capsule, k_box, ncp_sdf_shape_keys};
    static const double zero[3] = {0, 0, 0}, up[3] = {0, 0, 1};
    char p[NCP_JSON_PATH_MAX], mat[NCP_NAME_MAX];
    int rc = cJSON_IsObject(sh) ? NCP_OK : ncp_json_expect(c, path, sh, "an object");
    if (!rc) rc = ncp_json_get_enum(c, sh, path, "type", 1, shape_names, 0, &s->type);
    if (!rc) rc = ncp_json_check_keys(c, sh, path, keys[s->type]);
    if (!rc) rc = ncp_json_get_vec(c, sh, path, "position", 0, 3, zero, s->pos);
    if (!rc) rc = ncp_scene_get_orientation(c, sh, path, s->quat);
    if (!rc) rc = ncp_json_get_string(c, sh, path, "material", 0, "default", mat, sizeof mat);
    if (rc) return rc;
    s->body = body;
    s->material = ncp_scene_find_material(m, mat);
    if (s->material < 0) {
        ncp_json_key(p, path, "material");
        return ncp_json_fail(c, p, "unknown material \"%s\" (expected a name from materials, or \"default\")", mat);
    }
    switch (s->type) {
    case NCP_SHAPE_PLANE:
        rc = ncp_json_get_vec(c, sh, path, "normal", 0, 3, up, s->normal);
        if (!rc) rc = ncp_json_get_number(c, sh, path, "offset", 0, NCP_JSON_FINITE, 0.0, &s->offset);
        if (!rc && ncp_v3_normalize(s->normal) < 1e-12) {
            ncp_json_key(p, path, "normal");
            return ncp_json_fail(c, p, "must be a non-zero vector, got [0, 0, 0]");
        }
        if (!rc && m->bodies[body].dynamic) {
            ncp_json_key(p, path, "type");
            return ncp_json_fail(c, p, "planes are infinite and may only belong to static bodies "
                        "(expected sphere, capsule or box on a dynamic body)");
        }
        break;
    case NCP_SHAPE_SPHERE:
        rc = ncp_json_get_number(c, sh, path, "radius", 1, NCP_JSON_POSITIVE, 0.0, &s->radius);
        break;
    case NCP_SHAPE_CAPSULE:
        rc = ncp_json_get_number(c, sh, path, "radius", 1, NCP_JSON_POSITIVE, 0.0, &s->radius);
        if (!rc) rc = ncp_json_get_number(c, sh, path, "half_length", 1, NCP_JSON_NONNEG, 0.0, &s->half_length);
        break;
    case NCP_SHAPE_BOX: {
        rc = ncp_json_get_vec(c, sh, path, "half_extents", 1, 3, NULL, s->half);
        for (int i = 0; i < 3 && !rc; i++)
            if (!(s->half[i] > 0.0)) {
                char q[NCP_JSON_PATH_MAX];
                ncp_json_key(p, path, "half_extents");
                ncp_json_index(q, p, i);
                return ncp_json_fail(c, q, "must be a positive number, got %.17g", s->half[i]);
            }
        break;
    }
    case NCP_SHAPE_SDF: /* kind and parameters: sdf_scene.c */
        rc = ncp_sdf_shape_parse(sh, c->where, path, s, c->err);
        break;
    }
    return rc;
}

int ncp_scene_parse_shape(const cJSON *sh, const char *where, const char *path, ncp_model *m,
                          int body, ncp_shape_model *s, ncp_error *err)
{
    ncp_json_ctx c = {where, err};
    return parse_shape(&c, sh, path, m, body, s);
}
