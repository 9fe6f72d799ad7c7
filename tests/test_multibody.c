/* Multibody engine (issue 3): the mass matrix against numerical differentiation of inverse
 * dynamics, the bias forces against the power balance and Lagrange's equations, body Jacobians
 * against finite differences of forward kinematics, energy of a frictionless pendulum under
 * the midpoint rule, four-bar loop closure drift, joint limits, springs and welds against
 * statics, the quadruped standing, the structure rebuilt from a stored capture, the laikago8
 * capture sizes, and the arm picking a box. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/driver.h"
#include "sim/assemble.h"
#include "geometry/collision.h"
#include "scene/scene.h"
#include "core/spatial.h"
#include "store/store.h"
#include "tcheck.h"
#include "testutil.h"
#include "sim/world.h"
#include "solvers/registry.h"
#include "capture/capture.h"
#include "geometry/contact.h"
#include "sim/collide.h"
#include "sim/controllers.h"
#include "sim/dynamics.h"
#include "sim/kinematics.h"
#include "sim/step.h"

static ncp_scene *parse(const char *json)
{
    ncp_error err = {0};
    ncp_scene *s = NULL;
    CHECK_OK(ncp_scene_parse(json, "test", ncp_registry_catalog(), &s, &err), &err);
    return s;
}

static ncp_scene *load(const char *path)
{
    ncp_error err = {0};
    ncp_scene *s = NULL;
    CHECK_OK(ncp_scene_load(path, ncp_registry_catalog(), &s, &err), &err);
    return s;
}

/* A tree with every joint type: a free base, a revolute and a prismatic child, a spherical
 * grandchild, a fixed tip, and a second branch; explicit inertias with products of inertia and
 * COM offsets, armature and damping. */
static const char *tree_json =
    "{\"name\":\"tree\",\"timestep\":0.001,\"steps\":10,\"gravity\":[0.3,-0.2,-9.81],"
    "\"bodies\":[{\"name\":\"ground\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]}],"
    "\"robots\":[{\"name\":\"r\",\"base\":\"free\",\"position\":[0.1,-0.2,1.0],\"rpy\":[0.3,-0.2,0.5],"
    " \"velocity\":[0.3,-0.1,0.2],\"angular_velocity\":[0.5,0.2,-0.7],"
    " \"q0\":{\"a\":0.4,\"b\":0.05,\"c\":[0.9,0.1,-0.3,0.2],\"e\":-0.3},"
    " \"links\":["
    "  {\"name\":\"base\",\"inertial\":{\"mass\":3.0,\"com\":[0.02,-0.01,0.03],\"inertia\":[0.05,0.04,0.03,0.002,-0.001,0.003]},"
    "   \"shapes\":[{\"type\":\"box\",\"half_extents\":[0.1,0.08,0.05]}]},"
    "  {\"name\":\"a\",\"parent\":\"base\",\"joint\":{\"type\":\"revolute\",\"origin\":[0.1,0,0],\"rpy\":[0.2,0.1,0],\"axis\":[0,1,1],\"armature\":0.01,\"damping\":0.2},"
    "   \"inertial\":{\"mass\":1.2,\"com\":[0,0,-0.1],\"inertia\":[0.01,0.012,0.004,0.001,0,0.0005]}},"
    "  {\"name\":\"b\",\"parent\":\"a\",\"joint\":{\"type\":\"prismatic\",\"origin\":[0,0,-0.2],\"axis\":[1,0,0.5],\"armature\":0.05},"
    "   \"inertial\":{\"mass\":0.7,\"com\":[0.03,0.01,0],\"inertia\":[0.002,0.003,0.0025,0,0.0001,0]}},"
    "  {\"name\":\"c\",\"parent\":\"b\",\"joint\":{\"type\":\"spherical\",\"origin\":[0.05,0,-0.05]},"
    "   \"inertial\":{\"mass\":0.5,\"com\":[0,0.04,-0.06],\"inertia\":[0.003,0.0025,0.0015,0.0002,0,-0.0001]}},"
    "  {\"name\":\"d\",\"parent\":\"c\",\"joint\":{\"type\":\"fixed\",\"origin\":[0,0.1,-0.1],\"rpy\":[0.5,0,0.2]},"
    "   \"inertial\":{\"mass\":0.3,\"com\":[0.01,0,0.02],\"inertia\":[0.001,0.001,0.0012,0,0,0]}},"
    "  {\"name\":\"e\",\"parent\":\"base\",\"joint\":{\"type\":\"revolute\",\"origin\":[-0.1,0.05,0],\"axis\":[1,0,0]},"
    "   \"inertial\":{\"mass\":0.9,\"com\":[0,0.05,0],\"inertia\":[0.004,0.002,0.004,0,0,0]}}"
    " ]}]}";

/* Random velocities for the tree. */
static void random_state(ncp_world *w, trng *r)
{
    for (int k = 0; k < w->model->nv; k++) w->v[k] = trng_normal(r);
}

static void test_mass_matrix(void)
{
    ncp_scene *s = parse(tree_json);
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    const ncp_model *m = w->model;
    int nv = m->nv;
    CHECK(nv == 6 + 1 + 1 + 3 + 1 && m->nsub == 1 && m->ndynamic == 6);
    trng r = {4242};
    random_state(w, &r);
    double *M = malloc((size_t)nv * nv * sizeof(double)), *t0 = malloc(nv * sizeof(double));
    double *t1 = malloc(nv * sizeof(double)), *qdd = calloc(nv, sizeof(double));
    CHECK_OK(ncp_world_mass_matrix(w, M, &err), &err);
    /* column k of M = d tau / d qdd_k: central differences of the inverse dynamics at a
     * random velocity (the Coriolis and gravity terms cancel) */
    double worst = 0.0, mmax = 0.0, step = 1e-3;
    for (int k = 0; k < nv; k++) {
        for (int i = 0; i < nv; i++) qdd[i] = 0.3 * trng_normal(&r);
        double base = qdd[k];
        qdd[k] = base + step;
        CHECK_OK(ncp_world_rnea(w, w->v, qdd, 1, t1, &err), &err);
        qdd[k] = base - step;
        CHECK_OK(ncp_world_rnea(w, w->v, qdd, 1, t0, &err), &err);
        for (int i = 0; i < nv; i++) {
            double fd = (t1[i] - t0[i]) / (2 * step);
            worst = fmax(worst, fabs(fd - M[(size_t)k * nv + i]));
            mmax = fmax(mmax, fabs(M[(size_t)k * nv + i]));
        }
    }
    CHECK(worst <= 1e-10 * mmax);
    /* symmetric positive definite */
    double asym = 0.0;
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < nv; j++) asym = fmax(asym, fabs(M[(size_t)i * nv + j] - M[(size_t)j * nv + i]));
    CHECK(asym == 0.0);
    double *E = malloc((size_t)nv * nv * sizeof(double)), *ev = malloc(nv * sizeof(double));
    memcpy(E, M, (size_t)nv * nv * sizeof(double));
    CHECK_OK(ncp_sym_eig(nv, E, ev, &err), &err);
    CHECK(ev[0] > 0.0);
    /* the kinetic energy 1/2 v^T M v equals the sum over bodies (ncp_world_energy) */
    double ke, pe, vMv = 0.0;
    CHECK_OK(ncp_world_energy(w, &ke, &pe, &err), &err);
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < nv; j++) vMv += w->v[i] * M[(size_t)j * nv + i] * w->v[j];
    CHECK_REL(0.5 * vMv, ke, 1e-12);
    printf("mass matrix (%d dofs, all joint types): |M - d tau/d qdd| = %.2e (max |M| %.2e), "
           "lambda_min %.3e, 1/2 v'Mv vs body sum %.2e\n", nv, worst, mmax, ev[0], fabs(0.5 * vMv - ke));
    free(E);
    free(ev);
    free(M);
    free(t0);
    free(t1);
    free(qdd);
    ncp_world_free(w);
    ncp_scene_free(s);
}

