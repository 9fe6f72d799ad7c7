/* The ADMM core shared by `subadmm` (seed 000 §VI, Alg. 2) and its Table III ablations
 * `admm-nosub` (vanilla ADMM, eq. 28) and `admm-nobody` (subsystem split without the body split,
 * the paper's prior work [34]). The three differ only in how the constraints are split into
 * pieces and how the linear systems of the v-update are assembled and factorised; the z / lambda
 * updates (eqs. 35-39), the residuals (eq. 42), the penalty rule (eq. 43), its initial value
 * (§VI-D) and the reporting are the same code, so Table III compares splittings and nothing else.
 *
 *   variant   piece p of constraint i                 v-update matrix, factorisation
 *   BODY      (i, b): one per body b the row acts on   K_j = J_Bj^T blkdiag(H_b) J_Bj + diag
 *             (eq. 31), J_p = J_{i,b} J_{b,j}           (eqs. 40-41), tree Cholesky per subsystem
 *   NOBODY    (i, j): one per subsystem j it touches   K_j = A_j + beta sum_p J_p^T J_p, dense
 *             J_p = sum_{b in j} J_{i,b} J_{b,j} (30)   Cholesky per subsystem (LAPACK)
 *   NOSUB     (i): the whole row J_i                   K = A + beta J^T J (eq. 28), one dense
 *                                                      Cholesky of the whole system (LAPACK)
 *
 * See solvers/subadmm.c for the algorithm and every choice the paper leaves open.
 */
#ifndef NCP_SUBADMM_CORE_H
#define NCP_SUBADMM_CORE_H

#include "solve/solver.h"

typedef enum ncp_subadmm_variant {
    NCP_SUBADMM_BODY = 0,   /* subadmm */
    NCP_SUBADMM_NOBODY = 1, /* admm-nobody */
    NCP_SUBADMM_NOSUB = 2   /* admm-nosub */
} ncp_subadmm_variant;

typedef struct ncp_subadmm_cfg {
    int variant;        /* ncp_subadmm_variant */
    double beta0;       /* > 0, or 0 = geometric mean of the bodies' pseudo-densities (§VI-D) */
    int adaptive;       /* 1: eq. 43 after every iteration (with refactorisation); 0: fixed */
    double gamma;       /* eq. 43 threshold, > 1 */
    double beta_range;  /* beta stays in [beta0 / beta_range, beta0 beta_range], >= 1 */
    double theta_th;    /* Alg. 2 line 13: own stop when theta_p + theta_d < theta_th; 0 = off */
    int threads;        /* OpenMP threads over subsystems and constraints; 0 = OpenMP default */
} ncp_subadmm_cfg;

/* What one run did (for benchmarks and tests; the harness reports the metrics). */
typedef struct ncp_subadmm_stats {
    int iterations;     /* ADMM iterations done */
    int factorizations; /* factorisation rounds (all subsystems at one beta), setup included */
    int beta_updates;   /* eq. 43 changes of beta */
    double beta0;       /* the initial penalty used */
    double beta;        /* the penalty at the end */
    double theta_p;     /* eq. 42 at the last iteration */
    double theta_d;
    int nsub;           /* linear systems (subsystems; 1 for admm-nosub) */
    int npieces;        /* constraint pieces (slacks z_p) */
    int tree;           /* subsystems factorised along their tree (BODY; the others dense) */
    int status;         /* ncp_status: MAX_ITER after the requested iterations, STALLED when the
                           own test stopped it, FAILED on a factorisation failure or NaN */
} ncp_subadmm_stats;

/* The parameter table of all three variants (defaults documented in solvers/subadmm.c): the
 * same names and defaults, so that Table III compares splittings only. */
extern const ncp_param_doc ncp_subadmm_params[];

/* Reads the documented parameters of `self` (beta0, adaptive, gamma, beta_range, theta_th,
 * threads) into cfg, validating ranges (NCP_ERR_INPUT naming solver and parameter). */
int ncp_subadmm_read_cfg(const ncp_solver_desc *self, int variant, const ncp_params *ps,
                         ncp_subadmm_cfg *cfg, ncp_error *err);

/* The whole solve (solver.h protocol when run != NULL; else exactly max_iter iterations unless
 * the own test stops earlier). st may be NULL. */
int ncp_subadmm_solve(const ncp_solver_desc *self, const ncp_subadmm_cfg *cfg,
                      const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, int max_iter,
                      ncp_subadmm_stats *st, ncp_error *err);

/* Runs `s` (subadmm, admm-nobody or admm-nosub; anything else is NCP_ERR_INPUT) on p for
 * `iterations` iterations without the harness, from the warm start (lambda0, v0; either may be
 * NULL), with parameters ps (NULL = defaults). Writes the last iterate into lambda (m) and v
 * (nv) and the counts into *st (may be NULL). A numerical failure is reported in st->status
 * (FAILED), not as an error code. */
int ncp_subadmm_run(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps,
                    const double *lambda0, const double *v0, int iterations, double *lambda,
                    double *v, ncp_subadmm_stats *st, ncp_error *err);

/* Checks that p's structure describes p exactly, as SubADMM needs (NCP_ERR_INPUT naming the
 * first violation otherwise): the subsystems' dof ranges partition [0, nv); bodies and links
 * are in range; every row of J equals sum_b J_{i,b} J_{b,j} over the block's links; A is block
 * diagonal over the subsystems and each block equals sum_b J_{b,j}^T M_b J_{b,j} + diag(dof_diag)
 * (to a relative tolerance rtol of the largest |J| entry, of the largest diagonal entry of A).
 * Every solve of subadmm and admm-nobody runs all of it in its setup except the O(nv^2) scan of A
 * outside the diagonal blocks (more than a whole SubADMM solve costs on large systems). */
int ncp_subadmm_check_structure(const ncp_problem *p, double rtol, ncp_error *err);

#endif
