/* A collection of problem files for `ncpbench solve FILE|DIR...` (docs/design.md §5.7).
 *
 * A file argument is taken as given (the reader says what is wrong with it). A directory is
 * searched recursively, entries in name order, hidden ones and symbolic links to directories
 * skipped, for *.h5 / *.hdf5 files that hold problems: an ncpbench /problems group or a plain
 * FCLib problem (/fclib_local or /fclib_global), and for Siconos *.dat problems (their head is
 * Siconos's: store/siconos_dat.h, ncp_siconos_dat_sniff). Other such files there (solutions.h5,
 * gnuplot's .dat, ...) are skipped as not problem files, and named. A file that fails to load
 * (NCP_ERR_INPUT: damaged, refused by a check) does not stop the run of a collection of two or
 * more files: it is recorded with the reader's message and the next file is read (a collection
 * of one file stops with its error, before any output exists).
 *
 * Problem names: with one file argument, the file's own names. Otherwise every name starts with
 * the file's prefix: for a file in a directory argument, the directory's last component and the
 * file's path below it, without the extension and with '/' written as '.' (dir/a/b.hdf5 ->
 * "dir.a.b"); for a file argument, its stem. A plain FCLib file's one problem is named by the
 * prefix, an ncpbench file's problems "<prefix>-<name>".
 *
 * The source hands the problems out file by file, each file read once, in batches of whole
 * files (about 64 problems or 256 MiB of matrices), so memory stays bounded and every solver of
 * the run sees a problem from the same read. */
#ifndef NCP_COLLECTION_H
#define NCP_COLLECTION_H

#include "bench/bench.h"

typedef struct ncp_collection ncp_collection;

/* Lists the files of paths. NCP_ERR_INPUT: a path that does not exist, a directory with no
 * problem file in it or below it, two files with the same prefix. */
int ncp_collection_open(const char *const *paths, int n, ncp_collection **out, ncp_error *err);
int ncp_collection_nfiles(const ncp_collection *c);
/* Files found in directories that hold no problem (not problem files). */
int ncp_collection_skipped(const ncp_collection *c);
/* Files that failed to load, so far (the count grows as the source reads the files). */
int ncp_collection_nfailed(const ncp_collection *c);
/* The i-th failed (failed != 0: *reason is the reader's message) or skipped (not a problem
 * file) file; 0 when there is no such i. */
int ncp_collection_note(const ncp_collection *c, int i, int failed, const char **path,
                        const char **reason);
/* Lazy (before ncp_collection_source): every file is read as stored (ncp_load_problems_raw)
 * and each problem finished on demand by the source's finish step (bench.h), so that the ranks
 * of an MPI run each derive only the problems they solve, and release what they derived once
 * done with a problem (bench.h's release step); batches are then sized by the problems as read.
 * Errors of the finish step (a NaN, a singular M) then stop the run when the problem is first
 * solved, not before it starts. */
void ncp_collection_set_lazy(ncp_collection *c, int lazy);
/* The batch source over the files (valid while c lives). */
void ncp_collection_source(ncp_collection *c, ncp_bench_source *src);
/* Memory budget of the reader (ncp_load_problems_budget; <= 0: the default). */
void ncp_collection_set_budget(ncp_collection *c, double bytes);
/* --sym-tol: the asymmetry of a global problem's M read as its symmetric part
 * (ncp_load_problems_isolated_tol; <= 0: the default; a lazy collection uses the default). */
void ncp_collection_set_sym_tol(ncp_collection *c, double tol);
void ncp_collection_free(ncp_collection *c);

#endif
