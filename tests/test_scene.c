/* Scene files: strict validation with precise messages, the shipped scenes, and deterministic
 * capture (the same seed gives bit-identical problems). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "scene/scene.h"
#include "tcheck.h"
#include "sim/world.h"
#include "solvers/registry.h"
#include "capture/capture.h"
#include "scene/ranges.h"
#include "util/json_util.h"

/* A valid scene; the broken variants below replace one piece of it. */
#define HEAD "{\"name\":\"t\",\"timestep\":0.01,\"duration\":1,"
#define GROUND "{\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]}"
#define BALL(shape) "{\"name\":\"b\",\"type\":\"dynamic\",\"mass\":1,\"position\":[0,0,0.1],\"shapes\":[" shape "]}"
#define SPHERE "{\"type\":\"sphere\",\"radius\":0.1}"
#define GOOD HEAD "\"bodies\":[" GROUND "," BALL(SPHERE) "]}"

typedef struct broken {
    const char *what;
    const char *json;
    const char *expect; /* substring of the message: the JSON path and what is wrong */
} broken;

static const broken cases[] = {
    {"malformed JSON (double comma; cJSON stops just after it)", HEAD ",\"bodies\":[]}", "test.json: line 1, column 43: malformed JSON"},
    {"malformed JSON (missing comma, line 3)", "{\n  \"name\": \"t\"\n  \"timestep\": 0.01\n}", "line 3, column 3"},
    {"empty text", "", "malformed JSON"},
    {"top level not an object", "[1, 2]", "(top level): must be an object, got an array of 2 elements"},
    {"wrong type", "{\"name\":\"t\",\"timestep\":\"fast\",\"duration\":1,\"bodies\":[" GROUND "]}",
     "test.json: timestep: must be a positive number, got the string \"fast\""},
    {"missing required field", HEAD "\"gravity\":[0,0,-9.81]}", "test.json: bodies: missing (expected a non-empty array of bodies)"},
    {"missing duration", "{\"name\":\"t\",\"timestep\":0.01,\"bodies\":[" GROUND "]}", "test.json: duration: missing"},
    {"both duration and steps", "{\"name\":\"t\",\"timestep\":0.01,\"duration\":1,\"steps\":3,\"bodies\":[" GROUND "]}",
     "steps: give either duration or steps, not both"},
    {"non-integer steps", "{\"name\":\"t\",\"timestep\":0.01,\"steps\":2.5,\"bodies\":[" GROUND "]}",
     "steps: must be an integer >= 1, got 2.5"},
    {"unknown top-level key (typo)", "{\"name\":\"t\",\"timestpe\":0.01,\"duration\":1,\"bodies\":[" GROUND "]}",
     "test.json: timestpe: unknown key (expected one of: name, description, timestep"},
    {"unknown nested key (typo)", HEAD "\"bodies\":[" GROUND "," BALL("{\"type\":\"sphere\",\"radus\":0.1}") "]}",
     "test.json: bodies[1].shapes[0].radus: unknown key (expected one of: type, position"},
    {"key of another shape type", HEAD "\"bodies\":[" GROUND "," BALL("{\"type\":\"box\",\"radius\":0.1}") "]}",
     "bodies[1].shapes[0].radius: unknown key"},
    {"duplicate key", "{\"name\":\"t\",\"name\":\"u\",\"timestep\":0.01,\"duration\":1,\"bodies\":[" GROUND "]}",
     "test.json: name: duplicate key"},
    {"negative radius", HEAD "\"bodies\":[" GROUND "," BALL("{\"type\":\"sphere\",\"radius\":-1}") "]}",
     "test.json: bodies[1].shapes[0].radius: must be a positive number, got -1"},
    {"missing radius", HEAD "\"bodies\":[" GROUND "," BALL("{\"type\":\"sphere\"}") "]}",
     "bodies[1].shapes[0].radius: missing (expected a positive number)"},
    {"negative half extent", HEAD "\"bodies\":[" GROUND "," BALL("{\"type\":\"box\",\"half_extents\":[0.1,-0.2,0.1]}") "]}",
     "bodies[1].shapes[0].half_extents[1]: must be a positive number, got -0.2"},
    {"half extents of wrong length", HEAD "\"bodies\":[" GROUND "," BALL("{\"type\":\"box\",\"half_extents\":[0.1,0.2]}") "]}",
     "bodies[1].shapes[0].half_extents: must be an array of 3 finite numbers, got an array of 2 elements"},
    {"unknown shape type", HEAD "\"bodies\":[" GROUND "," BALL("{\"type\":\"cylinder\",\"radius\":0.1}") "]}",
     "bodies[1].shapes[0].type: must be one of: plane, sphere, capsule, box, sdf; got the string \"cylinder\""},
    {"zero quaternion", HEAD "\"bodies\":[" GROUND ",{\"name\":\"b\",\"type\":\"dynamic\",\"mass\":1,\"quat\":[0,0,0,0],\"shapes\":[" SPHERE "]}]}",
     "bodies[1].quat: must be a non-zero quaternion"},
    {"quat and axis", HEAD "\"bodies\":[" GROUND ",{\"name\":\"b\",\"type\":\"dynamic\",\"mass\":1,\"quat\":[1,0,0,0],\"axis\":[0,0,1],\"angle\":1,\"shapes\":[" SPHERE "]}]}",
     "bodies[1].axis: give the orientation either as quat or as axis and angle"},
    {"axis without angle", HEAD "\"bodies\":[" GROUND ",{\"name\":\"b\",\"type\":\"dynamic\",\"mass\":1,\"axis\":[0,0,1],\"shapes\":[" SPHERE "]}]}",
     "bodies[1].angle: missing"},
    {"negative mass", HEAD "\"bodies\":[" GROUND ",{\"name\":\"b\",\"type\":\"dynamic\",\"mass\":-2,\"shapes\":[" SPHERE "]}]}",
     "bodies[1].mass: must be a positive number, got -2"},
    {"mass and density", HEAD "\"bodies\":[" GROUND ",{\"name\":\"b\",\"type\":\"dynamic\",\"mass\":2,\"density\":3,\"shapes\":[" SPHERE "]}]}",
     "bodies[1].density: give either mass or density, not both"},
    {"dynamic without mass", HEAD "\"bodies\":[" GROUND ",{\"name\":\"b\",\"type\":\"dynamic\",\"shapes\":[" SPHERE "]}]}",
     "bodies[1].mass: missing"},
    {"static with mass", HEAD "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"mass\":1,\"shapes\":[{\"type\":\"plane\"}]}]}",
     "bodies[0].mass: only dynamic bodies take mass"},
    {"unknown body type", HEAD "\"bodies\":[{\"name\":\"g\",\"type\":\"fixed\",\"shapes\":[{\"type\":\"plane\"}]}]}",
     "bodies[0].type: must be one of: static, dynamic; got the string \"fixed\""},
    {"plane on a dynamic body", HEAD "\"bodies\":[" BALL("{\"type\":\"plane\"}") "]}",
     "bodies[0].shapes[0].type: planes are infinite and may only belong to static bodies"},
    {"zero plane normal", HEAD "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\",\"normal\":[0,0,0]}]}]}",
     "bodies[0].shapes[0].normal: must be a non-zero vector"},
    {"no shapes", HEAD "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shapes\":[]}]}",
     "bodies[0].shapes: must be a non-empty array of shapes, got an array of 0 elements"},
    {"duplicate body names", HEAD "\"bodies\":[" GROUND "," GROUND "]}",
     "bodies[1].name: body name \"g\" is already used by bodies[0]"},
    {"unknown material", HEAD "\"bodies\":[" GROUND "," BALL("{\"type\":\"sphere\",\"radius\":0.1,\"material\":\"ice\"}") "]}",
     "bodies[1].shapes[0].material: unknown material \"ice\""},
    {"negative friction", HEAD "\"materials\":[{\"name\":\"ice\",\"friction\":-0.1}],\"bodies\":[" GROUND "]}",
     "materials[0].friction: must be a non-negative number, got -0.10000000000000001"},
    {"material defined twice", HEAD "\"materials\":[{\"name\":\"default\",\"friction\":0.1},{\"name\":\"default\",\"friction\":0.2}],\"bodies\":[" GROUND "]}",
     "materials[1].name: material \"default\" is defined twice"},
    {"unknown pair material", HEAD "\"material_pairs\":[{\"materials\":[\"default\",\"x\"],\"friction\":0.1}],\"bodies\":[" GROUND "]}",
     "material_pairs[0].materials[1]: unknown material \"x\""},
    {"erp out of range", HEAD "\"contact\":{\"erp\":1.5},\"bodies\":[" GROUND "]}",
     "contact.erp: must be a number in [0, 1], got 1.5"},
    {"unknown combine rule", HEAD "\"contact\":{\"friction_combine\":\"avg\"},\"bodies\":[" GROUND "]}",
     "contact.friction_combine: must be one of: min, max, mean, geometric"},
    {"bad name", "{\"name\":\"a/b\",\"timestep\":0.01,\"duration\":1,\"bodies\":[" GROUND "]}",
     "name: must use only letters, digits"},
    {"unknown solver in benchmark.solvers", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"solvers\":[\"pgs\",\"pgz\"]}}",
     "test.json: benchmark.solvers[1]: unknown solver \"pgz\" (did you mean pgs?) (expected one of: "},
    {"unknown driver", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"driver\":\"newton\"}}",
     "benchmark.driver: unknown solver \"newton\""},
    {"solver listed twice", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"solvers\":[\"pgs\",\"pgs\"]}}",
     "benchmark.solvers[1]: solver \"pgs\" is listed twice"},
    {"unknown benchmark key", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"step\":10}}",
     "benchmark.step: unknown key"},
    {"unknown budget key", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"budget\":{\"tolerance\":1e-6}}}",
     "benchmark.budget.tolerance: unknown key (expected one of: tol, max_iter, budget_ms)"},
    {"negative budget", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"driver_budget\":{\"max_iter\":0}}}",
     "benchmark.driver_budget.max_iter: must be an integer >= 1, got 0"},
    {"too many steps", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"steps\":101}}",
     "benchmark.steps: must be at most 100"},
    {"quick above steps", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"steps\":5,\"quick_steps\":6}}",
     "benchmark.quick_steps: must be at most benchmark.steps (5), got 6"},
    {"cases capture without a free body", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"capture\":\"cases\"}}",
     "benchmark.cases.bodies: the scene has no dynamic free body to apply wrenches to"},
    {"params for an unknown solver", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"params\":{\"sor\":{\"omega\":1}}}}",
     "benchmark.params.sor: unknown solver \"sor\""},
    {"unknown solver parameter", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"params\":{\"pgs\":{\"omgea\":1}}}}",
     "benchmark.params.pgs.omgea: unknown parameter of solver pgs (expected one of: omega"},
    {"parameter of wrong type", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"params\":{\"pgs\":{\"omega\":\"1\"}}}}",
     "benchmark.params.pgs.omega: must be a finite number, got the string \"1\""},
    /* physical ranges (ranges.h), one field of each kind: after the parser's own checks */
    {"position of 1e9 m", HEAD "\"bodies\":[" GROUND ",{\"name\":\"b\",\"type\":\"dynamic\",\"mass\":1,\"position\":[0,0,1e9],\"shapes\":[" SPHERE "]}]}",
     "test.json: bodies[1].position[2]: 1e+09 is outside [-10000, 10000] m (expected a position in m)"},
    {"mass of 1e12 kg", HEAD "\"bodies\":[" GROUND ",{\"name\":\"b\",\"type\":\"dynamic\",\"mass\":1e12,\"shapes\":[" SPHERE "]}]}",
     "bodies[1].mass: 1e+12 is outside (0, 1e+09] kg"},
    {"density of osmium x 1000", HEAD "\"bodies\":[" GROUND ",{\"name\":\"b\",\"type\":\"dynamic\",\"density\":2.26e7,\"shapes\":[" SPHERE "]}]}",
     "bodies[1].density: 2.26e+07 is outside (0, 100000] kg/m^3"},
    {"friction 1e308", HEAD "\"materials\":[{\"name\":\"ice\",\"friction\":1e308}],\"bodies\":[" GROUND "]}",
     "materials[0].friction: 1e+308 is outside [0, 1000] (expected a friction coefficient)"},
    {"pair friction 2000", HEAD "\"material_pairs\":[{\"materials\":[\"default\",\"default\"],\"friction\":2000}],\"bodies\":[" GROUND "]}",
     "material_pairs[0].friction: 2000 is outside [0, 1000]"},
    {"time step of 2 s", "{\"name\":\"t\",\"timestep\":2,\"duration\":10,\"bodies\":[" GROUND "]}",
     "test.json: timestep: 2 is outside (0, 1] s"},
    {"radius of a nanometre", HEAD "\"bodies\":[" GROUND "," BALL("{\"type\":\"sphere\",\"radius\":1e-9}") "]}",
     "bodies[1].shapes[0].radius: 1e-09 is outside [1e-06, 1000] m"},
    {"gravity of 1e5", HEAD "\"gravity\":[0,0,-1e5],\"bodies\":[" GROUND "]}",
     "gravity[2]: -100000 is outside [-1000, 1000] m/s^2"},
    {"velocity above 1 km/s", HEAD "\"bodies\":[" GROUND ",{\"name\":\"b\",\"type\":\"dynamic\",\"mass\":1,\"velocity\":[5e3,0,0],\"shapes\":[" SPHERE "]}]}",
     "bodies[1].velocity[0]: 5000 is outside [-1000, 1000] m/s"},
    {"contact margin of 10 m", HEAD "\"contact\":{\"margin\":10},\"bodies\":[" GROUND "]}",
     "contact.margin: 10 is outside [0, 1] m"},
    {"stiffness of 1e15 N/m", HEAD "\"materials\":[{\"name\":\"x\",\"friction\":0.5,\"stiffness\":1e15}],\"bodies\":[" GROUND "]}",
     "materials[0].stiffness: 1e+15 is outside (0, 1e+12] N/m"},
    {"tolerance above 1", HEAD "\"bodies\":[" GROUND "],\"benchmark\":{\"budget\":{\"tol\":5}}}",
     "benchmark.budget.tol: 5 is outside [0, 1]"},
    {"too many captured steps", "{\"name\":\"t\",\"timestep\":0.01,\"steps\":5000000,\"bodies\":[" GROUND "],\"benchmark\":{\"steps\":2000000}}",
     "benchmark.steps: 2e+06 is outside [1, 1e+06]"},
};

