/* The sparse route of the semismooth Newton driver: systems (N) and (L) of nsn_sparse.h. */
#include "solvers/nsn_sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/la.h"
#include "core/sparse_chol.h"

static int block_rows(const ncp_block *b) { return b->type == NCP_CONTACT ? 3 : 1; }

void ncp_nsn_sparse_free(ncp_nsn_sparse *w)
{
    if (!w) return;
    ncp_csr_free(&w->Aown);
    free(w->qh);
    free(w->ni);
    free(w->nj);
    free(w->nx);
    ncp_splu_free(w->N);
    free(w->li);
    free(w->lj);
    free(w->lx);
    ncp_splu_free(w->L);
    free(w->rhs);
    free(w->sol);
    free(w->t);
    free(w->cptr);
    free(w->cdof);
    free(w->seq);
    memset(w, 0, sizeof *w);
}

/* Appends position (i, j) with value v at k (the arrays hold enough room). */
static inline void put(int *ti, int *tj, double *tx, size_t *k, int i, int j, double v)
{
    ti[*k] = i;
    tj[*k] = j;
    tx[*k] = v;
    (*k)++;
}

/* The positions of Q H (with rows offset ro, columns offset co; transposed when tr) in the
 * order of ncp_nsn_sparse_set's values: per block, per row i of the block, per row l of the
 * block, H's entries of row l. */
static void put_qh(const ncp_nsn_sparse *w, int *ti, int *tj, double *tx, size_t *k, int ro,
                   int co, int tr)
{
    const ncp_csr *H = w->H;
    for (int bi = 0; bi < w->p->nblocks; bi++) {
        const ncp_block *b = &w->p->blocks[bi];
        const int r0 = b->row, n = block_rows(b);
        for (int i = 0; i < n; i++)
            for (int l = 0; l < n; l++)
                for (int q = H->rowptr[r0 + l]; q < H->rowptr[r0 + l + 1]; q++) {
                    if (tr)
                        put(ti, tj, tx, k, ro + H->col[q], co + r0 + i, 0.0);
                    else
                        put(ti, tj, tx, k, ro + r0 + i, co + H->col[q], 0.0);
                }
    }
}

/* The positions of P's blocks (offsets ro, co; transposed when tr), block by block, column-major
 * within a block as the block storage. */
static void put_p(const ncp_nsn_sparse *w, int *ti, int *tj, double *tx, size_t *k, int ro,
                  int co, int tr)
{
    for (int bi = 0; bi < w->p->nblocks; bi++) {
        const ncp_block *b = &w->p->blocks[bi];
        const int r0 = b->row, n = block_rows(b);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                put(ti, tj, tx, k, ro + r0 + (tr ? j : i), co + r0 + (tr ? i : j), 0.0);
    }
}

/* Entries of P's blocks. */
static size_t p_entries(const ncp_problem *p)
{
    size_t s = 0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        size_t n = (size_t)block_rows(&p->blocks[bi]);
        s += n * n;
    }
    return s;
}

/* The bodies of constraint block b: the components of the DOFs its rows touch, into out (at
 * most cap, duplicates removed with mark[component] = stamp). Returns their number. */
static int block_bodies(const ncp_nsn_sparse *w, const int *comp, int bi, int *mark, int stamp,
                        int *out)
{
    const ncp_block *b = &w->p->blocks[bi];
    const ncp_csr *H = w->H;
    int n = 0;
    for (int i = b->row; i < b->row + block_rows(b); i++)
        for (int q = H->rowptr[i]; q < H->rowptr[i + 1]; q++) {
            const int k = comp[H->col[q]];
            if (mark[k] != stamp) {
                mark[k] = stamp;
                if (out) out[n] = k;
                n++;
            }
        }
    return n;
}

