/* Prescribed motion of static bodies (see motion.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/json_util.h"
#include "sim/motion.h"
#include "core/spatial.h"

void ncp_motion_profile(const ncp_motion *mo, double t, double *s, double *sdot)
{
    double T = mo->end - mo->start, tau = (t - mo->start) / T;
    if (tau <= 0.0) {
        *s = 0.0;
        *sdot = 0.0;
    } else if (tau >= 1.0) {
        *s = 1.0;
        *sdot = 0.0;
    } else {
        double t2 = tau * tau, t3 = t2 * tau;
        *s = t3 * (10.0 - 15.0 * tau + 6.0 * t2);
        *sdot = 30.0 * t2 * (1.0 - tau) * (1.0 - tau) / T;
    }
}

void ncp_motion_pose(const ncp_motion *mo, double t, const double pos0[3], const double quat0[4],
                     double pos[3], double quat[4])
{
    double s, sd, dq[4], R[9], d[3], q[4];
    ncp_motion_profile(mo, t, &s, &sd);
    ncp_quat_from_axis_angle(mo->axis, mo->angle * s, dq);
    ncp_quat_to_mat(dq, R);
    ncp_v3_sub(pos0, mo->point, d);
    ncp_m3_mulv(R, d, pos);
    ncp_v3_add(pos, mo->point, pos);
    ncp_v3_axpy(s, mo->translation, pos);
    ncp_quat_mul(dq, quat0, q);
    ncp_quat_normalize(q);
    memcpy(quat, q, sizeof q);
}

void ncp_motion_velocity(const ncp_motion *mo, double t, const double p[3], double v[3])
{
    double s, sd, c[3], r[3], w[3];
    ncp_motion_profile(mo, t, &s, &sd);
    ncp_v3_copy(mo->point, c);
    ncp_v3_axpy(s, mo->translation, c); /* the rotation centre now */
    ncp_v3_sub(p, c, r);
    ncp_v3_scale(mo->axis, mo->angle * sd, w);
    ncp_v3_cross(w, r, v);
    ncp_v3_axpy(sd, mo->translation, v);
}

static int vec3(const cJSON *o, const char *key, const double *def, const char *where,
                const char *path, double out[3], ncp_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) memcpy(out, def, 3 * sizeof(double));
    else if (ncp_json_numbers(v, 3, out) != 3)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s.%s: must be an array of 3 finite numbers",
                             where, path, key);
    return NCP_OK;
}

static int num(const cJSON *o, const char *key, int req, const char *where, const char *path,
               double *out, ncp_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v && !req) return NCP_OK;
    if (!v || !cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s.%s: %s (expected a finite number)", where,
                             path, key, v ? "not a finite number" : "missing");
    *out = v->valuedouble;
    return NCP_OK;
}

int ncp_motion_parse(const cJSON *obj, const char *where, const char *path, ncp_motion *mo,
                     ncp_error *err)
{
    static const char *const keys[] = {"axis", "point", "angle", "translation", "start", "end", NULL};
    static const double zero[3] = {0, 0, 0}, x[3] = {1, 0, 0};
    memset(mo, 0, sizeof *mo);
    if (!cJSON_IsObject(obj))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s: must be an object {axis, point, angle, "
                             "translation, start, end}", where, path);
    for (const cJSON *it = obj->child; it; it = it->next) {
        int ok = 0;
        for (int i = 0; keys[i]; i++) ok |= strcmp(keys[i], it->string) == 0;
        if (!ok)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s.%s: unknown key (expected one of: axis, "
                                 "point, angle, translation, start, end)", where, path, it->string);
    }
    int rc = vec3(obj, "axis", x, where, path, mo->axis, err);
    if (!rc) rc = vec3(obj, "point", zero, where, path, mo->point, err);
    if (!rc) rc = vec3(obj, "translation", zero, where, path, mo->translation, err);
    if (!rc) rc = num(obj, "angle", 0, where, path, &mo->angle, err);
    if (!rc) rc = num(obj, "start", 1, where, path, &mo->start, err);
    if (!rc) rc = num(obj, "end", 1, where, path, &mo->end, err);
    if (rc) return rc;
    if (ncp_v3_normalize(mo->axis) < 1e-12)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s.axis: must be a non-zero vector", where, path);
    if (!(mo->start >= 0.0) || !(mo->end > mo->start))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s.end: must exceed start >= 0 (s), got start "
                             "%g, end %g", where, path, mo->start, mo->end);
    mo->active = 1;
    return NCP_OK;
}