static void test_validation(void)
{
    ncp_error err;
    ncp_scene *s = NULL;
    /* the base text is valid: each broken case differs from it in one place */
    ncp_error_clear(&err);
    CHECK_OK(ncp_scene_parse(GOOD, "test.json", ncp_registry_catalog(), &s, &err), &err);
    ncp_scene_free(s);
    int n = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < n; i++) {
        ncp_error_clear(&err);
        s = NULL;
        int rc = ncp_scene_parse(cases[i].json, "test.json", ncp_registry_catalog(), &s, &err);
        CHECK(rc == NCP_ERR_INPUT);
        CHECK(err.code == NCP_ERR_INPUT);
        CHECK(s == NULL);
        CHECK(strncmp(err.msg, "test.json: ", 11) == 0);
        if (!strstr(err.msg, cases[i].expect)) {
            tcheck_failures++;
            fprintf(stderr, "case \"%s\": message\n  %s\nlacks\n  %s\n", cases[i].what, err.msg, cases[i].expect);
        }
        tcheck_checks++;
        ncp_scene_free(s);
    }
    printf("validation: %d broken scenes rejected, e.g.\n  %s\n", n, err.msg);

    /* files: a missing file and a malformed one name the file */
    ncp_error_clear(&err);
    CHECK(ncp_scene_load("/nonexistent/scene.json", ncp_registry_catalog(), &s, &err) == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, "/nonexistent/scene.json: cannot open scene file") != NULL);
    char path[] = "/tmp/ncp_test_scene_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        const char *text = "{\n  \"name\": \"t\",\n  \"timestep\": 0.01\n  \"duration\": 1\n}\n";
        CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
        close(fd);
        ncp_error_clear(&err);
        CHECK(ncp_scene_load(path, ncp_registry_catalog(), &s, &err) == NCP_ERR_INPUT);
        char expect[128];
        snprintf(expect, sizeof expect, "%s: line 4, column 3: malformed JSON", path);
        CHECK(strstr(err.msg, expect) != NULL);
        unlink(path);
    }
}

