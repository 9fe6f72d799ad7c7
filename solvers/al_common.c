/* The augmented-Lagrangian machinery shared by canal, al-trdogleg and al-dampedsn (see
 * al_common.h for what is here and the conventions).
 *
 * Linear systems (eq. 24/25 and the ablations' Jacobians). dr/dv = A + beta sum_i J_i^T G_i J_i
 * is n x n, but it is never formed as dense products of dense matrices:
 *   - each constraint block touches only the columns of its J rows (precomputed once per solve:
 *     the sorted union of the CSR column indices and the block's J restricted to them), so its
 *     term costs O(k^2 q + k q^2) for k rows and q columns, and blocks with G_i = 0 (open
 *     contacts, inactive limits) add nothing and are skipped;
 *   - the matrix is block diagonal after a permutation: two velocities are coupled only through
 *     a non-zero of A (the pattern of A is read once per solve) or through an ACTIVE block that
 *     touches both. A union-find over those couplings splits the dofs into connected components
 *     (separate objects, piles that do not touch, bodies whose contacts are all open), and each
 *     component is assembled densely and factorised on its own with LAPACK (Cholesky for canal,
 *     LU for the non-symmetric ablations) through core/la.h. Cost: sum over components of s^3/3
 *     instead of n^3/3; the partition is recomputed at every step because the active set
 *     changes.
 *   - canal's SPD system on a large sparse problem (a pile of particles touching each other and
 *     a robot: one connected component of 291 dofs on pouring-45) goes through a fixed-pattern
 *     sparse Cholesky instead (core/sparse_chol.h): the union pattern of A and of every block's
 *     J_i^T J_i clique (active or not) does not change within a solve, so it is ordered
 *     (fill-reducing) and analysed once per solve and refactorised numerically per Newton step; blocks
 *     whose G_i = 0 add explicit zeros. Each entry is summed in the dense route's order (A, then
 *     the blocks in index order), so the two routes differ by round-off only
 *     (tests/test_canal.c). Automatic rule (newton_factor 0, any size): sparse when the sparse factorisation's flops (sum of squared column counts of L) are below the
 *     dense n^3/3 by the factor NCP_AL_SPARSE_GAIN, which the up-looking kernel's indirect
 *     addressing costs per flop against LAPACK (admm-nosub's rule, solvers/subadmm_core.c).
 *     On that route the mass matrix's own factor (initial_velocity) is also sparse, on A's
 *     pattern, and products with A go over its non-zeros (ncp_al_mass_apply).
 *     A problem that keeps A block-sparse (A_sparse: the simulator's block route) takes this
 *     route only (canal: the same numbers as the route on the same A kept dense). The ablations' Jacobians are non-symmetric (LU): they keep the
 *     dense per-component route, there being no sparse LU in core/.
 * Matrix-vector products with the Jacobian (the dogleg's Cauchy point, the damped Newton's merit
 * gradient) are matrix-free: A y plus J^T (G (J y)) with the CSR J.
 */
#include "solvers/al_common.h"
#include "solvers/al_operator.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/common.h"
#include "core/cone.h"
#include "core/blockpat.h"
#include "core/dop.h"
#include "core/la.h"
#include "core/sparse_chol.h"

/* ====================== per-block operators ====================== */

static int block_active(const ncp_block *b, const double *G)
{
    if (b->type != NCP_CONTACT) return G[0] != 0.0;
    for (int i = 0; i < 9; i++)
        if (G[i] != 0.0) return 1;
    return 0;
}

/* ====================== sparse assembly, per-component factorisation ====================== */

struct ncp_al_lin {
    int n, nb;
    int *aptr, *aidx;    /* off-diagonal non-zero pattern of A, by column (both triangles) */
    int *bptr, *bcol;    /* block bi: sorted union of its rows' J columns bcol[bptr[bi]..] */
    size_t *boff;        /* block bi: its J restricted to those columns, k x q column-major, at
                            bJ + boff[bi] */
    double *bJ;
    int *parent;         /* union-find */
    int *comp, *loc, *map, *cstart, *cdofs;
    int ncomp;
    size_t *moff;        /* component c's dense matrix at mat + moff[c] */
    double *mat;
    size_t mat_cap;
    int *ipiv;
    double *rhs;
    double *W;           /* 3 x (max q) scratch */
    /* sparse route (lin_choose): the fixed-pattern factor of the union pattern */
    ncp_spchol *sp;      /* NULL: the dense per-component route */
    ncp_blockpat pat;    /* union pattern, both triangles (core/blockpat.h): block bi's entry
                            (cols[ja], cols[jb]) is kval[pat.map[pat.moff[bi] + ja + q jb]] */
    double *kA;          /* A's values on it (0 where A is 0) */
    double *kval;        /* the matrix being factorised */
    ncp_csr am;          /* A's non-zeros (diagonal included): its products and own factor */
};

/* Sparse route of canal's Newton system (see the file header): a sparse factorisation cheaper
 * than the dense one by this factor in flops, at any size (a dense A whose pattern is full, as
 * bolt-nut's 6 dofs, never passes it). */
#define NCP_AL_SPARSE_GAIN 4.0

/* Frees the sparse route's arrays (back to the dense route). */
static void lin_drop_sparse(ncp_al_lin *L)
{
    ncp_spchol_free(L->sp);
    ncp_blockpat_free(&L->pat);
    free(L->kA);
    free(L->kval);
    L->sp = NULL;
    L->kA = L->kval = NULL;
    free(L->am.rowptr);
    free(L->am.col);
    free(L->am.val);
    memset(&L->am, 0, sizeof L->am);
}

