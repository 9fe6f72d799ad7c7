/* siconos-* — Siconos numerics 4.4's own fc3d solvers (Acary, Brémond, Huber 2018) run as peers
 * under the harness: NSGS, NSN-AC, NSN-FB, NSN-NM, PROX, ADMM and VI-EG, each a descriptor of
 * this file sharing one driver. Built only with -Dsiconos (Debian's libsiconos-numerics-dev);
 * otherwise the file is empty and the registry lists none of them.
 *
 * What they solve: Siconos's fc3d problem, FCLib's local form W = D, q = v_f, mu, with the same
 * row conventions as ours (solvers/siconos.h): a contact-only problem. A problem with bilateral,
 * unilateral or soft rows is not theirs: the solve ends at once with status unsupported, the
 * reason (naming the count of such rows) in err.
 *
 * Siconos's own settings are its defaults (solver_options_create), except:
 *   - its iteration cap is our max_iter and its tolerance DBL_MIN, so that the harness (our
 *     metrics, our tolerance, our time budget) decides when a run ends; ADMM, which offers no
 *     way to be stopped, is the exception below;
 *   - NSGS's relaxation value is 0 with relaxation off (unused, see "stopping").
 * Every number reported comes from our metrics on the iterate handed to ncp_run_iterate;
 * Siconos's own error (normalised by max(|q|, |r|, |u|)) is never reported.
 *
 * How each one reports iterates and stops (what Siconos 4.4's sources allow; no stop jumps out
 * of Siconos):
 *   nsgs      its per-sweep callback reports the iterate. To stop, the callback switches the
 *             relaxation flag on (iparam NSGS_RELAXATION, re-read every contact): NSGS read its
 *             relaxation value (0) once at the start, so the next sweep keeps every contact as
 *             it is (r <- 0 local + 1 r), its light error is 0 and it ends there; the error
 *             evaluation is switched to LIGHT as well, so no full error is computed after the
 *             loop. Cost of a stop: one extra (no-op) sweep.
 *   nsn-*     the callback runs just before Newton's convergence test on dparam RESIDU, which
 *             NSN re-reads; writing 0 there ends the loop at once. No extra work.
 *   prox      its callback comes after each proximal step, but every quantity of its loop is
 *             local: it cannot be stopped. So each proximal step is one fc3d_driver call
 *             (max_iter 1) from the previous answer, with Siconos's own alpha schedule carried
 *             over: alpha = sigma err^nu after a successful inner solve (Siconos computes it
 *             itself at the start of a call, as its loop did at the end of the previous
 *             step), 10 alpha after a failed one (passed as a fixed alpha, the inner tolerance
 *             then set as its adaptive rule would, max(err / ratio, tol / nc)). Cost: one
 *             Siconos error evaluation per step that the uninterrupted loop does not make.
 *   vi-eg     the default (Armijo, variable step) loop has no callback in 4.4, but it returns
 *             its step size in dparam "for multiple call to the solver" (its own comment): it
 *             is called one iteration at a time. Cost: fc3d_VI_ExtraGradient's closing error
 *             evaluation (one product with W) after every iteration.
 *   admm      no callback and all state local: one call to Siconos's own stopping test
 *             (Siconos's relative error < siconos_tol, default our tol) within max_iter, and its
 *             final iterate is reported once (one trace row). The time budget cannot interrupt
 *             it. Siconos's error divides by max(|q|, |r|, |u|) >= |q| = |v_f|, so it can stop
 *             before natural_map_rel_acary reaches the same tolerance; lower siconos_tol then.
 *             (The time budget ends it all the same: see "time" below.)
 * A run that Siconos ends on its own (NSGS stagnating exactly, the trivial case r = 0 when
 * every q_n >= 0, which Siconos's driver returns without iterating) reports its final answer
 * once more if it differs from the last iterate reported; its status is then the harness's
 * default (stalled) unless the metrics say converged.
 *
 * Each solve runs Siconos in a child process (made by the spawner, util/spawner.h: it shares
 * no page with this process; it reads W, q, mu and the start from its data file), which sends
 * every iterate to this one over a socket and waits for the harness's verdict (the harness's clock runs meanwhile and pauses
 * for the metrics as for any solver). Why: Debian's Siconos 4.4 is built with its
 * assertions on, and one of them (a square root's argument >= 0 in its generated
 * Fischer-Burmeister code) fails on round-off on real problems: abort() would end the whole
 * benchmark; a dead child is a failed solve instead ("Siconos died with signal 6"), its last
 * reported iterate kept. It also confines Siconos's process-global state: its one-contact
 * Newton solvers (NSGS's local solver) keep function pointers in file-scope statics, so Siconos
 * is not reentrant, and its leaks (NM_preserve in the Newton solvers) end with the child. Its
 * `verbose` flag stays at its default 0 (never set here). A Siconos fatal error (numerics_error,
 * which would abort()) is caught with Siconos's own external jump buffer (sn_get_jmp_buf) and
 * reported as a numerical failure with its message. Cost: one child per solve (its data file: W,
 * q, mu) and a socket round trip of 3 nc doubles per iteration, all the harness's (below). Siconos's own preparations inside its
 * solvers (NSN's matrix copies, ADMM's factorisation) happen after the setup and count as
 * solve time.
 *
 * Time: the peer is timed by its own CPU time, not by the round trips. Siconos's problem and
 * options are built here (setup, on this thread's clock; the child reads them and makes the same
 * options again, uncharged); from the hand-over on this thread only relays (ncp_run_external: its CPU time is not charged). The child sends with every
 * message Siconos's work so far: its process CPU time (CLOCK_PROCESS_CPUTIME_ID: every thread of
 * it, a threaded BLAS's too) since it began, less the CPU time of its exchanges with the parent
 * (report: the copy, the write, the wait for the verdict); the parent charges it to the solver
 * clock (ncp_run_add_cpu_ms) before handing the iterate on. So under the CPU clock (the default)
 * a row's time is the conversion plus Siconos's work: the fork, the child's start and the round
 * trips are the harness's. Under --clock wall it is elapsed time, round trips included. The
 * parent waits with ncp_peer_wait (solvers/common.h): it reads the child's CPU clock at least
 * every 100 ms; a child still inside one Siconos call when the budget is spent (a PROX step,
 * ADMM's one call, a long NSN iteration) is killed there with SIGKILL, the status is timeout, the
 * answer the last iterate it reported and the note "time budget spent inside iteration k"
 * (harness); an interrupted run kills it too (status stopped). The stop mechanics above are
 * unchanged: they end a run between iterations; the kill ends one inside an iteration.
 *
 * Parameters: siconos-admm has siconos_tol; the others none. Needs: dual (D, v_f), contact-only.
 * Warm start: in->lambda0 is Siconos's initial reaction.
 */
