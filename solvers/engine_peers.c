/* bullet-pgs, bullet-dantzig, bullet-lemke, dart-pgs, dart-dantzig, ode-dantzig — the boxed-LCP
 * solvers that Bullet 3.24, DART 6.12 and ODE ship, run as peers on the captured problems: the
 * descriptors, the formulation (solvers/engine_peers.h: our problem as the engines' boxed LCP)
 * and one driver. The library calls are in the C++ adapters engine_bullet.cpp and
 * engine_dart.cpp, built with -Dbullet / -Ddart; without them this file registers nothing.
 *
 * What they solve: the box-friction LCP of engine_peers.h, not the Coulomb NCP. Their answers
 * are graded on the Coulomb NCP by metrics/ like every solver's; metrics/ boxlcp_residual
 * grades the same answer on the box model, so a row shows both how well the engine solved its
 * own model and how far that model's answer is from a Coulomb one (docs/design.md, "Engine
 * peers").
 *
 * How a run goes: this process builds the engine's LCP (a dense copy of D with the engine's row
 * stride) and each solve runs in a child process (made by the spawner, util/spawner.h: it shares
 * no page with this process and reads the LCP into its own memory), which makes one call of the
 * engine's solver
 * under its iteration cap (max_iter: Bullet's PGS sweeps, DART's PGS sweeps, Lemke's pivots;
 * the Dantzig solvers have none), whose answer comes back over a pipe and is reported once (one
 * trace row), as siconos-admm's: none of these calls can report an iterate or be stopped
 * between its iterations. Why a child: ODE's assertions are compiled into Debian's library
 * (their default handler aborts), ODE's handlers are process-wide, and a run past the time
 * budget can only be ended by killing it. A child that dies is a failed row naming the signal;
 * an engine that reports failure (Dantzig's pivoting finds no solution, Bullet's answer limits,
 * an allocation) is a failed row with the engine's reason in the note.
 *
 * What is charged (docs/design.md §5.3, "Timing"): the conversion into the engine's format as
 * setup, our LCP on this thread's CPU clock and Bullet's copy into btMatrixXu on the child's
 * (setup_ms), and the engine's call alone (solveMLCP, BoxedLcpSolver::solve, dSolveLCP) on the
 * child's, charged as solve (solve_ms). The hand-over, the child's start, the pipe and the
 * parent's waits are the harness's cost and charged to no solver (ncp_run_external). While the
 * engine works the parent reads the child's CPU clock at least every 100 ms and kills it when
 * the time budget is spent (the row keeps the start point, status timeout) or the run is
 * interrupted (status stopped). Under --clock wall the row's times are elapsed time, fork and
 * round trip included.
 *
 * Iterations reported: bullet-pgs max_iter (its own stop test never fires, engine_bullet.cpp);
 * dart-pgs max_iter when it used every sweep, else 1 (its own test ended it; DART does not say
 * after how many sweeps); 1 for the others. Warm start: in->lambda0 is the start of the PGS
 * solvers; the Dantzig and Lemke solvers ignore it. Needs: dual (D, v_f).
 */
#if defined(NCP_HAVE_BULLET) || defined(NCP_HAVE_DART)

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/la.h"
#include "solvers/common.h"
#include "solvers/engine_peers.h"
#include "solvers/registry.h"
#include "util/clock.h"
#include "util/isolate.h"
#include "util/spawner.h"

/* The upper bound of a contact's normal row (and a unilateral row) per engine (engine_peers.h). */
enum { ENGINE_BULLET = 0, ENGINE_DART = 1 };
static const double bullet_normal_hi = 1e10; /* btSequentialImpulseConstraintSolver's contacts */

/* Bullet's Lemke works on dense 2m x 2m and 2m x 4m arrays (about 120 m^2 bytes) and pivots
 * through them; beyond this many rows it is declined (1000 rows: 120 MB). */
enum { LEMKE_MAX_ROWS = 1000 };

/* ODE's and DART's row stride (their dPAD): a multiple of 4. */
static int pad4(int n) { return n > 1 ? ((n - 1) | 3) + 1 : n; }

