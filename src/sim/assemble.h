/* Constraint assembly (private to the simulation pipeline): the world's state, the step's
 * constraint rows and contacts -> the captured ncp_problem (problem.h, docs/design.md).
 *
 *   A, b   the integrator's step matrices (ncp_world_step_matrices)
 *   J_i    rows of the entries: lin_r . (v_p1(body1) - v_p0(body0)) + ang_r . (w(body1) -
 *          w(body0)), built through ncp_world_body_jacobian, so a contact on any link of a
 *          tree gets its Jacobian through the tree
 *   e      contact normal rows: e_n = phi / h if phi >= 0 (the gap may close in the step),
 *          max(erp phi / h, -max_recovery) if phi < 0 (Baumgarte-style recovery), e_t = 0;
 *          joint rows: constraints.c
 *
 * Blocks are ordered bilateral, unilateral, contact, soft (docs/design.md), each producer's order
 * kept within a type.
 *
 * Structure (Lee et al. 2025 §VI, Appendix A; problem.h). Subsystems are the model's trees of moving
 * bodies rooted at the ground (ncp_model.sub_*). Every moving body is a structure body, in model
 * order; its coordinates are its spatial velocity (v_c, omega): the velocity of its centre of
 * mass and its angular velocity, both in WORLD axes (linear first). Then
 *   M_b    = s blkdiag(m I_3, R I R^T)   (s = 1/(1 - theta), or 1 for the midpoint rule),
 *   J_{b,j} = the body Jacobian at the COM restricted to its subsystem's dofs (6 x n_j),
 *   J_{i,b} = +-(lin_r^T [I_3, -[p - c_b]x] + [0, ang_r^T]) per row (Lee et al. 2025 eq. 44 with
 *            COM-based coordinates; + for body[1], - for body[0]),
 *   dof_diag = the joint-space diagonal s armature + h (damping + kd) + h^2 kp terms,
 * so that A_j = sum_b J_{b,j}^T M_b J_{b,j} + diag(dof_diag_j) and
 * J_i|_j = sum_{b in j} J_{i,b} J_{b,j}. Joint limits, closures and springs are body-level rows
 * too, so every constraint reaches the solver through J_{i,b}.
 */
#ifndef NCP_ASSEMBLE_H
#define NCP_ASSEMBLE_H

#include "geometry/contact.h"
#include "sim/constraints.h"
#include "sim/dynamics.h"
#include "sim/world.h"

/* The normal row's e for a gap phi (see above). */
double ncp_contact_bias(const ncp_model *m, double phi);

/* Builds p (initialised here; free with ncp_problem_free) from the step matrices A, b (A dense:
 * p->A, has_primal; A packed per subsystem, the block route of dynamics.h: p->A_sparse
 * block-diagonal CSR, has_sparse_primal, no nv x nv array; b copied), the joint-space diagonal and the factor s on M
 * (ncp_world_step_matrices), the world's rows and the contacts: blocks, mu, soft terms,
 * contacts[] geometry, A, b, J (CSR), e, h, structure and the dual data. keys (may be NULL)
 * receives 4 ints per block: the entries' keys in block order. Provenance fields are left to
 * the caller (name, scene, step, seed, driver). */
int ncp_assemble_rows(const ncp_world *w, const ncp_stepmat *A, const double *b, const double *diag,
                      double mscale, const ncp_cons_entry *rows, int nrows, const ncp_contact *c,
                      int nc, ncp_problem *p, int *keys, ncp_error *err);

/* Everything at the world's current state: step matrices, the world's rows and the given
 * contacts (tests and tools). */
int ncp_assemble(const ncp_world *w, const ncp_contact *c, int nc, ncp_problem *p,
                 ncp_error *err);

/* The contact problem of the model's initial state: a world at q0, v0, its contacts
 * (ncp_world_collide) and ncp_assemble; what a first step would solve (tests and tools). */
int ncp_model_initial_problem(const ncp_model *m, ncp_problem *p, ncp_error *err);

#endif
