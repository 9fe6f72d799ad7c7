/* The ADMM core of subadmm, admm-nobody and admm-nosub (see subadmm_core.h; the algorithm and
 * its open choices are documented in solvers/subadmm.c).
 *
 * Layout. Every splitting works on "pieces": piece p of constraint block i has its own slack z_p
 * (k rows, eq. 32) and Jacobian J_p acting on the velocities of one linear system (a subsystem,
 * or the whole system for admm-nosub). The pieces of a block are contiguous (blk_pptr), so the
 * per-constraint update of eqs. 35-39 reads and writes only its own pieces and its own lambda
 * rows; the per-subsystem work (v-update, eq. 34; dual residual, eq. 42; factorisation, eqs.
 * 40-41) reads pieces and writes only its own velocities. Neither writes what another item of the
 * same phase reads, and every sum runs in a fixed order inside one item, so the OpenMP loops give
 * bitwise the same numbers for any number of threads (no reduction whose order depends on the
 * schedule: the maxima of eq. 42 are taken serially over per-item values afterwards).
 */
#include "solvers/subadmm_core.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "solvers/common.h"
#include "core/la.h"
#include "core/sparse_chol.h"
#include "solvers/al_operator.h"
#include "util/clock.h"

/* ====================== workspace ====================== */

typedef struct sa_piece {
    int block, sub, body, k; /* body: structure body (BODY split), else -1 */
    const double *J;         /* BODY: the link's J_{i,b} (k x 6, column-major);
                                NOBODY: J_p = sum_{b in j} J_{i,b} J_{b,j} (k x n_j, owned);
                                NOSUB: NULL (the CSR rows of J) */
    double z[3];             /* slack z_p (eq. 32) */
    double w[3];             /* J_p v at the current iteration */
    double dz[3];            /* z_p^l - z_p^{l+1} of the current iteration (eq. 42's theta_d) */
} sa_piece;

typedef struct sa_body {
    int sub, ns;
    int *supp;       /* local dofs of the non-zero columns of J_{b,j}, ascending (root path) */
    double *Jb;      /* 6 x ns, column-major: those columns */
    const double *M; /* spatial inertia (6 x 6) */
    double C[36];    /* sum over its pieces of J_{i,b}^T J_{i,b}: H_b = M_b + beta C (eq. 41) */
    double t[6];     /* twist J_{b,j} v_j at the current iteration */
} sa_body;

typedef struct sa_sub {
    int d0, n;
    struct sa_tree *tree; /* BODY with a tree: the factor along it; NULL = dense Cholesky */
    double *K;     /* n x n: the matrix of eq. 34, then its factor */
    double *G;     /* NOBODY / NOSUB: sum_p J_p^T J_p (n x n, full) */
    double *A;     /* NOBODY: A_j (n x n); NOSUB: points at p->A */
    ncp_spchol *sp;     /* NOSUB, sparse: the fixed-pattern factor of A + beta J^T J; then K
                           and G are unused and the values live in kA, kG */
    int *kptr, *kidx;   /* NOSUB, sparse: pattern of A + beta J^T J (CSR, both triangles) */
    double *kA, *kG;    /* NOSUB, sparse: A's and J^T J's values on that pattern */
    double *r;     /* n: right-hand side / residual scratch */
    double *W;     /* BODY: 6 x (max support) scratch for H_b J_{b,j} */
    double res;    /* ||A_j v_j - b_j - sum J^T lambda|| (eq. 42) */
    double rhs;    /* ||right-hand side of eq. 34||_inf: the momentum scale of res */
    int fail;
} sa_sub;

typedef struct sa_ws {
    const ncp_problem *p;
    const ncp_structure *s;
    ncp_subadmm_split split;
    int n, m, nb, nsub, nbody, npiece, nt;
    sa_sub *subs;
    sa_body *bodies;
    sa_piece *pieces;     /* sorted by block */
    int *blk_pptr;        /* pieces of block i: [blk_pptr[i], blk_pptr[i + 1]) */
    int *sub_bptr, *sub_blist;   /* bodies of subsystem j (BODY) */
    int *sub_cptr, *sub_clist;   /* its bodies that carry pieces (BODY: the only ones whose
                                    twists and wrenches the iteration needs) */
    int *body_pptr, *body_plist; /* pieces on body b (BODY) */
    int *sub_pptr, *sub_plist;   /* pieces of subsystem j (NOBODY) */
    int *ipool;
    double *dpool;
    double *jpool;        /* NOBODY: the pieces' J_p */
    double *bres;         /* per block: max_p ||J_p v - z_p|| */
    double *bscl;         /* per block: max_p ||J_p v||_inf + ||lambda_i||_inf / beta, the scale of
                             the terms whose difference bres is */
    unsigned char *bchg;  /* per block: lambda or a z changed */
    double *lam, *v, *g;  /* g: NOSUB, beta z + lambda per row */
    double beta;
    int nosub_factor;     /* NOSUB: 0 auto, 1 dense, 2 sparse (the settings' value) */
    double factor_beta;   /* the beta of factor_all's items */
    double worker_ms;     /* CPU time of the workers but the caller's thread since the last
                             charge to the solver clock (par_for, charge_workers) */
    double mscale;        /* eq. 43's mass scale m* (kg), mass_scale() */
} sa_ws;

static void tree_free(struct sa_tree *T);

static void ws_free(sa_ws *w)
{
    if (w->subs)
        for (int j = 0; j < w->nsub; j++) {
            tree_free(w->subs[j].tree);
            ncp_spchol_free(w->subs[j].sp);
            free(w->subs[j].kptr);
            free(w->subs[j].kidx);
            free(w->subs[j].kA);
            free(w->subs[j].kG);
            free(w->subs[j].K);
            free(w->subs[j].G);
            if (w->split == NCP_SUBADMM_NOBODY) free(w->subs[j].A);
            free(w->subs[j].r);
            free(w->subs[j].W);
        }
    free(w->subs);
    free(w->bodies);
    free(w->pieces);
    free(w->blk_pptr);
    free(w->sub_bptr);
    free(w->sub_blist);
    free(w->sub_cptr);
    free(w->sub_clist);
    free(w->body_pptr);
    free(w->body_plist);
    free(w->sub_pptr);
    free(w->sub_plist);
    free(w->ipool);
    free(w->dpool);
    free(w->jpool);
    free(w->bres);
    free(w->bscl);
    free(w->bchg);
    free(w->lam);
    free(w->v);
    free(w->g);
    memset(w, 0, sizeof *w);
}

static const char *pname(const ncp_problem *p) { return p->name ? p->name : "?"; }

/* A as the problem keeps it: dense (has_primal) or block-sparse (A_sparse, the simulator's block
 * route and FCLib's M; core/problem.h). The body and subsystem splits read A only here (checks,
 * A_j of the subsystem split, the scale rules' fallbacks), so their iterates do not depend on
 * the representation (tests/test_subadmm.c compares both on captures). */
static int a_dense(const ncp_problem *p) { return p->has_primal && p->A; }

/* A_kk */
static double a_diag(const ncp_problem *p, int k)
{
    return a_dense(p) ? p->A[k + (size_t)k * p->nv] : ncp_csr_diag(&p->A_sparse, k);
}

/* The diagonal block A[d0 .. d0 + n, d0 .. d0 + n] into out (n x n, column-major). */
static void a_block(const ncp_problem *p, int d0, int n, double *out)
{
    size_t nn = (size_t)n;
    if (a_dense(p)) {
        for (size_t c = 0; c < nn; c++)
            for (size_t r = 0; r < nn; r++)
                out[r + c * nn] = p->A[(d0 + r) + (d0 + c) * (size_t)p->nv];
        return;
    }
    const ncp_csr *A = &p->A_sparse;
    memset(out, 0, nn * nn * sizeof(double));
    for (int r = 0; r < n; r++)
        for (int e = A->rowptr[d0 + r]; e < A->rowptr[d0 + r + 1]; e++) {
            int c = A->col[e] - d0;
            if (c >= 0 && c < n) out[r + (size_t)c * nn] += A->val[e];
        }
}

/* ====================== small dense kernels (6-row blocks) ====================== */

/* max for non-negative finite values (fmax is a libm call with NaN rules at -O2) */
static inline double dmax(double a, double b) { return a > b ? a : b; }

/* t = Jb x[supp] (6) */
static void body_twist(const sa_body *B, const double *x, double *t)
{
    for (int r = 0; r < 6; r++) t[r] = 0.0;
    for (int c = 0; c < B->ns; c++) {
        double xc = x[B->supp[c]];
        const double *col = B->Jb + 6 * c;
        for (int r = 0; r < 6; r++) t[r] += col[r] * xc;
    }
}

/* y[supp] += Jb^T f */
static void body_scatter(const sa_body *B, const double *f, double *y)
{
    for (int c = 0; c < B->ns; c++) {
        const double *col = B->Jb + 6 * c;
        double s = 0.0;
        for (int r = 0; r < 6; r++) s += col[r] * f[r];
        y[B->supp[c]] += s;
    }
}

/* ====================== the tree (branch-induced) Cholesky ====================== */
/* K = L^T L with L lower triangular whose row k is non-zero only at k and k's ancestors:
 * Featherstone, "Rigid Body Dynamics Algorithms" (2008), §6.5 (Table 6.3, the LTL factorisation)
 * — the "branch-induced sparse" factorisation of Lee et al. 2025 §VI-C. No fill-in outside the
 * ancestor pattern; cost sum_k depth(k)^2 instead of n^3 / 3. la.h offers only dense LAPACK,
 * hence this.
 * Storage (sa_tree): row k of K, then of L, contiguous along k's ancestor chain:
 *   val[ptr[k] + t] = entry (k, anc_t(k)), anc_0(k) = k, anc_{t+1}(k) = parent(anc_t(k)),
 *   idx[ptr[k] + t] = anc_t(k),  t = 0 .. depth(k)  (depth(root) = 0),
 * so (k, j) for an ancestor j sits at offset depth(k) - depth(j): for an ancestor i of k at
 * offset t, row i's entries (i, anc_u(k)), u >= t, are row i's entries t2 - t. Every loop below
 * runs over contiguous memory. */
