/* Sparse Cholesky of a symmetric positive definite matrix kept in CSR form: the mass matrix M of
 * an FCLib global problem (M v = H r + f), which ncpbench never densifies (an n_dof x n_dof
 * array is out of reach for 10^4 DOFs and more).
 *
 * M is split into the connected components of its sparsity graph (for a multibody M: one block
 * per body or per kinematic tree; a diagonal M gives 1 x 1 blocks). Each block is factorised on
 * its own: by dense Cholesky (core/la.h) when small, by CHOLMOD when larger and ncpbench is built
 * with it (NCP_HAVE_CHOLMOD, -Dsuitesparse), otherwise densely only within a memory limit. */
#ifndef NCP_SPARSE_CHOL_H
#define NCP_SPARSE_CHOL_H

#include <stddef.h>

#include "core/la.h"
#include "util/ncp_error.h"

/* Blocks of at most this many DOFs are always factorised densely. */
#define NCP_SPARSE_DENSE_BLOCK 512
/* Without CHOLMOD, a larger block is factorised densely only if its factor fits this size. */
#define NCP_SPARSE_DENSE_BYTES ((size_t)256 << 20)

typedef struct ncp_sparse_chol_opts {
    int dense_block;    /* 0: NCP_SPARSE_DENSE_BLOCK */
    size_t dense_bytes; /* 0: NCP_SPARSE_DENSE_BYTES */
    int no_cholmod;     /* 1: never use CHOLMOD, even when built with it (tests, comparisons) */
} ncp_sparse_chol_opts;

typedef struct ncp_sparse_chol ncp_sparse_chol;

/* Factorises A (n x n CSR, both triangles stored, symmetric; opts may be NULL). A matrix that
 * is not positive definite gives NCP_ERR_NUMERIC naming the block; a block too large for a
 * dense factor without CHOLMOD gives NCP_ERR_INPUT saying to build with -Dsuitesparse=enabled. */
int ncp_sparse_chol_factor(const ncp_csr *A, const ncp_sparse_chol_opts *opts,
                           ncp_sparse_chol **out, ncp_error *err);
void ncp_sparse_chol_free(ncp_sparse_chol *F);
/* Solves A X = B in place for nrhs right-hand sides (B is n x nrhs, column-major). Not
 * thread-safe on one F (CHOLMOD keeps workspace in it); use one factor per thread. */
int ncp_sparse_chol_solve(ncp_sparse_chol *F, int nrhs, double *B, ncp_error *err);
/* Number of blocks, DOFs of the largest, blocks factorised by CHOLMOD. */
void ncp_sparse_chol_stats(const ncp_sparse_chol *F, int *nblocks, int *max_block,
                           int *ncholmod);
/* Entries of the dense block factors (a solve reads each about twice; blocks factorised by
 * CHOLMOD not counted). */
size_t ncp_sparse_chol_dense_entries(const ncp_sparse_chol *F);
/* Solves A x = b in place for ONE right-hand side with caller scratch `work` (max_block doubles),
 * allocating nothing: the bits of ncp_sparse_chol_solve, for a factor without CHOLMOD blocks only
 * (ncholmod == 0; the caller checks). Read-only on F, so several threads may share it. */
void ncp_sparse_chol_solve1(const ncp_sparse_chol *F, double *b, double *work);
/* The k x k diagonal block B = J_R A^{-1} J_R^T of D for the rows R = r0 .. r0 + k - 1 of J
 * (column-major), from the blocks of A those rows touch only: O(their nonzeros and blocks), not
 * O(n) (a contact's 3 rows meet the two bodies it joins). work: k * max_block doubles. Dense
 * blocks only, read-only on F, as ncp_sparse_chol_solve1. */
void ncp_sparse_chol_delassus_block(const ncp_sparse_chol *F, const ncp_csr *J, int r0, int k,
                                    double *B, double *work);

/* D = J A^{-1} J^T (m x m, column-major, symmetrised as ncp_delassus does) and
 * v_f = J A^{-1} b + e, block by block: a block only meets the rows of J that touch its DOFs.
 * With a single dense block the arithmetic is that of ncp_delassus (same bits). b, e, D or vf
 * may be NULL (b, e: zero; D, vf: not computed). */
int ncp_sparse_chol_delassus(ncp_sparse_chol *F, const double *b, const ncp_csr *J,
                             const double *e, double *D, double *vf, ncp_error *err);

/* Connected components of the sparsity graph of a square CSR A (A_ij != 0 stored joins i and
 * j): block[i] (n entries) numbered 0, 1, ... by their smallest DOF. Returns the number of
 * components, or -NCP_ERR_NOMEM. The blocks of ncp_sparse_chol_factor. */
int ncp_csr_components(const ncp_csr *A, int *block, ncp_error *err);

/* Y = A^{-1} J^T (n x m) kept sparse, for the velocity form of Gauss–Seidel (solvers/common.h):
 * A is block diagonal, so column i of Y (row i of J) is nonzero only on the DOFs of the blocks
 * that row i of J touches, and is stored on exactly those: entries ptr[i] .. ptr[i + 1] of
 * idx (DOF) and val, block by block, DOFs ascending within a block. */
