/* The state a captured problem starts from (problem.h guess_v, guess_lambda) and the warm
 * starts built on it (Lee et al. 2025 §V-D: the first iteration starts from the previous time
 * step):
 *   - problems.h5 round trip of the guesses, bit for bit; a problem without them loads with none;
 *   - export --fclib: /guesses/1 read back by libfclib (v, l, r in FCLib's order, and
 *     u = D lambda + v_f recomputed here) and by our reader;
 *   - a trajectory capture of a ball falling inside the contact margin (no impulse): guess_v at
 *     step k is the analytic (vx0, 0, -g h k) of the theta method (v_{k+1} = v_k + h g);
 *   - a sliding box stepped with the capture's driver: guess_lambda at step k is the impulse
 *     the driver returned at step k - 1 (corners keep their frames), 0 at step 0, and the solve
 *     is handed exactly the problem's guess as its warm start;
 *   - a cases capture: guess_v is the settled state's velocity, analytic (free fall) and equal
 *     to the velocity of the same world stepped apart;
 *   - canal's and subadmm's first iterates differ between a zero and a velocity start on a
 *     sliding step (whose previous velocity is not A^{-1} b): they take v0;
 *   - --warm-start: the pipeline's default is velocity; the bench hands v0 = guess_v (and no
 *     lambda0) to a solver in velocity mode, nothing in zero mode, both in guess mode, and a
 *     problem without guess_v starts from zero without error.
 */
#include <fclib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/pipeline.h"
#include "capture/capture.h"
#include "capture/driver.h"
#include "core/la.h"
#include "scene/scene.h"
#include "sim/step.h"
#include "solvers/registry.h"
#include "store/fclib_io.h"
#include "store/store.h"
#include "tcheck.h"
#include "testutil.h"

static char dir[256];
static const double H = 0.01, G = 9.81;

