/* Shared test fixtures: seeded random problems with known structure, hand-built problems,
 * independent reference computations, and the checks every solver test makes. Before writing a
 * helper in a test, look here. */
#ifndef NCP_TESTUTIL_H
#define NCP_TESTUTIL_H

#include <stdint.h>

#include "solve/harness.h"
#include "core/problem.h"

/* Deterministic RNG (splitmix64) for tests. */
typedef struct { uint64_t s; } trng;
double trng_uniform(trng *r);            /* [0, 1) */
double trng_normal(trng *r);             /* N(0, 1) */

/* A random primal problem: nv dofs, nc contacts plus nbil bilateral, nuni unilateral and nsoft
 * soft rows; A = SPD (well conditioned), J random dense, b and e random so that some contacts
 * are open, some stick and some slide. Dual data computed. */
int tutil_random_problem(ncp_problem *p, uint64_t seed, int nv, int nc, int nbil, int nuni,
                         int nsoft, ncp_error *err);

/* A random problem of many bodies kept sparse (has_sparse_primal, as the simulator stores a pile
 * of rigid bodies): nbodies free bodies of 6 DOFs with SPD 6 x 6 mass blocks (A_sparse, block
 * diagonal), nc contacts, each touching two bodies (every fifth one body and the ground), so
 * each row of J has 12 (or 6) entries; b, e, mu as tutil_random_problem; D and v_f computed from
 * the sparse data. */
int tutil_sparse_bodies_problem(ncp_problem *p, uint64_t seed, int nbodies, int nc,
                                ncp_error *err);

/* About 5% of tutil_random_problem draws with m > nv have no solution (no v with J v + e
 * strictly inside the dual cones). This moves e (and v_f with it, keeping v_f = J A^{-1} b + e)
 * so that v = 0 is strictly feasible: bilateral e = 0, unilateral e >= 0.1, contact
 * e_n >= mu |e_t| + 0.1; soft rows are left alone. The problems keep their open / stick / slide
 * mix (driven by J A^{-1} b). */
void tutil_feasible_shift(ncp_problem *p);

/* Random problem #i of a test's seeded family: 1..8 contacts and, with mixed, 0..2 each of
 * bilateral, unilateral and soft rows, the sizes drawn from trng {family + 7919 i + 104729 mixed
 * + shape}; the problem itself is tutil_random_problem(pseed + i). shape:
 *   TUTIL_NV_FREE  nv in 6..30 (D rank-deficient when m > nv), then tutil_feasible_shift;
 *   TUTIL_NV_SPD   nv = m + 0..3, at least 6: J has full row rank, so D is SPD and every e is
 *                  strictly feasible (no shift);
 *   TUTIL_NV_FEW   nv in 3..5 and two more contacts when m < nv + 3 + n_bilateral (few dofs, many
 *                  rows), then tutil_feasible_shift.
 * rng (may be NULL) receives the family's generator after these draws, for a test's further
 * per-problem choices. Each test keeps its own family (and pseed) so its problems stay its own. */
enum { TUTIL_NV_FREE = 0, TUTIL_NV_SPD = 1, TUTIL_NV_FEW = 2 };
int tutil_random_family(ncp_problem *p, uint64_t family, uint64_t pseed, int i, int mixed,
                        int shape, trng *rng, ncp_error *err);

/* A dual-only problem (has_dual, named "analytic") with nblocks blocks of the given types
 * (types NULL: every block a contact), D = 0, v_f = 0 and mu, k, c, phi = 0 for the caller to
 * fill. */
int tutil_dual_problem(ncp_problem *p, int nblocks, const int *types, ncp_error *err);

/* One contact of friction mu with D = G (3x3, column-major) and v_f = vf, dual only. */
int tutil_one_contact(ncp_problem *p, const double G[9], const double vf[3], double mu,
                      ncp_error *err);

/* Hand-derived one-contact problems (derivations in testutil.c): D = diag(2, 0.5, 0.5), v_f = vf,
 * friction mu; ncp is the NCP's solution (with the De Saxcé term), ccp the CCP relaxation's when
 * ccp_known. */
typedef struct tutil_contact_case {
    const char *name;
    double mu, vf[3];
    double ncp[3];
    int ccp_known;
    double ccp[3];
} tutil_contact_case;
enum { TUTIL_NCONTACT_CASES = 8 };
extern const tutil_contact_case tutil_contact_cases[TUTIL_NCONTACT_CASES];
/* The dual problem of case c (tutil_one_contact). */
int tutil_contact_case_problem(ncp_problem *p, const tutil_contact_case *c, ncp_error *err);
/* For every case: builds its dual problem, checks that its answers solve it (tutil_check_solves
 * to 1e-15: the NCP's, and the CCP's when known; else the case is mis-derived), then calls
 * fn(case, problem, ctx) (which may add primal data to the problem) and frees the problem. */