/* Pair friction: combine rules, the pair table, the implicit default material, and defaults. */
static void test_materials(void)
{
    const char *rules[] = {"min", "max", "mean", "geometric"};
    const double expect[] = {0.2, 0.8, 0.5, 0.4};
    for (int r = 0; r < 4; r++) {
        char json[1024];
        snprintf(json, sizeof json,
                 HEAD "\"contact\":{\"friction_combine\":\"%s\"},"
                 "\"materials\":[{\"name\":\"a\",\"friction\":0.2},{\"name\":\"b\",\"friction\":0.8},"
                 "{\"name\":\"c\",\"friction\":0.3}],"
                 "\"material_pairs\":[{\"materials\":[\"c\",\"a\"],\"friction\":0.9}],"
                 "\"bodies\":[" GROUND "]}", rules[r]);
        ncp_error err = {0};
        ncp_scene *s = NULL;
        CHECK_OK(ncp_scene_parse(json, "test.json", ncp_registry_catalog(), &s, &err), &err);
        if (!s) continue;
        const ncp_model *m = ncp_scene_model(s);
        CHECK(m->nmaterials == 4 && strcmp(m->materials[0].name, "default") == 0);
        int n = m->nmaterials;
        CHECK_NEAR(m->pair_friction[1 * n + 2], expect[r], 1e-15);
        CHECK_NEAR(m->pair_friction[2 * n + 1], expect[r], 1e-15);
        CHECK(m->pair_friction[3 * n + 1] == 0.9 && m->pair_friction[1 * n + 3] == 0.9); /* table wins */
        CHECK(m->materials[0].friction == 0.5);
        /* documented defaults */
        CHECK(m->margin == 0.005 && m->erp == 0.2 && m->max_recovery == 1.0);
        CHECK(m->gravity[0] == 0.0 && m->gravity[1] == 0.0 && m->gravity[2] == -9.81);
        CHECK(m->nsteps == 100 && m->h == 0.01);
        const ncp_bench_cfg *b = ncp_scene_bench(s);
        CHECK(strcmp(b->driver, "pgs") == 0 && b->nsolvers == 0 && b->steps == 100 && b->quick_steps == 10);
        CHECK(b->skip == 0 && b->every == 1 && b->budget.tol == 1e-8 && b->budget.max_iter == 1000 &&
              b->budget.time_ms == 0.0);
        ncp_scene_free(s);
    }
}

