/* Block-wise sparse Cholesky of an SPD CSR matrix and the Delassus operator through it
 * (sparse_chol.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef NCP_HAVE_CHOLMOD
#include <suitesparse/cholmod.h>
#endif

#include "core/sparse_chol.h"

/* Column chunks of the Delassus right-hand sides stay within this many bytes per block. */
#define CHUNK_BYTES ((size_t)64 << 20)

struct ncp_sparse_chol {
    int n, nblocks, max_block, ncholmod;
    int *start;   /* nblocks + 1: the DOFs of block k are dof[start[k] .. start[k + 1]) */
    int *dof;     /* n, ascending within a block */
    int *block;   /* n: block of each DOF */
    int *pos;     /* n: position of each DOF within its block */
    size_t *loff; /* nblocks + 1: dense factor of block k at L + loff[k] (empty for CHOLMOD) */
    double *L;
#ifdef NCP_HAVE_CHOLMOD
    cholmod_common cc;
    int cc_started;
    cholmod_factor **cf; /* nblocks: CHOLMOD factor, or NULL for a dense block */
#endif
};

static int uf_find(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

void ncp_sparse_chol_free(ncp_sparse_chol *F)
{
    if (!F) return;
#ifdef NCP_HAVE_CHOLMOD
    if (F->cf)
        for (int k = 0; k < F->nblocks; k++)
            if (F->cf[k]) cholmod_free_factor(&F->cf[k], &F->cc);
    free(F->cf);
    if (F->cc_started) cholmod_finish(&F->cc);
#endif
    free(F->start);
    free(F->dof);
    free(F->block);
    free(F->pos);
    free(F->loff);
    free(F->L);
    free(F);
}

int ncp_csr_components(const ncp_csr *A, int *block, ncp_error *err)
{
    const int n = A->n;
    int *parent = ncp_malloc(err, (size_t)(n > 0 ? n : 1), sizeof(int));
    int *id = ncp_malloc(err, (size_t)(n > 0 ? n : 1), sizeof(int));
    if (!parent || !id) {
        free(parent);
        free(id);
        return -NCP_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) parent[i] = i;
    for (int i = 0; i < A->m; i++)
        for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            int a = uf_find(parent, i), b = uf_find(parent, A->col[q]);
            if (a != b) parent[a > b ? a : b] = a < b ? a : b;
        }
    int nb = 0;
    for (int i = 0; i < n; i++) id[i] = -1;
    for (int i = 0; i < n; i++) {
        int r = uf_find(parent, i);
        if (id[r] < 0) id[r] = nb++;
        block[i] = id[r];
    }
    free(parent);
    free(id);
    return nb;
}

/* Connected components of the sparsity graph of A (ncp_csr_components), DOFs sorted by block. */
static int find_blocks(ncp_sparse_chol *F, const ncp_csr *A, ncp_error *err)
{
    int n = F->n;
    int *id = ncp_malloc(err, (size_t)(n > 0 ? n : 1), sizeof(int));
    F->block = ncp_malloc(err, (size_t)(n > 0 ? n : 1), sizeof(int));
    F->pos = ncp_malloc(err, (size_t)(n > 0 ? n : 1), sizeof(int));
    F->dof = ncp_malloc(err, (size_t)(n > 0 ? n : 1), sizeof(int));
    int rc = (!id || !F->block || !F->pos || !F->dof) ? NCP_ERR_NOMEM : NCP_OK;
    if (!rc) {
        int nb = ncp_csr_components(A, F->block, err);
        if (nb < 0) rc = -nb;
        F->nblocks = nb;
        if (!rc && !(F->start = ncp_calloc(err, (size_t)nb + 1, sizeof(int)))) rc = NCP_ERR_NOMEM;
    }
    if (!rc) {
        /* counting sort of the DOFs by block keeps them ascending within a block */
        for (int i = 0; i < n; i++) F->start[F->block[i] + 1]++;
        for (int k = 0; k < F->nblocks; k++) {
            int s = F->start[k + 1];
            if (s > F->max_block) F->max_block = s;
            F->start[k + 1] += F->start[k];
        }
        for (int k = 0; k < F->nblocks; k++) id[k] = F->start[k];
        for (int i = 0; i < n; i++) {
            int k = F->block[i];
            F->pos[i] = id[k] - F->start[k];
            F->dof[id[k]++] = i;
        }
    }
    free(id);
    return rc;
}

#ifdef NCP_HAVE_CHOLMOD
static int cholmod_block(ncp_sparse_chol *F, const ncp_csr *A, int k, ncp_error *err)
{
    int s = F->start[k + 1] - F->start[k], first = F->dof[F->start[k]];
    const int *d = F->dof + F->start[k];
    size_t nnz = 0;
    for (int a = 0; a < s; a++)
        for (int q = A->rowptr[d[a]]; q < A->rowptr[d[a] + 1]; q++) nnz += F->pos[A->col[q]] <= a;
    /* lower triangle (stype -1), as ncp_chol_factor reads it */
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)s, (size_t)s, nnz, -1, CHOLMOD_REAL, &F->cc);
    if (!T) return ncp_error_set(err, NCP_ERR_NOMEM, "CHOLMOD: out of memory for a block of %d DOFs", s);
    int *Ti = T->i, *Tj = T->j;
    double *Tx = T->x;
    size_t t = 0;
    for (int a = 0; a < s; a++)
        for (int q = A->rowptr[d[a]]; q < A->rowptr[d[a] + 1]; q++) {
            int b = F->pos[A->col[q]];
            if (b > a) continue;
            Ti[t] = a;
            Tj[t] = b;
            Tx[t++] = A->val[q];
        }
    T->nnz = t;
    cholmod_sparse *S = cholmod_triplet_to_sparse(T, t, &F->cc);
    cholmod_free_triplet(&T, &F->cc);
    if (!S) return ncp_error_set(err, NCP_ERR_NOMEM, "CHOLMOD: out of memory for a block of %d DOFs", s);
    cholmod_factor *L = cholmod_analyze(S, &F->cc);
    int ok = L && cholmod_factorize(S, L, &F->cc);
    cholmod_free_sparse(&S, &F->cc);
    if (!L || !ok || F->cc.status == CHOLMOD_OUT_OF_MEMORY) {
        if (L) cholmod_free_factor(&L, &F->cc);
        return ncp_error_set(err, NCP_ERR_NOMEM, "CHOLMOD: cannot factorise the block of %d DOFs starting at DOF %d (status %d)",
                             s, first, F->cc.status);
    }
    if (F->cc.status == CHOLMOD_NOT_POSDEF || L->minor < L->n) {
        size_t minor = L->minor;
        cholmod_free_factor(&L, &F->cc);
        return ncp_error_set(err, NCP_ERR_NUMERIC, "the block of %d coupled DOFs starting at DOF %d is not positive definite (CHOLMOD: column %zu)",
                             s, first, minor);
    }
    F->cf[k] = L;
    F->ncholmod++;
    return NCP_OK;
}
#endif