typedef struct sa_tree {
    int *ptr;    /* n + 1 */
    int *idx;    /* ptr[n] */
    int *depth;  /* n */
    double *val; /* ptr[n] */
} sa_tree;

/* Returns -1 if K is not positive definite. */
static int tree_factor(int n, sa_tree *T)
{
    for (int k = n - 1; k >= 0; k--) {
        double *Lk = T->val + T->ptr[k];
        int dk = T->depth[k];
        double d = Lk[0];
        if (!(d > 0.0) || !isfinite(d)) return -1;
        d = sqrt(d);
        Lk[0] = d;
        for (int t = 1; t <= dk; t++) Lk[t] /= d;
        const int *ak = T->idx + T->ptr[k];
        for (int t = 1; t <= dk; t++) { /* K(i, j) -= L(k, i) L(k, j), j ancestor of i or i */
            double a = Lk[t];
            double *Ki = T->val + T->ptr[ak[t]] - t;
            for (int u = t; u <= dk; u++) Ki[u] -= a * Lk[u];
        }
    }
    return 0;
}

/* Solves L^T L x = r in place. */
static void tree_solve(int n, const sa_tree *T, double *x)
{
    for (int k = n - 1; k >= 0; k--) { /* L^T y = r, leaves first */
        const double *Lk = T->val + T->ptr[k];
        const int *ak = T->idx + T->ptr[k];
        double xk = x[k] / Lk[0];
        x[k] = xk;
        for (int t = 1; t <= T->depth[k]; t++) x[ak[t]] -= Lk[t] * xk;
    }
    for (int k = 0; k < n; k++) { /* L x = y, root first */
        const double *Lk = T->val + T->ptr[k];
        const int *ak = T->idx + T->ptr[k];
        double s = x[k];
        for (int t = 1; t <= T->depth[k]; t++) s -= Lk[t] * x[ak[t]];
        x[k] = s / Lk[0];
    }
}

static void tree_free(sa_tree *T)
{
    if (!T) return;
    free(T->ptr);
    free(T->idx);
    free(T->depth);
    free(T->val);
    free(T);
}

/* The dof tree of subsystem j from its bodies' supports (the root paths): parent(k) = the
 * previous dof of k's path in any body that moves with k (the largest such, so that a column that
 * happens to be exactly zero in one body cannot hide an ancestor), then every support is checked
 * to be a chain of that tree (each dof an ancestor of the next). If not (a structure that is not a
 * tree, or not numbered parents first), the subsystem is factorised densely (S->tree left NULL). */
static int build_tree(sa_ws *w, int j, const int *blist, int nbl, ncp_error *err)
{
    sa_sub *S = &w->subs[j];
    int n = S->n, rc = NCP_OK;
    int *par = ncp_malloc(err, (size_t)(n > 0 ? n : 1), sizeof(int));
    if (!par) return NCP_ERR_NOMEM;
    for (int k = 0; k < n; k++) par[k] = -1;
    for (int q = 0; q < nbl; q++) {
        const sa_body *B = &w->bodies[blist[q]];
        for (int t = 1; t < B->ns; t++)
            if (B->supp[t - 1] > par[B->supp[t]]) par[B->supp[t]] = B->supp[t - 1];
    }
    int ok = 1;
    for (int q = 0; q < nbl && ok; q++) {
        const sa_body *B = &w->bodies[blist[q]];
        for (int t = 1; t < B->ns && ok; t++) {
            int a = par[B->supp[t]];
            while (a > B->supp[t - 1]) a = par[a];
            ok = a == B->supp[t - 1];
        }
    }
    if (ok) {
        sa_tree *T = ncp_calloc(err, 1, sizeof *T);
        if (T) {
            T->ptr = ncp_calloc(err, (size_t)n + 1, sizeof(int));
            T->depth = ncp_calloc(err, (size_t)(n > 0 ? n : 1), sizeof(int));
        }
        if (!T || !T->ptr || !T->depth) {
            rc = NCP_ERR_NOMEM;
        } else {
            for (int k = 0; k < n; k++) { /* parents first: depth(parent) is known */
                T->depth[k] = par[k] < 0 ? 0 : T->depth[par[k]] + 1;
                T->ptr[k + 1] = T->ptr[k] + T->depth[k] + 1;
            }
            T->idx = ncp_malloc(err, (size_t)T->ptr[n] + 1, sizeof(int));
            T->val = ncp_malloc(err, (size_t)T->ptr[n] + 1, sizeof(double));
            if (!T->idx || !T->val) rc = NCP_ERR_NOMEM;
            for (int k = 0; k < n && !rc; k++) {
                int t = 0;
                for (int a = k; a >= 0; a = par[a]) T->idx[T->ptr[k] + t++] = a;
            }
        }
        if (rc) tree_free(T);
        else S->tree = T;
    }
    free(par);
    return rc;
}

/* ====================== assembly and factorisation (eqs. 28, 34, 40-41) ====================== */

/* BODY: K_j = sum_b J_{b,j}^T H_b J_{b,j} + diag(dof_diag_j), H_b = M_b + beta C_b (eqs. 40-41),
 * body by body over each body's root path. The composite-rigid-body recursion of Appendix A forms
 * the same sums in another order (composite inertias passed to the parents); the structure stores
 * each body's Jacobian, not the joints' spatial transforms, so we sum per body. The matrix, its
 * sparsity and the factorisation are the same. Into the tree storage when the subsystem has one
 * and tree != 0, else into the dense lower triangle of K (n x n). */
static void assemble_body(sa_ws *w, int j, double beta, int tree, double *K)
{
    sa_sub *S = &w->subs[j];
    sa_tree *T = tree ? S->tree : NULL;
    int n = S->n;
    if (T) memset(T->val, 0, (size_t)T->ptr[n] * sizeof(double));
    else memset(K, 0, (size_t)n * n * sizeof(double));
    if (w->s->dof_diag)
        for (int k = 0; k < n; k++) {
            double d = w->s->dof_diag[S->d0 + k];
            if (T) T->val[T->ptr[k]] = d;
            else K[k + (size_t)k * n] = d;
        }
    for (int q = w->sub_bptr[j]; q < w->sub_bptr[j + 1]; q++) {
        const sa_body *B = &w->bodies[w->sub_blist[q]];
        double H[36];
        for (int e = 0; e < 36; e++) H[e] = B->M[e] + beta * B->C[e];
        for (int t = 0; t < B->ns; t++) /* W = H Jb */
            for (int r = 0; r < 6; r++) {
                double s = 0.0;
                for (int c = 0; c < 6; c++) s += H[r + 6 * c] * B->Jb[6 * t + c];
                S->W[6 * t + r] = s;
            }
        for (int t = 0; t < B->ns; t++) /* K[supp, supp] += Jb^T W, lower part */
            for (int u = t; u < B->ns; u++) {
                double s = 0.0;
                for (int r = 0; r < 6; r++) s += B->Jb[6 * u + r] * S->W[6 * t + r];
                int row = B->supp[u], col = B->supp[t];
                if (T) T->val[T->ptr[row] + T->depth[row] - T->depth[col]] += s;
                else K[row + (size_t)col * n] += s;
            }
    }
}

/* Factorises the matrix of subsystem j at beta: 0 or -1 (not positive definite). */
static int factor_sub(sa_ws *w, int j, double beta)
{
    sa_sub *S = &w->subs[j];
    int n = S->n;
    if (n == 0) return 0;
    if (w->split == NCP_SUBADMM_BODY) {
        assemble_body(w, j, beta, 1, S->K);
        if (S->tree) return tree_factor(n, S->tree);
    } else if (S->sp) { /* NOSUB sparse: numeric refactorisation on the fixed pattern */
        return ncp_spchol_factor(S->sp, S->kA, S->kG, beta, NULL) ? -1 : 0;
    } else { /* K = A_j + beta G_j (eq. 28 / 34), dense */
        size_t nn = (size_t)n * n;
        for (size_t e = 0; e < nn; e++) S->K[e] = S->A[e] + beta * S->G[e];
    }
    return ncp_chol_factor(n, S->K, NULL) ? -1 : 0;
}

static void solve_sub(sa_ws *w, int j, double *x)
{
    sa_sub *S = &w->subs[j];
    if (S->n == 0) return;
    if (S->tree) tree_solve(S->n, S->tree, x);
    else if (S->sp) ncp_spchol_solve(S->sp, x);
    else ncp_chol_solve(S->n, S->K, 1, x, NULL); /* cannot fail: n, nrhs, ld are valid */
}

/* f(w, 0..n-1) over w->nt threads (static schedule: results do not depend on nt). The threads
 * but the caller's read their own CPU clock at the start and end of the region (the barrier at
 * the loop's end included, the pool's idle spinning between regions not) and add it up in
 * w->worker_ms, which charge_workers hands to the solver clock (docs/design.md §5.3). */
static void par_for(sa_ws *w, int n, void (*f)(sa_ws *w, int i))
{
#pragma omp parallel num_threads(w->nt) if (w->nt > 1)
    {
        const int worker = omp_get_thread_num() != 0;
        const double t0 = worker ? ncp_thread_cpu_ms() : 0.0;
#pragma omp for schedule(static)
        for (int i = 0; i < n; i++) f(w, i);
        if (worker) {
            const double dt = ncp_thread_cpu_ms() - t0;
#pragma omp atomic
            w->worker_ms += dt;
        }
    }
}

static void charge_workers(sa_ws *w, ncp_run *run)
{
    if (run && w->worker_ms > 0.0) ncp_run_add_cpu_ms(run, w->worker_ms);
    w->worker_ms = 0.0;
}

static void factor_item(sa_ws *w, int j) { w->subs[j].fail = factor_sub(w, j, w->factor_beta); }

/* All subsystems at beta, in parallel; 0 or -1 if any is not positive definite. */
static int factor_all(sa_ws *w, double beta)
{
    w->factor_beta = beta;
    par_for(w, w->nsub, factor_item);
    for (int j = 0; j < w->nsub; j++)
        if (w->subs[j].fail) return -1;
    return 0;
}