static void test_shipped_scenes(void)
{
    const char *names[] = {"box-on-plane", "incline", "sphere-stack"};
    for (int i = 0; i < 3; i++) {
        char path[128];
        snprintf(path, sizeof path, "scenes/%s.json", names[i]);
        ncp_error err = {0};
        ncp_scene *s = NULL;
        CHECK_OK(ncp_scene_load(path, ncp_registry_catalog(), &s, &err), &err);
        if (!s) continue;
        CHECK(strcmp(ncp_scene_name(s), names[i]) == 0);
        CHECK_NEAR(ncp_scene_timestep(s), 1.0 / 240.0, 1e-15);
        const ncp_bench_cfg *b = ncp_scene_bench(s);
        CHECK(strcmp(b->capture, "trajectory") == 0);
        CHECK(strcmp(b->driver, "nsn-nm") == 0);
        /* shipped scenes name no solver list: every registered solver runs on them */
        CHECK(b->nsolvers == 0);
        CHECK(b->steps >= 100 && b->quick_steps >= 1 && b->quick_steps <= 10);
        CHECK(b->every >= 1 && b->skip >= 0);
        CHECK(b->budget.tol > 0 && b->budget.max_iter >= 1);
        /* the text is kept verbatim for /meta */
        CHECK(strstr(ncp_scene_text(s), names[i]) != NULL);
        ncp_scene_free(s);
    }
    /* the sphere stack really has the 1 : 100 : 10000 mass ratio, bottom to top */
    ncp_error err = {0};
    ncp_scene *s = NULL;
    CHECK_OK(ncp_scene_load("scenes/sphere-stack.json", ncp_registry_catalog(), &s, &err), &err);
    if (s) {
        const ncp_model *m = ncp_scene_model(s);
        CHECK(m->nbodies == 4 && m->ndynamic == 3 && m->nv == 18);
        CHECK(m->bodies[1].mass == 1.0 && m->bodies[2].mass == 100.0 && m->bodies[3].mass == 10000.0);
        CHECK(m->bodies[1].pos0[2] < m->bodies[2].pos0[2] && m->bodies[2].pos0[2] < m->bodies[3].pos0[2]);
        ncp_scene_free(s);
    }
    /* the incline is steeper than its friction angle, so the block slides */
    CHECK_OK(ncp_scene_load("scenes/incline.json", ncp_registry_catalog(), &s, &err), &err);
    if (s) {
        const ncp_model *m = ncp_scene_model(s);
        double q0 = m->bodies[0].quat0[0], theta = 2.0 * acos(q0);
        double mu = m->pair_friction[m->shapes[0].material * m->nmaterials + m->shapes[1].material];
        CHECK_NEAR(theta, 0.3, 1e-12);
        CHECK(mu < tan(theta));
        ncp_scene_free(s);
    }
}