int ncp_sparse_chol_factor(const ncp_csr *A, const ncp_sparse_chol_opts *opts,
                           ncp_sparse_chol **out, ncp_error *err)
{
    *out = NULL;
    if (A->m != A->n)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "sparse Cholesky of a %d x %d matrix", A->m, A->n);
    int dense_block = opts && opts->dense_block > 0 ? opts->dense_block : NCP_SPARSE_DENSE_BLOCK;
    size_t dense_bytes = opts && opts->dense_bytes > 0 ? opts->dense_bytes : NCP_SPARSE_DENSE_BYTES;
    int cholmod = !(opts && opts->no_cholmod);
#ifndef NCP_HAVE_CHOLMOD
    cholmod = 0;
#endif
    ncp_sparse_chol *F = ncp_calloc(err, 1, sizeof *F);
    if (!F) return NCP_ERR_NOMEM;
    F->n = A->n;
    int rc = find_blocks(F, A, err);
    if (!rc) {
        F->loff = ncp_calloc(err, (size_t)F->nblocks + 1, sizeof(size_t));
        if (!F->loff) rc = NCP_ERR_NOMEM;
    }
#ifdef NCP_HAVE_CHOLMOD
    if (!rc) {
        F->cf = ncp_calloc(err, (size_t)F->nblocks, sizeof *F->cf);
        if (!F->cf) rc = NCP_ERR_NOMEM;
    }
    if (!rc && cholmod && F->max_block > dense_block) {
        if (!cholmod_start(&F->cc)) rc = ncp_error_set(err, NCP_ERR_INTERNAL, "cholmod_start failed");
        F->cc_started = !rc;
        F->cc.print = 0; /* errors reach the user through ncp_error, not CHOLMOD's printf */
        F->cc.error_handler = NULL;
        /* supernodal is always L L^T, which detects an indefinite M; CHOLMOD's simplicial
         * default is L D L^T, which factorises one without a word */
        F->cc.supernodal = CHOLMOD_SUPERNODAL;
    }
#endif
    /* sizes of the dense factors; a large block goes to CHOLMOD or must fit dense_bytes */
    for (int k = 0; !rc && k < F->nblocks; k++) {
        size_t s = (size_t)(F->start[k + 1] - F->start[k]);
        int dense = (int)s <= dense_block || !cholmod;
        if (dense && (int)s > dense_block && s * s * sizeof(double) > dense_bytes)
            rc = ncp_error_set(err, NCP_ERR_INPUT,
                               "a block of %zu coupled DOFs (starting at DOF %d): its dense Cholesky factor "
                               "(%.2f GiB) exceeds the %.2f GiB limit; build ncpbench with -Dsuitesparse=enabled (CHOLMOD) for such problems",
                               s, F->dof[F->start[k]], (double)(s * s * sizeof(double)) / 1073741824.0,
                               (double)dense_bytes / 1073741824.0);
        F->loff[k + 1] = F->loff[k] + (dense ? s * s : 0);
    }
    if (!rc) {
        F->L = ncp_calloc(err, F->loff[F->nblocks], sizeof(double));
        if (!F->L) rc = NCP_ERR_NOMEM;
    }
    for (int k = 0; !rc && k < F->nblocks; k++) {
        int s = F->start[k + 1] - F->start[k];
        if (F->loff[k + 1] == F->loff[k]) {
#ifdef NCP_HAVE_CHOLMOD
            rc = cholmod_block(F, A, k, err);
#endif
            continue;
        }
        double *Lk = F->L + F->loff[k];
        for (int a = 0; a < s; a++) {
            int d = F->dof[F->start[k] + a];
            for (int q = A->rowptr[d]; q < A->rowptr[d + 1]; q++)
                Lk[a + (size_t)F->pos[A->col[q]] * s] = A->val[q];
        }
        rc = ncp_chol_factor(s, Lk, err);
        if (rc)
            ncp_error_prefix(err, "the block of %d coupled DOFs starting at DOF %d: ", s, F->dof[F->start[k]]);
    }
    if (rc) {
        ncp_sparse_chol_free(F);
        return rc;
    }
    *out = F;
    return NCP_OK;
}

void ncp_sparse_chol_stats(const ncp_sparse_chol *F, int *nblocks, int *max_block, int *ncholmod)
{
    if (nblocks) *nblocks = F->nblocks;
    if (max_block) *max_block = F->max_block;
    if (ncholmod) *ncholmod = F->ncholmod;
}

size_t ncp_sparse_chol_dense_entries(const ncp_sparse_chol *F)
{
    return F->loff[F->nblocks];
}

void ncp_sparse_chol_solve1(const ncp_sparse_chol *F, double *b, double *work)
{
    for (int k = 0; k < F->nblocks; k++) {
        const int s = F->start[k + 1] - F->start[k];
        const int *d = F->dof + F->start[k];
        for (int a = 0; a < s; a++) work[a] = b[d[a]];
        ncp_chol_solve(s, F->L + F->loff[k], 1, work, NULL); /* dense block: cannot fail */
        for (int a = 0; a < s; a++) b[d[a]] = work[a];
    }
}

