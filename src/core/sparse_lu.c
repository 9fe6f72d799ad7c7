/* Sparse LU by UMFPACK (see sparse_lu.h). */
#include "core/sparse_lu.h"

#include <stdlib.h>

#include "util/ncp_error.h"

#ifdef NCP_HAVE_UMFPACK
#include <suitesparse/cholmod.h>
#include <suitesparse/umfpack.h>

struct ncp_splu {
    int n;
    size_t nz;
    int *Ap, *Ai;   /* the compressed-column pattern (duplicates merged) */
    double *Ax;
    int *map;       /* nz: position k -> its entry of Ax */
    void *symbolic, *numeric;
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    double flops, lu_nnz;
};

int ncp_splu_available(void) { return 1; }

void ncp_splu_free(ncp_splu *F)
{
    if (!F) return;
    if (F->numeric) umfpack_di_free_numeric(&F->numeric);
    if (F->symbolic) umfpack_di_free_symbolic(&F->symbolic);
    free(F->Ap);
    free(F->Ai);
    free(F->Ax);
    free(F->map);
    free(F);
}

/* The flops and entries of L + U of a factorisation of the pattern Ap, Ai (n x n, by columns)
 * whose pivots stay on the diagonal in the given order: those of the Cholesky factor of the
 * symmetric pattern A + A^T in that order (CHOLMOD's symbolic analysis with the order given,
 * no postordering), twice (L and U). UMFPACK's own estimate assumes any pivot row and is an
 * upper bound far above it (20-25x for nsn's saddle form on the 10^3-contact wall). 1 when
 * CHOLMOD cannot analyse it (the caller keeps UMFPACK's). */
static int symmetric_counts(int n, const int *Ap, const int *Ai, const int *order, double *flops,
                            double *lu_nnz)
{
    cholmod_common cc;
    if (!cholmod_start(&cc)) return 1;
    cc.print = 0;
    cc.error_handler = NULL;
    cc.nmethods = 1;
    cc.method[0].ordering = CHOLMOD_GIVEN;
    cc.postorder = 0;
    cc.supernodal = CHOLMOD_SIMPLICIAL;
    int rc = 1;
    /* the upper triangle of A + A^T: entry (i, j) to column max(i, j) */
    const size_t nz = (size_t)Ap[n];
    cholmod_sparse *S = cholmod_allocate_sparse((size_t)n, (size_t)n, nz + 1, 0, 1, 1,
                                                CHOLMOD_PATTERN, &cc);
    cholmod_factor *L = NULL;
    if (S) {
        int *Sp = S->p, *Si = S->i;
        for (int j = 0; j <= n; j++) Sp[j] = 0;
        for (int j = 0; j < n; j++)
            for (int q = Ap[j]; q < Ap[j + 1]; q++) Sp[(Ai[q] > j ? Ai[q] : j) + 1]++;
        for (int j = 0; j < n; j++) Sp[j + 1] += Sp[j];
        int *fill = malloc(((size_t)n + 1) * sizeof(int));
        if (fill) {
            for (int j = 0; j < n; j++) fill[j] = Sp[j];
            for (int j = 0; j < n; j++)
                for (int q = Ap[j]; q < Ap[j + 1]; q++) {
                    const int hi = Ai[q] > j ? Ai[q] : j, lo = Ai[q] > j ? j : Ai[q];
                    Si[fill[hi]++] = lo;
                }
            free(fill);
            L = cholmod_analyze_p(S, (int *)order, NULL, 0, &cc);
            if (L && cc.status >= CHOLMOD_OK && cc.fl > 0) {
                *flops = 2.0 * cc.fl;
                *lu_nnz = 2.0 * cc.lnz - n;
                rc = 0;
            }
        }
    }
    if (L) cholmod_free_factor(&L, &cc);
    if (S) cholmod_free_sparse(&S, &cc);
    cholmod_finish(&cc);
    return rc;
}