/* ====================== the per-subsystem and per-constraint steps ====================== */

/* r = b_j + sum_{p in j} J_p^T (c z_p + lambda_i(p)) (eq. 34's right-hand side with c = beta;
 * c = 0 with z = 0 gives b_j + J_j^T lambda for the warm start). */
static void sub_rhs(sa_ws *w, int j, double c, double *r)
{
    const ncp_problem *p = w->p;
    sa_sub *S = &w->subs[j];
    ncp_copy(S->n, p->b + S->d0, r);
    if (w->split == NCP_SUBADMM_BODY) {
        for (int q = w->sub_cptr[j]; q < w->sub_cptr[j + 1]; q++) {
            int b = w->sub_clist[q];
            double f[6] = {0, 0, 0, 0, 0, 0};
            for (int e = w->body_pptr[b]; e < w->body_pptr[b + 1]; e++) {
                const sa_piece *P = &w->pieces[w->body_plist[e]];
                const double *lam = w->lam + p->blocks[P->block].row;
                for (int a = 0; a < 6; a++) {
                    double s = 0.0;
                    for (int rr = 0; rr < P->k; rr++)
                        s += P->J[a * P->k + rr] * (c * P->z[rr] + lam[rr]);
                    f[a] += s;
                }
            }
            body_scatter(&w->bodies[b], f, r);
        }
    } else if (w->split == NCP_SUBADMM_NOBODY) {
        for (int e = w->sub_pptr[j]; e < w->sub_pptr[j + 1]; e++) {
            const sa_piece *P = &w->pieces[w->sub_plist[e]];
            const double *lam = w->lam + p->blocks[P->block].row;
            double g[3];
            for (int rr = 0; rr < P->k; rr++) g[rr] = c * P->z[rr] + lam[rr];
            for (int col = 0; col < S->n; col++) {
                double s = 0.0;
                for (int rr = 0; rr < P->k; rr++) s += P->J[col * P->k + rr] * g[rr];
                r[col] += s;
            }
        }
    } else {
        for (int i = 0; i < w->npiece; i++) { /* one piece per block, in block order */
            const sa_piece *P = &w->pieces[i];
            int row = p->blocks[P->block].row;
            for (int rr = 0; rr < P->k; rr++) w->g[row + rr] = c * P->z[rr] + w->lam[row + rr];
        }
        ncp_csr_gemv_t(&p->J, 1.0, w->g, 1.0, r);
    }
}

/* Twists of the bodies of subsystem j that carry pieces, from its velocities (BODY). */
static void sub_twists(sa_ws *w, int j)
{
    if (w->split != NCP_SUBADMM_BODY) return;
    const double *vj = w->v + w->subs[j].d0;
    for (int q = w->sub_cptr[j]; q < w->sub_cptr[j + 1]; q++) {
        sa_body *B = &w->bodies[w->sub_clist[q]];
        body_twist(B, vj, B->t);
    }
}

/* out = J_p v (twists current for BODY). */
static void piece_apply(const sa_ws *w, const sa_piece *P, double *out)
{
    if (w->split == NCP_SUBADMM_BODY) {
        const double *t = w->bodies[P->body].t;
        for (int rr = 0; rr < P->k; rr++) {
            double s = 0.0;
            for (int a = 0; a < 6; a++) s += P->J[a * P->k + rr] * t[a];
            out[rr] = s;
        }
    } else if (w->split == NCP_SUBADMM_NOBODY) {
        const sa_sub *S = &w->subs[P->sub];
        const double *vj = w->v + S->d0;
        for (int rr = 0; rr < P->k; rr++) out[rr] = 0.0;
        for (int col = 0; col < S->n; col++)
            for (int rr = 0; rr < P->k; rr++) out[rr] += P->J[col * P->k + rr] * vj[col];
    } else {
        int row = w->p->blocks[P->block].row;
        for (int rr = 0; rr < P->k; rr++) out[rr] = ncp_csr_row_dot(&w->p->J, row + rr, w->v);
    }
}

/* Phase 1 of an iteration for subsystem j: v_j from eq. 34, then its bodies' twists. */
static void v_update(sa_ws *w, int j)
{
    double *vj = w->v + w->subs[j].d0;
    sub_rhs(w, j, w->beta, vj);
    w->subs[j].rhs = ncp_norminf(w->subs[j].n, vj);
    solve_sub(w, j, vj);
    sub_twists(w, j);
}

/* Phase 2 for constraint block i: eqs. 35-39. With y_p = beta J_p v_j + u_p and u_p = -lambda_i
 * (eq. 39), summing eq. 35 over the |Z_i| pieces gives beta sum_p z_p = sum_p y_p + |Z_i|
 * lambda_i: the constraint on sum_p z_p is eq. 13 with beta' = beta / |Z_i| and argument
 *   x = -(sum_p y_p + beta e_i) / |Z_i|,   lambda_i = T(x)    (eqs. 36-38),
 * T the strict operator of the block's type (al_operator.h: eq. 14 unilateral, identity for
 * bilateral rows, eq. 15 soft with beta', eq. 17 contact), then z_p = (y_p + lambda_i) / beta,
 * computed as J_p v + (lambda_i - lambda_i^l) / beta. e_i is the block's bias (problem.h: the
 * constraint velocity is J v + e; captured tangential e is kept, as in the AL solvers). A block no
 * body carries (|Z_i| = 0: its rows of J are zero) gets T(-beta e_i), its law at u = e_i. */
static void block_update(sa_ws *w, int i)
{
    const ncp_problem *p = w->p;
    const ncp_block *B = &p->blocks[i];
    int k = ncp_block_type_size(B->type), a = w->blk_pptr[i], e = w->blk_pptr[i + 1];
    int nz = e - a;
    double beta = w->beta, *lam = w->lam + B->row;
    double S[3] = {0.0, 0.0, 0.0}, x[3] = {0.0, 0.0, 0.0}, ln[3] = {0.0, 0.0, 0.0};
    for (int q = a; q < e; q++) {
        sa_piece *P = &w->pieces[q];
        piece_apply(w, P, P->w);
        for (int r = 0; r < k; r++) S[r] += beta * P->w[r] - lam[r];
    }
    double den = nz > 0 ? (double)nz : 1.0;
    for (int r = 0; r < k; r++) x[r] = -(S[r] + beta * p->e[B->row + r]) / den;
    ncp_al_block_T(B, 0, beta / den, x, ln, NULL, 0);
    double res = 0.0, scl = 0.0;
    int chg = 0;
    for (int q = a; q < e; q++) {
        sa_piece *P = &w->pieces[q];
        double d2 = 0.0;
        scl = dmax(scl, ncp_norminf(k, P->w));
        for (int r = 0; r < k; r++) {
            double z = P->w[r] + (ln[r] - lam[r]) / beta;
            double d = P->w[r] - z;
            d2 += d * d;
            chg |= z != P->z[r];
            P->dz[r] = P->z[r] - z;
            P->z[r] = z;
        }
        res = dmax(res, sqrt(d2));
    }
    scl += dmax(ncp_norminf(k, lam), ncp_norminf(k, ln)) / beta;
    for (int r = 0; r < k; r++) {
        chg |= ln[r] != lam[r];
        lam[r] = ln[r];
    }
    w->bres[i] = res;
    w->bscl[i] = scl;
    w->bchg[i] = (unsigned char)chg;
}

/* Phase 3 for subsystem j: theta_d,j = ||A_j v_j - b_j - sum_p J_p^T lambda_i(p)|| (eq. 42) at
 * v^{l+1}, lambda^{l+1}. v^{l+1} solves eq. 34, A_j v = b_j + sum_p J_p^T (beta z_p^l + lambda^l)
 * - beta sum_p J_p^T J_p v, and z_p^{l+1} = J_p v + (lambda^{l+1} - lambda^l) / beta, so the
 * residual is exactly
 *     A_j v_j - b_j - sum_p J_p^T lambda^{l+1} = beta sum_p J_p^T (z_p^l - z_p^{l+1})
 * (ADMM's dual residual, Boyd et al. 2011 §3.3), evaluated that way: only the pieces contribute
 * (BODY: only the bodies that carry them), not every body's M_b or a dense A_j. It differs from a
 * direct evaluation only by the rounding of the linear solve (tests/test_subadmm.c compares). */
static void dual_res(sa_ws *w, int j)
{
    const ncp_problem *p = w->p;
    sa_sub *S = &w->subs[j];
    int n = S->n;
    double *r = S->r, beta = w->beta;
    if (n == 0) {
        S->res = 0.0;
        return;
    }
    ncp_zero(n, r);
    if (w->split == NCP_SUBADMM_BODY) {
        for (int q = w->sub_cptr[j]; q < w->sub_cptr[j + 1]; q++) {
            int b = w->sub_clist[q];
            double f[6] = {0, 0, 0, 0, 0, 0};
            for (int e = w->body_pptr[b]; e < w->body_pptr[b + 1]; e++) {
                const sa_piece *P = &w->pieces[w->body_plist[e]];
                for (int a = 0; a < 6; a++) {
                    double s = 0.0;
                    for (int rr = 0; rr < P->k; rr++) s += P->J[a * P->k + rr] * P->dz[rr];
                    f[a] += s;
                }
            }
            body_scatter(&w->bodies[b], f, r);
        }
    } else if (w->split == NCP_SUBADMM_NOBODY) {
        for (int e = w->sub_pptr[j]; e < w->sub_pptr[j + 1]; e++) {
            const sa_piece *P = &w->pieces[w->sub_plist[e]];
            for (int col = 0; col < n; col++) {
                double s = 0.0;
                for (int rr = 0; rr < P->k; rr++) s += P->J[col * P->k + rr] * P->dz[rr];
                r[col] += s;
            }
        }
    } else {
        for (int i = 0; i < w->npiece; i++) {
            const sa_piece *P = &w->pieces[i];
            int row = p->blocks[P->block].row;
            for (int rr = 0; rr < P->k; rr++) w->g[row + rr] = P->dz[rr];
        }
        ncp_csr_gemv_t(&p->J, 1.0, w->g, 0.0, r);
    }
    S->res = beta * ncp_norm2(n, r);
}

