/* NCP report 2025 Alg. 5, the projective-splitting (block Gauss–Seidel / SOR) solver that all of NCP
 * report 2025's PGS-family configurations share (Table I: pgs-ccp, pgs-ncp, nbgs, raisim, raisim-ds,
 * raisim-ds-es). A configuration is a choice of local projector (solvers/local_contact.h), of
 * the De Saxcé estimate, and of the stopping rule; each solver file is a descriptor that sets
 * these and documents its parameters.
 *
 * One sweep visits the blocks in the assembly's order, which is NCP report 2025's joints -> limits ->
 * contacts (bilateral, unilateral, contact, soft), keeping u = D lambda + v_f current:
 *   bilateral / unilateral / soft rows: the exact scalar Gauss–Seidel solve of ncp_pgs_sweep
 *       (Alg. 5 lines 5 and 10; soft rows by their own law), relaxed by omega. The problem does
 *       not record which bilateral rows form one joint, so line 5's m_j x m_j block solve is done
 *       row by row (its Gauss–Seidel iterates converge to the same block solution).
 *   contact k (lines 15-18):
 *       c = u_k - D_kk lambda_k                         local free velocity (line 15)
 *       s = Gamma(u_k) = (mu |u_k,t|, 0, 0), or 0         De Saxcé estimate (line 16)
 *       lambda* = P(lambda_k, D_kk, c, s, mu)             Alg. 2, 3 or 4 (line 17)
 *       lambda_k <- (1 - omega) lambda_k + omega lambda*  SOR blend, eq. 145 (line 18)
 *     With local_iter > 1 the local projector is applied again with s re-estimated from the
 *     local velocity D_kk lambda* + c (successive De Saxcé approximation inside the contact).
 * omega is limited to (0, 1]: the blend after the projection is a convex combination of two
 * points of K only then (NCP report 2025 allows (0, 2]; for omega > 1 use pgs, which over-relaxes
 * inside the projection). After each sweep omega <- omega_min + omega_decay (omega - omega_min),
 * our reading of the garbled relaxation decay of line 25: the geometric decay towards a floor of
 * Le Lidec et al.'s RaiSim reimplementation (ContactBench), whose values (1, 0.7, 0.99) are the
 * defaults here (the paper gives none). On 200 seeded random problems with coupled contact
 * blocks the floor 0.7 (against none, omega_min = 1) took pgs-ncp from 5 to 0 non-converged
 * runs and pgs-ccp with desaxce = 1 from 1 to 0, for 2-8% more sweeps; omega_min = omega
 * switches the decay off.
 * For unilateral rows the relaxation is applied inside the projection (ncp_pgs_sweep's form,
 * same fixed points, identical for omega = 1).
 *
 * Stopping: the harness's common metric (NCP report 2025's (156)-(158) are evaluated by metrics/, not
 * here); the solver's own tests end the run with STALLED:
 *   - a sweep that changes lambda by <= stall_tol * max(1, |lambda|_inf) (max norm);
 *   - es_tol > 0 (raisim-ds-es): the relative objective improvement of eq. 160,
 *       r_f = |f(lambda^i) - f(lambda^{i-1})| / I_total <= es_tol,
 *     f = 1/2 lambda^T D lambda + lambda^T v_f (eq. 17a) and I_total the sum of the diagonal of
 *     the mass matrix A (MuJoCo's PGS scales its improvement by mean inertia x n_v = tr(A)).
 * Cost per sweep (ncp_gs_vel, parameter `sweep`, solvers/common.h): by default the cheaper of the
 * velocity form on sparse J, O(nnz J + nnz A^{-1} J^T) (linear in the contacts; D never read),
 * and the Delassus route (O(m^2), or O(m nv) with a low-rank D); local solves are O(1) per
 * contact. Needs the dual (D, v_f) or the primal data (A, J, e, b); warm start in->lambda0.
 */
#ifndef NCP_SPLITTING_H
#define NCP_SPLITTING_H

#include "solvers/local_contact.h"
#include "solve/solver.h"