typedef struct ncp_jmap {
    int m, n;
    size_t *ptr; /* m + 1 */
    int *idx;
    double *val;
} ncp_jmap;

/* Y from F and J (m x n CSR): per block, the rows touching it solved together (BLAS-3 chunks
 * of at most 64 MB). NCP_ERR_NOMEM, NCP_ERR_INPUT when J's columns do not match A. */
int ncp_sparse_chol_jmap(ncp_sparse_chol *F, const ncp_csr *J, ncp_jmap *Y, ncp_error *err);
void ncp_jmap_free(ncp_jmap *Y);
/* Entries Y would hold for the partition block[] (n DOFs, nblocks blocks of size[k] DOFs), in
 * O(nnz(J)) without factorising; mark: nblocks ints of scratch. */
size_t ncp_jmap_nnz(int nblocks, const int *block, const int *size, const ncp_csr *J, int *mark);

/* Largest |A_ij - A_ji| of a CSR matrix (a missing entry counts as 0), with its position. */
double ncp_csr_max_asymmetry(const ncp_csr *A, int *row, int *col);
/* |A - A^T|_F / |A|_F of a square CSR matrix (0 for A = 0). */
double ncp_csr_asymmetry_rel(const ncp_csr *A);
/* A replaced by its symmetric part (A + A^T)/2, pattern of A + A^T, columns sorted. */
int ncp_csr_symmetric_part(ncp_csr *A, ncp_error *err);
/* The relative asymmetry |M - M^T|_F / |M|_F up to which a global problem's mass matrix M is
 * read as its symmetric part, with a note (LMGC90's exports: one missing mirror entry gives
 * 1.5e-7, and Siconos reads and solves such files as they are); --sym-tol changes it. */
#define NCP_SYM_TOL_DEFAULT 1e-6

/* ---- Fixed-pattern sparse Cholesky: order and analyse once, refactorise numerically per value
 * set (a matrix A + beta G whose pattern does not change with beta: admm-nosub's eq. 28 of Lee
 * et al. 2025). P A P^T = L L^T with P a fill-reducing ordering, the symbolic factor from the
 * elimination tree (Liu 1990) and an up-looking numeric factorisation (Davis 2006, "Direct
 * Methods for Sparse Linear Systems", §4.2, cs_chol). The ordering: with CHOLMOD
 * (NCP_HAVE_CHOLMOD) the one its analysis picks, approximate minimum degree (Amestoy, Davis &
 * Duff 1996) or METIS nested dissection when AMD's fill is high, near-linear in nnz at any size;
 * without it, minimum degree on the exact elimination graph (Tinney & Walker 1967, scheme 2;
 * Rose 1972) up to NCP_SPCHOL_MD_MAX nodes (the graph is an n^2-bit table) and the natural
 * order above, where L fills in (admm's K on the 12 160-contact wall, nv 9606: 7.8x the
 * estimated flops per iteration of AMD's order). A supernodal factorisation (CHOLMOD's) was
 * measured on that K (nnz(L) 3.8e5, 1.9e7 flops per factorisation) and gained nothing over the
 * up-looking kernel; it is not used. */
#define NCP_SPCHOL_MD_MAX 8192

typedef struct ncp_spchol ncp_spchol;

/* The fill-reducing ordering ncp_spchol_analyse takes (above) for the symmetric adjacency aptr
 * (n + 1), aidx: both triangles, no diagonal, no duplicates; perm[k] = the k-th unknown. */
int ncp_sym_order(int n, const int *aptr, const int *aidx, int *perm, ncp_error *err);
/* Orders and analyses the symmetric pattern given in CSR form (n x n, ptr[n + 1], idx[ptr[n]];
 * both triangles or either one, duplicates allowed; the diagonal is always included). The values
 * later passed to ncp_spchol_factor are aligned with idx. */
int ncp_spchol_analyse(int n, const int *ptr, const int *idx, ncp_spchol **out, ncp_error *err);
/* Numeric factorisation of the matrix whose entries (in analyse's pattern order) are
 * val[q] + beta * val2[q] (val2 may be NULL). An entry (i, j) given in both triangles must carry
 * the same value in both; entries are read from the upper triangle of the permuted matrix (for
 * an entry given in both, either copy). NCP_ERR_NUMERIC (naming the pivot) if not positive
 * definite. */
int ncp_spchol_factor(ncp_spchol *F, const double *val, const double *val2, double beta,
                      ncp_error *err);
/* Solves A x = b in place (after a successful ncp_spchol_factor; uses F's workspace: one
 * solve at a time per F). */
void ncp_spchol_solve(ncp_spchol *F, double *x);
/* Non-zeros of L (diagonal included) and the flops of one numeric factorisation
 * (sum over columns of count^2), for choosing between it and a dense factorisation. */
void ncp_spchol_stats(const ncp_spchol *F, size_t *nnz_l, double *flops);
void ncp_spchol_free(ncp_spchol *F);

#endif
