/* Rigid-body dynamics: mass matrix (CRBA), inverse dynamics (RNEA), energy, the
 * integrators' step matrices and the integration of a solved step (dynamics.c). */
#ifndef NCP_DYNAMICS_H
#define NCP_DYNAMICS_H

#include "sim/world.h"

/* Block-structured step matrices (issue 13). A model with more than NCP_BLOCK_MASS_NDOF dofs
 * (ncp_model.block_mass_ndof overrides it, e.g. for tests) keeps the step's A, its factor and the
 * midpoint iteration's mass matrix as its subsystems' diagonal blocks, packed, and the captured
 * problem carries A as a block-diagonal CSR (has_sparse_primal, assemble.h): A is block
 * diagonal over subsystems by construction (a tree's dofs never couple with another tree's), so
 * nothing is lost, and with free bodies the step needs 36 nv doubles instead of nv^2 (6 000 dofs:
 * 1.7 MB instead of 288 MB for A, again for its factor) and the Delassus product costs
 * O(m^2 * block) instead of O(nv^2 m) (ncp_sparse_chol_delassus). 600 dofs (100 free bodies) is
 * where the dense A reaches 2.9 MB and its Delassus product a tenth of a second; every shipped
 * scene is below it and keeps the dense route, bit for bit. */
#define NCP_BLOCK_MASS_NDOF 600
/* 1 when the model's steps take the block route above. */
int ncp_model_block_mass(const ncp_model *m);

/* A step matrix: dense nv x nv column-major (packed = 0), or the subsystems' diagonal blocks,
 * block j an n_j x n_j column-major array at a + off[j] (packed = 1). */
typedef struct ncp_stepmat {
    int packed;
    double *a;
    size_t *off; /* packed: nsub + 1 offsets into a */
} ncp_stepmat;
/* Doubles held by a step matrix of the model in either layout. */
size_t ncp_stepmat_count(const ncp_model *m, int packed);
int ncp_stepmat_alloc(const ncp_model *m, int packed, ncp_stepmat *A, ncp_error *err);
void ncp_stepmat_free(ncp_stepmat *A);

/* Joint-space mass matrix by the composite rigid body algorithm, armature included
 * (nv x nv, column-major). */
int ncp_world_mass_matrix(const ncp_world *w, double *M, ncp_error *err);
/* Inverse dynamics by recursive Newton-Euler: tau = M(q) qdd + C(q, v) v + g(q) at the
 * world's q, for velocities v and accelerations qdd (NULL = 0); `gravity` switches g(q) on or
 * off. Armature is included (armature qdd). */
int ncp_world_rnea(const ncp_world *w, const double *v, const double *qdd, int gravity,
                   double *tau, ncp_error *err);
/* Kinetic and potential (gravity) energy at the world's state. */
int ncp_world_energy(const ncp_world *w, double *kinetic, double *potential, ncp_error *err);
/* The step's unconstrained problem A v_hat = b (v_hat: the velocity that moves the positions):
 *   THETA (Lee et al. 2025 eq. 2):  A = M/(1 - theta) + h (D + Kd) + h^2 Kp,
 *                            b = M v_k/(1 - theta) + h (tau - bias(q_k, v_k));
 *   MIDPOINT (Castro et al. 2023 §II-D, theta = theta_vq = 1/2, unknown v_hat = (v_k + v_{k+1})/2):
 *                            A = 2 M + h (D + Kd) + h^2/2 Kp,  b = A v_hat*, v_hat* the free
 *                            implicit-midpoint velocity (chord iterations on A).
 * M includes the armature; D the joint damping; Kp, Kd the implicit controller gains
 * (controllers.c); tau the explicit actuation and wrenches. diag (nv, may be NULL) receives
 * the joint-space diagonal that A adds to the scaled body inertias (structure.dof_diag), and
 * mscale the factor on M (1/(1 - theta) or 2). */
int ncp_world_step_matrices(const ncp_world *w, double *A, double *b, double *diag,
                            double *mscale, ncp_error *err);
/* The same into a step matrix of either layout (A allocated by ncp_stepmat_alloc; same bits as
 * ncp_world_step_matrices in the dense layout). */
int ncp_world_step_matrices_sm(const ncp_world *w, ncp_stepmat *A, double *b, double *diag,
                               double *mscale, ncp_error *err);
/* x = A^{-1} y for A block diagonal over subsystems (as built above); A is not modified. */
int ncp_world_solve(const ncp_world *w, const double *A, const double *y, double *x,
                    ncp_error *err);
int ncp_world_solve_sm(const ncp_world *w, const ncp_stepmat *A, const double *y, double *x,
                       ncp_error *err);
/* Takes the solved v_hat: positions q += h v_hat (on the joint manifolds), then
 * v_{k+1} = (v_hat - theta v_k)/(1 - theta) or 2 v_hat - v_k; advances step and time. */
void ncp_world_integrate(ncp_world *w, const double *v_hat);

#endif
