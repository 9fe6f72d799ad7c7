/* Resuming a benchmark run (ncpbench solve; docs/design.md §5.7).
 *
 * OUT/config.json records the configuration of the results in OUT (solvers, budget, stopping
 * metric, parameters, reconstruction and warm-start options, traces, version) and its
 * fingerprint (FNV-1a 64 of the canonical text). A run of the same configuration keeps every
 * (problem, solver) pair that finished: its metrics.csv row, its trace (traces.h5, and
 * traces.csv with --traces-csv) and its solutions.h5 entry are copied into the new outputs at
 * the pair's place in the run order, and the pair is not solved again. A pair is finished when its row exists, its status is not
 * `stopped` (a solve cut by Ctrl-C), and solutions.h5 holds its answer with the same status
 * and iteration count (unsupported rows have no answer). Another configuration is refused
 * unless the caller discards the results (--fresh).
 *
 * Nothing finished is lost to an interruption: the earlier metrics.csv is renamed to *.prev
 * before the new one is written and removed only once that is complete; solutions.h5 and
 * traces.h5 are renamed to *.prev-<n> and read from there (the new ones are written under a
 * temporary name). A run killed outright leaves *.prev, metrics.csv, solutions.h5.tmp-<pid>
 * and traces.h5.tmp-<pid>: the next run reads them all (a pair found twice: the newer
 * metrics.csv row wins). The traces.csv of a run before traces.h5 is converted. */
#ifndef NCP_RESUME_H
#define NCP_RESUME_H

#include <stdio.h>

#include "bench/bench.h"
#include "bench/output.h"
#include "store/solutions.h"

typedef struct ncp_resume ncp_resume;

/* One finished pair of the earlier run. */
typedef struct ncp_resume_row {
    char *problem, *solver;
    int iterations, converged, status;
    double setup_ms, solve_ms;
    double metrics[NCP_NMETRICS];
    char *note, *title, *description;
    int emitted; /* copied into the new outputs */
} ncp_resume_row;

/* The canonical configuration text of a run (compact JSON, parameters sorted). */
int ncp_resume_config(const ncp_bench_opts *o, char **text, ncp_error *err);

/* Prepares out_dir for a run of configuration `config`: records it in config.json and indexes
 * the finished pairs of an earlier run of the same configuration (*rs; NULL when there are
 * none). fresh: earlier results of any configuration are discarded. Another configuration
 * without fresh: NCP_ERR_INPUT naming what differs. Call before the new outputs are created
 * (it moves metrics.csv, solutions.h5 and traces.h5 aside). */
int ncp_resume_open(const char *out_dir, const char *config, int fresh, ncp_resume **rs,
                    ncp_error *err);

/* The earlier result of (problem, solver), or NULL. */
ncp_resume_row *ncp_resume_find(ncp_resume *rs, const char *problem, const char *solver);

/* Copies a finished pair into the new outputs (traces may be NULL: none written) and marks it
 * emitted. Its trace comes from the earlier traces.h5 whose dataset has the row's iterations
 * and status (or from an earlier run's traces.csv, converted when the run opened). */
int ncp_resume_emit(ncp_resume *rs, ncp_resume_row *row, FILE *metrics, ncp_out_traces *traces,
                    ncp_solutions *sol, ncp_error *err);

int ncp_resume_count(const ncp_resume *rs);
ncp_resume_row *ncp_resume_at(ncp_resume *rs, int i);

/* After the new outputs are complete: removes the earlier files moved aside. */
int ncp_resume_finish(ncp_resume *rs, ncp_error *err);
void ncp_resume_free(ncp_resume *rs);

/* Without resuming (ncpbench run): removes OUT/config.json and earlier files moved aside, so
 * that results written now are never taken for those of a recorded configuration. */
int ncp_resume_forget(const char *out_dir, ncp_error *err);

#endif
