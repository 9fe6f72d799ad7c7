/* Lee et al. 2025 as a study (src/figures/study.h): the declaration (study.c), the claims
 * (claims.c, values_fig.c, values_tables.c), the statistics they share (stats.c), the parts'
 * tables (tables.c) and Figs. 7 and 9 drawn (figures.c). Internal to this folder. */
#ifndef NCP_LEE2025_H
#define NCP_LEE2025_H

#include "figures/study.h"

#define L25_LEVEL 1e-8       /* the paper's "residuals of 1e-8 or less" (§VII-A1) */
#define L25_TOL_FIG 1e-10    /* Figs. 7, 9: stop below the paper's level (ours) */
#define L25_FIG_MS 200.0     /* Figs. 7, 9: solver time per case, the scenes' budget_ms (ours) */
#define L25_AL_LOOPS 10      /* Table II: "10 AL loops for each test case" (§VII-D1) */
#define L25_ADMM_ITERS 100   /* Table III: "fixed 100 iterations" (§VII-D2) */
#define L25_LOG_FLOOR 1e-16  /* -log10 of a smaller residual is taken at this value */
#define L25_PGS_SWEEPS 100   /* 7c: PGS's residual after this many sweeps */

extern const ncp_study_claim l25_claims[];
extern const int l25_nclaims;

/* ---- statistics of one run over its cases (stats.c) ---- */

/* Per run of a Fig. 7 / 9 part: medians over the run's cases (NaN where none). */
typedef struct l25_figstat {
    int ncases;        /* solves that ran */
    int nlevel;        /* cases whose trace reaches L25_LEVEL */
    double share;      /* nlevel / ncases */
    double k_level;    /* median first iteration at or below L25_LEVEL (over nlevel) */
    double t_level;    /* median time (ms, setup included) of that iterate */
    double final;      /* median final al_residual */
    double iters;      /* median iterations */
    double t10;        /* median time at iteration 10 (setup included), cases that ran 10 */
    double mspi;       /* median solve_ms / iterations */
    double setup;      /* median setup_ms */
    double dt1;        /* median time of iteration 1 (its time less setup_ms) */
    double dtl;        /* median mean time of iterations 5..last (cases with last >= 6) */
    int ndtl;
    double r100;       /* median al_residual at iteration L25_PGS_SWEEPS (the last stored row
                          at or before it) */
} l25_figstat;

/* The statistics of run (part, label); not run: ncases = 0. */
int l25_figstat_of(const ncp_study_ctx *c, const char *part, const char *label, l25_figstat *q,
                   ncp_error *err);
/* The first stored iterate at or below level: its iteration and time (-1 / NAN if none). */
int l25_first_below(const ncp_study_result *r, double level, double *t);
/* al_residual of r at solver time t (ms), interpolated in log10 between stored iterates, the
 * last value after the last; NaN before the first iterate. */
double l25_at_time(const ncp_study_result *r, double t);
/* al_residual at iteration it: the last stored row at or before it (NaN if none). */
double l25_at_iter(const ncp_study_result *r, int it);
/* Parses the AL family's note (solvers/al_common.c): inner steps, AL loops, failed loops and
 * the first per-loop counts (up to L25_AL_LOOPS into per_loop, *nper of them); -1 when the
 * note has none. */
int l25_al_note(const char *note, int *inner, int *loops, int *failed, int *per_loop,
                int *nper);
/* Table II's columns over a run's cases: mean inner steps per case, failed loops over all
 * loops (%), mean -log10 al_residual (floor L25_LOG_FLOOR). */
typedef struct l25_t2col {
    int n;
    double inner, fail_pct, nlog;
} l25_t2col;
/* -1 when the run did not run or a solve's note has no inner counts. */
int l25_t2_col(const ncp_study_ctx *c, const char *part, const char *label, l25_t2col *q);
/* Table III's column of a run: mean (setup + solve) ms per step and mean -log10 al_residual
 * (floor L25_LOG_FLOOR) over its solves; returns how many ran (0: both NaN). */
int l25_t3_col(const ncp_study_ctx *c, const char *part, const char *label, double *ms,
               double *lg);
