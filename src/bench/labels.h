/* Hardness labels of a problem (docs/design.md §5.7.2; `ncpbench describe`, summary.json
 * "problem_labels", OUT/labels.csv): the characteristics by which Acary, Brémond and Huber 2018
 * describe and split their test sets, so that a table or a profile can be read by kind of
 * problem (a rank-deficient W is what separates the solvers there).
 *
 * Of the problem alone:
 *   contacts           contact blocks n_c
 *   dofs               generalised velocities n (0: a dual-only problem, W given without M, H)
 *   rows               m (3 n_c plus the other blocks' rows)
 *   contact_density    3 n_c / n (Acary et al. 2018), NaN without dofs
 *   rank, rank_ratio   rank of W (= rank of H = J^T for a problem with M: W = H^T M^-1 H, M
 *                      SPD), rank / m; rank_ratio < 1: W singular
 *   cond               lambda_max / lambda_min of W (the symmetric part of W when W is not
 *                      symmetric): +inf when W is singular
 *   cond_range         lambda_max / the smallest eigenvalue counted in the rank: W's
 *                      conditioning on its range, the one a rank-deficient W still has
 *   mu_min, mu_max     friction coefficients of the contacts (NaN without contacts)
 *   method             how rank and cond were found:
 *     "eig"            exact: the eigenvalues of the smaller of F F^T (= W) and F^T F, F =
 *                      J L^-T (A = L L^T, core/dop.h's low-rank factor) when A is dense with
 *                      n <= eig_max (cost O(m n min(m, n) + n^3)); else, when m <= eig_max, of
 *                      W itself (as read, built by ncp_problem_dual_view from sparse primal
 *                      data, or for a dense A of more than eig_max dofs column by column
 *                      through A's blocks: m operator products; cost O(m^3));
 *                      eig_max = NCP_LABELS_EIG_MAX by default
 *     "estimate"       beyond that: rank is an upper bound, min(n, m - rows of J or W that
 *                      are structurally zero) (a bound below m proves W singular: cond =
 *                      +inf); lambda_max and lambda_min are the extreme
 *                      Ritz values of NCP_LABELS_LANCZOS steps of Lanczos with full
 *                      reorthogonalisation on W through core/dop.h (no dense W), so cond and
 *                      cond_range are lower bounds (lambda_max's Ritz value is below it,
 *                      lambda_min's above it); O(k (cost of W x) + m k^2)
 *     "none"           no rows (m = 0)
 *     "failed"         W could not be formed (A not positive definite to working precision;
 *                      a run's labels only: the pass goes on, rank 0 and cond NaN, a warning
 *                      names the problem)
 *
 * At an answer lambda (the best answer of a run: the lowest stopping metric of any row):
 *   open               lambda_n <= NCP_ACTIVE_REL max_k lambda_n,k: not carrying load (the rule
 *                      of metrics/ active_contacts, so stick + slide = active_contacts)
 *   slide              carrying load with ||u_T|| > NCP_LABELS_SLIP_REL max(||v_f||_inf,
 *                      ||u||_inf) (u = W lambda + v_f)
 *   stick              carrying load, not sliding
 * and from the run's rows: solved_by converged rows of the problem, of nsolvers rows. */
#ifndef NCP_LABELS_H
#define NCP_LABELS_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "core/problem.h"

#define NCP_LABELS_EIG_MAX 1200
#define NCP_LABELS_LANCZOS 64
#define NCP_LABELS_SLIP_REL 1e-6

typedef struct ncp_labels {
    char problem[256];
    int contacts, dofs, rows;
    double contact_density;
    int rank;
    double rank_ratio;
    int rank_exact;       /* 1: rank computed, 0: the upper bound of "estimate" */
    double lambda_max, lambda_min; /* of W (Ritz values for "estimate") */
    double cond, cond_range;
    double mu_min, mu_max;
    char method[16];      /* "eig", "estimate", "none", "failed" */
    /* at an answer: -1 when there is none */
    int stick, slide, open;
    char answer_of[64];   /* the solver whose answer it is ("" none) */
    double answer_metric; /* its stopping metric (NaN none) */
    /* of a run: -1 when not known */
    int solved_by, nsolvers;
    double ms;            /* time the labels of the problem took (wall) */
} ncp_labels;