/* ====================== setup ====================== */

/* Range checks of the structure (nothing is read out of bounds after this). */
static int check_ranges(const ncp_problem *p, ncp_error *err)
{
    const ncp_structure *s = p->structure;
    const char *nm = pname(p);
    if (s->nsub < 0 || s->nbodies < 0 || s->nlinks < 0 ||
        (s->nsub > 0 && (!s->sub_dof_start || !s->sub_ndof)) || (s->nbodies > 0 && !s->bodies) ||
        (s->nlinks > 0 && !s->links))
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure has negative counts or "
                             "missing arrays", nm);
    int *own = ncp_calloc(err, (size_t)(p->nv > 0 ? p->nv : 1), sizeof(int));
    if (!own) return NCP_ERR_NOMEM;
    int rc = NCP_OK;
    for (int j = 0; j < s->nsub && !rc; j++) {
        int d0 = s->sub_dof_start[j], n = s->sub_ndof[j];
        if (d0 < 0 || n < 0 || d0 > p->nv - n) {
            rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure subsystem %d has dofs "
                               "[%d, %d + %d) outside [0, nv = %d)", nm, j, d0, d0, n, p->nv);
            break;
        }
        for (int k = d0; k < d0 + n && !rc; k++)
            if (own[k]++)
                rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure subsystems overlap "
                                   "at dof %d (they must partition the velocities)", nm, k);
    }
    for (int k = 0; k < p->nv && !rc; k++)
        if (!own[k])
            rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s: dof %d belongs to no structure "
                               "subsystem (they must partition the velocities)", nm, k);
    free(own);
    for (int b = 0; b < s->nbodies && !rc; b++) {
        const ncp_structure_body *B = &s->bodies[b];
        if (B->subsystem < 0 || B->subsystem >= s->nsub || B->ndof != s->sub_ndof[B->subsystem] ||
            (B->ndof > 0 && !B->Jb))
            rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure body %d: subsystem %d / "
                               "ndof %d inconsistent (or Jb missing)", nm, b, B->subsystem,
                               B->ndof);
        else if (!ncp_all_finite(36, B->M) || (B->ndof > 0 && !ncp_all_finite(6 * B->ndof, B->Jb)))
            rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure body %d has a non-finite "
                               "M or Jb", nm, b);
    }
    for (int l = 0; l < s->nlinks && !rc; l++) {
        const ncp_structure_link *L = &s->links[l];
        if (L->block < 0 || L->block >= p->nblocks || L->body < 0 || L->body >= s->nbodies ||
            !L->Jib)
            rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure link %d: block %d / body "
                               "%d out of range (or Jib missing)", nm, l, L->block, L->body);
        else if (!ncp_all_finite(6 * ncp_block_type_size(p->blocks[L->block].type), L->Jib))
            rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure link %d has a non-finite "
                               "Jib", nm, l);
    }
    if (!rc && s->dof_diag && !ncp_all_finite(p->nv, s->dof_diag))
        rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure dof_diag is not finite", nm);
    return rc;
}

/* Subsystems and bodies (compressed root-path Jacobians) from the structure. */
static int build_bodies(sa_ws *w, ncp_error *err)
{
    const ncp_structure *s = w->s;
    w->nsub = s->nsub;
    w->nbody = s->nbodies;
    w->subs = ncp_calloc(err, (size_t)(w->nsub > 0 ? w->nsub : 1), sizeof(sa_sub));
    w->bodies = ncp_calloc(err, (size_t)(w->nbody > 0 ? w->nbody : 1), sizeof(sa_body));
    w->sub_bptr = ncp_calloc(err, (size_t)w->nsub + 1, sizeof(int));
    w->sub_blist = ncp_calloc(err, (size_t)(w->nbody > 0 ? w->nbody : 1), sizeof(int));
    if (!w->subs || !w->bodies || !w->sub_bptr || !w->sub_blist) return NCP_ERR_NOMEM;
    size_t nsupp = 0;
    for (int b = 0; b < w->nbody; b++) nsupp += (size_t)s->bodies[b].ndof;
    w->ipool = ncp_malloc(err, nsupp > 0 ? nsupp : 1, sizeof(int));
    w->dpool = ncp_malloc(err, 6 * (nsupp > 0 ? nsupp : 1), sizeof(double));
    if (!w->ipool || !w->dpool) return NCP_ERR_NOMEM;
    size_t off = 0;
    for (int j = 0; j < w->nsub; j++) {
        w->subs[j].d0 = s->sub_dof_start[j];
        w->subs[j].n = s->sub_ndof[j];
    }
    for (int b = 0; b < w->nbody; b++) {
        const ncp_structure_body *SB = &s->bodies[b];
        sa_body *B = &w->bodies[b];
        B->sub = SB->subsystem;
        B->M = SB->M;
        B->supp = w->ipool + off;
        B->Jb = w->dpool + 6 * off;
        for (int c = 0; c < SB->ndof; c++) {
            const double *col = SB->Jb + 6 * (size_t)c;
            int nzc = 0;
            for (int r = 0; r < 6; r++) nzc |= col[r] != 0.0;
            if (!nzc) continue;
            B->supp[B->ns] = c;
            memcpy(B->Jb + 6 * (size_t)B->ns, col, 6 * sizeof(double));
            B->ns++;
        }
        off += (size_t)B->ns;
        w->sub_bptr[B->sub + 1]++;
    }
    for (int j = 0; j < w->nsub; j++) w->sub_bptr[j + 1] += w->sub_bptr[j];
    int *fill = ncp_calloc(err, (size_t)w->nsub + 1, sizeof(int));
    if (!fill) return NCP_ERR_NOMEM;
    for (int b = 0; b < w->nbody; b++) {
        int j = w->bodies[b].sub;
        w->sub_blist[w->sub_bptr[j] + fill[j]++] = b;
    }
    free(fill);
    return NCP_OK;
}

/* Pieces: BODY one per link (eq. 31), NOBODY one per (block, subsystem) (eq. 30), NOSUB one per
 * block (eq. 28). */