static void lin_free(ncp_al_lin *L)
{
    if (!L) return;
    free(L->aptr);
    free(L->aidx);
    free(L->bptr);
    free(L->bcol);
    free(L->boff);
    free(L->bJ);
    free(L->parent);
    free(L->comp);
    free(L->loc);
    free(L->map);
    free(L->cstart);
    free(L->cdofs);
    free(L->moff);
    free(L->mat);
    free(L->ipiv);
    free(L->rhs);
    free(L->W);
    lin_drop_sparse(L);
    free(L);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A as the problem keeps it: dense (has_primal) or block-sparse (A_sparse: the simulator's block
 * route, FCLib's M). The block-sparse A is read through its rows (A is symmetric: row r = column
 * r) and takes the sparse route only (lin_choose), on which both give the same numbers. */
static int al_a_dense(const ncp_problem *p) { return p->has_primal && p->A != NULL; }

/* A block-sparse A's row r scattered into x (n, zero elsewhere; al_a_col_clear undoes it);
 * nothing for the dense A, which al_a_rc reads in place. */
static void al_a_col(const ncp_problem *p, int r, double *x)
{
    if (al_a_dense(p)) return;
    const ncp_csr *A = &p->A_sparse;
    for (int e = A->rowptr[r]; e < A->rowptr[r + 1]; e++) x[A->col[e]] += A->val[e];
}

static void al_a_col_clear(const ncp_problem *p, int r, double *x)
{
    if (al_a_dense(p)) return;
    const ncp_csr *A = &p->A_sparse;
    for (int e = A->rowptr[r]; e < A->rowptr[r + 1]; e++) x[A->col[e]] = 0.0;
}

/* A_rc: the dense A's entry, or x[c] after al_a_col(p, r, x). */
static double al_a_rc(const ncp_problem *p, const double *x, int r, int c)
{
    return al_a_dense(p) ? p->A[r + (size_t)c * p->nv] : x[c];
}

static int lin_create(const ncp_problem *p, ncp_al_lin **out, ncp_error *err)
{
    int n = p->nv, nb = p->nblocks;
    const ncp_csr *J = &p->J;
    ncp_al_lin *L = ncp_calloc(err, 1, sizeof *L);
    if (!L) return NCP_ERR_NOMEM;
    L->n = n;
    L->nb = nb;
    size_t nn = (size_t)(n > 0 ? n : 1);
    /* pattern of A (its non-zeros: a block-sparse A's stored zeros are left out too) */
    size_t annz = 0;
    if (al_a_dense(p)) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                if (i != j && p->A[i + (size_t)j * n] != 0.0) annz++;
    } else {
        annz = (size_t)p->A_sparse.nnz;
    }
    L->aptr = ncp_calloc(err, nn + 1, sizeof(int));
    L->aidx = ncp_calloc(err, annz ? annz : 1, sizeof(int));
    /* block columns: at most the block's CSR entries */
    size_t bcap = 0;
    for (int bi = 0; bi < nb; bi++) {
        int r = p->blocks[bi].row, k = ncp_block_type_size(p->blocks[bi].type);
        bcap += (size_t)(J->rowptr[r + k] - J->rowptr[r]);
    }
    L->bptr = ncp_calloc(err, (size_t)nb + 1, sizeof(int));
    L->bcol = ncp_calloc(err, bcap ? bcap : 1, sizeof(int));
    L->boff = ncp_calloc(err, (size_t)nb + 1, sizeof(size_t));
    L->parent = ncp_calloc(err, nn, sizeof(int));
    L->comp = ncp_calloc(err, nn, sizeof(int));
    L->loc = ncp_calloc(err, nn, sizeof(int));
    L->map = ncp_calloc(err, nn, sizeof(int));
    L->cstart = ncp_calloc(err, nn + 1, sizeof(int));
    L->cdofs = ncp_calloc(err, nn, sizeof(int));
    L->moff = ncp_calloc(err, nn + 1, sizeof(size_t));
    L->ipiv = ncp_calloc(err, nn, sizeof(int));
    L->rhs = ncp_calloc(err, nn, sizeof(double));
    if (!L->aptr || !L->aidx || !L->bptr || !L->bcol || !L->boff || !L->parent || !L->comp ||
        !L->loc || !L->map || !L->cstart || !L->cdofs || !L->moff || !L->ipiv || !L->rhs) {
        lin_free(L);
        return NCP_ERR_NOMEM;
    }
    size_t k = 0;
    double *col = al_a_dense(p) ? NULL : ncp_calloc(err, nn, sizeof(double));
    if (!al_a_dense(p) && !col) {
        lin_free(L);
        return NCP_ERR_NOMEM;
    }
    for (int j = 0; j < n; j++) {
        L->aptr[j] = (int)k;
        if (al_a_dense(p)) {
            for (int i = 0; i < n; i++)
                if (i != j && p->A[i + (size_t)j * n] != 0.0) L->aidx[k++] = i;
            continue;
        }
        /* the dense scan's order (rows ascending) from the row's entries, duplicates summed */
        const ncp_csr *A = &p->A_sparse;
        size_t k0 = k;
        al_a_col(p, j, col);
        for (int e = A->rowptr[j]; e < A->rowptr[j + 1]; e++) {
            int i = A->col[e];
            if (i != j && col[i] != 0.0) {
                L->aidx[k++] = i;
                col[i] = 0.0; /* once */
            }
        }
        al_a_col_clear(p, j, col);
        qsort(L->aidx + k0, k - k0, sizeof(int), cmp_int);
    }
    L->aptr[n] = (int)k;
    free(col);
    /* block column sets (sorted, unique) and their dense J */
    int qmax = 1;
    size_t jsz = 0, pos = 0;
    for (int bi = 0; bi < nb; bi++) {
        int r = p->blocks[bi].row, kk = ncp_block_type_size(p->blocks[bi].type);
        L->bptr[bi] = (int)pos;
        size_t s0 = pos;
        for (int e = J->rowptr[r]; e < J->rowptr[r + kk]; e++) L->bcol[pos++] = J->col[e];
        qsort(L->bcol + s0, pos - s0, sizeof(int), cmp_int);
        size_t u = s0;
        for (size_t e = s0; e < pos; e++)
            if (u == s0 || L->bcol[e] != L->bcol[u - 1]) L->bcol[u++] = L->bcol[e];
        pos = u;
        int q = (int)(pos - s0);
        if (q > qmax) qmax = q;
        L->boff[bi] = jsz;
        jsz += (size_t)kk * (size_t)q;
    }
    L->bptr[nb] = (int)pos;
    L->boff[nb] = jsz;
    L->bJ = ncp_calloc(err, jsz ? jsz : 1, sizeof(double));
    L->W = ncp_calloc(err, 3 * (size_t)qmax, sizeof(double));
    if (!L->bJ || !L->W) {
        lin_free(L);
        return NCP_ERR_NOMEM;
    }
    for (int bi = 0; bi < nb; bi++) {
        int r = p->blocks[bi].row, kk = ncp_block_type_size(p->blocks[bi].type);
        const int *cols = L->bcol + L->bptr[bi];
        int q = L->bptr[bi + 1] - L->bptr[bi];
        double *Jb = L->bJ + L->boff[bi];
        for (int a = 0; a < kk; a++)
            for (int e = J->rowptr[r + a]; e < J->rowptr[r + a + 1]; e++) {
                const int *hit = bsearch(&J->col[e], cols, (size_t)q, sizeof(int), cmp_int);
                Jb[a + (size_t)kk * (size_t)(hit - cols)] += J->val[e];
            }
    }
    *out = L;
    return NCP_OK;
}

/* The route of this solve (file header): mode 0 auto, 1 dense, 2 sparse. For the sparse route,
 * the union pattern with every block's entry positions (core/blockpat.h; row r: the diagonal,
 * A's non-zeros of column r, the columns of every block touching r), its analysis and A's values
 * on it. */
