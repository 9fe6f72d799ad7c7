/* The results of an output folder and resuming them (docs/design.md §5.7).
 *
 * OUT/journal.ncpj (bench/journal.h) is the one record of the results in OUT. Its first record
 * is the configuration of the run (ncp_resume_config's canonical text and its FNV-1a 64
 * fingerprint; OUT/config.json is a readable copy of it); every later one is a finished
 * (problem, solver) pair: its metrics.csv fields, its stored trace rows and its answer (lambda,
 * u, v with status and iterations), appended as the pair finishes. metrics.csv, traces.h5
 * (+ traces.csv), solutions.h5 and summary.json are rebuilt from the journal at the end of
 * every run (bench.c), each into a temporary renamed into place (util/safefile.h): a killed
 * run leaves the earlier complete outputs and a journal holding everything that finished,
 * and since the journal only grows, a rerun never replaces more results with fewer.
 *
 * A run into a folder whose journal has the same configuration resumes it: every pair found
 * is not solved again (except one cut by Ctrl-C, status `stopped`). So does a run of a subset
 * of the folder's solvers (in any order, each with the parameters it was run with, every other
 * key the same): its outputs hold the requested solvers (and the graded ones, below), the
 * journal and its configuration keep everything. Another configuration is refused
 * (NCP_ERR_INPUT naming what differs) unless `fresh`, which discards the journal and the
 * outputs. The configuration is the journal's latest configuration record: `grade --into`
 * (bench/grade.h) appends one naming its solver in "solvers" and in "graded", a solver whose
 * pairs were graded, not solved; a run into the folder keeps their rows. A folder of an ncpbench before the journal (metrics.csv without journal.ncpj)
 * is refused with the same advice: its results are not imported. Opening also removes the
 * temporaries of processes that no longer run and the *.prev files of the earlier design. */
#ifndef NCP_RESUME_H
#define NCP_RESUME_H

#include "bench/bench.h"
#include "bench/journal.h"

typedef struct ncp_resume ncp_resume;

/* One finished pair as the journal holds it. Read back, its pointers point into a buffer of
 * the journal, valid until the next ncp_resume_read. */
typedef struct ncp_jresult {
    const char *problem, *solver, *note, *title, *description;
    int iterations, converged, status;
    double setup_ms, solve_ms;
    double wall_ms;        /* setup + solve on the wall clock; NaN in records without it */
    double time_min_ms, time_max_ms; /* extremes of setup + solve over --repeat (the time itself
                                        with one repeat, and in records without them) */
    const double *metrics; /* nmetrics final metric values (ncp_metrics_values order) */
    int nmetrics;
    int has_answer;        /* 0: no solutions.h5 entry (unsupported) */
    const double *lambda, *u; /* m each */
    int m;
    const double *v;       /* nv (0: none): A^{-1}(b + J^T lambda) for the graded lambda */
    int nv;
    const double *solver_v; /* nsv (0: none): the solver's own velocity */
    int nsv;
    const double *trace;   /* ntrace x ncols stored trace rows, row-major (0 rows: none) */
    int ntrace, ncols;
} ncp_jresult;

/* The canonical configuration text of a run (compact JSON, parameters sorted; o->input, the
 * description of a scene's capture, included when set). */
int ncp_resume_config(const ncp_bench_opts *o, char **text, ncp_error *err);

/* FNV-1a 64 of a text: the fingerprint of a configuration or of a scene (not a security
 * measure). */
uint64_t ncp_resume_fingerprint(const char *text);

/* Opens the journal of out_dir for a run of configuration `config` (see above); *rs is set on
 * success. */
int ncp_resume_open(const char *out_dir, const char *config, int fresh, ncp_resume **rs,
                    ncp_error *err);

/* The journal offset of the earlier result of (problem, solver), -1 if none to keep. */
long long ncp_resume_find(ncp_resume *rs, const char *problem, const char *solver);
/* Marks a pair as placed in this run's outputs; returns 1 if it was already (two problems of
 * the same name). */
int ncp_resume_mark(ncp_resume *rs, const char *problem, const char *solver);
/* Appends a finished pair (marked placed); *off its offset. */
int ncp_resume_append(ncp_resume *rs, const ncp_jresult *r, long long *off, ncp_error *err);
/* Reads the pair at off back. */
int ncp_resume_read(ncp_resume *rs, long long off, ncp_jresult *r, ncp_error *err);

/* The pairs of the journal in order of first appearance, each's latest record and whether
 * this run placed it. */
int ncp_resume_count(const ncp_resume *rs);
long long ncp_resume_at(const ncp_resume *rs, int i, int *placed);

/* The solver of pair i (as ncp_resume_at). */
const char *ncp_resume_solver_at(const ncp_resume *rs, int i);
/* The graded solvers of the journal's configuration (grade --into; docs/answers.md): a run
 * into the folder keeps their rows, it cannot solve them. */
int ncp_resume_graded_count(const ncp_resume *rs);
const char *ncp_resume_graded_at(const ncp_resume *rs, int i);
/* The latest configuration recorded in dir's journal (compact JSON, as ncp_resume_config
 * writes it; the caller frees). NCP_ERR_INPUT when dir holds no journal. */
int ncp_resume_recorded(const char *dir, char **config, ncp_error *err);

/* Pairs in the journal when it was opened (results of earlier runs). */
int ncp_resume_earlier(const ncp_resume *rs);
/* fsync the journal (end of a run). */
int ncp_resume_sync(ncp_resume *rs, ncp_error *err);
void ncp_resume_close(ncp_resume *rs);

#endif
