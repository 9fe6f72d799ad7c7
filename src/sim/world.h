/* The multibody world (private to the simulation pipeline; docs/design.md).
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
 *   collide.c     broad phase over the posed shapes, narrow phase (geometry/) -> contacts;
 *   constraints.c joint limits, loop closures / welds, springs -> constraint rows;
 *   assemble.c    rows and contacts -> ncp_problem (A, b, J, e, blocks, geometry, structure,
 *                 dual);
 *   step.c        one time step (the contact solve is the caller's callback, step.h).
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

#include "geometry/shape.h"
#include "util/ncp_error.h"
#include "sim/motion.h"
#include "core/problem.h"


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
    double stiffness;    /* compliant contact k, N/m (Castro et al. 2023 eq. 2); 0 = rigid (default) */
    double dissipation;  /* tau_d, s (>= 0, default 0) */
} ncp_material;

/* Loop closures, welds and springs between two bodies (body -1 = the world). Anchors are in
 * the bodies' centre-of-mass frames (body axes) or in the world for body -1. */
typedef enum ncp_link_type {
    NCP_LINK_POINT = 0,  /* ball-and-socket closure: 3 BILATERAL rows (world axes) */
    NCP_LINK_HINGE = 1,  /* revolute closure: 3 + 2 BILATERAL rows (axes stay aligned) */
    NCP_LINK_WELD = 2,   /* fixed joint in maximal form: 3 + 3 BILATERAL rows */
    NCP_LINK_SPRING = 3  /* point-to-point spring-damper: 1 SOFT row (Lee et al. 2025 eq. 4) */
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
    /* time stepping (Lee et al. 2025 eq. 2, Castro et al. 2023 §II-D) and the bias of hard rows */
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
    /* steps keep A per subsystem above this many dofs (dynamics.h; 0: NCP_BLOCK_MASS_NDOF) */
    int block_mass_ndof;
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
/* 0 if two bodies never collide: the same body, both static, bodies welded together or on
 * the two sides of one joint (welded bodies merged), bodies joined by a closure or weld
 * constraint, or two links of one robot without self-collision. */
int ncp_model_bodies_collide(const ncp_model *m, int a, int b);



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
    /* Warm start memory of the driver (step.c): last step's impulses keyed by row
     * identity (contacts: shape pair and feature, as world vectors). */
    int nwarm, capwarm;
    struct ncp_warm_entry *warm;
} ncp_world;

/* Creates the world in the model's initial state (kinematics done). */
int ncp_world_create(const ncp_model *m, ncp_world **out, ncp_error *err);
void ncp_world_free(ncp_world *w);

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

#endif
