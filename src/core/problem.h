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
#include <stdio.h>

#include "core/la.h"
#include "core/sparse_chol.h"
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

    /* D is derived data, built on demand: a problem with primal data (captured, or read from
     * problems.h5) keeps v_f (O(nnz) to compute) but not D (has_dual 0, D NULL, vf set once
     * completed); a consumer that needs the dense matrix itself builds it for as long as it
     * needs it (ncp_problem_dual_view), everything else applies D through core/dop.h. A problem
     * without primal data (FCLib local, a Siconos W) has its D as read (has_dual 1). */
    int has_dual;
    double *D;           /* m x m column-major (symmetric); NULL unless has_dual */
    double *vf;          /* m; set whenever has_dual, and on a completed primal problem */

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

    /* What the source file carries besides the problem (FCLib): its info/title and
     * info/description ("" when the file has none; NULL for problems not read from FCLib), and
     * its first warm start (/guesses/1; NULL when absent): guess_lambda (m, in our row order:
     * for a plain FCLib file the equality multipliers l, then r), guess_v (nv, global problems
     * only). A captured problem carries the simulator's state the step starts from here
     * (Lee et al. 2025 §V-D warm start): guess_v = the generalised velocity at the start of the
     * step, guess_lambda = the previous step's impulses matched to this step's rows (0 for a
     * new row; sim/step.c); both are stored in problems.h5 and exported to FCLib /guesses. */
    char *title;
    char *description;
    double *guess_lambda;
    double *guess_v;
    /* How the problem was read where the reader had to choose or to report (which reading of
     * FCLib triplets, W not symmetric, no primal form for a W whose symmetric part is not
     * positive semi-definite, how M was factorised); lines separated by "; ". NULL: nothing. */
    char *provenance_note;

    /* provenance */
    char *scene;         /* scene name or source file */
    int step;            /* trajectory step, or -1 */
    int case_index;      /* single-step case, or -1 */
    uint64_t seed;
    char *driver;        /* solver that drove the trajectory, or "" */

    /* The route ncp_dop_init (core/dop.h) takes with NCP_DOP_AUTO, decided once per problem by
     * ncp_dop_check_problem (the readers and the capture call it) instead of once per operator
     * (every solve builds two): 0 not decided (ncp_dop_init checks its route against D itself),
     * 1 low rank (checked: F F^T agrees with D), 2 sparse (checked: J A_sparse^{-1} J^T agrees
     * with D), -1 dense. Whatever changes D, A or J afterwards sets it back to 0
     * (ncp_problem_compute_dual, ncp_problem_primal_from_dual, the harness's reconstructions do). */
    int dop_route;
} ncp_problem;

void ncp_problem_init(ncp_problem *p);
void ncp_problem_free(ncp_problem *p);
/* Allocates blocks and the row-sized arrays (e, vf, D if dual, A/b/J storage is left to the
 * caller). */
int ncp_problem_alloc_blocks(ncp_problem *p, int nblocks, ncp_error *err);
/* Recomputes row offsets (block.row), m and ncontacts from the block types. */
void ncp_problem_layout(ncp_problem *p);
/* Fills D and v_f from the primal data (sets has_dual and dual_symmetric); with sparse primal
 * data only, through ncp_problem_compute_dual_sparse with its default limits. */
int ncp_problem_compute_dual(ncp_problem *p, ncp_error *err);
/* v_f = J A^{-1} b + e alone from the primal data (dense or sparse; O(nnz) beyond A's factor),
 * the same bits as ncp_problem_compute_dual's; has_dual is left as it is. A factorisation that
 * fails (A not positive definite) is NCP_ERR_NUMERIC naming the problem. */
int ncp_problem_compute_vf(ncp_problem *p, ncp_error *err);
/* D (m x m, when D is not NULL) and v_f (when vf is not NULL) from p's primal data into the
 * caller's arrays, p unchanged: the builder behind the functions above (the same bits). */
int ncp_problem_derive(const ncp_problem *p, double *D, double *vf, ncp_error *err);
/* The dense D in place, for a problem the caller owns (exports, figures, tests): nothing when p
 * has it, else ncp_problem_compute_dual. ncp_problem_drop_dual frees a D the primal data
 * define again (v_f is kept; returns 1), and leaves a D read from a file (returns 0). */
int ncp_problem_need_dual(ncp_problem *p, ncp_error *err);
int ncp_problem_drop_dual(ncp_problem *p);
/* For a consumer that needs the dense D of a problem it may not change (a solver whose
 * algorithm needs the matrix itself; docs/design.md §3.1): *view = *p, a shallow copy that
 * borrows every array of p, with D (and v_f when p has none) built from the primal data into
 * *owned, the one allocation the caller frees when done (free(*owned); never
 * ncp_problem_free(view)). When p has its D already, *owned is NULL and the view is p's. The
 * same bits as ncp_problem_compute_dual. NCP_ERR_INPUT when p has neither D nor primal data. */
