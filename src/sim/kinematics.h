/* Forward kinematics, body Jacobians and the integration of positions on the joint
 * manifolds (kinematics.c; conventions in world.h). */
#ifndef NCP_KINEMATICS_H
#define NCP_KINEMATICS_H

#include "sim/world.h"

/* Body frame origins (3 x nbodies) and orientations (4 x nbodies) at coordinates q, and (if
 * janchor is not NULL) the origins of the bodies' joint frames (kinematics.c). */
void ncp_model_forward_kinematics(const ncp_model *m, const double *q, double *origin, double *quat,
                                  double *janchor);
/* Recomputes body poses, world inertias, motion subspaces and shape poses from q. */
void ncp_world_kinematics(ncp_world *w);
/* The body Jacobian: for the material point of `body` currently at world point p,
 *     v_p = Jlin v[dofs],  and the body's angular velocity is  omega = Jang v[dofs],
 * where Jlin and Jang are 3 x ndof, row-major (row r, column k at [r * ndof + k]). Writes the
 * dofs of the joints on the body's path to the world (ascending, at most NCP_MAX_CHAIN_DOF)
 * and returns their number (0 for static bodies). */
int ncp_world_body_jacobian(const ncp_world *w, int body, const double p[3], int *dofs,
                            double *Jlin, double *Jang);
/* q_out = q (+) h v: each joint's coordinates moved by h times its velocities (quaternions by
 * the exponential map). q_out may alias q. */
void ncp_world_advance_q(const ncp_world *w, const double *q, const double *v, double h,
                         double *q_out);
/* The spatial velocity (omega; v_O) of every body, world (6 x nbodies), for velocities v. */
void ncp_world_body_twists(const ncp_world *w, const double *v, double *twist);

#endif