static int lin_choose(const ncp_problem *p, ncp_al_lin *L, int mode, ncp_error *err)
{
    int n = L->n, nb = L->nb, rc = NCP_OK;
    if (!al_a_dense(p)) { /* a block-sparse A: the sparse route only */
        if (mode == 1)
            return ncp_error_set(err, NCP_ERR_INPUT, "newton_factor = 1 (dense) needs the dense A; "
                                 "problem '%s' keeps A sparse (use 0 or 2, or --primal dense)",
                                 p->name ? p->name : "?");
        mode = 2;
    }
    if (mode == 1 || n == 0) return NCP_OK;
    size_t n1 = (size_t)n;
    double *col = ncp_calloc(err, n1, sizeof(double));
    if (!col) return NCP_ERR_NOMEM;
    if ((rc = ncp_blockpat_build(n, L->aptr, L->aidx, nb, L->bptr, L->bcol, 0, &L->pat, err)))
        goto out;
    size_t nz = (size_t)L->pat.ptr[n];
    L->kA = ncp_malloc(err, nz + 1, sizeof(double));
    L->kval = ncp_malloc(err, nz + 1, sizeof(double));
    if (!L->kA || !L->kval) {
        rc = NCP_ERR_NOMEM;
        goto out;
    }
    for (int r = 0; r < n; r++) {
        al_a_col(p, r, col);
        for (int e = L->pat.ptr[r]; e < L->pat.ptr[r + 1]; e++)
            L->kA[e] = al_a_rc(p, col, r, L->pat.idx[e]);
        al_a_col_clear(p, r, col);
    }
    if ((rc = ncp_spchol_analyse(n, L->pat.ptr, L->pat.idx, &L->sp, err))) goto out;
    double flops;
    ncp_spchol_stats(L->sp, NULL, &flops);
    if (mode == 0 && !(NCP_AL_SPARSE_GAIN * flops < (double)n * n * n / 3.0)) {
        lin_drop_sparse(L);
        goto out;
    }
    /* A in CSR (row r = column r of the symmetric A; columns ascending) */
    size_t anz = (size_t)L->aptr[n] + n1;
    L->am.rowptr = ncp_malloc(err, n1 + 1, sizeof(int));
    L->am.col = ncp_malloc(err, anz, sizeof(int));
    L->am.val = ncp_malloc(err, anz, sizeof(double));
    if (!L->am.rowptr || !L->am.col || !L->am.val) {
        rc = NCP_ERR_NOMEM;
        goto out;
    }
    L->am.m = L->am.n = n;
    int k = 0;
    for (int r = 0; r < n; r++) {
        int diag = 0;
        L->am.rowptr[r] = k;
        al_a_col(p, r, col);
        for (int e = L->aptr[r]; e <= L->aptr[r + 1]; e++) {
            int c = e < L->aptr[r + 1] ? L->aidx[e] : n;
            if (!diag && c > r) {
                L->am.col[k] = r;
                L->am.val[k++] = al_a_rc(p, col, r, r);
                diag = 1;
            }
            if (c == n) break;
            L->am.col[k] = c;
            L->am.val[k++] = al_a_rc(p, col, r, c);
        }
        al_a_col_clear(p, r, col);
    }
    L->am.rowptr[n] = L->am.nnz = k;
out:
    free(col);
    if (rc) lin_drop_sparse(L);
    return rc;
}

static int uf_find(int *par, int i)
{
    while (par[i] != i) {
        par[i] = par[par[i]];
        i = par[i];
    }
    return i;
}

static void uf_union(int *par, int a, int b)
{
    a = uf_find(par, a);
    b = uf_find(par, b);
    if (a < b) par[b] = a;
    else if (b < a) par[a] = b;
}

/* Partition of the dofs for the current G (see the file header). */
static int lin_partition(ncp_al_ws *w, ncp_error *err)
{
    ncp_al_lin *L = w->lin;
    const ncp_problem *p = w->p;
    int n = L->n;
    for (int i = 0; i < n; i++) L->parent[i] = i;
    for (int j = 0; j < n; j++)
        for (int e = L->aptr[j]; e < L->aptr[j + 1]; e++) uf_union(L->parent, L->aidx[e], j);
    for (int bi = 0; bi < L->nb; bi++) {
        if (!block_active(&p->blocks[bi], w->G + 9 * (size_t)bi)) continue;
        for (int e = L->bptr[bi] + 1; e < L->bptr[bi + 1]; e++)
            uf_union(L->parent, L->bcol[L->bptr[bi]], L->bcol[e]);
    }
    for (int i = 0; i < n; i++) L->map[i] = -1;
    int nc = 0;
    for (int i = 0; i < n; i++) {
        int root = uf_find(L->parent, i);
        if (L->map[root] < 0) L->map[root] = nc++;
        L->comp[i] = L->map[root];
    }
    L->ncomp = nc;
    memset(L->cstart, 0, ((size_t)nc + 1) * sizeof(int));
    for (int i = 0; i < n; i++) L->cstart[L->comp[i] + 1]++;
    for (int c = 0; c < nc; c++) L->cstart[c + 1] += L->cstart[c];
    for (int c = 0; c < nc; c++) L->map[c] = L->cstart[c]; /* fill pointer */
    for (int i = 0; i < n; i++) {
        int c = L->comp[i];
        L->loc[i] = L->map[c] - L->cstart[c];
        L->cdofs[L->map[c]++] = i;
    }
    size_t tot = 0;
    for (int c = 0; c < nc; c++) {
        size_t s = (size_t)(L->cstart[c + 1] - L->cstart[c]);
        L->moff[c] = tot;
        tot += s * s;
    }
    L->moff[nc] = tot;
    if (tot > L->mat_cap) {
        double *nm = ncp_malloc(err, tot, sizeof(double));
        if (!nm) return NCP_ERR_NOMEM;
        free(L->mat);
        L->mat = nm;
        L->mat_cap = tot;
    }
    return NCP_OK;
}

/* One block's term J_i^T G_i J_i on its q columns (both routes sum it this way): block_gj sets
 * W = G Jb (k x q), block_entry returns entry (ja, jb) = Jb[:, ja]^T W[:, jb]. */
static void block_gj(ncp_al_lin *L, const double *G, int k, int q, const double *Jb)
{
    for (int j = 0; j < q; j++)
        for (int a = 0; a < k; a++) {
            double acc = 0.0;
            for (int t = 0; t < k; t++) acc += G[a + 3 * t] * Jb[t + (size_t)k * j];
            L->W[a + (size_t)k * j] = acc;
        }
}

static double block_entry(const ncp_al_lin *L, int k, const double *Jb, int ja, int jb)
{
    double acc = 0.0;
    for (int t = 0; t < k; t++) acc += Jb[t + (size_t)k * ja] * L->W[t + (size_t)k * jb];
    return acc;
}

