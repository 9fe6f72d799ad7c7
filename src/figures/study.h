/* A paper's reproduction as a declared study (docs/adding-a-paper.md): data plus small reducers.
 *
 * The declaration (an ncp_study of const tables, one folder per paper under src/figures/) names
 * the scenes to capture, the solver runs with their parameters, the budgets of each part (a
 * figure or table of the paper), the configurations (the paper's stated settings first, our
 * defaults second, each with its own count) and every claim: the paper's words and where they
 * are, the quantity we measure and the rule, with its thresholds, that turns the measured
 * values into a verdict. Rules are data (bands on the claim's values), fixed before the run: a
 * changed rule is a visible diff of the declaration.
 *
 * ncp_study_reproduce does the rest, the same for every paper:
 *   captures  OUT/<study>/captures/<id>/problems.h5, captured once (kept while the scene,
 *             seed and capture options are the same: resumable);
 *   solves    every run through the one pipeline (ncp_pipeline_solve_files: journal, resume
 *             after a kill, -j, isolation (ncp_fig_opts.isolate), plugins), runs of distinct solvers packed into one
 *             folder OUT/<study>/<config>/<part>-<k>/ (metrics.csv, traces.csv, journal.ncpj);
 *             runs.csv maps each run to its folder, solver and parameters;
 *   sims      each simulation (ncp_study_sim, study_sim.c: a solver driving a scene's trajectory)
 *             into OUT/<study>/<config>/<part>-<label>/ (steps.csv, task.json), kept by its
 *             key; sims.csv maps each sim to its folder, solver and parameters;
 *   reducers  per part (the figure's .dat files and plots) and per claim (its values and the
 *             per-claim input table claim_inputs.csv), then the rule gives the verdict:
 *             claims.md and claims.csv per configuration, study.md with the counts per
 *             configuration (no count combines configurations);
 *   stamp     stamp.txt: the binary's commit, the dates, machine, load, BLAS, -j, quick or full
 *             (study_stamp.c), embedded in study.md.
 * An independent checker (tests/check_study_<paper>.py) recomputes every claim's values and
 * verdict from runs.csv and the run folders' metrics.csv, traces.csv and config.json alone. */
#ifndef NCP_STUDY_H
#define NCP_STUDY_H

#include <stddef.h>
#include <stdio.h>

#include "figures/figures.h"
#include "util/csv.h"
#include "util/ncp_error.h"

#define NCP_STUDY_MAX_PARAMS 4
#define NCP_STUDY_MAX_VALUES 3
#define NCP_STUDY_MAX_CONDS 3

typedef struct ncp_study_param {
    const char *name; /* NULL ends a list shorter than NCP_STUDY_MAX_PARAMS */
    double value;
} ncp_study_param;

/* One scene's capture. random_step: capture steps 0..k and keep problem k alone, k uniform in
 * 1..steps from the seed (a paper's "random time step"); else every captured problem. */
struct ncp_scene;
typedef struct ncp_study_capture {
    const char *id;          /* folder name: captures/<id>/ */
    const char *scene;       /* file under scenes/ */
    const char *scene_quick; /* with --quick (NULL: scene) */
    int steps, steps_quick;  /* 0: the scene's own */
    int random_step;
    int zero_gap;            /* every contact must touch (phi = 0): a reducer relies on it */
    const char *driver;      /* the solver driving the trajectory (NULL: the scene's) */
    /* A paper's variant of the scene (fewer bodies, another window of steps), NULL: the file as
     * it is. Gets the loaded file (path) and returns the scene to capture in *out; the key of
     * the capture is the derived scene's text, so a changed derivation captures again. */
    int (*derive)(const struct ncp_study_capture *cp, const ncp_fig_opts *o, const char *path,
                  struct ncp_scene **out, ncp_error *err);
    int arg; /* the derive hook's own argument (a body count) */
} ncp_study_capture;

