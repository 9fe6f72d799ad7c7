/* HDF5 storage (docs/design.md, §8): problems.h5 (many problems, primal data plus our extras,
 * optionally FCLib groups), plain FCLib files (export and import), and solutions.h5. Files are
 * written under a temporary name and renamed when closed, so an interrupted or failed write
 * never leaves a half-written file under the final name; solutions.h5 is flushed after every problem so that
 * finished results survive an interruption (it is then closed and renamed by the signal-safe
 * shutdown path of the CLI).
 *
 * Layout of problems.h5 (what defines a problem, stored once; datasets of 1 KiB or more are
 * chunked and compressed, shuffle + deflate, when the HDF5 library can encode deflate):
 *   /meta                     attrs: ncpbench_version, scene (JSON text), seed, scene_name
 *   /problems/<name>/         attrs: nv, m, nblocks, ncontacts, h, scene, step, case_index,
 *                             seed, driver
 *       blocks/{type,row,contact,mu,k,c,phi}   one entry per block
 *       primal/{A, b, e, J/(FCLib CSR matrix group)}   A = dense nv x nv
 *       dual/{D, vf}          D dense m x m — only for a problem without primal data (e.g. an
 *                             imported dual-only FCLib local problem), or whose D is not what
 *                             the primal data give; otherwise the reader rebuilds D = J A^-1 J^T
 *                             and v_f = J A^-1 b + e with ncp_problem_compute_dual, the function
 *                             the capture used, so the reloaded D is bitwise the captured one
 *       contacts/{gap, point, frame, body, stiffness, dissipation}
 *       structure/...         when captured
 *       guesses/{number_of_guesses, 1/{lambda, v}}   the state the problem starts from
 *                             (problem.h guess_lambda: m rows in our order, guess_v: nv), in
 *                             FCLib's /guesses layout; every captured problem has it, files
 *                             without it load with no guess
 *       fclib_local/, fclib_global/   FCLib layout — only with ncp_store_set_fclib_groups
 *                             (`--store-fclib`); `ncpbench export --fclib` writes plain FCLib
 *                             files instead. Ignored on reading.
 * Files of earlier versions (dual/ always, fclib groups, contiguous datasets) load unchanged;
 * their stored D is used as stored.
 */
#ifndef NCP_STORE_H
#define NCP_STORE_H

#include <stdint.h>

#include "core/problem.h"

typedef struct ncp_store ncp_store;

/* Creates `path` (written as path.tmp-<pid>, renamed on close). */
int ncp_store_create(const char *path, const char *scene_name, const char *scene_json,
                     uint64_t seed, ncp_store **out, ncp_error *err);
/* Also write the FCLib groups fclib_local / fclib_global into every problem with a contact
 * (on != 0; default off: they repeat what primal/ holds, and D = W is dense). Call before the
 * first ncp_store_append. */
void ncp_store_set_fclib_groups(ncp_store *st, int on);
int ncp_store_append(ncp_store *st, const ncp_problem *p, ncp_error *err);
/* Closes and renames into place. */
int ncp_store_close(ncp_store *st, ncp_error *err);
/* Closes and deletes the temporary file (error paths). */
void ncp_store_abort(ncp_store *st);

/* Reads every problem of a file: our problems.h5, or a plain FCLib file (local or global; one
 * problem named after the file). Every returned problem has its dual data (derived from the
 * primal data when the file has none). Primal data: dense as stored; sparse for an FCLib
 * global problem (has_sparse_primal, M never densified); none for an FCLib local problem;
 * derived from D for a dual-only problem of our own files unless D's symmetric part is not
 * positive semi-definite (ncp_problem_complete). Errors are NCP_ERR_INPUT naming the file, the
 * group and the field (rolling-friction FCLib groups included). */
int ncp_load_problems(const char *path, ncp_problem **probs, int *n, ncp_error *err);
/* The same under a memory budget in bytes (util/membudget.h, --max-memory; <= 0: the default,
 * which ncp_load_problems uses): the sizes a file declares are checked against what the file
 * stores and against the budget before anything is allocated from them (h5util.h); a file
 * that declares more is refused with NCP_ERR_INPUT naming the file, the dataset and the
 * size. */
