/* metrics/metrics.c checked against
 *   - hand-computed cases (values derived on paper below, D = I so u = lambda + v_f): one
 *     contact in each regime (open, stick, slide, penetrating) and one row of each other type
 *     (bilateral, unilateral, soft), alone and stacked in one problem;
 *   - invariants: every metric is 0 at an exact solution constructed analytically on a random
 *     problem; the relative natural maps are invariant under (lambda, v_f, phi) -> a (...);
 *   - independent recomputation on random problems: al_residual by the primal route
 *     (v = A^{-1}(b + J^T lambda) by Gaussian elimination here, u = J v + e from the CSR
 *     arrays), and the natural map and ncp_* with projections written here (not cone.h);
 *   - sap_momentum / sap_compl (Castro et al. 2023 eqs. 32-33): a hand-computed contact, and on random
 *     problems a reference that projects in the R-norm through App. C's change of variables
 *     (Euclidean projection of R^{1/2} y onto the cone with mu sqrt(R_t/R_n), here) instead of
 *     the closed form, builds R and the stabilisation itself, and takes the momentum residual
 *     A (v - v*) - J^T gamma with v, v* solved by Gaussian elimination;
 *   - NaN propagation, names/order, workspace errors on malformed problems. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dop.h"
#include "metrics/metrics.h"
#include "tcheck.h"
#include "testutil.h"

/* ------------------------------------------------------------------------------------------
 * Small problems built by hand: D = I (or given), v_f set from the wanted u. */

static void mk_problem(ncp_problem *p, int nb, const int *types, ncp_error *err)
{
    ncp_problem_init(p);
    if (ncp_problem_alloc_blocks(p, nb, err)) abort();
    for (int i = 0; i < nb; i++) p->blocks[i].type = types[i];
    ncp_problem_layout(p);
    int m = p->m;
    p->D = ncp_calloc(err, (size_t)m * m, sizeof(double));
    p->vf = ncp_calloc(err, m, sizeof(double));
    p->contacts = ncp_calloc(err, p->ncontacts ? p->ncontacts : 1, sizeof(ncp_contact_info));
    if (!p->D || !p->vf || !p->contacts) abort();
    for (int i = 0; i < m; i++) p->D[i + i * m] = 1.0;
    for (int k = 0; k < p->ncontacts; k++) p->contacts[k].gap = 1.0; /* far: no penetration */
    p->has_dual = 1;
    p->h = 0.01;
}

/* v_f = u - D lambda so that D lambda + v_f = u. */
static void set_u(ncp_problem *p, const double *lambda, const double *u)
{
    int m = p->m;
    for (int i = 0; i < m; i++) {
        double s = 0.0;
        for (int j = 0; j < m; j++) s += p->D[i + j * m] * lambda[j];
        p->vf[i] = u[i] - s;
    }
}

static ncp_metrics eval(const ncp_problem *p, const double *lambda)
{
    ncp_error err;
    ncp_error_clear(&err);
    ncp_metrics_ws *ws = NULL;
    ncp_metrics mt;
    memset(&mt, 0, sizeof mt);
    CHECK_OK(ncp_metrics_ws_create(p, &ws, &err), &err);
    if (!ws) return mt;
    CHECK_OK(ncp_metrics_eval(ws, lambda, &mt, &err), &err);
    ncp_metrics_ws_free(ws);
    return mt;
}

#define TOL 1e-12

/* Open contact with a wrong normal impulse. mu = 0.5, lambda = (0.1, 0, 0),
 * u = (0.3, 0.1, -0.2) (separating, sliding: the right answer is lambda = 0).
 *   AL: x = lambda - u = (-0.2, -0.1, 0.2); strict: normal max(-0.2, 0) = 0, radius 0, T = 0;
 *       residual lambda - T = (0.1, 0, 0), norm 0.1, one contact -> 0.1.
 *   NM: ||u_t|| = sqrt(0.05), uh = u + (0.5 sqrt(0.05), 0, 0) = (0.4118034, 0.1, -0.2);
 *       y = lambda - uh = (-0.3118034, -0.1, 0.2), mu ||y_t|| = 0.1118 <= -y_n: polar, Pi = 0;
 *       F = lambda = (0.1, 0, 0): abs 0.1, inf 0.1.
 *   primal 0 (lambda in K); dual 0 (uh_n = 0.41 >= mu ||uh_t|| = 0.11);
 *   compl = lambda . uh = 0.1 (0.3 + 0.5 sqrt(0.05)).
 *   v_f = u - lambda = (0.2, 0.1, -0.2): ||v_f|| = 0.3; ||lambda|| = 0.1; ||u|| = sqrt(0.14).
 *   penetration: gap 0.01, h 0.01: 0.01 + 0.003 > 0 -> 0. */
static void test_open(void)
{
    ncp_error err;
    ncp_problem p;
    int types[] = {NCP_CONTACT};
    mk_problem(&p, 1, types, &err);
    p.blocks[0].mu = 0.5;
    p.contacts[0].gap = 0.01;
    double l[3] = {0.1, 0.0, 0.0}, u[3] = {0.3, 0.1, -0.2};
    set_u(&p, l, u);
    ncp_metrics mt = eval(&p, l);
    CHECK_NEAR(mt.al_residual, 0.1, TOL);
    CHECK_NEAR(mt.al_residual_other, 0.0, TOL);
    CHECK_NEAR(mt.natural_map_abs, 0.1, TOL);
    CHECK_NEAR(mt.natural_map_inf, 0.1, TOL);
    CHECK_NEAR(mt.natural_map_rel_acary, 0.1 / 0.3, TOL);
    CHECK_NEAR(mt.natural_map_rel_siconos, 0.1 / sqrt(0.14), TOL);
    CHECK_NEAR(mt.natural_map_rel_fclib, 0.1 / (1.0 + sqrt(0.3)), TOL);
    CHECK_NEAR(mt.ncp_primal, 0.0, TOL);
    CHECK_NEAR(mt.ncp_dual, 0.0, TOL);
    CHECK_NEAR(mt.ncp_compl, 0.1 * (0.3 + 0.5 * sqrt(0.05)), TOL);
    CHECK_NEAR(mt.penetration, 0.0, TOL);

    /* The exact open solution lambda = 0 with the same u: everything 0. */
    double l0[3] = {0.0, 0.0, 0.0};
    set_u(&p, l0, u);
    mt = eval(&p, l0);
    CHECK_NEAR(mt.al_residual, 0.0, TOL);
    CHECK_NEAR(mt.natural_map_abs, 0.0, TOL);
    CHECK_NEAR(mt.ncp_primal + mt.ncp_dual + mt.ncp_compl, 0.0, TOL);
    ncp_problem_free(&p);
}

/* Stick contact with a small spurious slip. mu = 0.5, lambda = (1, 0.3, -0.2) (inside K:
 * ||lambda_t|| = 0.3606 < 0.5), u = (0, 0.04, 0.03) (should be 0).
 *   AL: x = lambda - u = (1, 0.26, -0.23); strict: normal 1, radius 0.5, ||x_t|| = 0.3471 <=
 *       0.5, T = x; residual = u, norm 0.05.
 *   NM: ||u_t|| = 0.05, uh = (0.025, 0.04, 0.03); y = lambda - uh = (0.975, 0.26, -0.23):
 *       ||y_t|| = 0.3471 <= 0.4875 (stick), Pi = y; F = uh: abs sqrt(0.003125), inf 0.04.
 *   primal 0; dual: mu ||uh_t|| = 0.025 = uh_n, on the boundary of K* -> 0;
 *   compl = 0.025 + 0.3*0.04 - 0.2*0.03 = 0.031. */
static void test_stick(void)
{
    ncp_error err;
    ncp_problem p;
    int types[] = {NCP_CONTACT};
    mk_problem(&p, 1, types, &err);
    p.blocks[0].mu = 0.5;
    double l[3] = {1.0, 0.3, -0.2}, u[3] = {0.0, 0.04, 0.03};
    set_u(&p, l, u);
    ncp_metrics mt = eval(&p, l);
    CHECK_NEAR(mt.al_residual, 0.05, TOL);
    CHECK_NEAR(mt.natural_map_abs, sqrt(0.003125), TOL);
    CHECK_NEAR(mt.natural_map_inf, 0.04, TOL);
    CHECK_NEAR(mt.ncp_primal, 0.0, TOL);
    CHECK_NEAR(mt.ncp_dual, 0.0, TOL);
    CHECK_NEAR(mt.ncp_compl, 0.031, TOL);
    /* v_f = u - lambda = (-1, -0.26, 0.23): ||v_f||^2 = 1.1205 */
    CHECK_NEAR(mt.natural_map_rel_acary, sqrt(0.003125) / sqrt(1.1205), TOL);
    ncp_problem_free(&p);
}