#ifdef NCP_HAVE_SICONOS

#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <FrictionContactProblem.h>
#include <Friction_cst.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <fc3d_Solvers.h>
#include <fc3d_compute_error.h>
#include <sn_error_handling.h>

#include "core/la.h"
#include "solvers/common.h"
#include "solvers/registry.h"
#include "solvers/siconos.h"
#include "util/clock.h"
#include "util/isolate.h"
#include "util/spawner.h"

/* ---------- conversion (solvers/siconos.h) ---------- */

int ncp_siconos_other_rows(const ncp_problem *p)
{
    int n = 0;
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].type != NCP_CONTACT) n += ncp_block_type_size(p->blocks[b].type);
    return n;
}

void ncp_siconos_gather(const ncp_problem *p, const double *lambda, double *r)
{
    for (int c = 0; c < p->nblocks; c++)
        for (int a = 0; a < 3; a++) r[3 * c + a] = lambda[p->blocks[c].row + a];
}

void ncp_siconos_scatter(const ncp_problem *p, const double *r, double *lambda)
{
    for (int c = 0; c < p->nblocks; c++)
        for (int a = 0; a < 3; a++) lambda[p->blocks[c].row + a] = r[3 * c + a];
}

FrictionContactProblem *ncp_siconos_problem_take(int n, double *W, double *q, double *mu)
{
    NumericsMatrix *M = W ? NM_create_from_data(NM_DENSE, n, n, W) : NULL;
    FrictionContactProblem *fp =
        M && q && mu ? frictionContactProblem_new_with_data(3, n / 3, M, q, mu) : NULL;
    if (!fp) {
        if (M) {
            NM_clear(M);
            free(M);
        } else {
            free(W);
        }
        free(q);
        free(mu);
    }
    return fp;
}

int ncp_siconos_problem(const ncp_problem *p, FrictionContactProblem **out, ncp_error *err)
{
    const int nc = p->nblocks, n = 3 * nc;
    *out = NULL;
    /* Siconos takes ownership of W, q and mu and frees them with free(). */
    double *W = ncp_malloc(err, (size_t)n * (size_t)n + 1, sizeof(double));
    double *q = ncp_malloc(err, (size_t)n + 1, sizeof(double));
    double *mu = ncp_malloc(err, (size_t)nc + 1, sizeof(double));
    if (!W || !q || !mu) {
        free(W);
        free(q);
        free(mu);
        return NCP_ERR_NOMEM;
    }
    for (int cj = 0; cj < nc; cj++)
        for (int b = 0; b < 3; b++) {
            const double *col = p->D + (size_t)(p->blocks[cj].row + b) * (size_t)p->m;
            double *wcol = W + (size_t)(3 * cj + b) * (size_t)n;
            for (int ci = 0; ci < nc; ci++)
                for (int a = 0; a < 3; a++) wcol[3 * ci + a] = col[p->blocks[ci].row + a];
        }
    ncp_siconos_gather(p, p->vf, q);
    for (int c = 0; c < nc; c++) mu[c] = p->blocks[c].mu;
    FrictionContactProblem *fp = ncp_siconos_problem_take(n, W, q, mu);
    if (!fp) return ncp_error_set(err, NCP_ERR_NOMEM, "siconos: cannot create the Siconos problem");
    *out = fp;
    return NCP_OK;
}