/* Median of x[0..n) (NaN ignored; x reordered). */
double l25_median(double *x, int n);

/* ---- claim reducers ---- */
int l25_7a(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_7b(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_7c(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_7d(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_7e(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_9a(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_9b(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_9c(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_9d(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_9e(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_T2a(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_T2b(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_T2c(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_T3a(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_T3b(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_T3c(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);

/* ---- the parts' tables (tables.c) and Figs. 7, 9 drawn (figures.c) ---- */
/* dir/name opened for writing (its path into path; NULL, err set, on failure) and closed. */
int l25_fig_table(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir,
                  ncp_error *err);
int l25_table2(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);
/* The figure parts' reducer: l25_fig_table, then the figure's data and lee2025_fig.{png,svg}. */
int l25_fig(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);
int l25_table3(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);

/* ---- the simulations: Fig. 11 (fig11.c) and the tasks (tasks.c), their statistics (sims.c) ---- */

/* Fig. 11 (§VII-C): "a fixed number of iterations for each solver -- 5 for CANAL and 100 for
 * SubADMM and PGS" (tolerance 0), "varying the number of particles in the bottle (9, 18, 27,
 * 36, 45)"; a quick run simulates the first L25_NPOUR_QUICK counts. */
enum { L25_NPOUR = 5, L25_NPOUR_QUICK = 2, L25_NSIMSOLV = 3 };
extern const int l25_pour_n[L25_NPOUR];
#define L25_POUR_CANAL_ITERS 5
#define L25_POUR_ITERS 100
#define L25_SIM_QUICK_STEPS 5   /* a quick sim: the first 5 steps (the scenes' quick_steps) */
#define L25_ZERO_IMPULSE 1e-12  /* N s: a normal impulse at or below it carries no load (ours) */
/* The solvers of the sims, in the claims' order (values v0, v1, v2): canal, subadmm,
 * pgs-decoupled, labelled CANAL, SubADMM, PGS. */
extern const char *const l25_sim_label[L25_NSIMSOLV];
/* The part of solver k's sims of Fig. 11's counts: fig11_canal (5 iterations) or fig11 (100). */
const char *l25_pour_part(int k);
/* Per step of every sim: dof (the model's generalised velocities, at the step's start) and
 * impulse_max (the largest normal impulse of the step's answer, N s). */
extern const ncp_study_observer l25_sim_observer;

/* Per-step means of one sim over its steps with a contact solve (rows > 0 and a finite
 * al_residual): solver ms (setup + solve), al_residual (arithmetic and geometric, floor
 * L25_LOG_FLOOR), iterations, contacts; dof of its first step. ran = 0: the sim did not run. */
typedef struct l25_simstat {
    int ran, n;
    double dof, ms, ms_med, res, res_geo, iters, contacts;
} l25_simstat;
/* The statistics of sim (part, label); records its inputs in o (may be NULL) and marks o not
 * run when the sim did not run. */
int l25_simstat_of(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *part,
                   const char *label, l25_simstat *q, ncp_error *err);

/* A task sim's outcome recomputed from its raw results: completed (steps.csv has every planned
 * step), the penetration (the deepest of steps.csv's per-step column and task.json's
 * penetration criterion, which adds the final state), every criterion's value within its
 * bounds (the penetration criterion against that penetration), and the largest normal impulse
 * over the run. ran = 0: the sim did not run. */
typedef struct l25_taskres {
    int ran, completed, success, nsteps, planned;
    double penetration, impulse_max;
} l25_taskres;
void l25_task_of(const ncp_study_simres *r, l25_taskres *q);

int l25_11a(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_11b(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_11c(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_11d(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_TKa(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_TKb(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_TKc(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int l25_fig11(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);
int l25_tasks(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);

/* A quick capture of the dishes settles 10 steps, not 90 (CI size; the derive hook of the
 * capture, study.h). */
struct ncp_scene;
int l25_quick_settle(const ncp_study_capture *cp, const ncp_fig_opts *o, const char *path,
                     struct ncp_scene **out, ncp_error *err);

#endif
