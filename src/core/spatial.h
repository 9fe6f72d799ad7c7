/* Small fixed-size 3-D helpers shared by the rigid-body pipeline (world, collision, assembly):
 * 3-vectors, 3x3 matrices and unit quaternions. Header-only (static inline) so that each stage
 * stays readable without a vector library; anything of variable size goes through la.h.
 *
 * Conventions: 3x3 matrices are ROW-major double[9] (m[3*i + j]); quaternions are (w, x, y, z)
 * with w the scalar part, and q represents the rotation R(q) taking body-frame vectors to the
 * world frame. */
#ifndef NCP_SPATIAL_H
#define NCP_SPATIAL_H

#include <math.h>
#include <string.h>

/* pi (M_PI is not in C11 or POSIX without the XSI extension) */
#define NCP_PI 3.14159265358979323846

static inline void ncp_v3_set(double *r, double x, double y, double z)
{
    r[0] = x;
    r[1] = y;
    r[2] = z;
}
static inline void ncp_v3_copy(const double *a, double *r) { memcpy(r, a, 3 * sizeof(double)); }
static inline void ncp_v3_add(const double *a, const double *b, double *r)
{
    for (int i = 0; i < 3; i++) r[i] = a[i] + b[i];
}
static inline void ncp_v3_sub(const double *a, const double *b, double *r)
{
    for (int i = 0; i < 3; i++) r[i] = a[i] - b[i];
}
static inline void ncp_v3_scale(const double *a, double s, double *r)
{
    for (int i = 0; i < 3; i++) r[i] = s * a[i];
}
/* r += s a */
static inline void ncp_v3_axpy(double s, const double *a, double *r)
{
    for (int i = 0; i < 3; i++) r[i] += s * a[i];
}
static inline double ncp_v3_dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void ncp_v3_cross(const double *a, const double *b, double *r)
{
    double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    ncp_v3_copy(t, r);
}
static inline double ncp_v3_norm(const double *a) { return sqrt(ncp_v3_dot(a, a)); }
/* Normalises in place; returns the original length (the vector is left alone if it is 0). */
static inline double ncp_v3_normalize(double *a)
{
    double n = ncp_v3_norm(a);
    if (n > 0.0) ncp_v3_scale(a, 1.0 / n, a);
    return n;
}

/* ---- 3x3, row-major ---- */
static inline void ncp_m3_identity(double *m)
{
    memset(m, 0, 9 * sizeof(double));
    m[0] = m[4] = m[8] = 1.0;
}
/* r = M a */
static inline void ncp_m3_mulv(const double *m, const double *a, double *r)
{
    double t[3];
    for (int i = 0; i < 3; i++) t[i] = m[3 * i] * a[0] + m[3 * i + 1] * a[1] + m[3 * i + 2] * a[2];
    ncp_v3_copy(t, r);
}
/* r = M^T a */
static inline void ncp_m3_mulv_t(const double *m, const double *a, double *r)
{
    double t[3];
    for (int i = 0; i < 3; i++) t[i] = m[i] * a[0] + m[3 + i] * a[1] + m[6 + i] * a[2];
    ncp_v3_copy(t, r);
}
/* C = A B */
static inline void ncp_m3_mul(const double *a, const double *b, double *c)
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    memcpy(c, t, sizeof t);
}
/* C = A B^T */
static inline void ncp_m3_mul_bt(const double *a, const double *b, double *c)
{
    double t[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * i + j] = a[3 * i] * b[3 * j] + a[3 * i + 1] * b[3 * j + 1] + a[3 * i + 2] * b[3 * j + 2];
    memcpy(c, t, sizeof t);
}
/* C = R I R^T (an inertia tensor rotated into another frame). */
static inline void ncp_m3_rotate_sym(const double *r, const double *in, double *out)
{
    double t[9];
    ncp_m3_mul(r, in, t);
    ncp_m3_mul_bt(t, r, out);
}

/* ---- quaternions (w, x, y, z) ---- */
static inline double ncp_quat_normalize(double *q)
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0.0)
        for (int i = 0; i < 4; i++) q[i] /= n;
    return n;
}
/* r = a * b (Hamilton product): rotate by b, then by a. */
static inline void ncp_quat_mul(const double *a, const double *b, double *r)
{
    double t[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                   a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                   a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                   a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
    memcpy(r, t, sizeof t);
}
/* Rotation matrix (row-major) of a unit quaternion. */
static inline void ncp_quat_to_mat(const double *q, double *m)
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    m[0] = 1 - 2 * (y * y + z * z);
    m[1] = 2 * (x * y - w * z);
    m[2] = 2 * (x * z + w * y);
    m[3] = 2 * (x * y + w * z);
    m[4] = 1 - 2 * (x * x + z * z);
    m[5] = 2 * (y * z - w * x);
    m[6] = 2 * (x * z - w * y);
    m[7] = 2 * (y * z + w * x);
    m[8] = 1 - 2 * (x * x + y * y);
}
/* Unit quaternion of a rotation by `angle` (rad) about `axis` (any non-zero length). */
static inline void ncp_quat_from_axis_angle(const double *axis, double angle, double *q)
{
    double a[3];
    ncp_v3_copy(axis, a);
    ncp_v3_normalize(a);
    double s = sin(0.5 * angle);
    q[0] = cos(0.5 * angle);
    q[1] = s * a[0];
    q[2] = s * a[1];
    q[3] = s * a[2];
}
/* Rotation vector w (rad) -> quaternion exp(w/2): exact for a constant angular velocity over a
 * step, so the update q <- exp(h w / 2) q stays on the unit sphere up to round-off. */
static inline void ncp_quat_from_rotvec(const double *w, double *q)
{
    double th = ncp_v3_norm(w);
    if (th < 1e-12) { /* second-order series of the same map */
        q[0] = 1.0 - th * th / 8.0;
        for (int i = 0; i < 3; i++) q[i + 1] = 0.5 * w[i];
        ncp_quat_normalize(q);
        return;
    }
    double s = sin(0.5 * th) / th;
    q[0] = cos(0.5 * th);
    for (int i = 0; i < 3; i++) q[i + 1] = s * w[i];
}

#endif