static int build_pieces(sa_ws *w, ncp_error *err)
{
    const ncp_problem *p = w->p;
    const ncp_structure *s = w->s;
    int nb = p->nblocks;
    w->blk_pptr = ncp_calloc(err, (size_t)nb + 1, sizeof(int));
    if (!w->blk_pptr) return NCP_ERR_NOMEM;
    if (w->split == NCP_SUBADMM_NOSUB) {
        w->npiece = nb;
        w->pieces = ncp_calloc(err, (size_t)(nb > 0 ? nb : 1), sizeof(sa_piece));
        if (!w->pieces) return NCP_ERR_NOMEM;
        for (int i = 0; i < nb; i++) {
            w->blk_pptr[i + 1] = i + 1;
            w->pieces[i] = (sa_piece){.block = i, .sub = 0, .body = -1,
                                      .k = ncp_block_type_size(p->blocks[i].type)};
        }
        return NCP_OK;
    }
    /* links grouped by block, in link order */
    int nl = s->nlinks;
    int *lptr = ncp_calloc(err, (size_t)nb + 1, sizeof(int));
    int *llist = ncp_calloc(err, (size_t)(nl > 0 ? nl : 1), sizeof(int));
    int *fill = ncp_calloc(err, (size_t)nb + 1, sizeof(int));
    int rc = (!lptr || !llist || !fill) ? NCP_ERR_NOMEM : NCP_OK;
    if (!rc) {
        for (int l = 0; l < nl; l++) lptr[s->links[l].block + 1]++;
        for (int i = 0; i < nb; i++) lptr[i + 1] += lptr[i];
        for (int l = 0; l < nl; l++) llist[lptr[s->links[l].block] + fill[s->links[l].block]++] = l;
    }
    if (!rc && w->split == NCP_SUBADMM_BODY) {
        w->npiece = nl;
        w->pieces = ncp_calloc(err, (size_t)(nl > 0 ? nl : 1), sizeof(sa_piece));
        w->body_pptr = ncp_calloc(err, (size_t)w->nbody + 1, sizeof(int));
        w->body_plist = ncp_calloc(err, (size_t)(nl > 0 ? nl : 1), sizeof(int));
        if (!w->pieces || !w->body_pptr || !w->body_plist) rc = NCP_ERR_NOMEM;
        for (int i = 0; i < nb && !rc; i++) {
            w->blk_pptr[i + 1] = lptr[i + 1];
            for (int q = lptr[i]; q < lptr[i + 1]; q++) {
                const ncp_structure_link *L = &s->links[llist[q]];
                sa_piece *P = &w->pieces[q];
                P->block = i;
                P->body = L->body;
                P->sub = w->bodies[L->body].sub;
                P->k = ncp_block_type_size(p->blocks[i].type);
                P->J = L->Jib;
                w->body_pptr[L->body + 1]++;
            }
        }
        if (!rc) {
            for (int b = 0; b < w->nbody; b++) w->body_pptr[b + 1] += w->body_pptr[b];
            /* per subsystem, its bodies with at least one piece (in sub_blist order) */
            w->sub_cptr = ncp_calloc(err, (size_t)w->nsub + 1, sizeof(int));
            w->sub_clist = ncp_calloc(err, (size_t)(w->nbody > 0 ? w->nbody : 1), sizeof(int));
            if (!w->sub_cptr || !w->sub_clist) rc = NCP_ERR_NOMEM;
            for (int j = 0, c = 0; j < w->nsub && !rc; j++) {
                for (int q = w->sub_bptr[j]; q < w->sub_bptr[j + 1]; q++) {
                    int b = w->sub_blist[q];
                    if (w->body_pptr[b + 1] > w->body_pptr[b]) w->sub_clist[c++] = b;
                }
                w->sub_cptr[j + 1] = c;
            }
        }
        if (!rc) {
            int *bf = ncp_calloc(err, (size_t)w->nbody + 1, sizeof(int));
            if (!bf) rc = NCP_ERR_NOMEM;
            for (int q = 0; q < nl && !rc; q++) {
                int b = w->pieces[q].body;
                w->body_plist[w->body_pptr[b] + bf[b]++] = q;
            }
            free(bf);
        }
        /* C_b = sum of J_{i,b}^T J_{i,b} over the body's pieces (eq. 41 without beta) */
        for (int q = 0; q < nl && !rc; q++) {
            const sa_piece *P = &w->pieces[q];
            double *C = w->bodies[P->body].C;
            for (int c = 0; c < 6; c++)
                for (int a = 0; a < 6; a++) {
                    double t = 0.0;
                    for (int r = 0; r < P->k; r++) t += P->J[a * P->k + r] * P->J[c * P->k + r];
                    C[a + 6 * c] += t;
                }
        }
    } else if (!rc) { /* NOBODY: distinct subsystems per block, ascending */
        int cnt = 0;
        size_t jsz = 0;
        for (int i = 0; i < nb; i++) {
            int k = ncp_block_type_size(p->blocks[i].type);
            for (int q = lptr[i]; q < lptr[i + 1]; q++) {
                int j = w->bodies[s->links[llist[q]].body].sub, seen = 0;
                for (int q2 = lptr[i]; q2 < q; q2++)
                    seen |= w->bodies[s->links[llist[q2]].body].sub == j;
                if (!seen) {
                    cnt++;
                    jsz += (size_t)k * w->subs[j].n;
                }
            }
        }
        w->npiece = cnt;
        w->pieces = ncp_calloc(err, (size_t)(cnt > 0 ? cnt : 1), sizeof(sa_piece));
        w->jpool = ncp_calloc(err, jsz > 0 ? jsz : 1, sizeof(double));
        w->sub_pptr = ncp_calloc(err, (size_t)w->nsub + 1, sizeof(int));
        w->sub_plist = ncp_calloc(err, (size_t)(cnt > 0 ? cnt : 1), sizeof(int));
        if (!w->pieces || !w->jpool || !w->sub_pptr || !w->sub_plist) rc = NCP_ERR_NOMEM;
        int pc = 0;
        size_t off = 0;
        for (int i = 0; i < nb && !rc; i++) {
            int k = ncp_block_type_size(p->blocks[i].type);
            /* subsystems of this block in ascending order */
            int lastj = -1;
            for (;;) {
                int j = -1;
                for (int q = lptr[i]; q < lptr[i + 1]; q++) {
                    int jj = w->bodies[s->links[llist[q]].body].sub;
                    if (jj > lastj && (j < 0 || jj < j)) j = jj;
                }
                if (j < 0) break;
                lastj = j;
                sa_piece *P = &w->pieces[pc++];
                P->block = i;
                P->sub = j;
                P->body = -1;
                P->k = k;
                double *Jp = w->jpool + off;
                off += (size_t)k * w->subs[j].n;
                P->J = Jp;
                for (int q = lptr[i]; q < lptr[i + 1]; q++) { /* J_p = sum_b J_{i,b} J_{b,j} */
                    const ncp_structure_link *L = &s->links[llist[q]];
                    const sa_body *B = &w->bodies[L->body];
                    if (B->sub != j) continue;
                    for (int t = 0; t < B->ns; t++)
                        for (int r = 0; r < k; r++) {
                            double v = 0.0;
                            for (int a = 0; a < 6; a++) v += L->Jib[a * k + r] * B->Jb[6 * t + a];
                            Jp[B->supp[t] * k + r] += v;
                        }
                }
                w->sub_pptr[j + 1]++;
            }
            w->blk_pptr[i + 1] = pc;
        }
        if (!rc) {
            for (int j = 0; j < w->nsub; j++) w->sub_pptr[j + 1] += w->sub_pptr[j];
            int *sf = ncp_calloc(err, (size_t)w->nsub + 1, sizeof(int));
            if (!sf) rc = NCP_ERR_NOMEM;
            for (int q = 0; q < cnt && !rc; q++) {
                int j = w->pieces[q].sub;
                w->sub_plist[w->sub_pptr[j] + sf[j]++] = q;
            }
            free(sf);
        }
    }
    free(lptr);
    free(llist);
    free(fill);
    return rc;
}

/* admm-nosub's sparse factorisation of eq. 28 (Lee et al. 2025): K = A + beta J^T J has A's
 * pattern (block diagonal per subsystem) plus the contact couplings of J^T J, and the pattern does
 * not depend on beta. A competent implementation orders and analyses it once per solve and only
 * refactorises numerically when eq. 43 changes beta (core/sparse_chol.h), so that Table III's
 * "No Sub" ratio measures the splitting, not dense linear algebra. Entries of J^T J are summed
 * over J's rows in increasing order, as the dense G is, so K's entries are bitwise the dense ones
 * and the two factorisations differ by round-off only. Sets *use = 0 (and frees what it built)
 * when a dense factorisation is cheaper: fewer flops by NOSUB_SPARSE_GAIN (the up-looking sparse
 * kernel's indirect addressing is slower per flop than LAPACK's dense Cholesky). */
#define NOSUB_SPARSE_GAIN 4.0
static int build_nosub_sparse(sa_ws *w, sa_sub *S, int force, int *use, ncp_error *err)
{
    const ncp_problem *p = w->p;
    const ncp_csr *J = &p->J;
    int n = p->nv, rc = NCP_OK;
    size_t n1 = (size_t)(n > 0 ? n : 1);
    *use = 0;
    int *cptr = ncp_calloc(err, n1 + 1, sizeof(int)); /* J by columns: its rows */
    int *crow = ncp_malloc(err, (size_t)(J->nnz > 0 ? J->nnz : 1), sizeof(int));
    double *cval = ncp_malloc(err, (size_t)(J->nnz > 0 ? J->nnz : 1), sizeof(double));
    int *mk = ncp_malloc(err, n1, sizeof(int));
    int *pos = ncp_malloc(err, n1, sizeof(int));
    int *fill = ncp_calloc(err, n1, sizeof(int));
    S->kptr = ncp_calloc(err, n1 + 1, sizeof(int));
    if (!cptr || !crow || !cval || !mk || !pos || !fill || !S->kptr) rc = NCP_ERR_NOMEM;
    if (!rc) {
        for (int e = 0; e < J->nnz; e++) cptr[J->col[e] + 1]++;
        for (int c = 0; c < n; c++) cptr[c + 1] += cptr[c];
        for (int r = 0; r < J->m; r++) /* rows ascending within each column */
            for (int e = J->rowptr[r]; e < J->rowptr[r + 1]; e++) {
                int c = J->col[e];
                crow[cptr[c] + fill[c]] = e; /* the entry, for its value and row */
                cval[cptr[c] + fill[c]++] = J->val[e];
            }
        for (int k = 0; k < n; k++) mk[k] = -1;
    }
    /* the rows of J by entry: row of entry e */
    int *erow = rc ? NULL : ncp_malloc(err, (size_t)(J->nnz > 0 ? J->nnz : 1), sizeof(int));
    if (!rc && !erow) rc = NCP_ERR_NOMEM;
    for (int r = 0; r < J->m && !rc; r++)
        for (int e = J->rowptr[r]; e < J->rowptr[r + 1]; e++) erow[e] = r;
    /* pass 0 counts, pass 1 fills: row r of K = A's non-zeros, the diagonal, and every column
     * sharing a row of J with r */
    for (int pass = 0; pass < 2 && !rc; pass++) {
        if (pass == 1) {
            for (int r = 0; r < n; r++) S->kptr[r + 1] += S->kptr[r];
            size_t nz = (size_t)(S->kptr[n] > 0 ? S->kptr[n] : 1);
            S->kidx = ncp_malloc(err, nz, sizeof(int));
            S->kA = ncp_malloc(err, nz, sizeof(double));
            S->kG = ncp_calloc(err, nz, sizeof(double));
            if (!S->kidx || !S->kA || !S->kG) {
                rc = NCP_ERR_NOMEM;
                break;
            }
            for (int k = 0; k < n; k++) mk[k] = -1;
        }
        for (int r = 0; r < n; r++) {
            int cnt = 0, base = pass ? S->kptr[r] : 0;
            const double *Ar = p->A + (size_t)r * n; /* column r = row r (A symmetric) */
            for (int c = 0; c < n; c++)
                if (Ar[c] != 0.0 || c == r) {
                    mk[c] = r;
                    if (pass) {
                        pos[c] = base + cnt;
                        S->kidx[base + cnt] = c;
                        S->kA[base + cnt] = Ar[c];
                    }
                    cnt++;
                }
            for (int t = cptr[r]; t < cptr[r + 1]; t++) {
                int i = erow[crow[t]];
                double jr = cval[t];
                for (int e = J->rowptr[i]; e < J->rowptr[i + 1]; e++) {
                    int c = J->col[e];
                    if (mk[c] != r) {
                        mk[c] = r;
                        if (pass) {
                            pos[c] = base + cnt;
                            S->kidx[base + cnt] = c;
                            S->kA[base + cnt] = 0.0;
                        }
                        cnt++;
                    }
                    if (pass) S->kG[pos[c]] += jr * J->val[e];
                }
            }
            if (!pass) S->kptr[r + 1] = cnt;
        }
    }
    free(cptr);
    free(crow);
    free(cval);
    free(mk);
    free(pos);
    free(fill);
    free(erow);
    if (!rc) rc = ncp_spchol_analyse(n, S->kptr, S->kidx, &S->sp, err);
    if (rc) return rc;
    double flops;
    ncp_spchol_stats(S->sp, NULL, &flops);
    *use = force || NOSUB_SPARSE_GAIN * flops < (double)n * n * n / 3.0;
    if (!*use) {
        ncp_spchol_free(S->sp);
        free(S->kptr);
        free(S->kidx);
        free(S->kA);
        free(S->kG);
        S->sp = NULL;
        S->kptr = S->kidx = NULL;
        S->kA = S->kG = NULL;
    }
    return NCP_OK;
}