/* The elimination sequence of nsn_sparse.h ("The order"): w->cptr, cdof, seq. */
static int saddle_sequence(ncp_nsn_sparse *w, ncp_error *err)
{
    const ncp_problem *p = w->p;
    const int nv = w->nv, nb = p->nblocks;
    int *comp = ncp_malloc(err, (size_t)nv, sizeof(int));
    if (!comp) return NCP_ERR_NOMEM;
    const int nc = ncp_csr_components(w->A, comp, err);
    if (nc < 0) {
        free(comp);
        return -nc;
    }
    int maxb = 0; /* the most bodies of a block */
    int *mark = ncp_malloc(err, (size_t)nc + 1, sizeof(int));
    int *deg = ncp_calloc(err, (size_t)nc + 2, sizeof(int));
    int *owner = ncp_malloc(err, (size_t)nb + 1, sizeof(int));
    int *bperm = ncp_malloc(err, (size_t)nc + 1, sizeof(int));
    int *bpos = ncp_malloc(err, (size_t)nc + 1, sizeof(int));
    int *optr = ncp_calloc(err, (size_t)nc + 2, sizeof(int));
    int *olist = ncp_malloc(err, (size_t)nb + 1, sizeof(int));
    w->cptr = ncp_calloc(err, (size_t)nc + 1, sizeof(int));
    w->cdof = ncp_malloc(err, (size_t)nv, sizeof(int));
    w->seq = ncp_malloc(err, (size_t)nc + (size_t)nb, sizeof(int));
    int *aptr = NULL, *aidx = NULL, *bod = NULL;
    int rc = (!mark || !deg || !owner || !bperm || !bpos || !optr || !olist || !w->cptr ||
              !w->cdof || !w->seq) ? NCP_ERR_NOMEM : NCP_OK;
    if (!rc) {
        for (int i = 0; i < nv; i++) w->cptr[comp[i] + 1]++;
        for (int k = 0; k < nc; k++) w->cptr[k + 1] += w->cptr[k];
        for (int k = 0; k < nc; k++) deg[k] = w->cptr[k];
        for (int i = 0; i < nv; i++) w->cdof[deg[comp[i]]++] = i;
        for (int k = 0; k < nc; k++) mark[k] = -1;
        /* the body graph: per block, its bodies pairwise (counted, then listed, deduplicated) */
        memset(deg, 0, ((size_t)nc + 2) * sizeof(int));
        for (int bi = 0; bi < nb; bi++) {
            const int t = block_bodies(w, comp, bi, mark, bi, NULL);
            if (t > maxb) maxb = t;
        }
        bod = ncp_malloc(err, (size_t)maxb + 1, sizeof(int));
        if (!bod) rc = NCP_ERR_NOMEM;
    }
    size_t ne = 0;
    for (int pass = 0; !rc && pass < 2; pass++) {
        for (int k = 0; k < nc; k++) mark[k] = -1;
        for (int bi = 0; bi < nb; bi++) {
            const int t = block_bodies(w, comp, bi, mark, nb * pass + bi, bod);
            for (int x = 0; x < t; x++)
                for (int y = 0; y < t; y++) {
                    if (x == y) continue;
                    if (pass) aidx[aptr[bod[x]] + deg[bod[x]]++] = bod[y];
                    else {
                        deg[bod[x] + 1]++;
                        ne++;
                    }
                }
        }
        if (!pass) {
            aptr = ncp_calloc(err, (size_t)nc + 1, sizeof(int));
            aidx = ncp_malloc(err, ne ? ne : 1, sizeof(int));
            if (!aptr || !aidx || ne > 0x7fffffff) rc = aptr && aidx ? NCP_ERR_INPUT : NCP_ERR_NOMEM;
            if (rc == NCP_ERR_INPUT)
                ncp_error_set(err, rc, "sparse Newton matrix of problem '%s': body graph of more "
                              "than 2^31 edges", p->name ? p->name : "?");
            if (!rc) {
                for (int k = 0; k < nc; k++) aptr[k + 1] = aptr[k] + deg[k + 1];
                memset(deg, 0, ((size_t)nc + 2) * sizeof(int));
            }
        }
    }
    if (!rc) { /* deduplicate in place */
        int o = 0;
        for (int k = 0; k < nc; k++) mark[k] = -1;
        for (int k = 0; k < nc; k++) {
            const int a = aptr[k], e = aptr[k + 1];
            aptr[k] = o;
            for (int q = a; q < e; q++)
                if (mark[aidx[q]] != k) {
                    mark[aidx[q]] = k;
                    aidx[o++] = aidx[q];
                }
        }
        aptr[nc] = o;
        rc = ncp_sym_order(nc, aptr, aidx, bperm, err);
    }
    if (!rc) {
        for (int k = 0; k < nc; k++) {
            bpos[bperm[k]] = k;
            mark[k] = -1;
        }
        /* owner: the block's body first in the order (nc for a block touching none) */
        for (int bi = 0; bi < nb; bi++) {
            const int t = block_bodies(w, comp, bi, mark, 2 * nb + bi, bod);
            int own = nc;
            for (int x = 0; x < t; x++)
                if (own == nc || bpos[bod[x]] < bpos[own]) own = bod[x];
            owner[bi] = own;
            optr[own + 1]++;
        }
        for (int k = 0; k <= nc; k++) optr[k + 1] += optr[k];
        memset(deg, 0, ((size_t)nc + 2) * sizeof(int));
        for (int bi = 0; bi < nb; bi++) olist[optr[owner[bi]] + deg[owner[bi]]++] = bi;
        int n = 0;
        for (int k = 0; k <= nc; k++) {
            const int body = k < nc ? bperm[k] : nc;
            if (k < nc) w->seq[n++] = body;
            for (int q = optr[body]; q < optr[body + 1]; q++) w->seq[n++] = -1 - olist[q];
        }
        w->nseq = n;
    }
    free(comp);
    free(mark);
    free(deg);
    free(owner);
    free(bperm);
    free(bpos);
    free(optr);
    free(olist);
    free(aptr);
    free(aidx);
    free(bod);
    return rc;
}