/* Energy at the state (q (+) eps v, v + eps a): d/d eps at 0 is the power of the motion. */
static double energy_at(ncp_world *w, ncp_world *tmp, const double *a, double eps)
{
    ncp_error err = {0};
    int nv = w->model->nv;
    ncp_world_advance_q(w, w->q, w->v, eps, tmp->q);
    for (int k = 0; k < nv; k++) tmp->v[k] = w->v[k] + eps * a[k];
    ncp_world_kinematics(tmp);
    double ke, pe;
    CHECK_OK(ncp_world_energy(tmp, &ke, &pe, &err), &err);
    return ke + pe;
}

static void test_bias(void)
{
    /* Power balance: with qdd = M^{-1} (tau - bias(q, v)) the energy changes at the rate
     * v . tau (no damping term is in the bias). Central differences of the energy along the
     * motion check the whole bias (Coriolis, centrifugal, gyroscopic and gravity terms) for
     * every joint type, including the quaternion joints. */
    ncp_scene *s = parse(tree_json);
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL, *tmp = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &tmp, &err), &err);
    int nv = w->model->nv;
    trng r = {99};
    double *M = malloc((size_t)nv * nv * sizeof(double)), *bias = malloc(nv * sizeof(double));
    double *tau = malloc(nv * sizeof(double)), *a = malloc(nv * sizeof(double));
    double worst = 0.0;
    for (int trial = 0; trial < 20; trial++) {
        /* a random configuration: move the initial one along random velocities */
        random_state(w, &r);
        ncp_world_advance_q(w, w->q, w->v, 0.3, w->q);
        ncp_world_kinematics(w);
        random_state(w, &r);
        for (int k = 0; k < nv; k++) tau[k] = trial % 2 ? 5.0 * trng_normal(&r) : 0.0;
        CHECK_OK(ncp_world_mass_matrix(w, M, &err), &err);
        CHECK_OK(ncp_world_rnea(w, w->v, NULL, 1, bias, &err), &err);
        for (int k = 0; k < nv; k++) a[k] = tau[k] - bias[k];
        CHECK_OK(ncp_chol_factor(nv, M, &err), &err);
        CHECK_OK(ncp_chol_solve(nv, M, 1, a, &err), &err);
        double eps = 1e-5;
        double dE = (energy_at(w, tmp, a, eps) - energy_at(w, tmp, a, -eps)) / (2 * eps);
        double power = ncp_dot(nv, w->v, tau);
        double ke, pe;
        CHECK_OK(ncp_world_energy(w, &ke, &pe, &err), &err);
        double scale = fabs(power) + ncp_norm2(nv, a) * ncp_norm2(nv, w->v) + 1.0;
        worst = fmax(worst, fabs(dE - power) / scale);
        CHECK_NEAR(dE, power, 1e-7 * scale);
    }
    printf("bias forces: energy rate vs v.tau over 20 random states, worst relative %.2e\n", worst);
    free(M);
    free(bias);
    free(tau);
    free(a);
    ncp_world_free(w);
    ncp_world_free(tmp);
    ncp_scene_free(s);
}

/* A revolute-only chain: holonomic coordinates, so Lagrange's equations hold literally. */
static const char *chain_json =
    "{\"name\":\"chain\",\"timestep\":0.001,\"steps\":10000,"
    "\"dynamics\":{\"integrator\":\"midpoint\"},"
    "\"bodies\":[{\"name\":\"ground\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\",\"offset\":-5}]}],"
    "\"robots\":[{\"name\":\"p\",\"position\":[0,0,2],"
    " \"q0\":{\"l1\":1.2,\"l2\":-0.5,\"l3\":0.8},"
    " \"links\":["
    "  {\"name\":\"base\",\"inertial\":{\"mass\":1,\"inertia\":[0.01,0.01,0.01,0,0,0]}},"
    "  {\"name\":\"l1\",\"parent\":\"base\",\"joint\":{\"type\":\"revolute\",\"axis\":[0,1,0]},"
    "   \"inertial\":{\"mass\":1.0,\"com\":[0,0,-0.25],\"inertia\":[0.02,0.021,0.002,0,0.001,0]}},"
    "  {\"name\":\"l2\",\"parent\":\"l1\",\"joint\":{\"type\":\"revolute\",\"origin\":[0,0,-0.5],\"axis\":[0,1,0.2]},"
    "   \"inertial\":{\"mass\":0.8,\"com\":[0.02,0,-0.2],\"inertia\":[0.015,0.016,0.002,0,0,0.0005]}},"
    "  {\"name\":\"l3\",\"parent\":\"l2\",\"joint\":{\"type\":\"revolute\",\"origin\":[0,0,-0.4],\"axis\":[1,0,0]},"
    "   \"inertial\":{\"mass\":0.5,\"com\":[0,0.01,-0.15],\"inertia\":[0.005,0.005,0.001,0,0,0]}}"
    " ]}]}";