int ncp_problem_dual_view(const ncp_problem *p, ncp_problem *view, double **owned,
                          ncp_error *err);
/* A as CSR: *A = &p->A_sparse when p keeps one, else the dense A's nonzero entries (its block
 * pattern) in *own, which the caller frees (ncp_csr_free; zeroed when unused). NCP_ERR_INPUT
 * when p has neither, NCP_ERR_NOMEM. */
int ncp_problem_mass_csr(const ncp_problem *p, ncp_csr *own, const ncp_csr **A, ncp_error *err);
/* D = J M^{-1} J^T and v_f = J M^{-1} b + e from the sparse primal data (A_sparse = M, b, J,
 * e; core/sparse_chol.h: M factorised block by block, never densified). opts may be NULL. Sets
 * has_dual and dual_symmetric; a note on how M was factorised goes to provenance_note. */
int ncp_problem_compute_dual_sparse(ncp_problem *p, const ncp_sparse_chol_opts *opts,
                                    ncp_error *err);
/* For dual-only input: A = I, J^T = F with S = F F^T, b = 0 and e = v_f reproduce S and v_f
 * exactly; S is D, or its symmetric part (D + D^T)/2 when D is not symmetric (the quadratic
 * form lambda^T D lambda is the same); F = Q diag(sqrt(w)) from the symmetric
 * eigendecomposition S = Q diag(w) Q^T (exact for a PSD S of any rank, where a Cholesky factor
 * would fail; docs/design.md). NCP_ERR_INPUT if S has an eigenvalue below -1e-10 max|w|, and
 * for a problem whose primal data are sparse (they are kept, not replaced). Sets has_primal. */
int ncp_problem_primal_from_dual(ncp_problem *p, ncp_error *err);
/* |D - D^T|_max <= NCP_DUAL_SYMMETRY_TOL |D|_max: sets dual_symmetric (1 when no dual data). */
#define NCP_DUAL_SYMMETRY_TOL 1e-12
void ncp_problem_set_dual_symmetric(ncp_problem *p);
/* Completes a problem just read from a file: v_f from the primal data (dense or sparse) when
 * missing (not D: built on demand; a factorisation of A that fails is NCP_ERR_INPUT, A not
 * positive definite), dual_symmetric (with a note when D is not symmetric), dop_route
 * (ncp_dop_check_problem), and, when
 * derive_primal is set and there is no primal data at all, a dense primal form from the dual
 * data (ncp_problem_primal_from_dual). A D whose symmetric part is not positive semi-definite
 * is not an error here: the problem keeps its dual form only, and provenance_note says why.
 * FCLib local problems stay dual-only (derive_primal = 0): the harness builds a primal form
 * only when asked to, and records it. */
int ncp_problem_complete(ncp_problem *p, int derive_primal, ncp_error *err);
/* Appends one line to provenance_note (printf-style). */
int ncp_problem_note(ncp_problem *p, ncp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The one validation of every problem input (problems.h5, FCLib files, captures before they
 * are stored): sizes, finiteness (names the offending field), 0 <= mu <= NCP_MU_MAX, index
 * ranges of J and A_sparse, a positive diagonal of A / A_sparse and a diagonal of D >= 0 (a
 * Delassus matrix is positive semi-definite; D = -I is refused); full SPD-ness of A is left to
 * the factorisation, PSD-ness and symmetry of D to what needs them (a primal form from D,
 * solvers that need a symmetric D: unsupported rows with the reason, as for FCLib's W).
 * `where` names the source for the message (file and group). */
/* Friction coefficients: physical ones are below 10 (rubber on dry surfaces ~1-2); up to 1e3
 * is accepted (a "no slip" modelling choice), beyond that a value such as 1e308 only overflows
 * mu * lambda_n in the cone projections. */
#define NCP_MU_MAX 1e3
int ncp_problem_validate(const ncp_problem *p, const char *where, ncp_error *err);
/* Deep copy. */
int ncp_problem_copy(ncp_problem *dst, const ncp_problem *src, ncp_error *err);
/* A problem handed to a process of the same executable (util/spawner.h: a child that shares no
 * memory with this one): ncp_problem_send writes p to f as bytes (its structs as they are, each
 * array as its length and contents; -1 when f fails), ncp_problem_receive reads it back into a
 * problem of its own (NCP_ERR_IO when short, NCP_ERR_NOMEM's case included). */
int ncp_problem_send(FILE *f, const ncp_problem *p);
int ncp_problem_receive(FILE *f, ncp_problem *p, ncp_error *err);
/* u = D lambda + v_f (dual) or J A^{-1}(b + J^T lambda) + e (dense primal data without D). */
int ncp_problem_velocity(const ncp_problem *p, const double *lambda, double *u, ncp_error *err);
/* Structure helpers. */
void ncp_structure_free(ncp_structure *s);

#endif