/* SAP's errors (Castro et al. 2023 eqs. 32-33) on one contact, D = I, dual only (no primal e: the
 * stabilisation is the problem's own, u_hat = u). w = ||I||_F / 3 = 1/sqrt(3),
 * R_n = w/(4 pi^2), R_t = 1e-3 w (beta = 1, sigma = 1e-3; eqs. 29-30), mu = 0.5.
 *   lambda = (1, 0.1, 0), v_f = -(I + R) lambda: u = -R lambda, y = -R^{-1} u = lambda is in
 *   the cone (0.1 <= 0.5), so gamma = lambda: both errors 0 (g = u + R lambda = 0).
 *   lambda' = (1.1, 0.1, 0): u' = (0.1 - R_n, -0.1 R_t, 0), y = (1 - 0.1/R_n, 0.1, 0) with
 *   y_n = -5.84 < -mu_hat y_r = -0.5 (R_t/R_n) 0.1: open, gamma = 0. sap_momentum =
 *   ||lambda' - 0||_D / max(||lambda'||_D, 0) = 1. g = u' + R lambda' = (0.1 + 0.1 R_n, 0, 0),
 *   g . lambda' = 0.11 (1 + R_n), l_p = 1/2 (1.21 (1 + R_n) + 0.01 (1 + R_t)). */
static void test_sap_hand(void)
{
    ncp_error err;
    ncp_problem p;
    int types[] = {NCP_CONTACT};
    mk_problem(&p, 1, types, &err);
    p.blocks[0].mu = 0.5;
    const double pi = 3.14159265358979323846;
    const double w = 1.0 / sqrt(3.0), Rn = w / (4.0 * pi * pi), Rt = 1e-3 * w;
    double l[3] = {1.0, 0.1, 0.0};
    p.vf[0] = -(1.0 + Rn) * l[0];
    p.vf[1] = -(1.0 + Rt) * l[1];
    p.vf[2] = 0.0;
    ncp_metrics mt = eval(&p, l);
    /* (round-off: u = lambda + v_f cancels to -R lambda, about 1/70 of lambda) */
    CHECK_NEAR(mt.sap_momentum, 0.0, 1e-13);
    CHECK_NEAR(mt.sap_compl, 0.0, 1e-13);
    double l2[3] = {1.1, 0.1, 0.0};
    mt = eval(&p, l2);
    CHECK_NEAR(mt.sap_momentum, 1.0, 1e-14);
    CHECK_NEAR(mt.sap_compl, 0.11 * (1.0 + Rn) / (0.5 * (1.21 * (1.0 + Rn) + 0.01 * (1.0 + Rt))),
               1e-14);
    ncp_problem_free(&p);
}

/* Sliding contact. Exact solution first: mu = 0.5, u = (0, 0.3, 0.4) (slip speed 0.5),
 * lambda = (2, -mu*2*(0.6, 0.8)) = (2, -0.6, -0.8). Then the same lambda with u_n = 0.1
 * (separating while pushing):
 *   AL: x = lambda - u = (1.9, -0.9, -1.2); strict: normal 1.9, radius 0.95 < ||x_t|| = 1.5,
 *       tangent 0.95 (-0.6, -0.8) = (-0.57, -0.76); residual (0.1, -0.03, -0.04), norm
 *       sqrt(0.0125).
 *   NM: uh = (0.1 + 0.25, 0.3, 0.4); y = (1.65, -0.9, -1.2), s = 1.5: slip,
 *       a = (1.65 + 0.75)/1.25 = 1.92, Pi = (1.92, 0.96 (-0.6, -0.8)) = (1.92, -0.576, -0.768);
 *       F = (0.08, -0.024, -0.032): abs sqrt(0.008), inf 0.08.
 *   primal 0 (lambda on the cone boundary); dual 0 (0.25 <= 0.35);
 *   compl = 2*0.35 - 0.6*0.3 - 0.8*0.4 = 0.2. */
static void test_slide(void)
{
    ncp_error err;
    ncp_problem p;
    int types[] = {NCP_CONTACT};
    mk_problem(&p, 1, types, &err);
    p.blocks[0].mu = 0.5;
    double l[3] = {2.0, -0.6, -0.8}, u[3] = {0.0, 0.3, 0.4};
    set_u(&p, l, u);
    ncp_metrics mt = eval(&p, l);
    CHECK_NEAR(mt.al_residual, 0.0, TOL);
    CHECK_NEAR(mt.natural_map_abs, 0.0, TOL);
    CHECK_NEAR(mt.ncp_primal, 0.0, TOL);
    CHECK_NEAR(mt.ncp_dual, 0.0, TOL);
    CHECK_NEAR(mt.ncp_compl, 0.0, TOL); /* 2*0.25 - 0.18 - 0.32 */

    u[0] = 0.1;
    set_u(&p, l, u);
    mt = eval(&p, l);
    CHECK_NEAR(mt.al_residual, sqrt(0.0125), TOL);
    CHECK_NEAR(mt.natural_map_abs, sqrt(0.008), TOL);
    CHECK_NEAR(mt.natural_map_inf, 0.08, TOL);
    CHECK_NEAR(mt.ncp_primal, 0.0, TOL);
    CHECK_NEAR(mt.ncp_dual, 0.0, TOL);
    CHECK_NEAR(mt.ncp_compl, 0.2, TOL);

    /* An impulse outside the cone: lambda = (1, 0.8, 0.6), mu = 0.5, u = 0.
     *   primal: Pi_K(lambda): s = 1, a = (1 + 0.5)/1.25 = 1.2, Pi = (1.2, 0.6*(0.8, 0.6)) =
     *   (1.2, 0.48, 0.36); lambda - Pi = (-0.2, 0.32, 0.24) -> L_inf 0.32.
     *   AL: x = lambda, strict = (1, 0.5*(0.8, 0.6)) = (1, 0.4, 0.3); residual (0, 0.4, 0.3)
     *   -> 0.5. NM: uh = 0, F = lambda - Pi_K(lambda) -> abs sqrt(0.04+0.1024+0.0576) =
     *   sqrt(0.2). */
    double l2[3] = {1.0, 0.8, 0.6}, u2[3] = {0.0, 0.0, 0.0};
    set_u(&p, l2, u2);
    mt = eval(&p, l2);
    CHECK_NEAR(mt.ncp_primal, 0.32, TOL);
    CHECK_NEAR(mt.al_residual, 0.5, TOL);
    CHECK_NEAR(mt.natural_map_abs, sqrt(0.2), TOL);
    CHECK_NEAR(mt.ncp_compl, 0.0, TOL);
    ncp_problem_free(&p);
}

/* Penetrating contact: no impulse although the bodies approach. mu = 0.5, lambda = 0,
 * u = (-0.1, 0, 0).
 *   AL: x = (0.1, 0, 0), strict = x, residual (-0.1, 0, 0) -> 0.1.
 *   NM: uh = u (no tangential velocity); y = (0.1, 0, 0) in K; F = -y -> 0.1.
 *   dual: Pi_{K*}(uh): uh is in -K (polar of K*) -> 0, residual 0.1; primal 0; compl 0.
 *   penetration: gap 0.0005, h = 0.01: 0.0005 - 0.001 = -0.0005 -> 0.0005. */
static void test_penetrating(void)
{
    ncp_error err;
    ncp_problem p;
    int types[] = {NCP_CONTACT};
    mk_problem(&p, 1, types, &err);
    p.blocks[0].mu = 0.5;
    p.contacts[0].gap = 0.0005;
    double l[3] = {0.0, 0.0, 0.0}, u[3] = {-0.1, 0.0, 0.0};
    set_u(&p, l, u);
    ncp_metrics mt = eval(&p, l);
    CHECK_NEAR(mt.al_residual, 0.1, TOL);
    CHECK_NEAR(mt.natural_map_abs, 0.1, TOL);
    CHECK_NEAR(mt.ncp_dual, 0.1, TOL);
    CHECK_NEAR(mt.ncp_primal, 0.0, TOL);
    CHECK_NEAR(mt.ncp_compl, 0.0, TOL);
    CHECK_NEAR(mt.penetration, 0.0005, 1e-15);
    /* h = 0 (unknown step): geometric penetration max(0, -gap) */
    p.h = 0.0;
    p.contacts[0].gap = -0.003;
    mt = eval(&p, l);
    CHECK_NEAR(mt.penetration, 0.003, 1e-15);
    /* no geometry: 0 */
    free(p.contacts);
    p.contacts = NULL;
    mt = eval(&p, l);
    CHECK_NEAR(mt.penetration, 0.0, 0.0);
    ncp_problem_free(&p);
}

/* Frictionless contact (mu = 0): lambda = (0, 0, 0), u = (0.3, 0, 0): an exact open solution,
 * natural map 0 (Pi_K0(-0.3, 0, 0) = 0). With lambda = (0.2, 0, 0), u = (0, 0, 0): exact
 * (closed) as well. With lambda = (-0.2, 0, 0), u = 0: F = lambda - Pi(lambda) = (-0.2,0,0). */