/* Per-subsystem matrices: K (and A_j, G_j for the dense splittings), scratch, the tree. */
static int build_subsystems(sa_ws *w, ncp_error *err)
{
    const ncp_problem *p = w->p;
    if (w->split == NCP_SUBADMM_NOSUB) {
        w->nsub = 1;
        w->subs = ncp_calloc(err, 1, sizeof(sa_sub));
        if (!w->subs) return NCP_ERR_NOMEM;
        w->subs[0].d0 = 0;
        w->subs[0].n = p->nv;
        w->subs[0].A = p->A;
        if (w->nosub_factor != 1) { /* auto or sparse */
            int use = 0;
            sa_sub *S = &w->subs[0];
            int rc = build_nosub_sparse(w, S, w->nosub_factor == 2, &use, err);
            if (rc) return rc;
            if (use) {
                S->r = ncp_calloc(err, (size_t)(S->n > 0 ? S->n : 1), sizeof(double));
                return S->r ? NCP_OK : NCP_ERR_NOMEM;
            }
        }
    }
    for (int j = 0; j < w->nsub; j++) {
        sa_sub *S = &w->subs[j];
        size_t n = (size_t)S->n, nn = n * n > 0 ? n * n : 1;
        S->K = ncp_malloc(err, nn, sizeof(double));
        S->r = ncp_calloc(err, n > 0 ? n : 1, sizeof(double));
        if (!S->K || !S->r) return NCP_ERR_NOMEM;
        if (w->split == NCP_SUBADMM_BODY) {
            int maxs = 1;
            for (int q = w->sub_bptr[j]; q < w->sub_bptr[j + 1]; q++)
                if (w->bodies[w->sub_blist[q]].ns > maxs) maxs = w->bodies[w->sub_blist[q]].ns;
            S->W = ncp_malloc(err, 6 * (size_t)maxs, sizeof(double));
            if (!S->W) return NCP_ERR_NOMEM;
            int rc = build_tree(w, j, w->sub_blist + w->sub_bptr[j],
                                w->sub_bptr[j + 1] - w->sub_bptr[j], err);
            if (rc) return rc;
            continue;
        }
        S->G = ncp_calloc(err, nn, sizeof(double));
        if (!S->G) return NCP_ERR_NOMEM;
        if (w->split == NCP_SUBADMM_NOBODY) {
            S->A = ncp_malloc(err, nn, sizeof(double));
            if (!S->A) return NCP_ERR_NOMEM;
            a_block(p, S->d0, S->n, S->A);
            for (int e = w->sub_pptr[j]; e < w->sub_pptr[j + 1]; e++) { /* G_j = sum J_p^T J_p */
                const sa_piece *P = &w->pieces[w->sub_plist[e]];
                for (size_t c = 0; c < n; c++)
                    for (size_t r = 0; r < n; r++) {
                        double t = 0.0;
                        for (int q = 0; q < P->k; q++) t += P->J[r * P->k + q] * P->J[c * P->k + q];
                        S->G[r + c * n] += t;
                    }
            }
        } else { /* NOSUB: G = J^T J from the CSR rows */
            const ncp_csr *J = &p->J;
            for (int r = 0; r < J->m; r++)
                for (int a = J->rowptr[r]; a < J->rowptr[r + 1]; a++)
                    for (int b2 = J->rowptr[r]; b2 < J->rowptr[r + 1]; b2++)
                        S->G[(size_t)J->col[a] + (size_t)J->col[b2] * n] += J->val[a] * J->val[b2];
        }
    }
    return NCP_OK;
}

/* The structure describes p (J and A), using the compressed bodies. */
/* full = 0 (every solve's setup): J row by row and each diagonal block of A against the
 * structure, O(links x path + sum_j n_j^2); full = 1 (ncp_subadmm_check_structure) also reads
 * every entry of A outside the blocks (O(nv^2), more than a whole SubADMM solve of a large system
 * costs, hence not per solve). Scales: the largest |J| entry; for A its largest diagonal entry
 * (A is SPD, so |A_rc| <= sqrt(A_rr A_cc) bounds every entry). */
static int check_consistency(sa_ws *w, double rtol, int full, ncp_error *err)
{
    const ncp_problem *p = w->p;
    const ncp_structure *s = w->s;
    const char *nm = pname(p);
    int n = p->nv;
    double jmax = 0.0, amax = 0.0;
    for (int e = 0; e < p->J.nnz; e++) jmax = dmax(jmax, fabs(p->J.val[e]));
    for (int k = 0; k < n; k++) amax = dmax(amax, fabs(a_diag(p, k)));
    /* J: row by row, sum_b J_{i,b} J_{b,j} scattered into a dense row */
    double *acc = ncp_calloc(err, (size_t)(n > 0 ? n : 1), sizeof(double));
    int *lptr = ncp_calloc(err, (size_t)p->nblocks + 1, sizeof(int));
    int *llist = ncp_calloc(err, (size_t)(s->nlinks > 0 ? s->nlinks : 1), sizeof(int));
    int *fill = ncp_calloc(err, (size_t)p->nblocks + 1, sizeof(int));
    int rc = (!acc || !lptr || !llist || !fill) ? NCP_ERR_NOMEM : NCP_OK;
    if (!rc) {
        for (int l = 0; l < s->nlinks; l++) lptr[s->links[l].block + 1]++;
        for (int i = 0; i < p->nblocks; i++) lptr[i + 1] += lptr[i];
        for (int l = 0; l < s->nlinks; l++)
            llist[lptr[s->links[l].block] + fill[s->links[l].block]++] = l;
    }
    for (int i = 0; i < p->nblocks && !rc; i++) {
        int k = ncp_block_type_size(p->blocks[i].type), row0 = p->blocks[i].row;
        for (int r = 0; r < k && !rc; r++) {
            for (int q = lptr[i]; q < lptr[i + 1]; q++) {
                const ncp_structure_link *L = &s->links[llist[q]];
                const sa_body *B = &w->bodies[L->body];
                int d0 = w->subs[B->sub].d0;
                for (int t = 0; t < B->ns; t++) {
                    double v = 0.0;
                    for (int a = 0; a < 6; a++) v += L->Jib[a * k + r] * B->Jb[6 * t + a];
                    acc[d0 + B->supp[t]] += v;
                }
            }
            for (int e = p->J.rowptr[row0 + r]; e < p->J.rowptr[row0 + r + 1]; e++)
                acc[p->J.col[e]] -= p->J.val[e];
            /* read back and clear only the touched columns (a column visited twice reads 0 the
             * second time, after its value was taken) */
            double dmax = 0.0;
            int at = -1;
            for (int q = lptr[i]; q < lptr[i + 1]; q++) {
                const sa_body *B = &w->bodies[s->links[llist[q]].body];
                int d0 = w->subs[B->sub].d0;
                for (int t = 0; t < B->ns; t++) {
                    int c = d0 + B->supp[t];
                    if (fabs(acc[c]) > dmax) {
                        dmax = fabs(acc[c]);
                        at = c;
                    }
                    acc[c] = 0.0;
                }
            }
            for (int e = p->J.rowptr[row0 + r]; e < p->J.rowptr[row0 + r + 1]; e++) {
                int c = p->J.col[e];
                if (fabs(acc[c]) > dmax) {
                    dmax = fabs(acc[c]);
                    at = c;
                }
                acc[c] = 0.0;
            }
            if (dmax > rtol * jmax)
                rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure does not describe J: "
                                   "row %d (block %d), column %d differs by %.3g from sum_b "
                                   "J_{i,b} J_{b,j} (largest |J| entry %.3g)", nm, row0 + r, i, at,
                                   dmax, jmax);
        }
    }
    free(acc);
    free(lptr);
    free(llist);
    free(fill);
    if (rc) return rc;
    /* A: zero between subsystems; each block = sum_b J_{b,j}^T M_b J_{b,j} + diag (eq. 40 at
     * beta = 0, assembled into K by the same code the solver factorises) */
    int *sub_of = full ? ncp_malloc(err, (size_t)(n > 0 ? n : 1), sizeof(int)) : NULL;
    if (full && !sub_of) return NCP_ERR_NOMEM;
    for (int j = 0; j < w->nsub && full; j++)
        for (int k = 0; k < w->subs[j].n; k++) sub_of[w->subs[j].d0 + k] = j;
    for (int c = 0; c < n && full && !rc && a_dense(p); c++)
        for (int r = 0; r < n; r++)
            if (sub_of[r] != sub_of[c] && fabs(p->A[r + (size_t)c * n]) > rtol * amax) {
                rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s: A couples subsystems %d and %d "
                                   "(A[%d][%d] = %.3g): SubADMM needs A block diagonal over the "
                                   "structure's subsystems", nm, sub_of[r], sub_of[c], r, c,
                                   p->A[r + (size_t)c * n]);
                break;
            }
    for (int r = 0; r < n && full && !rc && !a_dense(p); r++) /* the sparse A: its entries */
        for (int e = p->A_sparse.rowptr[r]; e < p->A_sparse.rowptr[r + 1]; e++) {
            int c = p->A_sparse.col[e];
            if (sub_of[r] != sub_of[c] && fabs(p->A_sparse.val[e]) > rtol * amax) {
                rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s: A couples subsystems %d and %d "
                                   "(A[%d][%d] = %.3g): SubADMM needs A block diagonal over the "
                                   "structure's subsystems", nm, sub_of[r], sub_of[c], r, c,
                                   p->A_sparse.val[e]);
                break;
            }
        }
    free(sub_of);
    if (rc || w->split != NCP_SUBADMM_BODY) return rc;
    int maxn = 1;
    for (int j = 0; j < w->nsub; j++) maxn = w->subs[j].n > maxn ? w->subs[j].n : maxn;
    double *Aj = ncp_malloc(err, (size_t)maxn * maxn, sizeof(double));
    if (!Aj) return NCP_ERR_NOMEM;
    for (int j = 0; j < w->nsub && !rc; j++) {
        sa_sub *S = &w->subs[j];
        assemble_body(w, j, 0.0, 0, S->K); /* dense: every entry of the block is compared */
        a_block(p, S->d0, S->n, Aj);
        for (int c = 0; c < S->n && !rc; c++)
            for (int r = c; r < S->n; r++) {
                double d = S->K[r + (size_t)c * S->n] - Aj[r + (size_t)c * S->n];
                if (fabs(d) > rtol * amax) {
                    rc = ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure does not "
                                       "describe A: subsystem %d entry (%d, %d) of sum_b J_b^T M_b "
                                       "J_b + diag(dof_diag) differs by %.3g (largest diagonal "
                                       "entry of A %.3g)", nm, j, r, c, d, amax);
                    break;
                }
            }
    }
    free(Aj);
    return rc;
}