int ncp_load_problems_budget(const char *path, double budget, ncp_problem **probs, int *n,
                             ncp_error *err);
void ncp_problems_free(ncp_problem *probs, int n);

/* The reading in two steps, for a reader that derives only what it will use (the ranks of an
 * MPI run, bench.h's sources with a finish step): ncp_load_problems_raw reads every problem of
 * a file as stored, with the checks of the reading itself and nothing derived (a problem stored
 * by its primal data has no D yet), which is cheap; ncp_problem_finish then does for one of
 * them the rest of what ncp_load_problems_budget does (D = J A^-1 J^T, or a primal form from
 * D, within the budget, and the checks of the values), giving the same problem bit for bit and
 * the same messages. origin[k] (an array to free()) says where problem k came from. sym_tol: a
 * global problem's M read as its symmetric part within it (ncp_load_problems_isolated_tol). */
typedef struct ncp_problem_origin {
    int fclib;       /* the one problem of a plain FCLib file */
    char group[512]; /* ours: its group, "/problems/NAME" */
} ncp_problem_origin;
int ncp_load_problems_raw(const char *path, double budget, double sym_tol, ncp_problem **probs,
                          ncp_problem_origin **origin, int *n, ncp_error *err);
int ncp_problem_finish(ncp_problem *p, const char *path, const ncp_problem_origin *origin,
                       double budget, ncp_error *err);
/* A finished problem back to its state as read, for a reader that holds many problems and
 * solves a few at a time (a lazy collection under MPI): what ncp_problem_finish derived for a
 * problem stored without its dual data (its m x m D, v_f, and the flags and provenance note that
 * go with them) is freed, and finishing it again gives the same bits (the derivation is
 * deterministic). keep (zeroed before the first use) records what release restores; a problem
 * stored with its D is left finished (release returns 0: a primal form derived from D is not
 * dropped). */
typedef struct ncp_problem_keep {
    int derived;        /* 1: finish derived D and v_f, release may drop them */
    int dual_symmetric; /* as read */
    char *note;         /* provenance_note as read (NULL: none) */
} ncp_problem_keep;
int ncp_problem_finish_keep(ncp_problem *p, const char *path, const ncp_problem_origin *origin,
                            double budget, ncp_problem_keep *keep, ncp_error *err);
int ncp_problem_release(ncp_problem *p, ncp_problem_keep *keep); /* 1: back to as read */
void ncp_problem_keep_free(ncp_problem_keep *keep);
/* ncp_load_problems_budget on an input file that may be damaged: the file is first read to the
 * end in a child process (util/isolate.h: libhdf5 1.10 can crash on corrupt metadata, which no
 * check of ours can see first); a crash there is NCP_ERR_INPUT naming the file, otherwise the
 * file is read here as by ncp_load_problems_budget. Every command that reads problem files a
 * user gives uses this; the fuzz targets call the reader itself, so that they see the crash. */
int ncp_load_problems_isolated(const char *path, double budget, ncp_problem **probs, int *n,
                               ncp_error *err);
/* ncp_load_problems_isolated with a tolerance on the asymmetry of a global problem's M (FCLib,
 * Siconos .dat): fclib_io.h ncp_mass_symmetric, `--sym-tol`; <= 0: the default. */
int ncp_load_problems_isolated_tol(const char *path, double budget, double sym_tol,
                                   ncp_problem **probs, int *n, ncp_error *err);
/* The same, ending in ncp_load_problems_raw. (The child only reads the file as stored: the
 * crashes it guards against are libhdf5's, and deriving is ours.) */
int ncp_load_problems_isolated_raw(const char *path, double budget, double sym_tol,
                                   ncp_problem **probs, ncp_problem_origin **origin, int *n,
                                   ncp_error *err);

#endif