/* ---- captures ---- */

typedef struct run {
    int n;
    ncp_problem probs[32];
} run;

static int keep(void *ctx, const ncp_problem *p, ncp_error *err)
{
    run *r = ctx;
    if (r->n >= 32) return ncp_error_set(err, NCP_ERR_INTERNAL, "too many captures");
    return ncp_problem_copy(&r->probs[r->n++], p, err);
}

static int same_d(const double *a, const double *b, size_t n)
{
    return n == 0 || (a && b && memcmp(a, b, n * sizeof(double)) == 0);
}

static int same_i(const int *a, const int *b, size_t n)
{
    return n == 0 || (a && b && memcmp(a, b, n * sizeof(int)) == 0);
}

/* Every array and field of two problems, bit for bit (the seed excepted when ignore_seed). */
static int same_problem(const ncp_problem *a, const ncp_problem *b, int ignore_seed)
{
    int ok = 1;
    size_t nv = (size_t)a->nv, m = (size_t)a->m;
    ok &= strcmp(a->name, b->name) == 0 && strcmp(a->scene, b->scene) == 0 && strcmp(a->driver, b->driver) == 0;
    ok &= a->nv == b->nv && a->m == b->m && a->nblocks == b->nblocks && a->ncontacts == b->ncontacts;
    ok &= a->h == b->h && a->step == b->step && a->case_index == b->case_index;
    ok &= ignore_seed || a->seed == b->seed;
    ok &= a->has_primal == b->has_primal && a->has_dual == b->has_dual;
    if (!ok) return 0;
    for (int i = 0; i < a->nblocks; i++) {
        const ncp_block *x = &a->blocks[i], *y = &b->blocks[i];
        ok &= x->type == y->type && x->row == y->row && x->mu == y->mu && x->k == y->k && x->c == y->c &&
              x->phi == y->phi && x->contact == y->contact;
    }
    for (int i = 0; i < a->ncontacts; i++) {
        const ncp_contact_info *x = &a->contacts[i], *y = &b->contacts[i];
        ok &= x->gap == y->gap && same_d(x->point, y->point, 3) && same_d(x->frame, y->frame, 9) &&
              x->body[0] == y->body[0] && x->body[1] == y->body[1];
    }
    ok &= same_d(a->A, b->A, nv * nv) && same_d(a->b, b->b, nv) && same_d(a->e, b->e, m);
    ok &= a->J.m == b->J.m && a->J.n == b->J.n && a->J.nnz == b->J.nnz;
    if (!ok) return 0;
    ok &= same_i(a->J.rowptr, b->J.rowptr, m + 1) && same_i(a->J.col, b->J.col, (size_t)a->J.nnz) &&
          same_d(a->J.val, b->J.val, (size_t)a->J.nnz);
    /* D is kept by neither (built on demand); v_f is */
    ok &= (a->has_dual ? same_d(a->D, b->D, m * m) : !a->D && !b->D) && same_d(a->vf, b->vf, m);
    const ncp_structure *s = a->structure, *t = b->structure;
    ok &= (s == NULL) == (t == NULL);
    if (s && t) {
        ok &= s->nsub == t->nsub && s->nbodies == t->nbodies && s->nlinks == t->nlinks;
        if (!ok) return 0;
        ok &= same_i(s->sub_dof_start, t->sub_dof_start, (size_t)s->nsub) &&
              same_i(s->sub_ndof, t->sub_ndof, (size_t)s->nsub);
        for (int i = 0; i < s->nbodies; i++)
            ok &= s->bodies[i].subsystem == t->bodies[i].subsystem && s->bodies[i].ndof == t->bodies[i].ndof &&
                  same_d(s->bodies[i].M, t->bodies[i].M, 36) &&
                  same_d(s->bodies[i].Jb, t->bodies[i].Jb, 6 * (size_t)s->bodies[i].ndof);
        for (int i = 0; i < s->nlinks; i++) {
            int rows = ncp_block_type_size(a->blocks[s->links[i].block].type);
            ok &= s->links[i].block == t->links[i].block && s->links[i].body == t->links[i].body &&
                  same_d(s->links[i].Jib, t->links[i].Jib, 6 * (size_t)rows);
        }
    }
    return ok;
}

