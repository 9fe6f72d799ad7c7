/* The solvers' shared toolkit: what more than one solver file needs, written once.
 *
 *   - parameters: the value of a documented parameter, its default read from the solver's own
 *     ncp_param_doc table (the one place a default is written), with range validation that names
 *     the solver and the parameter in the error;
 *   - the per-block curvature of the dual problem (1/lambda_max(D_kk), 1/D_rr) and the projected
 *     Gauss–Seidel sweep built on it (pgs iterates it; nsn-nm falls back to it);
 *   - the end of an iteration and of a run, as solver.h asks every solver to do them.
 * The algorithm behind the sweep (sources, step choice, over-relaxation) is described in the
 * header of solvers/pgs.c.
 */
#ifndef NCP_SOLVERS_COMMON_H
#define NCP_SOLVERS_COMMON_H

#include "core/dop.h"
#include "solve/solver.h"

/* Above this many rows a solver that factorises or multiplies dense m x m matrices in every
 * iteration (the dense ADMM forms, the semismooth Newton solvers on a D without low rank)
 * declines the problem: UNSUPPORTED with the reason, instead of one iteration that runs for hours
 * (m^3 / 3 flops and 8 m^2 bytes: 1.7e11 flops and 0.5 GiB at 8000 rows; Tasora et al. 2021's
 * wrecking ball has 13 260 rows at step 1). The time budget is checked between iterations only. */
#define NCP_DENSE_FACTOR_MAX_ROWS 8000

/* ---- parameters ---- */

/* Value of the documented parameter `name` of solver d: from ps if given there, else the default
 * of d's ncp_param_doc table. NaN if d does not document `name` (every range check rejects NaN). */
double ncp_solver_param(const ncp_solver_desc *d, const ncp_params *ps, const char *name);

enum {
    NCP_PARAM_LO_OPEN = 1u << 0, /* lo itself is excluded */
    NCP_PARAM_HI_OPEN = 1u << 1  /* hi itself is excluded */
};

/* A real parameter that must be finite and lie in the interval from lo to hi (ends included
 * unless `open` has NCP_PARAM_LO_OPEN / NCP_PARAM_HI_OPEN; hi = INFINITY: no upper bound).
 * Otherwise returns NCP_ERR_INPUT: "<solver>: parameter <name> = <value> must lie in (lo, hi]". */
int ncp_solver_param_real(const ncp_solver_desc *d, const ncp_params *ps, const char *name,
                          double lo, double hi, unsigned open, double *out, ncp_error *err);
/* An integer parameter in [lo, hi]; otherwise NCP_ERR_INPUT naming the solver and parameter. */
int ncp_solver_param_int(const ncp_solver_desc *d, const ncp_params *ps, const char *name, int lo,
                         int hi, int *out, ncp_error *err);

/* NCP_ERR_INPUT "<solver>: problem '<name>' has no dual data (D, v_f)" unless p has D and v_f. */
int ncp_solver_need_dual(const ncp_solver_desc *d, const ncp_problem *p, ncp_error *err);
/* The same for an NCP_NEEDS_DUAL_OP solver: v_f and a Delassus operator (D or primal data). */
int ncp_solver_need_dual_op(const ncp_solver_desc *d, const ncp_problem *p, ncp_error *err);

/* ---- projected Gauss–Seidel on the dual (u = D lambda + v_f) ---- */

/* Per-block curvature of the dual problem, computed once per solve:
 *   c_k = lambda_max(D_kk) (contact; of the symmetrised 3x3 block, by ncp_sym_eig), D_rr (others).
 * step[bi] = 1 / c_k, the Gauss–Seidel step; 0 when c_k <= 1e-14 x the largest diagonal entry of
 *   D (or <= 0): such a block does not influence its own velocity, Gauss–Seidel has no
 *   information about it and leaves its lambda as it is.
 * scale[bi] (may be NULL) = c_k, or for those negligible blocks the largest diagonal entry (1 if
 *   D = 0), so that it is always a positive normaliser (nsn-nm's rho_k = rho_scale / scale[bi]).
 * Fails (NCP_ERR_NUMERIC, message naming the block's row) only if the eigensolver fails. */