typedef void (*tutil_case_fn)(const tutil_contact_case *k, ncp_problem *p, void *ctx);
void tutil_for_contact_cases(tutil_case_fn fn, void *ctx);

/* Hand-built dual problems with diagonal or 2x2 D and their solutions (derivations in
 * testutil.c):
 *   scalar blocks: bilateral, 2 unilateral, a sliding contact, a soft row (c > 0) and a rigid
 *     soft row (c = 0), m = 8; ncp and ccp (may be NULL) receive the NCP's and the CCP's
 *     solutions (they differ in the sliding contact only);
 *   coupled bilateral pair: D = [[2, 1], [1, 2]], m = 2, the NCP = CCP solution;
 *   zero diagonal: a bilateral row with D_rr = 0, v_f,r = 0 (any lambda_r solves it; the
 *     expected answer keeps lambda_r at the cold start's 0) beside a sticking contact, m = 4. */
int tutil_scalar_blocks(ncp_problem *p, double ncp[8], double ccp[8], ncp_error *err);
int tutil_coupled_bilateral(ncp_problem *p, double expect[2], ncp_error *err);
int tutil_zero_diagonal(ncp_problem *p, double expect[4], ncp_error *err);

/* ---- independent reference computations: plain loops, deliberately NOT src/core/cone.h or
 * metrics/, so that tests check those against something written separately ---- */

/* Euclidean projection onto {|x_t| <= mu x_n} (normal first), from the KKT conditions of
 * min |y - x|^2 s.t. |y_t| <= mu y_n: y = x inside the cone, 0 in the polar cone, else the
 * point of the boundary ray through x_t's direction nearest to x. */
void tutil_ref_project(double mu, const double x[3], double y[3]);

/* lambda's residuals with u = D lambda + v_f recomputed here, for the NCP (ccp = 0: contacts use
 * w = u + Gamma(u), Gamma(u) = (mu |u_t|, 0, 0)) or its CCP relaxation (ccp = 1: w = u):
 *   nat  ||F||_2 of the natural map with rho = 1 (metrics.h's conventions): bilateral u,
 *        unilateral min(lambda, u), soft lambda + k phi + c u, contact lambda - Pi_K(lambda - w);
 *   kkt  the largest violation of the sign and complementarity conditions (absolute): bilateral
 *        |u|; unilateral -lambda, -u, |lambda u|; soft |lambda + k phi + c u|; contact lambda in
 *        K (|lambda_t| - mu lambda_n, -lambda_n), w in K* (mu |u_t| - w_n), |lambda . w|.
 * Both are INFINITY if memory runs out. u_out (m, may be NULL) receives u. */
typedef struct tutil_ref {
    double nat, kkt;
} tutil_ref;
tutil_ref tutil_ref_check(const ncp_problem *p, const double *lambda, int ccp, double *u_out);
/* tutil_ref_check(p, lambda, ccp, NULL).nat */
double tutil_ref_natural_map(const ncp_problem *p, const double *lambda, int ccp);

/* max_i |a_i - b_i| */
/* The two-step reading of a problem file (store.h: ncp_load_problems_raw, then
 * ncp_problem_finish per problem, as the ranks of an MPI run read) against the one-step reading
 * of the same file (ncp_load_problems: rc_full, err_full, and its n problems q): the same code
 * and message on failure, otherwise every problem the same bit for bit. Also checks that the
 * raw reading derived nothing (no D for a problem stored by its primal data alone). */
void tutil_check_two_step_read(const char *path, int rc_full, const ncp_error *err_full,
                               const ncp_problem *q, int n);
double tutil_maxdiff(int n, const double *a, const double *b);
/* max_i |u_i - (D lambda + v_f)_i| relative to max_i (|v_f,i| + sum_j |D_ij lambda_j|), with
 * p's dense D: a kept velocity checked against an independent product. */
double tutil_velocity_error(const ncp_problem *p, const double *lambda, const double *u);
/* max_i |a_i - b_i| / max(floor, max_i |b_i|); with floor 0 and b = 0, the absolute difference */
double tutil_reldiff(size_t n, const double *a, const double *b, double floor);

/* ---- running solvers through the harness, as the benchmark runs them ---- */

/* Runs s on p (ps, lambda0 may be NULL) until natural_map_abs <= tol or max_iter iterations.
 * A harness error is printed to stderr with the solver's and the problem's names; returns its
 * code (res is then not allocated). */
int tutil_solve(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps,
                const double *lambda0, double tol, int max_iter, ncp_result *res);