static void test_frictionless(void)
{
    ncp_error err;
    ncp_problem p;
    int types[] = {NCP_CONTACT};
    mk_problem(&p, 1, types, &err);
    p.blocks[0].mu = 0.0;
    double l[3] = {0.0, 0.0, 0.0}, u[3] = {0.3, 0.0, 0.0};
    set_u(&p, l, u);
    ncp_metrics mt = eval(&p, l);
    CHECK_NEAR(mt.natural_map_abs, 0.0, TOL);
    CHECK_NEAR(mt.al_residual, 0.0, TOL);
    double l2[3] = {0.2, 0.0, 0.0}, u2[3] = {0.0, 0.0, 0.0};
    set_u(&p, l2, u2);
    mt = eval(&p, l2);
    CHECK_NEAR(mt.natural_map_abs, 0.0, TOL);
    double l3[3] = {-0.2, 0.0, 0.0};
    set_u(&p, l3, u2);
    mt = eval(&p, l3);
    CHECK_NEAR(mt.natural_map_abs, 0.2, TOL);
    CHECK_NEAR(mt.ncp_primal, 0.2, TOL);
    CHECK_NEAR(mt.al_residual, 0.2, TOL); /* strict: normal max(-0.2, 0) = 0 */
    ncp_problem_free(&p);
}

/* Non-contact rows (D = I):
 *   bilateral  lambda = 5,    u = 0.2: AL and NM residual u = 0.2; dual |u| = 0.2.
 *   unilateral lambda = -0.1, u = 0.3: min(lambda, u) = -0.1; primal 0.1; dual 0;
 *              compl |lambda u| = 0.03.
 *   soft k = 2, c = 0.5, phi = 0.1, lambda = -0.1, u = -0.4: F = lambda + k phi + c u =
 *              -0.1 + 0.2 - 0.2 = -0.1; AL (Lee et al. 2025 eq. 15, beta = 1, u_AL = -lambda):
 *              T = -(c (u - lambda) + k phi)/(1 + c) = -(0.5*(-0.3) + 0.2)/1.5 = -1/30,
 *              lambda - T = -0.1 + 1/30 = -1/15 = F/(1 + c); dual |F| = 0.1.
 * No contacts: al_residual = 0; al_residual_other = sqrt(0.04 + 0.01 + 1/225). */
static void test_other_rows(void)
{
    ncp_error err;
    ncp_problem p;
    int types[] = {NCP_BILATERAL, NCP_UNILATERAL, NCP_SOFT};
    mk_problem(&p, 3, types, &err);
    p.blocks[2].k = 2.0;
    p.blocks[2].c = 0.5;
    p.blocks[2].phi = 0.1;
    double l[3] = {5.0, -0.1, -0.1}, u[3] = {0.2, 0.3, -0.4};
    set_u(&p, l, u);
    ncp_metrics mt = eval(&p, l);
    CHECK_NEAR(mt.al_residual, 0.0, 0.0);
    CHECK_NEAR(mt.al_residual_other, sqrt(0.04 + 0.01 + 1.0 / 225.0), TOL);
    CHECK_NEAR(mt.natural_map_abs, sqrt(0.04 + 0.01 + 0.01), TOL);
    CHECK_NEAR(mt.natural_map_inf, 0.2, TOL);
    CHECK_NEAR(mt.ncp_primal, 0.1, TOL);
    CHECK_NEAR(mt.ncp_dual, 0.2, TOL);
    CHECK_NEAR(mt.ncp_compl, 0.03, TOL);
    CHECK_NEAR(mt.penetration, 0.0, 0.0);
    /* each law satisfied exactly: bilateral u = 0; unilateral lambda = 0 < u; soft
     * lambda = -k phi - c u = -0.2 + 0.2 = 0 with u = -0.4 */
    double l2[3] = {5.0, 0.0, 0.0}, u2[3] = {0.0, 0.3, -0.4};
    set_u(&p, l2, u2);
    mt = eval(&p, l2);
    CHECK_NEAR(mt.al_residual_other, 0.0, TOL);
    CHECK_NEAR(mt.natural_map_abs, 0.0, TOL);
    CHECK_NEAR(mt.ncp_primal + mt.ncp_dual + mt.ncp_compl, 0.0, TOL);
    ncp_problem_free(&p);
}

/* All of the above stacked: [bilateral, unilateral, soft, slide contact (u_n = 0.1),
 * penetrating contact], D = I. Per-row values from the single cases:
 *   al_residual = sqrt(0.0125 + 0.01) / 2 = 0.15 / 2 = 0.075
 *   al_residual_other = sqrt(0.04 + 0.01 + 1/225)
 *   ||F||^2 = 0.04 + 0.01 + 0.01 + 0.008 + 0.01 = 0.078; ||F||_inf = 0.2
 *   primal 0.1 (unilateral); dual 0.2 (bilateral); compl 0.2 (slide contact)
 *   v_f = u - lambda = (-4.8, 0.4, -0.3, -1.9, 0.9, 1.2, -0.1, 0, 0): ||v_f|| = sqrt(29.16)
 *   = 5.4; ||lambda||^2 = 30.02; ||u||^2 = 0.56 -> Siconos divides by sqrt(30.02).
 *   penetration: slide contact gap -0.002 + 0.01*0.1 = -0.001; penetrating contact
 *   0.0005 - 0.001 = -0.0005 -> max 0.001. */
static void test_stacked(void)
{
    ncp_error err;
    ncp_problem p;
    int types[] = {NCP_BILATERAL, NCP_UNILATERAL, NCP_SOFT, NCP_CONTACT, NCP_CONTACT};
    mk_problem(&p, 5, types, &err);
    CHECK(p.m == 9 && p.ncontacts == 2);
    p.blocks[2].k = 2.0;
    p.blocks[2].c = 0.5;
    p.blocks[2].phi = 0.1;
    p.blocks[3].mu = 0.5;
    p.blocks[4].mu = 0.5;
    p.contacts[0].gap = -0.002;
    p.contacts[1].gap = 0.0005;
    double l[9] = {5.0, -0.1, -0.1, 2.0, -0.6, -0.8, 0.0, 0.0, 0.0};
    double u[9] = {0.2, 0.3, -0.4, 0.1, 0.3, 0.4, -0.1, 0.0, 0.0};
    set_u(&p, l, u);
    ncp_metrics mt = eval(&p, l);
    CHECK_NEAR(mt.al_residual, 0.075, TOL);
    CHECK_NEAR(mt.al_residual_other, sqrt(0.04 + 0.01 + 1.0 / 225.0), TOL);
    CHECK_NEAR(mt.natural_map_abs, sqrt(0.078), TOL);
    CHECK_NEAR(mt.natural_map_inf, 0.2, TOL);
    CHECK_NEAR(mt.natural_map_rel_acary, sqrt(0.078) / 5.4, TOL);
    CHECK_NEAR(mt.natural_map_rel_siconos, sqrt(0.078) / sqrt(30.02), TOL);
    CHECK_NEAR(mt.natural_map_rel_fclib, sqrt(0.078) / (1.0 + sqrt(5.4)), TOL);
    CHECK_NEAR(mt.ncp_primal, 0.1, TOL);
    CHECK_NEAR(mt.ncp_dual, 0.2, TOL);
    CHECK_NEAR(mt.ncp_compl, 0.2, TOL);
    CHECK_NEAR(mt.penetration, 0.001, 1e-15);

    /* A non-identity D: same u with D = 2 I changes v_f but no metric except the
     * normalisations by ||v_f|| (v_f = u - 2 lambda). */
    for (int i = 0; i < 9; i++) p.D[i + 9 * i] = 2.0;
    set_u(&p, l, u);
    double nvf2 = 0.0;
    for (int i = 0; i < 9; i++) nvf2 += (u[i] - 2.0 * l[i]) * (u[i] - 2.0 * l[i]);
    ncp_metrics m2 = eval(&p, l);
    CHECK_NEAR(m2.al_residual, 0.075, TOL);
    CHECK_NEAR(m2.natural_map_abs, sqrt(0.078), TOL);
    CHECK_NEAR(m2.natural_map_rel_acary, sqrt(0.078) / sqrt(nvf2), TOL);
    CHECK_NEAR(m2.ncp_compl, 0.2, TOL);
    ncp_problem_free(&p);
}

/* Zero norms: 0/0 = 0 and x/0 = x (absolute value). */
static void test_zero_division(void)
{
    ncp_error err;
    ncp_problem p;
    int types[] = {NCP_SOFT};
    mk_problem(&p, 1, types, &err);
    p.D[0] = 0.0;
    p.vf[0] = 0.0;
    double l[1] = {0.0};
    /* soft row with k phi = 0: F = 0, every norm 0 -> 0 */
    ncp_metrics mt = eval(&p, l);
    CHECK_NEAR(mt.natural_map_rel_acary, 0.0, 0.0);
    CHECK_NEAR(mt.natural_map_rel_siconos, 0.0, 0.0);
    CHECK(!isnan(mt.natural_map_rel_acary) && !isnan(mt.natural_map_rel_siconos));
    /* k phi = 0.3: F = 0.3 while v_f = lambda = u = 0: both relative forms report 0.3 */
    p.blocks[0].k = 3.0;
    p.blocks[0].phi = 0.1;
    mt = eval(&p, l);
    CHECK_NEAR(mt.natural_map_abs, 0.3, TOL);
    CHECK_NEAR(mt.natural_map_rel_acary, 0.3, TOL);
    CHECK_NEAR(mt.natural_map_rel_siconos, 0.3, TOL);
    CHECK_NEAR(mt.natural_map_rel_fclib, 0.3, TOL); /* 1 + sqrt(0) */
    ncp_problem_free(&p);
}

/* ------------------------------------------------------------------------------------------
 * Independent reference implementation (no cone.h, no la.h solves). */