/* beta_0 (Lee et al. 2025 §VI-D): the geometric mean over bodies of the pseudo-density m_b / n_b,
 * n_b the number of contact points on body b. Bodies without contacts (infinite pseudo-density) and
 * without mass are left out; a body-body contact counts once for each body (our reading). If no
 * body carries a contact, every constraint piece counts (each adds beta J_{i,b}^T J_{i,b} to
 * H_b, the balance the rule is about). Without structure (admm-nosub on an imported problem) the
 * same rule per dof: A_kk / (number of blocks whose J rows touch dof k) — our extension. If
 * nothing is constrained, beta does not matter: 1. */
static int initial_beta(const ncp_problem *p, double *beta0, ncp_error *err)
{
    const ncp_structure *s = p->structure;
    double sum = 0.0;
    int q = 0;
    if (s && s->nbodies > 0) {
        int *cnt = ncp_calloc(err, (size_t)s->nbodies, sizeof(int));
        if (!cnt) return NCP_ERR_NOMEM;
        for (int pass = 0; pass < 2 && q == 0; pass++) {
            memset(cnt, 0, (size_t)s->nbodies * sizeof(int));
            for (int l = 0; l < s->nlinks; l++)
                if (pass == 1 || p->blocks[s->links[l].block].type == NCP_CONTACT)
                    cnt[s->links[l].body]++;
            for (int b = 0; b < s->nbodies; b++) {
                double mb = s->bodies[b].M[0];
                if (cnt[b] > 0 && mb > 0.0) {
                    sum += log(mb / cnt[b]);
                    q++;
                }
            }
        }
        free(cnt);
    }
    if (q == 0 && p->nv > 0) {
        int *cnt = ncp_calloc(err, (size_t)p->nv, sizeof(int));
        int *last = ncp_malloc(err, (size_t)p->nv, sizeof(int));
        if (!cnt || !last) {
            free(cnt);
            free(last);
            return NCP_ERR_NOMEM;
        }
        for (int k = 0; k < p->nv; k++) last[k] = -1;
        for (int i = 0; i < p->nblocks; i++) {
            int r0 = p->blocks[i].row, k = ncp_block_type_size(p->blocks[i].type);
            for (int e = p->J.rowptr[r0]; e < p->J.rowptr[r0 + k]; e++)
                if (p->J.val[e] != 0.0 && last[p->J.col[e]] != i) {
                    last[p->J.col[e]] = i;
                    cnt[p->J.col[e]]++;
                }
        }
        for (int k = 0; k < p->nv; k++) {
            double a = a_diag(p, k);
            if (cnt[k] > 0 && a > 0.0) {
                sum += log(a / cnt[k]);
                q++;
            }
        }
        free(cnt);
        free(last);
    }
    *beta0 = q > 0 ? exp(sum / q) : 1.0;
    return NCP_OK;
}

/* The mass scale m* of the scale-free eq. 43 (solvers/subadmm.c): the geometric mean of the
 * masses m_b of the bodies that carry a constraint piece (the blocks H_b = M_b + beta C_b of eq.
 * 41 against which beta is weighed). Without structure (admm-nosub on an imported problem) the
 * geometric mean of A_kk over the dofs some row of J touches (our extension). Nothing
 * constrained: 1 kg. */
static int mass_scale(const ncp_problem *p, double *ms, ncp_error *err)
{
    const ncp_structure *s = p->structure;
    double sum = 0.0;
    int q = 0;
    if (s && s->nbodies > 0) {
        unsigned char *has = ncp_calloc(err, (size_t)s->nbodies, 1);
        if (!has) return NCP_ERR_NOMEM;
        for (int l = 0; l < s->nlinks; l++) has[s->links[l].body] = 1;
        for (int b = 0; b < s->nbodies; b++)
            if (has[b] && s->bodies[b].M[0] > 0.0) {
                sum += log(s->bodies[b].M[0]);
                q++;
            }
        free(has);
    }
    if (q == 0 && p->nv > 0) {
        unsigned char *touched = ncp_calloc(err, (size_t)p->nv, 1);
        if (!touched) return NCP_ERR_NOMEM;
        for (int e = 0; e < p->J.nnz; e++) touched[p->J.col[e]] |= p->J.val[e] != 0.0;
        for (int k = 0; k < p->nv; k++) {
            double a = a_diag(p, k);
            if (touched[k] && a > 0.0) {
                sum += log(a);
                q++;
            }
        }
        free(touched);
    }
    *ms = q > 0 ? exp(sum / q) : 1.0;
    return NCP_OK;
}

/* name: the solver's, for the messages */
static int check_problem(const char *name, const ncp_problem *p, ncp_subadmm_split split,
                         ncp_error *err)
{
    int sparse_a = !a_dense(p) && p->has_sparse_primal && p->A_sparse.rowptr &&
                   p->A_sparse.m == p->nv && p->A_sparse.n == p->nv;
    if ((!a_dense(p) && !sparse_a) || (p->nv > 0 && !p->b) || (p->m > 0 && !p->e) ||
        p->J.m != p->m || p->J.n != p->nv)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: problem '%s' has no primal data (A, b, J, e)",
                             name, pname(p));
    if (split == NCP_SUBADMM_NOSUB && !a_dense(p)) /* its K = A + beta J^T J reads the dense A */
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: problem '%s' keeps A sparse; this solver "
                             "reads the dense A (--primal dense densifies it)", name, pname(p));
    for (int bi = 0; bi < p->nblocks; bi++) {
        int t = p->blocks[bi].type;
        if (t != NCP_BILATERAL && t != NCP_UNILATERAL && t != NCP_CONTACT && t != NCP_SOFT)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: problem '%s', block %d has unknown type "
                                 "%d", name, pname(p), bi, t);
    }
    if (split != NCP_SUBADMM_NOSUB && !p->structure)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: problem '%s' has no subsystem structure "
                             "(capture it with ncpbench from a scene; imported FCLib problems "
                             "have none)", name, pname(p));
    if (p->structure) {
        int rc = check_ranges(p, err);
        if (rc) ncp_error_prefix(err, "%s: ", name);
        return rc;
    }
    return NCP_OK;
}

/* Everything up to the factorisation at beta_0 and the initial iterate. *numfail = 1 when a
 * matrix is not positive definite (a numerical failure of this solve, not an error). */
static int ws_setup(sa_ws *w, const ncp_subadmm_config *cfg, const ncp_subadmm_settings *set,
                    const ncp_solve_in *in, int *numfail, ncp_error *err)
{
    const ncp_problem *p = in->prob;
    *numfail = 0;
    w->p = p;
    w->s = p->structure;
    w->split = cfg->split;
    w->n = p->nv;
    w->m = p->m;
    w->nb = p->nblocks;
    w->nosub_factor = set->nosub_factor;
#ifdef _OPENMP
    w->nt = set->threads > 0 ? set->threads : omp_get_max_threads();
#else
    w->nt = 1;
#endif
    const char *name = cfg->desc->name;
    int rc = check_problem(name, p, w->split, err);
    if (rc) return rc;
    if (w->split != NCP_SUBADMM_NOSUB && (rc = build_bodies(w, err))) return rc;
    if ((rc = build_pieces(w, err)) || (rc = build_subsystems(w, err))) return rc;
    if (w->split != NCP_SUBADMM_NOSUB && (rc = check_consistency(w, 1e-8, 0, err))) {
        ncp_error_prefix(err, "%s: ", name);
        return rc;
    }
    size_t m1 = (size_t)(w->m > 0 ? w->m : 1), n1 = (size_t)(w->n > 0 ? w->n : 1);
    size_t b1 = (size_t)(w->nb > 0 ? w->nb : 1);
    w->lam = ncp_calloc(err, m1, sizeof(double));
    w->v = ncp_calloc(err, n1, sizeof(double));
    w->bres = ncp_calloc(err, b1, sizeof(double));
    w->bscl = ncp_calloc(err, b1, sizeof(double));
    w->bchg = ncp_calloc(err, b1, sizeof(unsigned char));
    w->g = ncp_calloc(err, m1, sizeof(double));
    if (!w->lam || !w->v || !w->bres || !w->bscl || !w->bchg || !w->g) return NCP_ERR_NOMEM;
    double b0 = set->beta0;
    if (b0 <= 0.0 && (rc = initial_beta(p, &b0, err))) return rc;
    w->beta = b0;
    if ((rc = mass_scale(p, &w->mscale, err))) return rc;

    /* initial iterate (Alg. 2 line 7): lambda^0 = lambda0 (u^0 = -lambda0) or 0; z_p^0 = J_p v0,
     * v0 given or A^{-1}(b + J^T lambda0) (one extra factorisation at beta = 0), so that a warm
     * start from a solution is a fixed point; cold: z^0 = 0 (our choice) */
    if (in->lambda0) ncp_copy(w->m, in->lambda0, w->lam);
    if (in->v0 || in->lambda0) {
        if (in->v0) {
            ncp_copy(w->n, in->v0, w->v);
        } else {
            if (factor_all(w, 0.0)) {
                *numfail = 1;
                return NCP_OK;
            }
            for (int j = 0; j < w->nsub; j++) {
                double *vj = w->v + w->subs[j].d0;
                sub_rhs(w, j, 0.0, vj);
                solve_sub(w, j, vj);
            }
        }
        for (int j = 0; j < w->nsub; j++) sub_twists(w, j);
        for (int q = 0; q < w->npiece; q++) {
            sa_piece *P = &w->pieces[q];
            piece_apply(w, P, P->z);
        }
    }
    if (factor_all(w, w->beta)) *numfail = 1;
    return NCP_OK;
}