/* A part's budget and traces (the pipeline's). */
typedef struct ncp_study_budget {
    double tol;                   /* on stop_metric */
    int max_iter, max_iter_quick;
    double time_ms;               /* 0: none */
    const char *stop_metric;      /* NULL: natural_map_rel_acary */
    int trace_every;              /* every iteration (1) or the log sample (0) */
    int warm_start;               /* NCP_WARM_* (bench/bench.h); 0: cold, lambda = 0 */
} ncp_study_budget;

typedef struct ncp_study_ctx ncp_study_ctx;
typedef struct ncp_study_part ncp_study_part;

/* A figure or a table of the paper: the runs that name it, their capture and budget, and its
 * reducer (the part's .dat files and figures in dir). */
struct ncp_study_part {
    const char *id, *title, *capture;
    ncp_study_budget budget;
    int (*reduce)(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir,
                  ncp_error *err);
};

/* One solve: a solver with its own parameters (over the configuration's) in a part. With a
 * program, the solver is outside ncpbench (docs/answers.md): the executable `program PROBLEMS
 * ANSWERS` (a path from the working directory, the source tree's root) writes an answers file
 * for the part's capture, kept in OUT/<study>/answers/ and shared by the configurations
 * (rewritten when the capture or the program's text changes), and ncpbench grade (bench/grade.h)
 * grades it into the run's own folder OUT/<study>/<config>/<part>-<solver>/ under the name
 * `solver`: self-timed times, no traces, no parameters. A program that cannot run or fails
 * leaves the run not run, with a message (as a solver this build lacks). */
typedef struct ncp_study_run {
    const char *part, *label; /* label: one token, unique within the part */
    const char *solver;
    ncp_study_param params[NCP_STUDY_MAX_PARAMS];
    const char *program; /* NULL: a registered solver, through the pipeline */
} ncp_study_run;

/* Parameters of one solver in a configuration (a run's own parameters come on top). */
typedef struct ncp_study_solver_params {
    const char *solver;
    ncp_study_param params[NCP_STUDY_MAX_PARAMS];
    const char *source; /* where the paper states them ("§5.2", "ours") */
} ncp_study_solver_params;

typedef struct ncp_study_config {
    const char *id, *title, *why;
    const ncp_study_solver_params *solvers;
    int nsolvers;
} ncp_study_config;

enum {
    NCP_VERDICT_YES,
    NCP_VERDICT_PARTLY,
    NCP_VERDICT_NO,
    NCP_VERDICT_NOT_TESTABLE, /* our setup cannot test the claim (declared, with the reason) */
    NCP_VERDICT_NOT_RUN       /* a run the claim needs did not run (solver missing, interrupt) */
};
const char *ncp_study_verdict_name(int verdict);

/* lo <= v[value] <= hi (inf and nan are outside every finite bound, NAN bounds are open). */
typedef struct ncp_study_cond {
    int value;
    double lo, hi;
} ncp_study_cond;

/* The values of one claim, computed by its reducer, and its input table (claim_inputs.csv). */
typedef struct ncp_study_claim_out {
    double v[NCP_STUDY_MAX_VALUES];
    char ours[600];
    int not_run; /* a needed run is missing: the verdict is "not run" */
    FILE *inputs; /* rows "config,claim,name,value" (ncp_study_input) */
    const char *config, *claim;
    /* The results cannot test the claim (a rule of the declaration says when, e.g. a task no
     * contact decides): the verdict is "not testable", ours says why. */
    int not_testable;
} ncp_study_claim_out;

