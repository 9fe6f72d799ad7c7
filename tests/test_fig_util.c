/* Figure-set helpers (src/figures/fig_util.h): the Dolan–Moré profile against hand-computed
 * ratios and its invariants. (The figure sets' CSV reader and quantile are util's:
 * tests/test_util.c.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figures/fig_util.h"
#include "tcheck.h"
#include "testutil.h"

static void test_profile_hand(void)
{
    /* 4 problems x 3 solvers (times in ms, INFINITY = failed):
     *   p0:   1    2    inf   -> ratios 1, 2, inf
     *   p1:   4    2    8     -> 2, 1, 4
     *   p2:   inf  inf  inf   -> nobody solved it: inf, inf, inf
     *   p3:   3    3    0.5   -> 6, 6, 1 */
    const double I = INFINITY;
    double t[12] = {1, 2, I, 4, 2, 8, I, I, I, 3, 3, 0.5};
    double expect[12] = {1, 2, I, 2, 1, 4, I, I, I, 6, 6, 1};
    double r[12];
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(ncp_perf_ratios(4, 3, t, r, &err), &err);
    for (int i = 0; i < 12; i++) CHECK(r[i] == expect[i]);
    /* rho_s(tau) = share of the 4 problems with r <= tau */
    struct {
        int s;
        double tau, rho;
    } pts[] = {
        {0, 1.0, 0.25}, {0, 1.99, 0.25}, {0, 2.0, 0.5},  {0, 6.0, 0.75}, {0, 100.0, 0.75},
        {1, 1.0, 0.25}, {1, 2.0, 0.5},   {1, 5.99, 0.5}, {1, 6.0, 0.75}, {2, 1.0, 0.25},
        {2, 3.99, 0.25}, {2, 4.0, 0.5},  {2, 100.0, 0.5}, {2, INFINITY, 0.5},
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++)
        CHECK_NEAR(ncp_perf_rho(4, 3, r, pts[i].s, pts[i].tau), pts[i].rho, 0.0);
    CHECK(ncp_perf_rho(4, 3, r, 0, INFINITY) == 0.75 && ncp_perf_rho(4, 3, r, 1, INFINITY) == 0.75);
    CHECK(ncp_perf_rho(0, 3, r, 0, 2.0) == 0.0);
    /* ties: both fastest solvers get ratio 1 */
    double tt[2] = {2.5, 2.5}, rr[2];
    CHECK_OK(ncp_perf_ratios(1, 2, tt, rr, &err), &err);
    CHECK(rr[0] == 1.0 && rr[1] == 1.0);
    /* times must be > 0 or infinite */
    double bad[3][2] = {{0.0, 1.0}, {-1.0, 1.0}, {NAN, 1.0}};
    for (int i = 0; i < 3; i++) {
        ncp_error e2;
        ncp_error_clear(&e2);
        CHECK(ncp_perf_ratios(1, 2, bad[i], rr, &e2) == NCP_ERR_INPUT);
        CHECK(strstr(e2.msg, "solver 0") != NULL);
    }
}

/* Invariants on random tables: rho is a non-decreasing step function of tau with values in
 * [0, 1]; on every problem someone solved, some solver has ratio exactly 1, so the rho(1) of all
 * solvers add up to at least the share of solved problems; rho(inf) is the solved share. */
static void test_profile_invariants(void)
{
    trng g = {99};
    for (int trial = 0; trial < 50; trial++) {
        int np = 1 + (int)(trng_uniform(&g) * 30), ns = 1 + (int)(trng_uniform(&g) * 6);
        double *t = malloc(sizeof(double) * (size_t)np * ns);
        double *r = malloc(sizeof(double) * (size_t)np * ns);
        CHECK(t && r);
        if (!t || !r) return;
        int solvable = 0;
        for (int p = 0; p < np; p++) {
            int any = 0;
            for (int s = 0; s < ns; s++) {
                double u = trng_uniform(&g);
                t[p * ns + s] = u < 0.3 ? INFINITY : exp(4.0 * trng_normal(&g));
                any |= !isinf(t[p * ns + s]);
            }
            solvable += any;
        }
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(ncp_perf_ratios(np, ns, t, r, &err), &err);
        double sum1 = 0.0;
        for (int s = 0; s < ns; s++) {
            double prev = 0.0;
            for (int i = 0; i <= 200; i++) {
                double tau = pow(10.0, i / 100.0), rho = ncp_perf_rho(np, ns, r, s, tau);
                CHECK(rho >= prev && rho >= 0.0 && rho <= 1.0);
                prev = rho;
            }
            int solved = 0;
            for (int p = 0; p < np; p++) solved += !isinf(t[p * ns + s]);
            CHECK_NEAR(ncp_perf_rho(np, ns, r, s, INFINITY), (double)solved / np, 1e-15);
            sum1 += ncp_perf_rho(np, ns, r, s, 1.0);
        }
        CHECK(sum1 >= (double)solvable / np - 1e-15);
        free(t);
        free(r);
    }
}

int main(void)
{
    test_profile_hand();
    test_profile_invariants();
    return tcheck_exit("fig_util");
}
