/* The multibody world (private to the simulation pipeline; DESIGN.md §2).
 *
 * Like MuJoCo's mjModel / mjData split, an immutable MODEL (what the scene file describes,
 * validated, with mass properties and the kinematic trees built) is read by every stage, and a
 * WORLD (the state that changes from step to step) flows through the stages in file order:
 *
 *   world.c       model: mass properties, trees, dofs, subsystems; state; accessors;
 *   kinematics.c  forward kinematics (poses, motion subspaces), body Jacobians, integration of
 *                 positions on the joint manifolds (quaternions on SO(3));
 *   dynamics.c    mass matrix (composite rigid body algorithm), bias forces (recursive
 *                 Newton-Euler), energy, the integrators' A and b;
 *   controllers.c joint impedance with waypoints, grippers, external wrench schedules;
 *   collision.c   broad and narrow phase -> contacts;
 *   constraints.c joint limits, loop closures / welds, springs -> constraint rows;
 *   assemble.c    rows and contacts -> ncp_problem (A, b, J, e, blocks, geometry, structure,
 *                 dual);
 *   simulate.c    one time step and the capture loop of ncp_scene_capture.
 *
 * Generalised coordinates (Featherstone, "Rigid Body Dynamics Algorithms", 2008). Every body
 * hangs from its parent (or from the world) by one joint: FIXED (0 dofs), REVOLUTE, PRISMATIC
 * (1), SPHERICAL (3: the relative angular velocity in world components; q is a quaternion) or
 * FREE (6, roots only: the velocity of the body's centre of mass and its angular velocity, both
 * in the world frame; q = (centre of mass, quaternion)). A free rigid body of the scene is a
 * one-body tree with a FREE joint and a static body a root with a FIXED joint, so rigid bodies
 * and robots share one code path. Dofs are numbered depth first, so every subtree owns a
 * contiguous range and a parent's dofs precede its children's.
 *
 * Spatial algebra is done in WORLD coordinates about the world origin: a motion vector is
 * (omega; v_O), v_O the velocity of the body point at the origin; a force vector is (n_O; f).
 * Each dof k has a world motion subspace column S_k, so the spatial velocity of body i is the
 * sum of S_k qdot_k over the joints on its path to the world (no coordinate transforms between
 * links: Featherstone's algorithms in a single frame).
 *
 * The only place that maps dofs to the motion of a body point is ncp_world_body_jacobian();
 * collision never sees dofs, and assembly builds every constraint row through it.
 */
#ifndef NCP_WORLD_H
#define NCP_WORLD_H

#include "../solvers/solver.h"
#include "ncp_error.h"
#include "motion.h"
#include "problem.h"
#include "scene.h"

/* Shape types, in the order the narrow phase dispatches on (a pair is handled as (lower type,
 * higher type)). */
typedef enum ncp_shape_type {
    NCP_SHAPE_PLANE = 0,
    NCP_SHAPE_SPHERE = 1,
    NCP_SHAPE_CAPSULE = 2,
    NCP_SHAPE_BOX = 3,
    NCP_SHAPE_SDF = 4 /* signed distance shape (sdf.h): bolt, nut, revolved dishes, bottle */
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
    struct ncp_sdf *sdf; /* sdf: the geometry (sdf.h), owned by the model; NULL otherwise */
} ncp_shape_model;

/* Joints (see the header comment). */
typedef enum ncp_joint_type {
    NCP_JOINT_FIXED = 0,
    NCP_JOINT_REVOLUTE = 1,
    NCP_JOINT_PRISMATIC = 2,
    NCP_JOINT_SPHERICAL = 3,
    NCP_JOINT_FREE = 4
} ncp_joint_type;

const char *ncp_joint_type_name(int type);
int ncp_joint_ndof(int type); /* 0, 1, 1, 3, 6 */
int ncp_joint_nq(int type);   /* 0, 1, 1, 4, 7 */

#define NCP_MAX_CHAIN_DOF 64 /* dofs on the path from a body to the world (checked on load) */