void ncp_sparse_chol_delassus_block(const ncp_sparse_chol *F, const ncp_csr *J, int r0, int k,
                                    double *B, double *work)
{
    for (int i = 0; i < k * k; i++) B[i] = 0.0;
    for (int a0 = 0; a0 < k; a0++)
        for (int q0 = J->rowptr[r0 + a0]; q0 < J->rowptr[r0 + a0 + 1]; q0++) {
            const int bk = F->block[J->col[q0]];
            /* each block of A once: at the first entry of the rows that falls in it */
            int seen = 0;
            for (int a = 0; a <= a0 && !seen; a++)
                for (int q = J->rowptr[r0 + a]; q < (a == a0 ? q0 : J->rowptr[r0 + a + 1]); q++)
                    if (F->block[J->col[q]] == bk) {
                        seen = 1;
                        break;
                    }
            if (seen) continue;
            const int s = F->start[bk + 1] - F->start[bk];
            for (int i = 0; i < s * k; i++) work[i] = 0.0;
            for (int b = 0; b < k; b++) /* X = J_R^T restricted to the block */
                for (int q = J->rowptr[r0 + b]; q < J->rowptr[r0 + b + 1]; q++)
                    if (F->block[J->col[q]] == bk) work[F->pos[J->col[q]] + b * s] += J->val[q];
            ncp_chol_solve(s, F->L + F->loff[bk], k, work, NULL); /* dense block: cannot fail */
            for (int b = 0; b < k; b++)
                for (int a = 0; a < k; a++) {
                    double acc = 0.0;
                    for (int q = J->rowptr[r0 + a]; q < J->rowptr[r0 + a + 1]; q++)
                        if (F->block[J->col[q]] == bk) acc += J->val[q] * work[F->pos[J->col[q]] + b * s];
                    B[a + b * k] += acc;
                }
        }
}

/* Solves block k in place for w right-hand sides X (s x w, block-local rows). */
static int solve_block(ncp_sparse_chol *F, int k, int w, double *X, ncp_error *err)
{
    int s = F->start[k + 1] - F->start[k];
    if (F->loff[k + 1] > F->loff[k]) return ncp_chol_solve(s, F->L + F->loff[k], w, X, err);
#ifdef NCP_HAVE_CHOLMOD
    cholmod_dense B = {0};
    B.nrow = (size_t)s;
    B.ncol = (size_t)w;
    B.nzmax = (size_t)s * (size_t)w;
    B.d = (size_t)s;
    B.x = X;
    B.xtype = CHOLMOD_REAL;
    B.dtype = CHOLMOD_DOUBLE;
    cholmod_dense *Y = cholmod_solve(CHOLMOD_A, F->cf[k], &B, &F->cc);
    if (!Y) return ncp_error_set(err, NCP_ERR_NOMEM, "CHOLMOD: solve failed (status %d)", F->cc.status);
    memcpy(X, Y->x, (size_t)s * (size_t)w * sizeof(double));
    cholmod_free_dense(&Y, &F->cc);
    return NCP_OK;
#else
    return ncp_error_set(err, NCP_ERR_INTERNAL, "sparse Cholesky: block %d has no factor", k);
#endif
}

int ncp_sparse_chol_solve(ncp_sparse_chol *F, int nrhs, double *B, ncp_error *err)
{
    if (nrhs <= 0 || F->n == 0) return NCP_OK;
    double *X = ncp_malloc(err, (size_t)F->max_block * (size_t)nrhs, sizeof(double));
    if (!X) return NCP_ERR_NOMEM;
    int rc = NCP_OK;
    size_t n = (size_t)F->n;
    for (int k = 0; !rc && k < F->nblocks; k++) {
        int s = F->start[k + 1] - F->start[k];
        const int *d = F->dof + F->start[k];
        for (int j = 0; j < nrhs; j++)
            for (int a = 0; a < s; a++) X[a + (size_t)j * s] = B[d[a] + j * n];
        rc = solve_block(F, k, nrhs, X, err);
        if (!rc)
            for (int j = 0; j < nrhs; j++)
                for (int a = 0; a < s; a++) B[d[a] + j * n] = X[a + (size_t)j * s];
    }
    free(X);
    return rc;
}

/* The rows of J grouped by the blocks of F they touch, for the block-by-block passes over
 * A^{-1} J^T (ncp_sparse_chol_delassus, ncp_sparse_chol_jmap): J's column structure once, then
 * per block the rows R touching it and their entries in it (block positions). */
typedef struct block_rows {
    int *cp, *ri;   /* column structure of J: rows of column j at ri[cp[j] .. cp[j + 1]) */
    int *mark;      /* m: last block that listed the row */
    int *R, *eo;    /* the block's rows, and their entries at eo[t] .. eo[t + 1] */
    int *ep;        /* the entries' block positions */
    double *ev;     /* and values */
} block_rows;

static void block_rows_free(block_rows *br)
{
    free(br->cp);
    free(br->ri);
    free(br->mark);
    free(br->R);
    free(br->eo);
    free(br->ep);
    free(br->ev);
}

static int block_rows_init(block_rows *br, const ncp_sparse_chol *F, const ncp_csr *J,
                           ncp_error *err)
{
    memset(br, 0, sizeof *br);
    const int n = F->n, m = J->m;
    if (J->n != n)
        return ncp_error_set(err, NCP_ERR_INPUT, "J has %d columns but A is %d x %d", J->n, n, n);
    size_t nnz = (size_t)J->nnz;
    br->cp = ncp_calloc(err, (size_t)n + 1, sizeof(int));
    br->ri = ncp_malloc(err, nnz > 0 ? nnz : 1, sizeof(int));
    br->mark = ncp_malloc(err, (size_t)(m > 0 ? m : 1), sizeof(int));
    br->R = ncp_malloc(err, (size_t)(m > 0 ? m : 1), sizeof(int));
    br->eo = ncp_malloc(err, (size_t)m + 1, sizeof(int));
    br->ep = ncp_malloc(err, nnz > 0 ? nnz : 1, sizeof(int));
    br->ev = ncp_malloc(err, nnz > 0 ? nnz : 1, sizeof(double));
    if (!br->cp || !br->ri || !br->mark || !br->R || !br->eo || !br->ep || !br->ev) {
        block_rows_free(br);
        return NCP_ERR_NOMEM;
    }
    int *cp = br->cp;
    for (size_t q = 0; q < nnz; q++) cp[J->col[q] + 1]++;
    for (int j = 0; j < n; j++) cp[j + 1] += cp[j];
    for (int i = 0; i < m; i++) {
        br->mark[i] = -1;
        for (int q = J->rowptr[i]; q < J->rowptr[i + 1]; q++) br->ri[cp[J->col[q]]++] = i;
    }
    for (int j = n; j > 0; j--) cp[j] = cp[j - 1];
    cp[0] = 0;
    return NCP_OK;
}