/* Projection onto K_mu (dual = 0) or K*_mu (dual = 1), computed in the 2-D half-plane spanned
 * by the normal and x_t: the cone's section there is the wedge between the rays (1, +-mu)
 * (K) or (mu, +-1) (K*); a point with s >= 0 is inside, or projects onto the upper ray, or onto
 * the apex. */
static void ref_proj(int dual, double mu, const double *x, double *out)
{
    double n = x[0], s = sqrt(x[1] * x[1] + x[2] * x[2]);
    double dn = dual ? mu : 1.0, ds = dual ? 1.0 : mu; /* upper boundary ray */
    double len = sqrt(dn * dn + ds * ds);
    dn /= len;
    ds /= len;
    int inside = dual ? (mu * s <= n) : (n >= 0.0 && s <= mu * n);
    double pn, ps;
    if (inside) {
        pn = n;
        ps = s;
    } else {
        double t = n * dn + s * ds;
        if (t <= 0.0) t = 0.0;
        pn = t * dn;
        ps = t * ds;
    }
    out[0] = pn;
    if (s > 0.0) {
        out[1] = ps * x[1] / s;
        out[2] = ps * x[2] / s;
    } else {
        out[1] = out[2] = 0.0; /* s = 0: ps is 0 too */
    }
}

static void ref_strict(double mu, const double *x, double *out)
{
    double n = x[0] > 0.0 ? x[0] : 0.0, s = sqrt(x[1] * x[1] + x[2] * x[2]);
    double f = (s > mu * n) ? mu * n / s : 1.0;
    out[0] = n;
    out[1] = f * x[1];
    out[2] = f * x[2];
}

/* Solve A x = rhs (n x n, column-major, copied) by Gaussian elimination with partial pivoting. */
static void gauss_solve(int n, const double *A0, const double *rhs, double *x)
{
    double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n);
    if (!A || !b) abort();
    memcpy(A, A0, sizeof(double) * n * n);
    memcpy(b, rhs, sizeof(double) * n);
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int i = c + 1; i < n; i++)
            if (fabs(A[i + c * n]) > fabs(A[piv + c * n])) piv = i;
        for (int j = 0; j < n; j++) {
            double t = A[c + j * n];
            A[c + j * n] = A[piv + j * n];
            A[piv + j * n] = t;
        }
        double t = b[c];
        b[c] = b[piv];
        b[piv] = t;
        for (int i = c + 1; i < n; i++) {
            double f = A[i + c * n] / A[c + c * n];
            for (int j = c; j < n; j++) A[i + j * n] -= f * A[c + j * n];
            b[i] -= f * b[c];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int j = i + 1; j < n; j++) s -= A[i + j * n] * x[j];
        x[i] = s / A[i + i * n];
    }
    free(A);
    free(b);
}

/* Primal route: v = A^{-1}(b + J^T lambda), u = J v + e (CSR arrays read directly). */
static void primal_u(const ncp_problem *p, const double *lambda, double *u)
{
    int n = p->nv, m = p->m;
    double *rhs = malloc(sizeof(double) * n), *v = malloc(sizeof(double) * n);
    if (!rhs || !v) abort();
    memcpy(rhs, p->b, sizeof(double) * n);
    for (int i = 0; i < m; i++)
        for (int q = p->J.rowptr[i]; q < p->J.rowptr[i + 1]; q++)
            rhs[p->J.col[q]] += p->J.val[q] * lambda[i];
    gauss_solve(n, p->A, rhs, v);
    for (int i = 0; i < m; i++) {
        double s = p->e[i];
        for (int q = p->J.rowptr[i]; q < p->J.rowptr[i + 1]; q++) s += p->J.val[q] * v[p->J.col[q]];
        u[i] = s;
    }
    free(rhs);
    free(v);
}

/* Every metric from lambda, a given u and v_f, with the reference operators above. */
static ncp_metrics ref_metrics(const ncp_problem *p, const double *lambda, const double *u,
                               const double *vf)
{
    ncp_metrics r;
    memset(&r, 0, sizeof r);
    double al = 0, alo = 0, F2 = 0, Finf = 0, nvf = 0, nl = 0, nu = 0, box2 = 0;
    for (int i = 0; i < p->m; i++) {
        nvf += vf[i] * vf[i];
        nl += lambda[i] * lambda[i];
        nu += u[i] * u[i];
    }
    for (int b = 0; b < p->nblocks; b++) {
        const ncp_block *bk = &p->blocks[b];
        const double *l = lambda + bk->row, *v = u + bk->row;
        double F[3] = {0, 0, 0};
        int nF = 1;
        if (bk->type == NCP_BILATERAL) {
            F[0] = v[0];
            alo += v[0] * v[0];
            r.ncp_dual = fmax(r.ncp_dual, fabs(v[0]));
        } else if (bk->type == NCP_UNILATERAL) {
            F[0] = l[0] - fmax(0.0, l[0] - v[0]);
            alo += F[0] * F[0];
            r.ncp_primal = fmax(r.ncp_primal, -fmin(0.0, l[0]));
            r.ncp_dual = fmax(r.ncp_dual, -fmin(0.0, v[0]));
            r.ncp_compl = fmax(r.ncp_compl, fabs(l[0] * v[0]));
        } else if (bk->type == NCP_SOFT) {
            F[0] = l[0] + bk->k * bk->phi + bk->c * v[0];
            /* Lee et al. 2025 eq. 15 with beta = 1, u_AL = -lambda, written out */
            double T = -(bk->c * (v[0] - l[0]) + bk->k * bk->phi) / (bk->c + 1.0);
            alo += (l[0] - T) * (l[0] - T);
            r.ncp_dual = fmax(r.ncp_dual, fabs(F[0]));
        } else {
            nF = 3;
            double mu = bk->mu, x[3], t[3];
            double uh[3] = {v[0] + mu * sqrt(v[1] * v[1] + v[2] * v[2]), v[1], v[2]};
            for (int j = 0; j < 3; j++) x[j] = l[j] - v[j];
            ref_strict(mu, x, t);
            for (int j = 0; j < 3; j++) al += (l[j] - t[j]) * (l[j] - t[j]);
            for (int j = 0; j < 3; j++) x[j] = l[j] - uh[j];
            ref_proj(0, mu, x, t);
            for (int j = 0; j < 3; j++) F[j] = l[j] - t[j];
            ref_proj(0, mu, l, t);
            for (int j = 0; j < 3; j++) r.ncp_primal = fmax(r.ncp_primal, fabs(l[j] - t[j]));
            ref_proj(1, mu, uh, t);
            for (int j = 0; j < 3; j++) r.ncp_dual = fmax(r.ncp_dual, fabs(uh[j] - t[j]));
            r.ncp_compl = fmax(r.ncp_compl, fabs(l[0] * uh[0] + l[1] * uh[1] + l[2] * uh[2]));
            /* box-friction LCP: the normal row's min, each friction row's box natural map with
             * the bound mu |lambda_n| written as the three cases of a boxed LCP */
            double bn = l[0] - fmax(0.0, l[0] - v[0]), hi = mu * fabs(l[0]);
            box2 += bn * bn;
            for (int j = 1; j < 3; j++) {
                double y = l[j] - v[j], g = y < -hi ? l[j] + hi : y > hi ? l[j] - hi : v[j];
                box2 += g * g;
            }
            if (p->contacts && bk->contact >= 0)
                r.penetration =
                    fmax(r.penetration, -(p->contacts[bk->contact].gap + p->h * v[0]));
        }
        for (int j = 0; j < nF; j++) {
            F2 += F[j] * F[j];
            if (bk->type != NCP_CONTACT) box2 += F[j] * F[j]; /* the natural map's own rows */
            Finf = fmax(Finf, fabs(F[j]));
        }
    }
    r.al_residual = p->ncontacts ? sqrt(al) / p->ncontacts : 0.0;
    r.al_residual_other = sqrt(alo);
    /* active_contacts: each contact compared with every other one (no running maximum) */
    for (int b = 0; b < p->nblocks; b++) {
        if (p->blocks[b].type != NCP_CONTACT) continue;
        double ln = lambda[p->blocks[b].row];
        int below = ln <= 0.0;
        for (int c = 0; c < p->nblocks && !below; c++)
            if (p->blocks[c].type == NCP_CONTACT && ln <= 1e-3 * lambda[p->blocks[c].row]) below = 1;
        r.active_contacts += !below;
    }
    r.natural_map_abs = sqrt(F2);
    r.natural_map_inf = Finf;
    r.natural_map_rel_acary = sqrt(F2) / sqrt(nvf);
    r.natural_map_rel_siconos = sqrt(F2) / fmax(sqrt(nvf), fmax(sqrt(nl), sqrt(nu)));
    r.natural_map_rel_fclib = sqrt(F2) / (1.0 + sqrt(sqrt(nvf)));
    r.boxlcp_residual = sqrt(box2) / sqrt(nvf);
    return r;
}

/* Reference for sap_momentum and sap_compl (see the file header). R and the stabilisation from
 * D, the contact data, h and e (Castro et al. 2023 eqs. 29-30, §V-A; beta = 1, sigma = 1e-3); gamma per
 * contact = R^{-1/2} Pi_{mu~}(R^{1/2} y), y = -R^{-1} u_hat (App. C); other rows: bilateral
 * -u/R, unilateral max(0, -u/R), soft -(c u + k phi). u is the constraint velocity at lambda. */
