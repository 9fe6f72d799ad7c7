/* FCLib files: the fclib_local / fclib_global groups (written by `ncpbench export --fclib`, and
 * beside our own layout in problems.h5 with ncp_store_set_fclib_groups / --store-fclib) and the
 * reader of plain FCLib files (fclib_io.c). */
#ifndef NCP_FCLIB_IO_H
#define NCP_FCLIB_IO_H

#include "store/h5util.h"


/* Writes one plain FCLib file (fclib_local and, when expressible, fclib_global, and the
 * problem's guess as /guesses/1: v, l, u, r; problem.h guess_lambda, guess_v). Returns
 * NCP_ERR_INPUT with a message if the problem has rows FCLib cannot express (unilateral or
 * soft), without creating the file. */
int ncp_fclib_export(const ncp_problem *p, const char *path, ncp_error *err);

/* Writes the groups `fclib_local` (dual: W = D, q = v_f, mu; the problem must be contact-only)
 * and `fclib_global` (primal: M = A, or A_sparse for sparse primal data, H = J^T of the contact
 * rows, G = J^T of the bilateral rows, f = b, w = e of the contact rows, b = e of the bilateral
 * rows) under loc. D and vf are
 * passed separately so that a primal-only problem can provide freshly computed ones. A title
 * string (fclib_local/info/title, fclib_global/info/title) is written when `title` is non-NULL. */
int ncp_fclib_write_local_group(const ncp_h5ctx *c, hid_t loc, const char *gpath,
                                const ncp_problem *p, const double *D, const double *vf,
                                const char *title);
int ncp_fclib_write_global_group(const ncp_h5ctx *c, hid_t loc, const char *gpath,
                                 const ncp_problem *p, const char *title);
/* Reads a plain FCLib file that is already open (root group has fclib_local and/or
 * fclib_global) into *p (initialised by the caller); sets name/scene/provenance, title,
 * description and the first guess. fclib_global gives sparse primal data (has_sparse_primal:
 * M as A_sparse, never densified) and D, v_f computed through a sparse factorisation of M;
 * fclib_local gives D = W as stored (dual_symmetric says whether it is symmetric); a local
 * problem without fclib_global stays dual-only (the harness reconstructs a primal form only on
 * request). */
int ncp_fclib_read_file(const ncp_h5ctx *c, hid_t file, const char *name, ncp_problem *p);
/* A global problem's mass matrix M (FCLib's, Siconos's .dat): a symmetric one is kept; one
 * whose relative asymmetry |M - M^T|_F / |M|_F is at most tol (<= 0: NCP_SYM_TOL_DEFAULT,
 * core/sparse_chol.h) is replaced by its symmetric part, with a note on p (LMGC90's exports
 * miss one mirror entry); a larger one is NCP_ERR_INPUT. where names M in messages. */
int ncp_mass_symmetric(ncp_csr *M, double tol, const char *where, ncp_problem *p, ncp_error *err);
/* The part of ncp_fclib_read_file after the reading (checks, D from a global problem's M, the
 * completion), which c->raw leaves out; c->file names the file in messages. */
int ncp_fclib_finish(const ncp_h5ctx *c, ncp_problem *p);

#endif
