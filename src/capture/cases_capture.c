/* Single-step case generation (cases_capture.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/cases_capture.h"
#include "core/spatial.h"
#include "sim/step.h"
#include "capture/capture.h"
#include "capture/driver.h"
#include "sim/kinematics.h"

static const double PI = 3.14159265358979323846;

/* ---- random numbers: splitmix64 (deterministic, no global state) ---- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rng_uniform(rng *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

static void rng_direction(rng *r, double d[3])
{
    double z = 2.0 * rng_uniform(r) - 1.0, ph = 2.0 * PI * rng_uniform(r), s = sqrt(fmax(0.0, 1.0 - z * z));
    ncp_v3_set(d, s * cos(ph), s * sin(ph), z);
}

/* ---- capture ---- */

int ncp_cases_apply_wrench(const ncp_world *w, int body, const double force[3],
                           const double torque[3], ncp_problem *p, ncp_error *err)
{
    int dofs[NCP_MAX_CHAIN_DOF];
    double Jl[3 * NCP_MAX_CHAIN_DOF], Ja[3 * NCP_MAX_CHAIN_DOF], com[3];
    ncp_world_body_position(w, body, com);
    int nd = ncp_world_body_jacobian(w, body, com, dofs, Jl, Ja);
    for (int k = 0; k < nd; k++) {
        double tau = 0.0;
        for (int r = 0; r < 3; r++) tau += Jl[r * nd + k] * force[r] + Ja[r * nd + k] * torque[r];
        p->b[dofs[k]] += p->h * tau;
    }
    /* v_f only: D is built on demand (core/problem.h) */
    int rc = ncp_problem_compute_vf(p, err);
    p->dual_symmetric = 1;
    return rc;
}

typedef struct case_ctx {
    const ncp_scene *scene;
    const ncp_cases_cfg *cfg;
    const ncp_capture_opts *opts;
    ncp_world *w;
    rng *r;
    int config;
    int ncases;     /* to capture in total */
    int captured;
    int hooked;
    ncp_capture_fn fn;
    void *user;
} case_ctx;

static int case_hook(void *vctx, ncp_problem *p, ncp_error *err)
{
    case_ctx *c = vctx;
    const ncp_cases_cfg *cfg = c->cfg;
    const ncp_model *m = c->w->model;
    double g = ncp_v3_norm(m->gravity);
    c->hooked = 1;
    for (int j = 0; j < cfg->wrenches && c->captured < c->ncases; j++) {
        if (c->opts->interrupt && *c->opts->interrupt) return NCP_OK;
        ncp_problem q;
        ncp_problem_init(&q);
        int rc = ncp_problem_copy(&q, p, err);
        for (int i = 0; i < cfg->nbodies && !rc; i++) {
            const ncp_body_model *bd = &m->bodies[cfg->bodies[i]];
            double rg = sqrt((bd->inertia[0] + bd->inertia[4] + bd->inertia[8]) / (2.0 * bd->mass));
            double f[3], t[3];
            rng_direction(c->r, f);
            ncp_v3_scale(f, rng_uniform(c->r) * cfg->force * bd->mass * g, f);
            rng_direction(c->r, t);
            ncp_v3_scale(t, rng_uniform(c->r) * cfg->torque * bd->mass * g * rg, t);
            rc = ncp_cases_apply_wrench(c->w, cfg->bodies[i], f, t, &q, err);
        }
        char name[32];
        int k = c->config * cfg->wrenches + j;
        snprintf(name, sizeof name, "%06d", k);
        if (!rc) {
            free(q.name);
            free(q.scene);
            q.name = ncp_strdup(err, name);
            q.scene = ncp_strdup(err, ncp_scene_name(c->scene));
            if (!q.name || !q.scene) rc = NCP_ERR_NOMEM;
        }
        q.step = -1;
        q.case_index = k;
        q.seed = c->opts->seed;
        if (!rc) rc = c->fn(c->user, &q, err);
        ncp_problem_free(&q);
        if (rc) return rc;
        c->captured++;
    }
    return NCP_OK;
}