static int same_bits(const double *a, const double *b, int n)
{
    if (n == 0) return 1;
    if (!a || !b) return 0;
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* ---------------------------------------------------------------- store and export */

static void fill_guess(ncp_problem *p, double shift)
{
    p->guess_lambda = malloc((size_t)(p->m ? p->m : 1) * sizeof(double));
    p->guess_v = malloc((size_t)(p->nv ? p->nv : 1) * sizeof(double));
    if (!p->guess_lambda || !p->guess_v) return;
    for (int i = 0; i < p->m; i++) p->guess_lambda[i] = shift + 0.125 * i - 0.3 * (i % 3);
    for (int i = 0; i < p->nv; i++) p->guess_v[i] = shift - 0.0625 * i;
}

static void test_store_roundtrip(void)
{
    ncp_error err = {0};
    ncp_problem p[2];
    char path[512];
    snprintf(path, sizeof path, "%s/problems.h5", dir);
    ncp_store *st = NULL;
    CHECK_OK(ncp_store_create(path, "warm", "{}", 7, &st, &err), &err);
    for (int k = 0; k < 2; k++) {
        ncp_problem_init(&p[k]);
        CHECK_OK(tutil_random_problem(&p[k], 11 + k, 9, 3, 1, 1, 1, &err), &err);
        free(p[k].name);
        p[k].name = strdup(k ? "without" : "with");
        if (k == 0) fill_guess(&p[k], 0.5); /* the second one has none: an older file's problem */
        CHECK_OK(ncp_store_append(st, &p[k], &err), &err);
    }
    CHECK_OK(ncp_store_close(st, &err), &err);
    ncp_problem *q = NULL;
    int n = 0;
    CHECK_OK(ncp_load_problems(path, &q, &n, &err), &err);
    CHECK(n == 2);
    if (n == 2) {
        CHECK(same_bits(q[0].guess_lambda, p[0].guess_lambda, p[0].m));
        CHECK(same_bits(q[0].guess_v, p[0].guess_v, p[0].nv));
        CHECK(q[1].guess_lambda == NULL && q[1].guess_v == NULL);
        /* a copy keeps them (the capture hands copies on) */
        ncp_problem c;
        ncp_problem_init(&c);
        CHECK_OK(ncp_problem_copy(&c, &q[0], &err), &err);
        CHECK(same_bits(c.guess_lambda, p[0].guess_lambda, p[0].m));
        CHECK(same_bits(c.guess_v, p[0].guess_v, p[0].nv));
        ncp_problem_free(&c);
    }
    ncp_problems_free(q, n);
    /* a non-finite guess is refused with the field's name */
    p[0].guess_v[2] = NAN;
    CHECK(ncp_problem_validate(&p[0], "test", &err) == NCP_ERR_INPUT && strstr(err.msg, "guesses/1/v"));
    ncp_error_clear(&err);
    for (int k = 0; k < 2; k++) ncp_problem_free(&p[k]);
}

static void test_fclib_export(void)
{
    /* 3 contacts and 2 bilateral rows, interleaved: FCLib's l and r take them apart */
    ncp_error err = {0};
    ncp_problem p;
    ncp_problem_init(&p);
    CHECK_OK(tutil_random_problem(&p, 23, 12, 3, 2, 0, 0, &err), &err);
    fill_guess(&p, -0.25);
    char path[512];
    snprintf(path, sizeof path, "%s/guess.hdf5", dir);
    CHECK_OK(ncp_fclib_export(&p, path, &err), &err);
    int m = p.m, nl = 0, nr = 0;
    double *l = calloc((size_t)m, sizeof *l), *r = calloc((size_t)m, sizeof *r);
    double *u = calloc((size_t)m, sizeof *u);
    for (int b = 0; b < p.nblocks && l && r && u; b++) {
        const ncp_block *bk = &p.blocks[b];
        for (int k = 0; k < ncp_block_type_size(bk->type); k++) {
            int i = bk->row + k;
            if (bk->type != NCP_CONTACT) {
                l[nl++] = p.guess_lambda[i];
                continue;
            }
            double s = p.vf[i]; /* u = D lambda + v_f, row i, summed here */
            for (int j = 0; j < m; j++) s += p.D[i + (size_t)j * m] * p.guess_lambda[j];
            u[nr] = s;
            r[nr++] = p.guess_lambda[i];
        }
    }
    CHECK(nl == 2 && nr == 9);
    int ng = 0;
    struct fclib_solution *g = fclib_read_guesses(path, &ng);
    CHECK(g != NULL && ng == 1);
    if (g && ng == 1) {
        CHECK(same_bits(g->v, p.guess_v, p.nv));
        CHECK(same_bits(g->l, l, nl));
        CHECK(same_bits(g->r, r, nr));
        for (int i = 0; i < nr && g->u; i++) CHECK_REL(g->u[i], u[i], 1e-12);
    }
    for (int i = 0; g && i < ng; i++) {
        free(g[i].v);
        free(g[i].u);
        free(g[i].r);
        free(g[i].l);
    }
    free(g);
    /* our reader: lambda = [l; r] (equality rows first, problem.h), v as exported */
    ncp_problem *q = NULL;
    int n = 0;
    CHECK_OK(ncp_load_problems(path, &q, &n, &err), &err);
    if (n == 1 && q[0].guess_lambda && l && r) {
        CHECK(same_bits(q[0].guess_lambda, l, nl));
        CHECK(same_bits(q[0].guess_lambda + nl, r, nr));
        CHECK(same_bits(q[0].guess_v, p.guess_v, p.nv));
    } else {
        CHECK(!"exported guess not read back");
    }
    ncp_problems_free(q, n);
    free(l);
    free(r);
    free(u);
    ncp_problem_free(&p);
}

/* ---------------------------------------------------------------- capture */

/* A ball (radius 0.1, 2 kg) over a plane at height z with velocity (vx, 0, 0); contact margin
 * 0.05, so a ball within 5 cm of the plane has a contact row. */
static ncp_scene *ball_scene(double z, double vx, const char *bench)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"name\":\"warm\",\"timestep\":%.17g,\"duration\":1,\"gravity\":[0,0,%.17g],"
             "\"contact\":{\"margin\":0.05},"
             "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]},"
             "{\"name\":\"ball\",\"type\":\"dynamic\",\"mass\":2,\"position\":[0,0,%.17g],"
             "\"velocity\":[%.17g,0,0],\"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]}],"
             "\"benchmark\":%s}", H, -G, z, vx, bench);
    ncp_error err = {0};
    ncp_scene *s = NULL;
    CHECK_OK(ncp_scene_parse(json, "warm.json", ncp_registry_catalog(), &s, &err), &err);
    return s;
}