static void ref_sap(const ncp_problem *p, const double *D, const double *lambda, const double *u,
                    const double *vf, double *mom, double *compl_)
{
    const double PI = 3.14159265358979323846, rig = 1.0 / (4.0 * PI * PI), sigma = 1e-3;
    int m = p->m;
    double *R = calloc(m, sizeof(double)), *uh = calloc(m, sizeof(double));
    double *g = calloc(m, sizeof(double));
    if (!R || !uh || !g) abort();
    int geom = p->contacts && p->h > 0.0 && p->has_primal && p->e;
    for (int i = 0; i < m; i++) uh[i] = u[i];
    for (int b = 0; b < p->nblocks; b++) {
        const ncp_block *bk = &p->blocks[b];
        int r = bk->row;
        if (bk->type == NCP_BILATERAL || bk->type == NCP_UNILATERAL) {
            R[r] = rig * D[r + r * m];
            double y = -uh[r] / R[r];
            g[r] = bk->type == NCP_BILATERAL ? y : fmax(0.0, y);
        } else if (bk->type == NCP_SOFT) {
            g[r] = -(bk->c * uh[r] + bk->k * bk->phi);
        } else {
            double f = 0.0;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) f += D[r + i + (r + j) * m] * D[r + i + (r + j) * m];
            double w = sqrt(f) / 3.0, Rn = rig * w, Rt = sigma * w;
            const ncp_contact_info *ci = p->contacts ? &p->contacts[bk->contact] : NULL;
            if (ci && p->h > 0.0 && ci->stiffness > 0.0)
                Rn = fmax(Rn, 1.0 / (p->h * ci->stiffness * (p->h + ci->dissipation)));
            if (geom) {
                uh[r] += ci->gap / (p->h + ci->dissipation) - p->e[r];
                uh[r + 1] -= p->e[r + 1];
                uh[r + 2] -= p->e[r + 2];
            }
            R[r] = Rn;
            R[r + 1] = R[r + 2] = Rt;
            double s[3] = {sqrt(Rn), sqrt(Rt), sqrt(Rt)}, yt[3], gt[3];
            for (int i = 0; i < 3; i++) yt[i] = s[i] * (-uh[r + i] / R[r + i]);
            ref_proj(0, bk->mu * sqrt(Rt / Rn), yt, gt);
            for (int i = 0; i < 3; i++) g[r + i] = gt[i] / s[i];
        }
    }
    double num2 = 0.0, den = 0.0;
    if (p->has_primal) {
        /* v = A^{-1}(b + J^T lambda), v* = A^{-1} b; grad = A (v - v*) - J^T gamma */
        int n = p->nv;
        double *rhs = calloc(n, sizeof(double)), *v = calloc(n, sizeof(double));
        double *vs = calloc(n, sizeof(double)), *jg = calloc(n, sizeof(double));
        if (!rhs || !v || !vs || !jg) abort();
        memcpy(rhs, p->b, sizeof(double) * n);
        for (int i = 0; i < m; i++)
            for (int q = p->J.rowptr[i]; q < p->J.rowptr[i + 1]; q++) {
                rhs[p->J.col[q]] += p->J.val[q] * lambda[i];
                jg[p->J.col[q]] += p->J.val[q] * g[i];
            }
        gauss_solve(n, p->A, rhs, v);
        gauss_solve(n, p->A, p->b, vs);
        double p2 = 0.0, c2 = 0.0, l2 = 0.0;
        for (int i = 0; i < n; i++) {
            double az = 0.0, av = 0.0;
            for (int j = 0; j < n; j++) {
                az += p->A[i + j * n] * (v[j] - vs[j]);
                av += p->A[i + j * n] * v[j];
            }
            double ds2 = 1.0 / p->A[i + i * n];
            num2 += ds2 * (az - jg[i]) * (az - jg[i]);
            p2 += ds2 * av * av;
            c2 += ds2 * jg[i] * jg[i];
            l2 += ds2 * (av - p->b[i]) * (av - p->b[i]); /* J^T lambda = A v - b */
        }
        den = sqrt(fmax(p2, fmax(c2, l2)));
        free(rhs);
        free(v);
        free(vs);
        free(jg);
    } else {
        double dl = 0.0, dg = 0.0;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
                num2 += (lambda[i] - g[i]) * D[i + j * m] * (lambda[j] - g[j]);
                dl += lambda[i] * D[i + j * m] * lambda[j];
                dg += g[i] * D[i + j * m] * g[j];
            }
        den = sqrt(fmax(dl, dg));
    }
    *mom = den > 0.0 ? sqrt(num2) / den : sqrt(num2);
    double s = 0.0, lp = 0.0;
    for (int i = 0; i < m; i++) {
        double dli = 0.0;
        for (int j = 0; j < m; j++) dli += D[i + j * m] * lambda[j];
        lp += 0.5 * lambda[i] * (dli + R[i] * lambda[i]);
    }
    (void)vf;
    for (int b = 0; b < p->nblocks; b++) {
        const ncp_block *bk = &p->blocks[b];
        if (bk->type != NCP_CONTACT) continue;
        double d = 0.0;
        for (int i = 0; i < 3; i++) {
            int q = bk->row + i;
            d += (uh[q] + R[q] * lambda[q]) * lambda[q];
        }
        s += fabs(d);
    }
    *compl_ = p->ncontacts ? (lp > 0.0 ? s / p->ncontacts / lp : s / p->ncontacts) : 0.0;
    free(R);
    free(uh);
    free(g);
}

static void check_same(const ncp_metrics *a, const ncp_metrics *b, double tol)
{
    double va[NCP_NMETRICS], vb[NCP_NMETRICS];
    ncp_metrics_values(a, va);
    ncp_metrics_values(b, vb);
    for (int i = 0; i < ncp_metrics_count(); i++) {
        if (!(fabs(va[i] - vb[i]) <= tol * fmax(1.0, fabs(vb[i]))))
            fprintf(stderr, "  metric %s: %.17g vs %.17g\n", ncp_metrics_name(i), va[i], vb[i]);
        CHECK_REL(va[i], vb[i], tol);
    }
}

/* Random problems, random lambda: the module against the reference, with u by the primal
 * route for every metric (so al_residual's dual shortcut is checked against the paper's
 * primal procedure, Lee et al. 2025 §VII). */
static void test_random_independent(void)
{
    ncp_error err;
    ncp_error_clear(&err);
    for (int seed = 1; seed <= 20; seed++) {
        ncp_problem p;
        int nc = 1 + seed % 5, nbil = seed % 2, nuni = seed % 3, nsoft = (seed / 2) % 2;
        int nv = 6 + seed % 7;
        CHECK_OK(tutil_random_problem(&p, (uint64_t)seed, nv, nc, nbil, nuni, nsoft, &err), &err);
        for (int k = 0; k < p.ncontacts; k++) { /* rigid and compliant contacts (h = 0.01) */
            p.contacts[k].stiffness = k % 2 ? 50.0 * k : 0.0;
            p.contacts[k].dissipation = 0.01 * k;
        }
        trng r = {1000u + (uint64_t)seed};
        double *l = malloc(sizeof(double) * p.m), *u = malloc(sizeof(double) * p.m);
        if (!l || !u) abort();
        /* lambda near the cone, some rows inside, some outside */
        for (int i = 0; i < p.m; i++) l[i] = trng_normal(&r);
        for (int b = 0; b < p.nblocks; b++)
            if (p.blocks[b].type == NCP_CONTACT) l[p.blocks[b].row] = fabs(l[p.blocks[b].row]) * 2;
        double *zero = calloc(p.m, sizeof(double)), *vf = malloc(sizeof(double) * p.m);
        if (!zero || !vf) abort();
        primal_u(&p, l, u);
        primal_u(&p, zero, vf); /* v_f = J A^{-1} b + e is u at lambda = 0 */
        ncp_metrics want = ref_metrics(&p, l, u, vf);
        ref_sap(&p, p.D, l, u, vf, &want.sap_momentum, &want.sap_compl);
        CHECK(want.sap_momentum > 1e-3 && want.sap_compl > 1e-6); /* a random lambda is not SAP's */
        ncp_metrics got = eval(&p, l);
        check_same(&got, &want, 1e-9);
        CHECK(want.penetration >= 0.0);

        /* dual-only view of it (primal data hidden): sap_momentum in the form A = I, J = L^T,
         * no geometric stabilisation (e unknown); every other metric unchanged */
        p.has_primal = 0;
        ncp_metrics want_d = want;
        ref_sap(&p, p.D, l, u, vf, &want_d.sap_momentum, &want_d.sap_compl);
        ncp_metrics got_d = eval(&p, l);
        check_same(&got_d, &want_d, 1e-9);
        p.has_primal = 1;

        /* lambda = 0, where u = v_f is taken without the product (metrics.c compute_u, and
         * sap_momentum's D-norms in the dual-only form): against the reference, both views */
        ncp_metrics want0 = ref_metrics(&p, zero, vf, vf);
        ref_sap(&p, p.D, zero, vf, vf, &want0.sap_momentum, &want0.sap_compl);
        ncp_metrics got0 = eval(&p, zero);
        check_same(&got0, &want0, 1e-9);
        p.has_primal = 0;
        ref_sap(&p, p.D, zero, vf, vf, &want0.sap_momentum, &want0.sap_compl);
        got0 = eval(&p, zero);
        check_same(&got0, &want0, 1e-9);
        p.has_primal = 1;

        /* the same problem without its dual data: the workspace derives D and v_f itself */
        free(p.D);
        free(p.vf);
        p.D = p.vf = NULL;
        p.has_dual = 0;
        ncp_metrics_ws *ws = NULL;
        CHECK_OK(ncp_metrics_ws_create(&p, &ws, &err), &err);
        ncp_metrics got2;
        if (ws) {
            CHECK_OK(ncp_metrics_eval(ws, l, &got2, &err), &err);
            check_same(&got2, &want, 1e-9);
            ncp_metrics_ws_free(ws);
        }
        free(zero);
        free(vf);
        free(l);
        free(u);
        ncp_problem_free(&p);
    }
}

