/* Helpers of the `ncpbench figures` sets (src/figures/fig_*.c): running the benchmark on a
 * scene and gnuplot on the results, and the Dolan–Moré performance-profile computation, kept
 * apart from the figure code so that it can be tested on hand-computed ratios
 * (tests/test_fig_util.c). The sets read the benchmark's CSV outputs with util/csv.h and take
 * medians and percentiles with util/stats.h, both included here for them. */
#ifndef NCP_FIG_UTIL_H
#define NCP_FIG_UTIL_H

#include "figures/figures.h"
#include "util/csv.h"
#include "util/ncp_error.h"
#include "util/stats.h"
#include "bench/pipeline.h"

/* ---- a paper's variant of a scene ---- */

/* The scene whose JSON is root (a loaded scene's text, changed by a study's derive hook), parsed
 * as file `path` against the registry's catalog into *out. NULL root (a failed cJSON call) is an
 * out-of-memory error naming path. */
struct cJSON;
struct ncp_scene;
int ncp_fig_scene_from_json(const struct cJSON *root, const char *path, struct ncp_scene **out,
                            ncp_error *err);

/* ---- benchmark runs and plots ---- */

/* Pipeline options for a figure set's benchmark of one scene into out_dir: the defaults with the
 * figure options' seed, quick, jobs and interrupt, no figures, progress or console output (the
 * set prints its own lines). The set then sets its solvers, budget and traces. */
void ncp_fig_pipeline_opts(const ncp_fig_opts *o, const char *out_dir, ncp_pipeline_opts *po);

/* Benchmarks the scene file with po (ncp_pipeline_run_scene); *interrupted = 1 if the user
 * interrupted the run (its outputs are then incomplete). */
int ncp_fig_run_scene(const char *scene, const ncp_pipeline_opts *po, int *interrupted,
                      ncp_error *err);

/* Runs scripts/<script>.gp on dir with title (ncp_plot_script) and prints "data: <dat>; figures:
 * <script>.{png,svg} beside it". Without gnuplot the data stand alone: the reason goes to stderr
 * and the result is NCP_OK. */
int ncp_fig_plot(const char *script, const char *dir, const char *title, const char *dat,
                 ncp_error *err);

/* ---- Dolan–Moré performance profiles ---- */

/* ncp_perf_ratios and ncp_perf_rho are in util/stats.h (included above), shared with the
 * results tables of every run (bench/output.h). */

/* `ncpbench solve`: the profiles over the problems of dir/metrics.csv (the solvers of the run;
 * unsupported rows count as failures), into dir/perf_profiles.dat, dir/profile.md (per solver:
 * share solved, median time over the problems it solved, rho(1), rho(10)) and "profile" in
 * dir/summary.json; dir/perf_profiles.{png,svg} when figures is set and gnuplot exists. Prints
 * the table unless quiet. Implemented in fig_profiles.c. */
int ncp_fig_collection_profiles(const char *dir, int figures, int quiet, ncp_error *err);
/* The same profiles split by a hardness label (`figures --from DIR --split-by LABEL`; the
 * classes of bench/labels.h ncp_labels_class from dir/labels.csv): per class
 * dir/profiles-by-<split>/<k>/perf_profiles.{dat,png,svg} and the table
 * dir/profiles-by-<split>.md. */
int ncp_fig_collection_profiles_split(const char *dir, const char *split, int figures,
                                      ncp_error *err);

#endif
