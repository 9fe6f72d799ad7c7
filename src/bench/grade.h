/* Grading answers computed elsewhere (`ncpbench grade PROBLEMS ANSWERS.h5`, docs/answers.md):
 * lambda (and v, and iterate traces with the program's own times) written by any program, graded
 * per problem by the harness's final evaluation (solve/harness.h ncp_harness_grade: the metrics
 * module, as for a registered solver's answer). The outputs are those of a benchmark run (bench.h,
 * output.h: metrics.csv, traces.h5, solutions.h5, summary.json, journal.ncpj), written through the
 * same journal and rebuilt by the same code, so that `ncpbench plot`, the index page and the
 * figure readers take them like any run; every row's note starts with "self-timed", every trace
 * dataset has the attribute timing = "self-timed" and summary.json has "self_timed": true.
 * With `into`, the rows join a run's instead: journaled as pairs of the run's folder under its
 * configuration with the solver added as a graded one (bench/resume.h), and the run's outputs
 * rebuilt from its journal by the same driver, so the solver stands beside the run's solvers
 * in every table and figure (family "graded", its times marked self-timed).
 *
 * Bad input is NCP_ERR_INPUT naming the file, the problem and the dataset: not an HDF5 file, no
 * /answers group, lambda not of m entries, v not of nv, trace_lambda not K x m, trace_time_ms not
 * of K entries or decreasing, NaN or Inf anywhere, an answer for a problem that PROBLEMS does not
 * hold. A problem of PROBLEMS without an answer is a row with status failed and note "no answer",
 * or NCP_ERR_INPUT with `strict`. */
#ifndef NCP_GRADE_H
#define NCP_GRADE_H

#include "util/ncp_error.h"

typedef struct ncp_grade_opts {
    const char *problems;  /* problems.h5 or a plain FCLib file */
    const char *answers;   /* ANSWERS.h5 (docs/answers.md) */
    const char *out_dir;   /* NULL: results/grade-<name> */
    /* a run's output folder (--into): the graded solver's rows are added to its results, under
     * its configuration (tolerance, stop metric, budget: tol and stop_metric are not used),
     * every output redrawn; out_dir is not used. Refused (NCP_ERR_INPUT, nothing written) when
     * the problems are not the run's (summary.json's problem_set_checksum), the run lacks a
     * row of one of its solvers, or the name is one of its solvers that is not graded (the
     * same graded solver graded again has its rows replaced). */
    const char *into;
    const char *name;      /* the solver's name in the outputs; NULL: the file's `solver`
                              attribute, else the answers file's stem */
    double tol;            /* converged: stop metric <= tol */
    int stop_metric;       /* metrics/metrics.h column index */
    int strict;            /* a problem without an answer is an error */
    int figures;           /* draw the figures of the traces and the index page */
    double max_memory;     /* reader budget in bytes (<= 0: the default) */
} ncp_grade_opts;

/* tol NCP_DEFAULT_TOL, natural_map_rel_acary, not strict, figures on. */
void ncp_grade_opts_default(ncp_grade_opts *o);

typedef struct ncp_grade_report {
    char name[32];         /* the solver name used */
    char out_dir[4096];
    int problems, answered, converged, missing, traces;
} ncp_grade_report;

/* Grades o->answers against o->problems and writes the outputs (see above). A figure that
 * gnuplot could not draw (gnuplot missing) is not an error: *note gets the message. */
int ncp_grade_run(const ncp_grade_opts *o, ncp_grade_report *rep, char *note, size_t nnote,
                  ncp_error *err);

/* Marks the trace datasets of the graded solvers in dir/traces.h5 with the attribute
 * timing = "self-timed ..." (and the /traces group when `all` solvers are graded). */
int ncp_grade_mark_traces(const char *dir, const char *const *graded, int ngraded, int all,
                          ncp_error *err);

#endif