/* A + beta sum_{active i} J_i^T G_i J_i: densely for every component (dense route), or on the
 * union pattern (sparse route, into kval), each entry summed in the same order (A, then the
 * blocks in index order). */
static void lin_assemble(ncp_al_ws *w, int sparse)
{
    ncp_al_lin *L = w->lin;
    const ncp_problem *p = w->p;
    int n = L->n;
    if (sparse) {
        memcpy(L->kval, L->kA, (size_t)L->pat.ptr[n] * sizeof(double));
    } else {
        for (int c = 0; c < L->ncomp; c++) {
            int s = L->cstart[c + 1] - L->cstart[c];
            const int *d = L->cdofs + L->cstart[c];
            double *H = L->mat + L->moff[c];
            for (int b = 0; b < s; b++)
                for (int a = 0; a < s; a++) H[a + (size_t)b * s] = p->A[d[a] + (size_t)d[b] * n];
        }
    }
    for (int bi = 0; bi < L->nb; bi++) {
        const ncp_block *blk = &p->blocks[bi];
        const double *G = w->G + 9 * (size_t)bi;
        int q = L->bptr[bi + 1] - L->bptr[bi];
        if (q == 0 || !block_active(blk, G)) continue;
        int k = ncp_block_type_size(blk->type);
        const int *cols = L->bcol + L->bptr[bi];
        const double *Jb = L->bJ + L->boff[bi];
        block_gj(L, G, k, q, Jb);
        if (sparse) {
            const int *bp = L->pat.map + L->pat.moff[bi];
            for (int jb = 0; jb < q; jb++)
                for (int ja = 0; ja < q; ja++)
                    L->kval[bp[ja + (size_t)q * jb]] += w->beta * block_entry(L, k, Jb, ja, jb);
            continue;
        }
        int c = L->comp[cols[0]];
        int s = L->cstart[c + 1] - L->cstart[c];
        double *H = L->mat + L->moff[c];
        for (int jb = 0; jb < q; jb++) {
            int lb = L->loc[cols[jb]];
            for (int ja = 0; ja < q; ja++)
                H[L->loc[cols[ja]] + (size_t)lb * s] += w->beta * block_entry(L, k, Jb, ja, jb);
        }
    }
}

int ncp_al_lin_solve(ncp_al_ws *w, int spd, double *rhs, ncp_error *err)
{
    ncp_al_lin *L = w->lin;
    if (spd && L->sp) {
        lin_assemble(w, 1);
        w->st->factorizations++;
        int rc = ncp_spchol_factor(L->sp, L->kval, NULL, 0.0, err);
        if (!rc) ncp_spchol_solve(L->sp, rhs);
        return rc;
    }
    int rc = lin_partition(w, err);
    if (rc) return rc;
    lin_assemble(w, 0);
    w->st->factorizations++;
    for (int c = 0; c < L->ncomp; c++) {
        int s = L->cstart[c + 1] - L->cstart[c];
        const int *d = L->cdofs + L->cstart[c];
        double *H = L->mat + L->moff[c];
        for (int a = 0; a < s; a++) L->rhs[a] = rhs[d[a]];
        if (spd) {
            rc = ncp_chol_factor(s, H, err);
            if (!rc) rc = ncp_chol_solve(s, H, 1, L->rhs, err);
        } else {
            rc = ncp_lu_solve(s, H, L->ipiv, 1, L->rhs, err);
        }
        if (rc) return rc;
        for (int a = 0; a < s; a++) rhs[d[a]] = L->rhs[a];
    }
    return NCP_OK;
}

/* ====================== r(v), Jacobian products ====================== */

void ncp_al_mass_apply(const ncp_al_ws *w, const double *y, double *out)
{
    if (w->lin->sp) ncp_csr_gemv(&w->lin->am, 1.0, y, 0.0, out);
    else ncp_gemv(0, w->n, w->n, 1.0, w->p->A, y, 0.0, out);
}

/* Round-off level of a computed quantity, in units of eps times the size of its terms. */
#ifndef NCP_AL_FLOOR
#define NCP_AL_FLOOR 4.0
#endif

void ncp_al_eval(ncp_al_ws *w, const double *v, int deriv)
{
    const ncp_problem *p = w->p;
    int n = w->n, m = w->m, prox = w->cfg->cascade;
    /* x = lambda^l - beta (J v + e~)   (eq. 18/21 with u = -lambda^l) */
    ncp_csr_gemv(&p->J, 1.0, v, 0.0, w->x);
    for (int i = 0; i < m; i++) {
        /* size of the terms of x_i: its rounding error, propagated where T is active */
        w->xs[i] = fabs(w->lam_prev[i]) + w->beta * (fabs(w->x[i]) + fabs(w->eshift[i]));
        w->x[i] = w->lam_prev[i] - w->beta * (w->x[i] + w->eshift[i]);
    }
    double mag2 = 0.0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int k = ncp_block_type_size(b->type), r = b->row, active = 0;
        ncp_al_block_T(b, prox, w->beta, w->x + r, w->T + r,
                       deriv ? w->G + 9 * (size_t)bi : NULL, 0);
        for (int i = 0; i < k; i++) active |= w->T[r + i] != 0.0;
        active |= b->type == NCP_BILATERAL || b->type == NCP_SOFT;
        for (int i = 0; i < k; i++) {
            if (!active) w->xs[r + i] = 0.0;
            mag2 += w->xs[r + i] * w->xs[r + i];
        }
    }
    w->lam_floor = NCP_AL_FLOOR * DBL_EPSILON * sqrt(mag2);
    ncp_al_mass_apply(w, v, w->Av);
    ncp_csr_gemv_t(&p->J, 1.0, w->T, 0.0, w->jtT);
    for (int i = 0; i < n; i++) w->r[i] = w->Av[i] - p->b[i] - w->jtT[i];
    w->rnorm = ncp_norm2(n, w->r);
    double step2 = 0.0;
    for (int i = 0; i < n; i++) step2 += (w->jtT[i] - w->jtl[i]) * (w->jtT[i] - w->jtl[i]);
    ncp_csr_gemv_t(&p->J, 1.0, w->xs, 0.0, w->jtl + n); /* scratch: J^T |x terms| */
    double floor = NCP_AL_FLOOR * DBL_EPSILON *
                   (ncp_norm2(n, w->Av) + ncp_norm2(n, p->b) + ncp_norm2(n, w->jtT) +
                    ncp_norm2(n, w->jtl + n));
    w->rtol = fmax(w->theta_n, w->set.inner_tol * sqrt(step2));
    w->rfloor = floor;
}

int ncp_al_inner_done(const ncp_al_ws *w, double prev_rnorm)
{
    return w->rnorm <= w->rtol || (w->rnorm <= w->rfloor && w->rnorm > 0.5 * prev_rnorm);
}