typedef struct engine_cfg {
    const ncp_solver_desc *self;
    int solver; /* ncp_engine_solver */
    int engine; /* ENGINE_* */
} engine_cfg;

static void boxlcp_free(ncp_boxlcp *l)
{
    free(l->A);
    free(l->b);
    free(l->lo);
    free(l->hi);
    free(l->findex);
}

/* The soft rows that no boxed LCP holds (c = 0, engine_peers.h): their count. */
static int fixed_soft_rows(const ncp_problem *p)
{
    int n = 0;
    for (int b = 0; b < p->nblocks; b++) n += p->blocks[b].type == NCP_SOFT && !(p->blocks[b].c > 0.0);
    return n;
}

/* Our problem as the engines' boxed LCP (engine_peers.h), row for row. */
static int boxlcp_build(const ncp_problem *p, int engine, ncp_boxlcp *l, ncp_error *err)
{
    const int m = p->m, stride = engine == ENGINE_DART ? pad4(m) : m;
    const double nhi = engine == ENGINE_BULLET ? bullet_normal_hi : INFINITY;
    memset(l, 0, sizeof *l);
    l->n = m;
    l->stride = stride;
    l->A = ncp_calloc(err, (size_t)m * (size_t)stride + 1, sizeof(double));
    l->b = ncp_malloc(err, (size_t)m + 1, sizeof(double));
    l->lo = ncp_malloc(err, (size_t)m + 1, sizeof(double));
    l->hi = ncp_malloc(err, (size_t)m + 1, sizeof(double));
    l->findex = ncp_malloc(err, (size_t)m + 1, sizeof(int));
    if (!l->A || !l->b || !l->lo || !l->hi || !l->findex) {
        boxlcp_free(l);
        return NCP_ERR_NOMEM;
    }
    /* A_ij = D_ij, row-major (D is column-major): w = A x - b is u = D lambda + v_f row for
     * row, for a non-symmetric D (an FCLib W kept as given) too */
    for (int j = 0; j < m; j++) {
        const double *col = p->D + (size_t)j * (size_t)m;
        for (int i = 0; i < m; i++) l->A[(size_t)i * (size_t)stride + j] = col[i];
    }
    for (int i = 0; i < m; i++) {
        l->b[i] = -p->vf[i];
        l->findex[i] = -1;
    }
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *bk = &p->blocks[bi];
        const int r = bk->row;
        switch (bk->type) {
        case NCP_CONTACT:
            l->lo[r] = 0.0;
            l->hi[r] = nhi;
            for (int j = 1; j < 3; j++) {
                l->lo[r + j] = -bk->mu;
                l->hi[r + j] = bk->mu;
                l->findex[r + j] = r;
            }
            break;
        case NCP_UNILATERAL:
            l->lo[r] = 0.0;
            l->hi[r] = nhi;
            break;
        case NCP_SOFT: /* c > 0 (checked): constraint force mixing 1/c */
            l->A[(size_t)r * (size_t)stride + r] += 1.0 / bk->c;
            l->b[r] -= bk->k * bk->phi / bk->c;
            l->lo[r] = -INFINITY;
            l->hi[r] = INFINITY;
            break;
        default: /* bilateral */
            l->lo[r] = -INFINITY;
            l->hi[r] = INFINITY;
            break;
        }
    }
    return NCP_OK;
}

static int engine_call(const engine_cfg *cfg, ncp_boxlcp *l, double *x, ncp_engine_call *c)
{
#ifdef NCP_HAVE_BULLET
    if (cfg->engine == ENGINE_BULLET) return ncp_engine_bullet_run(l, x, c);
#endif
#ifdef NCP_HAVE_DART
    if (cfg->engine == ENGINE_DART) return ncp_engine_dart_run(l, x, c);
#endif
    snprintf(c->msg, sizeof c->msg, "%s: its engine is not built in", cfg->self->name);
    return NCP_ENGINE_REJECTED;
}

