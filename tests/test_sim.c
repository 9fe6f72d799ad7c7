/* The simulator without any solver: this test is compiled against the scene layer's include
 * view and links only sim/ and scene/ (no solvers/, no capture/), which is what keeps the
 * engine free of the benchmark. The contact solve of a step is the test's own callback:
 *   - a ballistic step: v_{k+1} = v_k + h g exactly (theta method with A = M/(1 - theta));
 *   - a sphere resting on a plane: the callback checks the captured dual data against the
 *     primal (D = J A^{-1} J^T, v_f = J A^{-1} b + e), answers with the exact NCP solution of
 *     a sticking contact (lambda = (-v_f,n / D_nn, 0, 0): u = 0 since D_tn = 0 for a sphere
 *     pushed through its centre), and the world must integrate the velocity it returns;
 *   - a callback that reports failure makes the step fail with the driver's name;
 *   - an interrupted solve leaves the state unchanged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/la.h"
#include "scene/scene.h"
#include "sim/kinematics.h"
#include "sim/step.h"
#include "tcheck.h"

static const double H = 0.01, G = 9.81;

static ncp_scene *scene(double z)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"name\":\"sim\",\"timestep\":%.17g,\"steps\":1,\"contact\":{\"margin\":0.01},"
             "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]},"
             "{\"name\":\"ball\",\"type\":\"dynamic\",\"mass\":2,\"position\":[0,0,%.17g],"
             "\"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]}]}", H, z);
    ncp_error err = {0};
    ncp_scene *s = NULL;
    CHECK_OK(ncp_scene_parse(json, "sim.json", NULL, &s, &err), &err); /* no solver catalog */
    return s;
}

typedef struct solve_ctx {
    int calls;
    int mode;       /* 0 exact sticking answer, 1 report failure, 2 report an interrupt */
    double dual_err;
} solve_ctx;

/* v = A^{-1}(b + J^T lambda) by a dense Cholesky (core/la). */
static int primal_velocity(const ncp_problem *p, const double *lambda, double *v, ncp_error *err)
{
    int n = p->nv;
    double *L = malloc((size_t)n * n * sizeof *L);
    if (!L) return ncp_error_set(err, NCP_ERR_NOMEM, "test: out of memory");
    memcpy(L, p->A, (size_t)n * n * sizeof *L);
    memcpy(v, p->b, (size_t)n * sizeof *v);
    ncp_csr_gemv_t(&p->J, 1.0, lambda, 1.0, v);
    int rc = ncp_chol_factor(n, L, err);
    if (!rc) rc = ncp_chol_solve(n, L, 1, v, err);
    free(L);
    return rc;
}

static int test_solve_dual(void *vctx, const ncp_problem *p, const double *lambda0,
                           ncp_step_solve_out *out, ncp_error *err);

/* The step hands over the problem as captured, without D (built on demand, core/problem.h):
 * the checks below build it as a consumer does. */
static int test_solve(void *vctx, const ncp_problem *p0, const double *lambda0,
                      ncp_step_solve_out *out, ncp_error *err)
{
    if (p0->has_dual || p0->D || !p0->vf)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "test: the captured problem keeps D");
    ncp_problem view;
    double *own = NULL;
    int rc = ncp_problem_dual_view(p0, &view, &own, err);
    if (!rc) rc = test_solve_dual(vctx, &view, lambda0, out, err);
    free(own);
    return rc;
}