static void test_lagrange(void)
{
    /* bias = C(q, v) v + g(q) with C v = dM/dt v - 1/2 d(v'Mv)/dq and g = dV/dq; the
     * derivatives by central differences of M and V in q */
    ncp_scene *s = parse(chain_json);
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL, *t = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &t, &err), &err);
    int nv = w->model->nv;
    CHECK(nv == 3 && w->model->nq == 3);
    trng r = {5};
    random_state(w, &r);
    double bias[3], Mp[9], Mm[9], lag[3] = {0, 0, 0}, eps = 1e-5;
    CHECK_OK(ncp_world_rnea(w, w->v, NULL, 1, bias, &err), &err);
    /* dM/dt v: along q + eps v */
    for (int sgn = -1; sgn <= 1; sgn += 2) {
        for (int i = 0; i < 3; i++) t->q[i] = w->q[i] + sgn * eps * w->v[i];
        ncp_world_kinematics(t);
        CHECK_OK(ncp_world_mass_matrix(t, sgn > 0 ? Mp : Mm, &err), &err);
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) lag[i] += (Mp[3 * j + i] - Mm[3 * j + i]) / (2 * eps) * w->v[j];
    for (int k = 0; k < 3; k++) {
        double T[2], V[2];
        for (int sgn = 0; sgn < 2; sgn++) {
            memcpy(t->q, w->q, sizeof(double) * 3);
            t->q[k] += sgn ? eps : -eps;
            memcpy(t->v, w->v, sizeof(double) * 3);
            ncp_world_kinematics(t);
            CHECK_OK(ncp_world_energy(t, &T[sgn], &V[sgn], &err), &err);
        }
        lag[k] += -(T[1] - T[0]) / (2 * eps) + (V[1] - V[0]) / (2 * eps);
    }
    double worst = 0.0;
    for (int k = 0; k < 3; k++) {
        worst = fmax(worst, fabs(lag[k] - bias[k]));
        CHECK_NEAR(lag[k], bias[k], 1e-7 * (1.0 + fabs(bias[k])));
    }
    printf("bias forces: RNEA vs Lagrange's equations (3-link chain) %.2e\n", worst);
    ncp_world_free(w);
    ncp_world_free(t);
    ncp_scene_free(s);
}

static void test_jacobian(void)
{
    /* v_p = Jlin v and omega = Jang v against the motion of a material point and of the frame
     * when the coordinates move by +-eps v (q (+) eps v) */
    ncp_scene *s = parse(tree_json);
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL, *t = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &t, &err), &err);
    const ncp_model *m = w->model;
    trng r = {31};
    random_state(w, &r);
    double worst = 0.0, eps = 1e-6;
    for (int b = 0; b < m->nbodies; b++) {
        if (!m->bodies[b].dynamic) continue;
        double off[3] = {trng_normal(&r) * 0.1, trng_normal(&r) * 0.1, trng_normal(&r) * 0.1};
        double p[3], Rl[9];
        memcpy(Rl, w->rot + 9 * b, sizeof Rl);
        ncp_m3_mulv(Rl, off, p);
        ncp_v3_add(p, w->pos + 3 * b, p);
        int dofs[NCP_MAX_CHAIN_DOF];
        double Jl[3 * NCP_MAX_CHAIN_DOF], Ja[3 * NCP_MAX_CHAIN_DOF];
        int n = ncp_world_body_jacobian(w, b, p, dofs, Jl, Ja);
        for (int k = 1; k < n; k++) CHECK(dofs[k] > dofs[k - 1]);
        double vp[3] = {0, 0, 0}, om[3] = {0, 0, 0};
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < n; k++) {
                vp[i] += Jl[i * n + k] * w->v[dofs[k]];
                om[i] += Ja[i * n + k] * w->v[dofs[k]];
            }
        double pp[2][3], RR[2][9];
        for (int sgn = 0; sgn < 2; sgn++) {
            ncp_world_advance_q(w, w->q, w->v, sgn ? eps : -eps, t->q);
            ncp_world_kinematics(t);
            ncp_m3_mulv(t->rot + 9 * b, off, pp[sgn]);
            ncp_v3_add(pp[sgn], t->pos + 3 * b, pp[sgn]);
            memcpy(RR[sgn], t->rot + 9 * b, sizeof RR[sgn]);
        }
        /* omega from dR/dt R^T = [omega]x */
        double dR[9], W[9];
        for (int i = 0; i < 9; i++) dR[i] = (RR[1][i] - RR[0][i]) / (2 * eps);
        ncp_m3_mul_bt(dR, Rl, W);
        double omfd[3] = {W[7], W[2], W[3]};
        for (int i = 0; i < 3; i++) {
            double fd = (pp[1][i] - pp[0][i]) / (2 * eps);
            worst = fmax(worst, fmax(fabs(fd - vp[i]), fabs(omfd[i] - om[i])));
            CHECK_NEAR(vp[i], fd, 1e-7);
            CHECK_NEAR(om[i], omfd[i], 1e-7);
        }
    }
    printf("body Jacobians (all joint types): max |J v - FD| = %.2e\n", worst);
    ncp_world_free(w);
    ncp_world_free(t);
    ncp_scene_free(s);
}

/* ---- trajectories ---- */

static int run(ncp_world *w, const char *driver, int steps, ncp_step_info *last)
{
    ncp_error err = {0};
    ncp_driver o_drv = {ncp_solver_find(driver), NULL, {1e-10, 200, 0.0}, NULL};
    ncp_step_opts o;
    ncp_driver_step_opts(&o_drv, 1, &o);
    CHECK(o.driver != NULL);
    if (!o.driver) return 1;
    for (int k = 0; k < steps; k++) {
        ncp_step_info info;
        int rc = ncp_world_step(w, &o, NULL, NULL, &info, &err);
        CHECK_OK(rc, &err);
        if (rc) return rc;
        if (last) *last = info;
    }
    return 0;
}

static void test_pendulum_energy(void)
{
    /* A frictionless 3-link pendulum (no contacts: the plane is 5 m below) swings for 10 s at
     * h = 1 ms. The implicit midpoint rule is symmetric, so its energy error stays bounded
     * (no drift): we require |E - E0| <= 1e-4 of the peak kinetic energy, and show that the
     * first-order semi-implicit Euler does an order of magnitude or more worse. */
    double rel[2] = {0, 0};
    for (int integ = 0; integ < 2; integ++) {
        char *json = strdup(chain_json);
        if (integ == 1) { /* the same chain with the default theta = 0 */
            char *d = strstr(json, "\"dynamics\":{\"integrator\":\"midpoint\"},");
            memset(d, ' ', strlen("\"dynamics\":{\"integrator\":\"midpoint\"},"));
        }
        ncp_scene *s = parse(json);
        free(json);
        if (!s) return;
        ncp_error err = {0};
        ncp_world *w = NULL;
        CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
        double ke, pe, e0, emax = 0.0, kmax = 0.0;
        CHECK_OK(ncp_world_energy(w, &ke, &pe, &err), &err);
        e0 = ke + pe;
        for (int k = 0; k < 10000; k++) {
            if (run(w, "pgs", 1, NULL)) break;
            CHECK_OK(ncp_world_energy(w, &ke, &pe, &err), &err);
            emax = fmax(emax, fabs(ke + pe - e0));
            kmax = fmax(kmax, ke);
        }
        rel[integ] = emax / kmax;
        ncp_world_free(w);
        ncp_scene_free(s);
    }
    CHECK(rel[0] <= 1e-4);
    CHECK(rel[1] >= 10.0 * rel[0]);
    printf("pendulum energy over 10 s, h = 1 ms: max |E - E0| / max KE = %.2e (midpoint), "
           "%.2e (semi-implicit Euler)\n", rel[0], rel[1]);
}