/* The same with the caller's harness options and a velocity warm start v0 (may be NULL). */
int tutil_solve_opts(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps,
                     const double *lambda0, const double *v0, const ncp_harness_opts *o,
                     ncp_result *res);

/* Harness options for a peer's tests: tol on natural_map_rel_acary (Siconos's normalisation,
 * the benchmark's default stop), max_iter; the rest the defaults (an unsupported solve is an
 * error whose message says why). */
ncp_harness_opts tutil_rel_opts(double tol, int max_iter);
/* A trace callback counting its rows in *(int *)ctx. */
int tutil_count_rows(void *ctx, int iter, double elapsed_ms, const ncp_metrics *mt);

/* ps: name = v, checked (CHECK_OK). */
void tutil_param(ncp_params *ps, const char *name, double v);

/* The problem with the most rows of a quick capture of the scene file `scene` (steps > 0: that
 * many steps instead of its quick_steps), checked to have primal data and no D, into *p (the
 * caller frees it). Returns 0, or 1 after a failed CHECK. */
int tutil_capture_largest(const char *scene, int steps, ncp_problem *p);

/* ---- checks every solver test makes (each counts through tcheck.h and prints the solver and
 * the problem when it fails) ---- */

/* s on p (natural_map_abs <= tol, max_iter) ends CONVERGED after 1..max_iter iterations with
 * |lambda - expect|_inf <= lam_tol. `what` names the case in failure messages. */
void tutil_check_answer(const char *what, const ncp_solver_desc *s, const ncp_problem *p,
                        const ncp_params *ps, double tol, int max_iter, const double *expect,
                        double lam_tol);

/* res, a run of s on p to natural_map_abs <= tol, is an NCP solution to that accuracy: converged;
 * ncp_metrics_eval's natural map (ws made for p) <= tol; tutil_ref_check's map agrees with it
 * to 1e-6 relative and is <= tol; the sign and complementarity violation is <= 100 tol
 * max(1, |lambda|_inf |u|_inf). Returns the reference natural map. */
double tutil_check_ncp_answer(const ncp_solver_desc *s, const ncp_problem *p, ncp_metrics_ws *ws,
                              const ncp_result *res, double tol);

/* Warm started from a solution lambda0, s stops converged (natural_map_abs <= tol) within one
 * iteration. */
void tutil_check_warm_start(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps,
                            const double *lambda0, double tol);

/* Each of the n solvers ss, warm started from ref's solution of p (ref run to natural_map_abs
 * <= 1e-13 within 500 iterations, checked converged), passes tutil_check_warm_start at tol. */
void tutil_check_warm_starts(const ncp_solver_desc *ref, const ncp_problem *p,
                             const ncp_solver_desc *const *ss, int n, double tol);

/* Local convergence: ref's solution of p (natural_map_abs <= 1e-13 within 500 iterations, checked
 * converged) plus noise * N(0, 1) in every component (trng {noise_seed}) warm starts s, which
 * must converge (natural_map_abs <= tol) within max_iter. Returns s's iterations, max_iter + 1
 * when a run fails. (Newton with the right generalised Jacobian is quadratic from there.) */
int tutil_local_iterations(const ncp_solver_desc *ref, const ncp_solver_desc *s,
                           const ncp_problem *p, uint64_t noise_seed, double noise, double tol,
                           int max_iter);

/* lambda solves p (the NCP, or the CCP when ccp) by tutil_ref_check: natural map and sign /
 * complementarity violation both <= tol. For hand-derived answers (else the case is
 * mis-derived). */
void tutil_check_solves(const ncp_problem *p, const double *lambda, int ccp, double tol);

/* From a cold start with a tolerance no iterate reaches (1e-300), the budgets 1, 2, 3 and 5 are
 * used exactly: iterations == budget and status MAX_ITER (ps may be NULL; it must switch off any
 * own stopping test that could end these runs early). */
void tutil_check_budgets(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps);

/* Every documented default passed explicitly gives the bit-identical run of passing none (the
 * doc table and the code agree), and a second run without parameters is identical again
 * (determinism). Runs to natural_map_abs <= tol within max_iter. */
void tutil_check_param_defaults(const ncp_solver_desc *s, const ncp_problem *p, double tol,
                                int max_iter);

/* The parameter `name` = value is rejected: NCP_ERR_INPUT with a message naming the parameter
 * and the solver. */
void tutil_check_bad_param(const ncp_solver_desc *s, const ncp_problem *p, const char *name,
                           double value);

/* A problem without rows is converged after at most one iteration. */
void tutil_check_empty(const ncp_solver_desc *s);

#endif