typedef struct ncp_body_model {
    char name[NCP_NAME_MAX];
    int dynamic;         /* 1 if the body moves: some joint on its path to the world has dofs */
    int dof;             /* first dof of its own joint, or -1 if that joint has none */
    double mass;         /* kg (0 for static scene bodies and massless links) */
    double inertia[9];   /* about the centre of mass, body axes, kg m^2 (row-major) */
    double com_local[3]; /* centre of mass in the body frame as written in the scene */
    double pos0[3];      /* initial centre of mass (body frame origin if massless), world */
    double quat0[4];     /* initial orientation of the body frame, world */
    double vel0[3];      /* FREE joint: initial COM velocity, world */
    double omega0[3];    /* FREE joint: initial angular velocity, world */
    double force[3];     /* constant external force at the COM, world, N */
    double torque[3];    /* constant external torque, world, N m */
    int shape0, nshapes; /* shapes[shape0 .. shape0 + nshapes) */
    /* the joint to the parent */
    int parent;          /* parent body, or -1 for the world */
    int joint;           /* ncp_joint_type */
    int ndof;            /* ncp_joint_ndof(joint) */
    int qpos;            /* first position coordinate in ncp_world.q, or -1 */
    double jpos[3];      /* joint frame in the parent's body frame (as written: the frame */
    double jquat[4];     /*   origin, not the COM), or in the world for roots */
    double axis[3];      /* REVOLUTE / PRISMATIC: unit axis in the joint frame */
    double q0[4];        /* initial joint position: [0] (1 dof) or a unit quaternion (spherical) */
    double qd0[3];       /* initial joint velocity: [0] (1 dof) or world components (spherical) */
    double damping;      /* viscous joint damping per dof (N m s/rad or N s/m), implicit */
    double armature;     /* rotor inertia added to the dof's diagonal of M (kg m^2 or kg) */
    int limited;         /* 1-dof joints: lower <= q <= upper enforced by UNILATERAL rows */
    double lower, upper;
    int robot;           /* owning robot, or -1 */
    int subsystem;       /* subsystem whose dofs move this body, or -1 (static) */
    ncp_motion motion;   /* static scene body: prescribed motion (motion.h); inactive = fixed */
} ncp_body_model;

typedef struct ncp_material {
    char name[NCP_NAME_MAX];
    double friction;
    double stiffness;    /* compliant contact k, N/m (seed 001 eq. 2); 0 = rigid (default) */
    double dissipation;  /* tau_d, s (>= 0, default 0) */
} ncp_material;

/* Loop closures, welds and springs between two bodies (body -1 = the world). Anchors are in
 * the bodies' centre-of-mass frames (body axes) or in the world for body -1. */
typedef enum ncp_link_type {
    NCP_LINK_POINT = 0,  /* ball-and-socket closure: 3 BILATERAL rows (world axes) */
    NCP_LINK_HINGE = 1,  /* revolute closure: 3 + 2 BILATERAL rows (axes stay aligned) */
    NCP_LINK_WELD = 2,   /* fixed joint in maximal form: 3 + 3 BILATERAL rows */
    NCP_LINK_SPRING = 3  /* point-to-point spring-damper: 1 SOFT row (seed 000 eq. 4) */
} ncp_link_type;

const char *ncp_link_type_name(int type);

typedef struct ncp_link_model {
    char name[NCP_NAME_MAX];
    int type;            /* ncp_link_type */
    int body[2];
    double anchor[2][3];
    double axis[2][3];   /* HINGE: unit axis in each body's frame */
    double rel[4];       /* WELD: body[1]'s orientation relative to body[0]'s at rest */
    double stiffness;    /* SPRING: N/m */
    double damping;      /* SPRING: N s/m */
    double rest;         /* SPRING: rest length, m */
} ncp_link_model;

/* Joint impedance controller of one robot (controllers.c). */
enum { NCP_INTERP_MINJERK = 0, NCP_INTERP_LINEAR = 1 };
#define NCP_MAX_GRIP 4

typedef struct ncp_controller_model {
    int active;
    int njoints;
    int *joints;         /* bodies whose 1-dof joints are controlled */
    double *kp, *kd;     /* per joint (N m/rad, N m s/rad or N/m, N s/m) */
    int gravity_comp;    /* add the gravity torques g(q) of the controlled dofs */
    int interp;          /* NCP_INTERP_* between waypoints */
    int nwaypoints;
    double *wp_time;     /* nwaypoints, increasing */
    double *wp_q;        /* nwaypoints x njoints */
    /* gripper: fingers move between "open" and "closed" targets on command */
    int ngrip;
    int grip[NCP_MAX_GRIP];
    double grip_open[NCP_MAX_GRIP], grip_closed[NCP_MAX_GRIP];
    double grip_kp, grip_kd, grip_time; /* gains; duration of an open/close motion (s) */
    int ncommands;
    double *cmd_time;    /* increasing */
    int *cmd_close;      /* 1 close, 0 open */
    int grip_start_closed;
} ncp_controller_model;

typedef struct ncp_robot_model {
    char name[NCP_NAME_MAX];
    int body0, nbodies;  /* its links are bodies[body0 .. body0 + nbodies) */
    int self_collision;  /* 0: links of this robot never collide with each other */
    ncp_controller_model ctrl;
} ncp_robot_model;

/* An external wrench on a body's centre of mass over [start, end) (world frame). */
typedef struct ncp_wrench_model {
    int body;
    double start, end;
    double force[3], torque[3];
} ncp_wrench_model;