int ncp_splu_analyse(int n, size_t nz, const int *ti, const int *tj, int sym, const int *order,
                     ncp_splu **out, ncp_error *err)
{
    *out = NULL;
    if (n <= 0 || nz > (size_t)0x7fffffff)
        return ncp_error_set(err, NCP_ERR_INPUT, "sparse LU: order %d with %zu entries is out of "
                             "range", n, nz);
    for (size_t k = 0; k < nz; k++)
        if (ti[k] < 0 || ti[k] >= n || tj[k] < 0 || tj[k] >= n)
            return ncp_error_set(err, NCP_ERR_INPUT, "sparse LU: entry %zu at (%d, %d) outside "
                                 "the %d x %d matrix", k, ti[k], tj[k], n, n);
    ncp_splu *F = ncp_calloc(err, 1, sizeof *F);
    if (!F) return NCP_ERR_NOMEM;
    F->n = n;
    F->nz = nz;
    F->Ap = ncp_malloc(err, (size_t)n + 1, sizeof(int));
    F->Ai = ncp_malloc(err, nz ? nz : 1, sizeof(int));
    F->Ax = ncp_malloc(err, nz ? nz : 1, sizeof(double));
    F->map = ncp_malloc(err, nz ? nz : 1, sizeof(int));
    if (!F->Ap || !F->Ai || !F->Ax || !F->map) {
        ncp_splu_free(F);
        return NCP_ERR_NOMEM;
    }
    umfpack_di_defaults(F->control);
    if (sym) F->control[UMFPACK_STRATEGY] = UMFPACK_STRATEGY_SYMMETRIC;
    /* a given order is kept with static pivots: the diagonal taken unless below 1e-10 of its
     * column (1e-3, the default, left it for 600 of 4 401 pivots of nsn-fb's saddle form on the
     * 10^3-contact wall, 10x the flops; 1e-6 still for 90-490); the solve's two refinement
     * steps recover what a small pivot loses */
    if (sym && order) F->control[UMFPACK_SYM_PIVOT_TOLERANCE] = 1e-10;
    int st = umfpack_di_triplet_to_col(n, n, (int)nz, ti, tj, NULL, F->Ap, F->Ai, NULL, F->map);
    if (st == UMFPACK_OK)
        st = umfpack_di_qsymbolic(n, n, F->Ap, F->Ai, NULL, (int *)order, &F->symbolic,
                                  F->control, F->info);
    if (st != UMFPACK_OK) {
        ncp_splu_free(F);
        if (st == UMFPACK_ERROR_out_of_memory)
            return ncp_error_set(err, NCP_ERR_NOMEM, "sparse LU: out of memory analysing a "
                                 "%d x %d matrix", n, n);
        return ncp_error_set(err, NCP_ERR_NUMERIC, "sparse LU: UMFPACK's analysis failed "
                             "(status %d)", st);
    }
    F->flops = F->info[UMFPACK_FLOPS_ESTIMATE];
    F->lu_nnz = F->info[UMFPACK_LNZ_ESTIMATE] + F->info[UMFPACK_UNZ_ESTIMATE];
    if (sym && order) {
        double fl, lu;
        if (!symmetric_counts(n, F->Ap, F->Ai, order, &fl, &lu)) {
            F->flops = fl;
            F->lu_nnz = lu;
        }
    }
    *out = F;
    return NCP_OK;
}

void ncp_splu_stats(const ncp_splu *F, double *flops, double *lu_nnz)
{
    if (flops) *flops = F->flops;
    if (lu_nnz) *lu_nnz = F->lu_nnz;
}

int ncp_splu_factor(ncp_splu *F, const double *tx, ncp_error *err)
{
    const int nnz = F->Ap[F->n];
    for (int q = 0; q < nnz; q++) F->Ax[q] = 0.0;
    for (size_t k = 0; k < F->nz; k++) F->Ax[F->map[k]] += tx[k];
    if (F->numeric) umfpack_di_free_numeric(&F->numeric);
    int st = umfpack_di_numeric(F->Ap, F->Ai, F->Ax, F->symbolic, &F->numeric, F->control,
                                F->info);
    if (st == UMFPACK_OK) return NCP_OK;
    if (st == UMFPACK_WARNING_singular_matrix) return 1;
    if (F->numeric) umfpack_di_free_numeric(&F->numeric);
    if (st == UMFPACK_ERROR_out_of_memory)
        return ncp_error_set(err, NCP_ERR_NOMEM, "sparse LU: out of memory factorising a %d x %d "
                             "matrix", F->n, F->n);
    return ncp_error_set(err, NCP_ERR_NUMERIC, "sparse LU: UMFPACK's factorisation failed "
                         "(status %d)", st);
}

int ncp_splu_solve(ncp_splu *F, const double *b, double *x, ncp_error *err)
{
    if (!F->numeric)
        return ncp_error_set(err, NCP_ERR_NUMERIC, "sparse LU: solve without a factorisation");
    int st = umfpack_di_solve(UMFPACK_A, F->Ap, F->Ai, F->Ax, x, b, F->numeric, F->control,
                              F->info);
    if (st != UMFPACK_OK)
        return ncp_error_set(err, NCP_ERR_NUMERIC, "sparse LU: UMFPACK's solve failed (status "
                             "%d)", st);
    return NCP_OK;
}

#else /* without UMFPACK */

int ncp_splu_available(void) { return 0; }

int ncp_splu_analyse(int n, size_t nz, const int *ti, const int *tj, int sym, const int *order,
                     ncp_splu **out, ncp_error *err)
{
    (void)n, (void)nz, (void)ti, (void)tj, (void)sym, (void)order;
    *out = NULL;
    return ncp_error_set(err, NCP_ERR_INPUT, "sparse LU: ncpbench was built without UMFPACK "
                         "(reconfigure with -Dsuitesparse=enabled; apt-get install "
                         "libsuitesparse-dev)");
}

void ncp_splu_stats(const ncp_splu *F, double *flops, double *lu_nnz)
{
    (void)F;
    if (flops) *flops = 0.0;
    if (lu_nnz) *lu_nnz = 0.0;
}

int ncp_splu_factor(ncp_splu *F, const double *tx, ncp_error *err)
{
    (void)F, (void)tx;
    return ncp_error_set(err, NCP_ERR_INPUT, "sparse LU: built without UMFPACK");
}

int ncp_splu_solve(ncp_splu *F, const double *b, double *x, ncp_error *err)
{
    (void)F, (void)b, (void)x;
    return ncp_error_set(err, NCP_ERR_INPUT, "sparse LU: built without UMFPACK");
}

void ncp_splu_free(ncp_splu *F) { (void)F; }

#endif