static void test_controller_target(void)
{
    /* minimum-jerk blend between waypoints: q(T/2) is the midpoint, qdot(T/2) = 15/8 dq/T
     * (d/ds of 10s^3 - 15s^4 + 6s^5 at 1/2), zero velocity at the waypoints, held outside */
    double t[2] = {1.0, 3.0}, q[4] = {0.0, -1.0, 1.0, 3.0}, qo[2], qd[2];
    ncp_controller_model c;
    memset(&c, 0, sizeof c);
    c.njoints = 2;
    c.nwaypoints = 2;
    c.wp_time = t;
    c.wp_q = q;
    ncp_controller_target(&c, 2.0, qo, qd);
    CHECK_NEAR(qo[0], 0.5, 1e-15);
    CHECK_NEAR(qo[1], 1.0, 1e-15);
    CHECK_NEAR(qd[0], 15.0 / 8.0 * 1.0 / 2.0, 1e-14);
    CHECK_NEAR(qd[1], 15.0 / 8.0 * 4.0 / 2.0, 1e-14);
    ncp_controller_target(&c, 1.0, qo, qd);
    CHECK(qo[0] == 0.0 && qd[0] == 0.0 && qd[1] == 0.0);
    ncp_controller_target(&c, 5.0, qo, qd);
    CHECK(qo[0] == 1.0 && qo[1] == 3.0 && qd[0] == 0.0);
    c.interp = NCP_INTERP_LINEAR;
    ncp_controller_target(&c, 1.5, qo, qd);
    CHECK_NEAR(qo[1], 0.0, 1e-15);
    CHECK_NEAR(qd[1], 2.0, 1e-15);
}

static void test_limits(void)
{
    /* A horizontal rod on a revolute joint (about y) with limits [-0.3, 0.2] falls under
     * gravity from q = 0 onto its upper limit (the rod points along +x, gravity turns it
     * towards -z, i.e. positive q about +y), bounces off the limit row and comes to rest
     * against it. The limit holds: q <= upper + 1e-6 at every step, and it ends at the limit. */
    const char *json =
        "{\"name\":\"lim\",\"timestep\":0.004166666666666667,\"steps\":480,"
        "\"bodies\":[{\"name\":\"ground\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\",\"offset\":-5}]}],"
        "\"robots\":[{\"name\":\"r\",\"position\":[0,0,1],"
        " \"links\":[{\"name\":\"base\",\"inertial\":{\"mass\":1,\"inertia\":[0.01,0.01,0.01,0,0,0]}},"
        "  {\"name\":\"rod\",\"parent\":\"base\",\"joint\":{\"type\":\"revolute\",\"axis\":[0,1,0],\"limits\":[-0.3,0.2]},"
        "   \"inertial\":{\"mass\":1.0,\"com\":[0.25,0,0],\"inertia\":[0.001,0.02,0.02,0,0,0]}}]}]}";
    ncp_scene *s = parse(json);
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    double qmax = -1.0;
    int rows_seen = 0;
    for (int k = 0; k < 480; k++) {
        ncp_step_info info;
        if (run(w, "pgs", 1, &info)) break;
        rows_seen += info.nrows == 1;
        qmax = fmax(qmax, w->q[0]);
    }
    CHECK(qmax <= 0.2 + 1e-6);
    CHECK_NEAR(w->q[0], 0.2, 1e-6);
    CHECK(fabs(w->v[0]) < 1e-6);
    CHECK(rows_seen > 100);
    printf("joint limit: max q = %.9f (limit 0.2), final q = %.9f\n", qmax, w->q[0]);
    ncp_world_free(w);
    ncp_scene_free(s);
}

/* World positions of a loop's two anchors. */
static double loop_gap(const ncp_world *w, const ncp_link_model *lk)
{
    double p[2][3];
    for (int k = 0; k < 2; k++) {
        int b = lk->body[k];
        if (b < 0) {
            ncp_v3_copy(lk->anchor[k], p[k]);
            continue;
        }
        ncp_m3_mulv(w->rot + 9 * b, lk->anchor[k], p[k]);
        ncp_v3_add(p[k], w->pos + 3 * b, p[k]);
    }
    double d[3];
    ncp_v3_sub(p[1], p[0], d);
    return ncp_v3_norm(d);
}

static void test_fourbar(void)
{
    /* The fixed four-bar driven once around: the loop stays closed (Baumgarte with
     * joint_erp 0.2 keeps the drift bounded) and the crank really turns a full revolution
     * while the rocker only rocks. */
    ncp_scene *s = load("scenes/fourbar-fixed.json");
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    const ncp_model *m = w->model;
    CHECK(m->nv == 3 && m->nlinks == 1 && m->links[0].type == NCP_LINK_HINGE);
    int crank = ncp_world_find_body(w, "fourbar/crank"), rocker = ncp_world_find_body(w, "fourbar/rocker");
    CHECK(crank >= 0 && rocker >= 0);
    if (crank < 0 || rocker < 0) return;
    double drift = loop_gap(w, &m->links[0]), q0 = w->q[m->bodies[crank].qpos];
    double rmin = 1e9, rmax = -1e9, amis = 0.0;
    for (int k = 0; k < 960; k++) {
        if (run(w, "pgs", 1, NULL)) break;
        drift = fmax(drift, loop_gap(w, &m->links[0]));
        double qr = w->q[m->bodies[rocker].qpos];
        rmin = fmin(rmin, qr);
        rmax = fmax(rmax, qr);
        /* the hinge axes stay parallel */
        double a0[3], a1[3], c[3];
        ncp_m3_mulv(w->rot + 9 * m->links[0].body[0], m->links[0].axis[0], a0);
        ncp_m3_mulv(w->rot + 9 * m->links[0].body[1], m->links[0].axis[1], a1);
        ncp_v3_cross(a0, a1, c);
        amis = fmax(amis, ncp_v3_norm(c));
    }
    double turned = w->q[m->bodies[crank].qpos] - q0;
    CHECK(drift < 1e-4);
    CHECK(amis < 1e-9);
    CHECK(turned < -2.0 * 3.14159265358979 + 0.3); /* about one turn (the drive lags a little) */
    CHECK(rmax - rmin > 0.3);
    printf("four-bar: loop drift <= %.2e m over 4 s, axis misalignment %.1e, crank turned %.3f rad, "
           "rocker range %.3f rad\n", drift, amis, turned, rmax - rmin);
    ncp_world_free(w);
    ncp_scene_free(s);
}