typedef struct ncp_study_claim {
    const char *id, *part;
    const char *where; /* section, figure, table, page */
    const char *words; /* the paper's words, quoted */
    const char *quantity;
    const char *value_names[NCP_STUDY_MAX_VALUES]; /* NULL after the last */
    double paper;      /* the paper's number (NAN: words only) */
    const char *rule;  /* the rule in words, with its thresholds */
    int nyes;                                   /* yes: all nyes conditions hold */
    ncp_study_cond yes[NCP_STUDY_MAX_CONDS];
    int npartly;                                /* partly: all of these (0: no partly tier) */
    ncp_study_cond partly[NCP_STUDY_MAX_CONDS];
    const char *not_testable; /* non-NULL: the verdict, with this reason; no reducer */
    int (*value)(const ncp_study_ctx *c, ncp_study_claim_out *out, ncp_error *err);
} ncp_study_claim;

/* A simulation (study_sim.c): a scene (a file under scenes/, or a paper's variant of it built
 * by derive) simulated from its initial state with `solver` driving the trajectory
 * (bench/task.h ncp_task_run: warm-started, every step's contact solve by the harness), its
 * parameters the configuration's for that solver and the sim's own on top. The budget of every
 * step is the part's (tol, max_iter / max_iter_quick, time_ms: a fixed iteration count or a
 * tolerance), or with scene_budget the scene's own (its task section's per-step budget, else
 * its driver budget). Raw results in OUT/<study>/<config>/<part>-<label>/: steps.csv (per step:
 * t, contacts, solve_ms, iterations, status, stop_metric, penetration, kinetic, potential, ...
 * and the observer's columns) and task.json (the run: completed, failed, the task's criteria and
 * success when the scene has a task section). A finished sim is kept while its key (the derived
 * scene's text, solver, parameters, budget, steps, observer columns) is the same; an unfinished
 * one (killed, interrupted) runs again. Sims are independent: -j runs them in parallel;
 * --isolate does not apply (a sim runs in the study's process). Sims of one part share its
 * budget: a solver with another (Lee et al. 2025 Fig. 11: 5 CANAL iterations per step, 100 for
 * the others) gets a part of its own. */
#define NCP_STUDY_SIM_MAXOBS 8
struct ncp_world;
struct ncp_problem;
typedef struct ncp_study_sim ncp_study_sim;
/* Extra per-step columns of a sim's steps.csv (NaN unless filled): state at the start of step
 * `step` of nsteps, solved after its contact solve with the driver's answer (v NULL without a
 * dense A). Either may be NULL. */
typedef struct ncp_study_observer {
    const char *columns[NCP_STUDY_SIM_MAXOBS]; /* NULL after the last */
    int (*state)(const ncp_study_sim *sm, int step, int nsteps, const struct ncp_world *w,
                 double *row, ncp_error *err);
    int (*solved)(const ncp_study_sim *sm, int step, int nsteps, const struct ncp_problem *p,
                  const double *lambda, const double *v, double *row, ncp_error *err);
} ncp_study_observer;

struct ncp_study_sim {
    const char *part, *label;   /* folder <part>-<label>; label: one token, unique in the part */
    const char *scene, *scene_quick; /* under scenes/ (scene_quick: with --quick; NULL: scene) */
    /* A paper's variant of the loaded file (NULL: the file as it is): the key is its text. */
    int (*derive)(const ncp_study_sim *sm, const ncp_fig_opts *o, const char *path,
                  struct ncp_scene **out, ncp_error *err);
    double arg;                 /* derive's own argument (a sigma, a time step) */
    const char *variant;        /* derive's own text argument (an integrator; may be NULL) */
    const char *solver;         /* the driver (NULL: the scene's benchmark.driver) */
    ncp_study_param params[NCP_STUDY_MAX_PARAMS];
    int scene_budget;           /* 1: the scene's per-step budget; 0: the part's */
    int steps, steps_quick;     /* steps simulated (0: the scene's duration); steps_quick < 0:
                                   the sim is not part of a quick run (not run) */
    const ncp_study_observer *observe; /* NULL: none */
};

/* One criterion of a sim's task as task.json reports it: its type (scene.h's name), the value
 * measured on the run and its bounds (lo / hi: -inf / +inf when open). */
