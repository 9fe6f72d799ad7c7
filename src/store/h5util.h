/* Private HDF5 helpers shared by store.c (problems.h5), fclib_io.c (FCLib groups and plain
 * FCLib files) and solutions.c (solutions.h5). Implemented in store.c.
 *
 * Every helper takes a context naming the file, so that each error message says which file,
 * which group/dataset and what is wrong. Readers never trust the file: they check the datatype
 * class, the rank and every dimension before reading into a buffer, check indices against the
 * matrix dimensions and reject non-finite values, so a malformed file is an NCP_ERR_INPUT and
 * never a crash (unlike libfclib, which exit()s). Writers produce the
 * exact datasets libfclib 3.1 writes (int32[1] scalars through H5LTmake_dataset_int, rank-1
 * native doubles, H5LTmake_dataset_string strings, as libfclib writes them); in a file of
 * ncp_h5_create_file_compressed the larger ones are chunked and deflated, same type and shape. */
#ifndef NCP_H5UTIL_H
#define NCP_H5UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "core/la.h"
#include "util/ncp_error.h"
#include "core/problem.h"

/* Turns off HDF5's automatic error-stack printing (we report errors ourselves). This is
 * process-global HDF5 state, not ours; every public entry point of store.c, fclib_io.c and
 * solutions.c calls it, and calling it again is harmless. */
void ncp_h5_quiet(void);

/* "gpath/name" into buf (n bytes; a cut name ends in "..."). */
void ncp_h5_path(char *buf, size_t n, const char *gpath, const char *name);

typedef struct ncp_h5ctx {
    const char *file; /* path shown in messages */
    ncp_error *err;
    double budget;    /* readers: memory budget in bytes (util/membudget.h); <= 0: the default */
    int raw;          /* problem readers: stop at the data as stored (ncp_load_problems_raw) */
    double sym_tol;   /* global problems' M: asymmetry read as its symmetric part (fclib_io.h
                       * ncp_mass_symmetric); <= 0: the default */
} ncp_h5ctx;

/* Closes file f and everything still open in it (datasets, groups, named types, attributes
 * first, the file last), so that no error path leaves an id behind. discard = 1 on error paths
 * (the file will be removed, or kept as it was at its last flush): the close's own writes are
 * thrown away. Disk full (ENOSPC, EFBIG, EIO) never reaches libhdf5's flush, which cannot
 * recover from a failure and would crash in its exit handler (h5util.c). < 0 when anything
 * failed: the file on disk is not complete. f < 0: a no-op returning 0. */
int ncp_h5_close_file(hid_t f, int discard);
/* Reserves (fallocate) the blocks that a write of `bytes` more bytes into loc's file may need,
 * with a margin for libhdf5's metadata; < 0 with errno (ENOSPC, EFBIG, EDQUOT, EIO) when the
 * disk cannot hold them: the write must then not be attempted (h5util.c says why). Every
 * writer here calls it; a writer of its own (traces.c) must too. */
int ncp_h5_reserve(hid_t loc, double bytes);
/* H5Fflush that never lets libhdf5 see a full disk (same reason): < 0 when the space for the
 * flush cannot be reserved or the flush fails; the file must then be closed with discard. */
int ncp_h5_flush_file(hid_t f);

/* Creates (truncates) an HDF5 file with metadata checksums (format >= 1.8); < 0 on failure. */
hid_t ncp_h5_create_file(const char *path);
/* The same, for a file whose datasets the writers below store compressed: every dataset of at
 * least NCP_H5_COMPRESS_MIN bytes chunked, with the shuffle and deflate filters (level
 * NCP_H5_DEFLATE_LEVEL), when this HDF5 can encode deflate (contiguous otherwise, without
 * error). problems.h5 uses it; plain FCLib files and solutions.h5 keep the contiguous
 * datasets libfclib writes. Readers need nothing: HDF5 decodes filters transparently. The
 * choice travels with the file handle (a temporary property of its creation property list,
 * never written to disk), so every writer taking a location in the file follows it. */
