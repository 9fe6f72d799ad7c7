/* Constraint assembly (private to the simulation pipeline): the world's state and the step's
 * contacts -> the captured ncp_problem (problem.h, DESIGN.md §4).
 *
 *   A = M,  b = M v_k + h f          (ncp_world_dynamics)
 *   J_i = frame rows . (J_point(body1) - J_point(body0))   (ncp_world_body_jacobian)
 *   e_n = phi / h                                  if phi >= 0 (the gap may close in the step)
 *       = max(erp phi / h, -max_recovery)           if phi < 0 (Baumgarte-style recovery)
 *   e_t = 0
 *
 * Blocks are ordered bilateral, unilateral, contact, soft (DESIGN.md §3). Only contact rows
 * exist for free rigid bodies; the other producers (joints, limits, springs) add their entries
 * to the same ordered list when the articulated world arrives.
 */
#ifndef NCP_ASSEMBLE_H
#define NCP_ASSEMBLE_H

#include "collision.h"
#include "world.h"

/* The normal row's e for a gap phi (see above). */
double ncp_contact_bias(const ncp_model *m, double phi);

/* Builds p (initialised here; free with ncp_problem_free) from the world and the contacts:
 * blocks, mu, contacts[] geometry, A, b, J (CSR), e, h, structure (one subsystem per dynamic
 * body) and the dual data (ncp_problem_compute_dual). Provenance fields are left to the
 * caller (name, scene, step, seed, driver). */
int ncp_assemble(const ncp_world *w, const ncp_contact *c, int nc, ncp_problem *p,
                 ncp_error *err);

#endif
