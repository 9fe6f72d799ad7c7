/* Engine peers: the boxed-LCP solvers that Bullet 3.24, DART 6.12 and ODE ship, run on the
 * captured problems (solvers/engine_peers.c: descriptors, formulation, driver; the C++
 * adapters solvers/engine_bullet.cpp and engine_dart.cpp call the libraries). This header is
 * plain C, shared by both sides; it includes nothing of ncpbench.
 *
 * The engines' problem (docs/design.md, "Engine peers"): a boxed LCP in their convention
 *     w = A x - b,   lo_i <= x_i <= hi_i,   x_i = lo_i => w_i >= 0,  x_i = hi_i => w_i <= 0,
 *     lo_i < x_i < hi_i => w_i = 0,
 * with box friction: a friction row's bounds are -+mu |x_n| of its contact's normal row n
 * (findex in ODE/DART, limitDependency in Bullet: lo = -mu, hi = mu scaled by x_n). Our problem
 * u = D lambda + v_f maps row for row, in our row order (contact blocks normal first, the
 * tangent rows t1, t2 as captured; no sign flip): A = D, b = -v_f, x = lambda, w = u.
 *   contact normal   [0, normal_hi]  (Bullet: 1e10, the limit btSequentialImpulseConstraintSolver
 *                                     gives a contact; DART/ODE: +inf, DART's ContactConstraint)
 *   contact friction [-mu, mu] x |lambda_n| (findex = the normal row)
 *   bilateral        (-inf, inf)
 *   unilateral       [0, normal_hi]
 *   soft, c > 0      the row's law lambda = -k phi - c u as a bilateral row with constraint
 *                    force mixing: A_ii += 1/c, b_i -= k phi / c (w_i = u_i + (lambda_i + k phi)
 *                    / c = 0), what ODE's CFM/ERP and Bullet's m_cfm do
 *   soft, c = 0      lambda fixed at -k phi: no box with lo <= 0 <= hi (ODE's precondition)
 *                    holds it; the problem is declined (unsupported)
 * The Coulomb cone |lambda_t| <= mu lambda_n becomes the box |lambda_tj| <= mu lambda_n per
 * direction (a square around the disk), and the De Saxcé term is absent: a box answer is a
 * Coulomb answer only where the box and the disk agree (sticking inside the disk, or sliding
 * along one tangent axis). metrics/ boxlcp_residual measures the box model's residual at any
 * lambda, natural_map_rel_acary the Coulomb one: their difference is the formulation gap.
 */
#ifndef NCP_SOLVERS_ENGINE_PEERS_H
#define NCP_SOLVERS_ENGINE_PEERS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The boxed LCP handed to an engine. Row-major A with row stride `stride` >= n (ODE and DART
 * need a multiple of 4, their dPAD; Bullet copies into its own matrix). Engines overwrite A and b
 * (ODE factorises in place): the adapters work on copies when they must keep them. */
typedef struct ncp_boxlcp {
    int n;
    int stride;
    double *A;      /* n x stride */
    double *b;      /* n */
    double *lo, *hi; /* n; a friction row holds -mu, mu (scaled by |x[findex]| in the engine) */
    int *findex;    /* n: a friction row's normal row, -1 on every other row */
} ncp_boxlcp;

/* The engine solvers (the peers' descriptors, engine_peers.c). */
typedef enum ncp_engine_solver {
    NCP_ENGINE_BULLET_PGS = 0,     /* btSolveProjectedGaussSeidel */
    NCP_ENGINE_BULLET_DANTZIG = 1, /* btDantzigSolver */
    NCP_ENGINE_BULLET_LEMKE = 2,   /* btLemkeSolver */
    NCP_ENGINE_DART_PGS = 3,       /* dart::constraint::PgsBoxedLcpSolver */
    NCP_ENGINE_DART_DANTZIG = 4,   /* dart::constraint::DantzigBoxedLcpSolver */
    NCP_ENGINE_ODE_DANTZIG = 5     /* dart::external::ode::dSolveLCP (ODE's solver) */
} ncp_engine_solver;

/* One call of an engine solver: what it gets besides the LCP and what it says. The adapter
 * times its two parts on its thread's CPU clock (CLOCK_THREAD_CPUTIME_ID): the copy into the
 * engine's own types (setup) and the engine's call itself (solve), and calls `started` between
 * them (the driver tells its parent that the engine's work begins). */
typedef struct ncp_engine_call {
    int solver;       /* ncp_engine_solver */
    int max_iter;     /* the engine's iteration cap where it has one (PGS sweeps, Lemke pivots) */
    double opt[2];    /* dart-pgs: DART's mDeltaXThreshold, mRelativeDeltaXTolerance */
    int iterations;   /* out: sweeps made when the engine tells (Bullet PGS), else 1 */
    double setup_ms;  /* out: the adapter's conversion (Bullet: into btMatrixXu), CPU ms */
    double solve_ms;  /* out: solveMLCP / BoxedLcpSolver::solve / dSolveLCP alone, CPU ms */
    void (*started)(struct ncp_engine_call *c); /* may be NULL */
    void *ctx;        /* the driver's, for started */
    char msg[240];    /* out: the engine's reason when it reports failure */
} ncp_engine_call;

/* Return values of the adapters. */
enum {
    NCP_ENGINE_SOLVED = 0, /* the engine reports success; x holds its answer */
    NCP_ENGINE_REJECTED = 1, /* the engine reports failure (msg says how); x as it left it */
    NCP_ENGINE_NOMEM = 2   /* an allocation failed (std::bad_alloc) */
};

/* Runs the engine solver c->solver on lcp from x (n, the start; DART's and ODE's Dantzig and
 * Bullet's Lemke ignore it) and leaves its answer in x. Only built with -Dbullet / -Ddart. */
int ncp_engine_bullet_run(const ncp_boxlcp *lcp, double *x, ncp_engine_call *c);
int ncp_engine_dart_run(ncp_boxlcp *lcp, double *x, ncp_engine_call *c);

#ifdef __cplusplus
}
#endif

#endif
