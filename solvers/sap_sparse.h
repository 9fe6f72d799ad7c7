/* SAP's Newton matrix H = A + J^T G J (Castro et al. 2023 eq. 24's Hessian, §IV-D) kept sparse,
 * for problems whose A is block diagonal (the capture's block route above 600 dofs: A_sparse)
 * or large: the pattern is the union of A's and of J_b^T J_b over every constraint block b
 * (a contact couples the dofs its three rows touch; core/blockpat.h), ordered and analysed once
 * per solve (core/sparse_chol.h, ncp_spchol_analyse); each Newton step scatters A and the blocks'
 * J_b^T G_b J_b into it and refactorises numerically (ncp_spchol_factor). The pattern does
 * not depend on G (an open contact's G = 0 only stores zeros), so one analysis serves every
 * Newton step of the solve. admm and fadmm use it for their saddle form's K = A + J_E^T d_E^{-1} J_E
 * (solvers/admm_common.c: G = diag(1/d) per block). */
#ifndef NCP_SAP_SPARSE_H
#define NCP_SAP_SPARSE_H

#include "core/blockpat.h"
#include "core/problem.h"
#include "core/sparse_chol.h"

typedef struct ncp_sap_hess {
    int n;          /* nv */
    ncp_blockpat pat; /* H's upper triangle (row <= col) and the blocks' positions in it */
    double *aval;   /* A's values in H's pattern (0 where A has none) */
    double *val;    /* H at the current G */
    int *bptr;      /* per block: its columns bcol[bptr[b] .. bptr[b + 1]) (sorted) */
    int *bcol;
    double *jb;     /* scratch: 3 x (max block columns) dense J_b */
    int maxcol;
    ncp_spchol *F;
} ncp_sap_hess;

/* Builds H's pattern for A (n x n CSR, both triangles or either one) and p's J and blocks,
 * and analyses it. */
int ncp_sap_hess_init(ncp_sap_hess *h, const ncp_csr *A, const ncp_problem *p, ncp_error *err);
/* H = A + J^T G J (G9: 9 doubles per block, as ncp_sap_eval fills them), then factorised.
 * NCP_ERR_NUMERIC if H is not positive definite (round-off). */
int ncp_sap_hess_factor(ncp_sap_hess *h, const ncp_problem *p, const double *G9, ncp_error *err);
/* x <- H^{-1} x after a successful ncp_sap_hess_factor. */
void ncp_sap_hess_solve(ncp_sap_hess *h, double *x);
/* Non-zeros of H's upper triangle and of its factor L, and the flops of one factorisation. */
void ncp_sap_hess_stats(const ncp_sap_hess *h, size_t *nnz_h, size_t *nnz_l, double *flops);
void ncp_sap_hess_free(ncp_sap_hess *h);

#endif