static int test_solve_dual(void *vctx, const ncp_problem *p, const double *lambda0,
                           ncp_step_solve_out *out, ncp_error *err)
{
    (void)lambda0;
    solve_ctx *c = vctx;
    c->calls++;
    out->iterations = 1;
    if (c->mode == 1) {
        out->failed = 1;
        snprintf(out->status_name, sizeof out->status_name, "failed");
        return NCP_OK;
    }
    if (c->mode == 2) {
        out->interrupted = 1;
        return NCP_OK;
    }
    /* independent dual data: column k of D is J A^{-1} J^T e_k, v_f = J A^{-1} b + e */
    int m = p->m, n = p->nv;
    double *ek = calloc((size_t)m, sizeof *ek), *x = malloc((size_t)n * sizeof *x);
    double *Ab = malloc((size_t)n * sizeof *Ab);
    int rc = (ek && x && Ab) ? NCP_OK : ncp_error_set(err, NCP_ERR_NOMEM, "test: out of memory");
    double worst = 0.0;
    for (int k = 0; k < m && !rc; k++) {
        ncp_zero(m, ek);
        ek[k] = 1.0;
        /* A^{-1} J^T e_k = primal velocity of lambda = e_k minus that of lambda = 0 */
        rc = primal_velocity(p, ek, x, err);
        double *zero = calloc((size_t)m, sizeof *zero);
        if (!rc && zero) rc = primal_velocity(p, zero, Ab, err);
        free(zero);
        for (int i = 0; i < m && !rc; i++) {
            double d = ncp_csr_row_dot(&p->J, i, x) - ncp_csr_row_dot(&p->J, i, Ab);
            worst = fmax(worst, fabs(d - p->D[(size_t)k * m + i]));
            if (k == 0) worst = fmax(worst, fabs(ncp_csr_row_dot(&p->J, i, Ab) + p->e[i] - p->vf[i]));
        }
    }
    c->dual_err = worst;
    if (!rc) {
        ncp_zero(m, out->lambda);
        out->lambda[0] = -p->vf[0] / p->D[0]; /* one contact block: rows n, t1, t2 */
        rc = primal_velocity(p, out->lambda, out->v, err);
    }
    free(ek);
    free(x);
    free(Ab);
    return rc;
}

/* The scene with the ball's centre at height z, and its world. */
static ncp_world *world_at(double z, ncp_scene **s)
{
    ncp_world *w = NULL;
    ncp_error err = {0};
    *s = scene(z);
    if (*s) CHECK_OK(ncp_world_create(ncp_scene_model(*s), &w, &err), &err);
    return w;
}

static void test_ballistic(void)
{
    ncp_scene *s;
    ncp_world *w = world_at(1.0, &s);
    ncp_error err = {0};
    if (!w) return;
    solve_ctx c = {0};
    ncp_step_opts o = {"test", test_solve, &c, 1};
    ncp_step_info info;
    for (int k = 0; k < 3; k++) CHECK_OK(ncp_world_step(w, &o, NULL, NULL, &info, &err), &err);
    double lin[3], ang[3];
    ncp_world_body_velocity(w, 1, lin, ang);
    CHECK(c.calls == 0); /* no contact within the margin: no problem, no solve */
    CHECK_NEAR(lin[2], -3 * H * G, 1e-12);
    CHECK_NEAR(lin[0], 0.0, 1e-15);
    ncp_world_free(w);
    ncp_scene_free(s);
}

static int count_hook(void *ctx, ncp_problem *p, ncp_error *err)
{
    (void)err;
    int *n = ctx;
    *n += p->ncontacts;
    return NCP_OK;
}

static void test_resting(void)
{
    ncp_scene *s;
    ncp_world *w = world_at(0.1, &s); /* sphere of radius 0.1 touching the plane: phi = 0 */
    ncp_error err = {0};
    if (!w) return;
    solve_ctx c = {0};
    ncp_step_opts o = {"test", test_solve, &c, 1};
    ncp_step_info info;
    int hooked = 0;
    CHECK_OK(ncp_world_step(w, &o, count_hook, &hooked, &info, &err), &err);
    CHECK(c.calls == 1 && hooked == 1 && info.ncontacts == 1 && info.nrows == 3);
    CHECK(c.dual_err < 1e-12);
    double lin[3], ang[3], x[3];
    ncp_world_body_velocity(w, 1, lin, ang);
    ncp_world_body_position(w, 1, x);
    /* the contact absorbs gravity's impulse: at rest, on the plane */
    CHECK_NEAR(lin[2], 0.0, 1e-12);
    CHECK_NEAR(x[2], 0.1, 1e-12);

    /* failure and interrupt */
    c.mode = 1;
    int rc = ncp_world_step(w, &o, NULL, NULL, &info, &err);
    CHECK(rc == NCP_ERR_NUMERIC && strstr(err.msg, "driver solver test failed") != NULL);
    c.mode = 2;
    double q0[7];
    memcpy(q0, w->q, sizeof q0);
    int step0 = w->step;
    CHECK_OK(ncp_world_step(w, &o, NULL, NULL, &info, &err), &err);
    CHECK(info.interrupted == 1 && w->step == step0 && memcmp(q0, w->q, sizeof q0) == 0);
    ncp_world_free(w);
    ncp_scene_free(s);
}

int main(void)
{
    test_ballistic();
    test_resting();
    return tcheck_exit("sim");
}