/* ---------- Siconos options ---------- */

/* Siconos 4.4's solver_options_delete frees an options set's members but neither the set itself
 * nor its internal solvers' sets: free them here, leaves first. The callback is ours (on the
 * stack), so it is detached before Siconos would free() it. */
void ncp_siconos_options_free(SolverOptions *o)
{
    if (!o) return;
    for (size_t i = 0; i < o->numberOfInternalSolvers; i++) {
        ncp_siconos_options_free(o->internalSolvers[i]);
        o->internalSolvers[i] = NULL;
    }
    o->callback = NULL;
    solver_options_delete(o);
    free(o);
}

/* fc3d_driver with Siconos's fatal errors caught through its external jump buffer (it would
 * otherwise abort()). Returns Siconos's info, or -100 after a fatal error (*msg its message). */
static int driver_call(FrictionContactProblem *fp, double *r, double *v, SolverOptions *o,
                       const char **msg)
{
    if (setjmp(*sn_get_jmp_buf())) {
        *msg = sn_fatal_error_msg();
        return -100;
    }
    int info = fc3d_driver(fp, r, v, o);
    sn_release_jmp_buf();
    return info;
}

/* ---------- one driver for every descriptor ---------- */

typedef enum sic_mode {
    SIC_CALLBACK, /* one fc3d_driver call; iterates through Siconos's callback */
    SIC_STEP,     /* one fc3d_driver call per iteration (max_iter 1) */
    SIC_ONESHOT   /* one call to Siconos's own stopping test, its final iterate reported */
} sic_mode;

typedef struct sic_cfg {
    const ncp_solver_desc *self;
    int id;        /* Siconos solver id (Friction_cst.h) */
    sic_mode mode;
    void (*stop)(SolverOptions *o); /* SIC_CALLBACK: make Siconos end at its next test */
} sic_cfg;

/* Messages from the child (Siconos) to the parent (the harness) on their socket: an iterate
 * (header, then n doubles of r in Siconos's order) or the end (header, then a message). The
 * parent answers each iterate with one byte: 1 = stop. */
enum { MSG_ITERATE = 1, MSG_END = 2 };
typedef struct sic_msg {
    int kind;
    int k;    /* MSG_ITERATE: the iteration number */
    int code; /* MSG_END: 0, or 1 after a Siconos fatal error (text follows) */
    double cpu_ms;  /* Siconos's work so far: the child's process CPU time since it began,
                       less its exchanges with the parent (sic_child.io_ms) */
    double proc_ms; /* the child's process CPU clock as it sent this */
} sic_msg;

enum { SIC_TEXT = 256 };

/* Moves len bytes over the socket: reads into buf (IO_READ), or writes it, with write(2) in the
 * child (IO_WRITE) and with send(MSG_NOSIGNAL) in the parent (IO_SEND), so that a child that
 * died raises no SIGPIPE in the benchmark. 0 when done, -1 on error or end of file. */
