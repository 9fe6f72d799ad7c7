/* Tasks under real-time budgets (bench/task.h, the scene's "task" section): strict parsing with
 * file and JSON path in every message; criteria against analytic states and trajectories (a
 * block sliding down an incline travels 1/2 a t^2, a dropped box comes to rest upright where
 * it was dropped); the budget bounds each step's solve (a budget below any solve's setup time
 * makes every step stop at the budget, and the simulation still goes on with the current
 * impulses); steps.csv as written reads back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/task.h"
#include "core/spatial.h"
#include "scene/scene.h"
#include "sim/kinematics.h"
#include "sim/world.h"
#include "solve/solver.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "util/csv.h"
#include "util/fsutil.h"

/* ---- parsing ---- */

#define HEAD "{\"name\":\"t\",\"timestep\":0.01,\"duration\":0.1,"
#define BODIES "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]}," \
    "{\"name\":\"box\",\"type\":\"dynamic\",\"mass\":1,\"position\":[0,0,0.5]," \
    "\"shapes\":[{\"type\":\"box\",\"position\":[0.1,0,0],\"half_extents\":[0.1,0.1,0.1]}]}," \
    "{\"name\":\"p1\",\"type\":\"dynamic\",\"mass\":1,\"position\":[1,0,0.5],\"shapes\":[{\"type\":\"sphere\",\"radius\":0.05}]}," \
    "{\"name\":\"p2\",\"type\":\"dynamic\",\"mass\":1,\"position\":[1.2,0,0.5],\"shapes\":[{\"type\":\"sphere\",\"radius\":0.05}]}," \
    "{\"name\":\"p3\",\"type\":\"dynamic\",\"mass\":1,\"position\":[1.4,0,0.5],\"shapes\":[{\"type\":\"sphere\",\"radius\":0.05}]}]"
#define SCENE(task) HEAD BODIES ",\"task\":" task "}"
#define CRIT(c) "{\"step_budget_ms\":1,\"criteria\":[" c "]}"

typedef struct broken {
    const char *json;
    const char *expect;
} broken;

static const broken cases[] = {
    {SCENE("[]"), "t.json: task: must be an object"},
    {SCENE("{\"criteria\":[{\"type\":\"penetration\",\"max\":1}]}"), "t.json: task.step_budget_ms: missing"},
    {SCENE("{\"step_budget_ms\":0,\"criteria\":[{\"type\":\"penetration\",\"max\":1}]}"),
     "t.json: task.step_budget_ms: must be a positive number in ms"},
    {SCENE("{\"step_budget_ms\":1,\"criteria\":[],\"foo\":1}"), "t.json: task.foo: unknown key (expected one of: description, step_budget_ms"},
    {SCENE("{\"step_budget_ms\":1}"), "t.json: task.criteria: missing"},
    {SCENE("{\"step_budget_ms\":1,\"criteria\":[]}"), "t.json: task.criteria: must be a non-empty array"},
    {SCENE("{\"step_budget_ms\":1,\"solvers\":[\"pgs\",\"nope\"],\"criteria\":[{\"type\":\"penetration\",\"max\":1}]}"),
     "t.json: task.solvers[1]: unknown solver \"nope\""},
    {SCENE("{\"step_budget_ms\":1,\"solvers\":[\"pgs\",\"pgs\"],\"criteria\":[{\"type\":\"penetration\",\"max\":1}]}"),
     "t.json: task.solvers[1]: solver \"pgs\" is listed twice"},
    {SCENE(CRIT("{\"type\":\"teleport\",\"body\":\"box\"}")), "t.json: task.criteria[0].type: must be one of"},
    {SCENE(CRIT("{\"type\":\"penetration\",\"max\":1},{\"type\":\"speed\",\"body\":\"boxx\",\"max\":1}")),
     "t.json: task.criteria[1].body: unknown body \"boxx\""},
    {SCENE(CRIT("{\"type\":\"speed\",\"max\":1}")), "t.json: task.criteria[0].body: missing"},
    {SCENE(CRIT("{\"type\":\"speed\",\"body\":\"box\",\"max\":1,\"min\":0}")), "t.json: task.criteria[0].min: unknown key (expected one of: type, body, max)"},
    {SCENE(CRIT("{\"type\":\"displacement\",\"body\":\"box\",\"axis\":[1,0,0]}")),
     "t.json: task.criteria[0].min: missing (a displacement criterion needs min, max or both"},
    {SCENE(CRIT("{\"type\":\"displacement\",\"body\":\"box\",\"axis\":[0,0,0],\"min\":1}")),
     "t.json: task.criteria[0].axis: must be a non-zero vector"},
    {SCENE(CRIT("{\"type\":\"displacement\",\"body\":\"box\",\"axis\":[1,0,0],\"min\":2,\"max\":1}")),
     "t.json: task.criteria[0].max: must be >= min"},
    {SCENE(CRIT("{\"type\":\"position\",\"body\":\"box\",\"target\":[0,0],\"tolerance\":1}")),
     "t.json: task.criteria[0].target: must be an array of 3"},
    {SCENE(CRIT("{\"type\":\"upright\",\"body\":\"box\",\"axis\":[0,0,1],\"world\":[0,0,1],\"max_angle\":-1}")),
     "t.json: task.criteria[0].max_angle: must be a non-negative number in rad"},
    {SCENE(CRIT("{\"type\":\"in_region\",\"prefix\":\"q\",\"min\":[0,0,0],\"max\":[1,1,1]}")),
     "t.json: task.criteria[0].prefix: no body name starts with \"q\""},
    {SCENE(CRIT("{\"type\":\"in_region\",\"prefix\":\"p\",\"bodies\":[\"p1\"],\"min\":[0,0,0],\"max\":[1,1,1]}")),
     "t.json: task.criteria[0].prefix: give either bodies or prefix, not both"},
    {SCENE(CRIT("{\"type\":\"in_region\",\"bodies\":[\"p1\",\"px\"],\"min\":[0,0,0],\"max\":[1,1,1]}")),
     "t.json: task.criteria[0].bodies[1]: unknown body \"px\""},
    {SCENE(CRIT("{\"type\":\"in_region\",\"bodies\":[\"p1\"],\"min\":[0,0,2],\"max\":[1,1,1]}")),
     "t.json: task.criteria[0].max[2]: must be >= min[2]"},
    {SCENE(CRIT("{\"type\":\"in_region\",\"bodies\":[\"p1\"],\"min\":[0,0,0],\"max\":[1,1,1],\"fraction\":1.5}")),
     "t.json: task.criteria[0].fraction: must be a number in [0, 1]"},
    {SCENE(CRIT("{\"type\":\"penetration\"}")), "t.json: task.criteria[0].max: missing"},
};

