/* Scenes: JSON file -> validated scene description -> simulation that captures one problem per
 * step (docs/design.md, §7). The schema is documented in scenes/README.md; every
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

/* Adds one "SOLVER.NAME=VALUE" (the CLI's --param) to entries[0..*n) (cap entries): into the
 * solver's entry, created when it has none. NCP_ERR_INPUT with a message naming spec when it is
 * malformed, its value is not a finite number or there is no room. */
int ncp_solver_params_add(ncp_solver_params_entry *entries, int *n, int cap, const char *spec,
                          ncp_error *err);
/* The entry of solver in entries[0..*n) (cap entries), created empty when there is none;
 * NULL (NCP_ERR_INPUT in err) when there is no room. */
ncp_solver_params_entry *ncp_solver_params_slot(ncp_solver_params_entry *entries, int *n, int cap,
                                                const char *solver, ncp_error *err);
/* The entry of solver in entries[0..n), or NULL. */
const ncp_params *ncp_solver_params_find(const ncp_solver_params_entry *entries, int n,
                                         const char *solver);

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

/* The scene's "task" section (scenes/README.md, "Task"): a task solved in closed loop under a
 * per-step solver budget (Lee et al. 2025 §VII), judged by criteria on the simulated trajectory
 * (bench/task.h runs it). Bodies are model body indices ("robot/link" for robot links). */
typedef enum ncp_task_crit_type {
    NCP_CRIT_DISPLACEMENT = 0, /* (p_end - p_start) . axis/|axis| in [min, max] */
    NCP_CRIT_POSITION = 1,     /* |p_end - target| <= tolerance */
    NCP_CRIT_UPRIGHT = 2,      /* angle(R_end axis, world) <= max_angle */
    NCP_CRIT_IN_REGION = 3,    /* at least fraction f of the bodies end with the origin in [lo, hi] */
    NCP_CRIT_PENETRATION = 4,  /* deepest contact penetration over the run <= max */
    NCP_CRIT_SPEED = 5         /* |v_COM| at the end <= max */
} ncp_task_crit_type;
#define NCP_TASK_CRIT_COUNT 6
/* "displacement", ... (NULL for an unknown type). */
const char *ncp_task_crit_name(int type);

typedef struct ncp_task_criterion {
    int type;              /* ncp_task_crit_type */
    int body;              /* model body (-1 for in_region and penetration) */
    int nbodies;           /* in_region: the bodies (owned) */
    int *bodies;
    double axis[3];        /* displacement: unit world axis; upright: unit body-frame axis */
    double world[3];       /* upright: unit world direction */
    double target[3];      /* position */
    double lo[3], hi[3];   /* in_region box */
    int has_min, has_max;  /* displacement: which bounds were given */
    double min, max;       /* displacement bounds; max also for penetration (m) and speed (m/s) */
    double tolerance;      /* position, m */
    double max_angle;      /* upright, rad */
    double fraction;       /* in_region, (0, 1] */
    char label[128];       /* "criteria[0] displacement nut", for reports */
} ncp_task_criterion;

typedef struct ncp_task_cfg {
    char description[256];
    double step_budget_ms; /* per-step solver budget (solver clock: setup + iterations), > 0 */
    int nsolvers;          /* default solvers of `ncpbench task`; 0 = the scene's driver */
    char solvers[NCP_MAX_BENCH_SOLVERS][32];
    ncp_budget budget;     /* tol, max_iter (default: benchmark.driver_budget's); time_ms =
                              step_budget_ms */
    int ncriteria;
    ncp_task_criterion *criteria; /* owned */
} ncp_task_cfg;

typedef struct ncp_scene ncp_scene;

/* Reads and validates a scene file. Solver names and parameters in its benchmark section are
 * checked against `solvers` (the registry's catalog, solvers/registry.h); NULL checks only
 * their form (for tools that simulate without solvers). */
int ncp_scene_load(const char *path, const ncp_solver_catalog *solvers, ncp_scene **out,
                   ncp_error *err);
/* Same from text; `where` names the source in messages. */
int ncp_scene_parse(const char *json_text, const char *where, const ncp_solver_catalog *solvers,
                    ncp_scene **out, ncp_error *err);
/* Both within the memory budget `max_memory` (bytes, <= 0: util/membudget.h's default; the
 * scene keeps it, ncp_scene_max_memory): a parse or model whose memory the budget cannot hold
 * is NCP_ERR_INPUT naming the file, what needed how much, the budget and --max-memory, never
 * "malformed JSON" nor a bare out of memory (util/json_scan.h, ncp_mem_refuse). */
int ncp_scene_load_within(const char *path, const ncp_solver_catalog *solvers, double max_memory,
                          ncp_scene **out, ncp_error *err);
int ncp_scene_parse_within(const char *json_text, const char *where,
                           const ncp_solver_catalog *solvers, double max_memory, ncp_scene **out,
                           ncp_error *err);