static void test_spring_and_weld(void)
{
    /* A 2 kg ball hangs from a world anchor by a spring (K = 400 N/m, B = 20 N s/m, rest
     * 0.3 m); a second 2 kg ball is welded below it. The pair moves as one rigid body (weld
     * drift bounded) and settles where the spring carries both: stretch 2 m g / K. */
    const char *json =
        "{\"name\":\"sw\",\"timestep\":0.004166666666666667,\"steps\":10,"
        "\"bodies\":[{\"name\":\"ground\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\",\"offset\":-5}]},"
        " {\"name\":\"ball\",\"type\":\"dynamic\",\"mass\":2,\"position\":[0,0,0.7],\"shapes\":[{\"type\":\"sphere\",\"radius\":0.05}]},"
        " {\"name\":\"twin\",\"type\":\"dynamic\",\"mass\":2,\"position\":[0,0,0.58],\"shapes\":[{\"type\":\"sphere\",\"radius\":0.05}]}],"
        "\"constraints\":[{\"type\":\"spring\",\"bodies\":[\"world\",\"ball\"],\"anchors\":[[0,0,1],[0,0,0.7]],"
        "  \"stiffness\":400,\"damping\":20,\"rest_length\":0.3},"
        " {\"type\":\"weld\",\"bodies\":[\"ball\",\"twin\"],\"anchor\":[0,0,0.64]}]}";
    ncp_scene *s = parse(json);
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    const ncp_model *m = w->model;
    CHECK(m->nlinks == 2 && m->links[0].type == NCP_LINK_SPRING && m->links[1].type == NCP_LINK_WELD);
    double wdrift = 0.0;
    for (int k = 0; k < 2400 && !run(w, "nsn-nm", 1, NULL); k++) wdrift = fmax(wdrift, loop_gap(w, &m->links[1]));
    double pa[3], pb[3], ca[3];
    ncp_world_body_position(w, 1, pa);
    ncp_world_body_position(w, 2, pb);
    for (int i = 0; i < 3; i++) ca[i] = 0.5 * (pa[i] + pb[i]);
    double L = sqrt(pa[0] * pa[0] + pa[1] * pa[1] + (1 - pa[2]) * (1 - pa[2]));
    CHECK_NEAR(L - 0.3, 4.0 * 9.81 / 400.0, 1e-5);
    CHECK_NEAR(ca[0], 0.0, 1e-9); /* straight below the anchor */
    CHECK_NEAR(pa[2] - pb[2], 0.12, 1e-6); /* the weld keeps the offset */
    CHECK(wdrift < 1e-6);
    double v[3];
    ncp_world_body_velocity(w, 2, v, NULL);
    CHECK(ncp_v3_norm(v) < 1e-4);
    printf("spring + weld: stretch %.6f m (2 m g / K = %.6f), weld drift %.1e m\n", L - 0.3,
           4.0 * 9.81 / 400.0, wdrift);
    ncp_world_free(w);
    ncp_scene_free(s);
}

static void test_weld_spinning(void)
{
    /* scenes/boxes-fixed.json: the 10 g cube welded to the spinning, sliding 10 kg cube stays
     * attached (the weld's drift, from the curvature of the anchors' paths over a step, stays
     * bounded by the Baumgarte term) and the pair comes to rest on the big cube's corners */
    ncp_scene *s = load("scenes/boxes-fixed.json");
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    const ncp_model *m = w->model;
    double drift = 0.0;
    for (int k = 0; k < m->nsteps && !run(w, "nsn-nm", 1, NULL); k++) drift = fmax(drift, loop_gap(w, &m->links[0]));
    double v[3], om[3];
    ncp_world_body_velocity(w, 2, v, om);
    CHECK(drift < 1e-4);
    CHECK(ncp_v3_norm(v) < 1e-3 && ncp_v3_norm(om) < 1e-2);
    printf("boxes-fixed: weld drift <= %.2e m over 2 s, final speed of the small cube %.1e m/s\n", drift,
           ncp_v3_norm(v));
    ncp_world_free(w);
    ncp_scene_free(s);
}

static void test_wrench(void)
{
    /* Without gravity, a 2 kg ball gets a force (3, 0, -1) N and a torque (0, 0, 0.5) N m over
     * [0.1, 0.3) s: exactly 48 steps of h = 1/240 s, so v = F 0.2 / m and omega = tau 0.2 / I,
     * I = 2/5 m r^2 (a sphere: no gyroscopic term) */
    ncp_scene *s = parse("{\"name\":\"w\",\"timestep\":0.004166666666666667,\"steps\":120,\"gravity\":[0,0,0],"
                         "\"bodies\":[{\"name\":\"ball\",\"type\":\"dynamic\",\"mass\":2,\"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]}],"
                         "\"wrenches\":[{\"body\":\"ball\",\"start\":0.1,\"end\":0.3,\"force\":[3,0,-1],\"torque\":[0,0,0.5]}]}");
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    run(w, "pgs", 120, NULL);
    double v[3], om[3], I = 0.4 * 2 * 0.01;
    ncp_world_body_velocity(w, 0, v, om);
    CHECK_NEAR(v[0], 3 * 0.2 / 2, 1e-12);
    CHECK_NEAR(v[2], -1 * 0.2 / 2, 1e-12);
    CHECK_NEAR(om[2], 0.5 * 0.2 / I, 1e-10);
    ncp_world_free(w);
    ncp_scene_free(s);
}

static void test_quadruped_stands(void)
{
    /* scenes/quadruped.json for its 2 s: the robot lands and stands; no contact ever
     * penetrates by 1 mm (geometric penetration of every state) and the trunk stays up */
    ncp_scene *s = load("scenes/quadruped.json");
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    CHECK(w->model->nv == 18 && w->model->nsub == 1);
    int trunk = ncp_world_find_body(w, "dog/trunk");
    double pen = 0.0, zmin = 1e9;
    ncp_contact_list cl = {0, 0, NULL};
    int feet = 0;
    for (int k = 0; k < w->model->nsteps; k++) {
        if (run(w, "nsn-nm", 1, NULL)) break;
        CHECK_OK(ncp_world_collide(w, &cl, &err), &err);
        for (int i = 0; i < cl.n; i++) pen = fmax(pen, -cl.c[i].dist);
        zmin = fmin(zmin, w->pos[3 * trunk + 2]);
        if (k == w->model->nsteps - 1)
            for (int i = 0; i < cl.n; i++) feet += strstr(w->model->bodies[cl.c[i].body[1]].name, "foot") != NULL;
    }
    CHECK(pen < 1e-3);
    CHECK(zmin > 0.42);
    CHECK(feet == 4 && cl.n == 4);
    printf("quadruped: max penetration over 2 s %.2e m, lowest trunk COM %.4f m, %d feet on the floor\n",
           pen, zmin, feet);
    ncp_contact_list_free(&cl);
    ncp_world_free(w);
    ncp_scene_free(s);
}