#define NCP_STUDY_SIM_MAXCRIT 8
typedef struct ncp_study_simcrit {
    char type[24];
    double value, lo, hi;
} ncp_study_simcrit;

/* A sim's steps.csv and task.json as read back (ran = 0: it did not run or did not finish).
 * completed, failed, success are task.json's flags; steps_planned and the criteria its raw
 * values, from which a claim recomputes the outcome with the rows of steps.csv. */
typedef struct ncp_study_simres {
    int ran, completed, failed, success;
    int steps_planned, ncrit;
    ncp_study_simcrit crit[NCP_STUDY_SIM_MAXCRIT];
    int nrows, ncols;
    char names[NCP_CSV_MAX_COLS][40]; /* steps.csv's columns (text columns read as NaN) */
    double *rows;                     /* nrows x ncols */
} ncp_study_simres;

typedef struct ncp_study {
    const char *id, *title, *paper; /* key (docs/references.md), heading, full reference */
    const char *setup;              /* the study's setup in one paragraph (claims.md) */
    const ncp_study_capture *captures;
    int ncaptures;
    const ncp_study_part *parts;
    int nparts;
    const ncp_study_run *runs;
    int nruns;
    const ncp_study_config *configs; /* configs[0]: the paper's stated settings */
    int nconfigs;
    const ncp_study_claim *claims;
    int nclaims;
    const ncp_study_sim *sims; /* may be NULL */
    int nsims;
} ncp_study;

/* ---- results, as the reducers see them ---- */

/* A capture as kept: its problem count and the first problem's size and step. */
typedef struct ncp_study_capture_info {
    int nproblems, ncontacts, m, nv, step;
    double h, capture_ms;
} ncp_study_capture_info;

/* One solve: a run on one problem of its capture, read back from its folder's metrics.csv and
 * traces.csv (trace rows: iteration, time_ms and the metric columns). */
typedef struct ncp_study_result {
    char problem[64];
    int ran, status, iterations, converged;
    double setup_ms, solve_ms;
    double *final;      /* ncp_metrics_count() values */
    double *trace;      /* ntrace x ncp_study_trace_cols() */
    int ntrace, tcap;
    char note[512];
} ncp_study_result;

/* Every solve of one run, one per problem of its capture in metrics.csv's order (n = 0: the run
 * did not run): what a claim over an aggregate (a mean over cases, a failure rate) reduces. */
typedef struct ncp_study_solves {
    ncp_study_result *p;
    int n, cap;
} ncp_study_solves;

struct ncp_study_ctx {
    const ncp_study *s;
    const ncp_study_config *config;
    const ncp_fig_opts *o;
    const char *dir;    /* OUT/<study>/<config> */
    const char *cmd;    /* the command that ran it */
    const ncp_study_capture_info *captures; /* per s->captures */
    const ncp_study_solves *results;        /* per s->runs */
    const ncp_study_simres *sims;           /* per s->sims */
};

int ncp_study_trace_cols(void);

/* The solve of run (part, label) on its capture's first problem (one that did not run: ran = 0);
 * NULL when the study has no such run (a declaration error). */
const ncp_study_result *ncp_study_get(const ncp_study_ctx *c, const char *part,
                                      const char *label);
/* Every solve of run (part, label); NULL when the study has no such run. */
const ncp_study_solves *ncp_study_get_all(const ncp_study_ctx *c, const char *part,
                                          const char *label);
const ncp_study_part *ncp_study_find_part(const ncp_study *s, const char *id);
/* Part id is among `figures --parts A,B` (o->parts; NULL: every part). The other parts are
 * not captured, solved, simulated or reduced, and their claims are "not run". */
int ncp_study_part_selected(const ncp_fig_opts *o, const char *id);
/* The capture of part p as this run made or kept it; NULL when p names none or its capture was
 * not made in this run (no selected part names it: --parts). A claim reading a capture records
 * it with ncp_study_capture_input, which makes the claim "not run" on NULL: a capture that was
 * not made is no capture with 0 contacts. The reducer of a selected part always has its own. */