static void test_parse_errors(void)
{
    const ncp_solver_catalog *cat = ncp_registry_catalog();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ncp_scene *s = NULL;
        ncp_error err = {0};
        int rc = ncp_scene_parse(cases[i].json, "t.json", cat, &s, &err);
        CHECK(rc == NCP_ERR_INPUT);
        CHECK(s == NULL);
        if (!strstr(err.msg, cases[i].expect)) {
            CHECK(!"message names file and path");
            fprintf(stderr, "  case %zu: want \"%s\"\n  got  \"%s\"\n", i, cases[i].expect, err.msg);
        }
        ncp_scene_free(s);
    }
}

static const char *GOOD_TASK = SCENE(
    "{\"description\":\"d\",\"step_budget_ms\":0.5,\"solvers\":[\"canal\",\"pgs\"],\"tol\":1e-6,\"max_iter\":7,"
    "\"criteria\":["
    "{\"type\":\"displacement\",\"body\":\"box\",\"axis\":[2,0,0],\"min\":0.25,\"max\":0.35},"
    "{\"type\":\"position\",\"body\":\"box\",\"target\":[0.3,0,0.5],\"tolerance\":0.001},"
    "{\"type\":\"upright\",\"body\":\"box\",\"axis\":[0,0,3],\"world\":[0,0,1],\"max_angle\":0.19},"
    "{\"type\":\"in_region\",\"prefix\":\"p\",\"min\":[0.9,-0.1,0.4],\"max\":[1.3,0.1,0.6],\"fraction\":0.6},"
    "{\"type\":\"penetration\",\"max\":0.001},"
    "{\"type\":\"speed\",\"body\":\"box\",\"max\":0.04}]}");

