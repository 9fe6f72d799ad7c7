/* Prescribed (kinematic) motion of a static scene body: the pouring bottle is tilted by a
 * prescribed rotation until the robots that will hold it exist. The body owns no dofs; its
 * pose is a function of time, and each contact with it gets the body's velocity in its bias,
 *     u = J v + e,   e_r = e_r(gap) - frame_r . (v_kin(body1, p) - v_kin(body0, p)),
 * so the contact sees the relative velocity of the moving surface (normal: approach; tangents:
 * friction drags the particles along).
 *
 * Motion: over [start, end] the body turns by `angle` about the world axis `axis` through
 * `point`, and that point moves by `translation`, both with the minimum-jerk profile
 * s(tau) = 10 tau^3 - 15 tau^4 + 6 tau^5 (zero velocity and acceleration at both ends), so
 *     R(t) = Rot(axis, angle s),  x(t) = point + s translation + R(t) (x0 - point),
 *     v_kin(p) = (s' / T) (translation + angle axis x (p - point - s translation)).
 * Before `start` the body rests at its scene pose, after `end` at the final pose. */
#ifndef NCP_MOTION_H
#define NCP_MOTION_H

#include <cjson/cJSON.h>

#include "util/ncp_error.h"

typedef struct ncp_motion {
    int active;
    double axis[3];        /* unit */
    double point[3];       /* world, at the scene pose */
    double angle;          /* rad */
    double translation[3]; /* m */
    double start, end;     /* s, start < end */
} ncp_motion;

/* The profile s and its time derivative at time t. */
void ncp_motion_profile(const ncp_motion *mo, double t, double *s, double *sdot);
/* Pose at time t of a frame whose scene pose is (pos0, quat0). */
void ncp_motion_pose(const ncp_motion *mo, double t, const double pos0[3], const double quat0[4],
                     double pos[3], double quat[4]);
/* Velocity at time t of the material point currently at world point p. */
void ncp_motion_velocity(const ncp_motion *mo, double t, const double p[3], double v[3]);
/* Parses {"axis", "point", "angle", "translation", "start", "end"}; `path` names the object in
 * messages ("<where>: <path>.<key>: ..."). */
int ncp_motion_parse(const cJSON *obj, const char *where, const char *path, ncp_motion *mo,
                     ncp_error *err);

#endif