static void free_run(run *r)
{
    for (int i = 0; i < r->n; i++) ncp_problem_free(&r->probs[i]);
    r->n = 0;
}

static void test_capture_determinism(void)
{
    const char *names[] = {"box-on-plane", "incline", "sphere-stack"};
    for (int sc = 0; sc < 3; sc++) {
        char path[128];
        snprintf(path, sizeof path, "scenes/%s.json", names[sc]);
        ncp_error err = {0};
        ncp_scene *s = NULL;
        CHECK_OK(ncp_scene_load(path, ncp_registry_catalog(), &s, &err), &err);
        if (!s) continue;
        run r1 = {0}, r2 = {0}, r3 = {0};
        ncp_capture_opts o = {2024, 1, 0, NULL, NULL};
        CHECK_OK(ncp_capture_scene(s, &o, keep, &r1, &err), &err);
        CHECK_OK(ncp_capture_scene(s, &o, keep, &r2, &err), &err);
        CHECK(r1.n == ncp_scene_bench(s)->quick_steps && r1.n == r2.n);
        int same = r1.n == r2.n;
        for (int i = 0; same && i < r1.n; i++) same &= same_problem(&r1.probs[i], &r2.probs[i], 0);
        CHECK(same);
        /* another seed: only the provenance changes (the rigid-body trajectory draws no random
         * numbers) */
        o.seed = 2025;
        CHECK_OK(ncp_capture_scene(s, &o, keep, &r3, &err), &err);
        same = r1.n == r3.n;
        for (int i = 0; same && i < r1.n; i++) same &= same_problem(&r1.probs[i], &r3.probs[i], 1);
        CHECK(same);
        CHECK(r3.n > 0 && r3.probs[0].seed == 2025 && r1.probs[0].seed == 2024);
        free_run(&r1);
        free_run(&r2);
        free_run(&r3);

        /* options: a steps override, another driver, an unknown driver, an interrupt */
        ncp_capture_opts o2 = {1, 0, 3, "pgs", NULL};
        CHECK_OK(ncp_capture_scene(s, &o2, keep, &r1, &err), &err);
        CHECK(r1.n == 3);
        for (int i = 0; i < r1.n; i++) CHECK(strcmp(r1.probs[i].driver, "pgs") == 0);
        free_run(&r1);
        ncp_capture_opts o3 = {1, 1, 0, "no-such-solver", NULL};
        ncp_error_clear(&err);
        CHECK(ncp_capture_scene(s, &o3, keep, &r1, &err) == NCP_ERR_INPUT);
        CHECK(strstr(err.msg, "no-such-solver") != NULL);
        volatile int stop = 1;
        ncp_capture_opts o4 = {1, 1, 0, NULL, &stop};
        ncp_error_clear(&err);
        CHECK_OK(ncp_capture_scene(s, &o4, keep, &r1, &err), &err);
        CHECK(r1.n == 0);
        free_run(&r1);
        ncp_scene_free(s);
    }
}