static void test_parse_good(void)
{
    ncp_scene *s = NULL;
    ncp_error err = {0};
    CHECK_OK(ncp_scene_parse(GOOD_TASK, "t.json", ncp_registry_catalog(), &s, &err), &err);
    if (!s) return;
    const ncp_task_cfg *t = ncp_scene_task(s);
    CHECK(t != NULL);
    if (t) {
        CHECK(strcmp(t->description, "d") == 0);
        CHECK(t->step_budget_ms == 0.5 && t->budget.time_ms == 0.5);
        CHECK(t->budget.tol == 1e-6 && t->budget.max_iter == 7);
        CHECK(t->nsolvers == 2 && strcmp(t->solvers[1], "pgs") == 0);
        CHECK(t->ncriteria == 6);
        CHECK(t->criteria[0].type == NCP_CRIT_DISPLACEMENT && t->criteria[0].axis[0] == 1.0);
        CHECK(t->criteria[0].has_min && t->criteria[0].has_max);
        CHECK(t->criteria[2].axis[2] == 1.0); /* normalised */
        CHECK(t->criteria[3].nbodies == 3);   /* p1, p2, p3 by prefix */
        CHECK(strcmp(t->criteria[0].label, "criteria[0] displacement box") == 0);
    }
    ncp_scene_free(s);
    /* a scene without a task section has none */
    CHECK_OK(ncp_scene_parse(HEAD BODIES "}", "t.json", ncp_registry_catalog(), &s, &err), &err);
    if (s) CHECK(ncp_scene_task(s) == NULL);
    ncp_scene_free(s);
}

/* ---- criteria on an analytic state ---- */

static void test_evaluate_state(void)
{
    ncp_scene *s = NULL;
    ncp_error err = {0};
    CHECK_OK(ncp_scene_parse(GOOD_TASK, "t.json", ncp_registry_catalog(), &s, &err), &err);
    if (!s) return;
    const ncp_task_cfg *t = ncp_scene_task(s);
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    if (!w) {
        ncp_scene_free(s);
        return;
    }
    int box = ncp_world_find_body(w, "box"), p3 = ncp_world_find_body(w, "p3");
    double origin0[3 * 5];
    for (int b = 0; b < 5; b++) ncp_task_body_origin(w, b, origin0 + 3 * b);
    /* the box's centre of mass is its shape's centre, 0.1 m along its x axis from the origin */
    CHECK_NEAR(origin0[3 * box + 0], 0.0, 1e-14);
    CHECK_NEAR(origin0[3 * box + 2], 0.5, 1e-14);
    /* the box turned by th about y, its frame origin moved to (0.3, 0, 0.5), moving at 0.03 m/s;
     * the COM is then origin + R_y(th) (0.1, 0, 0) = origin + (0.1 cos th, 0, -0.1 sin th) */
    double th = 0.15, q[4], com[3] = {0.3 + 0.1 * cos(th), 0.0, 0.5 - 0.1 * sin(th)};
    double vel[3] = {0.0, 0.03, 0.0}, zero[3] = {0, 0, 0}, yaxis[3] = {0, 1, 0};
    ncp_quat_from_axis_angle(yaxis, th, q);
    ncp_world_set_body_state(w, box, com, q, vel, zero);
    double far[3] = {3.0, 0.0, 0.5};
    ncp_world_set_body_state(w, p3, far, NULL, NULL, NULL); /* 2 of 3 particles stay in the box */
    ncp_world_kinematics(w);
    ncp_task_check k[6];
    int all = ncp_task_evaluate(t, origin0, w, 0.0005, k);
    CHECK_NEAR(k[0].value, 0.3, 1e-12);       /* displacement of the frame origin along x */
    CHECK(k[0].pass && k[0].lo == 0.25 && k[0].hi == 0.35);
    CHECK_NEAR(k[1].value, 0.0, 1e-12);       /* origin exactly on the target */
    CHECK(k[1].pass);
    CHECK_NEAR(k[2].value, th, 1e-12);        /* body z tilted by th from world z */
    CHECK(k[2].pass);
    CHECK_NEAR(k[3].value, 2.0 / 3.0, 1e-15);
    CHECK(k[3].pass);                         /* 2/3 >= 0.6 */
    CHECK(k[4].value == 0.0005 && k[4].pass);
    CHECK_NEAR(k[5].value, 0.03, 1e-14);
    CHECK(k[5].pass);
    CHECK(all == 1);
    /* past each bound: every criterion fails */
    th = 0.2;
    ncp_quat_from_axis_angle(yaxis, th, q);
    double com2[3] = {0.4 + 0.1 * cos(th), 0.0, 0.5 - 0.1 * sin(th)}, vel2[3] = {0.05, 0, 0};
    ncp_world_set_body_state(w, box, com2, q, vel2, zero);
    double far2[3] = {3.0, 0.0, 0.5};
    ncp_world_set_body_state(w, ncp_world_find_body(w, "p2"), far2, NULL, NULL, NULL);
    ncp_world_kinematics(w);
    all = ncp_task_evaluate(t, origin0, w, 0.002, k);
    CHECK_NEAR(k[0].value, 0.4, 1e-12);
    CHECK_NEAR(k[1].value, 0.1, 1e-12);
    CHECK_NEAR(k[2].value, 0.2, 1e-12);
    CHECK_NEAR(k[3].value, 1.0 / 3.0, 1e-15);
    CHECK_NEAR(k[5].value, 0.05, 1e-14);
    for (int i = 0; i < 6; i++) CHECK(!k[i].pass);
    CHECK(all == 0);
    ncp_world_free(w);
    ncp_scene_free(s);
}