/* The sequence expanded into an order of unknowns: a body's DOFs at each offset of vo (nrep of
 * them), then a block's rows at each offset of co. */
static void saddle_order(const ncp_nsn_sparse *w, int nrep, const int *vo, const int *co,
                         int *order)
{
    int n = 0;
    for (int s = 0; s < w->nseq; s++) {
        const int x = w->seq[s];
        for (int r = 0; r < nrep; r++) {
            if (x >= 0) {
                for (int q = w->cptr[x]; q < w->cptr[x + 1]; q++) order[n++] = vo[r] + w->cdof[q];
            } else {
                const ncp_block *b = &w->p->blocks[-1 - x];
                for (int i = 0; i < block_rows(b); i++) order[n++] = co[r] + b->row + i;
            }
        }
    }
}

int ncp_nsn_sparse_check(const ncp_problem *p, ncp_error *err)
{
    if (!p->J.rowptr || p->J.m != p->m || p->J.n != p->nv || p->nv <= 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "sparse Newton matrix: problem '%s' has no "
                             "constraint Jacobian J (m x nv)", p->name ? p->name : "?");
    if (!ncp_splu_available())
        return ncp_error_set(err, NCP_ERR_INPUT, "sparse Newton matrix: ncpbench was built "
                             "without UMFPACK (reconfigure with -Dsuitesparse=enabled; apt-get "
                             "install libsuitesparse-dev)");
    return NCP_OK;
}