/* Turns body b about the axis through `point` by the rotation R (quaternion dq) and moves it
 * by `shift`. */
static void move_body(ncp_world *w, int b, const double point[3], const double dq[4], const double shift[3])
{
    double x[3], q[4], R[9], d[3], nq[4];
    ncp_world_body_position(w, b, x);
    ncp_world_body_orientation(w, b, q);
    ncp_quat_to_mat(dq, R);
    ncp_v3_sub(x, point, d);
    ncp_m3_mulv(R, d, x);
    ncp_v3_add(x, point, x);
    ncp_v3_add(x, shift, x);
    ncp_quat_mul(dq, q, nq);
    ncp_world_set_body_state(w, b, x, nq, NULL, NULL);
}

int ncp_cases_capture(const ncp_scene *s, const ncp_cases_cfg *cfg, const ncp_capture_opts *o,
                      const ncp_driver *d, int ncases, ncp_capture_fn fn, void *ctx,
                      ncp_error *err)
{
    ncp_step_opts so;
    ncp_driver_step_opts(d, 1, &so);
    int total = cfg->configurations * cfg->wrenches;
    if (ncases <= 0 || ncases > total) ncases = total;
    case_ctx cc = {s, cfg, o, NULL, NULL, 0, ncases, 0, 0, fn, ctx};
    int rc = NCP_OK;
    for (int i = 0; i < cfg->configurations && cc.captured < ncases && !rc; i++) {
        if (o->interrupt && *o->interrupt) break;
        rng r = {o->seed * 0x9E3779B97F4A7C15ull + (uint64_t)(i + 1) * 0xD1B54A32D192ED03ull};
        ncp_world *w = NULL;
        rc = ncp_world_create(ncp_scene_model(s), &w, err);
        if (rc) break;
        if (cfg->screw_body >= 0) {
            double lo = cfg->screw_angle[0], hi = cfg->screw_angle[1];
            double a = lo + (i + rng_uniform(&r)) * (hi - lo) / cfg->configurations, dq[4], sh[3];
            ncp_quat_from_axis_angle(cfg->screw_axis, a, dq);
            ncp_v3_scale(cfg->screw_axis, cfg->screw_lead * a / (2.0 * PI), sh);
            move_body(w, cfg->screw_body, cfg->screw_point, dq, sh);
        }
        for (int k = 0; k < cfg->nbodies; k++) {
            double d[3], ax[3], x[3], dq[4];
            rng_direction(&r, d);
            ncp_v3_scale(d, cfg->position_noise * cbrt(rng_uniform(&r)), d); /* uniform in the ball */
            rng_direction(&r, ax);
            ncp_quat_from_axis_angle(ax, cfg->rotation_noise * rng_uniform(&r), dq);
            ncp_world_body_position(w, cfg->bodies[k], x);
            move_body(w, cfg->bodies[k], x, dq, d);
        }
        ncp_world_kinematics(w);
        ncp_step_info info;
        for (int k = 0; k < cfg->settle_steps && !rc; k++) {
            if (o->interrupt && *o->interrupt) break;
            rc = ncp_world_step(w, &so, NULL, NULL, &info, err);
        }
        if (!rc && !(o->interrupt && *o->interrupt)) {
            cc.w = w;
            cc.r = &r;
            cc.config = i;
            cc.hooked = 0;
            rc = ncp_world_step(w, &so, case_hook, &cc, &info, err);
            if (!rc && !cc.hooked && !(o->interrupt && *o->interrupt))
                rc = ncp_error_set(err, NCP_ERR_INPUT, "configuration %d has no contacts after %d settle "
                                   "steps (expected bodies in contact: check the placement, "
                                   "benchmark.cases.screw and settle_steps)", i, cfg->settle_steps);
        }
        ncp_world_free(w);
    }
    if (rc) ncp_error_prefix(err, "scene %s, cases: ", ncp_scene_name(s));
    return rc;
}