typedef struct keep_ctx {
    ncp_problem p[8];
    int n;
} keep_ctx;

static int keep(void *ctx, const ncp_problem *p, ncp_error *err)
{
    keep_ctx *k = ctx;
    if (k->n >= 8) return ncp_error_set(err, NCP_ERR_INTERNAL, "test: too many problems");
    ncp_problem_init(&k->p[k->n]);
    int rc = ncp_problem_copy(&k->p[k->n], p, err);
    if (!rc) k->n++;
    return rc;
}

static void keep_free(keep_ctx *k)
{
    for (int i = 0; i < k->n; i++) ncp_problem_free(&k->p[i]);
    k->n = 0;
}

/* Captures the ball scene 3 cm above the plane (it falls 6 mm in 3 steps: the contact row
 * never pushes) into k; the scene is the caller's to free. */
static ncp_scene *capture_ball(double vx, const char *bench, uint64_t seed, keep_ctx *k)
{
    ncp_scene *s = ball_scene(0.13, vx, bench);
    if (!s) return NULL;
    ncp_error err = {0};
    k->n = 0;
    ncp_capture_opts o = {seed, 1, 0, NULL, NULL};
    CHECK_OK(ncp_capture_scene(s, &o, keep, k, &err), &err);
    return s;
}

/* guess_v of the ball (free joint: centre-of-mass velocity, then angular velocity) */
static void check_ball_velocity(const ncp_problem *p, double vx, double vz)
{
    CHECK(p->nv == 6 && p->guess_v && p->guess_lambda);
    if (p->nv != 6 || !p->guess_v) return;
    CHECK_NEAR(p->guess_v[0], vx, 1e-12);
    CHECK_NEAR(p->guess_v[1], 0.0, 1e-12);
    CHECK_NEAR(p->guess_v[2], vz, 1e-12);
    for (int i = 3; i < 6; i++) CHECK_NEAR(p->guess_v[i], 0.0, 1e-12);
}

static void test_capture_freefall(void)
{
    keep_ctx k = {.n = 0};
    ncp_scene *s = capture_ball(0.4,
                                "{\"capture\":\"trajectory\",\"skip\":0,\"every\":1,\"steps\":3,"
                                "\"quick_steps\":3,\"driver\":\"canal\","
                                "\"driver_budget\":{\"tol\":1e-12,\"max_iter\":100}}", 1, &k);
    if (!s) return;
    CHECK(k.n == 3);
    for (int i = 0; i < k.n; i++) {
        CHECK(k.p[i].step == i && k.p[i].ncontacts == 1);
        check_ball_velocity(&k.p[i], 0.4, -G * H * i);
        for (int r = 0; r < k.p[i].m && k.p[i].guess_lambda; r++)
            CHECK_NEAR(k.p[i].guess_lambda[r], 0.0, 1e-12); /* the impulses were zero */
    }
    keep_free(&k);
    ncp_scene_free(s);
}

/* The previous velocity v_prev is not the free velocity A^{-1} b on a sliding step: a solver
 * that takes v0 starts elsewhere, and its first iterate differs between a zero and a velocity
 * start. */
