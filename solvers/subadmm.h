/* The subsystem-based ADMM of Lee et al. 2025 (T-RO, arXiv 2502.16898, §VI, Alg. 2): `subadmm`
 * and its Table III ablations `admm-nosub` (vanilla ADMM, eq. 28) and `admm-nobody` (subsystem
 * split without the body split, the paper's prior work [34]). PUBLIC to figures and tests: the
 * family's configurations, a fixed-iteration run with its counts, and the structure check. The
 * core behind it (solvers/subadmm_core.h) is private to the family's files.
 *
 * Usage (exactly 25 iterations of subadmm, then the counts):
 *     ncp_subadmm_stats st;
 *     rc = ncp_subadmm_run(&ncp_subadmm_config_subadmm, prob, params, NULL, NULL, 25, lambda, v,
 *                          &st, &err);
 *     ... st.iterations, st.beta_updates, st.theta_p, st.theta_d ...
 */
#ifndef NCP_SOLVERS_SUBADMM_H
#define NCP_SOLVERS_SUBADMM_H

#include "solve/solver.h"

/* How the constraints are split into pieces (each with its slack z_p) and how the linear systems
 * of the v-update are assembled and factorised; everything else is common, so that Table III
 * compares splittings and nothing else:
 *
 *   split     piece p of constraint i                 v-update matrix, factorisation
 *   BODY      (i, b): one per body b the row acts on   K_j = J_Bj^T blkdiag(H_b) J_Bj + diag
 *             (eq. 31), J_p = J_{i,b} J_{b,j}           (eqs. 40-41), tree Cholesky per subsystem
 *   NOBODY    (i, j): one per subsystem j it touches   K_j = A_j + beta sum_p J_p^T J_p, dense
 *             J_p = sum_{b in j} J_{i,b} J_{b,j} (30)   Cholesky per subsystem (LAPACK)
 *   NOSUB     (i): the whole row J_i                   K = A + beta J^T J (eq. 28), one sparse
 *                                                      Cholesky of the whole system (ordered once
 *                                                      per solve), dense LAPACK when cheaper */
typedef enum ncp_subadmm_split {
    NCP_SUBADMM_BODY = 0,   /* subadmm */
    NCP_SUBADMM_NOBODY = 1, /* admm-nobody */
    NCP_SUBADMM_NOSUB = 2   /* admm-nosub */
} ncp_subadmm_split;

/* A member of the family: its solver file defines the configuration and the descriptor, whose
 * solve runs the shared core with it. */
typedef struct ncp_subadmm_config {
    const ncp_solver_desc *desc; /* the registered solver: its name in messages, its parameters */
    ncp_subadmm_split split;
} ncp_subadmm_config;

extern const ncp_subadmm_config ncp_subadmm_config_subadmm; /* solvers/subadmm.c: BODY */
extern const ncp_subadmm_config ncp_subadmm_config_nobody;  /* solvers/admm_nobody.c: NOBODY */
extern const ncp_subadmm_config ncp_subadmm_config_nosub;   /* solvers/admm_nosub.c: NOSUB */

/* What one run did (for benchmarks and tests; the harness reports the metrics). */
typedef struct ncp_subadmm_stats {
    int iterations;     /* ADMM iterations done */
    int factorizations; /* factorisation rounds (all subsystems at one beta), setup included */
    int beta_updates;   /* eq. 43 changes of beta */
    double beta0;       /* the initial penalty used */
    double mass_scale;  /* eq. 43's mass scale m* (kg) used: theta_mass, or the problem's */
    double beta;        /* the penalty at the end */
    double theta_p;     /* eq. 42 at the last iteration */
    double theta_d;
    int nsub;           /* linear systems (subsystems; 1 for admm-nosub) */
    int npieces;        /* constraint pieces (slacks z_p) */
    int tree;           /* subsystems factorised along their tree (BODY; the others dense) */
    int status;         /* ncp_status: MAX_ITER after the requested iterations, STALLED when the
                           own test stopped it, FAILED on a factorisation failure or NaN */
} ncp_subadmm_stats;

/* Runs the solver of cfg on p for `iterations` iterations (fewer if its own test stops it)
 * without the harness (no tolerance, no time budget), from the warm start (lambda0, v0; either
 * may be NULL), with parameters ps (NULL = defaults, validated against cfg->desc's table). Writes
 * the last iterate into lambda (m) and v (nv) and the counts into *st (may be NULL). The iterates
 * are those of the same solver under the harness. iterations < 1 or bad input is NCP_ERR_INPUT;
 * a numerical failure is reported in st->status (FAILED), not as an error code. */
int ncp_subadmm_run(const ncp_subadmm_config *cfg, const ncp_problem *p, const ncp_params *ps,
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