int ncp_nsn_sparse_init(ncp_nsn_sparse *w, const ncp_problem *p, ncp_dop *op, ncp_error *err)
{
    memset(w, 0, sizeof *w);
    const char *name = p->name ? p->name : "?";
    int rc = ncp_nsn_sparse_check(p, err);
    if (rc) return rc;
    w->p = p;
    w->op = op;
    w->m = p->m;
    w->nv = p->nv;
    w->H = &p->J;
    rc = ncp_problem_mass_csr(p, &w->Aown, &w->A, err);
    if (rc) {
        ncp_nsn_sparse_free(w);
        return rc;
    }
    if (w->A->m != p->nv || w->A->n != p->nv) {
        ncp_nsn_sparse_free(w);
        return ncp_error_set(err, NCP_ERR_INPUT, "sparse Newton matrix: problem '%s': A is %d x "
                             "%d, J has %d columns", name, w->A->m, w->A->n, p->nv);
    }
    const size_t m = (size_t)p->m, nv = (size_t)p->nv;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        const int n = block_rows(b);
        for (int l = 0; l < n; l++)
            w->nqh += (size_t)n * (size_t)(p->J.rowptr[b->row + l + 1] - p->J.rowptr[b->row + l]);
    }
    const size_t nnzA = (size_t)w->A->nnz, nnzH = (size_t)p->J.nnz;
    w->fixn = nnzA + nnzH;
    w->nzn = w->fixn + w->nqh + p_entries(p);
    w->qh = ncp_malloc(err, w->nqh ? w->nqh : 1, sizeof(double));
    w->ni = ncp_malloc(err, w->nzn, sizeof(int));
    w->nj = ncp_malloc(err, w->nzn, sizeof(int));
    w->nx = ncp_malloc(err, w->nzn, sizeof(double));
    w->rhs = ncp_calloc(err, 2 * (nv + m), sizeof(double));
    w->sol = ncp_calloc(err, 2 * (nv + m), sizeof(double));
    w->t = ncp_malloc(err, m, sizeof(double));
    if (!w->qh || !w->ni || !w->nj || !w->nx || !w->rhs || !w->sol || !w->t) {
        ncp_nsn_sparse_free(w);
        return NCP_ERR_NOMEM;
    }
    /* fixed: A, -H^T; then Q H and P */
    size_t k = 0;
    const ncp_csr *A = w->A, *H = w->H;
    for (int i = 0; i < A->m; i++)
        for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            put(w->ni, w->nj, w->nx, &k, i, A->col[q], A->val[q]);
    for (int i = 0; i < H->m; i++)
        for (int q = H->rowptr[i]; q < H->rowptr[i + 1]; q++)
            put(w->ni, w->nj, w->nx, &k, H->col[q], (int)nv + i, -H->val[q]);
    put_qh(w, w->ni, w->nj, w->nx, &k, (int)nv, 0, 0);
    put_p(w, w->ni, w->nj, w->nx, &k, (int)nv, (int)nv, 0);
    int *order = NULL;
    if (!(rc = saddle_sequence(w, err)) &&
        !(order = ncp_malloc(err, nv + m, sizeof(int))))
        rc = NCP_ERR_NOMEM;
    if (!rc) {
        const int vo = 0, co = (int)nv;
        saddle_order(w, 1, &vo, &co, order);
        rc = ncp_splu_analyse((int)(nv + m), w->nzn, w->ni, w->nj, 1, order, &w->N, err);
    }
    free(order);
    if (rc) {
        ncp_nsn_sparse_free(w);
        return ncp_error_prefix(err, "sparse Newton matrix of problem '%s': ", name);
    }
    return NCP_OK;
}