void ncp_al_jac_apply(ncp_al_ws *w, int trans, const double *y, double *out)
{
    const ncp_problem *p = w->p;
    ncp_csr_gemv(&p->J, 1.0, y, 0.0, w->w);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        const double *G = w->G + 9 * (size_t)bi;
        int k = ncp_block_type_size(b->type), r = b->row;
        for (int a = 0; a < k; a++) {
            double acc = 0.0;
            for (int t = 0; t < k; t++) acc += (trans ? G[t + 3 * a] : G[a + 3 * t]) * w->w[r + t];
            w->xs[r + a] = acc;
        }
    }
    ncp_al_mass_apply(w, y, out);
    ncp_csr_gemv_t(&p->J, w->beta, w->xs, 1.0, out);
}

/* ====================== parameters ====================== */

/* The parameters every member documents (NCP_AL_DOC_COMMON), then the member's own, from
 * in->params against cfg->desc's table, validated. */
static int read_settings(const ncp_al_config *cfg, const ncp_params *ps, ncp_al_settings *set,
                         ncp_error *err)
{
    const ncp_solver_desc *self = cfg->desc;
    memset(set, 0, sizeof *set);
    int rc;
    if ((rc = ncp_solver_param_real(self, ps, "beta0", 0.0, INFINITY, 0, &set->beta0, err)) ||
        (rc = ncp_solver_param_real(self, ps, "beta0_rel", 0.0, INFINITY, NCP_PARAM_LO_OPEN,
                                    &set->beta0_rel, err)) ||
        (rc = ncp_solver_param_real(self, ps, "beta_max_ratio", 1.0, INFINITY, 0,
                                    &set->beta_max_ratio, err)) ||
        (rc = ncp_solver_param_real(self, ps, "kappa", 1.0, INFINITY, NCP_PARAM_LO_OPEN,
                                    &set->kappa, err)) ||
        (rc = ncp_solver_param_real(self, ps, "zeta", 0.0, INFINITY, 0, &set->zeta, err)) ||
        (rc = ncp_solver_param_real(self, ps, "theta_al", 0.0, INFINITY, 0, &set->theta_al,
                                    err)) ||
        (rc = ncp_solver_param_real(self, ps, "theta_n", 0.0, INFINITY, 0, &set->theta_n, err)) ||
        (rc = ncp_solver_param_real(self, ps, "theta_n_abs", 0.0, INFINITY, 0, &set->theta_n_abs,
                                    err)) ||
        (rc = ncp_solver_param_real(self, ps, "inner_tol", 0.0, 1.0, 0, &set->inner_tol, err)) ||
        (rc = ncp_solver_param_int(self, ps, "inner_max", 1, 100000, &set->inner_max, err)) ||
        (rc = ncp_solver_param_real(self, ps, "stall_tol", 0.0, INFINITY, 0, &set->stall_tol,
                                    err)) ||
        (rc = ncp_solver_param_int(self, ps, "cold_v", 0, 1, &set->cold_v, err)))
        return rc;
    return cfg->read_params ? cfg->read_params(self, ps, set, err) : NCP_OK;
}

/* ====================== the AL loop (Alg. 1) ====================== */

static void ws_free(ncp_al_ws *w)
{
    free(w->lam_prev);
    free(w->eshift);
    free(w->v);
    free(w->x);
    free(w->T);
    free(w->G);
    free(w->Av);
    free(w->jtT);
    free(w->jtl);
    free(w->r);
    free(w->d);
    free(w->g);
    free(w->t1);
    free(w->t2);
    free(w->vt);
    free(w->w);
    free(w->xs);
    lin_free(w->lin);
}

static int ws_alloc(ncp_al_ws *w, ncp_error *err)
{
    size_t n = (size_t)(w->n > 0 ? w->n : 1), m = (size_t)(w->m > 0 ? w->m : 1);
    size_t nb = (size_t)(w->p->nblocks > 0 ? w->p->nblocks : 1);
    w->lam_prev = ncp_calloc(err, m, sizeof(double));
    w->eshift = ncp_calloc(err, m, sizeof(double));
    w->x = ncp_calloc(err, m, sizeof(double));
    w->T = ncp_calloc(err, m, sizeof(double));
    w->w = ncp_calloc(err, m, sizeof(double));
    w->xs = ncp_calloc(err, m, sizeof(double));
    w->G = ncp_calloc(err, 9 * nb, sizeof(double));
    w->v = ncp_calloc(err, n, sizeof(double));
    w->Av = ncp_calloc(err, n, sizeof(double));
    w->jtT = ncp_calloc(err, n, sizeof(double));
    w->jtl = ncp_calloc(err, 2 * n, sizeof(double)); /* second half: scratch of ncp_al_eval */
    w->r = ncp_calloc(err, n, sizeof(double));
    w->d = ncp_calloc(err, n, sizeof(double));
    w->g = ncp_calloc(err, n, sizeof(double));
    w->t1 = ncp_calloc(err, n, sizeof(double));
    w->t2 = ncp_calloc(err, n, sizeof(double));
    w->vt = ncp_calloc(err, n, sizeof(double));
    if (!w->lam_prev || !w->eshift || !w->x || !w->T || !w->w || !w->xs || !w->G || !w->v ||
        !w->Av || !w->jtT || !w->jtl || !w->r || !w->d || !w->g || !w->t1 || !w->t2 || !w->vt)
        return NCP_ERR_NOMEM;
    return lin_create(w->p, &w->lin, err);
}

/* v0 = A^{-1}(b + J^T lambda0): the velocity of the warm-start impulses (with lambda0 = 0 the
 * free velocity), Alg. 1 line 2. */
/* The sparse route's factor of the mass matrix alone, on A's own pattern (block diagonal per
 * body or kinematic tree: far sparser than the Newton system's). */
static int mass_factor_sparse(const ncp_al_lin *L, ncp_spchol **F, ncp_error *err)
{
    int rc = ncp_spchol_analyse(L->n, L->am.rowptr, L->am.col, F, err);
    if (!rc && (rc = ncp_spchol_factor(*F, L->am.val, NULL, 0.0, err))) {
        ncp_spchol_free(*F);
        *F = NULL;
    }
    if (rc) ncp_error_prefix(err, "mass matrix A: ");
    return rc;
}

