/* Scenes: JSON file -> validated scene description -> simulation that captures one problem per
 * step (docs/design.md, §7). The schema is documented in README.md ("Scene format"); every
 * validation error names the file, the JSON path of the field (e.g. bodies[2].shapes[0].radius)
 * and what is wrong. */
#ifndef NCP_SCENE_H
#define NCP_SCENE_H

#include <stdint.h>

#include "core/problem.h"
#include "scene/cases.h"
#include "sim/world.h"
#include "solve/catalog.h"
#include "solve/solver.h"

#define NCP_MAX_BENCH_SOLVERS 64

typedef struct ncp_solver_params_entry {
    char solver[32];
    ncp_params params;
} ncp_solver_params_entry;

/* The scene's "benchmark" section. */
typedef struct ncp_bench_cfg {
    char capture[16];      /* "trajectory" (this issue) or "cases" (single-step, geometry issue) */
    int steps;             /* captured steps in a full run */
    int quick_steps;       /* captured steps with --quick */
    int skip;              /* steps simulated (not captured) before the first capture */
    int every;             /* capture every k-th step (>= 1) */
    char driver[32];       /* solver that drives the trajectory */
    ncp_budget driver_budget;
    int nsolvers;          /* 0 = every registered solver */
    char solvers[NCP_MAX_BENCH_SOLVERS][32];
    ncp_budget budget;     /* budget for the benchmarked solvers */
    int nparams;           /* per-solver parameters */
    ncp_solver_params_entry params[NCP_MAX_BENCH_SOLVERS];
} ncp_bench_cfg;

typedef struct ncp_scene ncp_scene;

/* Reads and validates a scene file. Solver names and parameters in its benchmark section are
 * checked against `solvers` (the registry's catalog, solvers/registry.h); NULL checks only
 * their form (for tools that simulate without solvers). */
int ncp_scene_load(const char *path, const ncp_solver_catalog *solvers, ncp_scene **out,
                   ncp_error *err);
/* Same from text; `where` names the source in messages. */
int ncp_scene_parse(const char *json_text, const char *where, const ncp_solver_catalog *solvers,
                    ncp_scene **out, ncp_error *err);
void ncp_scene_free(ncp_scene *s);

const char *ncp_scene_name(const ncp_scene *s);
const char *ncp_scene_text(const ncp_scene *s);   /* the JSON text as read (stored in /meta) */
const ncp_bench_cfg *ncp_scene_bench(const ncp_scene *s);
double ncp_scene_timestep(const ncp_scene *s);

/* The scene's model (the scene owns it) and its cases section (capture "cases"). */
const ncp_model *ncp_scene_model(const ncp_scene *s);
const ncp_cases_cfg *ncp_scene_cases(const ncp_scene *s);

#endif