/* Block k's rows (ascending by first touching DOF) and entries; returns their number. */
static int block_rows_of(block_rows *br, const ncp_sparse_chol *F, const ncp_csr *J, int k)
{
    const int s = F->start[k + 1] - F->start[k];
    const int *d = F->dof + F->start[k];
    int r = 0;
    for (int a = 0; a < s; a++)
        for (int q = br->cp[d[a]]; q < br->cp[d[a] + 1]; q++)
            if (br->mark[br->ri[q]] != k) {
                br->mark[br->ri[q]] = k;
                br->R[r++] = br->ri[q];
            }
    /* the entries of those rows that fall in the block, in row order, at block positions */
    br->eo[0] = 0;
    for (int t = 0; t < r; t++) {
        int o = br->eo[t];
        for (int q = J->rowptr[br->R[t]]; q < J->rowptr[br->R[t] + 1]; q++)
            if (F->block[J->col[q]] == k) {
                br->ep[o] = F->pos[J->col[q]];
                br->ev[o++] = J->val[q];
            }
        br->eo[t + 1] = o;
    }
    return r;
}

/* Right-hand sides per chunk of block k (s DOFs, r rows): the chunk stays within CHUNK_BYTES. */
static int block_chunk(int s, int r)
{
    size_t kc = CHUNK_BYTES / ((size_t)s * sizeof(double));
    if (kc < 1) kc = 1;
    if (kc > (size_t)r) kc = (size_t)r;
    return (int)kc;
}

/* Room for the largest chunk of any block: s * min(m, CHUNK / s) doubles, s >= 1. */
static double *chunk_alloc(const ncp_sparse_chol *F, int m, ncp_error *err)
{
    size_t xn = (size_t)F->max_block * (size_t)m, cap = CHUNK_BYTES / sizeof(double);
    if (xn > cap) xn = cap;
    if (xn < (size_t)F->max_block) xn = (size_t)F->max_block;
    return ncp_malloc(err, xn > 0 ? xn : 1, sizeof(double));
}

/* X (s x w) = the columns R[j0 .. j0 + w) of A_k^{-1} J^T on block k. */
static int block_solve_rows(ncp_sparse_chol *F, const block_rows *br, int k, int j0, int w,
                            double *X, ncp_error *err)
{
    const int s = F->start[k + 1] - F->start[k];
    memset(X, 0, (size_t)s * (size_t)w * sizeof(double));
    for (int j = 0; j < w; j++)
        for (int o = br->eo[j0 + j]; o < br->eo[j0 + j + 1]; o++)
            X[br->ep[o] + (size_t)j * s] += br->ev[o];
    return solve_block(F, k, w, X, err);
}

int ncp_sparse_chol_delassus(ncp_sparse_chol *F, const double *b, const ncp_csr *J,
                             const double *e, double *D, double *vf, ncp_error *err)
{
    const int m = J->m;
    block_rows br;
    int rc = block_rows_init(&br, F, J, err);
    if (rc) return rc;
    if (D) memset(D, 0, (size_t)m * (size_t)m * sizeof(double));
    if (vf) memset(vf, 0, (size_t)m * sizeof(double));
    double *X = chunk_alloc(F, m, err);
    if (!X) rc = NCP_ERR_NOMEM;
    for (int k = 0; !rc && k < F->nblocks; k++) {
        const int s = F->start[k + 1] - F->start[k];
        const int *d = F->dof + F->start[k];
        const int r = block_rows_of(&br, F, J, k);
        if (r == 0) continue;
        const int *R = br.R, *eo = br.eo, *ep = br.ep;
        const double *ev = br.ev;
        const int kc = block_chunk(s, r);
        /* D: columns R[j0 .. j1) of A^{-1} J^T, then the rows of J against them */
        for (int j0 = 0; !rc && D && j0 < r; j0 += kc) {
            int w = r - j0 < kc ? r - j0 : kc;
            rc = block_solve_rows(F, &br, k, j0, w, X, err);
            for (int t = 0; !rc && t < r; t++)
                for (int j = 0; j < w; j++) {
                    const double *x = X + (size_t)j * s;
                    double acc = 0.0;
                    for (int o = eo[t]; o < eo[t + 1]; o++) acc += ev[o] * x[ep[o]];
                    D[R[t] + (size_t)R[j0 + j] * m] += acc;
                }
        }
        if (!rc && vf) {
            for (int a = 0; a < s; a++) X[a] = b ? b[d[a]] : 0.0;
            rc = solve_block(F, k, 1, X, err);
            for (int t = 0; !rc && t < r; t++) {
                double acc = 0.0;
                for (int o = eo[t]; o < eo[t + 1]; o++) acc += ev[o] * X[ep[o]];
                vf[R[t]] += acc;
            }
        }
    }
    if (!rc && D) ncp_symmetrize(m, D); /* as ncp_delassus: D_ij and D_ji use different sums */
    if (!rc && vf && e) ncp_axpy(m, 1.0, e, vf);
    block_rows_free(&br);
    free(X);
    return rc;
}

void ncp_jmap_free(ncp_jmap *Y)
{
    if (!Y) return;
    free(Y->ptr);
    free(Y->idx);
    free(Y->val);
    memset(Y, 0, sizeof *Y);
}

size_t ncp_jmap_nnz(int nblocks, const int *block, const int *size, const ncp_csr *J, int *mark)
{
    size_t nnz = 0;
    for (int k = 0; k < nblocks; k++) mark[k] = -1;
    for (int i = 0; i < J->m; i++)
        for (int q = J->rowptr[i]; q < J->rowptr[i + 1]; q++) {
            const int k = block[J->col[q]];
            if (mark[k] != i) {
                mark[k] = i;
                nnz += (size_t)size[k];
            }
        }
    return nnz;
}

