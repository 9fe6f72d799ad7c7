/* The captured contact problem (docs/design.md): everything any solver needs, so that a solver
 * never needs the scene.
 *
 *   primal:  A v = b + J^T lambda,  u = J v + e          (A SPD, n_v x n_v)
 *   dual:    u = D lambda + v_f,    D = J A^{-1} J^T,  v_f = J A^{-1} b + e
 *
 * Rows are grouped in blocks (docs/design.md); contact blocks are 3 rows, normal first.
 *   BILATERAL  1 row, lambda free, u = 0
 *   UNILATERAL 1 row, 0 <= lambda  _|_  u >= 0
 *   CONTACT    3 rows, K*_mu  ∋ u + Gamma(u)  _|_  lambda ∈ K_mu
 *   SOFT       1 row, lambda = -k * phi - c * u   (Lee et al. 2025 eq. 4; k, c, phi already scaled
 *              to impulse units by the integrator that built the row)
 */
#ifndef NCP_PROBLEM_H
#define NCP_PROBLEM_H

#include <stdint.h>

#include "core/la.h"
#include "util/ncp_error.h"

typedef enum ncp_block_type {
    NCP_BILATERAL = 0,
    NCP_UNILATERAL = 1,
    NCP_CONTACT = 2,
    NCP_SOFT = 3
} ncp_block_type;

const char *ncp_block_type_name(int type); /* "bilateral", ... */
int ncp_block_type_size(int type);          /* 1 or 3 */

typedef struct ncp_block {
    int type;   /* ncp_block_type */
    int row;    /* first row in lambda/u */
    double mu;  /* CONTACT: friction coefficient */
    double k;   /* SOFT: stiffness term (impulse per unit phi) */
    double c;   /* SOFT: damping term (impulse per unit velocity) */
    double phi; /* SOFT: constraint error (spring stretch) */
    int contact; /* CONTACT: index into ncp_problem.contacts, else -1 */
} ncp_block;

/* Geometry of one contact, for metrics (penetration) and for plots. */
typedef struct ncp_contact_info {
    double gap;       /* signed distance phi at the start of the step (> 0 separated) */
    double point[3];  /* world contact point */
    double frame[9];  /* rows n, t1, t2 (world), row-major: frame[0..2] = normal */
    int body[2];      /* body indices (-1 = world/static). The normal points from body[0]
                         towards body[1]: lambda_n > 0 pushes body[1] along +n, body[0] along -n */
    /* Compliant contact model of Castro et al. 2023 (eq. 2), used by SAP and the sap_* metrics
     * (src/core/sap_model.h), from the scene's materials: */
    double stiffness;   /* k, N/m, > 0; 0 = rigid (not given: the default; +inf also reads as
                           rigid, but files hold finite numbers only) */
    double dissipation; /* tau_d, s (>= 0; default 0) */
} ncp_contact_info;

/* Subsystem / body structure for SubADMM (Lee et al. 2025 §VI). Filled by src/sim/assemble.c: one subsystem
 * per tree of moving bodies rooted at the ground (a free body, a robot); body coordinates are
 * (v_c, omega), centre-of-mass velocity and angular velocity in world axes (assemble.h). Dense
 * blocks, column-major. */
typedef struct ncp_structure_body {
    int subsystem;       /* owning subsystem */
    double M[36];        /* spatial inertia in the body coordinates above (6x6) */
    int ndof;            /* = subsystem's ndof */
    double *Jb;          /* 6 x ndof body Jacobian J_{b,j} w.r.t. its subsystem's dofs */
} ncp_structure_body;

typedef struct ncp_structure_link {
    int block;           /* constraint block index */
    int body;            /* body index */
    double *Jib;         /* (block rows) x 6: J_{i,b}, so that J_i restricted to the subsystem's
                            dofs = sum_b J_{i,b} J_{b,j} */
} ncp_structure_link;

