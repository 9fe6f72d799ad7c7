/* The rigid-body world (private to the simulation pipeline; DESIGN.md §2).
 *
 * Like MuJoCo's mjModel / mjData split, an immutable MODEL (what the scene file describes,
 * validated and with mass properties computed) is read by every stage, and a WORLD (the state
 * that changes from step to step) flows through the stages in file order:
 *
 *   world.c     state, kinematics (shape poses), mass matrix and forces, the body Jacobian,
 *               integration of positions;
 *   collision.c broad and narrow phase -> contacts;
 *   assemble.c  contacts -> ncp_problem (A, b, J, e, blocks, geometry, structure, dual);
 *   simulate.c  one time step (collision, assembly, driver solve, integration) and the capture
 *               loop of ncp_scene_capture.
 *
 * Generalised velocities: each dynamic body owns 6 consecutive dofs (v_com, omega), both in
 * the WORLD frame: v_com is the velocity of the centre of mass, omega the angular velocity.
 * Static bodies own none. The only place that maps dofs to body motion is
 * ncp_world_body_jacobian(); a later articulated (Featherstone) world replaces it without
 * touching collision or assembly.
 */
#ifndef NCP_WORLD_H
#define NCP_WORLD_H

#include "../solvers/solver.h"
#include "ncp_error.h"
#include "problem.h"
#include "scene.h"

/* Shape types, in the order the narrow phase dispatches on (a pair is handled as (lower type,
 * higher type)). */
typedef enum ncp_shape_type {
    NCP_SHAPE_PLANE = 0,
    NCP_SHAPE_SPHERE = 1,
    NCP_SHAPE_CAPSULE = 2,
    NCP_SHAPE_BOX = 3
} ncp_shape_type;

const char *ncp_shape_type_name(int type);

/* Friction combine rules for a pair of materials without an entry in the pair table. */
typedef enum ncp_friction_combine {
    NCP_COMBINE_MIN = 0,
    NCP_COMBINE_MAX = 1,
    NCP_COMBINE_MEAN = 2,     /* arithmetic mean */
    NCP_COMBINE_GEOMETRIC = 3 /* sqrt(mu_a mu_b) */
} ncp_friction_combine;

#define NCP_NAME_MAX 64
#define NCP_BODY_NDOF 6 /* dofs of a free rigid body */

typedef struct ncp_shape_model {
    int type;            /* ncp_shape_type */
    int body;            /* owning body (index into ncp_model.bodies) */
    int material;        /* index into ncp_model.materials */
    double pos[3];       /* local pose: for a dynamic body relative to its centre of mass, */
    double quat[4];      /*   axes of the body frame; for a static body, of the body frame */
    double radius;       /* sphere, capsule */
    double half_length;  /* capsule: half length of the core segment, along local z */
    double half[3];      /* box: half extents along local x, y, z */
    double normal[3];    /* plane: unit normal in the shape frame; the solid is n.x <= offset */
    double offset;
} ncp_shape_model;

typedef struct ncp_body_model {
    char name[NCP_NAME_MAX];
    int dynamic;
    int dof;             /* first dof (dynamic) or -1 */
    double mass;         /* kg (dynamic) */
    double inertia[9];   /* about the centre of mass, body axes, kg m^2 (row-major) */
    double com_local[3]; /* centre of mass in the body frame as written in the scene */
    double pos0[3];      /* initial centre of mass (dynamic) or frame origin (static), world */
    double quat0[4];     /* initial orientation */
    double vel0[3];      /* initial COM velocity, world */
    double omega0[3];    /* initial angular velocity, world */
    double force[3];     /* constant external force at the COM, world, N */
    double torque[3];    /* constant external torque, world, N m */
    int shape0, nshapes; /* shapes[shape0 .. shape0 + nshapes) */
} ncp_body_model;

typedef struct ncp_material {
    char name[NCP_NAME_MAX];
    double friction;
} ncp_material;

typedef struct ncp_model {
    double h;               /* time step, s */
    int nsteps;             /* simulated steps of the scene's duration */
    double gravity[3];      /* m/s^2 */
    double margin;          /* contacts kept while phi < margin, m */
    double erp;             /* fraction of a penetration removed per step, [0, 1] */
    double max_recovery;    /* cap on the penetration-recovery velocity, m/s (>= 0) */
    int combine;            /* ncp_friction_combine */
    int nmaterials;
    ncp_material *materials;
    double *pair_friction;  /* nmaterials^2, symmetric; the combine rule or the pair table */
    int nbodies;
    ncp_body_model *bodies;
    int nshapes;
    ncp_shape_model *shapes;
    int nv;                 /* 6 x dynamic bodies */
    int ndynamic;
} ncp_model;

/* Volume (m^3) of a finite shape; 0 for planes. */
double ncp_shape_volume(const ncp_shape_model *s);
/* Fills mass, centre of mass, inertia and dof indices from the shapes (uniform density per
 * body; `density[b]` > 0 or `mass[b]` > 0 for every dynamic body, the other one <= 0), and
 * re-expresses the shapes of dynamic bodies relative to the centre of mass. Called once by the
 * scene loader after validation. */