const ncp_study_capture_info *ncp_study_part_capture(const ncp_study_ctx *c,
                                                     const ncp_study_part *p);
/* The part's iteration budget in this run (quick or full). */
int ncp_study_max_iter(const ncp_study_ctx *c, const ncp_study_part *p);
/* Metric column `name` of trace row k (NAN when out of range or unknown). */
double ncp_study_trace_at(const ncp_study_result *r, int k, const char *name);
/* Final value of metric `name` (NAN when not run or unknown). */
double ncp_study_final(const ncp_study_result *r, const char *name);

/* The sim (part, label) as read back (ran = 0 when it did not run); NULL when the study has no
 * such sim (a declaration error). */
const ncp_study_simres *ncp_study_get_sim(const ncp_study_ctx *c, const char *part,
                                          const char *label);
/* Column `name` of row k of a sim's steps.csv (NAN when out of range or unknown). */
double ncp_study_sim_at(const ncp_study_simres *r, int k, const char *name);

/* Records one input of a claim (claim_inputs.csv) and returns value; marks the claim not run
 * when r (the run it comes from, or NULL) did not run. */
double ncp_study_input(ncp_study_claim_out *out, const ncp_study_result *r, const char *name,
                       double value);
/* The same for an input taken from a capture ci (ncp_study_part_capture): marks the claim not
 * run when ci is NULL (not made in this run). */
double ncp_study_capture_input(ncp_study_claim_out *out, const ncp_study_capture_info *ci,
                               const char *name, double value);

/* The verdict of claim k given its values (the rule of the declaration). */
int ncp_study_verdict(const ncp_study_claim *k, const double *v);

/* Runs the study: captures, solves, reducers, claims (see the top of this file). */
int ncp_study_reproduce(const ncp_study *s, const ncp_fig_opts *o, ncp_error *err);

/* Internal to the study layer (study.c, study_claims.c, study_program.c, study_sim.c,
 * study_stamp.c). */
/* The configuration's sims run (or kept) and read back into res (s->nsims entries); the
 * interrupt leaves the unfinished ones not run. */
int ncp_study_sims(const ncp_study_ctx *c, ncp_study_simres *res, ncp_error *err);
void ncp_study_sims_free(ncp_study_simres *res, int n);
/* The parameters of `solver` in configuration cf and own on top (a run's, a sim's); their text
 * "name=value;..." as runs.csv and the keys hold it. */
struct ncp_params;
int ncp_study_params(const ncp_study_config *cf, const char *solver, const ncp_study_param *own,
                     struct ncp_params *ps, ncp_error *err);
void ncp_study_params_text(const struct ncp_params *ps, char *buf, size_t cap);
/* The run's stamp OUT/<study>/stamp.txt (study_stamp.c): begun before the captures (an earlier
 * stamp in the folder is listed as "earlier:"), ended after the last configuration, embedded in
 * study.md. */
int ncp_study_stamp_begin(const char *top, const char *cmd, const ncp_fig_opts *o,
                          ncp_error *err);
int ncp_study_stamp_end(const char *top, ncp_error *err);
int ncp_study_stamp_embed(FILE *f, const char *top, ncp_error *err);
int ncp_study_write_claims(const ncp_study_ctx *c, int counts[5], ncp_error *err);
/* Run r (r->program set) on capture h5 (key capkey) graded into gdir; top: OUT/<study>. A
 * program that cannot run or fails is reported on stderr and leaves no metrics.csv in gdir
 * (NCP_OK); other errors (I/O, grade's) are returned. */
int ncp_study_program(const ncp_study_ctx *c, const ncp_study_run *r, const ncp_study_part *pt,
                      const char *h5, const char *capkey, const char *top, const char *gdir,
                      ncp_error *err);

#endif