int ncp_sparse_chol_jmap(ncp_sparse_chol *F, const ncp_csr *J, ncp_jmap *Y, ncp_error *err)
{
    memset(Y, 0, sizeof *Y);
    const int m = J->m;
    block_rows br;
    int rc = block_rows_init(&br, F, J, err);
    if (rc) return rc;
    Y->m = m;
    Y->n = F->n;
    Y->ptr = ncp_calloc(err, (size_t)m + 1, sizeof(size_t));
    size_t *fill = ncp_malloc(err, (size_t)m + 1, sizeof(size_t));
    double *X = chunk_alloc(F, m, err);
    if (!Y->ptr || !fill || !X) rc = NCP_ERR_NOMEM;
    /* column i holds the DOFs of every block row i touches */
    for (int k = 0; !rc && k < F->nblocks; k++) {
        const int s = F->start[k + 1] - F->start[k], r = block_rows_of(&br, F, J, k);
        for (int t = 0; t < r; t++) Y->ptr[br.R[t] + 1] += (size_t)s;
    }
    if (!rc) {
        for (int i = 0; i < m; i++) Y->ptr[i + 1] += Y->ptr[i];
        memcpy(fill, Y->ptr, ((size_t)m + 1) * sizeof(size_t));
        size_t nnz = Y->ptr[m] > 0 ? Y->ptr[m] : 1;
        Y->idx = ncp_malloc(err, nnz, sizeof(int));
        Y->val = ncp_malloc(err, nnz, sizeof(double));
        if (!Y->idx || !Y->val) rc = NCP_ERR_NOMEM;
        for (int i = 0; i < m; i++) br.mark[i] = -1; /* the second pass lists every row again */
    }
    for (int k = 0; !rc && k < F->nblocks; k++) {
        const int s = F->start[k + 1] - F->start[k];
        const int *d = F->dof + F->start[k];
        const int r = block_rows_of(&br, F, J, k);
        const int kc = r > 0 ? block_chunk(s, r) : 1;
        for (int j0 = 0; !rc && j0 < r; j0 += kc) {
            int w = r - j0 < kc ? r - j0 : kc;
            rc = block_solve_rows(F, &br, k, j0, w, X, err);
            for (int j = 0; !rc && j < w; j++) {
                size_t o = fill[br.R[j0 + j]];
                for (int a = 0; a < s; a++) {
                    Y->idx[o + (size_t)a] = d[a];
                    Y->val[o + (size_t)a] = X[a + (size_t)j * s];
                }
                fill[br.R[j0 + j]] = o + (size_t)s;
            }
        }
    }
    block_rows_free(&br);
    free(fill);
    free(X);
    if (rc) ncp_jmap_free(Y);
    return rc;
}

/* A_ji by a binary search of column i in row j (columns sorted); 0 when not stored. *found
 * says whether it is. */
static double csr_mirror(const ncp_csr *A, int i, int j, int *found)
{
    *found = 0;
    if (j >= A->m) return 0.0;
    int lo = A->rowptr[j], hi = A->rowptr[j + 1];
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (A->col[mid] < i) lo = mid + 1;
        else hi = mid;
    }
    if (lo < A->rowptr[j + 1] && A->col[lo] == i) {
        *found = 1;
        return A->val[lo];
    }
    return 0.0;
}

double ncp_csr_max_asymmetry(const ncp_csr *A, int *row, int *col)
{
    double worst = 0.0;
    if (row) *row = -1;
    if (col) *col = -1;
    for (int i = 0; i < A->m; i++)
        for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            int j = A->col[q], found;
            double dlt = fabs(A->val[q] - csr_mirror(A, i, j, &found));
            if (dlt > worst) {
                worst = dlt;
                if (row) *row = i;
                if (col) *col = j;
            }
        }
    return worst;
}

double ncp_csr_asymmetry_rel(const ncp_csr *A)
{
    /* sum over ordered pairs (i, j) of (A_ij - A_ji)^2: a stored entry whose mirror is missing
     * stands for both of its pairs */
    double s = 0.0, n2 = 0.0;
    for (int i = 0; i < A->m; i++)
        for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            int found;
            double d = A->val[q] - csr_mirror(A, i, A->col[q], &found);
            s += found ? d * d : 2.0 * d * d;
            n2 += A->val[q] * A->val[q];
        }
    return n2 > 0.0 ? sqrt(s / n2) : 0.0;
}

int ncp_csr_symmetric_part(ncp_csr *A, ncp_error *err)
{
    if (A->m != A->n)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "symmetric part of a %d x %d matrix", A->m, A->n);
    /* pattern of A + A^T: row i holds A's row i and the missing mirrors of column i */
    int n = A->m;
    int *cnt = ncp_calloc(err, (size_t)n + 1, sizeof(int));
    if (!cnt) return NCP_ERR_NOMEM;
    for (int i = 0; i < n; i++)
        for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            int j = A->col[q], found;
            cnt[i]++;
            csr_mirror(A, i, j, &found);
            if (!found) cnt[j]++;
        }
    int nnz = 0;
    for (int i = 0; i < n; i++) nnz += cnt[i];
    ncp_csr S = {0};
    int rc = ncp_csr_alloc(&S, n, n, nnz, err);
    if (rc) {
        free(cnt);
        return rc;
    }
    S.rowptr[0] = 0;
    for (int i = 0; i < n; i++) S.rowptr[i + 1] = S.rowptr[i] + cnt[i];
    for (int i = 0; i < n; i++) cnt[i] = S.rowptr[i];
    for (int i = 0; i < n; i++)
        for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            int j = A->col[q], found;
            double aji = csr_mirror(A, i, j, &found);
            S.col[cnt[i]] = j;
            S.val[cnt[i]++] = 0.5 * (A->val[q] + aji);
            if (!found) {
                S.col[cnt[j]] = i;
                S.val[cnt[j]++] = 0.5 * A->val[q];
            }
        }
    free(cnt);
    /* rows back in column order (the mirrors were appended after the row's own entries) */
    for (int i = 0; i < n; i++)
        for (int a = S.rowptr[i] + 1; a < S.rowptr[i + 1]; a++)
            for (int b = a; b > S.rowptr[i] && S.col[b - 1] > S.col[b]; b--) {
                int tc = S.col[b];
                double tv = S.val[b];
                S.col[b] = S.col[b - 1];
                S.val[b] = S.val[b - 1];
                S.col[b - 1] = tc;
                S.val[b - 1] = tv;
            }
    ncp_csr_free(A);
    *A = S;
    return NCP_OK;
}