int ncp_nsn_sparse_init_lm(ncp_nsn_sparse *w, ncp_error *err)
{
    if (w->L) return NCP_OK;
    const ncp_problem *p = w->p;
    const int nv = w->nv, m = w->m;
    const ncp_csr *A = w->A, *H = w->H;
    const size_t np = p_entries(p);
    w->fixl = 2 * (size_t)A->nnz + 2 * (size_t)H->nnz + (size_t)m;
    w->nzl = w->fixl + 2 * w->nqh + 2 * np + (size_t)m;
    w->li = ncp_malloc(err, w->nzl, sizeof(int));
    w->lj = ncp_malloc(err, w->nzl, sizeof(int));
    w->lx = ncp_malloc(err, w->nzl, sizeof(double));
    if (!w->li || !w->lj || !w->lx) return NCP_ERR_NOMEM;
    /* unknowns and equations (y, z, d, r) at offsets 0, nv, 2 nv, 2 nv + m */
    const int oz = nv, od = 2 * nv, orr = 2 * nv + m;
    size_t k = 0;
    for (int i = 0; i < A->m; i++)
        for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            put(w->li, w->lj, w->lx, &k, i, A->col[q], A->val[q]);            /* A y */
            put(w->li, w->lj, w->lx, &k, oz + i, oz + A->col[q], A->val[q]);  /* A z */
        }
    for (int i = 0; i < H->m; i++)
        for (int q = H->rowptr[i]; q < H->rowptr[i + 1]; q++) {
            put(w->li, w->lj, w->lx, &k, H->col[q], od + i, -H->val[q]);      /* -H^T d */
            put(w->li, w->lj, w->lx, &k, orr + i, oz + H->col[q], H->val[q]); /* H z */
        }
    for (int i = 0; i < m; i++) put(w->li, w->lj, w->lx, &k, od + i, orr + i, 1.0); /* + r */
    put_qh(w, w->li, w->lj, w->lx, &k, od, 0, 0);   /* Q H y */
    put_qh(w, w->li, w->lj, w->lx, &k, oz, orr, 1); /* -(Q H)^T r */
    put_p(w, w->li, w->lj, w->lx, &k, od, od, 0);   /* P d */
    put_p(w, w->li, w->lj, w->lx, &k, orr, orr, 1); /* P^T r */
    for (int i = 0; i < m; i++) put(w->li, w->lj, w->lx, &k, orr + i, od + i, 0.0); /* -delta d */
    int *order = ncp_malloc(err, 2 * ((size_t)nv + (size_t)m), sizeof(int));
    if (!order) return NCP_ERR_NOMEM;
    const int vo[2] = {0, oz}, co[2] = {od, orr};
    saddle_order(w, 2, vo, co, order);
    int rc = ncp_splu_analyse(2 * (nv + m), w->nzl, w->li, w->lj, 1, order, &w->L, err);
    free(order);
    if (rc)
        return ncp_error_prefix(err, "Levenberg-Marquardt matrix of problem '%s': ",
                                p->name ? p->name : "?");
    return NCP_OK;
}

double ncp_nsn_sparse_flops(const ncp_nsn_sparse *w)
{
    double flops, lu;
    ncp_splu_stats(w->N, &flops, &lu);
    /* a solve: 2 flops per entry of L and U; with two refinement steps (each a solve and a
     * product with the nzn entries) */
    return flops + 3.0 * 2.0 * lu + 2.0 * 2.0 * (double)w->nzn;
}

int ncp_nsn_sparse_flops_bound(const ncp_problem *p, double *bound, ncp_error *err)
{
    *bound = INFINITY;
    int rc = ncp_nsn_sparse_check(p, err);
    if (rc) return rc;
    const ncp_csr *H = &p->J;
    int *mark = ncp_malloc(err, (size_t)p->nv, sizeof(int));
    if (!mark) return NCP_ERR_NOMEM;
    for (int i = 0; i < p->nv; i++) mark[i] = -1;
    /* (N)'s entries as init counts them (A's at least its diagonal), and a lower bound on its
     * distinct ones: A's diagonal, then per block with c distinct columns over its n rows, c of
     * -H^T (at least), n c of Q H and n^2 of P */
    double nzn = (double)p->nv + (double)H->nnz, distinct = (double)p->nv;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        const int n = block_rows(b);
        int cols = 0;
        for (int l = 0; l < n; l++) {
            nzn += (double)n * (double)(H->rowptr[b->row + l + 1] - H->rowptr[b->row + l]);
            for (int q = H->rowptr[b->row + l]; q < H->rowptr[b->row + l + 1]; q++)
                if (mark[H->col[q]] != bi) {
                    mark[H->col[q]] = bi;
                    cols++;
                }
        }
        nzn += (double)n * n;
        distinct += (double)cols + (double)n * cols + (double)n * n;
    }
    free(mark);
    /* ncp_nsn_sparse_flops with the factorisation's flops >= 0 and L + U holding at least the
     * matrix's distinct entries (CHOLMOD's 2 lnz - n is the symmetrised pattern's count or
     * more, UMFPACK's estimates count both diagonals) */
    *bound = 3.0 * 2.0 * distinct + 2.0 * 2.0 * nzn;
    return NCP_OK;
}