/* What the child sends: ENG_STARTED when the engine's call begins (the adapter's `started`),
 * then ENG_DONE followed by the ncp_engine_call (solve_ms: the call alone) and x. */
enum { ENG_STARTED = 1, ENG_DONE = 2 };
typedef struct eng_msg {
    int kind;
    int rc;          /* ENG_DONE: the adapter's NCP_ENGINE_* */
    double setup_ms; /* the adapter's copy into the engine's types (thread CPU ms) */
    double cpu_ms;   /* ENG_STARTED: the child's process CPU clock as the call begins */
} eng_msg;

static void on_started(ncp_engine_call *c)
{
    const int *fd = c->ctx;
    eng_msg h = {ENG_STARTED, 0, c->setup_ms, ncp_process_cpu_ms(0)};
    if (ncp_write_all(*fd, &h, sizeof h)) _exit(3);
}

/* The child's data file (util/spawner.h): this header, then the boxed LCP's A (n x stride), b,
 * lo, hi, findex and the start x (n each). */
typedef struct eng_data {
    int n, stride;
    ncp_engine_call call;
} eng_data;

/* Reads n items of `size` bytes into a fresh block; NULL when short. */
static void *read_array(int fd, size_t n, size_t size)
{
    void *a = malloc(n * size + 1);
    if (a && ncp_read_all(fd, a, n * size) != n * size) {
        free(a);
        a = NULL;
    }
    return a;
}

/* The child (util/spawner.h: forked from the spawner, sharing no page with the measuring
 * process): reads the LCP the parent built into its own memory (the engine writes A in place:
 * pages shared with the parent would be copied on that first write, inside the timed call),
 * makes one engine call, sends the outcome to fd. Never returns. */
static void child_job(void *arg, int fd, int data_fd, const volatile int *interrupt)
{
    (void)interrupt; /* ignored: the parent ends the child */
    const engine_cfg *cfg = arg;
    eng_data d;
    if (ncp_read_all(data_fd, &d, sizeof d) != sizeof d || d.n <= 0 || d.stride < d.n) _exit(3);
    const size_t n = (size_t)d.n;
    ncp_boxlcp l = {d.n, d.stride, read_array(data_fd, n * (size_t)d.stride, sizeof(double)),
                    read_array(data_fd, n, sizeof(double)), read_array(data_fd, n, sizeof(double)),
                    read_array(data_fd, n, sizeof(double)), read_array(data_fd, n, sizeof(int))};
    double *x = read_array(data_fd, n, sizeof(double));
    if (!l.A || !l.b || !l.lo || !l.hi || !l.findex || !x) _exit(3);
    close(data_fd);
    ncp_engine_call *c = &d.call;
    c->started = on_started;
    c->ctx = &fd;
    int rc = engine_call(cfg, &l, x, c);
    eng_msg h = {ENG_DONE, rc, c->setup_ms, 0.0};
    if (ncp_write_all(fd, &h, sizeof h) || ncp_write_all(fd, c, sizeof *c) ||
        ncp_write_all(fd, x, n * sizeof(double)))
        _exit(3);
    _exit(0);
}

/* The LCP and the call into the child's data file. */
static int write_data(const ncp_boxlcp *l, const ncp_engine_call *c, const double *x, int fd)
{
    eng_data d = {l->n, l->stride, *c};
    const size_t n = (size_t)l->n;
    return ncp_write_all(fd, &d, sizeof d) ||
           ncp_write_all(fd, l->A, n * (size_t)l->stride * sizeof(double)) ||
           ncp_write_all(fd, l->b, n * sizeof(double)) ||
           ncp_write_all(fd, l->lo, n * sizeof(double)) ||
           ncp_write_all(fd, l->hi, n * sizeof(double)) ||
           ncp_write_all(fd, l->findex, n * sizeof(int)) ||
           ncp_write_all(fd, x, n * sizeof(double));
}

/* Builds the engine's LCP (setup, on this thread's clock) and hands it to a child, whose answer
 * goes to the harness. What is charged (engine_peers.h, the header above): the conversion as
 * setup (here, and the adapter's copy in the child), the engine's call as solve, each on the CPU
 * clock of the thread doing it; the hand-over and the waits are the harness's
 * (ncp_run_external). *k, *status and x as for the harness; returns NCP_OK or NCP_ERR_NUMERIC
 * (the engine rejected the problem or died: a failed row with the reason). */