/* ====================== fixed-pattern sparse Cholesky (ncp_spchol) ====================== */

struct ncp_spchol {
    int n;
    int *perm, *iperm; /* new -> old, old -> new */
    int nq, *map;      /* input entry q -> its slot in C */
    int *Cp, *Ci;      /* P A P^T, upper triangle by columns (rows <= column), deduplicated */
    double *Cx;
    int *parent;       /* elimination tree */
    int *Lp, *Li;      /* L by columns, diagonal first */
    double *Lx;
    int *stack, *mark, *next; /* ereach workspace; next: fill position per column */
    double *x;         /* n: dense accumulator / solve workspace */
    double flops;
};

void ncp_spchol_free(ncp_spchol *F)
{
    if (!F) return;
    free(F->perm);
    free(F->iperm);
    free(F->map);
    free(F->Cp);
    free(F->Ci);
    free(F->Cx);
    free(F->parent);
    free(F->Lp);
    free(F->Li);
    free(F->Lx);
    free(F->stack);
    free(F->mark);
    free(F->next);
    free(F->x);
    free(F);
}

#ifndef NCP_HAVE_CHOLMOD
/* Minimum degree on the exact elimination graph held as an n x n bit table (each row the
 * neighbours still to be eliminated): eliminating v joins its neighbours into a clique. Ties go
 * to the lowest index, so the order is deterministic. adj: symmetric adjacency lists without the
 * diagonal. */
static int spchol_min_degree(int n, const int *aptr, const int *aidx, int *perm, ncp_error *err)
{
    size_t words = ((size_t)n + 63) / 64;
    uint64_t *G = ncp_calloc(err, words * (size_t)n, sizeof(uint64_t));
    int *deg = ncp_malloc(err, (size_t)n, sizeof(int));
    unsigned char *dead = ncp_calloc(err, (size_t)n, 1);
    int *nb = ncp_malloc(err, (size_t)n, sizeof(int));
    int rc = (!G || !deg || !dead || !nb) ? NCP_ERR_NOMEM : NCP_OK;
    for (int i = 0; i < n && !rc; i++) {
        for (int q = aptr[i]; q < aptr[i + 1]; q++)
            G[words * i + (size_t)aidx[q] / 64] |= (uint64_t)1 << (aidx[q] % 64);
        deg[i] = aptr[i + 1] - aptr[i];
    }
    for (int k = 0; k < n && !rc; k++) {
        int v = -1;
        for (int i = 0; i < n; i++)
            if (!dead[i] && (v < 0 || deg[i] < deg[v])) v = i;
        perm[k] = v;
        dead[v] = 1;
        uint64_t *gv = G + words * v;
        int cnt = 0;
        for (size_t w = 0; w < words; w++)
            for (uint64_t bits = gv[w]; bits; bits &= bits - 1)
                nb[cnt++] = (int)(w * 64) + __builtin_ctzll(bits);
        for (int t = 0; t < cnt; t++) {
            int u = nb[t];
            uint64_t *gu = G + words * u;
            int d = 0;
            for (size_t w = 0; w < words; w++) {
                gu[w] |= gv[w];
                if (w == (size_t)u / 64) gu[w] &= ~((uint64_t)1 << (u % 64));
                if (w == (size_t)v / 64) gu[w] &= ~((uint64_t)1 << (v % 64));
                d += __builtin_popcountll(gu[w]);
            }
            deg[u] = d;
        }
    }
    free(G);
    free(deg);
    free(dead);
    free(nb);
    return rc;
}
#endif

#ifdef NCP_HAVE_CHOLMOD
/* The fill-reducing ordering CHOLMOD's analysis chooses for the symmetric pattern (aptr, aidx:
 * both triangles, no diagonal): approximate minimum degree (Amestoy, Davis & Duff 1996), and
 * METIS nested dissection too when AMD's estimated fill is high (lnz / nnz(A) >= 5 and
 * flops / lnz >= 500, cholmod_analyze's default nmethods = 0), the one of fewer flops kept,
 * postordered. Near-linear in nnz: no size limit, unlike the exact-graph minimum degree. A
 * simplicial analysis only: the symbolic factor is discarded, ncp_spchol builds its own. */
static int spchol_order_cholmod(int n, const int *aptr, const int *aidx, int *perm,
                                ncp_error *err)
{
    cholmod_common cc;
    if (!cholmod_start(&cc)) return ncp_error_set(err, NCP_ERR_INTERNAL, "cholmod_start failed");
    cc.print = 0;
    cc.error_handler = NULL;
    cc.supernodal = CHOLMOD_SIMPLICIAL;
    int rc = NCP_OK;
    /* stype 1 reads the upper triangle only; aidx holds both, so column j's upper entries are
     * row j's entries i < j of the symmetric adjacency */
    cholmod_sparse *S = cholmod_allocate_sparse((size_t)n, (size_t)n, (size_t)aptr[n] + 1, 0, 1,
                                                1, CHOLMOD_PATTERN, &cc);
    cholmod_factor *L = NULL;
    if (!S) {
        rc = ncp_error_set(err, NCP_ERR_NOMEM, "CHOLMOD: out of memory ordering %d unknowns", n);
    } else {
        int *Sp = S->p, *Si = S->i;
        for (int j = 0; j <= n; j++) Sp[j] = aptr[j];
        for (int q = 0; q < aptr[n]; q++) Si[q] = aidx[q];
        L = cholmod_analyze(S, &cc);
        if (!L || cc.status < CHOLMOD_OK)
            rc = ncp_error_set(err, NCP_ERR_NOMEM, "CHOLMOD: cannot order %d unknowns (status %d)",
                               n, cc.status);
        else
            memcpy(perm, L->Perm, (size_t)n * sizeof(int));
    }
    if (L) cholmod_free_factor(&L, &cc);
    if (S) cholmod_free_sparse(&S, &cc);
    cholmod_finish(&cc);
    return rc;
}
#endif