/* ---- criteria on simulated trajectories ---- */

static ncp_scene *load(const char *path)
{
    ncp_scene *s = NULL;
    ncp_error err = {0};
    CHECK_OK(ncp_scene_load(path, ncp_registry_catalog(), &s, &err), &err);
    return s;
}

/* Replaces the first occurrence of `from` in text by `to` (caller frees). */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) return NULL;
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    if (!out) return NULL;
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

static void test_incline(void)
{
    ncp_scene *s = load("tests/task_incline.json");
    if (!s) return;
    ncp_task_opts o;
    ncp_task_opts_default(&o);
    o.step_budget_ms = 1e4; /* no practical limit: the converged trajectory */
    ncp_task_result r;
    ncp_error err = {0};
    CHECK_OK(ncp_task_run(s, "nsn-nm", &o, &r, &err), &err);
    /* a = g (sin th - mu cos th) down the slope; 0.5 s = 120 steps */
    double th = 0.3, a = 9.81 * (sin(th) - 0.2 * cos(th)), T = 0.5;
    CHECK(r.completed && !r.failed && r.nsteps == 120 && r.steps_planned == 120);
    CHECK_REL(r.checks[0].value, 0.5 * a * T * T, 0.015); /* the step's O(h/T) = 0.8 % */
    CHECK(r.checks[0].pass && r.checks[1].pass && r.checks[2].pass && r.checks[3].pass);
    CHECK(r.success == 1);
    CHECK(r.max_penetration < 1e-6);
    CHECK(r.nsolves == 120 && r.over_budget == 0 && r.timeouts == 0);
    for (int k = 0; k < r.nsteps; k++) {
        CHECK(r.steps[k].contacts == 4 && r.steps[k].rows == 12);
        CHECK(r.steps[k].status == NCP_STATUS_CONVERGED && r.steps[k].iterations >= 1);
        CHECK(r.steps[k].stop_value <= 1e-10);
        CHECK(r.steps[k].solve_ms > 0.0 && r.steps[k].wall_ms >= r.steps[k].solve_ms);
        CHECK_NEAR(r.steps[k].t, k * ncp_scene_timestep(s), 1e-12);
    }
    CHECK(r.solve_p50 <= r.solve_p90 && r.solve_p90 <= r.solve_p99 && r.solve_p99 <= r.solve_max);
    double disp = r.checks[0].value;
    /* without a binding time budget a run is deterministic: all but the timing columns agree
     * bit for bit with a second run */
    ncp_task_result r2;
    CHECK_OK(ncp_task_run(s, "nsn-nm", &o, &r2, &err), &err);
    CHECK(r2.nsteps == r.nsteps);
    for (int k = 0; k < r.nsteps && k < r2.nsteps; k++) {
        const ncp_task_step *x = &r.steps[k], *y = &r2.steps[k];
        CHECK(x->t == y->t && x->contacts == y->contacts && x->rows == y->rows);
        CHECK(x->iterations == y->iterations && x->status == y->status);
        CHECK(x->stop_value == y->stop_value && x->al_residual == y->al_residual);
        CHECK(x->penetration == y->penetration);
    }
    CHECK(r2.checks[0].value == disp);
    ncp_task_result_free(&r2);
    ncp_task_result_free(&r);

    /* the same trajectory judged by a bound it misses: the criterion and the task fail */
    char *bad = replaced(ncp_scene_text(s), "\"min\": 0.12, \"max\": 0.14", "\"min\": 0.2");
    CHECK(bad != NULL);
    ncp_scene *s2 = NULL;
    if (bad) CHECK_OK(ncp_scene_parse(bad, "bad.json", ncp_registry_catalog(), &s2, &err), &err);
    if (s2) {
        CHECK_OK(ncp_task_run(s2, "nsn-nm", &o, &r, &err), &err);
        CHECK(r.completed && !r.checks[0].pass && r.checks[1].pass && r.success == 0);
        CHECK_NEAR(r.checks[0].value, disp, 1e-9);
        CHECK(isinf(r.checks[0].hi));
        ncp_task_result_free(&r);
    }
    ncp_scene_free(s2);
    free(bad);

    /* a budget below any solve's setup time: every solve stops at the budget with at most one
     * iteration, and the simulation goes on with the impulses it has (the warm start, zero
     * here), so the block sinks through the incline: the penetration criterion catches it */
    o.step_budget_ms = 1e-6;
    CHECK_OK(ncp_task_run(s, "pgs", &o, &r, &err), &err);
    CHECK(r.completed && !r.failed && r.nsteps == 120);
    CHECK(r.budget_ms == 1e-6);
    int n = 0;
    for (int k = 0; k < r.nsteps; k++) {
        if (r.steps[k].status < 0) continue;
        n++;
        CHECK(r.steps[k].status == NCP_STATUS_TIMEOUT);
        CHECK(r.steps[k].iterations <= 1);
        CHECK(r.steps[k].solve_ms >= r.budget_ms); /* stopped because the budget was spent */
    }
    CHECK(n > 0 && r.timeouts == n && r.over_budget == n && r.nsolves == n);
    CHECK(r.max_penetration > 0.01 && !r.checks[3].pass && r.success == 0);
    ncp_task_result_free(&r);

    /* interrupted before the first step: nothing simulated, no verdict */
    volatile int stop = 1;
    o.interrupt = &stop;
    CHECK_OK(ncp_task_run(s, "pgs", &o, &r, &err), &err);
    CHECK(r.interrupted && r.nsteps == 0 && !r.completed && !r.success);
    ncp_task_result_free(&r);
    ncp_scene_free(s);
}