int ncp_model_finalize(ncp_model *m, const double *density, const double *mass, ncp_error *err);
void ncp_model_free(ncp_model *m);

/* The scene's model (implemented in scene.c; the scene owns it). */
const ncp_model *ncp_scene_model(const ncp_scene *s);

/* A posed shape in world coordinates (what the narrow phase reads). */
typedef struct ncp_geom {
    int type;
    double pos[3];       /* centre (unused for planes) */
    double rot[9];       /* shape axes in world (row-major: world = rot * local) */
    double radius, half_length, half[3];
    double normal[3];    /* plane: world unit normal; solid is normal.x <= offset */
    double offset;
} ncp_geom;

typedef struct ncp_world {
    const ncp_model *model;
    int step;            /* steps taken */
    double time;         /* s */
    double *pos;         /* 3 x nbodies: COM (dynamic) or frame origin (static), world */
    double *quat;        /* 4 x nbodies */
    double *rot;         /* 9 x nbodies, from quat (ncp_world_kinematics) */
    double *inertia_w;   /* 9 x nbodies: R I R^T, world, about the COM */
    double *v;           /* nv generalised velocities */
    ncp_geom *geoms;     /* nshapes, posed by ncp_world_kinematics */
    /* Warm start memory of the driver (simulate.c): last step's contact impulses as world
     * vectors, keyed by (shape pair, feature). */
    int nwarm, capwarm;
    struct ncp_warm_entry *warm;
} ncp_world;

/* Creates the world in the model's initial state (kinematics done). */
int ncp_world_create(const ncp_model *m, ncp_world **out, ncp_error *err);
void ncp_world_free(ncp_world *w);
/* Recomputes rotations, world inertias and shape poses from pos/quat. */
void ncp_world_kinematics(ncp_world *w);

/* The body Jacobian: the one function that maps generalised velocities to body motion.
 * For the material point of `body` currently at world point p, its velocity is
 *     v_p = Jlin v[dofs],  and the body's angular velocity is  omega = Jang v[dofs],
 * where Jlin and Jang are 3 x ndof, row-major (row r, column k at [r * ndof + k]). Writes at
 * most NCP_BODY_NDOF dof indices (ascending) and returns ndof (0 for static bodies). */
int ncp_world_body_jacobian(const ncp_world *w, int body, const double p[3], int *dofs,
                            double *Jlin, double *Jang);

/* A = M (nv x nv, column-major, block diagonal blkdiag(m I3, R I R^T)) and
 * b = M v + h f with f = gravity + external wrench - omega x (I omega) (explicit gyroscopic
 * term). Either output may be NULL. */
void ncp_world_dynamics(const ncp_world *w, double *A, double *b);
/* v = A^{-1} b, body by body (A block diagonal as built by ncp_world_dynamics). */
int ncp_world_solve_mass(const ncp_world *w, const double *b, double *v, ncp_error *err);
/* Takes v_{k+1} and integrates positions (semi-implicit Euler): x += h v, q <- exp(h omega/2) q,
 * renormalised; advances step and time. */
void ncp_world_integrate(ncp_world *w, const double *v_next);

/* ---- accessors for tests and tools ---- */
int ncp_world_find_body(const ncp_world *w, const char *name); /* index or -1 */
/* COM position (dynamic) or frame origin (static), world. */
void ncp_world_body_position(const ncp_world *w, int body, double out[3]);
void ncp_world_body_orientation(const ncp_world *w, int body, double quat_out[4]);
/* COM velocity and angular velocity (zero for static bodies). */
void ncp_world_body_velocity(const ncp_world *w, int body, double lin[3], double ang[3]);
/* Sets the state of one body (tests); call ncp_world_kinematics afterwards. */
void ncp_world_set_body_state(ncp_world *w, int body, const double pos[3], const double quat[4],
                              const double lin[3], const double ang[3]);

/* ---- stepping (simulate.c) ---- */
typedef struct ncp_step_opts {
    const ncp_solver_desc *driver;     /* solver that computes the impulses */
    const ncp_params *params;          /* its parameters (may be NULL) */
    ncp_budget budget;
    int warm_start;                    /* 1: start from the previous step's matched impulses */
    const volatile int *interrupt;     /* may be NULL */
} ncp_step_opts;

/* Called with the assembled problem of a step that has constraint rows, before the driver
 * solves it. Return non-zero (err set) to abort the step. */
typedef int (*ncp_step_hook)(void *ctx, ncp_problem *p, ncp_error *err);

/* Per-step report, for tests and progress. */
typedef struct ncp_step_info {
    int ncontacts;
    int iterations;    /* of the driver (0 if no contacts) */
    int status;        /* driver ncp_status, or -1 if no contacts */
    double residual;   /* driver's final stopping metric (natural_map_rel_siconos), 0 if none */
    int interrupted;   /* the step was cut short by the interrupt flag; the state is unchanged */
} ncp_step_info;

/* One time step: collision -> assembly -> hook -> driver solve -> integrate. Steps without
 * contacts integrate the unconstrained motion and do not call the hook. */
int ncp_world_step(ncp_world *w, const ncp_step_opts *o, ncp_step_hook hook, void *ctx,
                   ncp_step_info *info, ncp_error *err);

#endif