int ncp_sym_order(int n, const int *aptr, const int *aidx, int *perm, ncp_error *err)
{
#ifdef NCP_HAVE_CHOLMOD
    return spchol_order_cholmod(n, aptr, aidx, perm, err);
#else
    if (n <= NCP_SPCHOL_MD_MAX) return spchol_min_degree(n, aptr, aidx, perm, err);
    for (int i = 0; i < n; i++) perm[i] = i;
    return NCP_OK;
#endif
}

/* Pattern of row k of L (the reach of column k of C in the elimination tree), in topological
 * order in stack[top .. n): Davis 2006, cs_ereach. */
static int spchol_ereach(const ncp_spchol *F, int k)
{
    int n = F->n, top = n;
    int *s = F->stack, *mark = F->mark;
    mark[k] = k;
    for (int p = F->Cp[k]; p < F->Cp[k + 1]; p++) {
        int i = F->Ci[p], len = 0;
        if (i > k) continue;
        for (; mark[i] != k; i = F->parent[i]) {
            s[len++] = i; /* bounded by n: each node is marked once per k */
            mark[i] = k;
        }
        while (len > 0) s[--top] = s[--len];
    }
    return top;
}

int ncp_spchol_analyse(int n, const int *ptr, const int *idx, ncp_spchol **out, ncp_error *err)
{
    *out = NULL;
    if (n < 0 || !ptr || (n > 0 && ptr[n] > 0 && !idx))
        return ncp_error_set(err, NCP_ERR_INPUT, "ncp_spchol_analyse: bad pattern (n = %d)", n);
    for (int i = 0; i < n; i++)
        for (int q = ptr[i]; q < ptr[i + 1]; q++)
            if (idx[q] < 0 || idx[q] >= n)
                return ncp_error_set(err, NCP_ERR_INPUT, "ncp_spchol_analyse: entry %d of row %d "
                                     "has column %d outside [0, %d)", q, i, idx[q], n);
    ncp_spchol *F = ncp_calloc(err, 1, sizeof *F);
    if (!F) return NCP_ERR_NOMEM;
    F->n = n;
    F->nq = n > 0 ? ptr[n] : 0;
    size_t n1 = (size_t)(n > 0 ? n : 1), nq1 = (size_t)(F->nq > 0 ? F->nq : 1);
    F->perm = ncp_malloc(err, n1, sizeof(int));
    F->iperm = ncp_malloc(err, n1, sizeof(int));
    F->map = ncp_malloc(err, nq1, sizeof(int));
    F->Cp = ncp_calloc(err, n1 + 1, sizeof(int));
    F->parent = ncp_malloc(err, n1, sizeof(int));
    F->Lp = ncp_calloc(err, n1 + 1, sizeof(int));
    F->stack = ncp_malloc(err, n1, sizeof(int));
    F->mark = ncp_malloc(err, n1, sizeof(int));
    F->next = ncp_malloc(err, n1, sizeof(int));
    F->x = ncp_calloc(err, n1, sizeof(double));
    /* symmetric adjacency without the diagonal (duplicates removed), for the ordering */
    int *aptr = ncp_calloc(err, n1 + 1, sizeof(int));
    int *aidx = ncp_malloc(err, 2 * nq1, sizeof(int));
    int *fill = ncp_calloc(err, n1, sizeof(int));
    int *slot = ncp_malloc(err, n1, sizeof(int));
    int *qcol = ncp_malloc(err, nq1 + n1, sizeof(int)); /* entries grouped by C column */
    int *qptr = ncp_calloc(err, n1 + 1, sizeof(int));
    int rc = (!F->perm || !F->iperm || !F->map || !F->Cp || !F->parent || !F->Lp || !F->stack ||
              !F->mark || !F->next || !F->x || !aptr || !aidx || !fill || !slot || !qcol || !qptr)
                 ? NCP_ERR_NOMEM : NCP_OK;
    if (!rc) {
        for (int i = 0; i < n; i++)
            for (int q = ptr[i]; q < ptr[i + 1]; q++)
                if (idx[q] != i) {
                    aptr[i + 1]++;
                    aptr[idx[q] + 1]++;
                }
        for (int i = 0; i < n; i++) aptr[i + 1] += aptr[i];
        for (int i = 0; i < n; i++)
            for (int q = ptr[i]; q < ptr[i + 1]; q++)
                if (idx[q] != i) {
                    aidx[aptr[i] + fill[i]++] = idx[q];
                    aidx[aptr[idx[q]] + fill[idx[q]]++] = i;
                }
        /* deduplicate each list in place (mark: last row seen) */
        int w = 0;
        for (int i = 0; i < n; i++) F->mark[i] = -1;
        for (int i = 0; i < n; i++) {
            int a = aptr[i], e = aptr[i + 1];
            aptr[i] = w;
            for (int q = a; q < e; q++)
                if (F->mark[aidx[q]] != i) {
                    F->mark[aidx[q]] = i;
                    aidx[w++] = aidx[q];
                }
        }
        aptr[n] = w;
        rc = ncp_sym_order(n, aptr, aidx, F->perm, err);
    }
    if (!rc) {
        for (int k = 0; k < n; k++) F->iperm[F->perm[k]] = k;
        /* C = P A P^T, upper: entry (r, c) goes to column max(iperm r, iperm c); plus the
         * diagonal of every column */
        for (int i = 0; i < n; i++)
            for (int q = ptr[i]; q < ptr[i + 1]; q++) {
                int a = F->iperm[i], b = F->iperm[idx[q]];
                qptr[(a > b ? a : b) + 1]++;
            }
        for (int j = 0; j < n; j++) qptr[j + 1] += qptr[j] + 1;
        memset(fill, 0, n1 * sizeof(int));
        for (int j = 0; j < n; j++) qcol[qptr[j] + fill[j]++] = -1 - j; /* the diagonal */
        for (int i = 0; i < n; i++)
            for (int q = ptr[i]; q < ptr[i + 1]; q++) {
                int a = F->iperm[i], b = F->iperm[idx[q]];
                int c = a > b ? a : b;
                qcol[qptr[c] + fill[c]++] = q;
            }
        size_t cap = (size_t)qptr[n] > 0 ? (size_t)qptr[n] : 1;
        F->Ci = ncp_malloc(err, cap, sizeof(int));
        if (!F->Ci) rc = NCP_ERR_NOMEM;
        int nz = 0;
        for (int i = 0; i < n; i++) F->mark[i] = -1;
        /* qcol holds input indices q >= 0, or -1 - j for column j's diagonal; qrow[q] is the
         * input row of q */
        int *qrow = rc ? NULL : ncp_malloc(err, nq1, sizeof(int));
        if (!rc && !qrow) rc = NCP_ERR_NOMEM;
        for (int i = 0; i < n && !rc; i++)
            for (int q = ptr[i]; q < ptr[i + 1]; q++) qrow[q] = i;
        for (int j = 0; j < n && !rc; j++) {
            F->Cp[j] = nz;
            for (int t = qptr[j]; t < qptr[j + 1]; t++) {
                int q = qcol[t], r;
                if (q < 0) {
                    r = j;
                } else {
                    int a = F->iperm[qrow[q]], b = F->iperm[idx[q]];
                    r = a < b ? a : b;
                }
                if (F->mark[r] != j) {
                    F->mark[r] = j;
                    slot[r] = nz;
                    F->Ci[nz++] = r;
                }
                if (q >= 0) F->map[q] = slot[r];
            }
        }
        if (!rc) F->Cp[n] = nz;
        free(qrow);
        F->Cx = rc ? NULL : ncp_calloc(err, (size_t)(nz > 0 ? nz : 1), sizeof(double));
        if (!rc && !F->Cx) rc = NCP_ERR_NOMEM;
    }
    if (!rc) {
        /* elimination tree (Liu 1990; Davis 2006, cs_etree), ancestors in fill[] */
        int *anc = fill;
        for (int k = 0; k < n; k++) {
            F->parent[k] = -1;
            anc[k] = -1;
            for (int p = F->Cp[k]; p < F->Cp[k + 1]; p++) {
                int i = F->Ci[p];
                while (i != -1 && i < k) {
                    int inext = anc[i];
                    anc[i] = k;
                    if (inext == -1) F->parent[i] = k;
                    i = inext;
                }
            }
        }
        /* column counts of L from the row patterns */
        int *cnt = slot;
        for (int k = 0; k < n; k++) {
            cnt[k] = 1;
            F->mark[k] = -1;
        }
        for (int k = 0; k < n; k++)
            for (int top = spchol_ereach(F, k); top < n; top++) cnt[F->stack[top]]++;
        double fl = 0.0;
        for (int k = 0; k < n; k++) {
            F->Lp[k + 1] = F->Lp[k] + cnt[k];
            fl += (double)cnt[k] * cnt[k];
        }
        F->flops = fl;
        size_t nl = (size_t)F->Lp[n] > 0 ? (size_t)F->Lp[n] : 1;
        F->Li = ncp_malloc(err, nl, sizeof(int));
        F->Lx = ncp_malloc(err, nl, sizeof(double));
        if (!F->Li || !F->Lx) rc = NCP_ERR_NOMEM;
    }
    free(aptr);
    free(aidx);
    free(fill);
    free(slot);
    free(qcol);
    free(qptr);
    if (rc) {
        ncp_spchol_free(F);
        return rc;
    }
    *out = F;
    return NCP_OK;
}