/* A box dropped flat from 5 cm comes to rest upright where it fell, its centre at its half
 * height. */
static const char *DROP =
    "{\"name\":\"drop\",\"timestep\":0.004166666666666667,\"duration\":1.0,"
    "\"contact\":{\"margin\":0.005,\"erp\":0.2,\"max_recovery_velocity\":0.5},"
    "\"materials\":[{\"name\":\"m\",\"friction\":0.5}],"
    "\"bodies\":[{\"name\":\"ground\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\",\"material\":\"m\"}]},"
    "{\"name\":\"box\",\"type\":\"dynamic\",\"mass\":1,\"position\":[0.2,-0.1,0.15],"
    "\"shapes\":[{\"type\":\"box\",\"half_extents\":[0.1,0.1,0.1],\"material\":\"m\"}]}],"
    "\"benchmark\":{\"driver\":\"nsn-nm\",\"driver_budget\":{\"tol\":1e-10,\"max_iter\":100},\"quick_steps\":3},"
    "\"task\":{\"step_budget_ms\":1e4,\"criteria\":["
    "{\"type\":\"speed\",\"body\":\"box\",\"max\":1e-3},"
    "{\"type\":\"upright\",\"body\":\"box\",\"axis\":[0,0,1],\"world\":[0,0,1],\"max_angle\":1e-3},"
    "{\"type\":\"position\",\"body\":\"box\",\"target\":[0.2,-0.1,0.1],\"tolerance\":1e-3},"
    "{\"type\":\"displacement\",\"body\":\"box\",\"axis\":[0,0,-1],\"min\":0.049,\"max\":0.051},"
    "{\"type\":\"penetration\",\"max\":1e-3}]}}";