static void check_first_iterate(const char *solver, const ncp_problem *p)
{
    ncp_error err = {0};
    const ncp_solver_desc *s = ncp_solver_find(solver);
    CHECK(s != NULL && p->guess_v != NULL);
    if (!s || !p->guess_v) return;
    ncp_harness_opts ho;
    ncp_harness_opts_default(&ho);
    ho.budget.max_iter = 1;
    ncp_result a, b;
    CHECK_OK(ncp_harness_solve(s, p, NULL, NULL, NULL, &ho, &a, &err), &err);
    CHECK_OK(ncp_harness_solve(s, p, NULL, NULL, p->guess_v, &ho, &b, &err), &err);
    CHECK(a.iterations == 1 && b.iterations == 1 && a.lambda && b.lambda);
    double d = 0.0, scale = 0.0;
    for (int i = 0; a.lambda && b.lambda && i < p->m; i++) {
        d = fmax(d, fabs(a.lambda[i] - b.lambda[i]));
        scale = fmax(scale, fabs(a.lambda[i]));
    }
    CHECK(d > 1e-6 * scale);
    ncp_result_free(&a);
    ncp_result_free(&b);
}

/* ncp_world_step with the capture's driver, recording what each solve is handed and returns. */
typedef struct spy_ctx {
    ncp_step_opts inner;
    int calls;
    int m[8];
    double guess[8][12], got_l0[8][12], answer[8][12];
    int had_l0[8], l0_is_guess[8];
    ncp_problem last; /* a copy of the last step's problem */
} spy_ctx;

static int spy_solve(void *vctx, const ncp_problem *p, const double *lambda0,
                     ncp_step_solve_out *out, ncp_error *err)
{
    spy_ctx *c = vctx;
    int rc = c->inner.solve(c->inner.solve_ctx, p, lambda0, out, err);
    int k = c->calls++;
    if (k < 8 && p->m <= 12) {
        c->m[k] = p->m;
        c->had_l0[k] = lambda0 != NULL;
        c->l0_is_guess[k] = lambda0 && p->guess_lambda && same_bits(lambda0, p->guess_lambda, p->m);
        memcpy(c->guess[k], p->guess_lambda, (size_t)p->m * sizeof(double));
        memcpy(c->answer[k], out->lambda, (size_t)p->m * sizeof(double));
    }
    ncp_problem_free(&c->last);
    ncp_problem_init(&c->last);
    return rc ? rc : ncp_problem_copy(&c->last, p, err);
}

static void test_step_guess_lambda(void)
{
    /* a box resting on the plane, pushed to slide: 4 corner contacts with friction */
    const char *json =
        "{\"name\":\"slide\",\"timestep\":0.01,\"duration\":1,\"gravity\":[0,0,-9.81],"
        "\"contact\":{\"margin\":0.01},"
        "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]},"
        "{\"name\":\"box\",\"type\":\"dynamic\",\"mass\":1,\"position\":[0,0,0.1],"
        "\"velocity\":[0.5,0,0],\"shapes\":[{\"type\":\"box\",\"half_extents\":[0.1,0.1,0.1]}]}],"
        "\"benchmark\":{\"capture\":\"trajectory\",\"steps\":4,\"driver\":\"nsn-nm\","
        "\"driver_budget\":{\"tol\":1e-12,\"max_iter\":100}}}";
    ncp_error err = {0};
    ncp_scene *s = NULL;
    CHECK_OK(ncp_scene_parse(json, "slide.json", ncp_registry_catalog(), &s, &err), &err);
    if (!s) return;
    ncp_driver drv;
    CHECK_OK(ncp_driver_for_scene(s, NULL, NULL, &drv, &err), &err);
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    spy_ctx c;
    memset(&c, 0, sizeof c);
    ncp_problem_init(&c.last);
    ncp_driver_step_opts(&drv, 1, &c.inner);
    ncp_step_opts so = c.inner;
    so.solve = spy_solve;
    so.solve_ctx = &c;
    for (int k = 0; k < 4 && w; k++) {
        ncp_step_info info;
        CHECK_OK(ncp_world_step(w, &so, NULL, NULL, &info, &err), &err);
    }
    CHECK(c.calls == 4);
    double tmax = 0.0;
    for (int k = 0; k < c.calls && k < 4; k++) {
        CHECK(c.m[k] == 12 && c.had_l0[k] && c.l0_is_guess[k]);
        for (int i = 0; i < c.m[k]; i++) {
            double want = k ? c.answer[k - 1][i] : 0.0; /* the previous step's, same corner */
            CHECK_NEAR(c.guess[k][i], want, 1e-14 * fmax(1.0, fabs(want)) + 1e-15);
            if (i % 3) tmax = fmax(tmax, fabs(c.guess[k][i]));
        }
    }
    CHECK(tmax > 1e-4); /* sliding: the guess carries friction impulses, not only normals */
    check_first_iterate("canal", &c.last);
    check_first_iterate("subadmm", &c.last);
    ncp_problem_free(&c.last);
    ncp_world_free(w);
    ncp_scene_free(s);
}

