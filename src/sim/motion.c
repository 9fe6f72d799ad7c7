/* Prescribed motion of static bodies (see motion.h). */
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

int ncp_motion_parse(const cJSON *obj, const char *where, const char *path, ncp_motion *mo,
                     ncp_error *err)
{
    static const char *const keys[] = {"axis", "point", "angle", "translation", "start", "end", NULL};
    static const double zero[3] = {0, 0, 0}, x[3] = {1, 0, 0};
    const ncp_json_ctx c = {where, err};
    char p[NCP_JSON_PATH_MAX];
    memset(mo, 0, sizeof *mo);
    if (!cJSON_IsObject(obj))
        return ncp_json_fail(&c, path, "must be an object {axis, point, angle, translation, start, end}");
    int rc = ncp_json_check_keys(&c, obj, path, keys);
    if (!rc) rc = ncp_json_get_vec(&c, obj, path, "axis", 0, 3, x, mo->axis);
    if (!rc) rc = ncp_json_get_vec(&c, obj, path, "point", 0, 3, zero, mo->point);
    if (!rc) rc = ncp_json_get_vec(&c, obj, path, "translation", 0, 3, zero, mo->translation);
    if (!rc) rc = ncp_json_get_number(&c, obj, path, "angle", 0, NCP_JSON_FINITE, 0.0, &mo->angle);
    if (!rc) rc = ncp_json_get_number(&c, obj, path, "start", 1, NCP_JSON_FINITE, 0.0, &mo->start);
    if (!rc) rc = ncp_json_get_number(&c, obj, path, "end", 1, NCP_JSON_FINITE, 0.0, &mo->end);
    if (rc) return rc;
    if (ncp_v3_normalize(mo->axis) < 1e-12) {
        ncp_json_key(p, path, "axis");
        return ncp_json_fail(&c, p, "must be a non-zero vector");
    }
    if (!(mo->start >= 0.0) || !(mo->end > mo->start)) {
        ncp_json_key(p, path, "end");
        return ncp_json_fail(&c, p, "must exceed start >= 0 (s), got start %g, end %g", mo->start,
                             mo->end);
    }
    mo->active = 1;
    return NCP_OK;
}