int ncp_block_steps(const ncp_problem *p, double *step, double *scale, ncp_error *err);
/* The same from the diagonal blocks dblk (9 per block, as ncp_gs_vel.dblk; NULL: p's D). */
int ncp_block_steps_diag(const ncp_problem *p, const double *dblk, double *step, double *scale,
                         ncp_error *err);
/* Largest diagonal entry of D from the diagonal blocks dblk (NULL: p's D): the scale of the
 * negligibility threshold 1e-14 x max D_ii above. */
double ncp_gs_diag_max(const ncp_problem *p, const double *dblk);

/* The velocity u = D lambda + v_f kept current through a Gauss–Seidel sweep, on one of four
 * routes:
 *   dense     u is brought up to date by one column axpy per changed row (O(m) per row, O(m^2)
 *             per sweep);
 *   low rank  D = F F^T (core/dop.h): u keeps its value from the start of the sweep and
 *             t = F^T (lambda - lambda_start) (rank entries) collects the changes; a block's
 *             current velocity is u_I + F_I t (O(rank) per row) and the end of the sweep adds
 *             F t to u: O(m rank) per sweep;
 *   nonzeros  (ncp_gs_vel_init_nonzeros) the dense D's columns, read only where they are nonzero
 *             (runs of consecutive nonzero rows found once): O(nnz(D)) per sweep, the dual
 *             Gauss–Seidel on the assembled Delassus matrix, whose cost grows with how many
 *             contacts each contact is coupled to (Lee et al. 2025 §VII-A: a large, dense D
 *             "slows down the iteration scheme");
 *   velocity  (ncp_gs_vel_setup, from the primal data; D is never read) the velocity form of
 *             rigid-body engines (Erleben 2007, ACM TOG 26(2), §4; Catto's sequential impulses):
 *             with v = A^{-1}(b + J^T lambda), u = J v + e; dv = v - v_start (nv) collects the
 *             changes, a row's current velocity is u_i + J_i dv (O(nnz J_i)) and a change of
 *             lambda_i moves dv by Y_i dlambda_i, Y = A^{-1} J^T kept sparse (core/sparse_chol.h
 *             ncp_jmap: nonzero only on the DOFs of the bodies row i touches, A being block
 *             diagonal); the end of the sweep adds J dv to u. O(2 nnz(J) + nnz(Y)) per sweep,
 *             linear in the contacts for bodies of bounded size; the diagonal blocks D_kk =
 *             J_k Y_k are computed once at setup.
 * All give the same velocities up to rounding. */
typedef struct ncp_gs_vel {
    const ncp_dop *op; /* dense, low-rank and nonzeros routes */
    double *u;       /* m: the caller's velocity (current after ncp_gs_vel_end) */
    double *t;       /* rank (low-rank route), else NULL */
    double *Ft;      /* rank x m: F^T, so that a row of F is contiguous (low-rank route) */
    size_t *run_ptr; /* m + 1 (nonzeros route), else NULL: column j's runs are
                      * run[2 run_ptr[j] .. 2 run_ptr[j+1]) */
    int *run;        /* pairs (first row, length) of the runs of nonzero entries */
    /* velocity route */
    const ncp_csr *J; /* the problem's J (borrowed) */
    ncp_jmap Y;       /* A^{-1} J^T, sparse */
    double *dv;       /* nv: v - v at the start of the sweep */
    /* ncp_gs_vel_setup only (NULL / zero after ncp_gs_vel_init) */
    int route;        /* NCP_GS_* the setup chose (never NCP_GS_AUTO) */
    ncp_dop own;      /* the Delassus operator of the dense / low-rank / nonzeros routes */
    double *dblk;     /* 9 per block: D_kk column-major (contact) or D_rr at [0] (other) */
    const double *vf; /* v_f: the problem's, or vf_own built from the primal data */
    double *vf_own;
    /* a D route on a problem that keeps no D: the problem with D built in the setup
     * (ncp_problem_dual_view), D_own its allocation */
    ncp_problem dview;
    double *D_own;
    /* the automatic choice's estimates (ncp_gs_vel_route, halved flops per sweep; 0 when the
     * route was asked for), and why it fell back to D from the velocity form (NULL: it did not) */
    double est_vel, est_del;
    const char *fallback;
    int asked; /* the route was given by `sweep`, not chosen */
} ncp_gs_vel;