static void test_cases_guess(void)
{
    /* cases: no noise, 3 settle steps of free fall inside the margin, 2 configurations x 2
     * wrenches; the settled state's velocity is (0.3, 0, -3 g h) */
    keep_ctx k = {.n = 0};
    ncp_scene *s = capture_ball(0.3,
                                "{\"capture\":\"cases\",\"steps\":4,\"quick_steps\":4,"
                                "\"driver\":\"canal\",\"driver_budget\":{\"tol\":1e-12,\"max_iter\":100},"
                                "\"cases\":{\"configurations\":2,\"wrenches\":2,\"settle_steps\":3,"
                                "\"bodies\":[\"ball\"],\"position_noise\":0,\"rotation_noise\":0,"
                                "\"force\":1,\"torque\":0.1}}", 3, &k);
    if (!s) return;
    ncp_error err = {0};
    CHECK(k.n == 4);
    /* the same world stepped apart, with the same driver */
    ncp_driver drv;
    ncp_world *w = NULL;
    CHECK_OK(ncp_driver_for_scene(s, NULL, NULL, &drv, &err), &err);
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    ncp_step_opts so;
    ncp_driver_step_opts(&drv, 1, &so);
    for (int i = 0; i < 3 && w; i++) CHECK_OK(ncp_world_step(w, &so, NULL, NULL, NULL, &err), &err);
    for (int i = 0; i < k.n; i++) {
        CHECK(k.p[i].case_index == i && k.p[i].step == -1);
        check_ball_velocity(&k.p[i], 0.3, -3.0 * G * H);
        if (w) CHECK(same_bits(k.p[i].guess_v, w->v, k.p[i].nv));
        for (int r = 0; r < k.p[i].m && k.p[i].guess_lambda; r++)
            CHECK_NEAR(k.p[i].guess_lambda[r], 0.0, 1e-12); /* the settle steps' impulses: 0 */
    }
    ncp_world_free(w);
    keep_free(&k);
    ncp_scene_free(s);
}

/* ---------------------------------------------------------------- --warm-start */

/* Solvers on the primal form that say what they were handed: one iterate (lambda = 0), then
 * status failed unless handed v0 = guess_v (spy_v), lambda0 = guess_lambda (spy_l). */
static int spy_run(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, int ok)
{
    ncp_run_setup_done(run);
    ncp_zero(in->prob->m, out->lambda);
    ncp_run_iterate(run, 1, out->lambda, NULL);
    out->iterations = 1;
    if (!ok) out->status = NCP_STATUS_FAILED;
    return NCP_OK;
}

static int spy_v(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    (void)err;
    const ncp_problem *p = in->prob;
    return spy_run(in, out, run, in->v0 && p->guess_v && same_bits(in->v0, p->guess_v, p->nv));
}

static int spy_l(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    (void)err;
    const ncp_problem *p = in->prob;
    return spy_run(in, out, run,
                   in->lambda0 && p->guess_lambda && same_bits(in->lambda0, p->guess_lambda, p->m));
}

static const ncp_solver_desc SPY_V = {.name = "spy_v", .source = "test",
                                      .summary = "checks its v0", .needs = NCP_NEEDS_PRIMAL,
                                      .file = "tests/test_warm.c", .solve = spy_v, .takes_v0 = 1};
static const ncp_solver_desc SPY_L = {.name = "spy_l", .source = "test",
                                      .summary = "checks its lambda0", .needs = NCP_NEEDS_PRIMAL,
                                      .file = "tests/test_warm.c", .solve = spy_l};