enum { IO_READ, IO_WRITE, IO_SEND };
static int io_all(int fd, const void *buf, size_t len, int how)
{
    char *b = (char *)buf; /* written to only for IO_READ, whose callers pass a writable buffer */
    while (len > 0) {
        ssize_t n = how == IO_READ    ? read(fd, b, len)
                    : how == IO_WRITE ? write(fd, b, len)
                                      : send(fd, b, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        b += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The child's side of a run: the env of Siconos's callback. */
typedef struct sic_child {
    const sic_cfg *cfg;
    SolverOptions *opts;
    int fd;        /* the socket to the parent */
    int n;         /* 3 nc */
    double *last;  /* n: the last r sent */
    int k;         /* iterates sent */
    int stopped;   /* the parent said stop */
    double base;   /* its process CPU clock when it began (after the fork's own start) */
    double io_ms;  /* CPU time of the exchanges with the parent (report): not Siconos's */
} sic_child;

/* The header of a message sent now: Siconos's work so far and the raw clock. */
static sic_msg child_msg(const sic_child *c, int kind, int k, int code)
{
    double now = ncp_process_cpu_ms(0);
    sic_msg h = {kind, k, code, now - c->base - c->io_ms, now};
    return h;
}

/* Sends r as iterate k + 1 and waits for the parent's verdict. Returns non-zero when the run must
 * end. A parent that is gone ends the child. */
static int report(sic_child *c, const double *r)
{
    sic_msg h = child_msg(c, MSG_ITERATE, ++c->k, 0);
    unsigned char stop = 1;
    memcpy(c->last, r, (size_t)c->n * sizeof(double));
    if (io_all(c->fd, &h, sizeof h, IO_WRITE) ||
        io_all(c->fd, r, (size_t)c->n * sizeof(double), IO_WRITE) ||
        io_all(c->fd, &stop, 1, IO_READ))
        _exit(3);
    c->io_ms += ncp_process_cpu_ms(0) - h.proc_ms; /* the copy and the exchange, not Siconos */
    if (stop) c->stopped = 1;
    return c->stopped;
}

/* Siconos's Callback.collectStatsIteration: (env, 3 nc, reaction, velocity, its error, extra).
 * Its error is Siconos's own and is not used (docs/design.md §5.4). */
static void on_iteration(void *env, int size, double *reaction, double *velocity, double error,
                         void *extra)
{
    (void)size;
    (void)velocity;
    (void)error;
    (void)extra;
    sic_child *c = env;
    if (c->stopped) return; /* the no-op sweep NSGS makes after a stop (header) */
    if (report(c, reaction) && c->cfg->stop) c->cfg->stop(c->opts);
}

static void stop_nsgs(SolverOptions *o)
{
    o->iparam[SICONOS_FRICTION_3D_NSGS_RELAXATION] = SICONOS_FRICTION_3D_NSGS_RELAXATION_TRUE;
    o->iparam[SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION] =
        SICONOS_FRICTION_3D_NSGS_ERROR_EVALUATION_LIGHT;
}

static void stop_nsn(SolverOptions *o) { o->dparam[SICONOS_DPARAM_RESIDU] = 0.0; }

/* PROX's alpha schedule across one-step calls (header). */
typedef struct prox_state {
    double err;   /* Siconos's error at the current reaction */
    double alpha; /* the alpha of the last step */
    int failed;   /* its inner solve did not reach its tolerance */
} prox_state;

/* fc3d_proximal exit()s on |alpha| < 1e-12: a fixed alpha below this bound is not passed. */
static const double prox_alpha_floor = 1e-11;

static void prox_before_step(SolverOptions *o, prox_state *st, int nc)
{
    SolverOptions *inner = o->internalSolvers[0];
    const double *dp = o->dparam;
    if (st->failed && 10.0 * st->alpha >= prox_alpha_floor) {
        st->alpha *= 10.0;
        o->dparam[SICONOS_FRICTION_3D_PROXIMAL_DPARAM_ALPHA] = -st->alpha; /* < 0: fixed */
        o->iparam[SICONOS_FRICTION_3D_IPARAM_INTERNAL_ERROR_STRATEGY] =
            SICONOS_FRICTION_3D_INTERNAL_ERROR_STRATEGY_GIVEN_VALUE;
        inner->dparam[SICONOS_DPARAM_TOL] =
            fmax(st->err / dp[SICONOS_FRICTION_3D_DPARAM_INTERNAL_ERROR_RATIO],
                 dp[SICONOS_DPARAM_TOL] / nc);
    } else {
        /* > 0: variable alpha, which Siconos sets to sigma err^nu from the error it computes */
        st->alpha = dp[SICONOS_FRICTION_3D_PROXIMAL_DPARAM_SIGMA] *
                    pow(st->err, dp[SICONOS_FRICTION_3D_PROXIMAL_DPARAM_NU]);
        o->dparam[SICONOS_FRICTION_3D_PROXIMAL_DPARAM_ALPHA] = 1e4;
        o->iparam[SICONOS_FRICTION_3D_IPARAM_INTERNAL_ERROR_STRATEGY] =
            SICONOS_FRICTION_3D_INTERNAL_ERROR_STRATEGY_ADAPTIVE;
    }
}

static void prox_after_step(const SolverOptions *o, prox_state *st)
{
    const SolverOptions *inner = o->internalSolvers[0];
    st->err = o->dparam[SICONOS_DPARAM_RESIDU];
    st->failed = !(inner->dparam[SICONOS_DPARAM_RESIDU] < inner->dparam[SICONOS_DPARAM_TOL]);
}

/* The child: runs Siconos on fp from r (v: velocity scratch; 3 nc each), sends every iterate,
 * then the end, and exits without running the parent's exit handlers. */
static _Noreturn void child_run(sic_child *c, FrictionContactProblem *fp, double *r, double *v,
                                int max_iter)
{
    SolverOptions *o = c->opts;
    const char *msg = NULL;
    int info = 0;
    switch (c->cfg->mode) {
    case SIC_CALLBACK: {
        Callback cb = {c, on_iteration};
        o->callback = &cb;
        info = driver_call(fp, r, v, o, &msg);
        o->callback = NULL;
        break;
    }
    case SIC_STEP: {
        const int prox = c->cfg->id == SICONOS_FRICTION_3D_PROX;
        prox_state st = {0.0, 0.0, 0};
        if (prox) fc3d_compute_error(fp, r, v, DBL_MIN, o, ncp_norm2(c->n, fp->q), &st.err);
        while (!c->stopped && c->k < max_iter) {
            o->iparam[SICONOS_IPARAM_MAX_ITER] = 1;
            o->dparam[SICONOS_DPARAM_TOL] = DBL_MIN; /* VI-EG writes its adapted one back */
            if (prox) prox_before_step(o, &st, fp->numberOfContacts);
            info = driver_call(fp, r, v, o, &msg);
            if (info == -100 || o->iparam[SICONOS_IPARAM_ITER_DONE] == 0) break; /* no step */
            if (prox) prox_after_step(o, &st);
            report(c, r);
        }
        break;
    }
    case SIC_ONESHOT:
        info = driver_call(fp, r, v, o, &msg);
        /* its one row carries Siconos's own iteration count */
        if (info != -100 && o->iparam[SICONOS_IPARAM_ITER_DONE] > 1)
            c->k = o->iparam[SICONOS_IPARAM_ITER_DONE] - 1;
        break;
    }
    /* Siconos ended on its own (header): its answer, if not sent yet */
    if (info != -100 && !c->stopped &&
        (c->k == 0 || c->cfg->mode == SIC_ONESHOT ||
         memcmp(r, c->last, (size_t)c->n * sizeof(double)) != 0))
        report(c, r);
    sic_msg h = child_msg(c, MSG_END, c->k, info == -100);
    char text[SIC_TEXT] = "";
    snprintf(text, sizeof text, "%s", msg ? msg : "(no message)");
    int bad = io_all(c->fd, &h, sizeof h, IO_WRITE) || io_all(c->fd, text, sizeof text, IO_WRITE);
    fflush(stdout); /* Siconos's own messages (the spawner forked with empty buffers) */
    fflush(stderr);
    _exit(bad ? 3 : 0);
}

/* The parent: relays the child's iterates to the harness until the end, charging Siconos's
 * work as the child measured it (header, "Time"). Fills *k, *status and lambda (the last
 * iterate, our row order); returns NCP_OK or NCP_ERR_NUMERIC (Siconos's fatal error, or the
 * child died: an assertion inside Siconos aborts). A child still working when the time budget
 * is spent, or the run is interrupted, is killed there (ncp_peer_wait): status timeout (the
 * harness's) or stopped, the answer its last iterate. cpu: ncp_run_external's answer. */
static int parent_run(const sic_cfg *cfg, const ncp_problem *p, ncp_run *run, double budget_ms,
                      int cpu, int fd, ncp_spawned *child, double *rbuf, double *lambda, int *k,
                      int *status, ncp_error *err)
{
    const size_t n = (size_t)p->m;
    char text[SIC_TEXT] = "";
    int ended = 0, code = 0, killed = 0;
    double charged = 0.0, from = 0.0; /* from: the child's clock at its last message */
    for (;;) {
        sic_msg h;
        if (ncp_peer_wait(run, budget_ms, cpu, fd, child->pid, from)) {
            killed = 1;
            if (ncp_run_interrupted(run)) *status = NCP_STATUS_STOPPED;
            break;
        }
        if (io_all(fd, &h, sizeof h, IO_READ)) break;
        if (h.cpu_ms > charged) { /* Siconos's work since the last message */
            ncp_run_add_cpu_ms(run, h.cpu_ms - charged);
            charged = h.cpu_ms;
        }
        from = h.proc_ms;
        if (h.kind == MSG_END) {
            ended = io_all(fd, text, sizeof text, IO_READ) == 0;
            text[SIC_TEXT - 1] = '\0';
            code = h.code;
            break;
        }
        if (h.kind != MSG_ITERATE || io_all(fd, rbuf, n * sizeof(double), IO_READ)) break;
        ncp_siconos_scatter(p, rbuf, lambda);
        *k = h.k;
        unsigned char stop = ncp_solver_iter_end(run, *k, p->m, lambda, 0, status) != 0;
        if (io_all(fd, &stop, 1, IO_SEND)) break;
    }
    int wst = 0;
    /* at the budget, or a child gone astray: not left running */
    ncp_spawn_reap(child, !ended, &wst);
    if (killed) return NCP_OK;
    if (ended && code)
        return ncp_error_set(err, NCP_ERR_NUMERIC, "%s: Siconos fatal error: %s", cfg->self->name,
                             text);
    if (!ended || !WIFEXITED(wst) || WEXITSTATUS(wst) != 0) {
        if (WIFSIGNALED(wst))
            return ncp_error_set(err, NCP_ERR_NUMERIC,
                                 "%s: Siconos died with signal %d after %d iterations%s",
                                 cfg->self->name, WTERMSIG(wst), *k,
                                 WTERMSIG(wst) == SIGABRT
                                     ? " (an assertion or abort inside Siconos: see stderr)"
                                     : "");
        return ncp_error_set(err, NCP_ERR_NUMERIC, "%s: the Siconos process ended abnormally",
                             cfg->self->name);
    }
    return NCP_OK;
}

/* Siconos's options for cfg under our budget. NULL if Siconos cannot create them. */
static SolverOptions *make_options(const sic_cfg *cfg, const ncp_solve_in *in, double siconos_tol)
{
    SolverOptions *o = solver_options_create(cfg->id);
    if (!o || !o->iparam || !o->dparam) {
        ncp_siconos_options_free(o);
        return NULL;
    }
    o->iparam[SICONOS_IPARAM_MAX_ITER] = in->budget.max_iter;
    o->dparam[SICONOS_DPARAM_TOL] = DBL_MIN;
    switch (cfg->id) {
    case SICONOS_FRICTION_3D_NSGS:
        /* the general loop (the specialised one needs the filter on) and omega = 0 for the stop */
        o->iparam[SICONOS_FRICTION_3D_NSGS_FILTER_LOCAL_SOLUTION] =
            SICONOS_FRICTION_3D_NSGS_FILTER_LOCAL_SOLUTION_FALSE;
        o->iparam[SICONOS_FRICTION_3D_NSGS_RELAXATION] = SICONOS_FRICTION_3D_NSGS_RELAXATION_FALSE;
        o->dparam[SICONOS_FRICTION_3D_NSGS_RELAXATION_VALUE] = 0.0;
        break;
    case SICONOS_FRICTION_3D_PROX:
        /* Siconos's PROX strategy with a variable alpha (its default), one step per call */
        o->iparam[SICONOS_FRICTION_3D_PROXIMAL_IPARAM_STRATEGY] = SICONOS_FRICTION_3D_PROXIMAL_PROX;
        if (o->numberOfInternalSolvers < 1 || !o->internalSolvers[0]) {
            ncp_siconos_options_free(o);
            return NULL;
        }
        break;
    case SICONOS_FRICTION_3D_ADMM:
        o->dparam[SICONOS_DPARAM_TOL] = siconos_tol > 0.0 ? siconos_tol : in->budget.tol;
        break;
    default:
        break;
    }
    return o;
}

/* What the child reads from its data file (util/spawner.h) before W, q, mu and r: Siconos's
 * problem and the budget its options are made from, as this process made them in its setup. */
typedef struct sic_data {
    int n, max_iter;
    double tol, siconos_tol;
} sic_data;

/* The child (util/spawner.h: forked from the spawner, sharing no page with the measuring
 * process): reads Siconos's problem into its own memory, makes the options again (the same
 * call as the parent's setup), then runs. Its CPU clock counts from after that. */
static void child_job(void *arg, int fd, int data_fd, const volatile int *interrupt)
{
    (void)interrupt; /* ignored: the parent ends the child */
    const sic_cfg *cfg = arg;
    sic_data d;
    if (ncp_read_all(data_fd, &d, sizeof d) != sizeof d || d.n <= 0 || d.n % 3) _exit(3);
    const size_t n = (size_t)d.n, nc = n / 3;
    double *W = malloc(n * n * sizeof(double)), *q = malloc(n * sizeof(double));
    double *mu = malloc(nc * sizeof(double)), *r = malloc(n * sizeof(double));
    double *v = calloc(n, sizeof(double)), *last = calloc(n, sizeof(double));
    if (!W || !q || !mu || !r || !v || !last ||
        ncp_read_all(data_fd, W, n * n * sizeof(double)) != n * n * sizeof(double) ||
        ncp_read_all(data_fd, q, n * sizeof(double)) != n * sizeof(double) ||
        ncp_read_all(data_fd, mu, nc * sizeof(double)) != nc * sizeof(double) ||
        ncp_read_all(data_fd, r, n * sizeof(double)) != n * sizeof(double))
        _exit(3);
    close(data_fd);
    FrictionContactProblem *fp = ncp_siconos_problem_take(d.n, W, q, mu);
    ncp_solve_in in;
    memset(&in, 0, sizeof in);
    in.budget.max_iter = d.max_iter;
    in.budget.tol = d.tol;
    SolverOptions *o = fp ? make_options(cfg, &in, d.siconos_tol) : NULL;
    if (!o) _exit(3);
    sic_child c = {cfg, o, fd, d.n, last, 0, 0, ncp_process_cpu_ms(0), 0.0};
    child_run(&c, fp, r, v, d.max_iter);
}

/* Siconos's problem as this process's setup made it, and the starting reaction r, into the
 * child's data file. */
static int write_data(const FrictionContactProblem *fp, const ncp_solve_in *in, double siconos_tol,
                      const double *r, int fd)
{
    const int n = fp->numberOfContacts * 3;
    const size_t sn = (size_t)n;
    sic_data d = {n, in->budget.max_iter, in->budget.tol, siconos_tol};
    return ncp_write_all(fd, &d, sizeof d) ||
           ncp_write_all(fd, fp->M->matrix0, sn * sn * sizeof(double)) ||
           ncp_write_all(fd, fp->q, sn * sizeof(double)) ||
           ncp_write_all(fd, fp->mu, sn / 3 * sizeof(double)) ||
           ncp_write_all(fd, r, sn * sizeof(double));
}

/* The setup (Siconos's problem and options, in this process: timed as setup), then the child. */
static int run_siconos(const sic_cfg *cfg, const ncp_solve_in *in, ncp_run *run,
                       double siconos_tol, double *lambda, int *k, int *status, ncp_error *err)
{
    const ncp_problem *p = in->prob;
    const int m = p->m;
    FrictionContactProblem *fp = NULL;
    SolverOptions *o = NULL;
    double *r = ncp_calloc(err, (size_t)m + 1, sizeof(double));
    int rc = !r ? NCP_ERR_NOMEM : ncp_siconos_problem(p, &fp, err);
    if (!rc && !(o = make_options(cfg, in, siconos_tol)))
        rc = ncp_error_set(err, NCP_ERR_NOMEM, "%s: Siconos cannot create its options",
                           cfg->self->name);
    int sv[2] = {-1, -1}, data = -1;
    if (!rc && in->lambda0) ncp_siconos_gather(p, in->lambda0, r);
    if (rc) {
        /* nothing to run */
    } else if (ncp_run_setup_done(run)) { /* the time budget is spent: no child */
    } else {
        /* from here this thread only hands over and relays: Siconos's work is timed in the
         * child */
        const int cpu = ncp_run_external(run);
        ncp_spawned child = {-1, -1};
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
            rc = ncp_error_set(err, NCP_ERR_INTERNAL, "%s: socketpair: %s", cfg->self->name,
                               strerror(errno));
        else if ((data = ncp_spawn_data_file(cfg->self->name, err)) < 0)
            rc = NCP_ERR_INTERNAL;
        else if (write_data(fp, in, siconos_tol, r, data))
            rc = ncp_error_set(err, NCP_ERR_INTERNAL, "%s: cannot write the problem for its "
                               "process: %s", cfg->self->name, strerror(errno));
        else
            rc = ncp_spawn(child_job, (void *)cfg, sv[1], data, 1, &child, err);
        if (sv[1] >= 0) close(sv[1]);
        if (!rc)
            rc = parent_run(cfg, p, run, in->budget.time_ms, cpu, sv[0], &child, r, lambda, k,
                            status, err);
    }
    if (sv[0] >= 0) close(sv[0]);
    if (data >= 0) close(data);
    ncp_siconos_options_free(o);
    if (fp) frictionContactProblem_free(fp);
    free(r);
    return rc;
}

static int siconos_solve(const sic_cfg *cfg, const ncp_solve_in *in, ncp_solve_out *out,
                         ncp_run *run, ncp_error *err)
{
    const ncp_solver_desc *self = cfg->self;
    const ncp_problem *p = in->prob;
    double siconos_tol = 0.0;
    int rc;
    if ((rc = ncp_solver_need_dual(self, p, err))) return rc;
    if (cfg->mode == SIC_ONESHOT &&
        (rc = ncp_solver_param_real(self, in->params, "siconos_tol", 0.0, 1.0, 0, &siconos_tol,
                                    err)))
        return rc;
    int other = ncp_siconos_other_rows(p);
    if (other > 0) {
        /* not Siconos's problem: unsupported, not an error (the solver does not run); the
         * reason is left in err for the harness's note */
        ncp_error_set(err, NCP_ERR_INPUT,
                      "%s: needs a contact-only problem (FCLib local form); this one has %d "
                      "bilateral/unilateral/soft rows",
                      self->name, other);
        out->status = NCP_STATUS_UNSUPPORTED;
        out->iterations = 0;
        return NCP_OK;
    }
    const int m = p->m;
    int k = 0, status = -1;
    double *lambda = ncp_calloc(err, (size_t)m + 1, sizeof(double));
    if (!lambda) return NCP_ERR_NOMEM;
    if (in->lambda0) ncp_copy(m, in->lambda0, lambda);
    if (m == 0) { /* nothing to solve: the empty answer, without Siconos */
        if (ncp_run_setup_done(run) == 0) {
            k = 1;
            ncp_solver_iter_end(run, k, 0, lambda, 0, &status);
        }
    } else {
        rc = run_siconos(cfg, in, run, siconos_tol, lambda, &k, &status, err);
    }
    if (!rc) ncp_solver_finish(out, m, lambda, k, status);
    free(lambda);
    return rc;
}

/* ---------- descriptors ---------- */

static const ncp_param_doc no_params[] = {{NULL, 0.0, NULL}};
static const ncp_param_doc admm_params[] = {
    {"siconos_tol", 0.0,
     "tolerance of Siconos's own stopping test (its relative error |F| / max(|q|, |r|, |u|)) "
     "in [0, 1]; 0 = the run's tol"},
    {NULL, 0.0, NULL},
};

#define SICONOS_SOLVER(ID, SNAME, MODE, STOP, PARAMS, FN, CNAME, SUMMARY)                      \
    static int CNAME##_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,        \
                             ncp_error *err);                                                  \
    const ncp_solver_desc ncp_solver_##CNAME = {                                               \
        .name = SNAME,                                                                         \
        .source = "Siconos numerics 4.4 (Acary, Brémond, Huber 2018) " FN ", solver id " #ID,  \
        .summary = SUMMARY,                                                                    \
        .needs = NCP_NEEDS_DUAL,                                                               \
        .ccp = 0,                                                                              \
        .file = "solvers/siconos.c",                                                           \
        .params = PARAMS,                                                                      \
        .solve = CNAME##_solve,                                                                \
    };                                                                                         \
    static const sic_cfg CNAME##_cfg = {&ncp_solver_##CNAME, ID, MODE, STOP};                  \
    static int CNAME##_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,        \
                             ncp_error *err)                                                   \
    {                                                                                          \
        return siconos_solve(&CNAME##_cfg, in, out, run, err);                                 \
    }

/* The ids are written out so that the source strings carry them; checked against Siconos's
 * names below. */
SICONOS_SOLVER(500, "siconos-nsgs", SIC_CALLBACK, stop_nsgs, no_params, "fc3d_nsgs",
               siconos_nsgs,
               "Siconos NSGS (local NSN-GP hybrid, its defaults), contact-only; per-sweep trace "
               "via its callback")
SICONOS_SOLVER(504, "siconos-nsn-ac", SIC_CALLBACK, stop_nsn, no_params,
               "fc3d_nonsmooth_Newton_AlartCurnier", siconos_nsn_ac,
               "Siconos nonsmooth Newton on Alart-Curnier (its defaults), contact-only; "
               "per-iterate trace via its callback")
SICONOS_SOLVER(513, "siconos-nsn-fb", SIC_CALLBACK, stop_nsn, no_params,
               "fc3d_nonsmooth_Newton_FischerBurmeister", siconos_nsn_fb,
               "Siconos nonsmooth Newton on Fischer-Burmeister (its defaults), contact-only; "
               "per-iterate trace via its callback")
SICONOS_SOLVER(520, "siconos-nsn-nm", SIC_CALLBACK, stop_nsn, no_params,
               "fc3d_nonsmooth_Newton_NaturalMap", siconos_nsn_nm,
               "Siconos nonsmooth Newton on the natural map (its defaults), contact-only; "
               "per-iterate trace via its callback")
SICONOS_SOLVER(502, "siconos-prox", SIC_STEP, NULL, no_params, "fc3d_proximal", siconos_prox,
               "Siconos proximal point, inner NSN-AC (its defaults), contact-only; one Siconos "
               "call per proximal step, its alpha schedule carried over")
SICONOS_SOLVER(523, "siconos-admm", SIC_ONESHOT, NULL, admm_params, "fc3d_admm", siconos_admm,
               "Siconos ADMM (its defaults), contact-only; no callback in 4.4: runs to its own "
               "test, final iterate reported once (one trace row)")
SICONOS_SOLVER(507, "siconos-vi-eg", SIC_STEP, NULL, no_params, "fc3d_VI_ExtraGradient",
               siconos_vi_eg,
               "Siconos VI extragradient (Armijo step, its defaults), contact-only; no callback "
               "on this path in 4.4: called one iteration at a time")

_Static_assert(SICONOS_FRICTION_3D_NSGS == 500 && SICONOS_FRICTION_3D_NSN_AC == 504 &&
                   SICONOS_FRICTION_3D_NSN_FB == 513 && SICONOS_FRICTION_3D_NSN_NM == 520 &&
                   SICONOS_FRICTION_3D_PROX == 502 && SICONOS_FRICTION_3D_ADMM == 523 &&
                   SICONOS_FRICTION_3D_VI_EG == 507,
               "Siconos solver ids differ from the ones in the descriptors' source strings");

#else
/* ISO C forbids an empty translation unit. */
typedef int ncp_siconos_disabled;
#endif