enum {
    NCP_SPLIT_PCCP = 0, /* Alg. 2 */
    NCP_SPLIT_PNCP = 1, /* Alg. 3 */
    NCP_SPLIT_NB = 2    /* Alg. 4, exact or bisection (nb.method) */
};

typedef struct ncp_split_opts {
    int local;          /* NCP_SPLIT_* */
    ncp_nb_opts nb;     /* NB only */
    int tangent_max;    /* PNCP: 1 = tangential step 1/max(D_tt, D_oo) instead of 1/min */
    int desaxce;        /* 1: s = Gamma(u_k) (Alg. 5 line 16) */
    int local_iter;     /* >= 1 local solves per contact per sweep */
    double omega;       /* initial relaxation, (0, 1] */
    double omega_min;   /* relaxation floor, (0, 1] */
    double omega_decay; /* [0, 1) */
    double stall_tol;   /* >= 0 */
    double es_tol;      /* > 0: early stopping on eq. 160; 0: off */
    double inertia;     /* I_total of eq. 160; <= 0: tr(A), or m when the problem is dual-only */
    int sweep;          /* NCP_GS_* (solvers/common.h): how u = D lambda + v_f follows */
} ncp_split_opts;

/* The shared parameters' documentation (ncp_param_doc rows), one text for every solver file. */
#define NCP_SPLIT_DOC_OMEGA                                                                    \
    {"omega", 1.0, "initial SOR relaxation in (0, 1], blended after the local projector (eq. 145)"}
#define NCP_SPLIT_DOC_OMEGA_MIN                                                                \
    {"omega_min", 0.7,                                                                         \
     "relaxation floor in (0, 1]: omega <- omega_min + omega_decay (omega - omega_min) per sweep"}
#define NCP_SPLIT_DOC_OMEGA_DECAY                                                              \
    {"omega_decay", 0.99, "relaxation decay rate in [0, 1) (0: omega_min from the second sweep)"}
#define NCP_SPLIT_DOC_STALL_TOL                                                                \
    {"stall_tol", 1e-15,                                                                       \
     "stop (STALLED) when a sweep changes lambda by <= stall_tol * max(1, |lambda|_inf)"}
#define NCP_SPLIT_DOC_BISECT_TOL                                                               \
    {"bisect_tol", 1e-12, "bisection stops when the angle bracket is <= bisect_tol rad wide"}
#define NCP_SPLIT_DOC_LOCAL_ITER                                                               \
    {"local_iter", 1.0,                                                                        \
     "local solves per contact per sweep (integer >= 1), Gamma re-estimated between them"}

/* Defaults: omega 1, omega_min 0.7, omega_decay 0.99, local_iter 1, stall_tol 1e-15, es_tol 0
 * (off), inertia 0, desaxce 0, tangent_max 0, exact NB, bisect_tol 1e-12, 200 steps, sweep
 * NCP_GS_AUTO. */
void ncp_split_defaults(ncp_split_opts *o);

/* Reads into o every shared parameter that self's table documents (omega, omega_min,
 * omega_decay, stall_tol, local_iter, tangent_max, desaxce, bisect_tol, es_tol, inertia, sweep),
 * validating its range; parameters self does not document keep o's values. */
int ncp_split_params(const ncp_solver_desc *self, const ncp_params *ps, ncp_split_opts *o,
                     ncp_error *err);

/* Runs Alg. 5 with options o (self names the solver in errors). */
int ncp_split_solve(const ncp_solver_desc *self, const ncp_split_opts *o, const ncp_solve_in *in,
                    ncp_solve_out *out, ncp_run *run, ncp_error *err);

/* A configuration's whole solve (what each Table I solver file's solve function does): the
 * defaults, the configuration's local projector (local, and nb_method for NCP_SPLIT_NB) and
 * De Saxcé switch, then self's documented parameters (which may override desaxce) and Alg. 5. */
int ncp_split_run(const ncp_solver_desc *self, int local, int nb_method, int desaxce,
                  const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err);

#endif
