/* Robot controllers and external wrenches (world.h).
 *
 * Joint impedance: each controlled 1-dof joint gets
 *     tau = kp (q_d(t) - q) + kd (qdot_d(t) - qdot) [+ g(q_k)],
 * tracking waypoints interpolated with minimum-jerk quintics (zero velocity and acceleration at
 * every waypoint, so the reference is C^2) or linearly. The spring and damper are applied
 * IMPLICITLY: they enter A as the joint-space diagonal h^2 c_q kp + h c_d kd (dynamics.c, Castro
 * et al. 2023 §II-D eq. 15, A = M + dt^2 theta theta_vq K + dt theta D). Why: the fingers of a gripper
 * or a hand have effective inertias of 1e-2 kg and 1e-6 kg m^2, so an explicit spring with the
 * gains of a real servo (kp dt^2 / m_eff >> 1) would be unstable at any usable timestep; the
 * implicit spring is unconditionally stable and keeps the constraint problem's A SPD. The
 * gravity compensation g(q_k) and the reference velocity term kd qdot_d are explicit (smooth
 * in time, no stiffness). We chose the implicit A over Lee et al. 2025's SOFT rows because a soft row
 * per joint would put every actuator into the contact problem, where solvers would have to
 * iterate on it, while an implicit diagonal costs nothing and leaves the problem the same size.
 *
 * Grippers: "close" and "open" commands move the finger targets between the open and closed
 * positions with a minimum-jerk profile over grip_time; a closed target past the object's
 * surface squeezes it with kp times the remaining distance.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"
#include "sim/world.h"
#include "sim/controllers.h"
#include "sim/kinematics.h"

/* Minimum-jerk blend s in [0, 1] -> (position fraction, its derivative per unit s). */
static void min_jerk(double s, double *f, double *df)
{
    if (s <= 0.0) {
        *f = 0.0;
        *df = 0.0;
        return;
    }
    if (s >= 1.0) {
        *f = 1.0;
        *df = 0.0;
        return;
    }
    double s2 = s * s, s3 = s2 * s;
    *f = s3 * (10.0 - 15.0 * s + 6.0 * s2);
    *df = 30.0 * s2 * (1.0 - 2.0 * s + s2);
}

void ncp_controller_target(const ncp_controller_model *c, double t, double *q, double *qd)
{
    int n = c->njoints, nw = c->nwaypoints;
    for (int j = 0; j < n; j++) qd[j] = 0.0;
    if (nw == 0) return;
    if (t <= c->wp_time[0] || nw == 1) {
        memcpy(q, c->wp_q, (size_t)n * sizeof(double));
        return;
    }
    if (t >= c->wp_time[nw - 1]) {
        memcpy(q, c->wp_q + (size_t)(nw - 1) * n, (size_t)n * sizeof(double));
        return;
    }
    int i = 0;
    while (i + 1 < nw && c->wp_time[i + 1] <= t) i++;
    double T = c->wp_time[i + 1] - c->wp_time[i], s = (t - c->wp_time[i]) / T, f, df;
    if (c->interp == NCP_INTERP_LINEAR) {
        f = s;
        df = 1.0;
    } else {
        min_jerk(s, &f, &df);
    }
    const double *a = c->wp_q + (size_t)i * n, *b = a + n;
    for (int j = 0; j < n; j++) {
        q[j] = a[j] + f * (b[j] - a[j]);
        qd[j] = df / T * (b[j] - a[j]);
    }
}

/* Finger targets at time t: replay the commands, each starting from where the previous motion
 * had got to when it was issued. */
