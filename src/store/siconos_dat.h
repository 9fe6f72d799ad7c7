/* Siconos numerics' own text problem files (`.dat`): the local (fc3d: W, q, mu) and global
 * (gfc3d: M, H, q, b, mu) frictional-contact problems of Siconos's test data, read through
 * libsiconos-numerics (frictionContact_newFromFile, globalFrictionContact_newFromFile), so that
 * ncpbench reads exactly what Siconos reads. Built without Siconos (-Dsiconos=disabled, or the
 * package missing), a .dat file is refused with NCP_ERR_INPUT naming the file and the option.
 *
 * A file is a Siconos problem file when its name ends in ".dat" (any case); its kind is decided
 * by content: the file is read as fc3d, and as gfc3d when that fails or leaves anything but
 * white space unread (the two formats begin alike: dimension, number of contacts, a
 * NumericsMatrix). Both trial readings run in a child process (util/isolate.h): Siconos 4.4's
 * readers trust the sizes they read and can crash or abort on a damaged file; such a file is
 * NCP_ERR_INPUT naming it, and the reading proper runs here only for a kind the child read to
 * the end.
 *
 * Mapping (the same as FCLib's, store/fclib_io.h, since Siconos's two forms are FCLib's):
 *   fc3d   u = W r + q: a dual-only problem, D = W (dense m x m), v_f = q;
 *   gfc3d  M v = q + H r, u = H^T v + b: sparse primal data, A_sparse = M (never densified,
 *          whatever storage the file uses), J = H^T (sparse), b_ours = q, e = b; D and v_f from
 *          a sparse factorisation of M, as for an FCLib global problem.
 * Contacts are normal-first 3-blocks in both. */
#ifndef NCP_SICONOS_DAT_H
#define NCP_SICONOS_DAT_H

#include "core/problem.h"

/* 1 when path names a Siconos .dat file (its extension). A file given by name is read as one
 * (and refused with the reader's message when it is not). */
int ncp_siconos_dat_is(const char *path);
/* 1 when the file's head is a Siconos problem's: three integers, the dimension (2 or 3), the
 * number of contacts (>= 1) and a NumericsMatrix storage type (0 dense, 1 sparse-block, 2
 * sparse). What a directory search uses to tell Siconos's .dat files from others (gnuplot data,
 * ncpbench's own perf_profiles.dat). Reads no more than the first line's worth. */
int ncp_siconos_dat_sniff(const char *path);

/* Reads the one problem of a .dat file into *p (initialised by the caller; named `name`),
 * checked and completed (D and v_f present). budget: util/membudget.h (<= 0: default).
 * sym_tol: the global form's M may be asymmetric by |M - M^T|_F <= sym_tol |M|_F (LMGC90's
 * exports miss a mirror entry); it is then replaced by its symmetric part, with a note; a
 * larger asymmetry is refused. <= 0: NCP_SYM_TOL_DEFAULT (core/problem.h). */
int ncp_siconos_dat_read(const char *path, const char *name, double budget, double sym_tol,
                         ncp_problem *p, ncp_error *err);

#endif