int ncp_spchol_factor(ncp_spchol *F, const double *val, const double *val2, double beta,
                      ncp_error *err)
{
    int n = F->n;
    memset(F->Cx, 0, (size_t)(F->Cp[n] > 0 ? F->Cp[n] : 1) * sizeof(double));
    for (int q = 0; q < F->nq; q++) F->Cx[F->map[q]] = val[q] + (val2 ? beta * val2[q] : 0.0);
    for (int k = 0; k < n; k++) {
        F->mark[k] = -1;
        F->next[k] = F->Lp[k];
        F->x[k] = 0.0;
    }
    double *x = F->x;
    for (int k = 0; k < n; k++) { /* row k of L (Davis 2006, cs_chol) */
        int top = spchol_ereach(F, k);
        for (int p = F->Cp[k]; p < F->Cp[k + 1]; p++) x[F->Ci[p]] = F->Cx[p];
        double d = x[k];
        x[k] = 0.0;
        for (; top < n; top++) {
            int i = F->stack[top];
            double lki = x[i] / F->Lx[F->Lp[i]];
            x[i] = 0.0;
            for (int p = F->Lp[i] + 1; p < F->next[i]; p++) x[F->Li[p]] -= F->Lx[p] * lki;
            d -= lki * lki;
            int p = F->next[i]++;
            F->Li[p] = k;
            F->Lx[p] = lki;
        }
        if (!(d > 0.0) || !isfinite(d)) {
            for (int i = 0; i < n; i++) F->x[i] = 0.0;
            return ncp_error_set(err, NCP_ERR_NUMERIC, "sparse Cholesky: pivot %d (original row "
                                 "%d) is %.3g: the matrix is not positive definite", k,
                                 F->perm[k], d);
        }
        int p = F->next[k]++;
        F->Li[p] = k;
        F->Lx[p] = sqrt(d);
    }
    return NCP_OK;
}

void ncp_spchol_solve(ncp_spchol *F, double *b)
{
    int n = F->n;
    double *x = F->x;
    for (int k = 0; k < n; k++) x[k] = b[F->perm[k]];
    for (int j = 0; j < n; j++) { /* L y = P b */
        double xj = x[j] / F->Lx[F->Lp[j]];
        x[j] = xj;
        for (int p = F->Lp[j] + 1; p < F->Lp[j + 1]; p++) x[F->Li[p]] -= F->Lx[p] * xj;
    }
    for (int j = n - 1; j >= 0; j--) { /* L^T (P x) = y */
        double s = x[j];
        for (int p = F->Lp[j] + 1; p < F->Lp[j + 1]; p++) s -= F->Lx[p] * x[F->Li[p]];
        x[j] = s / F->Lx[F->Lp[j]];
    }
    for (int k = 0; k < n; k++) {
        b[F->perm[k]] = x[k];
        x[k] = 0.0;
    }
}

void ncp_spchol_stats(const ncp_spchol *F, size_t *nnz_l, double *flops)
{
    if (nnz_l) *nnz_l = (size_t)F->Lp[F->n];
    if (flops) *flops = F->flops;
}