static int run_engine(const engine_cfg *cfg, const ncp_solve_in *in, const double opt[2],
                      ncp_run *run, double *x, const double *start, int *k, int *status,
                      ncp_error *err)
{
    const ncp_problem *p = in->prob;
    const int m = p->m;
    const char *name = cfg->self->name;
    ncp_engine_call c;
    memset(&c, 0, sizeof c);
    c.solver = cfg->solver;
    c.max_iter = in->budget.max_iter;
    c.opt[0] = opt[0];
    c.opt[1] = opt[1];
    ncp_boxlcp l;
    if (boxlcp_build(p, cfg->engine, &l, err)) return NCP_ERR_NOMEM;
    const int cpu = ncp_run_external(run); /* from here this thread only hands over and waits */
    int fds[2] = {-1, -1}, data = -1, rc = NCP_OK;
    ncp_spawned child = {-1, -1};
    if (pipe(fds))
        rc = ncp_error_set(err, NCP_ERR_INTERNAL, "%s: pipe: %s", name, strerror(errno));
    else if ((data = ncp_spawn_data_file(name, err)) < 0)
        rc = NCP_ERR_INTERNAL;
    else if (write_data(&l, &c, x, data))
        rc = ncp_error_set(err, NCP_ERR_INTERNAL, "%s: cannot write the problem for its "
                           "process: %s", name, strerror(errno));
    else
        rc = ncp_spawn(child_job, (void *)cfg, fds[1], data, 1, &child, err);
    boxlcp_free(&l);
    if (data >= 0) close(data);
    if (fds[1] >= 0) close(fds[1]);
    if (rc) {
        if (fds[0] >= 0) close(fds[0]);
        return rc;
    }
    const int pid = child.pid;
    int started = 0, got = 0, wst = 0;
    double from = 0.0; /* the child's CPU clock where the pending work began (0: its fork) */
    eng_msg h;
    memset(&h, 0, sizeof h);
    for (;;) {
        if (ncp_peer_wait(run, in->budget.time_ms, cpu, fds[0], pid, from)) {
            /* out of time, or interrupted: the engine's answer is never seen; the start point
             * is the row's answer (status timeout, or stopped), unless the setup used it all */
            ncp_spawn_reap(&child, 1, NULL);
            close(fds[0]);
            if (!started && ncp_run_setup_done(run)) return NCP_OK;
            *k = 1;
            ncp_solver_iter_end(run, *k, m, start, 0, status);
            ncp_copy(m, start, x);
            return NCP_OK;
        }
        if (ncp_read_all(fds[0], &h, sizeof h) != sizeof h) break; /* the child died */
        if (!started) { /* the conversion: setup */
            started = 1;
            (void)ncp_run_add_cpu_ms(run, h.setup_ms);
            if (ncp_run_setup_done(run)) { /* the time budget is spent */
                ncp_spawn_reap(&child, 1, NULL);
                close(fds[0]);
                return NCP_OK;
            }
        }
        if (h.kind == ENG_STARTED) {
            from = h.cpu_ms;
            continue;
        }
        got = h.kind == ENG_DONE && ncp_read_all(fds[0], &c, sizeof c) == sizeof c &&
              ncp_read_all(fds[0], x, (size_t)m * sizeof(double)) == (size_t)m * sizeof(double);
        break;
    }
    close(fds[0]);
    ncp_spawn_reap(&child, !got, &wst);
    if (got) (void)ncp_run_add_cpu_ms(run, c.solve_ms); /* the engine's call itself */
    c.msg[sizeof c.msg - 1] = '\0';
    if (!got || !WIFEXITED(wst) || WEXITSTATUS(wst) != 0) {
        ncp_copy(m, start, x);
        if (WIFSIGNALED(wst))
            return ncp_error_set(err, NCP_ERR_NUMERIC,
                                 "%s: the engine died with signal %d%s", name, WTERMSIG(wst),
                                 WTERMSIG(wst) == SIGABRT ? " (an abort inside the engine)" : "");
        return ncp_error_set(err, NCP_ERR_NUMERIC, "%s: the engine's process ended abnormally",
                             name);
    }
    if (h.rc != NCP_ENGINE_SOLVED) { /* an engine out of memory too: a failed row */
        ncp_copy(m, start, x);
        return ncp_error_set(err, NCP_ERR_NUMERIC, "%s: %s", name,
                             c.msg[0] ? c.msg : "the engine reports failure");
    }
    for (int i = 0; i < m; i++)
        if (!isfinite(x[i])) { /* reported as success: a failure all the same, said so */
            double bad = x[i];
            ncp_copy(m, start, x);
            return ncp_error_set(err, NCP_ERR_NUMERIC,
                                 "%s: the engine reports success with a non-finite answer "
                                 "(x[%d] = %g)",
                                 name, i, bad);
        }
    *k = c.iterations > 0 ? c.iterations : 1;
    ncp_solver_iter_end(run, *k, m, x, 0, status);
    return NCP_OK;
}