static int initial_velocity(const ncp_problem *p, const ncp_al_lin *lin, const double *lam,
                            double *v, ncp_error *err)
{
    int n = p->nv;
    if (lin->sp) {
        ncp_spchol *F = NULL;
        int rc = mass_factor_sparse(lin, &F, err);
        if (rc) return rc;
        ncp_copy(n, p->b, v);
        ncp_csr_gemv_t(&p->J, 1.0, lam, 1.0, v);
        ncp_spchol_solve(F, v);
        ncp_spchol_free(F);
        return NCP_OK;
    }
    double *L = ncp_malloc(err, (size_t)n * (size_t)n, sizeof(double));
    if (!L) return NCP_ERR_NOMEM;
    memcpy(L, p->A, (size_t)n * (size_t)n * sizeof(double));
    ncp_copy(n, p->b, v);
    ncp_csr_gemv_t(&p->J, 1.0, lam, 1.0, v);
    int rc = ncp_chol_factor(n, L, err);
    if (!rc) rc = ncp_chol_solve(n, L, 1, v, err);
    if (rc) ncp_error_prefix(err, "mass matrix A: ");
    free(L);
    return rc;
}

int ncp_al_delassus_diag(const ncp_problem *p, double *d, ncp_error *err)
{
    const int m = p->m;
    if (m == 0) return NCP_OK;
    if (p->has_dual && p->D) {
        for (int i = 0; i < m; i++) d[i] = p->D[i + (size_t)i * m];
        return NCP_OK;
    }
    ncp_dop op;
    int rc = ncp_dop_init(&op, p, NCP_DOP_SPARSE, err);
    if (rc) return rc;
    double B[9];
    for (int bi = 0; bi < p->nblocks; bi++) { /* blocks of 1 or 3 rows */
        const int r = p->blocks[bi].row, k = ncp_block_type_size(p->blocks[bi].type);
        ncp_dop_diag_block(&op, r, k, B);
        for (int a = 0; a < k; a++) d[r + a] = B[a + k * a];
    }
    ncp_dop_free(&op);
    return NCP_OK;
}

/* D's diagonal per row through a full solve over all n dofs: O(m n) with A's sparse factor on
 * canal's sparse route (dense: O(m n^2)). Only where the operator cannot serve
 * (ncp_al_delassus_diag's NCP_ERR_INPUT: a connected block of A too large for a dense factor,
 * which the operator's sparse route does not hand to CHOLMOD). */
static int delassus_diag_by_rows(const ncp_problem *p, const ncp_al_lin *lin, double *dd,
                                 ncp_error *err)
{
    int n = p->nv, m = p->m, rc = NCP_OK;
    double *t = ncp_calloc(err, (size_t)(n > 0 ? n : 1), sizeof(double));
    double *L = NULL;
    ncp_spchol *F = NULL;
    if (!t) return NCP_ERR_NOMEM;
    if (lin->sp) { /* D_ii = J_i (A^-1 J_i^T) */
        if ((rc = mass_factor_sparse(lin, &F, err))) goto out;
        for (int i = 0; i < m; i++) {
            memset(t, 0, (size_t)n * sizeof(double));
            for (int e = p->J.rowptr[i]; e < p->J.rowptr[i + 1]; e++) t[p->J.col[e]] += p->J.val[e];
            ncp_spchol_solve(F, t);
            double acc = 0.0;
            for (int e = p->J.rowptr[i]; e < p->J.rowptr[i + 1]; e++)
                acc += p->J.val[e] * t[p->J.col[e]];
            dd[i] = acc;
        }
    } else if (al_a_dense(p)) {
        L = ncp_malloc(err, (size_t)n * (size_t)n, sizeof(double));
        if (!L) {
            rc = NCP_ERR_NOMEM;
            goto out;
        }
        memcpy(L, p->A, (size_t)n * (size_t)n * sizeof(double));
        if ((rc = ncp_chol_factor(n, L, err))) {
            ncp_error_prefix(err, "mass matrix A: ");
            goto out;
        }
        for (int i = 0; i < m; i++) { /* forward substitution L y = J_i^T, D_ii = ||y||^2 */
            memset(t, 0, (size_t)n * sizeof(double));
            for (int e = p->J.rowptr[i]; e < p->J.rowptr[i + 1]; e++) t[p->J.col[e]] += p->J.val[e];
            ncp_trsm_lower(0, n, L, 1, t);
            dd[i] = ncp_dot(n, t, t);
        }
    } else {
        rc = ncp_error_set(err, NCP_ERR_INTERNAL, "problem '%s': block-sparse A off canal's "
                           "sparse Newton route", p->name ? p->name : "?");
    }
out:
    free(t);
    free(L);
    ncp_spchol_free(F);
    return rc;
}

/* The problem's own scales, so that no default carries a unit (a 5 g particle and a 5 kg pot
 * get the same iterates up to the impulse unit; tests/test_canal.c checks it):
 *   dmean = mean of the positive D_ii = J_i A^-1 J_i^T (velocity per impulse, 1/mass;
 *           ncp_al_delassus_diag): beta0 D is dimensionless, so the scale-free beta0 is
 *           beta0_rel / dmean;
 *   mom   = ||b|| + ||J^T lambda0|| + ||J^T (|e| / D_ii)||: the momentum of the free motion, of
 *           the warm-start impulses and of the impulses that would cancel the bias e row by row;
 *           the scale-free theta_N of Alg. 1 line 8 is theta_n mom.
 * Cost: once per solve, not per Newton step; O(nnz(J) + A's blocks) through the operator.
 * NCP_ERR_NUMERIC if A is not SPD. */
static int problem_scale(const ncp_problem *p, const ncp_al_lin *lin, const double *lam0,
                         double *dmean, double *mom, ncp_error *err)
{
    int n = p->nv, m = p->m, rc = NCP_OK;
    double *dd = ncp_calloc(err, (size_t)(m > 0 ? m : 1), sizeof(double));
    double *t = ncp_calloc(err, (size_t)(n > 0 ? n : 1), sizeof(double));
    if (!dd || !t) {
        rc = NCP_ERR_NOMEM;
        goto out;
    }
    rc = ncp_al_delassus_diag(p, dd, err);
    if (rc == NCP_ERR_INPUT) {
        ncp_error_clear(err);
        rc = delassus_diag_by_rows(p, lin, dd, err);
    }
    if (rc) goto out;
    double sum = 0.0;
    int cnt = 0;
    for (int i = 0; i < m; i++)
        if (dd[i] > 0.0) {
            sum += dd[i];
            cnt++;
        }
    /* no constraint rows: beta then multiplies nothing; 1/mean diag(A) keeps it in mass units */
    if (cnt > 0) {
        *dmean = sum / cnt;
    } else {
        double a = 0.0;
        for (int j = 0; j < n; j++)
            a += al_a_dense(p) ? p->A[j + (size_t)j * n] : ncp_csr_diag(&p->A_sparse, j);
        *dmean = a > 0.0 ? n / a : 1.0;
    }
    for (int i = 0; i < m; i++) dd[i] = dd[i] > 0.0 ? fabs(p->e[i]) / dd[i] : 0.0;
    ncp_csr_gemv_t(&p->J, 1.0, dd, 0.0, t);
    *mom = ncp_norm2(n, p->b) + ncp_norm2(n, t);
    if (lam0) {
        ncp_csr_gemv_t(&p->J, 1.0, lam0, 0.0, t);
        *mom += ncp_norm2(n, t);
    }
out:
    free(dd);
    free(t);
    return rc;
}

