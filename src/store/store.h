/* HDF5 storage (docs/design.md, §8): problems.h5 (many problems, FCLib-compatible groups plus our
 * extras), plain FCLib files (export and import), and solutions.h5. Files are written under a
 * temporary name and renamed when closed, so an interrupted or failed write never leaves a
 * half-written file under the final name; solutions.h5 is flushed after every problem so that
 * finished results survive an interruption (it is then closed and renamed by the signal-safe
 * shutdown path of the CLI).
 *
 * Layout of problems.h5:
 *   /meta                     attrs: ncpbench_version, scene (JSON text), seed, scene_name
 *   /problems/<name>/         attrs: nv, m, ncontacts, h, scene, step, case_index, seed, driver
 *       fclib_local/          FCLib layout (W CSC, vectors/q, vectors/mu, spacedim=3) — only if
 *                             every row is a contact
 *       fclib_global/         FCLib layout (M = A, H = J^T, f = b, w = e, mu; bilateral rows in G
 *                             with vectors/b) — only if every row is a contact or bilateral
 *       blocks/{type,row,mu,k,c,phi}   one entry per block
 *       primal/{A, b, e, J/(FCLib CSR matrix group)}
 *       dual/{D, vf}          D dense m x m
 *       contacts/{gap, point, frame, body}
 *       structure/...         when captured
 */
#ifndef NCP_STORE_H
#define NCP_STORE_H

#include <stdint.h>

#include "core/problem.h"

typedef struct ncp_store ncp_store;

/* Creates `path` (written as path.tmp-<pid>, renamed on close). */
int ncp_store_create(const char *path, const char *scene_name, const char *scene_json,
                     uint64_t seed, ncp_store **out, ncp_error *err);
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
void ncp_problems_free(ncp_problem *probs, int n);

#endif