static int engine_solve(const engine_cfg *cfg, const ncp_solve_in *in, ncp_solve_out *out,
                        ncp_run *run, ncp_error *err)
{
    const ncp_solver_desc *self = cfg->self;
    const ncp_problem *p = in->prob;
    const int m = p->m;
    int rc = ncp_solver_need_dual(self, p, err);
    if (rc) return rc;
    double opt[2] = {0.0, 0.0};
    if (cfg->solver == NCP_ENGINE_DART_PGS &&
        ((rc = ncp_solver_param_real(self, in->params, "dx_threshold", 0.0, INFINITY, 0, &opt[0],
                                     err)) ||
         (rc = ncp_solver_param_real(self, in->params, "rel_dx_tol", 0.0, INFINITY, 0, &opt[1],
                                     err))))
        return rc;
    /* problems that are not the engines': declined before running (unsupported, reason in err) */
    int fixed = fixed_soft_rows(p);
    if (fixed > 0 || (cfg->solver == NCP_ENGINE_BULLET_LEMKE && m > LEMKE_MAX_ROWS)) {
        if (fixed > 0)
            ncp_error_set(err, NCP_ERR_INPUT,
                          "%s: %d soft rows with c = 0 fix lambda = -k phi, which no boxed-LCP "
                          "row with lo <= 0 <= hi holds",
                          self->name, fixed);
        else
            ncp_error_set(err, NCP_ERR_INPUT,
                          "%s: %d rows; Bullet's Lemke works on dense 2m x 4m arrays and is run "
                          "up to %d rows",
                          self->name, m, LEMKE_MAX_ROWS);
        out->status = NCP_STATUS_UNSUPPORTED;
        out->iterations = 0;
        return NCP_OK;
    }
    int k = 0, status = -1;
    double *x = ncp_calloc(err, (size_t)m + 1, sizeof(double));
    double *start = ncp_calloc(err, (size_t)m + 1, sizeof(double));
    if (!x || !start) rc = NCP_ERR_NOMEM;
    if (!rc && in->lambda0) {
        ncp_copy(m, in->lambda0, start);
        ncp_copy(m, in->lambda0, x);
    }
    if (!rc && m == 0) { /* nothing to solve: the empty answer, without the engine */
        if (ncp_run_setup_done(run) == 0) {
            k = 1;
            ncp_solver_iter_end(run, k, 0, x, 0, &status);
        }
    } else if (!rc) {
        rc = run_engine(cfg, in, opt, run, x, start, &k, &status, err);
    }
    if (!rc) ncp_solver_finish(out, m, x, k, status);
    free(x);
    free(start);
    return rc;
}

/* ---------- descriptors ---------- */

