/* Speed of SDF contact generation (issue 4 "Speed"; numbers go to results/REPORT.md,
 * "Geometry"). Not a test: it times and prints, it asserts nothing.
 *
 *   ./build/benchmarks/bench_geometry [repeats]             (from the repository root)
 *   ./build/benchmarks/bench_geometry repeats SCENE...      only item 1, on these scenes
 *
 * (the second form times the scaling family's collision: benchmarks/README.md "Scaling").
 *
 * 1. For the bolt-nut, dish and pouring scenes at their initial (contact) state: the time of
 *    the whole collision stage (broad phase + SDF narrow phase + reduction), median of
 *    `repeats` runs, and the contact count.
 * 2. One bolt-nut state: the time of each registered solver on the assembled problem
 *    (tol 1e-6 on natural_map_rel_acary, at most 1000 iterations): "a fast solve".
 * 3. Broad phase with many bodies: N spheres in a grid resting on a plane (every sphere
 *    touches its neighbours), collision time per body for N = 125 ... 27000. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/driver.h"
#include "geometry/collision.h"
#include "solve/harness.h"
#include "scene/scene.h"
#include "sim/world.h"
#include "solvers/registry.h"
#include "geometry/contact.h"
#include "sim/collide.h"
#include "sim/step.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The thread's CPU time (ms): the collision times below are CPU times, so that a loaded machine
 * does not inflate them. */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* Median collision time (CPU ms) of the world's current state. */
static double time_collide(ncp_world *w, int reps, int *ncontacts)
{
    ncp_contact_list cl = {0, 0, NULL};
    ncp_error err = {0};
    double *t = malloc((size_t)reps * sizeof(double));
    if (!t) return NAN;
    for (int r = 0; r < reps; r++) {
        double t0 = cpu_ms();
        if (ncp_world_collide(w, &cl, &err)) {
            fprintf(stderr, "collide: %s\n", err.msg);
            break;
        }
        t[r] = cpu_ms() - t0;
    }
    *ncontacts = cl.n;
    qsort(t, (size_t)reps, sizeof(double), cmp_d);
    double med = t[reps / 2];
    free(t);
    ncp_contact_list_free(&cl);
    return med;
}

typedef struct grab {
    ncp_problem p;
    int got;
} grab;

static int grab_hook(void *ctx, ncp_problem *p, ncp_error *err)
{
    grab *g = ctx;
    if (g->got) return NCP_OK;
    g->got = 1;
    return ncp_problem_copy(&g->p, p, err);
}

static int bench_scene(const char *path, int reps, int solve)
{
    ncp_error err = {0};
    ncp_scene *sc = NULL;
    ncp_world *w = NULL;
    if (ncp_scene_load(path, ncp_registry_catalog(), &sc, &err) || ncp_world_create(ncp_scene_model(sc), &w, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        ncp_scene_free(sc);
        return 1;
    }
    int nc = 0;
    double ms = time_collide(w, reps, &nc);
    printf("| %s | %d | %d | %.3f |\n", ncp_scene_name(sc), ncp_scene_model(sc)->nbodies, nc, ms);
    if (solve) {
        grab g;
        memset(&g, 0, sizeof g);
        ncp_problem_init(&g.p);
        ncp_driver so_drv = {ncp_solver_find("pgs"), NULL, {1e-6, 10, 0.0}, NULL};
        ncp_step_opts so;
        ncp_driver_step_opts(&so_drv, 0, &so);
        ncp_step_info info;
        if (ncp_world_step(w, &so, grab_hook, &g, &info, &err) || !g.got) {
            fprintf(stderr, "step: %s\n", err.msg);
        } else {
            printf("\nsolvers on this state (%d contacts, %d rows, tol 1e-6, <= 1000 iterations):\n\n",
                   g.p.ncontacts, g.p.m);
            printf("| solver | iterations | converged | setup + solve (ms) |\n|---|---|---|---|\n");
            for (int i = 0; i < ncp_solver_count(); i++) {
                const ncp_solver_desc *d = ncp_solver_at(i);
                ncp_harness_opts ho;
                ncp_harness_opts_default(&ho);
                ho.budget.tol = 1e-6;
                ho.budget.max_iter = 1000;
                ncp_result res;
                memset(&res, 0, sizeof res);
                if (ncp_harness_solve(d, &g.p, NULL, NULL, NULL, &ho, &res, &err)) {
                    printf("| %s | failed: %s | | |\n", d->name, err.msg);
                    ncp_error_clear(&err);
                    continue;
                }
                printf("| %s | %d | %s | %.3f |\n", d->name, res.iterations, res.converged ? "yes" : "no",
                       res.setup_ms + res.solve_ms);
                ncp_result_free(&res);
            }
        }
        ncp_problem_free(&g.p);
    }
    ncp_world_free(w);
    ncp_scene_free(sc);
    return 0;
}

/* N = n^3 unit-spaced spheres touching their neighbours, on a plane. */
static void bench_broadphase(int n, int reps)
{
    size_t cap = 4096 + (size_t)n * n * n * 200;
    char *json = malloc(cap);
    if (!json) return;
    size_t k = (size_t)snprintf(json, cap,
                                "{\"name\": \"grid\", \"timestep\": 0.004, \"steps\": 1, \"contact\": "
                                "{\"margin\": 0.001}, \"bodies\": [{\"name\": \"ground\", \"type\": "
                                "\"static\", \"shapes\": [{\"type\": \"plane\"}]}");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int l = 0; l < n; l++)
                k += (size_t)snprintf(json + k, cap - k,
                                      ", {\"name\": \"s%d_%d_%d\", \"type\": \"dynamic\", \"mass\": 1, "
                                      "\"position\": [%g, %g, %g], \"shapes\": [{\"type\": \"sphere\", "
                                      "\"radius\": 0.05}]}",
                                      i, j, l, 0.1 * i, 0.1 * j, 0.05 + 0.1 * l);
    snprintf(json + k, cap - k, "]}");
    ncp_error err = {0};
    ncp_scene *sc = NULL;
    ncp_world *w = NULL;
    if (ncp_scene_parse(json, "grid", ncp_registry_catalog(), &sc, &err) || ncp_world_create(ncp_scene_model(sc), &w, &err)) {
        fprintf(stderr, "%s\n", err.msg);
    } else {
        int nc = 0;
        double ms = time_collide(w, reps, &nc);
        printf("| %d | %d | %.3f | %.2f |\n", n * n * n, nc, ms, 1e3 * ms / (n * n * n));
    }
    ncp_world_free(w);
    ncp_scene_free(sc);
    free(json);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 21;
    if (reps < 1) reps = 1;
    printf("contact generation at the initial state (median of %d runs):\n\n", reps);
    printf("| scene | bodies | contacts | collision (CPU ms) |\n|---|---|---|---|\n");
    if (argc > 2) {
        int rc = 0;
        for (int i = 2; i < argc; i++) rc |= bench_scene(argv[i], reps, 0);
        return rc;
    }
    int rc = bench_scene("scenes/boltnut.json", reps, 0);
    rc |= bench_scene("scenes/dishes.json", reps, 0);
    rc |= bench_scene("scenes/pouring.json", reps, 0);
    printf("\n");
    rc |= bench_scene("scenes/boltnut.json", 1, 1);
    printf("\nbroad phase, N spheres in a grid on a plane:\n\n| N | contacts | collision (CPU ms) | us per body |\n"
           "|---|---|---|---|\n");
    for (int n = 5; n <= 30; n += 5) bench_broadphase(n, reps > 5 ? 5 : reps);
    return rc;
}