/* The routes a solver of the Gauss–Seidel family can take (its `sweep` parameter). */
enum {
    NCP_GS_AUTO = 0,     /* the cheapest per sweep by the estimate of ncp_gs_vel_route */
    NCP_GS_NONZEROS = 1, /* the assembled D's nonzeros (needs D) */
    NCP_GS_DELASSUS = 2, /* the Delassus operator's route: D's columns, or F F^T (needs D) */
    NCP_GS_VELOCITY = 3  /* the velocity form on sparse J and A's blocks (needs the primal) */
};
#define NCP_GS_DOC_SWEEP                                                                       \
    {"sweep", 0.0,                                                                             \
     "how u = D lambda + v_f follows the sweep: 0 the cheapest per sweep (flops estimated from "\
     "nnz(J), A's blocks and m; the velocity form whenever its flops, weighted 1.25 for their "\
     "indexed access, cost no more than the Delassus route's); 1 the assembled D's nonzeros, O(nnz D) (a dual Gauss-Seidel on the Delassus "   \
     "matrix); 2 the Delassus operator (D's columns, or F F^T when nv << m); 3 the velocity "  \
     "form v = A^-1 (b + J^T lambda), O(nnz J + nnz A^-1 J^T), never reading D"}

/* The velocity form's flops are indexed (J's CSR rows, Y's pattern) where the Delassus route's
 * are contiguous (F's rows, D's columns): weighted by this in the automatic choice. Where the two
 * estimates tie, on the bolt-nut's problems (1.2e4 and 1.3e4 flops per sweep, one body), whole
 * sweeps on the velocity form took 1.07-1.14x those on F F^T, projections included
 * (results/REPORT.md "Lean runs"), so the routes' own per-flop ratio is above that. */
#define NCP_GS_VEL_FLOP_WEIGHT 1.25

/* The route NCP_GS_AUTO takes on p, without building anything: the velocity form when p has
 * primal data (dense A, or A_sparse, with J, e, and v_f or b) and
 * NCP_GS_VEL_FLOP_WEIGHT (2 nnz(J) + nnz(Y)) <= the
 * Delassus route's cost per sweep (m^2 for D's columns; 3 m nv for F F^T when A is dense and
 * nv <= m / 4), else NCP_GS_DELASSUS. Another sweep is returned as given. NCP_ERR_NOMEM;
 * NCP_ERR_INPUT for NCP_GS_VELOCITY without primal data. */
int ncp_gs_vel_route(const ncp_problem *p, int sweep, int *route, ncp_error *err);
/* Builds the route `sweep` (NCP_GS_*) for p, with u (m) the velocity it keeps: the diagonal
 * blocks (g->dblk), v_f (g->vf) and the route's data; g->route records the route taken.
 * The D routes need p's D and v_f (NCP_ERR_INPUT otherwise); the velocity route reads no D
 * (A factorised block by block, core/sparse_chol.h); NCP_GS_AUTO falls back to the Delassus
 * route when A is not positive definite and p has a D, or when p's D is not J A^{-1} J^T (its
 * diagonal blocks differ by more than 1e-10 of their largest diagonal entry: a regularised D;
 * skipped when p->dop_route says the operator verified D). Errors: NCP_ERR_INPUT, NCP_ERR_NUMERIC
 * (A not SPD on the velocity route), NCP_ERR_NOMEM. g must not be copied afterwards (it points
 * into itself). */
int ncp_gs_vel_setup(ncp_gs_vel *g, const ncp_problem *p, int sweep, double *u, ncp_error *err);
/* The route ncp_gs_vel_setup took, for the results' notes: "sweep velocity form: est. velocity
 * form 2.1e+04 flops/sweep, D route 7.8e+04", "sweep D low rank F F^T (r = 6): ...", "sweep D
 * columns (as asked)", "sweep D columns (no primal data for the velocity form)", with " (D is
 * not J A^-1 J^T)" or " (A is not positive definite)" when the automatic choice fell back to D. */