/* The whole solve: setup, the AL loop of Alg. 1 with cfg->inner, reporting every AL loop to run
 * (when run != NULL; else exactly max_al loops unless the own tests stop earlier). on_step and
 * st_user may be NULL. */
/* The inner work of a run in the row's note (metrics.csv's note column), what Lee et al. 2025
 * Table II counts and the Newton profile of §VII-A1 reads: "inner steps K over L AL loops, F
 * failed (per loop: k1 k2 ...)", the per-loop counts of the first AL_NOTE_LOOPS loops (the
 * loop that failed numerically is not counted in L but its inner steps are in K). */
#define AL_NOTE_LOOPS 10
static void al_note_inner(ncp_run *run, const ncp_al_stats *st, const int *per_loop, int loops)
{
    char list[AL_NOTE_LOOPS * 12 + 1] = "";
    size_t used = 0;
    for (int k = 0; k < loops && k < AL_NOTE_LOOPS; k++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%d", k ? " " : "",
                                 per_loop[k]);
    ncp_run_note(run, "inner steps %d over %d AL loops, %d failed (per loop: %s)",
                 st->inner_iterations, loops, st->inner_failures, list);
}

static int al_run(const ncp_al_config *cfg, const ncp_al_settings *set, const ncp_solve_in *in,
                  ncp_solve_out *out, ncp_run *run, int max_al, ncp_al_step_fn on_step,
                  void *on_step_ctx, ncp_al_stats *st_user, ncp_error *err)
{
    const ncp_solver_desc *self = cfg->desc;
    const ncp_al_inner_fn inner = cfg->inner;
    const ncp_problem *p = in->prob;
    int sparse_a = !al_a_dense(p) && p->has_sparse_primal && p->A_sparse.rowptr &&
                   p->A_sparse.m == p->nv && p->A_sparse.n == p->nv;
    if ((!al_a_dense(p) && !sparse_a) || !p->b || !p->e)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: problem '%s' has no primal data (A, b, J, e)",
                             self->name, p->name ? p->name : "?");
    if (sparse_a && !cfg->cascade) /* the ablations' LU runs on the dense per-component route */
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: problem '%s' keeps A sparse; this solver "
                             "reads the dense A (--primal dense densifies it)", self->name,
                             p->name ? p->name : "?");
    for (int bi = 0; bi < p->nblocks; bi++) {
        int t = p->blocks[bi].type;
        if (t != NCP_BILATERAL && t != NCP_UNILATERAL && t != NCP_CONTACT && t != NCP_SOFT)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: problem '%s', block %d has unknown type "
                                 "%d", self->name, p->name ? p->name : "?", bi, t);
    }
    ncp_al_stats st_local;
    memset(&st_local, 0, sizeof st_local);
    ncp_al_stats *st = st_user ? st_user : &st_local;
    memset(st, 0, sizeof *st);

    ncp_al_ws w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.cfg = cfg;
    w.set = *set;
    w.n = p->nv;
    w.m = p->m;
    w.st = st;
    w.on_step = on_step;
    w.on_step_ctx = on_step_ctx;
    int n = w.n, m = w.m;
    double *lam = NULL, *z = NULL, *vgood = NULL;
    int rc = ws_alloc(&w, err);
    if (!rc) {
        lam = ncp_calloc(err, (size_t)(m > 0 ? m : 1), sizeof(double));
        z = ncp_calloc(err, (size_t)(m > 0 ? m : 1), sizeof(double));
        vgood = ncp_calloc(err, (size_t)(n > 0 ? n : 1), sizeof(double)); /* last finite v */
        if (!lam || !z || !vgood) rc = NCP_ERR_NOMEM;
    }
    if (rc) goto done;
    /* Start (Lee et al. 2025 §V-D, Alg. 1 line 2). Warm (v0 given: the previous step's
     * velocity): v^0 = v0, u^0 = -lambda0 (0 without lambda0) and z^0 = J v^0 + e, the slack of
     * that velocity (eq. 13 at a fixed point), so loop 1's De Saxcé shift mu ||z_t^0|| (eq. 21)
     * is the previous step's slip. lambda0 without v0: v^0 = A^-1 (b + J^T lambda0), the
     * velocity of those impulses, and z^0 likewise. Cold (neither): v^0 = 0 (cold_v 0: a body
     * at rest, the start §V-D's warm start gives for a settled state) or A^-1 b (cold_v 1), and
     * z_t^0 = 0 on contacts: loop 1 then has no De Saxcé shift and is exactly the soft convex
     * model of [2, 25] that §V-D says one CANAL loop is. z^0 = J A^-1 b + e would shift every
     * contact by mu ||J_t A^-1 b|| (the free motion's slip), a spurious offset loop 2 must undo
     * (dishes, Table II: 340 instead of ~175 Newton steps per case). */
    int warm = in->v0 || in->lambda0;
    if (in->lambda0) ncp_copy(m, in->lambda0, lam);
    double dmean = 1.0, mom = 0.0;
    /* the Newton system's route (file header); the ablations' systems are non-symmetric (LU):
     * always dense per component */
    if ((rc = lin_choose(p, w.lin, cfg->cascade ? set->newton_factor : 1, err))) goto done;
    st->sparse_newton = w.lin->sp != NULL;
    if (cfg->cascade) {
        double flops = 0.0, dn = n;
        if (w.lin->sp) ncp_spchol_stats(w.lin->sp, NULL, &flops);
        ncp_run_note(run, w.lin->sp ? "Newton matrix sparse: %.2g flops/factorisation (dense %.2g)"
                                    : "Newton matrix dense per component (at most %.2g flops)",
                     w.lin->sp ? flops : dn * dn * dn / 3.0, dn * dn * dn / 3.0);
    }
    rc = problem_scale(p, w.lin, in->lambda0, &dmean, &mom, err);
    if (!rc) {
        if (in->v0) ncp_copy(n, in->v0, w.v);
        else if (in->lambda0 || set->cold_v == 1) rc = initial_velocity(p, w.lin, lam, w.v, err);
        else memset(w.v, 0, (size_t)n * sizeof(double));
    }
    if (rc) {
        if (rc != NCP_ERR_NUMERIC) goto done;
        ncp_error_clear(err); /* A not SPD: a numerical failure of this solve, not bad input */
        rc = NCP_OK;
        st->status = NCP_STATUS_FAILED;
        ncp_copy(m, lam, out->lambda);
        out->iterations = 0;
        out->status = NCP_STATUS_FAILED;
        goto done;
    }
    ncp_csr_gemv(&p->J, 1.0, w.v, 0.0, z);
    ncp_axpy(m, 1.0, p->e, z);
    if (!warm)
        for (int bi = 0; bi < p->nblocks; bi++)
            if (p->blocks[bi].type == NCP_CONTACT)
                z[p->blocks[bi].row + 1] = z[p->blocks[bi].row + 2] = 0.0;
    /* Scale-free defaults (problem_scale); the paper's absolute values by parameter. */
    double beta0 = set->beta0 > 0.0 ? set->beta0 : set->beta0_rel / dmean;
    double beta_max = set->beta_max_ratio * beta0;
    w.theta_n = set->theta_n_abs > 0.0 ? set->theta_n_abs : set->theta_n * mom;
    w.beta = beta0;

    int status = -1, l = 0, per_loop[AL_NOTE_LOOPS] = {0};
    double res_prev = INFINITY;
    if (run && ncp_run_setup_done(run)) goto finish;
    for (l = 1;; l++) {
        w.al_iter = l;
        /* e~^l = e + (mu ||z_t^l||, 0, 0) on contacts (eq. 21, cascade) or e (eq. 19) */
        ncp_copy(m, p->e, w.eshift);
        if (cfg->cascade)
            for (int bi = 0; bi < p->nblocks; bi++) {
                const ncp_block *b = &p->blocks[bi];
                if (b->type == NCP_CONTACT)
                    w.eshift[b->row] += b->mu * hypot(z[b->row + 1], z[b->row + 2]);
            }
        ncp_copy(m, lam, w.lam_prev);
        ncp_copy(n, w.v, vgood);
        ncp_csr_gemv_t(&p->J, 1.0, lam, 0.0, w.jtl);
        int ok = 0, before = st->inner_iterations;
        rc = inner(&w, &ok, err);
        if (!rc && st->inner_iterations - before > st->inner_max_per_loop)
            st->inner_max_per_loop = st->inner_iterations - before;
        if (l <= AL_NOTE_LOOPS) per_loop[l - 1] = st->inner_iterations - before;
        if (rc == NCP_ERR_NUMERIC) { /* singular system: the solve failed numerically */
            ncp_error_clear(err);
            rc = NCP_OK;
            st->inner_failures++;
            status = NCP_STATUS_FAILED;
            ncp_copy(n, vgood, w.v);
            l--;
            break;
        }
        if (rc) goto done;
        if (!ok) st->inner_failures++;
        if (!ncp_all_finite(m, w.T) || !ncp_all_finite(n, w.v)) {
            status = NCP_STATUS_FAILED;
            ncp_copy(n, vgood, w.v); /* report the last finite iterate (lambda is untouched) */
            l--;
            break;
        }
        /* eq. 12 with z from eq. 13: z = J v + e + (u^l + lambda^{l+1})/beta,
         * u^{l+1} = -lambda^{l+1}; ||J v + e - z|| = ||lambda^{l+1} - lambda^l|| / beta */
        double dmax = 0.0, d2 = 0.0;
        ncp_csr_gemv(&p->J, 1.0, w.v, 0.0, z);
        for (int i = 0; i < m; i++) {
            double dl = w.T[i] - lam[i];
            dmax = fmax(dmax, fabs(dl));
            d2 += dl * dl;
            z[i] += p->e[i] + dl / w.beta;
            lam[i] = w.T[i];
        }
        double res = sqrt(d2) / w.beta;
        st->al_iterations = l;
        st->beta = w.beta;
        int stop = run ? ncp_run_iterate(run, l, lam, w.v) : (l >= max_al);
        if (stop) break;
        if (dmax <= set->stall_tol * fmax(1.0, ncp_norminf(m, lam)) ||
            (set->theta_al > 0.0 && res < set->theta_al)) {
            status = NCP_STATUS_STALLED; /* the solver's own stopping test (Alg. 1 line 16) */
            break;
        }
        /* eq. 27, Alg. 1 line 19; not once the loop's change of lambda is within 1e3 x its
         * round-off level (lam_floor, see ncp_al_eval): that change is then noise from rounding
         * and from the inner tolerance, which grows in proportion to beta, so res = change/beta
         * can no longer drop and every raise would trigger the next (box-on-plane: al_residual
         * went from 1e-12 back to 1e-6 as beta climbed to 1e8) */
        if (res > set->zeta * res_prev && sqrt(d2) > 1e3 * w.lam_floor)
            w.beta = fmin(set->kappa * w.beta, beta_max);
        res_prev = res;
    }