void ncp_nsn_sparse_set(ncp_nsn_sparse *w, const double *P, const double *Q)
{
    const ncp_csr *H = w->H;
    w->P = P;
    w->Q = Q;
    size_t k = 0;
    for (int bi = 0; bi < w->p->nblocks; bi++) {
        const ncp_block *b = &w->p->blocks[bi];
        const int r0 = b->row, n = block_rows(b);
        const double *Qb = Q + 3 * (size_t)r0;
        for (int i = 0; i < n; i++)
            for (int l = 0; l < n; l++) {
                const double qil = Qb[i + n * l];
                for (int q = H->rowptr[r0 + l]; q < H->rowptr[r0 + l + 1]; q++)
                    w->qh[k++] = qil * H->val[q];
            }
    }
}

/* P's block entries in put_p's order (transposed order when tr) into x. */
static void p_values(const ncp_nsn_sparse *w, double *x)
{
    size_t k = 0;
    for (int bi = 0; bi < w->p->nblocks; bi++) {
        const ncp_block *b = &w->p->blocks[bi];
        const int r0 = b->row, n = block_rows(b);
        const double *Pb = w->P + 3 * (size_t)r0;
        for (int q = 0; q < n * n; q++) x[k++] = Pb[q];
    }
}

void ncp_nsn_sparse_apply(ncp_nsn_sparse *w, const double *x, double *y)
{
    ncp_dop_apply(w->op, 1.0, x, 0.0, w->t); /* D x */
    for (int bi = 0; bi < w->p->nblocks; bi++) {
        const ncp_block *b = &w->p->blocks[bi];
        const int r0 = b->row, n = block_rows(b);
        const double *Pb = w->P + 3 * (size_t)r0, *Qb = w->Q + 3 * (size_t)r0;
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int j = 0; j < n; j++) s += Pb[i + n * j] * x[r0 + j] + Qb[i + n * j] * w->t[r0 + j];
            y[r0 + i] = s;
        }
    }
}

int ncp_nsn_sparse_newton(ncp_nsn_sparse *w, const double *b, double *d)
{
    const int nv = w->nv, m = w->m;
    ncp_error e;
    ncp_error_clear(&e);
    memcpy(w->nx + w->fixn, w->qh, w->nqh * sizeof(double));
    p_values(w, w->nx + w->fixn + w->nqh);
    if (ncp_splu_factor(w->N, w->nx, &e) != NCP_OK) return 0; /* singular (or failed) */
    ncp_zero(nv, w->rhs);
    ncp_copy(m, b, w->rhs + nv);
    if (ncp_splu_solve(w->N, w->rhs, w->sol, &e) != NCP_OK) return 0;
    ncp_copy(m, w->sol + nv, d);
    return 1;
}

int ncp_nsn_sparse_lm(ncp_nsn_sparse *w, double delta, const double *b, double *d)
{
    const int nv = w->nv, m = w->m;
    ncp_error e;
    ncp_error_clear(&e);
    if (ncp_nsn_sparse_init_lm(w, &e) != NCP_OK) return 0;
    double *x = w->lx + w->fixl;
    memcpy(x, w->qh, w->nqh * sizeof(double));               /* Q H y */
    for (size_t q = 0; q < w->nqh; q++) x[w->nqh + q] = -w->qh[q]; /* -(Q H)^T r */
    x += 2 * w->nqh;
    size_t np = p_entries(w->p);
    p_values(w, x);      /* P d */
    p_values(w, x + np); /* P^T r: put_p placed the transposes */
    x += 2 * np;
    for (int i = 0; i < m; i++) x[i] = -delta;
    if (ncp_splu_factor(w->L, w->lx, &e) != NCP_OK) return 0;
    ncp_zero(2 * (nv + m), w->rhs);
    ncp_copy(m, b, w->rhs + 2 * nv);
    if (ncp_splu_solve(w->L, w->rhs, w->sol, &e) != NCP_OK) return 0;
    ncp_copy(m, w->sol + 2 * nv, d);
    return 1;
}
