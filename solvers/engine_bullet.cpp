// Bullet 3.24's MLCP solvers on an ncp_boxlcp (solvers/engine_peers.h): the call Bullet's
// btMLCPSolver makes, btMLCPSolverInterface::solveMLCP(A, b, x, lo, hi, limitDependency,
// numIterations, useSparsity = true), on the double-precision build (BT_USE_DOUBLE_PRECISION,
// pkg-config bullet-float64). The copy into Bullet's types is the adapter's setup and
// solveMLCP alone its solve, each timed on the thread's CPU clock (engine_peers.h). Each solver
// with its defaults:
//   btSolveProjectedGaussSeidel  numIterations = max_iter sweeps; its own stop
//                                (m_leastSquaresResidualThreshold) is 0, i.e. never: it makes
//                                every sweep. A friction row's bound is lo/hi x x[dependency]
//                                (x[dependency] < 0 counts as 1, Bullet's rule).
//   btDantzigSolver              ODE's Dantzig pivoting (btSolveDantzigLCP, findex = the
//                                dependency); it reports failure when the pivoting does and on
//                                a NaN. Its limit |x_i| < 1000 (m_acceptableUpperLimitSolution)
//                                is tested on the x it was given (the start), before it copies
//                                its answer there: in 3.24 the limit never judges the answer.
//   btLemkeSolver                Lemke on the 2n x 2n box transformation of A^-1; it ignores
//                                limitDependency, so a friction row's box is the fixed
//                                [-mu, mu] it is given (what btMLCPSolver hands it too);
//                                m_maxLoops = max_iter pivots; failure on a NaN or |x_i| > 1e5
//                                (m_maxValue), when it zeroes x.
#include "solvers/engine_peers.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <new>

#include <BulletDynamics/MLCPSolvers/btDantzigSolver.h>
#include <BulletDynamics/MLCPSolvers/btLemkeSolver.h>
#include <BulletDynamics/MLCPSolvers/btSolveProjectedGaussSeidel.h>
#include <LinearMath/btMatrixX.h>

static_assert(sizeof(btScalar) == sizeof(double), "Bullet must be its double-precision build");

namespace {

// The calling thread's CPU time in ms (the clock the adapter times its parts with, engine_peers.h).
double thread_cpu_ms()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

// btDantzigSolver with its answer readable after a failure, to say why it failed.
class Dantzig : public btDantzigSolver
{
public:
    // the answer of the failed run (m_x), and the limit
    const btScalar *answer() const { return m_x.size() ? &m_x[0] : nullptr; }
    btScalar limit() const { return m_acceptableUpperLimitSolution; }
};

// Why btDantzigSolver::solveMLCP said false. In 3.24 it returns false when btSolveDantzigLCP
// does, then when its answer m_x holds a NaN, then when the x it was GIVEN (the start, not its
// answer) reaches its limit.
void why_dantzig(const Dantzig &s, const btVectorXu &start, int n, ncp_engine_call *c)
{
    const btScalar *x = s.answer();
    for (int i = 0; x && i < n; i++)
        if (!std::isfinite(x[i])) {
            std::snprintf(c->msg, sizeof c->msg, "btDantzigSolver: no finite answer (row %d)", i);
            return;
        }
    for (int i = 0; i < n; i++)
        if (std::fabs(start[i]) >= s.limit()) {
            std::snprintf(c->msg, sizeof c->msg,
                          "btDantzigSolver: the start |x| = %.3g at row %d reaches Bullet's "
                          "limit %.0f (m_acceptableUpperLimitSolution)",
                          std::fabs(start[i]), i, s.limit());
            return;
        }
    std::snprintf(c->msg, sizeof c->msg,
                  "btDantzigSolver: btSolveDantzigLCP found no solution (its pivoting failed)");
}

int run(const ncp_boxlcp *lcp, double *xio, ncp_engine_call *c)
{
    if (c->solver < NCP_ENGINE_BULLET_PGS || c->solver > NCP_ENGINE_BULLET_LEMKE) {
        std::snprintf(c->msg, sizeof c->msg, "not a Bullet solver: %d", c->solver);
        return NCP_ENGINE_REJECTED;
    }
    const double t0 = thread_cpu_ms();
    const int n = lcp->n;
    btMatrixXu A(n, n);
    btVectorXu b(n), x(n), lo(n), hi(n);
    btAlignedObjectArray<int> dep;
    dep.resize(n);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) A.setElem(i, j, lcp->A[(size_t)i * (size_t)lcp->stride + j]);
        b[i] = lcp->b[i];
        x[i] = xio[i];
        lo[i] = lcp->lo[i];
        hi[i] = lcp->hi[i];
        dep[i] = lcp->findex[i];
    }
    bool ok = false;
    c->iterations = 1;
    // the solvers and the start copy are made before the clock of the call starts
    btSolveProjectedGaussSeidel pgs;
    Dantzig dz;
    btLemkeSolver lemke;
    lemke.m_maxLoops = c->max_iter;
    btVectorXu start(x);
    c->setup_ms = thread_cpu_ms() - t0;
    if (c->started) c->started(c);
    const double t1 = thread_cpu_ms();
    switch (c->solver) {
    case NCP_ENGINE_BULLET_PGS:
        ok = pgs.solveMLCP(A, b, x, lo, hi, dep, c->max_iter, true);
        break;
    case NCP_ENGINE_BULLET_DANTZIG:
        ok = dz.solveMLCP(A, b, x, lo, hi, dep, c->max_iter, true);
        break;
    default:
        ok = lemke.solveMLCP(A, b, x, lo, hi, dep, c->max_iter, true);
        break;
    }
    c->solve_ms = thread_cpu_ms() - t1;
    switch (c->solver) {
    case NCP_ENGINE_BULLET_PGS:
        c->iterations = c->max_iter; // its stop test (threshold 0) never ends a run early
        break;
    case NCP_ENGINE_BULLET_DANTZIG:
        if (!ok) why_dantzig(dz, start, n, c);
        break;
    default:
        if (!ok)
            std::snprintf(c->msg, sizeof c->msg,
                          "btLemkeSolver: no valid answer within %d pivots (a NaN, or |x| > "
                          "%.0f, m_maxValue: Bullet zeroes x)",
                          c->max_iter, lemke.m_maxValue);
        break;
    }
    for (int i = 0; i < n; i++) xio[i] = x[i];
    return ok ? NCP_ENGINE_SOLVED : NCP_ENGINE_REJECTED;
}

} // namespace

extern "C" int ncp_engine_bullet_run(const ncp_boxlcp *lcp, double *x, ncp_engine_call *c)
{
    c->msg[0] = '\0';
    try {
        return run(lcp, x, c);
    } catch (const std::bad_alloc &) {
        std::snprintf(c->msg, sizeof c->msg, "Bullet: out of memory (n = %d)", lcp->n);
        return NCP_ENGINE_NOMEM;
    }
}