void ncp_scene_free(ncp_scene *s);
/* The catalog the scene was loaded with (its driver and solver names are found there: with
 * plugins loaded, a plugin solver can drive the simulation); NULL if loaded without one. It
 * must outlive the scene. */
const ncp_solver_catalog *ncp_scene_catalog(const ncp_scene *s);

const char *ncp_scene_name(const ncp_scene *s);
const char *ncp_scene_where(const ncp_scene *s);  /* the file (or label) named in messages */
const char *ncp_scene_text(const ncp_scene *s);   /* the JSON text as read (stored in /meta) */
const ncp_bench_cfg *ncp_scene_bench(const ncp_scene *s);
double ncp_scene_timestep(const ncp_scene *s);

/* The scene's model (the scene owns it) and its cases section (capture "cases"). */
const ncp_model *ncp_scene_model(const ncp_scene *s);
const ncp_cases_cfg *ncp_scene_cases(const ncp_scene *s);
/* Overrides the driver's time budget per step, benchmark.driver_budget.time_ms (ms, solver
 * clock, setup included; > 0; `--step-budget-ms` of run and capture). */
void ncp_scene_set_driver_time(ncp_scene *s, double ms);
/* The scene's task section, or NULL when it has none. */
const ncp_task_cfg *ncp_scene_task(const ncp_scene *s);

/* Predicted peak memory of simulating and capturing the scene (scene_mem.c; scenes/README.md,
 * "Memory"). Per step the simulator holds the n_dof x n_dof step matrix A, the problem's copy
 * of it and its factor (3 n_dof^2, or per subsystem), the problem's rows (J: at most the dofs
 * of two subsystems a row, or n_dof on the dense route; e, v_f and the solver's vectors) and,
 * only when the driver solver needs the dense Delassus matrix itself (NCP_NEEDS_DUAL: D is
 * built on demand, core/problem.h), D (m x m) with X = A^{-1} J^T (n_dof x m, or one block's
 * columns at a time), plus the heap's slack and a fixed base. m comes from the broad phase at
 * the initial configuration (sim/collide.h ncp_world_contact_bound) plus the joint rows there. */
typedef struct ncp_scene_mem {
    int nbodies;          /* dynamic bodies (robot links included) */
    int nv;               /* generalised velocities */
    long pairs;           /* broad-phase shape pairs at the start */
    long contacts;        /* their contact bound */
    long rows;            /* m: 3 per contact + the joint rows at the start */
    double dof_bytes;     /* 8 * 3 * (nv^2, or the sum of the per-subsystem blocks' squares
                             above NCP_BLOCK_MASS_NDOF dofs, sim/dynamics.h): the step
                             matrices */
    double row_bytes;     /* 12 r m + 64 m, r = nv (dense route) or 2 max n_j (per subsystem):
                             J's CSR and the row vectors */
    int dense_dual;       /* 1: the driver needs the dense D (dual_bytes counted) */
    double dual_bytes;    /* dense_dual ? 8 (s m + m^2) : 0, s = nv or max n_j: X and D */
    double heap_slack;    /* min(8 max(nv^2, m^2 if dense_dual), NCP_SCENE_MEM_SLACK_MAX):
                             freed, not returned */
    double total;         /* dof_bytes + row_bytes + dual_bytes + heap_slack + NCP_SCENE_MEM_BASE */
} ncp_scene_mem;
/* glibc's largest mmap threshold (64-bit): blocks above it go back to the system when freed. */
#define NCP_SCENE_MEM_SLACK_MAX (32.0 * 1048576.0)
/* What every run holds besides the scene's arrays (binary, libraries, HDF5 caches): the RSS of
 * capturing the smallest shipped scene, rounded up. */
#define NCP_SCENE_MEM_BASE (24.0 * 1048576.0)
int ncp_scene_memory(const ncp_scene *s, ncp_scene_mem *out, ncp_error *err);
/* The same for the trajectory driven by `driver` (NULL: the scene's own). */
int ncp_scene_memory_driven(const ncp_scene *s, const ncp_solver_desc *driver, ncp_scene_mem *out,
                            ncp_error *err);
/* The memory budget in bytes (--max-memory; <= 0: util/membudget.h's default). */
void ncp_scene_set_max_memory(ncp_scene *s, double bytes);
double ncp_scene_max_memory(const ncp_scene *s);
/* NCP_OK when the prediction fits the scene's budget; else NCP_ERR_INPUT stating it: "scene
 * x.json: 5000 dynamic bodies, 30000 dof, up to 20000 constraint rows (...; dense n_dof^2
 * step matrices 20.1 GiB, m^2 Delassus data 3 GiB): the simulation needs 23.1 GiB, above the
 * memory budget of ...".
 * Every simulation (capture, task) calls it before the first step. */
int ncp_scene_check_memory(const ncp_scene *s, ncp_error *err);
int ncp_scene_check_memory_driven(const ncp_scene *s, const ncp_solver_desc *driver,
                                  ncp_error *err);

#endif