static const ncp_param_doc no_params[] = {{NULL, 0.0, NULL}};
static const ncp_param_doc dart_pgs_params[] = {
    {"dx_threshold", 1e-6,
     "DART's mDeltaXThreshold: the first sweep ends the run when no |dx_i| exceeds it"},
    {"rel_dx_tol", 1e-3,
     "DART's mRelativeDeltaXTolerance: a later sweep ends the run when no |dx_i / x_i| exceeds "
     "it"},
    {NULL, 0.0, NULL},
};

#define ENGINE_SOLVER(CNAME, SNAME, SOLVER, ENGINE, PARAMS, SOURCE, SUMMARY)                   \
    static int CNAME##_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,        \
                             ncp_error *err);                                                  \
    const ncp_solver_desc ncp_solver_##CNAME = {                                               \
        .name = SNAME,                                                                         \
        .source = SOURCE,                                                                      \
        .summary = SUMMARY,                                                                    \
        .needs = NCP_NEEDS_DUAL,                                                               \
        .ccp = 0,                                                                              \
        .file = "solvers/engine_peers.c",                                                      \
        .params = PARAMS,                                                                      \
        .solve = CNAME##_solve,                                                                \
    };                                                                                         \
    static const engine_cfg CNAME##_cfg = {&ncp_solver_##CNAME, SOLVER, ENGINE};               \
    static int CNAME##_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,        \
                             ncp_error *err)                                                   \
    {                                                                                          \
        return engine_solve(&CNAME##_cfg, in, out, run, err);                                  \
    }

#ifdef NCP_HAVE_BULLET
ENGINE_SOLVER(bullet_pgs, "bullet-pgs", NCP_ENGINE_BULLET_PGS, ENGINE_BULLET, no_params,
              "Bullet 3.24 btSolveProjectedGaussSeidel (btMLCPSolverInterface::solveMLCP)",
              "Bullet's MLCP projected Gauss-Seidel on the box-friction LCP (engine peer): "
              "max_iter sweeps, final answer reported once")
ENGINE_SOLVER(bullet_dantzig, "bullet-dantzig", NCP_ENGINE_BULLET_DANTZIG, ENGINE_BULLET,
              no_params, "Bullet 3.24 btDantzigSolver (btSolveDantzigLCP, ODE's Dantzig)",
              "Bullet's Dantzig pivoting on the box-friction LCP (engine peer); answer "
              "reported once")
ENGINE_SOLVER(bullet_lemke, "bullet-lemke", NCP_ENGINE_BULLET_LEMKE, ENGINE_BULLET, no_params,
              "Bullet 3.24 btLemkeSolver (btLemkeAlgorithm, Kilian Grundl / MBSim)",
              "Bullet's Lemke on the boxed LCP (engine peer): ignores the friction dependency, "
              "so friction is boxed by +-mu; max_iter pivots, up to 1000 rows")
#endif
#ifdef NCP_HAVE_DART
ENGINE_SOLVER(dart_pgs, "dart-pgs", NCP_ENGINE_DART_PGS, ENGINE_DART, dart_pgs_params,
              "DART 6.12 dart::constraint::PgsBoxedLcpSolver",
              "DART's boxed-LCP projected Gauss-Seidel (engine peer): max_iter sweeps or its "
              "own dx test, final answer reported once")
ENGINE_SOLVER(dart_dantzig, "dart-dantzig", NCP_ENGINE_DART_DANTZIG, ENGINE_DART, no_params,
              "DART 6.12 dart::constraint::DantzigBoxedLcpSolver (ODE's dSolveLCP, early "
              "termination)",
              "DART's Dantzig as its constraint solver calls it (early termination: gives up "
              "when the pivoting fails) (engine peer)")
ENGINE_SOLVER(ode_dantzig, "ode-dantzig", NCP_ENGINE_ODE_DANTZIG, ENGINE_DART, no_params,
              "ODE dSolveLCP (Smith's Dantzig LCP, DART 6.12's external odelcpsolver)",
              "ODE's Dantzig as ODE's stepper calls it (no early termination: its fallbacks "
              "carry on) (engine peer)")
#endif

#else
/* ISO C forbids an empty translation unit. */
typedef int ncp_engine_peers_disabled;
#endif