/* Many contacts on few dofs (m = 3 nc + 3 >> nv): the workspace takes the low-rank route
 * u = F F^T lambda + v_f (core/dop.h). Checked against the reference metrics with u by the
 * primal route (independent), and against the dense route (D given, primal data hidden) for
 * every metric but sap_momentum and sap_compl, whose dual-only forms are other formulas (no
 * geometric stabilisation without e; checked by test_random_independent). */
static void test_lowrank_route(void)
{
    ncp_error err;
    ncp_error_clear(&err);
    for (int seed = 1; seed <= 5; seed++) {
        ncp_problem p;
        CHECK_OK(tutil_random_problem(&p, 300u + (uint64_t)seed, 6, 40, 1, 2, 0, &err), &err);
        ncp_dop op;
        CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
        CHECK(op.rank == 6);
        ncp_dop_free(&op);
        trng r = {2000u + (uint64_t)seed};
        double *l = malloc(sizeof(double) * p.m), *u = malloc(sizeof(double) * p.m);
        double *zero = calloc(p.m, sizeof(double)), *vf = malloc(sizeof(double) * p.m);
        if (!l || !u || !zero || !vf) abort();
        for (int i = 0; i < p.m; i++) l[i] = trng_normal(&r);
        primal_u(&p, l, u);
        primal_u(&p, zero, vf);
        ncp_metrics want = ref_metrics(&p, l, u, vf);
        ref_sap(&p, p.D, l, u, vf, &want.sap_momentum, &want.sap_compl);
        ncp_metrics got = eval(&p, l);
        check_same(&got, &want, 1e-9);
        /* the stopping test's one column: the same bits as the full evaluation */
        ncp_metrics_ws *ws = NULL;
        CHECK_OK(ncp_metrics_ws_create(&p, &ws, &err), &err);
        for (int c = 0; ws && c < ncp_metrics_count(); c++) {
            double v = NAN;
            CHECK_OK(ncp_metrics_eval_stop(ws, l, c, INFINITY, &v, &err), &err);
            CHECK(v == ncp_metrics_at(&got, c));
            /* with a bound: exact when the value is at most the bound; else a value above the
             * bound that is at most the exact one (a partial natural map) */
            const double full = ncp_metrics_at(&got, c);
            const double bounds[] = {0.0, 0.5 * full, full, 2.0 * full};
            for (int k = 0; k < 4; k++) {
                double vb = NAN;
                CHECK_OK(ncp_metrics_eval_stop(ws, l, c, bounds[k], &vb, &err), &err);
                if (full <= bounds[k]) CHECK(vb == full);
                else CHECK(vb > bounds[k] && vb <= full);
            }
        }
        /* an iterate whose u overflows (lambda finite) or that holds a NaN: NaN with a bound too,
         * as in the full evaluation (the early end never hides it) */
        double *big = malloc(sizeof(double) * p.m);
        if (!big) abort();
        for (int i = 0; i < p.m; i++) big[i] = (i % 2 ? 1e307 : -1e307) * (1.0 + 0.1 * i);
        ncp_metrics gb = eval(&p, big);
        for (int k = 0; ws && k < 2; k++) {
            double vb = 0.0;
            CHECK_OK(ncp_metrics_eval_stop(ws, big, NCP_METRIC_natural_map_rel_acary, 1e-8, &vb,
                                           &err), &err);
            CHECK(isnan(gb.natural_map_rel_acary) ? isnan(vb) : vb > 1e-8);
            big[0] = NAN; /* second pass: a NaN entry */
            gb.natural_map_rel_acary = NAN;
        }
        free(big);
        ncp_metrics_ws_free(ws);
        p.has_primal = 0;
        ncp_metrics dense = eval(&p, l);
        p.has_primal = 1;
        dense.sap_momentum = got.sap_momentum;
        dense.sap_compl = got.sap_compl;
        check_same(&got, &dense, 1e-12);
        free(l);
        free(u);
        free(zero);
        free(vf);
        ncp_problem_free(&p);
    }
}

/* Many bodies whose A is kept sparse (A_sparse block diagonal, rows of J with 12 entries): the
 * workspace takes the sparse route u = J A^{-1} J^T lambda + v_f (core/dop.h). Every metric,
 * sap_momentum included (its primal form reads only diag(A), however A is stored), against the
 * reference metrics of the same problem with A densified (u by the primal route with a dense
 * Gaussian elimination, independent), and ncp_metrics_velocity against that u. */
static void test_sparse_route(void)
{
    ncp_error err;
    ncp_error_clear(&err);
    for (int seed = 1; seed <= 3; seed++) {
        ncp_problem p, q;
        CHECK_OK(tutil_sparse_bodies_problem(&p, 500u + (uint64_t)seed, 20, 100, &err), &err);
        for (int k = 0; k < p.ncontacts; k++) {
            p.contacts[k].stiffness = k % 2 ? 50.0 * k : 0.0;
            p.contacts[k].dissipation = 0.01 * k;
        }
        ncp_dop op;
        CHECK_OK(ncp_dop_init(&op, &p, NCP_DOP_AUTO, &err), &err);
        CHECK(op.chol != NULL);
        ncp_dop_free(&op);
        /* the dense twin: A densified, the sparse copy dropped */
        CHECK_OK(ncp_problem_copy(&q, &p, &err), &err);
        q.A = calloc((size_t)q.nv * q.nv, sizeof(double));
        if (!q.A) abort();
        ncp_csr_to_dense(&q.A_sparse, q.A);
        ncp_csr_free(&q.A_sparse);
        q.has_sparse_primal = 0;
        q.has_primal = 1;
        q.dop_route = 0;
        trng r = {3000u + (uint64_t)seed};
        double *l = malloc(sizeof(double) * p.m), *u = malloc(sizeof(double) * p.m);
        double *zero = calloc(p.m, sizeof(double)), *vf = malloc(sizeof(double) * p.m);
        double *uv = malloc(sizeof(double) * p.m);
        if (!l || !u || !zero || !vf || !uv) abort();
        for (int i = 0; i < p.m; i++) l[i] = trng_normal(&r);
        for (int b = 0; b < p.nblocks; b++)
            if (p.blocks[b].type == NCP_CONTACT) l[p.blocks[b].row] = fabs(l[p.blocks[b].row]) * 2;
        primal_u(&q, l, u);
        primal_u(&q, zero, vf);
        ncp_metrics want = ref_metrics(&q, l, u, vf);
        ref_sap(&q, q.D, l, u, vf, &want.sap_momentum, &want.sap_compl);
        CHECK(want.sap_momentum > 1e-3);
        ncp_metrics got = eval(&p, l);
        check_same(&got, &want, 1e-9);
        ncp_metrics twin = eval(&q, l); /* dense A: the same numbers to rounding */
        check_same(&got, &twin, 1e-11);
        ncp_metrics_ws *ws = NULL;
        CHECK_OK(ncp_metrics_ws_create(&p, &ws, &err), &err);
        if (ws) {
            ncp_metrics_velocity(ws, l, uv);
            double sc = ncp_norminf(p.m, u);
            for (int i = 0; i < p.m; i++) CHECK_NEAR(uv[i], u[i], 1e-11 * sc);
            ncp_metrics_velocity(ws, zero, uv); /* lambda = 0: v_f exactly */
            CHECK(memcmp(uv, p.vf, sizeof(double) * p.m) == 0);
            ncp_metrics_ws_free(ws);
        }
        free(l);
        free(u);
        free(zero);
        free(vf);
        free(uv);
        ncp_problem_free(&p);
        ncp_problem_free(&q);
    }
}

/* Exact solution built per block (open / stick / slide contacts, each other row type), then
 * v_f = u* - D lambda* and e shifted to keep the primal data consistent. Every residual
 * vanishes; the relative natural maps are invariant under scaling (lambda, v_f, phi). */
