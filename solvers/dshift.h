/* The shifted Delassus system (D + diag(d)) g = q - v_f for a diagonal d > 0 that changes now and
 * then (an ADMM penalty), solved by the cheaper of two exact forms. Shared by admm and fadmm
 * (solvers/admm_common.c, Tasora et al. 2021) and the proximal ADMM family of the NCP report 2025
 * (solvers/admm_proximal.c): one implementation of the linear algebra both need.
 *
 *   dense   Cholesky of the m x m matrix D + diag(d) (ncp_dop_shift_factor on the dense route;
 *           a problem that keeps no D has it built for the solve, in setup: counted).
 *   saddle  the saddle-point system on the primal data (Tasora et al. 2021 eqs. 32, 33a), with
 *           u = J v + e the constraint velocity and A v = b + J^T g:
 *               [ A   J^T       ] {  v }   {  b     }
 *               [ J   -diag(d)  ] { -g } = { e - q  }      (u + d g = q)
 *           solved exactly by block elimination: the rows E (d not small) are eliminated into
 *           K = A + J_E^T d_E^{-1} J_E (n_v x n_v, SPD; dense, or sparse on a pattern ordered and
 *           analysed once: solvers/sap_sparse.h with G = diag(1/d) per block); the rows B the
 *           caller marks (d tiny, e.g. Tasora et al. 2021's rho_b on bilateral rows: they would
 *           make K ill-conditioned) are kept and solved through their Schur complement
 *           S_B = J_B K^{-1} J_B^T + d_B (n_b x n_b, SPD). The velocity v is a by-product.
 *   lowrank Woodbury's identity on the operator's low-rank route D = F F^T (core/dop.h,
 *           ncp_dop_shift_factor): the rank x rank capacitance matrix I + F^T diag(d)^{-1} F,
 *           dense kernels on F. Only where the caller allows it (opts.lowrank): with a tiny d it
 *           cancels terms of size 1/d (lambda differed by 1e-7 relative after 400 ADMM
 *           iterations with Tasora et al. 2021's rho_b on tests/test_lowrank.c's problems), where
 *           the saddle form is the stable elimination of the same system.
 *
 * The choice (form 0) is by estimated cost per iteration, continuous in the problem's size (no
 * row or dof threshold), in flops of the dense LAPACK kernels; the caller turns a candidate's
 * flops of one factorisation F and of one solve S into its cost per iteration (its expected
 * iterations per factorisation: ncp_dshift_cost_fn):
 *   dense form   F = m^3/3,  S = 2 m^2
 *   saddle form  F = 2 sum_E nnz(J_i)^2 + K_f + nb K_s + 2 nnz(J_B) nb + nb^3/3   (K's assembly,
 *                S = K_s + 4 nnz(J) + 8 m + 2 nv nb + 2 nb^2         factor, Schur complement)
 *   lowrank form F = m r (r + 1) + r^3/3,  S = 4 m r + 2 r^2 + 2 m   (r = rank = n_v)
 *   K dense      K_f = nv^3/3,  K_s = 2 nv^2
 *   K sparse     K_f = GAIN x flops(L),  K_s = GAIN x 4 nnz(L)   (from the symbolic analysis)
 * GAIN = NCP_DSHIFT_SPARSE_K_GAIN charges the up-looking kernel's indirect addressing (it runs
 * slower per flop than LAPACK's blocked Cholesky, as admm-nosub, sap and the AL solvers account
 * for it). The wrecking ball's K (n_v 3606, 601 bodies, m 13 251) costs 3606^3/3 = 1.6e10
 * flops dense, 3.6e6 sparse (nnz(L) 1.05e5). form 1 / 2 / 3 and k_factor 1 / 2 force a choice. */
#ifndef NCP_SOLVERS_DSHIFT_H
#define NCP_SOLVERS_DSHIFT_H

#include "core/dop.h"
#include "core/problem.h"
#include "solvers/sap_sparse.h"
#include "util/ncp_error.h"

enum { NCP_DSHIFT_AUTO = 0, NCP_DSHIFT_DENSE = 1, NCP_DSHIFT_SADDLE = 2, NCP_DSHIFT_LOWRANK = 3 };
enum { NCP_DSHIFT_K_AUTO = 0, NCP_DSHIFT_K_DENSE = 1, NCP_DSHIFT_K_SPARSE = 2 };

/* A dense nv x nv K is not formed above this many dofs (1.1 GB): K is then sparse, whatever its
 * estimated cost. */