/* ====================== the iteration (Alg. 2) ====================== */

/* The whole solve (solver.h protocol when run != NULL; else exactly max_iter iterations unless
 * the own test stops earlier). st_user may be NULL. */
static int sa_run(const ncp_subadmm_config *cfg, const ncp_subadmm_settings *set,
                  const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, int max_iter,
                  ncp_subadmm_stats *st_user, ncp_error *err)
{
    ncp_subadmm_stats st_local;
    ncp_subadmm_stats *st = st_user ? st_user : &st_local;
    memset(st, 0, sizeof *st);
    sa_ws w;
    memset(&w, 0, sizeof w);
    int numfail = 0;
    int rc = ws_setup(&w, cfg, set, in, &numfail, err);
    if (rc) {
        ws_free(&w);
        return rc;
    }
    int m = w.m, n = w.n;
    st->beta0 = st->beta = w.beta;
    st->mass_scale = set->theta_mass > 0.0 ? set->theta_mass : w.mscale;
    st->nsub = w.nsub;
    st->npieces = w.npiece;
    for (int j = 0; j < w.nsub; j++) st->tree += w.subs[j].tree != NULL;
    st->factorizations = 1 + (in->lambda0 && !in->v0);
    int status = -1, l = 0;
    if (numfail) {
        status = NCP_STATUS_FAILED;
        goto finish;
    }
    charge_workers(&w, run);
    if (run && ncp_run_setup_done(run)) goto finish;
    for (l = 1;; l++) {
        par_for(&w, w.nsub, v_update);     /* eq. 34, per subsystem */
        par_for(&w, w.nb, block_update);   /* eqs. 35-39, per constraint */
        par_for(&w, w.nsub, dual_res);     /* eq. 42 */
        double tp = 0.0, td = 0.0, sp = 0.0, sd = 0.0;
        int changed = 0;
        for (int i = 0; i < w.nb; i++) {
            tp = dmax(tp, w.bres[i]);
            sp = dmax(sp, w.bscl[i]);
            changed |= w.bchg[i];
        }
        for (int j = 0; j < w.nsub; j++) {
            td = dmax(td, w.subs[j].res);
            sd = dmax(sd, w.subs[j].rhs);
        }
        st->theta_p = tp;
        st->theta_d = td;
        if (!ncp_all_finite(m, w.lam) || !ncp_all_finite(n, w.v)) {
            status = NCP_STATUS_FAILED; /* the harness keeps the last finite iterate it saw */
            l--;
            break;
        }
        st->iterations = l;
        charge_workers(&w, run);
        if (run ? ncp_run_iterate(run, l, w.lam, w.v) : l >= max_iter) break;
        if (set->theta_th > 0.0 && tp + td < set->theta_th) { /* Alg. 2 line 13 */
            status = NCP_STATUS_STALLED;
            break;
        }
        /* eq. 43 (Alg. 2 lines 15-17), not once both residuals are at their round-off level
         * (1e3 eps times the size of the terms they are differences of): their ratio is then
         * noise, and every change of beta would refactorise for nothing (laikago27 at a fixed
         * 100 iterations: 17 refactorisations after convergence) */
        double nbeta = w.beta;
        int noise = tp <= 1e3 * DBL_EPSILON * sp && td <= 1e3 * DBL_EPSILON * sd;
        /* theta_p (a velocity) times a mass is a momentum, comparable with theta_d: the paper's
         * literal rule is the mass 1 kg (theta_mass = 1); the default is the problem's body
         * mass scale (mass_scale, solvers/subadmm.c) */
        double tpm = st->mass_scale * tp;
        if (set->adaptive && !noise && tpm > 0.0 && td > 0.0 &&
            (tpm > set->gamma * td || td > set->gamma * tpm)) {
            nbeta = w.beta * sqrt(tpm / td);
            nbeta = fmin(fmax(nbeta, st->beta0 / set->beta_range), st->beta0 * set->beta_range);
        }
        if (nbeta != w.beta) {
            w.beta = nbeta;
            st->beta_updates++;
            st->factorizations++;
            if (factor_all(&w, w.beta)) {
                status = NCP_STATUS_FAILED;
                break;
            }
        } else if (!changed) {
            /* lambda, z and beta as in the previous iteration: every later iteration repeats it */
            status = NCP_STATUS_STALLED;
            break;
        }
    }
finish:
    ncp_copy(m, w.lam, out->lambda);
    if (out->v) ncp_copy(n, w.v, out->v);
    out->has_v = 1;
    out->iterations = l;
    if (status >= 0) out->status = status;
    st->status = status >= 0 ? status : NCP_STATUS_MAX_ITER;
    st->beta = w.beta;
    ws_free(&w);
    return NCP_OK;
}

/* ====================== parameters and the direct entry point ====================== */

const ncp_param_doc ncp_subadmm_params[] = {
    {"beta0", 0.0,
     "initial penalty beta; 0 = geometric mean over bodies of mass / contact points (§VI-D)"},
    {"adaptive", 1.0, "1: adapt beta by eq. 43 after every iteration (refactorising), 0: fixed"},
    {"gamma", 5.0, "eq. 43: adapt when theta_p > gamma theta_d or theta_d > gamma theta_p, > 1"},
    {"beta_range", 1e4, "beta stays within [beta0 / beta_range, beta0 * beta_range], >= 1"},
    {"theta_th", 0.0, "own stop when theta_p + theta_d < theta_th (Alg. 2 line 13); 0 = off"},
    {"theta_mass", 0.0,
     "eq. 43 compares theta_mass * theta_p with theta_d (kg); 0 = the problem's mass scale "
     "(scale-free: geometric mean of the constrained bodies' masses), 1 = the paper's literal "
     "rule"},
    {"nosub_factor", 0.0,
     "admm-nosub's factorisation of eq. 28: 0 = sparse (ordered once per solve) unless dense is "
     "cheaper, 1 = dense, 2 = sparse; the others ignore it"},
    {"threads", 1.0,
     "OpenMP threads over subsystems and constraints (0 = OpenMP default); results do not depend "
     "on it"},
    {NULL, 0.0, NULL},
};

/* The documented parameters of cfg->desc (beta0, adaptive, gamma, beta_range, theta_th, threads)
 * into set, validated (NCP_ERR_INPUT naming solver and parameter). */
static int read_settings(const ncp_subadmm_config *cfg, const ncp_params *ps,
                         ncp_subadmm_settings *set, ncp_error *err)
{
    const ncp_solver_desc *self = cfg->desc;
    memset(set, 0, sizeof *set);
    int rc;
    if ((rc = ncp_solver_param_real(self, ps, "beta0", 0.0, INFINITY, 0, &set->beta0, err)) ||
        (rc = ncp_solver_param_int(self, ps, "adaptive", 0, 1, &set->adaptive, err)) ||
        (rc = ncp_solver_param_real(self, ps, "gamma", 1.0, INFINITY, NCP_PARAM_LO_OPEN,
                                    &set->gamma, err)) ||
        (rc = ncp_solver_param_real(self, ps, "beta_range", 1.0, INFINITY, 0, &set->beta_range,
                                    err)) ||
        (rc = ncp_solver_param_real(self, ps, "theta_th", 0.0, INFINITY, 0, &set->theta_th,
                                    err)) ||
        (rc = ncp_solver_param_real(self, ps, "theta_mass", 0.0, INFINITY, 0, &set->theta_mass,
                                    err)) ||
        (rc = ncp_solver_param_int(self, ps, "nosub_factor", 0, 2, &set->nosub_factor, err)) ||
        (rc = ncp_solver_param_int(self, ps, "threads", 0, 1024, &set->threads, err)))
        return rc;
    return NCP_OK;
}

int ncp_subadmm_solve(const ncp_subadmm_config *cfg, const ncp_solve_in *in, ncp_solve_out *out,
                      ncp_run *run, ncp_error *err)
{
    ncp_subadmm_settings set;
    int rc = read_settings(cfg, in->params, &set, err);
    if (rc) return rc;
    return sa_run(cfg, &set, in, out, run, in->budget.max_iter, NULL, err);
}

int ncp_subadmm_run(const ncp_subadmm_config *cfg, const ncp_problem *p, const ncp_params *ps,
                    const double *lambda0, const double *v0, int iterations, double *lambda,
                    double *v, ncp_subadmm_stats *st, ncp_error *err)
{
    if (!cfg || !cfg->desc)
        return ncp_error_set(err, NCP_ERR_INPUT, "ncp_subadmm_run: no SubADMM configuration");
    if (iterations < 1)
        return ncp_error_set(err, NCP_ERR_INPUT, "ncp_subadmm_run: iterations = %d must be >= 1",
                             iterations);
    ncp_subadmm_settings set;
    int rc = read_settings(cfg, ps, &set, err);
    if (rc) return rc;
    ncp_solve_in in;
    ncp_solve_out out;
    ncp_direct_io(p, ps, iterations, lambda0, v0, lambda, v, &in, &out);
    return sa_run(cfg, &set, &in, &out, NULL, iterations, st, err);
}

int ncp_subadmm_check_structure(const ncp_problem *p, double rtol, ncp_error *err)
{
    /* the requirements of the body split, the strictest; messages name subadmm, its solver */
    int rc = check_problem("subadmm", p, NCP_SUBADMM_BODY, err);
    if (rc) return rc;
    sa_ws w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.s = p->structure;
    w.split = NCP_SUBADMM_BODY;
    w.n = p->nv;
    w.m = p->m;
    w.nb = p->nblocks;
    w.nt = 1;
    if (!(rc = build_bodies(&w, err)) && !(rc = build_pieces(&w, err)) &&
        !(rc = build_subsystems(&w, err)))
        rc = check_consistency(&w, rtol, 1, err);
    ws_free(&w);
    return rc;
}