void ncp_gs_vel_describe(const ncp_gs_vel *g, char *buf, size_t size);
/* u = D lambda + v_f on g's route (after ncp_gs_vel_setup). */
void ncp_gs_vel_start(ncp_gs_vel *g, const double *lambda);
/* Binds u (m, = D lambda + v_f on entry to each sweep) to op: dense or low-rank route.
 * NCP_ERR_NOMEM. */
int ncp_gs_vel_init(ncp_gs_vel *g, const ncp_dop *op, double *u, ncp_error *err);
/* The nonzeros route: op must be on the dense route (NCP_DOP_DENSE: rank 0, D present), else
 * NCP_ERR_INPUT. Scans D once (O(m^2)). NCP_ERR_NOMEM. */
int ncp_gs_vel_init_nonzeros(ncp_gs_vel *g, const ncp_dop *op, double *u, ncp_error *err);
void ncp_gs_vel_free(ncp_gs_vel *g);
/* Start and end of a sweep; between them u is current only through ncp_gs_vel_get. */
void ncp_gs_vel_begin(ncp_gs_vel *g);
void ncp_gs_vel_end(ncp_gs_vel *g);
/* out[0..n-1] = the current u_{r..r+n-1}. */
void ncp_gs_vel_get(const ncp_gs_vel *g, int r, int n, double *out);
/* lambda_{r..r+n-1} changed by dl: the velocity follows (zero entries of dl cost nothing). */
void ncp_gs_vel_add(ncp_gs_vel *g, int r, int n, const double *dl);

/* One projected Gauss–Seidel sweep over the blocks in their order (solvers/pgs.c header, NCP
 * report 2025 Alg. 5): each block with step[bi] > 0 is updated from the current u, and u follows
 * (ncp_gs_vel: O(m^2) per sweep with the dense D, O(m rank) with a low-rank one). omega in
 * (0, 2) multiplies the step inside the projection; local_iter >= 1 local steps per contact (the
 * local velocity follows through the diagonal block D_kk: g->dblk when set, else p's D). lambda (m) and g->u (m, = D lambda +
 * v_f on entry) are updated in place. Returns the largest |change| of any entry of lambda. */
double ncp_pgs_sweep_vel(const ncp_problem *p, ncp_gs_vel *g, const double *step, double omega,
                         int local_iter, double *lambda);
/* The same on the dense D of p (no allocation; kept for callers without an operator). */
double ncp_pgs_sweep(const ncp_problem *p, const double *step, double omega, int local_iter,
                     double *lambda, double *u);

/* The sweep's update of one scalar block b (bilateral, unilateral or soft; step = its
 * step[bi] > 0), inside a sweep (between ncp_gs_vel_begin and _end): the exact 1-D Gauss–Seidel
 * solve with omega inside the projection, then the velocity updated. Used by the NCP report
 * 2025 splitting solvers (solvers/splitting.c). Returns |change|. */
double ncp_pgs_scalar(ncp_gs_vel *g, const ncp_block *b, double step, double omega,
                      double *lambda);

/* ---- the iteration protocol of solver.h ---- */

/* A peer's child process (siconos.c, engine_peers.c), made by ncp_spawn (util/spawner.h)
 * after ncp_run_external: the child times the peer's own calls and sends the times to be
 * charged; the parent only waits. Waits until fd has something to read (returns 0) or until the
 * solve must end while the child works (returns 1): the time budget budget_ms (<= 0: none) is
 * spent, counting the child's process CPU time since it read from_ms there (cpu = 1, the CPU
 * clock: what ncp_run_external returned; the wall clock counts the wait itself), or the run is
 * interrupted. On 1 that pending CPU time is charged (status timeout when the budget is spent);
 * the caller kills the child and reports its last answer. Looks at least every 100 ms. */