typedef struct ncp_structure {
    int nsub;
    int *sub_dof_start;  /* nsub: first dof of subsystem j in v */
    int *sub_ndof;       /* nsub */
    int nbodies;
    ncp_structure_body *bodies;
    int nlinks;
    ncp_structure_link *links;
    /* (multibody) joint-space diagonal that A adds to the body inertias (armature, implicit
     * joint damping and controller gains): A_j = sum_b J_{b,j}^T M_b J_{b,j} +
     * diag(dof_diag[sub_dof_start[j] ...]). nv entries; NULL means all zero. */
    double *dof_diag;
} ncp_structure;

typedef struct ncp_problem {
    char *name;          /* group name, e.g. "000012" */
    int nv;              /* generalised velocities (0 if dual-only) */
    int m;               /* constraint rows */
    int nblocks;
    ncp_block *blocks;
    int ncontacts;       /* number of CONTACT blocks */
    ncp_contact_info *contacts; /* ncontacts entries (may be NULL for imported problems) */
    double h;            /* time step (s); 0 if unknown */

    int has_primal;
    double *A;           /* nv x nv, column-major, SPD */
    double *b;           /* nv */
    ncp_csr J;           /* m x nv */
    double *e;           /* m */

    int has_dual;
    double *D;           /* m x m column-major (symmetric) */
    double *vf;          /* m */

    ncp_structure *structure; /* NULL if not captured */

    /* Sparse primal data (FCLib global problems, kept sparse: never an nv x nv array): the
     * FCLib M as A_sparse (nv x nv CSR) with b, J (CSR) and e as above; has_primal stays 0
     * (there is no dense A). Solvers that need the dense A are unsupported on such a problem
     * unless the user asks for the densified form, which is then recorded. */
    int has_sparse_primal;
    ncp_csr A_sparse;

    /* 1 when D is symmetric to round-off; an FCLib W is kept as given and may not be (Siconos
     * assembles it from the mechanics): solvers that need a symmetric D check this. */
    int dual_symmetric;

    /* What the source file carries besides the problem (FCLib; NULL when absent): its
     * info/title and info/description, and its first warm start (/guesses): guess_lambda (m,
     * in our row order), guess_v (nv, global problems). */
    char *title;
    char *description;
    double *guess_lambda;
    double *guess_v;

    /* provenance */
    char *scene;         /* scene name or source file */
    int step;            /* trajectory step, or -1 */
    int case_index;      /* single-step case, or -1 */
    uint64_t seed;
    char *driver;        /* solver that drove the trajectory, or "" */
} ncp_problem;

void ncp_problem_init(ncp_problem *p);
void ncp_problem_free(ncp_problem *p);
/* Allocates blocks and the row-sized arrays (e, vf, D if dual, A/b/J storage is left to the
 * caller). */
int ncp_problem_alloc_blocks(ncp_problem *p, int nblocks, ncp_error *err);
/* Recomputes row offsets (block.row), m and ncontacts from the block types. */
void ncp_problem_layout(ncp_problem *p);
/* Fills D and v_f from the primal data (sets has_dual). */
int ncp_problem_compute_dual(ncp_problem *p, ncp_error *err);
/* For dual-only input: A = I, J^T = F with D = F F^T, b = 0 and e = v_f reproduce D and v_f
 * exactly; F = Q diag(sqrt(w)) from the symmetric eigendecomposition D = Q diag(w) Q^T (exact
 * for a PSD D of any rank, where a Cholesky factor L would fail; docs/design.md). Sets
 * has_primal. */
int ncp_problem_primal_from_dual(ncp_problem *p, ncp_error *err);
/* Checks sizes, finiteness (names the offending field), mu >= 0, SPD-ness of A is left to the
 * factorisation. `where` names the source for the message (file and group). */
int ncp_problem_validate(const ncp_problem *p, const char *where, ncp_error *err);
/* Deep copy. */
int ncp_problem_copy(ncp_problem *dst, const ncp_problem *src, ncp_error *err);
/* u = D lambda + v_f (dual) or J A^{-1}(b + J^T lambda) + e (primal only). */
int ncp_problem_velocity(const ncp_problem *p, const double *lambda, double *u, ncp_error *err);
/* Structure helpers. */
void ncp_structure_free(ncp_structure *s);

#endif
