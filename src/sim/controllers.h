/* Joint impedance controllers, grippers and external wrench schedules (controllers.c). */
#ifndef NCP_CONTROLLERS_H
#define NCP_CONTROLLERS_H

#include "sim/world.h"

/* Actuation at time t for the step: tau (nv, added to), and the implicit gains kp, kd (nv,
 * overwritten) with the targets qref (nv, position target of each controlled 1-dof joint) so
 * that the actuator force is kp (qref - q) + kd (vref - v) + g(q_k) with q, v those of the
 * integrator (dynamics.c); kd vref and the gravity compensation g(q_k) are added to tau. g
 * (nv) holds g(q_k) when ncp_model_gravity_comp(model), else may be NULL. */
int ncp_world_actuation(const ncp_world *w, double t, const double *g, double *tau, double *kp,
                        double *kd, double *qref, ncp_error *err);
/* 1 if an active controller compensates gravity: ncp_world_actuation then needs g = g(q_k)
 * (nv; the caller computes it by ncp_world_rnea, so controllers do not call the dynamics). */
int ncp_model_gravity_comp(const ncp_model *m);
/* The waypoint target of a controller at time t (njoints entries, and velocities). */
void ncp_controller_target(const ncp_controller_model *c, double t, double *q, double *qd);
/* Generalised forces of the external wrench schedule and constant body forces at time t,
 * added to tau (nv). */
void ncp_world_external_forces(const ncp_world *w, double t, double *tau);

#endif