#define NCP_DSHIFT_SPARSE_MAX_NV 12000
#define NCP_DSHIFT_SPARSE_K_GAIN 4.0

/* A candidate's estimated flops: F one factorisation, S one solve. */
typedef struct ncp_dshift_est {
    double F, S;
} ncp_dshift_est;

/* The caller's cost per iteration of a candidate (e.g. F / R + S, R its iterations per
 * factorisation). */
typedef double (*ncp_dshift_cost_fn)(void *ctx, ncp_dshift_est e);

typedef struct ncp_dshift_opts {
    const unsigned char *brows; /* m entries (or NULL: none): rows kept out of K, d tiny there */
    int form;                   /* NCP_DSHIFT_*: AUTO chooses */
    int k_factor;               /* NCP_DSHIFT_K_* */
    int lowrank;                /* 1: the Woodbury form is a candidate (no tiny d) */
    ncp_dshift_cost_fn cost;    /* the caller's cost per iteration of a candidate */
    void *ctx;
} ncp_dshift_opts;

typedef struct ncp_dshift {
    const ncp_problem *p; /* the problem, or its dual view in the dense form (dview) */
    const char *name;     /* solver name, for messages */
    int m, nv, form;      /* form: NCP_DSHIFT_DENSE, _SADDLE or _LOWRANK (resolved) */
    ncp_dop op;           /* D: dense in the dense form, else as cheap as verified (core/dop.h) */
    ncp_problem dview;    /* the dense form on a problem that keeps no D: D built for the solve */
    double *D_own;
    double *d;            /* m: the current diagonal */
    double cost_dense;    /* estimated cost per iteration of each form (INFINITY: the dense form */
    double cost_saddle;   /* above NCP_DENSE_FACTOR_MAX_ROWS rows; the saddle form without primal
                             data, or form 1 forced; the low-rank form without a low-rank */
    double cost_lowrank;  /* operator or not allowed) */
    ncp_dshift_est est;   /* the chosen form's estimates */
    int unsupported;      /* the dense form above its row limit without primal data (reason in
                             err): the caller reports UNSUPPORTED */
    /* dense and low-rank forms */
    ncp_dop_shift N;      /* D + diag(d), factorised (Cholesky, or Woodbury's capacitance) */
    /* saddle form */
    int sparse_a;         /* A from A_sparse (block route) */
    double *K;            /* nv x nv Cholesky factor of A + J_E^T d_E^{-1} J_E (dense K) */
    int sparse_k;         /* 1: K kept sparse instead (hs, on the fixed pattern, analysed once) */
    ncp_sap_hess hs;
    double *G9;           /* 9 per block: the G that hs scatters */
    ncp_csr Aown;         /* a dense A's non-zeros as CSR, for a sparse K */
    unsigned char *isb;   /* m: 1 on B rows */
    int nb;               /* B rows */
    int *brow;            /* nb: their indices */
    double *KJb;          /* nv x nb: K^{-1} J_B^T */
    double *Sb;           /* nb x nb Cholesky factor of J_B K^{-1} J_B^T + d_B */
    double *tm, *tb;      /* m and nb work */
} ncp_dshift;

/* Chooses the form (opts) and builds its data; does not factorise. p needs D or primal data and
 * v_f; the saddle form needs the primal data (dense A, or A_sparse, with b, J, e), the low-rank
 * form the operator's low-rank route (dense primal data with few dofs). NCP_OK with
 * s->unsupported set (reason in err) when the dense form would exceed its row limit. */
int ncp_dshift_init(ncp_dshift *s, const char *name, const ncp_problem *p,
                    const ncp_dshift_opts *opts, ncp_error *err);
void ncp_dshift_free(ncp_dshift *s);
/* Factorises for the diagonal d (m entries > 0; copied). NCP_ERR_NUMERIC when not positive
 * definite. */
int ncp_dshift_factor(ncp_dshift *s, const double *d, ncp_error *err);
/* g = (D + diag(d))^{-1} (q - v_f) (g may be q); in the saddle form also v = A^{-1}(b + J^T g),
 * the velocity (nv entries; v may be NULL in the dense form, where it is untouched). */
int ncp_dshift_solve(ncp_dshift *s, const double *q, double *g, double *v, ncp_error *err);
/* "form saddle, K sparse: est. 3.1e+05 flops/it, dense form 3.5e+08" for the row's note (the
 * next cheapest form named). */
void ncp_dshift_describe(const ncp_dshift *s, char *buf, size_t size);

#endif
