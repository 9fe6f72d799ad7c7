// DART 6.12's boxed-LCP solvers and ODE's dSolveLCP (DART's copy, libdart-external-odelcpsolver)
// on an ncp_boxlcp (solvers/engine_peers.h). Row-major A with the row stride dPAD(n) (a
// multiple of 4), findex -1 on every row but friction rows, nub = 0 (ODE moves rows with
// lo = -inf, hi = inf to the front itself), as DART's BoxedLcpConstraintSolver fills them.
//   dart-pgs      PgsBoxedLcpSolver with DART's options (mMaxIteration = max_iter sweeps, its own
//                 stop: every |dx_i| <= mDeltaXThreshold after the first sweep, or every
//                 |dx_i / x_i| <= mRelativeDeltaXTolerance after a later one). It starts from x;
//                 it returns false when it used every sweep without meeting its test (not a
//                 rejection: the answer is graded as any capped run), and skips (x_i = 0) a row
//                 whose A_ii < mEpsilonForDivision = 1e-9. Friction: |x_t| <= hi x_n (no abs).
//   dart-dantzig  DantzigBoxedLcpSolver (ODE's dSolveLCP underneath) with earlyTermination on, as
//                 DART's BoxedLcpConstraintSolver calls its primary solver when a secondary (PGS)
//                 is set, its default: it gives up (false) where the pivoting finds no solution.
//   ode-dantzig   dSolveLCP with earlyTermination off, as ODE's own stepper calls it: on such a
//                 pivot it carries on with its fallbacks ("LCP internal error" messages).
// ODE's assertions are compiled into Debian's library and call dDebug, whose default handler
// aborts; ODE says its debug and error handlers must not return: ours keep the message and jump
// back here (the run is a rejection with that message). Messages (dMessage) are kept as the
// reason of a later failure instead of being printed. The handlers are process-wide: the peers
// run each solve in a child process of its own (engine_peers.c).
#include "solvers/engine_peers.h"

#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <new>

#include <dart/constraint/DantzigBoxedLcpSolver.hpp>
#include <dart/constraint/PgsBoxedLcpSolver.hpp>
#include <dart/external/odelcpsolver/error.h>
#include <dart/external/odelcpsolver/lcp.h>

namespace {

namespace ode = dart::external::ode;

// The calling thread's CPU time in ms (the clock the adapter times its parts with, engine_peers.h).
double thread_cpu_ms()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

// Where an ODE debug/error report jumps to, and the last message it or dMessage gave.
thread_local std::jmp_buf *ode_jump = nullptr;
thread_local char ode_text[200];

void ode_fatal(int num, const char *msg, va_list ap)
{
    int k = std::snprintf(ode_text, sizeof ode_text, "ODE error %d: ", num);
    if (k > 0 && (size_t)k < sizeof ode_text) std::vsnprintf(ode_text + k, sizeof ode_text - k, msg, ap);
    if (ode_jump) std::longjmp(*ode_jump, 1);
}

void ode_message(int num, const char *msg, va_list ap)
{
    int k = std::snprintf(ode_text, sizeof ode_text, "ODE message %d: ", num);
    if (k > 0 && (size_t)k < sizeof ode_text) std::vsnprintf(ode_text + k, sizeof ode_text - k, msg, ap);
}

// The call itself, without C++ objects alive across the setjmp (a jump skips destructors).
bool call(ncp_boxlcp *lcp, double *x, ncp_engine_call *c, dart::constraint::PgsBoxedLcpSolver *pgs,
          dart::constraint::DantzigBoxedLcpSolver *dz)
{
    switch (c->solver) {
    case NCP_ENGINE_DART_PGS:
        return pgs->dart::constraint::PgsBoxedLcpSolver::solve(lcp->n, lcp->A, x, lcp->b, 0, lcp->lo,
                                                              lcp->hi, lcp->findex, false);
    case NCP_ENGINE_DART_DANTZIG:
        return dz->dart::constraint::DantzigBoxedLcpSolver::solve(lcp->n, lcp->A, x, lcp->b, 0,
                                                                 lcp->lo, lcp->hi, lcp->findex, true);
    default:
        return ode::dSolveLCP(lcp->n, lcp->A, x, lcp->b, nullptr, 0, lcp->lo, lcp->hi, lcp->findex,
                              false);
    }
}

int run(ncp_boxlcp *lcp, double *x, ncp_engine_call *c)
{
    if (c->solver < NCP_ENGINE_DART_PGS || c->solver > NCP_ENGINE_ODE_DANTZIG) {
        std::snprintf(c->msg, sizeof c->msg, "not a DART/ODE solver: %d", c->solver);
        return NCP_ENGINE_REJECTED;
    }
    if (lcp->stride != dPAD(lcp->n)) {
        std::snprintf(c->msg, sizeof c->msg, "DART/ODE need the row stride dPAD(%d) = %d, not %d",
                      lcp->n, dPAD(lcp->n), lcp->stride);
        return NCP_ENGINE_REJECTED;
    }
    const double t0 = thread_cpu_ms();
    dart::constraint::PgsBoxedLcpSolver pgs;
    dart::constraint::DantzigBoxedLcpSolver dz;
    dart::constraint::PgsBoxedLcpSolver::Option opt(c->max_iter, c->opt[0], c->opt[1]);
    pgs.setOption(opt);
    ode_text[0] = '\0';
    ode::dSetDebugHandler(ode_fatal);
    ode::dSetErrorHandler(ode_fatal);
    ode::dSetMessageHandler(ode_message);
    std::jmp_buf here;
    volatile int jumped = 0;
    volatile bool ok = false;
    // DART and ODE take the LCP as it is (no copy): the setup is the solvers' construction
    c->setup_ms = thread_cpu_ms() - t0;
    if (c->started) c->started(c);
    const double t1 = thread_cpu_ms();
    ode_jump = &here;
    if (setjmp(here) == 0) ok = call(lcp, x, c, &pgs, &dz);
    else jumped = 1;
    ode_jump = nullptr;
    c->solve_ms = thread_cpu_ms() - t1;
    ode::dSetDebugHandler(nullptr);
    ode::dSetErrorHandler(nullptr);
    ode::dSetMessageHandler(nullptr);
    c->iterations = 1;
    if (jumped) {
        std::snprintf(c->msg, sizeof c->msg, "%s", ode_text);
        return NCP_ENGINE_REJECTED;
    }
    if (c->solver == NCP_ENGINE_DART_PGS) {
        // false: every sweep used without its own test met (a capped run, graded as such)
        if (!ok) c->iterations = c->max_iter;
        return NCP_ENGINE_SOLVED;
    }
    if (!ok) {
        std::snprintf(c->msg, sizeof c->msg, "%s: no solution found by the pivoting%s%.150s",
                      c->solver == NCP_ENGINE_DART_DANTZIG ? "DantzigBoxedLcpSolver (early termination)"
                                                           : "dSolveLCP",
                      ode_text[0] ? "; " : "", ode_text);
        return NCP_ENGINE_REJECTED;
    }
    return NCP_ENGINE_SOLVED;
}

} // namespace

extern "C" int ncp_engine_dart_run(ncp_boxlcp *lcp, double *x, ncp_engine_call *c)
{
    c->msg[0] = '\0';
    try {
        return run(lcp, x, c);
    } catch (const std::bad_alloc &) {
        std::snprintf(c->msg, sizeof c->msg, "DART: out of memory (n = %d)", lcp->n);
        return NCP_ENGINE_NOMEM;
    }
}