enum { NCP_INTEGRATOR_THETA = 0, NCP_INTEGRATOR_MIDPOINT = 1 };

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
    int nv;                 /* generalised velocities */
    int nq;                 /* position coordinates */
    int ndynamic;           /* moving bodies */
    int *dof_body;          /* nv: the body whose joint owns each dof */
    int nsub;               /* subsystems: trees of moving bodies rooted at the ground */
    int *sub_dof_start, *sub_ndof;
    /* time stepping (seed 000 eq. 2, seed 001 §II-D) and the bias of hard rows */
    int integrator;         /* NCP_INTEGRATOR_* */
    double theta;           /* THETA: v_hat = theta v_k + (1 - theta) v_{k+1}, in [0, 1) */
    double joint_erp;       /* fraction of a closure / weld / limit violation removed per step */
    double limit_margin;    /* limit rows are added while the joint is within this of a limit */
    int nlinks;
    ncp_link_model *links;
    int nrobots;
    ncp_robot_model *robots;
    int nwrenches;
    ncp_wrench_model *wrenches;
} ncp_model;

/* Volume (m^3) of a finite shape; 0 for planes. */
double ncp_shape_volume(const ncp_shape_model *s);
/* Fills mass, centre of mass and inertia of the scene's bodies from their shapes (uniform
 * density per body; `density[b]` > 0 or `mass[b]` > 0 for every dynamic body, the other one
 * <= 0; bodies with both <= 0 keep the mass properties already set, e.g. from a robot model),
 * re-expresses the shapes relative to the centre of mass, and builds the trees
 * (ncp_model_build). Called once by the scene loader after validation. */
int ncp_model_finalize(ncp_model *m, const double *density, const double *mass, ncp_error *err);
/* Mass properties of body b from its shapes (as above); exposed for robot links. */
int ncp_model_body_mass(ncp_model *m, int b, double density, double mass, ncp_error *err);
/* Builds the trees from the bodies' parents and joints: checks that parents precede children,
 * numbers position coordinates and dofs depth first, finds the subsystems, marks the moving
 * bodies and computes the initial COM poses by forward kinematics at q0. Idempotent. */
int ncp_model_build(ncp_model *m, ncp_error *err);
void ncp_model_free(ncp_model *m);
/* The initial position coordinates (nq) of the model. */
void ncp_model_initial_q(const ncp_model *m, double *q);
/* Body frame origins (3 x nbodies) and orientations (4 x nbodies) at coordinates q, and (if
 * janchor is not NULL) the origins of the bodies' joint frames (kinematics.c). */
void ncp_model_forward_kinematics(const ncp_model *m, const double *q, double *origin, double *quat,
                                  double *janchor);
/* 0 if two bodies never collide: the same body, both static, bodies welded together or on
 * the two sides of one joint (welded bodies merged), bodies joined by a closure or weld
 * constraint, or two links of one robot without self-collision. */
int ncp_model_bodies_collide(const ncp_model *m, int a, int b);

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
    const struct ncp_sdf *sdf; /* sdf: the shape model's geometry */
} ncp_geom;

typedef struct ncp_world {
    const ncp_model *model;
    int step;            /* steps taken */
    double time;         /* s */
    double *q;           /* nq position coordinates */
    double *v;           /* nv generalised velocities */
    /* derived from q by ncp_world_kinematics: */
    double *pos;         /* 3 x nbodies: centre of mass, world (frame origin if massless) */
    double *quat;        /* 4 x nbodies: orientation of the body frame */
    double *rot;         /* 9 x nbodies, from quat */
    double *inertia_w;   /* 9 x nbodies: R I R^T, world, about the COM */
    double *janchor;     /* 3 x nbodies: origin of each body's joint frame, world */
    double *S;           /* 6 x nv: world motion subspace column (omega; v_O) of each dof */
    ncp_geom *geoms;     /* nshapes, posed by ncp_world_kinematics */
    /* Warm start memory of the driver (simulate.c): last step's impulses keyed by row
     * identity (contacts: shape pair and feature, as world vectors). */
    int nwarm, capwarm;
    struct ncp_warm_entry *warm;
} ncp_world;

/* Creates the world in the model's initial state (kinematics done). */
int ncp_world_create(const ncp_model *m, ncp_world **out, ncp_error *err);
void ncp_world_free(ncp_world *w);

/* ---- kinematics.c ---- */
/* Recomputes body poses, world inertias, motion subspaces and shape poses from q. */
void ncp_world_kinematics(ncp_world *w);
/* The body Jacobian: for the material point of `body` currently at world point p,
 *     v_p = Jlin v[dofs],  and the body's angular velocity is  omega = Jang v[dofs],
 * where Jlin and Jang are 3 x ndof, row-major (row r, column k at [r * ndof + k]). Writes the
 * dofs of the joints on the body's path to the world (ascending, at most NCP_MAX_CHAIN_DOF)
 * and returns their number (0 for static bodies). */