static void test_exact_solution_and_scaling(void)
{
    ncp_error err;
    ncp_error_clear(&err);
    for (int seed = 1; seed <= 10; seed++) {
        ncp_problem p;
        CHECK_OK(tutil_random_problem(&p, 77u + (uint64_t)seed, 10, 6, 1, 2, 2, &err), &err);
        trng r = {500u + (uint64_t)seed};
        int m = p.m;
        double *l = calloc(m, sizeof(double)), *u = calloc(m, sizeof(double));
        if (!l || !u) abort();
        int kc = 0, ku = 0;
        for (int b = 0; b < p.nblocks; b++) {
            ncp_block *bk = &p.blocks[b];
            double *lb = l + bk->row, *ub = u + bk->row;
            switch (bk->type) {
            case NCP_BILATERAL:
                lb[0] = trng_normal(&r);
                ub[0] = 0.0;
                break;
            case NCP_UNILATERAL:
                if (ku++ % 2) lb[0] = 0.5 + trng_uniform(&r), ub[0] = 0.0;
                else lb[0] = 0.0, ub[0] = 0.5 + trng_uniform(&r);
                break;
            case NCP_SOFT:
                ub[0] = trng_normal(&r);
                lb[0] = -bk->k * bk->phi - bk->c * ub[0];
                break;
            case NCP_CONTACT: {
                double mu = bk->mu, th = 6.283185307179586 * trng_uniform(&r);
                switch (kc++ % 3) {
                case 0: /* open: lambda = 0, u_n > 0, any slip */
                    ub[0] = 0.1 + trng_uniform(&r);
                    ub[1] = trng_normal(&r);
                    ub[2] = trng_normal(&r);
                    break;
                case 1: /* stick: lambda strictly inside K, u = 0 */
                    lb[0] = 0.5 + trng_uniform(&r);
                    lb[1] = 0.7 * mu * lb[0] * cos(th);
                    lb[2] = 0.7 * mu * lb[0] * sin(th);
                    break;
                default: /* slide: u_n = 0, lambda_t = -mu lambda_n u_t / ||u_t|| */
                    lb[0] = 0.5 + trng_uniform(&r);
                    ub[1] = 0.3 * cos(th);
                    ub[2] = 0.3 * sin(th);
                    lb[1] = -mu * lb[0] * cos(th);
                    lb[2] = -mu * lb[0] * sin(th);
                    break;
                }
                break;
            }
            }
        }
        /* v_f = u* - D lambda*; e moves by the same amount as v_f (v_f = J A^-1 b + e). */
        for (int i = 0; i < m; i++) {
            double s = 0.0;
            for (int j = 0; j < m; j++) s += p.D[i + j * m] * l[j];
            double vf_new = u[i] - s;
            p.e[i] += vf_new - p.vf[i];
            p.vf[i] = vf_new;
        }
        for (int k = 0; k < p.ncontacts; k++) p.contacts[k].gap = 0.0; /* touching */
        ncp_metrics mt = eval(&p, l);
        double sc = 1e-12 * (1.0 + ncp_norm2(m, l));
        CHECK_NEAR(mt.al_residual, 0.0, sc);
        CHECK_NEAR(mt.al_residual_other, 0.0, sc);
        CHECK_NEAR(mt.natural_map_abs, 0.0, sc);
        CHECK_NEAR(mt.natural_map_inf, 0.0, sc);
        CHECK_NEAR(mt.natural_map_rel_acary, 0.0, sc);
        CHECK_NEAR(mt.natural_map_rel_siconos, 0.0, sc);
        CHECK_NEAR(mt.natural_map_rel_fclib, 0.0, sc);
        CHECK_NEAR(mt.ncp_primal, 0.0, sc);
        CHECK_NEAR(mt.ncp_dual, 0.0, sc);
        CHECK_NEAR(mt.ncp_compl, 0.0, sc);
        CHECK_NEAR(mt.penetration, 0.0, sc); /* gap 0 and u_n >= 0 everywhere */
        /* the primal route at the exact solution gives back u* */
        double *up = malloc(sizeof(double) * m);
        if (!up) abort();
        primal_u(&p, l, up);
        for (int i = 0; i < m; i++) CHECK_NEAR(up[i], u[i], 1e-10);
        free(up);

        /* Scaling: perturb lambda off the solution, then (lambda, v_f, phi) -> a (...) with
         * D fixed: u, F and every residual scale by a, compl by a^2; the Acary and Siconos
         * normalisations do not change. */
        for (int i = 0; i < m; i++) l[i] += 0.1 * trng_normal(&r);
        ncp_metrics m1 = eval(&p, l);
        const double a = 7.3;
        for (int i = 0; i < m; i++) {
            l[i] *= a;
            p.vf[i] *= a;
        }
        for (int b = 0; b < p.nblocks; b++) p.blocks[b].phi *= a;
        ncp_metrics m2 = eval(&p, l);
        CHECK(m1.natural_map_abs > 1e-3);
        CHECK_REL(m2.natural_map_rel_acary, m1.natural_map_rel_acary, 1e-12);
        CHECK_REL(m2.natural_map_rel_siconos, m1.natural_map_rel_siconos, 1e-12);
        CHECK_REL(m2.natural_map_abs, a * m1.natural_map_abs, 1e-12);
        CHECK_REL(m2.natural_map_inf, a * m1.natural_map_inf, 1e-12);
        CHECK_REL(m2.al_residual, a * m1.al_residual, 1e-12);
        CHECK_REL(m2.al_residual_other, a * m1.al_residual_other, 1e-12);
        CHECK_REL(m2.ncp_primal, a * m1.ncp_primal, 1e-12);
        CHECK_REL(m2.ncp_dual, a * m1.ncp_dual, 1e-12);
        CHECK_REL(m2.ncp_compl, a * a * m1.ncp_compl, 1e-12);
        /* FCLib's form is not scale invariant (square root of ||v_f||): check its formula */
        CHECK_REL(m2.natural_map_rel_fclib,
                  m2.natural_map_abs / (1.0 + sqrt(ncp_norm2(m, p.vf))), 1e-12);
        free(l);
        free(u);
        ncp_problem_free(&p);
    }
}

static void test_nan(void)
{
    ncp_error err;
    ncp_error_clear(&err);
    ncp_problem p;
    CHECK_OK(tutil_random_problem(&p, 3, 8, 3, 1, 1, 1, &err), &err);
    double *l = calloc(p.m, sizeof(double));
    if (!l) abort();
    l[4] = NAN;
    ncp_metrics_ws *ws = NULL;
    CHECK_OK(ncp_metrics_ws_create(&p, &ws, &err), &err);
    if (ws) {
        ncp_metrics mt;
        CHECK(ncp_metrics_eval(ws, l, &mt, &err) == NCP_OK);
        double v[NCP_NMETRICS];
        ncp_metrics_values(&mt, v);
        for (int i = 0; i < ncp_metrics_count(); i++) CHECK(isnan(v[i]));
        /* Inf also yields NaN everywhere (no partial numbers for a diverged iterate) */
        l[4] = INFINITY;
        CHECK(ncp_metrics_eval(ws, l, &mt, &err) == NCP_OK);
        ncp_metrics_values(&mt, v);
        for (int i = 0; i < ncp_metrics_count(); i++) CHECK(isnan(v[i]));
        /* and the workspace is still good for a finite iterate */
        l[4] = 0.0;
        CHECK(ncp_metrics_eval(ws, l, &mt, &err) == NCP_OK);
        ncp_metrics_values(&mt, v);
        for (int i = 0; i < ncp_metrics_count(); i++) CHECK(isfinite(v[i]));
        ncp_metrics_ws_free(ws);
    }
    free(l);
    ncp_problem_free(&p);
}

static void test_names(void)
{
    static const char *const want[] = {
        "al_residual",           "al_residual_other", "natural_map_abs",
        "natural_map_inf",       "natural_map_rel_acary", "natural_map_rel_siconos",
        "natural_map_rel_fclib", "ncp_primal",        "ncp_dual",
        "ncp_compl",             "penetration",       "sap_momentum",
        "sap_compl",             "active_contacts",   "boxlcp_residual"};
    enum { N = 15 };
    CHECK(ncp_metrics_count() == N);
    for (int i = 0; i < N; i++) {
        CHECK(ncp_metrics_name(i) && strcmp(ncp_metrics_name(i), want[i]) == 0);
        CHECK(ncp_metrics_index(want[i]) == i);
    }
    CHECK(ncp_metrics_name(-1) == NULL);
    CHECK(ncp_metrics_name(N) == NULL);
    CHECK(ncp_metrics_index("natural_map") == -1);
    CHECK(ncp_metrics_index(NULL) == -1);
    /* values() follows the struct order */
    ncp_metrics mt = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    double v[N];
    ncp_metrics_values(&mt, v);
    for (int i = 0; i < N; i++) CHECK_NEAR(v[i], i + 1.0, 0.0);
    CHECK_NEAR(v[ncp_metrics_index("natural_map_rel_siconos")], mt.natural_map_rel_siconos, 0.0);
    CHECK_NEAR(v[ncp_metrics_index("penetration")], mt.penetration, 0.0);
    CHECK_NEAR(v[ncp_metrics_index("sap_momentum")], mt.sap_momentum, 0.0);
    CHECK_NEAR(v[ncp_metrics_index("sap_compl")], mt.sap_compl, 0.0);
    CHECK_NEAR(v[ncp_metrics_index("active_contacts")], mt.active_contacts, 0.0);
}