hid_t ncp_h5_create_file_compressed(const char *path);
/* Smaller datasets stay contiguous: a chunk index costs about what deflate saves there.
 * Level 4: on boltnut's problems.h5 within 1% of level 9's size (5.58 vs 5.55 MB), and
 * faster. */
#define NCP_H5_COMPRESS_MIN 256
#define NCP_H5_DEFLATE_LEVEL 4

/* ---- writing (errors are NCP_ERR_IO: the data was validated before) ---- */
int ncp_h5_group(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name, hid_t *out);
int ncp_h5_write_int1(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name, int v);
int ncp_h5_write_ivec(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name, int n,
                      const int *v);
int ncp_h5_write_dvec(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name, int n,
                      const double *v);
/* rank-2/3 arrays in C (row-major) order */
int ncp_h5_write_iarr(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                      int rank, const hsize_t *dims, const int *v);
int ncp_h5_write_darr(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                      int rank, const hsize_t *dims, const double *v);
/* A column-major rows x cols matrix as a (rows, cols) dataset, so h5py/numpy show the matrix
 * itself (HDF5 is row-major; we transpose on write and on read). */
int ncp_h5_write_dmat(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                      int rows, int cols, const double *A);
int ncp_h5_write_string(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                        const char *s);
int ncp_h5_attr_int(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name, int v);
int ncp_h5_attr_double(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                       double v);
int ncp_h5_attr_u64(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                    uint64_t v);
/* Fixed-length NUL-terminated UTF-8 string attribute (any length: format >= 1.8 moves large
 * attributes to dense storage). NULL is written as "". */
int ncp_h5_attr_str(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                    const char *s);

/* FCLib matrix group (libfclib's fclib_matrix): nzmax, m, n, nz (>= 0 triplet, -1 CSC, -2 CSR),
 * p, i, x. Arrays are borrowed. Triplets: the writers (Siconos, and libfclib itself, whose
 * fclib_matrix is CSparse's cs) put row indices in i and column indices in p, as CSparse does;
 * the comment on fclib_matrix in fclib.h says the opposite. */
typedef struct ncp_h5_sparse {
    int nz; /* storage kind as in FCLib */
    int m, n, nzmax;
    const int *p, *i;
    const double *x;
} ncp_h5_sparse;
int ncp_h5_write_sparse(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                        const ncp_h5_sparse *S);

/* CSC of a dense column-major matrix (every entry != 0, i.e. the non-zeros; FCLib has no dense
 * type of the file). Allocates p (n+1), i, x (nzmax each). */
int ncp_h5_csc_from_dense(int m, int n, const double *A, int **p, int **i, double **x, int *nnz,
                          ncp_error *err);

/* ---- reading (errors are NCP_ERR_INPUT naming file, dataset and the problem) ----
 * A dataset's extent is only a declaration. Before a reader allocates what a dataset declares,
 * the dataset must hold it (docs/design.md §4, "untrusted input"): storage inside the file, no
 * external or virtual storage, and above 1 MiB contiguous data allocated in full, every chunk
 * of chunked data written (a chunk never written reads as the fill value: legal HDF5, and
 * tolerated below 1 MiB, where Siconos' samples leave /guesses unwritten, but never what a
 * writer produces for data it was given), filtered chunks not compressed beyond deflate's
 * 1032:1; and the declared bytes must fit the memory budget (c->budget). */
int ncp_h5_exists(hid_t loc, const char *name); /* 1 if the link exists */
int ncp_h5_open_group(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                      hid_t *out);
/* int32[1] (what FCLib writes) or a scalar dataset */
int ncp_h5_read_int1(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                     int *v);
/* Rank-1 vectors; expect < 0 accepts any length. *v is allocated (even for length 0). */
int ncp_h5_read_ivec(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                     long expect, int **v, int *n);
int ncp_h5_read_dvec(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                     long expect, double **v, int *n); /* rejects NaN/Inf */
/* Exact-shape arrays into caller buffers. */
int ncp_h5_read_iarr(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                     int rank, const hsize_t *dims, int *v);
int ncp_h5_read_darr(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                     int rank, const hsize_t *dims, double *v); /* rejects NaN/Inf */
/* Inverse of ncp_h5_write_dmat: checks the shape (rows, cols) first, then allocates *A. */
int ncp_h5_read_dmat(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                     int rows, int cols, double **A);
/* NCP_ERR_INPUT (naming gpath/name and the size) if a dense rows x cols matrix of doubles
 * does not fit the memory budget c->budget. */