finish:
    al_note_inner(run, st, per_loop, l);
    ncp_copy(m, lam, out->lambda);
    if (out->v) ncp_copy(n, w.v, out->v);
    out->has_v = 1;
    out->iterations = l;
    if (status >= 0) out->status = status;
    st->status = status >= 0 ? status : (run ? -1 : NCP_STATUS_MAX_ITER);
    st->beta = w.beta;
done:
    free(lam);
    free(z);
    free(vgood);
    ws_free(&w);
    return rc;
}

int ncp_al_solve(const ncp_al_config *cfg, const ncp_solve_in *in, ncp_solve_out *out,
                 ncp_run *run, ncp_error *err)
{
    ncp_al_settings set;
    int rc = read_settings(cfg, in->params, &set, err);
    if (rc) return rc;
    return al_run(cfg, &set, in, out, run, 0, NULL, NULL, NULL, err);
}

void ncp_al_notify_step(const ncp_al_ws *w, int step, const double *v_before,
                        const double *v_after, double alpha, double r_before)
{
    if (!w->on_step) return;
    ncp_al_step s = {w->p,     w->al_iter, step,  w->beta, w->lam_prev, w->eshift,
                     v_before, v_after,    alpha, r_before};
    w->on_step(w->on_step_ctx, &s);
}

/* ====================== the public observed run (al.h) ====================== */

int ncp_al_solve_observed(const ncp_al_config *cfg, const ncp_problem *p, const ncp_params *ps,
                          const double *lambda0, const double *v0, int al_loops,
                          ncp_al_step_fn on_step, void *ctx, double *lambda, double *v,
                          ncp_al_stats *stats, ncp_error *err)
{
    if (!cfg || !cfg->desc || !cfg->inner)
        return ncp_error_set(err, NCP_ERR_INPUT, "ncp_al_solve_observed: no AL configuration");
    if (al_loops < 1)
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "ncp_al_solve_observed: al_loops = %d must be >= 1", al_loops);
    ncp_al_settings set;
    int rc = read_settings(cfg, ps, &set, err);
    if (rc) return rc;
    ncp_solve_in in;
    ncp_solve_out out;
    ncp_direct_io(p, ps, al_loops, lambda0, v0, lambda, v, &in, &out);
    return al_run(cfg, &set, &in, &out, NULL, al_loops, on_step, ctx, stats, err);
}
