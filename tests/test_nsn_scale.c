/* nsn-nm and nsn-fb under a change of the impulses' unit, on the 10^2-contact wrecking-ball
 * wall of the scaling family (scenes/scaling/wall-1e2.json, the largest problem of a two-step
 * quick capture): its pendulum joint carries impulses of ~1e5, so the equation's residual |F|
 * starts far above 1 while the Newton matrix J = P + Q D is O(1) (rows scaled by rho), and
 * nsn-nm's Newton matrix is singular at every iterate (its sticking contacts' rows are rows of
 * Q D, more of them than rank D allows, or a body's contacts over-determine its DOFs), so
 * every step is a Levenberg–Marquardt one (nsn_common.h, "Singular by count" and step 2).
 *
 * The invariant checked: multiplying b and e (so v_f, every solution lambda and F) by s leaves
 * the NCP's solutions times s, and the natural map, the Fischer–Burmeister function, the cone,
 * rho, the Gauss–Seidel update and the Armijo tests are positively homogeneous, so the
 * iterates must be s times the unscaled ones. With s a power of 2 every operation scales
 * exactly, so the check is to rounding (1e-10 relative; bitwise in practice). It held for
 * Newton steps always; for LM steps it failed while the LM parameter was delta = |F| (Fan &
 * Yuan 2005 as written: on this wall delta ~ 5e5 against J^T J ~ 1, an O(1) step per iteration,
 * the stall of nsn-nm on the walls), and holds with delta = |F| / max(1, |F_phase|). Run with
 * tol 0 for a fixed 30 iterations (a Gauss–Seidel burst and a restart included) on the D route
 * (route = 1: dense LU) and the automatic one (the sparse saddle form, when UMFPACK is there). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/la.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "testutil.h"

static void scale_problem(ncp_problem *p, double s)
{
    ncp_scal(p->nv, s, p->b);
    ncp_scal(p->m, s, p->e);
    ncp_scal(p->m, s, p->vf);
}

/* Runs s on p with route (-1: the default) for 30 iterations, no tolerance. */
static int run(const ncp_solver_desc *s, const ncp_problem *p, int route, ncp_result *r)
{
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    if (route >= 0) tutil_param(&ps, "route", route);
    return tutil_solve(s, p, &ps, NULL, 0.0, 30, r);
}

/* The count of LM factorisations in the row's note (-1 if absent). */
static int lm_count(const char *note)
{
    const char *q = note ? strstr(note, "Newton iterations ") : NULL;
    int newton, lm;
    if (!q || sscanf(q, "Newton iterations %d (+%d LM", &newton, &lm) != 2) return -1;
    return lm;
}

static void check_scaling(const ncp_solver_desc *s, ncp_problem *p, int route, int need_lm)
{
    ncp_result r1;
    int rc = run(s, p, route, &r1);
    CHECK(rc == NCP_OK);
    if (rc) return;
    const int m = p->m;
    const double amax = ncp_norminf(m, r1.lambda);
    if (need_lm) CHECK(lm_count(r1.note) > 0);
    if (need_lm && s == &ncp_solver_nsn_nm && route == 1)
        CHECK(strstr(r1.note, "singular by count") != NULL);
    static const double scales[] = {1024.0, 1048576.0};
    double worst = 0.0;
    for (size_t k = 0; k < sizeof scales / sizeof *scales; k++) {
        const double f = scales[k];
        scale_problem(p, f);
        ncp_result rs;
        rc = run(s, p, route, &rs);
        scale_problem(p, 1.0 / f);
        CHECK(rc == NCP_OK);
        if (rc) continue;
        CHECK(rs.iterations == r1.iterations && rs.status == r1.status);
        double dev = 0.0;
        for (int i = 0; i < m; i++) dev = fmax(dev, fabs(rs.lambda[i] / f - r1.lambda[i]));
        CHECK(dev <= 1e-10 * fmax(amax, 1e-300));
        worst = fmax(worst, dev);
        if (!(dev <= 1e-10 * amax))
            fprintf(stderr, "  %s route %d, impulses x %g: lambda / s - lambda off by %.3g "
                    "(|lambda|_inf %.3g), iterations %d / %d\n", s->name, route, f, dev, amax,
                    rs.iterations, r1.iterations);
        ncp_result_free(&rs);
    }
    printf("  %s route %d: 30 iterations, LM factorisations %d, |lambda|_inf %.3g; impulses x "
           "2^10, 2^20: |lambda / s - lambda|_inf <= %.3g\n", s->name, route, lm_count(r1.note),
           amax, worst);
    ncp_result_free(&r1);
}

int main(void)
{
    ncp_problem p;
    if (tutil_capture_largest("scenes/scaling/wall-1e2.json", 2, &p)) return tcheck_exit("nsn_scale");
    for (int route = -1; route <= 1; route += 2) {
        check_scaling(&ncp_solver_nsn_nm, &p, route, 1);
        check_scaling(&ncp_solver_nsn_fb, &p, route, 0);
    }
    ncp_problem_free(&p);
    return tcheck_exit("nsn_scale");
}