int ncp_h5_dense_ok(const ncp_h5ctx *c, const char *gpath, const char *name, int rows, int cols);
/* NCP_ERR_INPUT naming the file, gpath/name, `what` and the size when `bytes` do not fit the
 * memory budget c->budget. */
int ncp_h5_budget(const ncp_h5ctx *c, const char *gpath, const char *name, const char *what,
                  double bytes);
/* The rule above for an open dataset ds of n entries, `bytes` bytes in memory: NCP_ERR_INPUT
 * naming the file, gpath/name and what is missing. Every reader here applies it before it
 * allocates; a reader of its own (traces.c) must too. */
int ncp_h5_check_stored(const ncp_h5ctx *c, hid_t ds, const char *gpath, const char *name,
                        double n, double bytes);
int ncp_h5_read_attr_int(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                         int *v);
int ncp_h5_read_attr_double(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                            double *v);
int ncp_h5_read_attr_u64(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                         uint64_t *v);
/* Fixed or variable-length string attribute; *s allocated with ncp_malloc. */
int ncp_h5_read_attr_str(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                         char **s);
/* The same for a string dataset holding one string (what H5LTmake_dataset_string and h5py
 * write); strings over 1 MiB are refused. */
int ncp_h5_read_string(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                       char **s);

/* An FCLib matrix group read in any of the three storages, validated (sizes, nnz <= nzmax, index
 * ranges, pointer monotonicity, finite values) and returned as triplets in storage order.
 * Triplet storage is read as CSparse does (i = rows, p = columns); when only the other reading
 * (p = rows, i = columns: the fclib.h comment) keeps every index inside m x n, that one is used.
 * `reading` says which, for the problem's provenance. */
enum {
    NCP_H5_COMPRESSED = 0,     /* CSC or CSR */
    NCP_H5_TRIPLET_I_ROWS = 1, /* triplet, i = rows, p = columns (CSparse, Siconos) */
    NCP_H5_TRIPLET_P_ROWS = 2  /* triplet, p = rows, i = columns (the only reading in range) */
};
typedef struct ncp_h5_triplets {
    int m, n, nnz;
    int *row, *col;
    double *val;
    int reading;  /* NCP_H5_COMPRESSED, NCP_H5_TRIPLET_I_ROWS or NCP_H5_TRIPLET_P_ROWS */
    int both_fit; /* triplet: the other reading would have been in range too */
} ncp_h5_triplets;
int ncp_h5_read_sparse(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                       ncp_h5_triplets *T);
void ncp_h5_triplets_free(ncp_h5_triplets *T);
/* Adds the triplets into a dense column-major matrix with leading dimension ld, at offset
 * (r0, c0); transpose = 1 adds T^T. Duplicates are summed (CSparse's convention); the first
 * entry of a position is stored as is, so -0.0 and every bit survive a round trip. */
void ncp_h5_triplets_to_dense(const ncp_h5_triplets *T, int transpose, double *A, int ld, int r0,
                              int c0);

/* Builds a CSR matrix (rows sorted, columns sorted within rows, duplicates summed in file
 * order) from nt triplet lists; list k is added transposed when transpose[k] and shifted down
 * by row0[k] rows. */
int ncp_h5_csr_from_triplets(int m, int n, int nt, const ncp_h5_triplets *const *T,
                             const int *transpose, const int *row0, ncp_csr *S, ncp_error *err);

/* Error helpers: a write failure (what, at gpath/name) as NCP_ERR_IO; a read problem as
 * NCP_ERR_INPUT naming the file and the dataset path. */
int ncp_h5_werr(const ncp_h5ctx *c, const char *what, const char *gpath, const char *name);
int ncp_h5_rerr(const ncp_h5ctx *c, const char *gpath, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A creation property list of class cls that does not track modification times, so that the
 * same capture gives byte-identical files. */
hid_t ncp_h5_untimed_plist(hid_t cls);

#endif
