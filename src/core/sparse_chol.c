/* Block-wise sparse Cholesky of an SPD CSR matrix and the Delassus operator through it
 * (sparse_chol.h). */
#include <math.h>
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

/* Connected components of the sparsity graph of A, numbered by their smallest DOF. */
static int find_blocks(ncp_sparse_chol *F, const ncp_csr *A, ncp_error *err)
{
    int n = F->n;
    int *parent = ncp_malloc(err, (size_t)n, sizeof(int));
    int *id = ncp_malloc(err, (size_t)n, sizeof(int));
    F->block = ncp_malloc(err, (size_t)n, sizeof(int));
    F->pos = ncp_malloc(err, (size_t)n, sizeof(int));
    F->dof = ncp_malloc(err, (size_t)n, sizeof(int));
    int rc = (!parent || !id || !F->block || !F->pos || !F->dof) ? NCP_ERR_NOMEM : NCP_OK;
    if (!rc) {
        for (int i = 0; i < n; i++) parent[i] = i;
        for (int i = 0; i < n; i++)
            for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
                int a = uf_find(parent, i), b = uf_find(parent, A->col[q]);
                if (a != b) parent[a > b ? a : b] = a < b ? a : b;
            }
        int nb = 0;
        for (int i = 0; i < n; i++) id[i] = -1;
        for (int i = 0; i < n; i++) {
            int r = uf_find(parent, i);
            if (id[r] < 0) id[r] = nb++;
            F->block[i] = id[r];
        }
        F->nblocks = nb;
        F->start = ncp_calloc(err, (size_t)nb + 1, sizeof(int));
        if (!F->start) rc = NCP_ERR_NOMEM;
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
    free(parent);
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

int ncp_sparse_chol_delassus(ncp_sparse_chol *F, const double *b, const ncp_csr *J,
                             const double *e, double *D, double *vf, ncp_error *err)
{
    const int n = F->n, m = J->m;
    if (J->n != n)
        return ncp_error_set(err, NCP_ERR_INPUT, "J has %d columns but A is %d x %d", J->n, n, n);
    size_t nnz = (size_t)J->nnz;
    int *cp = ncp_calloc(err, (size_t)n + 1, sizeof(int));  /* column structure of J */
    int *ri = ncp_malloc(err, nnz, sizeof(int));
    int *mark = ncp_malloc(err, (size_t)m, sizeof(int));
    int *R = ncp_malloc(err, (size_t)m, sizeof(int));       /* rows touching the block */
    int *eo = ncp_malloc(err, (size_t)m + 1, sizeof(int));  /* their entries in the block */
    int *ep = ncp_malloc(err, nnz, sizeof(int));
    double *ev = ncp_malloc(err, nnz, sizeof(double));
    double *X = NULL;
    int rc = (!cp || !ri || !mark || !R || !eo || !ep || !ev) ? NCP_ERR_NOMEM : NCP_OK;
    if (!rc) {
        for (size_t q = 0; q < nnz; q++) cp[J->col[q] + 1]++;
        for (int j = 0; j < n; j++) cp[j + 1] += cp[j];
        for (int i = 0; i < m; i++) {
            mark[i] = -1;
            for (int q = J->rowptr[i]; q < J->rowptr[i + 1]; q++) ri[cp[J->col[q]]++] = i;
        }
        for (int j = n; j > 0; j--) cp[j] = cp[j - 1];
        cp[0] = 0;
        if (D) memset(D, 0, (size_t)m * (size_t)m * sizeof(double));
        if (vf) memset(vf, 0, (size_t)m * sizeof(double));
        /* room for the largest chunk of any block: s * min(m, CHUNK / s) doubles, s >= 1 */
        size_t xn = (size_t)F->max_block * (size_t)m, cap = CHUNK_BYTES / sizeof(double);
        if (xn > cap) xn = cap;
        if (xn < (size_t)F->max_block) xn = (size_t)F->max_block;
        X = ncp_malloc(err, xn, sizeof(double));
        if (!X) rc = NCP_ERR_NOMEM;
    }
    for (int k = 0; !rc && k < F->nblocks; k++) {
        const int s = F->start[k + 1] - F->start[k];
        const int *d = F->dof + F->start[k];
        int r = 0;
        for (int a = 0; a < s; a++)
            for (int q = cp[d[a]]; q < cp[d[a] + 1]; q++)
                if (mark[ri[q]] != k) {
                    mark[ri[q]] = k;
                    R[r++] = ri[q];
                }
        if (r == 0) continue;
        /* the entries of those rows that fall in the block, in row order, at block positions */
        eo[0] = 0;
        for (int t = 0; t < r; t++) {
            int o = eo[t];
            for (int q = J->rowptr[R[t]]; q < J->rowptr[R[t] + 1]; q++)
                if (F->block[J->col[q]] == k) {
                    ep[o] = F->pos[J->col[q]];
                    ev[o++] = J->val[q];
                }
            eo[t + 1] = o;
        }
        size_t kc = CHUNK_BYTES / ((size_t)s * sizeof(double));
        if (kc < 1) kc = 1;
        if (kc > (size_t)r) kc = (size_t)r;
        /* D: columns R[j0 .. j1) of A^{-1} J^T, then the rows of J against them */
        for (int j0 = 0; !rc && D && j0 < r; j0 += (int)kc) {
            int w = r - j0 < (int)kc ? r - j0 : (int)kc;
            memset(X, 0, (size_t)s * (size_t)w * sizeof(double));
            for (int j = 0; j < w; j++)
                for (int o = eo[j0 + j]; o < eo[j0 + j + 1]; o++) X[ep[o] + (size_t)j * s] += ev[o];
            rc = solve_block(F, k, w, X, err);
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
    free(cp);
    free(ri);
    free(mark);
    free(R);
    free(eo);
    free(ep);
    free(ev);
    free(X);
    return rc;
}

double ncp_csr_max_asymmetry(const ncp_csr *A, int *row, int *col)
{
    double worst = 0.0;
    if (row) *row = -1;
    if (col) *col = -1;
    for (int i = 0; i < A->m; i++)
        for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            int j = A->col[q];
            double aji = 0.0;
            if (j < A->m) { /* binary search of column i in row j (columns sorted) */
                int lo = A->rowptr[j], hi = A->rowptr[j + 1];
                while (lo < hi) {
                    int mid = lo + (hi - lo) / 2;
                    if (A->col[mid] < i) lo = mid + 1;
                    else hi = mid;
                }
                if (lo < A->rowptr[j + 1] && A->col[lo] == i) aji = A->val[lo];
            }
            double dlt = fabs(A->val[q] - aji);
            if (dlt > worst) {
                worst = dlt;
                if (row) *row = i;
                if (col) *col = j;
            }
        }
    return worst;
}