typedef struct ncp_labels_opts {
    int eig_max;   /* <= 0: NCP_LABELS_EIG_MAX */
    int lanczos;   /* <= 0: NCP_LABELS_LANCZOS */
} ncp_labels_opts;

/* The labels of p alone (answer and run fields -1 / empty). p must be complete (v_f set; read
 * by store.h's loaders, or captured). opts may be NULL. */
int ncp_labels_problem(const ncp_problem *p, const ncp_labels_opts *opts, ncp_labels *L,
                       ncp_error *err);
/* Sets stick / slide / open of L at lambda (m entries). */
int ncp_labels_answer(const ncp_problem *p, const double *lambda, ncp_labels *L, ncp_error *err);

/* CSV (header then one row per problem) and JSON forms; NaN is "nan" / null, -1 counts empty /
 * null. */
void ncp_labels_csv_header(FILE *f);
void ncp_labels_csv_row(FILE *f, const ncp_labels *L);
cJSON *ncp_labels_json(const ncp_labels *L);
/* The array of L[0..n)'s objects (NULL when out of memory). */
cJSON *ncp_labels_json_array(const ncp_labels *L, int n);
/* One line of the describe table (header with L NULL). */
void ncp_labels_print(FILE *f, const ncp_labels *L);
/* The class of a label value for splitting profiles (`figures --profiles --split-by NAME`):
 * "rank" (full rank | rank-deficient), "density" (3 n_c / n <= 1 | > 1), "cond" (<= 1e8 | >
 * 1e8 or singular), "mu" (mu_max <= 0.5 | > 0.5), "size" (m <= 300 | > 300); "no spectrum"
 * for rank and cond when the method is "failed". Returns the
 * class name, or NULL for an unknown split (the names: NCP_LABELS_SPLITS). */
#define NCP_LABELS_SPLITS "rank, density, cond, mu, size"
const char *ncp_labels_class(const ncp_labels *L, const char *split);

/* The labels of a finished run (pipeline.c, after ncp_bench_run): the best answer of each
 * problem and its solved-by count from OUT/metrics.csv and OUT/solutions.h5, then per problem
 * ncp_labels_run_add, then ncp_labels_run_end, which writes OUT/labels.csv, adds
 * "problem_labels" to OUT/summary.json and a "Problems" table to OUT/results.md. */
typedef struct ncp_labels_run ncp_labels_run;
int ncp_labels_run_begin(const char *out_dir, const char *stop_metric, ncp_labels_run **out,
                         ncp_error *err);
int ncp_labels_run_add(ncp_labels_run *r, const ncp_problem *p, ncp_error *err);
/* The same run's labels from the rows as they finish, while the problems are still held
 * (pipeline.c: a collection's batches, labelled once their pairs are done, so that no file is
 * read again): ncp_labels_run_begin_live reads no output; ncp_labels_run_row takes every row of
 * a problem (in the order of metrics.csv: status as ncp_status_name's, the stopping metric, the
 * answer lambda, m entries, NULL for a row without one) before ncp_labels_run_add labels it;
 * then ncp_labels_run_end as above. The labels are those of the pass over metrics.csv and
 * solutions.h5. */
int ncp_labels_run_begin_live(const char *out_dir, ncp_labels_run **out, ncp_error *err);
int ncp_labels_run_row(ncp_labels_run *r, const char *problem, const char *solver, int status,
                       int converged, double metric, const double *lambda, int m, ncp_error *err);
int ncp_labels_run_end(ncp_labels_run *r, ncp_error *err);
void ncp_labels_run_free(ncp_labels_run *r);

/* OUT/labels.csv read back, for the profile split: the class of each problem under `split`
 * (ncp_labels_class), parallel to names[0..n) (NULL: a problem without labels). *classes
 * holds n pointers to static strings; the caller frees the array. */
int ncp_labels_read_classes(const char *out_dir, const char *split, char *const *names, int n,
                            const char ***classes, ncp_error *err);

#endif