static void test_drop(const char *dir)
{
    ncp_scene *s = NULL;
    ncp_error err = {0};
    CHECK_OK(ncp_scene_parse(DROP, "drop.json", ncp_registry_catalog(), &s, &err), &err);
    if (!s) return;
    ncp_task_opts o;
    ncp_task_opts_default(&o);
    ncp_task_result r[2];
    const char *solvers[2] = {"nsn-nm", "pgs"};
    CHECK_OK(ncp_task_run_many(s, solvers, 2, &o, 2, r, &err), &err);
    for (int i = 0; i < 2; i++) {
        CHECK(strcmp(r[i].solver, solvers[i]) == 0);
        CHECK(r[i].completed && r[i].nsteps == 240);
        for (int k = 0; k < 5; k++) CHECK(r[i].checks[k].pass);
        CHECK(r[i].success == 1);
        CHECK(r[i].checks[0].value < 1e-3);
        CHECK(r[i].checks[2].value < 1e-3);
        /* free fall of 5 cm, then contacts: 0 rows for the first steps */
        CHECK(r[i].steps[0].rows == 0 && r[i].steps[0].status == -1 && isnan(r[i].steps[0].al_residual));
        CHECK(isnan(r[i].steps[0].active));
        CHECK(r[i].steps[r[i].nsteps - 1].contacts == 4);
        /* at rest flat on the ground the four corners share the weight (symmetry), so all four
         * carry load */
        CHECK(r[i].steps[r[i].nsteps - 1].active == 4);
        CHECK(r[i].active_max == 4 && r[i].active_p50 >= 1 && r[i].active_p50 <= 4);
    }
    /* steps.csv reads back: one row per solver x step, the columns as documented */
    CHECK_OK(ncp_task_write(dir, s, r, 2, NULL, 0, &err), &err);
    char path[4200];
    snprintf(path, sizeof path, "%s/steps.csv", dir);
    ncp_csv c;
    static const char *const cols[] = {"solver", "step", "t", "contacts", "rows", "solve_ms",
                                       "wall_ms", "iterations", "status", "stop_metric",
                                       "al_residual", "penetration", "active_contacts",
                                       "kinetic", "potential"};
    if (ncp_csv_open(&c, path, NULL, &err) == NCP_OK) {
        CHECK(c.ncols == 15);
        for (int j = 0; j < 15 && j < c.ncols; j++) CHECK(strcmp(c.header[j], cols[j]) == 0);
        int rows = 0, rc;
        while ((rc = ncp_csv_next(&c, &err)) == NCP_OK) {
            int i = rows < 240 ? 0 : 1, k = rows % 240;
            double x;
            CHECK(strcmp(c.field[0], solvers[i]) == 0);
            CHECK(ncp_csv_number(c.field[1], &x) == 0 && x == k);
            CHECK(ncp_csv_number(c.field[5], &x) == 0 && x == r[i].steps[k].solve_ms);
            CHECK(ncp_csv_number(c.field[11], &x) == 0 && x == r[i].steps[k].penetration);
            CHECK(ncp_csv_number(c.field[13], &x) == 0 && x == r[i].steps[k].kinetic && x >= 0);
            CHECK(ncp_csv_number(c.field[14], &x) == 0 && x == r[i].steps[k].potential);
            if (r[i].steps[k].status >= 0)
                CHECK(ncp_csv_number(c.field[12], &x) == 0 && x == r[i].steps[k].active);
            CHECK(strcmp(c.field[8], r[i].steps[k].status < 0 ? "none" : ncp_status_name(r[i].steps[k].status)) == 0);
            rows++;
        }
        CHECK(rc == NCP_CSV_END);
        CHECK(rows == 480);
        ncp_csv_close(&c);
    } else {
        CHECK(!"steps.csv opens");
    }
    snprintf(path, sizeof path, "%s/task.json", dir);
    CHECK(ncp_file_exists(path));
    snprintf(path, sizeof path, "%s/task.md", dir);
    CHECK(ncp_file_exists(path));
    for (int i = 0; i < 2; i++) ncp_task_result_free(&r[i]);
    ncp_scene_free(s);
}

/* An interrupt keeps the finished solvers (completed or failed), in order. */
static void test_keep_finished(void)
{
    ncp_task_result r[4];
    memset(r, 0, sizeof r);
    const char *names[4] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) {
        snprintf(r[i].solver, sizeof r[i].solver, "%s", names[i]);
        r[i].steps = calloc(2, sizeof *r[i].steps);
        r[i].nsteps = 1;
    }
    r[0].completed = 1;
    r[1].interrupted = 1; /* cut short */
    r[2].failed = 1;      /* its simulation failed: a verdict, kept */
    /* r[3]: never finished (neither completed nor failed) */
    int k = ncp_task_keep_finished(r, 4);
    CHECK(k == 2);
    CHECK(strcmp(r[0].solver, "a") == 0 && strcmp(r[1].solver, "c") == 0);
    CHECK(r[2].steps == NULL && r[3].steps == NULL);
    for (int i = 0; i < 4; i++) ncp_task_result_free(&r[i]);
}

int main(void)
{
    char dir[] = "/tmp/ncp_test_task_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_parse_errors();
    test_parse_good();
    test_evaluate_state();
    test_incline();
    test_drop(dir);
    test_keep_finished();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return tcheck_exit("task");
}