static void test_arm_pick(void)
{
    /* scenes/arm-pick.json: the gripper closes on the box and the arm lifts it 17 cm; the
     * box stays between the fingers; the arm tracks its waypoints */
    ncp_scene *s = load("scenes/arm-pick.json");
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    const ncp_model *m = w->model;
    CHECK(m->nv == 6 + 7 + 2 && m->nsub == 2);
    int box = ncp_world_find_body(w, "box"), fl = ncp_world_find_body(w, "hand/finger_left");
    int fr = ncp_world_find_body(w, "hand/finger_right"), l2 = ncp_world_find_body(w, "arm/link2");
    double z0 = w->pos[3 * box + 2], err_hold = 0.0;
    for (int k = 0; k < m->nsteps && !run(w, "nsn-nm", 1, NULL); k++) {
        if (w->time > 2.7 && w->time < 3.3) { /* holding the grasp pose */
            double qd[8], qv[8];
            ncp_controller_target(&m->robots[0].ctrl, w->time, qd, qv);
            err_hold = fmax(err_hold, fabs(w->q[m->bodies[l2].qpos] - qd[1]));
        }
    }
    double lift = w->pos[3 * box + 2] - z0;
    CHECK(lift > 0.15);
    /* between the fingers: the fingers stopped on the box (about 25 mm each) */
    double ql = w->q[m->bodies[fl].qpos], qr = w->q[m->bodies[fr].qpos];
    CHECK(ql > 0.02 && qr > 0.02);
    CHECK(err_hold < 0.01);
    printf("arm pick: box lifted %.4f m, fingers at %.4f / %.4f m, joint 2 tracking error while "
           "grasping %.1e rad\n", lift, ql, qr, err_hold);
    ncp_world_free(w);
    ncp_scene_free(s);
}

static void test_robot_models(void)
{
    /* every shipped robot model loads, with the DOF and masses of its sources
     * (the URDFs each model's description names) */
    struct {
        const char *file, *base;
        int nv, nbodies;
        double mass;
    } cases[] = {{"laikago", "free", 18, 17, 25.433}, {"panda", "fixed", 7, 9, 16.691837},
                 {"franka-hand", "fixed", 2, 3, 0.76}, {"allegro", "fixed", 16, 21, 0.9554},
                 {"g1-upper", "fixed", 21, 25, 21.130034}, {"nunchuk", "free", 12, 3, 0.6},
                 {"fourbar", "fixed", 3, 4, 0.8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"name\":\"m\",\"timestep\":0.01,\"steps\":1,"
                 "\"materials\":[{\"name\":\"foot\",\"friction\":1},{\"name\":\"rubber\",\"friction\":1},"
                 "{\"name\":\"fingertip\",\"friction\":1}],"
                 "\"bodies\":[{\"name\":\"ground\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]}],"
                 "\"robots\":[{\"name\":\"r\",\"model\":\"scenes/robots/%s.json\",\"base\":\"%s\",\"position\":[0,0,1]}]}",
                 cases[i].file, cases[i].base);
        ncp_scene *s = parse(json);
        if (!s) continue;
        const ncp_model *m = ncp_scene_model(s);
        double mass = 0.0;
        for (int b = 1; b < m->nbodies; b++) mass += m->bodies[b].mass;
        CHECK(m->nv == cases[i].nv && m->nbodies == 1 + cases[i].nbodies);
        CHECK_NEAR(mass, cases[i].mass, 2e-3);
        CHECK(m->nrobots == 1 && m->robots[0].nbodies == cases[i].nbodies);
        printf("robot model %-12s %2d DOF, %2d links, %.3f kg\n", cases[i].file, m->nv, m->nbodies - 1, mass);
        ncp_scene_free(s);
    }
    /* the Panda's forward kinematics at q = 0 and at the ready pose put the flange (link8)
     * where the modified DH table of the sources says: (0.088, 0, 0.926) and (0.307, 0, 0.590) */
    ncp_scene *s = parse("{\"name\":\"p\",\"timestep\":0.01,\"steps\":1,"
                         "\"bodies\":[{\"name\":\"ground\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]}],"
                         "\"robots\":[{\"name\":\"a\",\"model\":\"scenes/robots/panda.json\"},"
                         " {\"name\":\"b\",\"model\":\"scenes/robots/panda.json\",\"position\":[0,2,0],"
                         "  \"q0\":{\"link2\":-0.7853981633974483,\"link4\":-2.356194490192345,"
                         "        \"link6\":1.5707963267948966,\"link7\":0.7853981633974483}}]}");
    if (s) {
        ncp_error err = {0};
        ncp_world *w = NULL;
        CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
        int a8 = ncp_world_find_body(w, "a/link8"), b8 = ncp_world_find_body(w, "b/link8");
        /* link8's COM is its frame origin (no com offset) */
        CHECK_NEAR(w->pos[3 * a8], 0.088, 1e-12);
        CHECK_NEAR(w->pos[3 * a8 + 1], 0.0, 1e-12);
        CHECK_NEAR(w->pos[3 * a8 + 2], 0.926, 1e-12);
        CHECK_NEAR(w->pos[3 * b8], 0.306890567, 1e-8);
        CHECK_NEAR(w->pos[3 * b8 + 1], 2.0, 1e-12);
        CHECK_NEAR(w->pos[3 * b8 + 2], 0.590282052, 1e-8);
        ncp_world_free(w);
        ncp_scene_free(s);
    }
}