static void test_bench_modes(void)
{
    ncp_pipeline_opts po;
    ncp_pipeline_opts_default(&po);
    CHECK(po.warm_start == NCP_WARM_VELOCITY);
    CHECK(!strcmp(ncp_warm_start_name(NCP_WARM_VELOCITY), "velocity"));
    CHECK(ncp_warm_start_from_name("velocity") == NCP_WARM_VELOCITY &&
          ncp_warm_start_from_name("guess") == NCP_WARM_GUESS &&
          ncp_warm_start_from_name("zero") == NCP_WARM_ZERO && ncp_warm_start_from_name("v") < 0);

    ncp_error err = {0};
    ncp_problem p[3];
    for (int k = 0; k < 3; k++) {
        ncp_problem_init(&p[k]);
        CHECK_OK(tutil_random_problem(&p[k], 31 + k, 8, 2, 0, 0, 0, &err), &err);
        char nm[16];
        snprintf(nm, sizeof nm, "p%d", k);
        free(p[k].name);
        p[k].name = strdup(nm);
        if (k < 2) fill_guess(&p[k], 0.1 * (k + 1)); /* p2 has no guess */
        /* every contact approaching (u_n < 0 at lambda = 0): no solve converges at iterate 1,
         * so the status is the spy's (v_f = J A^{-1} b + e moves with e) */
        for (int b = 0; b < p[k].nblocks; b++)
            if (p[k].blocks[b].type == NCP_CONTACT) {
                p[k].e[p[k].blocks[b].row] -= 10.0;
                p[k].vf[p[k].blocks[b].row] -= 10.0;
            }
    }
    ncp_harness_opts ho;
    ncp_harness_opts_default(&ho);
    const ncp_solver_desc *solvers[2] = {&SPY_V, &SPY_L};
    const int modes[3] = {NCP_WARM_ZERO, NCP_WARM_VELOCITY, NCP_WARM_GUESS};
    for (int mi = 0; mi < 3; mi++) {
        char out[512];
        snprintf(out, sizeof out, "%s/bench%d", dir, mi);
        CHECK(mkdir(out, 0700) == 0);
        ncp_bench_opts bo;
        memset(&bo, 0, sizeof bo);
        bo.solvers = solvers;
        bo.nsolvers = 2;
        bo.budget.tol = 1e-8;
        bo.budget.max_iter = 10;
        bo.stop_metric = ho.stop_metric;
        bo.jobs = 1;
        bo.out_dir = out;
        bo.scene_name = "warm";
        bo.source = "test";
        bo.warm_start = modes[mi];
        ncp_bench_summary *sum = calloc(1, sizeof *sum);
        if (!sum) continue;
        CHECK_OK(ncp_bench_run(p, 3, &bo, sum, &err), &err);
        const ncp_solver_summary *sv = &sum->solvers[0], *sl = &sum->solvers[1];
        CHECK(sum->nsolvers == 2 && sv->problems == 3 && sl->problems == 3);
        CHECK(sl->converged == 0 && sv->converged == 0);
        if (modes[mi] == NCP_WARM_ZERO) {
            CHECK(sv->failed == 3 && sl->failed == 3);
            CHECK(sv->warm_velocity == 0 && sv->warm_guess == 0);
        } else if (modes[mi] == NCP_WARM_VELOCITY) {
            /* v0 and no lambda0 on the two with a guess; the third starts from zero. Only the
             * solver that takes v0 (takes_v0) counts as handed it */
            CHECK(sv->failed == 1 && sl->failed == 3);
            CHECK(sv->warm_velocity == 2 && sl->warm_velocity == 0 && sv->warm_guess == 0);
        } else {
            CHECK(sv->failed == 1 && sl->failed == 1);
            CHECK(sv->warm_velocity == 0 && sv->warm_guess == 2 && sl->warm_guess == 2);
        }
        free(sum);
    }
    for (int k = 0; k < 3; k++) ncp_problem_free(&p[k]);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/ncp_test_warm_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_store_roundtrip();
    test_fclib_export();
    test_capture_freefall();
    test_step_guess_lambda();
    test_cases_guess();
    test_bench_modes();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return tcheck_exit("warm");
}