int ncp_world_body_jacobian(const ncp_world *w, int body, const double p[3], int *dofs,
                            double *Jlin, double *Jang);
/* q_out = q (+) h v: each joint's coordinates moved by h times its velocities (quaternions by
 * the exponential map). q_out may alias q. */
void ncp_world_advance_q(const ncp_world *w, const double *q, const double *v, double h,
                         double *q_out);
/* The spatial velocity (omega; v_O) of every body, world (6 x nbodies), for velocities v. */
void ncp_world_body_twists(const ncp_world *w, const double *v, double *twist);

/* ---- dynamics.c ---- */
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
 *   THETA (seed 000 eq. 2):  A = M/(1 - theta) + h (D + Kd) + h^2 Kp,
 *                            b = M v_k/(1 - theta) + h (tau - bias(q_k, v_k));
 *   MIDPOINT (seed 001 §II-D, theta = theta_vq = 1/2, unknown v_hat = (v_k + v_{k+1})/2):
 *                            A = 2 M + h (D + Kd) + h^2/2 Kp,  b = A v_hat*, v_hat* the free
 *                            implicit-midpoint velocity (chord iterations on A).
 * M includes the armature; D the joint damping; Kp, Kd the implicit controller gains
 * (controllers.c); tau the explicit actuation and wrenches. diag (nv, may be NULL) receives
 * the joint-space diagonal that A adds to the scaled body inertias (structure.dof_diag), and
 * mscale the factor on M (1/(1 - theta) or 2). */
int ncp_world_step_matrices(const ncp_world *w, double *A, double *b, double *diag,
                            double *mscale, ncp_error *err);
/* x = A^{-1} y for A block diagonal over subsystems (as built above); A is not modified. */
int ncp_world_solve(const ncp_world *w, const double *A, const double *y, double *x,
                    ncp_error *err);
/* Takes the solved v_hat: positions q += h v_hat (on the joint manifolds), then
 * v_{k+1} = (v_hat - theta v_k)/(1 - theta) or 2 v_hat - v_k; advances step and time. */
void ncp_world_integrate(ncp_world *w, const double *v_hat);

/* ---- controllers.c ---- */
/* Actuation at time t for the step: tau (nv, added to), and the implicit gains kp, kd (nv,
 * overwritten) with the targets qref (nv, position target of each controlled 1-dof joint) so
 * that the actuator force is kp (qref - q) + kd (vref - v) + g(q_k) with q, v those of the
 * integrator (dynamics.c); kd vref and the gravity compensation g(q_k) are added to tau. */
int ncp_world_actuation(const ncp_world *w, double t, double *tau, double *kp, double *kd,
                        double *qref, ncp_error *err);
/* The waypoint target of a controller at time t (njoints entries, and velocities). */
void ncp_controller_target(const ncp_controller_model *c, double t, double *q, double *qd);
/* Generalised forces of the external wrench schedule and constant body forces at time t,
 * added to tau (nv). */
void ncp_world_external_forces(const ncp_world *w, double t, double *tau);

/* ---- accessors for tests and tools ---- */
int ncp_world_find_body(const ncp_world *w, const char *name); /* index or -1 */
/* Centre of mass (frame origin if massless), world. */
void ncp_world_body_position(const ncp_world *w, int body, double out[3]);
void ncp_world_body_orientation(const ncp_world *w, int body, double quat_out[4]);
/* Velocity of the centre of mass and angular velocity, world (zero for static bodies). */
void ncp_world_body_velocity(const ncp_world *w, int body, double lin[3], double ang[3]);
/* Sets the state of a root body with a FREE joint (tests): pos is its centre of mass; any
 * argument may be NULL. Other bodies are left alone. Call ncp_world_kinematics afterwards. */
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
    int nrows;         /* constraint rows of the step (contacts, joints, limits, springs) */
    int iterations;    /* of the driver (0 if no rows) */
    int status;        /* driver ncp_status, or -1 if no rows */
    double residual;   /* driver's final stopping metric (natural_map_rel_siconos), 0 if none */
    int interrupted;   /* the step was cut short by the interrupt flag; the state is unchanged */
} ncp_step_info;

struct ncp_contact_list; /* collision.h */
/* All contacts of the world in its current pose, without the pairs the model excludes
 * (ncp_model_bodies_collide). */
int ncp_world_collide(const ncp_world *w, struct ncp_contact_list *out, ncp_error *err);

/* One time step: collision -> rows -> assembly -> hook -> driver solve -> integrate. Steps
 * without constraint rows integrate the unconstrained motion and do not call the hook. */
int ncp_world_step(ncp_world *w, const ncp_step_opts *o, ncp_step_hook hook, void *ctx,
                   ncp_step_info *info, ncp_error *err);

#endif