static void test_bad_robots(void)
{
    /* validation names the file, the JSON path and what is wrong */
#define HEAD "{\"name\":\"x\",\"timestep\":0.01,\"steps\":1,\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]}],"
#define BASE "{\"name\":\"base\",\"mass\":1,\"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]}"
    struct {
        const char *json, *msg;
    } cases[] = {
        {HEAD "\"robots\":[{\"name\":\"r\",\"links\":[" BASE ",{\"name\":\"l\",\"parent\":\"nope\",\"joint\":{\"type\":\"revolute\"},\"mass\":1,\"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]}]}]}",
         "test: robots[0].links[1].parent: unknown link \"nope\""},
        {HEAD "\"robots\":[{\"name\":\"r\",\"links\":[" BASE ",{\"name\":\"l\",\"parent\":\"base\",\"joint\":{\"type\":\"revolute\",\"limits\":[1,-1]},\"mass\":1,\"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]}]}]}",
         "test: robots[0].links[1].joint.limits: must be [lower, upper] with lower < upper"},
        {HEAD "\"robots\":[{\"name\":\"r\",\"links\":[" BASE ",{\"name\":\"l\",\"parent\":\"base\",\"joint\":{\"type\":\"hinge\"},\"mass\":1}]}]}",
         "test: robots[0].links[1].joint.type: must be one of: fixed, revolute, prismatic, spherical"},
        {HEAD "\"robots\":[{\"name\":\"r\",\"links\":[" BASE ",{\"name\":\"l\",\"parent\":\"base\",\"joint\":{\"type\":\"spherical\",\"axis\":[1,0,0]},\"mass\":1,\"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]}]}]}",
         "test: robots[0].links[1].joint.axis: only revolute and prismatic joints take axis"},
        {HEAD "\"robots\":[{\"name\":\"r\",\"links\":[{\"name\":\"base\",\"inertial\":{\"mass\":1,\"inertia\":[1,1,3,0,0,0]}}]}]}",
         "test: robots[0].links[0].inertial.inertia: must be a positive definite inertia tensor"},
        {HEAD "\"robots\":[{\"name\":\"r\",\"links\":[" BASE ",{\"name\":\"l\",\"parent\":\"base\",\"joint\":{\"type\":\"revolute\",\"limits\":[0,1]},\"mass\":1,\"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]}],\"q0\":{\"l\":2}}]}",
         "test: robots[0].q0.l: 2 is outside the joint's limits [0, 1]"},
        {HEAD "\"robots\":[{\"name\":\"r\",\"links\":[" BASE "],\"controller\":{\"joints\":[\"base\"]}}]}",
         "test: robots[0].controller.joints[0]: must be the name of a revolute or prismatic joint's link"},
        {HEAD "\"robots\":[{\"name\":\"r\",\"model\":\"scenes/robots/none.json\"}]}",
         "test: robots[0].model: ./scenes/robots/none.json: cannot open robot model file"},
        {HEAD "\"robots\":[{\"name\":\"r/x\",\"links\":[" BASE "]}]}",
         "test: robots[0].name: a robot name must use only letters"},
        {HEAD "\"robots\":[{\"name\":\"r\",\"links\":[" BASE "],\"base\":\"fixed\",\"velocity\":[1,0,0]}]}",
         "test: robots[0].velocity: only a free-base robot takes velocity"},
        {HEAD "\"constraints\":[{\"type\":\"weld\",\"bodies\":[\"g\",\"q\"],\"anchor\":[0,0,0]}]}",
         "test: constraints[0].bodies[1]: unknown body \"q\""},
        {HEAD "\"constraints\":[{\"type\":\"spring\",\"bodies\":[\"world\",\"g\"],\"anchor\":[0,0,0],\"axis\":[0,0,1],\"stiffness\":1}]}",
         "test: constraints[0].axis: only hinge constraints take an axis"},
        {HEAD "\"dynamics\":{\"theta\":1}}", "test: dynamics.theta: must be a number in [0, 1), got 1"},
        {HEAD "\"dynamics\":{\"integrator\":\"midpoint\",\"theta\":0.5}}", "test: dynamics.theta: only the theta integrator takes theta"},
        {HEAD "\"wrenches\":[{\"body\":\"g\",\"force\":[1,0,0]}]}", "test: wrenches[0].body: body \"g\" does not move"},
    };
#undef HEAD
#undef BASE
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ncp_error err = {0};
        ncp_scene *s = NULL;
        int rc = ncp_scene_parse(cases[i].json, "test", ncp_registry_catalog(), &s, &err);
        CHECK(rc == NCP_ERR_INPUT && s == NULL);
        if (!strstr(err.msg, cases[i].msg)) {
            fprintf(stderr, "case %zu: message\n  %s\nlacks\n  %s\n", i, err.msg, cases[i].msg);
            CHECK(0);
        }
        ncp_scene_free(s);
    }
}

/* ---- structure ---- */

typedef struct sink {
    ncp_store *st;
    int n;
} sink;

static int to_store(void *ctx, const ncp_problem *p, ncp_error *err)
{
    sink *s = ctx;
    s->n++;
    return ncp_store_append(s->st, p, err);
}

/* Rebuilds A and J of every problem of a file from its structure; returns the worst
 * relative errors. */
static void rebuild(const ncp_problem *p, double *ea, double *ej)
{
    const ncp_structure *st = p->structure;
    int nv = p->nv, m = p->m;
    double *A = calloc((size_t)nv * nv, sizeof(double)), *J = calloc((size_t)m * nv, sizeof(double));
    double *Jd = malloc((size_t)m * nv * sizeof(double));
    for (int k = 0; k < nv; k++) A[(size_t)k * nv + k] = st->dof_diag ? st->dof_diag[k] : 0.0;
    for (int b = 0; b < st->nbodies; b++) {
        const ncp_structure_body *sb = &st->bodies[b];
        int d0 = st->sub_dof_start[sb->subsystem], n = sb->ndof;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < 6; k++)
                    for (int l = 0; l < 6; l++) s += sb->Jb[k + 6 * i] * sb->M[k + 6 * l] * sb->Jb[l + 6 * j];
                A[(size_t)(d0 + j) * nv + d0 + i] += s;
            }
    }
    for (int l = 0; l < st->nlinks; l++) {
        const ncp_structure_link *lk = &st->links[l];
        const ncp_structure_body *sb = &st->bodies[lk->body];
        int rows = ncp_block_type_size(p->blocks[lk->block].type), r0 = p->blocks[lk->block].row;
        int d0 = st->sub_dof_start[sb->subsystem];
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < sb->ndof; c++) {
                double s = 0.0;
                for (int k = 0; k < 6; k++) s += lk->Jib[r + rows * k] * sb->Jb[k + 6 * c];
                J[(r0 + r) + (size_t)(d0 + c) * m] += s;
            }
    }
    ncp_csr_to_dense(&p->J, Jd);
    double amax = 0.0, jmax = 0.0, da = 0.0, dj = 0.0;
    for (int i = 0; i < nv * nv; i++) {
        amax = fmax(amax, fabs(p->A[i]));
        da = fmax(da, fabs(p->A[i] - A[i]));
    }
    for (int i = 0; i < m * nv; i++) {
        jmax = fmax(jmax, fabs(Jd[i]));
        dj = fmax(dj, fabs(Jd[i] - J[i]));
    }
    *ea = da / amax;
    *ej = dj / (jmax > 0 ? jmax : 1.0);
    free(A);
    free(J);
    free(Jd);
}