/* ---- ranges ---- */

/* Every number of the JSON file at path has a documented range and is inside it (strict). */
static void check_file_ranges(const char *path, const char *prefix)
{
    ncp_error err = {0};
    char *text = NULL;
    CHECK_OK(ncp_json_read_text(path, "file", (size_t)64 << 20, &text, &err), &err);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    CHECK(root != NULL);
    if (root) CHECK_OK(ncp_scene_check_ranges(root, path, prefix, NCP_RANGES_STRICT, &err), &err);
    cJSON_Delete(root);
    free(text);
}

static int check_dir_ranges(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    int n = 0;
    for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d)) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        check_file_ranges(path, prefix);
        n++;
    }
    if (d) closedir(d);
    return n;
}

static void test_ranges(void)
{
    /* the table: fields of scenes, of robot model files (links[] = robots[].links[]) and the
     * fields the parser leaves to others */
    const ncp_scene_range *r = ncp_scene_range_find("bodies[].position[]");
    CHECK(r && r->lo == -1e4 && r->hi == 1e4 && strcmp(r->unit, "m") == 0);
    r = ncp_scene_range_find("robots[].links[].inertial.mass");
    CHECK(r && r->lo == 0 && r->lo_open && r->hi == 1e9 && strcmp(r->unit, "kg") == 0);
    CHECK(ncp_scene_range_find("robots[].links[].shapes[].radius") == ncp_scene_range_find("bodies[].shapes[].radius"));
    r = ncp_scene_range_find("robots[].q0.knee");
    CHECK(r && strcmp(r->unit, "rad or m") == 0);
    r = ncp_scene_range_find("materials[].friction");
    CHECK(r && r->lo == 0 && r->hi == 1e3); /* the bound of problem files' mu too */
    r = ncp_scene_range_find("benchmark.params.pgs.omega");
    CHECK(r && isinf(r->lo) && isinf(r->hi));
    CHECK(ncp_scene_range_find("bodies[].positon") == NULL);
    CHECK(ncp_scene_range_find("robots[].q0.knee.extra") == NULL);
    /* every shipped scene and robot model: every number covered and inside its range */
    int n = check_dir_ranges("scenes", "") + check_dir_ranges("scenes/tasks", "") +
            check_dir_ranges("scenes/pouring-sweep", "") + check_dir_ranges("scenes/scaling", "");
    int nr = check_dir_ranges("scenes/robots", "robots[]");
    CHECK(n >= 20 && nr >= 5);
    /* strict: a number no entry covers is named */
    ncp_error err = {0};
    cJSON *j = cJSON_Parse("{\"bodies\":[{\"mass\":1,\"colour\":[0.5,0.5,1]}]}");
    CHECK(ncp_scene_check_ranges(j, "x.json", "", NCP_RANGES_STRICT, &err) == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, "x.json: bodies[0].colour[0]: no documented range") != NULL);
    ncp_error_clear(&err);
    CHECK_OK(ncp_scene_check_ranges(j, "x.json", "", NCP_RANGES_ALL, &err), &err); /* the parser's to reject */
    cJSON_Delete(j);
    /* before the parser only shape sizes, and no sign errors (the parser words those) */
    j = cJSON_Parse("{\"bodies\":[{\"mass\":1e12,\"shapes\":[{\"radius\":-1},{\"spacing\":1e-5}]}]}");
    CHECK(ncp_scene_check_ranges(j, "x.json", "", NCP_RANGES_SHAPES_EARLY, &err) == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, "x.json: bodies[0].shapes[1].spacing: 1e-05 is outside [0.0001, 1] m") != NULL);
    ncp_error_clear(&err);
    CHECK(ncp_scene_check_ranges(j, "x.json", "", NCP_RANGES_ALL, &err) == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, "x.json: bodies[0].mass: 1e+12 is outside (0, 1e+09] kg") != NULL);
    cJSON_Delete(j);
    /* a directory given as the scene */
    ncp_scene *s = NULL;
    ncp_error_clear(&err);
    CHECK(ncp_scene_load("scenes", ncp_registry_catalog(), &s, &err) == NCP_ERR_INPUT);
    CHECK(s == NULL && strstr(err.msg, "scenes: is a directory") != NULL);
}

/* ---- predicted memory ---- */

/* n boxes of half extent 0.1 m on a ground plane, spaced 1 m apart along x (spread) or all at
 * the same place (piled). */