static void gripper_target(const ncp_controller_model *c, double t, double *q, double *qd)
{
    double from[NCP_MAX_GRIP], to[NCP_MAX_GRIP];
    const double *init = c->grip_start_closed ? c->grip_closed : c->grip_open;
    for (int g = 0; g < c->ngrip; g++) {
        from[g] = to[g] = init[g];
        q[g] = init[g];
        qd[g] = 0.0;
    }
    double t0 = -INFINITY;
    for (int k = 0; k < c->ncommands && c->cmd_time[k] <= t; k++) {
        /* position reached at the time of command k */
        double f = 1.0, df;
        if (isfinite(t0)) min_jerk((c->cmd_time[k] - t0) / c->grip_time, &f, &df);
        for (int g = 0; g < c->ngrip; g++) {
            from[g] = from[g] + f * (to[g] - from[g]);
            to[g] = c->cmd_close[k] ? c->grip_closed[g] : c->grip_open[g];
        }
        t0 = c->cmd_time[k];
    }
    double f = 1.0, df = 0.0;
    if (isfinite(t0)) min_jerk((t - t0) / c->grip_time, &f, &df);
    for (int g = 0; g < c->ngrip; g++) {
        q[g] = from[g] + f * (to[g] - from[g]);
        qd[g] = df / c->grip_time * (to[g] - from[g]);
    }
}

int ncp_model_gravity_comp(const ncp_model *m)
{
    for (int r = 0; r < m->nrobots; r++)
        if (m->robots[r].ctrl.active && m->robots[r].ctrl.gravity_comp) return 1;
    return 0;
}

int ncp_world_actuation(const ncp_world *w, double t, const double *g, double *tau, double *kp,
                        double *kd, double *qref, ncp_error *err)
{
    const ncp_model *m = w->model;
    int nv = m->nv;
    ncp_zero(nv, kp);
    ncp_zero(nv, kd);
    ncp_zero(nv, qref);
    for (int r = 0; r < m->nrobots; r++) {
        const ncp_controller_model *c = &m->robots[r].ctrl;
        if (!c->active) continue;
        if (c->gravity_comp && !g)
            return ncp_error_set(err, NCP_ERR_INTERNAL, "robot %s: gravity compensation without "
                                 "the gravity torques", m->robots[r].name);
        double *qd = ncp_malloc(err, 2 * (size_t)(c->njoints + NCP_MAX_GRIP), sizeof(double));
        if (!qd) return NCP_ERR_NOMEM;
        double *qdd = qd + c->njoints + NCP_MAX_GRIP;
        ncp_controller_target(c, t, qd, qdd);
        for (int j = 0; j < c->njoints; j++) {
            int k = m->bodies[c->joints[j]].dof;
            kp[k] = c->kp[j];
            kd[k] = c->kd[j];
            qref[k] = qd[j];
            tau[k] += c->kd[j] * qdd[j];
            if (c->gravity_comp) tau[k] += g[k];
        }
        gripper_target(c, t, qd, qdd);
        for (int j = 0; j < c->ngrip; j++) {
            int k = m->bodies[c->grip[j]].dof;
            kp[k] = c->grip_kp;
            kd[k] = c->grip_kd;
            qref[k] = qd[j];
            tau[k] += c->grip_kd * qdd[j];
            if (c->gravity_comp) tau[k] += g[k];
        }
        free(qd);
    }
    return NCP_OK;
}

/* tau += J_b^T (f; n) for a wrench (force f at the COM, torque n) on body b. */
static void add_wrench(const ncp_world *w, int b, const double f[3], const double n[3], double *tau)
{
    int dofs[NCP_MAX_CHAIN_DOF];
    double Jl[3 * NCP_MAX_CHAIN_DOF], Ja[3 * NCP_MAX_CHAIN_DOF];
    int nd = ncp_world_body_jacobian(w, b, w->pos + 3 * b, dofs, Jl, Ja);
    for (int k = 0; k < nd; k++)
        for (int r = 0; r < 3; r++) tau[dofs[k]] += Jl[r * nd + k] * f[r] + Ja[r * nd + k] * n[r];
}

void ncp_world_external_forces(const ncp_world *w, double t, double *tau)
{
    const ncp_model *m = w->model;
    for (int b = 0; b < m->nbodies; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        if (bd->dynamic && (ncp_v3_dot(bd->force, bd->force) > 0.0 || ncp_v3_dot(bd->torque, bd->torque) > 0.0))
            add_wrench(w, b, bd->force, bd->torque, tau);
    }
    for (int i = 0; i < m->nwrenches; i++) {
        const ncp_wrench_model *wr = &m->wrenches[i];
        if (t >= wr->start && t < wr->end && m->bodies[wr->body].dynamic)
            add_wrench(w, wr->body, wr->force, wr->torque, tau);
    }
}