static void structure_case(ncp_scene *s, const char *label, const char *path, int laikago8)
{
    ncp_error err = {0};
    sink sk = {NULL, 0};
    CHECK_OK(ncp_store_create(path, ncp_scene_name(s), ncp_scene_text(s), 1, &sk.st, &err), &err);
    ncp_capture_opts o = {1, 1, 0, NULL, NULL};
    CHECK_OK(ncp_capture_scene(s, &o, to_store, &sk, &err), &err);
    CHECK_OK(ncp_store_close(sk.st, &err), &err);
    ncp_problem *pr = NULL;
    int n = 0;
    CHECK_OK(ncp_load_problems(path, &pr, &n, &err), &err);
    CHECK(n == sk.n && n >= 1);
    if (n < 1) return;
    double ea = 0.0, ej = 0.0;
    int types = 0;
    for (int k = 0; k < n; k++) {
        CHECK(pr[k].structure != NULL);
        if (!pr[k].structure) continue;
        double a, j;
        rebuild(&pr[k], &a, &j);
        ea = fmax(ea, a);
        ej = fmax(ej, j);
        for (int b = 0; b < pr[k].nblocks; b++) types |= 1 << pr[k].blocks[b].type;
    }
    CHECK(ea <= 1e-12 && ej <= 1e-12);
    if (laikago8) { /* the done-means of the issue */
        const ncp_model *m = ncp_scene_model(s);
        CHECK(pr[0].nv == 144 && pr[0].structure && pr[0].structure->nsub == 8);
        CHECK(m->nsub == 8 && m->nv == 144);
    }
    printf("structure %-26s %d problems, nv %3d, %d subsystems, block types 0x%x: rebuilt A %.1e, J %.1e\n",
           label, n, pr[0].nv, pr[0].structure ? pr[0].structure->nsub : -1, types, ea, ej);
    ncp_problems_free(pr, n);
}

static void test_structure(void)
{
    /* Capture scenes into a problems file, read it back, rebuild A and J from the stored
     * structure (A_j = sum_b J_bj^T M_b J_bj + diag(dof_diag), J_i = sum_b J_ib J_bj) and
     * compare with the stored primal. Together they cover contacts on links, limits, closures,
     * welds, springs, implicit gains, armature, the midpoint and theta integrators and several
     * subsystems. */
    const char *scenes[] = {"scenes/laikago8.json", "scenes/fourbar-free.json", "scenes/boxes-fixed.json",
                            "scenes/arm-pick.json", "scenes/nunchuk.json", "scenes/arm7d.json"};
    char path[64];
    snprintf(path, sizeof path, "/tmp/ncp_test_multibody_%d.h5", (int)getpid());
    for (int i = 0; i < 6; i++) {
        ncp_scene *s = load(scenes[i]);
        if (!s) continue;
        structure_case(s, scenes[i], path, i == 0);
        ncp_scene_free(s);
    }
    /* a spring (SOFT row), a weld and a contact, with theta = 0.5 and armature */
    ncp_scene *s = parse(
        "{\"name\":\"soft\",\"timestep\":0.004166666666666667,\"steps\":40,"
        "\"dynamics\":{\"theta\":0.5},"
        "\"bodies\":[{\"name\":\"ground\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]},"
        " {\"name\":\"ball\",\"type\":\"dynamic\",\"mass\":2,\"position\":[0,0,0.049],\"shapes\":[{\"type\":\"sphere\",\"radius\":0.05}]},"
        " {\"name\":\"twin\",\"type\":\"dynamic\",\"mass\":1,\"position\":[0.1,0,0.3],\"shapes\":[{\"type\":\"box\",\"half_extents\":[0.03,0.02,0.01]}]}],"
        "\"robots\":[{\"name\":\"arm\",\"position\":[0.5,0,0.5],\"q0\":{\"l\":0.3},"
        " \"links\":[{\"name\":\"base\",\"inertial\":{\"mass\":1,\"inertia\":[0.01,0.01,0.01,0,0,0]}},"
        "  {\"name\":\"l\",\"parent\":\"base\",\"joint\":{\"type\":\"revolute\",\"axis\":[0,1,0],\"armature\":0.2,\"damping\":1,\"limits\":[-1,0.31]},"
        "   \"inertial\":{\"mass\":1,\"com\":[0.1,0,0],\"inertia\":[0.001,0.01,0.01,0,0,0]}}],"
        " \"controller\":{\"kp\":50,\"kd\":2}}],"
        "\"constraints\":[{\"type\":\"spring\",\"bodies\":[\"ball\",\"arm/l\"],\"anchors\":[[0,0,0.1],[0.6,0,0.5]],"
        "  \"stiffness\":400,\"damping\":20},"
        " {\"type\":\"weld\",\"bodies\":[\"ball\",\"twin\"],\"anchor\":[0.05,0,0.2]}],"
        "\"benchmark\":{\"steps\":5,\"quick_steps\":3}}");
    if (s) {
        structure_case(s, "(inline spring/weld/limit)", path, 0);
        ncp_scene_free(s);
    }
    remove(path);
}

/* A step from a non-finite configuration: the mass matrix's factorisation fails, and the error
 * names the step and says the state is not finite (what a diverged simulation looks like). */
static void test_diverged_state(void)
{
    ncp_scene *s = parse(tree_json);
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    if (w) {
        for (int i = 0; i < w->model->nq; i++) w->q[i] = NAN;
        ncp_world_kinematics(w); /* the cached transforms follow q */
        ncp_driver drv = {ncp_solver_find("pgs"), NULL, {1e-8, 100, 0.0}, NULL};
        ncp_step_opts so;
        ncp_driver_step_opts(&drv, 1, &so);
        int rc = ncp_world_step(w, &so, NULL, NULL, NULL, &err);
        if (rc != NCP_ERR_NUMERIC) fprintf(stderr, "rc %d: %s\n", rc, err.msg);
        CHECK(rc == NCP_ERR_NUMERIC);
        CHECK(strstr(err.msg, "step 0 (t = 0 s): ") == err.msg);
        CHECK(strstr(err.msg, "non-finite state") != NULL);
        ncp_world_free(w);
    }
    ncp_scene_free(s);
}

int main(void)
{
    test_diverged_state();
    test_mass_matrix();
    test_bias();
    test_lagrange();
    test_jacobian();
    test_pendulum_energy();
    test_controller_target();
    test_limits();
    test_fourbar();
    test_spring_and_weld();
    test_weld_spinning();
    test_wrench();
    test_quadruped_stands();
    test_arm_pick();
    test_robot_models();
    test_bad_robots();
    test_structure();
    return tcheck_exit("test_multibody");
}