static char *boxes_scene(int n, int piled)
{
    size_t cap = 512 + (size_t)n * 200;
    char *t = malloc(cap);
    if (!t) return NULL;
    size_t l = (size_t)snprintf(t, cap, "{\"name\":\"boxes\",\"timestep\":0.01,\"steps\":2,"
                                "\"bodies\":[" GROUND);
    for (int i = 0; i < n; i++)
        l += (size_t)snprintf(t + l, cap - l, ",{\"name\":\"b%d\",\"type\":\"dynamic\",\"mass\":1,"
                              "\"position\":[%g,0,0.1],\"shapes\":[{\"type\":\"box\","
                              "\"half_extents\":[0.1,0.1,0.1]}]}", i, piled ? 0.0 : (double)i);
    snprintf(t + l, cap - l, "],\"benchmark\":{\"driver\":\"pgs\"}}");
    return t;
}

static void test_memory(void)
{
    ncp_error err = {0};
    for (int piled = 0; piled < 2; piled++) {
        const int n = 7;
        char *text = boxes_scene(n, piled);
        ncp_scene *s = NULL;
        CHECK(text != NULL);
        if (text) CHECK_OK(ncp_scene_parse(text, "boxes.json", ncp_registry_catalog(), &s, &err), &err);
        free(text);
        if (!s) continue;
        ncp_scene_mem r;
        CHECK_OK(ncp_scene_memory(s, &r, &err), &err);
        /* free boxes: 6 dof each; the plane pairs with every box; piled boxes pair with each
         * other too, spread ones do not (1 m apart, 0.2 m wide); 4 contacts a pair, 3 rows a
         * contact, no joint rows */
        long pairs = n + (piled ? (long)n * (n - 1) / 2 : 0);
        CHECK(r.nbodies == n && r.nv == 6 * n);
        CHECK(r.pairs == pairs && r.contacts == 4 * pairs && r.rows == 12 * pairs);
        double nv = 6.0 * n, m = 12.0 * pairs;
        CHECK(r.dof_bytes == 24.0 * nv * nv);
        CHECK(r.row_bytes == 12.0 * nv * m + 64.0 * m);
        /* the scene's driver (pgs) applies D through J and A's factor (or builds it in its
         * setup when that is cheaper): no m^2 term in the prediction */
        CHECK(r.dense_dual == 0 && r.dual_bytes == 0.0);
        double big = 8.0 * fmax(nv * nv, nv * m);
        CHECK(r.heap_slack == fmin(big, NCP_SCENE_MEM_SLACK_MAX));
        CHECK(r.total == r.dof_bytes + r.row_bytes + r.heap_slack + NCP_SCENE_MEM_BASE);
        /* a driver that needs the dense D itself (a peer that takes D as given; no registered
         * solver of ours does): D and X counted */
        ncp_scene_mem r2;
        const ncp_solver_desc dense_d = {.name = "dense-d", .needs = NCP_NEEDS_DUAL};
        CHECK_OK(ncp_scene_memory_driven(s, &dense_d, &r2, &err), &err);
        CHECK(r2.dense_dual == 1 && r2.dual_bytes == 8.0 * (nv * m + m * m) &&
              r2.row_bytes == r.row_bytes);
        CHECK(r2.heap_slack == fmin(8.0 * fmax(nv * nv, m * m), NCP_SCENE_MEM_SLACK_MAX));
        /* the first step's problem stays inside the prediction */
        run got = {0};
        ncp_capture_opts o = {1, 0, 1, "pgs", NULL};
        CHECK_OK(ncp_capture_scene(s, &o, keep, &got, &err), &err);
        CHECK(got.n == 1);
        if (got.n == 1) CHECK(got.probs[0].nv == r.nv && got.probs[0].m > 0 && got.probs[0].m <= r.rows);
        free_run(&got);
        /* refused just below the prediction, with the prediction in the message; accepted at it */
        ncp_scene_set_max_memory(s, 0.999 * r.total);
        ncp_error_clear(&err);
        CHECK(ncp_scene_check_memory(s, &err) == NCP_ERR_INPUT);
        CHECK(strstr(err.msg, "scene boxes.json: 7 dynamic bodies, 42 dof") != NULL);
        CHECK(strstr(err.msg, "above the memory budget") != NULL);
        ncp_error_clear(&err);
        CHECK(ncp_capture_scene(s, &o, keep, &got, &err) == NCP_ERR_INPUT && got.n == 0);
        ncp_scene_set_max_memory(s, r.total);
        ncp_error_clear(&err);
        CHECK_OK(ncp_scene_check_memory(s, &err), &err);
        ncp_scene_free(s);
    }
}

int main(void)
{
    test_validation();
    test_materials();
    test_shipped_scenes();
    test_capture_determinism();
    test_ranges();
    test_memory();
    return tcheck_exit("test_scene");
}