int ncp_peer_wait(ncp_run *run, double budget_ms, int cpu, int fd, int pid, double from_ms);

/* Ends iteration k (1-based) of a solver whose iterate is lambda (m entries, no v): a non-finite
 * lambda sets *status = FAILED; otherwise the iterate is reported (ncp_run_iterate) and, if the
 * harness lets the solver go on, `stalled` (the solver's own no-progress test) sets *status =
 * STALLED. Returns non-zero when the solver must stop (*status is left alone when the harness
 * decides). */
int ncp_solver_iter_end(ncp_run *run, int k, int m, const double *lambda, int stalled,
                        int *status);
/* Fills out after the last iteration k: lambda (m), no v, iterations, and status if >= 0. */
void ncp_solver_finish(ncp_solve_out *out, int m, const double *lambda, int k, int status);

/* ---- projected first-order steps on the dual (jacobi, apgd) ---- */

/* Every block law written as a fixed point lambda_b = Pi_b(lambda_b - t g_b), any t > 0:
 *   bilateral    g = u                                Pi = identity
 *   unilateral   g = u                                Pi = max(0, .)
 *   contact      g = u + Gamma(u) (desaxce = 1) or u  Pi = ncp_cone_project (NCP / CCP)
 *   soft, c > 0  g = u + (lambda + k phi) / c         Pi = identity
 *   soft, c = 0  g = 0                                Pi = {-k phi}
 * The soft row's law lambda = -k phi - c u divided by c is a compliant bilateral row: g is the
 * gradient of the CCP objective 1/2 l^T D l + v_f^T l plus l_r^2 / (2c) + k phi l_r / c, so the
 * CCP (desaxce = 0) stays a convex QP over K. lambda, u and g point at the block's first row. */
void ncp_block_gradient(const ncp_block *b, int desaxce, const double *lambda, const double *u,
                        double *g);
void ncp_block_project(const ncp_block *b, const double *x, double *out);
/* y = N x, N = D + diag(1/c) on the soft rows with c > 0: the Hessian of the CCP objective of
 * ncp_block_gradient (apgd, spg). */
void ncp_ccp_hessian_apply(const ncp_problem *p, ncp_dop *op, const double *x, double *y);

/* Steps 1 / (curvature of g_b in lambda_b) for the laws above: ncp_block_steps (0 = a block
 * without self-influence, left alone), except soft rows: 1 / (D_rr + 1/c) for c > 0 (defined
 * even when D_rr = 0), 1 for c = 0 (the projection alone sets the row). */
int ncp_block_fo_steps(const ncp_problem *p, double *step, ncp_error *err);

/* Largest eigenvalue of a symmetric positive semidefinite operator y = apply(ctx, x) on R^m by
 * power iteration from a fixed positive start vector (deterministic), stopping when the Rayleigh
 * quotient changes by <= rtol relative or after max_iter products. v and w are m-vectors of
 * work. Power iteration approaches lambda_max from below: callers that need an upper bound
 * multiply by a margin. Returns 0 for m = 0 or a zero operator. */
double ncp_power_lmax(int m, void (*apply)(void *ctx, const double *x, double *y), void *ctx,
                      int max_iter, double rtol, double *v, double *w);

/* In/out records for a run without the harness (run == NULL: ncp_al_solve_observed in al.h,
 * ncp_subadmm_run in subadmm.h): exactly `iterations` iterations, no tolerance or time budget,
 * the answer written into lambda (m) and v (nv, or NULL). */
void ncp_direct_io(const ncp_problem *p, const ncp_params *ps, int iterations,
                   const double *lambda0, const double *v0, double *lambda, double *v,
                   ncp_solve_in *in, ncp_solve_out *out);

/* Records the Delassus operator's route and its estimated cost per product (ncp_dop_describe)
 * in the row's note (ncp_run_note). */
void ncp_note_dop(ncp_run *run, const ncp_dop *op);
/* Records the Gauss-Seidel sweep's route and estimates (ncp_gs_vel_describe) in the row's note. */
void ncp_note_gs(ncp_run *run, const ncp_gs_vel *g);

#endif