/* boxlcp_residual by hand: one contact, D = I, mu = 0.3.
 *   v_f = (-1, 0.5, 0): the box LCP's answer (1, -0.3, 0) (u = (0, 0.2, 0): the friction row at
 *   its bound -0.3 with u_t1 > 0) is also the Coulomb answer (sliding along t1): both 0.
 *   v_f = (-1, 0.5, 0.5): the box answer (1, -0.3, -0.3) has |lambda_t| = 0.3 sqrt 2 > mu
 *   lambda_n: box residual 0, Coulomb natural map not; the Coulomb answer (1, -0.3 / sqrt 2 each)
 *   leaves each friction row 0.3 - 0.3 / sqrt 2 inside a box it should sit at the edge of
 *   (lambda_j - u_j = -0.5 is clamped to -0.3): box residual sqrt 2 (0.3 - 0.3 / sqrt 2) /
 *   ||v_f||, ||v_f|| = sqrt 1.5. Bilateral and unilateral rows count as in the natural map. */
static void test_boxlcp(void)
{
    ncp_error err;
    ncp_problem p;
    int types[] = {NCP_CONTACT, NCP_BILATERAL, NCP_UNILATERAL};
    mk_problem(&p, 3, types, &err);
    p.blocks[0].mu = 0.3;
    double l[5] = {1.0, -0.3, 0.0, 0.0, 0.0}, u[5] = {0.0, 0.2, 0.0, 0.0, 0.0};
    set_u(&p, l, u); /* v_f = u - lambda = (-1, 0.5, 0) */
    ncp_metrics mt = eval(&p, l);
    CHECK_NEAR(mt.boxlcp_residual, 0.0, TOL);
    CHECK_NEAR(mt.natural_map_abs, 0.0, TOL);
    u[2] = 0.2;
    l[2] = -0.3;
    set_u(&p, l, u); /* v_f = (-1, 0.5, 0.5) */
    mt = eval(&p, l);
    CHECK_NEAR(mt.boxlcp_residual, 0.0, TOL);
    CHECK(mt.natural_map_abs > 0.05);
    const double s = 0.3 / sqrt(2.0);
    l[1] = l[2] = -s;
    u[1] = u[2] = 0.5 - s;
    mt = eval(&p, l);
    CHECK_NEAR(mt.natural_map_abs, 0.0, TOL);
    CHECK_NEAR(mt.boxlcp_residual, sqrt(2.0) * (0.3 - s) / sqrt(1.5), TOL);
    /* a bilateral row's u = 0.1 and a unilateral row with lambda = 0.2, u = -0.05 add their
     * natural-map rows 0.1 and -0.05 (v_f changes with them: the norm recomputed) */
    l[4] = 0.2;
    u[3] = 0.1;
    u[4] = -0.05;
    set_u(&p, l, u);
    double nvf2 = 0.0;
    for (int i = 0; i < 5; i++) nvf2 += (u[i] - l[i]) * (u[i] - l[i]);
    mt = eval(&p, l);
    CHECK_NEAR(mt.boxlcp_residual,
               sqrt(2.0 * (0.3 - s) * (0.3 - s) + 0.01 + 0.0025) / sqrt(nvf2), TOL);
    ncp_problem_free(&p);
}

/* active_contacts by hand: five contacts and a unilateral row, D = I. Normal impulses
 * (2, 0.003, 0.002, 0.0019, -1) against the threshold 1e-3 * 2 = 0.002 (strict): the first two
 * carry load, 0.002 is exactly at the threshold (not counted), 0.0019 below it, -1 is not a
 * load; the unilateral row's impulse 50 is no contact and does not set the scale. So 2, for
 * lambda and for 1024 lambda (scale-free); 0 at lambda = 0 and when every lambda_n <= 0; with
 * the largest contact removed (lambda_n,0 = 0) the scale is 0.003, threshold 3e-6: 3. */
static void test_active_contacts(void)
{
    ncp_error err;
    ncp_error_clear(&err);
    ncp_problem p;
    int types[] = {NCP_CONTACT, NCP_CONTACT, NCP_UNILATERAL, NCP_CONTACT, NCP_CONTACT, NCP_CONTACT};
    mk_problem(&p, 6, types, &err);
    for (int b = 0; b < p.nblocks; b++) p.blocks[b].mu = 0.5;
    double ln[] = {2.0, 0.003, 50.0, 0.002, 0.0019, -1.0};
    double *l = calloc((size_t)p.m, sizeof *l), *u = calloc((size_t)p.m, sizeof *u);
    if (!l || !u) abort();
    for (int b = 0; b < p.nblocks; b++) l[p.blocks[b].row] = ln[b];
    l[p.blocks[0].row + 1] = 0.3; /* friction does not enter the count */
    for (int i = 0; i < p.m; i++) u[i] = 0.1;
    set_u(&p, l, u);
    CHECK_NEAR(eval(&p, l).active_contacts, 2.0, 0.0);
    for (int i = 0; i < p.m; i++) l[i] *= 1024.0; /* a power of 2: the tie stays exact */
    CHECK_NEAR(eval(&p, l).active_contacts, 2.0, 0.0);
    for (int i = 0; i < p.m; i++) l[i] /= 1024.0;
    l[p.blocks[0].row] = 0.0;
    CHECK_NEAR(eval(&p, l).active_contacts, 3.0, 0.0);
    for (int b = 0; b < p.nblocks; b++) l[p.blocks[b].row] = b == 2 ? 50.0 : -fabs(ln[b]);
    CHECK_NEAR(eval(&p, l).active_contacts, 0.0, 0.0);
    memset(l, 0, (size_t)p.m * sizeof *l);
    CHECK_NEAR(eval(&p, l).active_contacts, 0.0, 0.0);
    free(l);
    free(u);
    ncp_problem_free(&p);
}

static void test_bad_problems(void)
{
    ncp_error err;
    ncp_problem p;
    ncp_metrics_ws *ws = NULL;
    int types[] = {NCP_UNILATERAL, NCP_CONTACT, NCP_SOFT};

    mk_problem(&p, 3, types, &err);
    p.blocks[1].row = 3; /* rows 3..5 with m = 5 */
    ncp_error_clear(&err);
    CHECK(ncp_metrics_ws_create(&p, &ws, &err) == NCP_ERR_INPUT);
    CHECK(ws == NULL && strstr(err.msg, "block 1") != NULL);
    ncp_problem_free(&p);

    mk_problem(&p, 3, types, &err);
    p.blocks[1].mu = -0.1;
    ncp_error_clear(&err);
    CHECK(ncp_metrics_ws_create(&p, &ws, &err) == NCP_ERR_INPUT);
    CHECK(ws == NULL && strstr(err.msg, "mu") != NULL);
    ncp_problem_free(&p);

    mk_problem(&p, 3, types, &err);
    p.blocks[2].c = -2.0;
    ncp_error_clear(&err);
    CHECK(ncp_metrics_ws_create(&p, &ws, &err) == NCP_ERR_INPUT);
    CHECK(ws == NULL && err.msg[0] != '\0');
    ncp_problem_free(&p);

    mk_problem(&p, 3, types, &err);
    p.blocks[0].type = 7;
    ncp_error_clear(&err);
    CHECK(ncp_metrics_ws_create(&p, &ws, &err) == NCP_ERR_INPUT);
    ncp_problem_free(&p);

    mk_problem(&p, 3, types, &err);
    p.has_dual = 0; /* and no primal either */
    ncp_error_clear(&err);
    CHECK(ncp_metrics_ws_create(&p, &ws, &err) == NCP_ERR_INPUT);
    CHECK(ws == NULL);
    ncp_problem_free(&p);

    /* primal-only problem whose J does not match A */
    ncp_error_clear(&err);
    CHECK_OK(tutil_random_problem(&p, 11, 6, 2, 0, 1, 0, &err), &err);
    p.has_dual = 0;
    p.J.n = p.nv + 1;
    CHECK(ncp_metrics_ws_create(&p, &ws, &err) == NCP_ERR_INPUT);
    CHECK(ws == NULL && strstr(err.msg, "primal") != NULL);
    p.J.n = p.nv;
    ncp_problem_free(&p);

    /* no rows at all: every metric is 0 */
    ncp_problem_init(&p);
    ncp_error_clear(&err);
    CHECK_OK(ncp_metrics_ws_create(&p, &ws, &err), &err);
    if (ws) {
        ncp_metrics mt;
        memset(&mt, 0xff, sizeof mt);
        CHECK_OK(ncp_metrics_eval(ws, NULL, &mt, &err), &err);
        double v[NCP_NMETRICS];
        ncp_metrics_values(&mt, v);
        for (int i = 0; i < NCP_NMETRICS; i++) CHECK_NEAR(v[i], 0.0, 0.0);
        ncp_metrics_ws_free(ws);
    }
    ncp_problem_free(&p);
}

int main(void)
{
    test_names();
    test_active_contacts();
    test_boxlcp();
    test_open();
    test_stick();
    test_sap_hand();
    test_slide();
    test_penetrating();
    test_frictionless();
    test_other_rows();
    test_stacked();
    test_zero_division();
    test_random_independent();
    test_lowrank_route();
    test_sparse_route();
    test_exact_solution_and_scaling();
    test_nan();
    test_bad_problems();
    return tcheck_exit("metrics");
}
