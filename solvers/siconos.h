/* Siconos numerics 4.4 (Acary, Brémond, Huber 2018) as peers: the conversion between an ncpbench
 * problem and Siconos's FrictionContactProblem, shared by the siconos-* solvers
 * (solvers/siconos.c) and their test. Only built with -Dsiconos (NCP_HAVE_SICONOS).
 *
 * Conventions: Siconos's fc3d problem is FCLib's local form u = W r + q, contact blocks
 * (n, t1, t2) normal first, cone |r_t| <= mu r_n, De Saxcé's u_n + mu |u_t|: the same as ours
 * row for row (docs/design.md §2.3-2.4), so W = D, q = v_f, r = lambda and u = D lambda + v_f
 * without sign flips or reordering inside a block. Only the order of the blocks may differ
 * (Siconos numbers contacts 0..nc-1 with rows 3i..3i+2; ours start at blocks[i].row), which
 * ncp_siconos_gather / ncp_siconos_scatter map.
 */
#ifndef NCP_SOLVERS_SICONOS_H
#define NCP_SOLVERS_SICONOS_H

#ifdef NCP_HAVE_SICONOS

#include "core/problem.h"

struct FrictionContactProblem; /* Siconos's, from FrictionContactProblem.h */
struct SolverOptions;          /* Siconos's, from SolverOptions.h */

/* Number of rows of p that are not contact rows (bilateral, unilateral, soft): Siconos's fc3d
 * solvers take contact-only problems (FCLib local form), so any such row rules them out. */
int ncp_siconos_other_rows(const ncp_problem *p);

/* Siconos's problem of the contact-only p (dual data required): dense W = D (column-major, as
 * ours), q = v_f and mu, each copied in Siconos's contact order. The caller frees it with
 * frictionContactProblem_free. NCP_ERR_NOMEM if an allocation fails. */
int ncp_siconos_problem(const ncp_problem *p, struct FrictionContactProblem **out,
                        ncp_error *err);

/* Siconos's 3D friction problem of n = 3 nc rows from a dense column-major W (n x n), q (n) and
 * mu (nc), all malloc'ed: it takes them (freed with the problem, or here when the problem cannot
 * be made; NULL arguments allowed after a failed allocation). NULL on failure. */
struct FrictionContactProblem *ncp_siconos_problem_take(int n, double *W, double *q, double *mu);

/* lambda (ours, p->m) -> r (Siconos's contact order, 3 nc), and back. */
void ncp_siconos_gather(const ncp_problem *p, const double *lambda, double *r);
void ncp_siconos_scatter(const ncp_problem *p, const double *r, double *lambda);

/* Frees a Siconos options set completely: Siconos 4.4's solver_options_delete frees a set's
 * members but neither the set itself nor its internal solvers' sets (leaves first here); a
 * callback is detached first, since it is never Siconos's to free. */
void ncp_siconos_options_free(struct SolverOptions *o);

#endif
#endif
