/* sap (solvers/sap.c) and its model (src/core/sap_model.c), Castro et al. 2023.
 *
 * (a) the R-norm projection (App. C eq. 27) against an independent optimality certificate
 *     (gamma ∈ F, R(gamma - y) ∈ F*, complementarity) and a brute-force minimisation over a
 *     parametrisation of the cone; its derivative against central differences;
 * (b) per block: gamma = -dl/du_hat and G = -dgamma/du_hat by finite differences, G symmetric PSD;
 * (c) analytic single contacts: stick gamma = -(D + R)^{-1} v_f, slide on the boundary ray with
 *     the closed form of the (D + R)-metric problem; a compliant point mass that obeys the
 *     paper's force law (eq. 2) exactly, and its near-rigid counterpart (eq. 29 first branch);
 * (d) Newton converges on random problems to the paper's tolerance (eq. 26, recomputed here from
 *     the returned v and gamma with the test's own algebra), answers in the cone;
 * (e) the contact-space path gives the primal path's answer;
 * (f) near-rigid: with beta -> 0 (sigma = beta^2/(4 pi^2)) SAP's answer approaches the NCP
 *     solution (nsn-nm, and a problem constructed with a known stick/open solution);
 * (g) warm start from the solution stops within one iteration; iteration and time budgets;
 *     parameter and input errors;
 * (h) the sparse Newton matrix (solvers/sap_sparse.h) against the dense one: the same iterates
 *     (the solve stopped after k Newton iterations, every k) to 1e-10 relative, on random
 *     problems (sparse = 1 against 0) and on a captured pile of boxes whose A the capture keeps
 *     block-diagonal (the block route, sparse by default) against the same step captured with
 *     a dense A (dense by default).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <limits.h>

#include "solve/harness.h"
#include "core/la.h"
#include "scene/scene.h"
#include "sim/assemble.h"
#include "sim/world.h"
#include "metrics/metrics.h"
#include "solvers/registry.h"
#include "core/sap_model.h"
#include "tcheck.h"
#include "testutil.h"

static const double PI = 3.14159265358979323846;

/* ---------- (a) projection ---------- */

static double rcost(const double R[3], const double g[3], const double y[3])
{
    double s = 0.0;
    for (int i = 0; i < 3; i++) s += R[i] * (g[i] - y[i]) * (g[i] - y[i]);
    return 0.5 * s;
}

/* Brute force: min over gamma = a (1, mu rho cos th, mu rho sin th), a >= 0, rho in [0, 1] — a
 * grid, then a shrinking pattern search from the best grid point. */
static void brute_project(double mu, const double R[3], const double y[3], double out[3])
{
    double scale = fabs(y[0]) + hypot(y[1], y[2]) + 1e-300;
    double best = INFINITY, ba = 0.0, br = 0.0, bt = 0.0;
    const int NA = 60, NR = 21, NT = 72;
    for (int ia = 0; ia <= NA; ia++) {
        double a = 2.0 * scale * ia / NA;
        for (int ir = 0; ir < NR; ir++) {
            double rho = (double)ir / (NR - 1);
            for (int it = 0; it < NT; it++) {
                double th = 2.0 * PI * it / NT;
                double g[3] = {a, a * mu * rho * cos(th), a * mu * rho * sin(th)};
                double c = rcost(R, g, y);
                if (c < best) {
                    best = c;
                    ba = a;
                    br = rho;
                    bt = th;
                }
            }
        }
    }
    double sa = scale / NA, sr = 0.05, st = 0.1;
    for (int iter = 0; iter < 20000 && (sa > 1e-15 * scale || sr > 1e-15); iter++) {
        int moved = 0;
        double cand[6][3] = {{ba + sa, br, bt}, {ba - sa, br, bt}, {ba, br + sr, bt},
                             {ba, br - sr, bt}, {ba, br, bt + st}, {ba, br, bt - st}};
        for (int c = 0; c < 6; c++) {
            double a = fmax(0.0, cand[c][0]), rho = fmin(1.0, fmax(0.0, cand[c][1]));
            double th = cand[c][2];
            double g[3] = {a, a * mu * rho * cos(th), a * mu * rho * sin(th)};
            double v = rcost(R, g, y);
            if (v < best) {
                best = v;
                ba = a;
                br = rho;
                bt = th;
                moved = 1;
            }
        }
        if (!moved) {
            sa *= 0.5;
            sr *= 0.5;
            st *= 0.5;
        }
    }
    out[0] = ba;
    out[1] = ba * mu * br * cos(bt);
    out[2] = ba * mu * br * sin(bt);
}

static void test_projection(void)
{
    trng r = {77};
    int regions[3] = {0, 0, 0};
    double worst_kkt = 0.0, worst_bf = 0.0;
    for (int c = 0; c < 400; c++) {
        double mu = c % 10 == 0 ? 0.0 : 0.05 + 2.0 * trng_uniform(&r);
        double Rn = pow(10.0, -3.0 + 4.0 * trng_uniform(&r));
        double Rt = Rn * pow(10.0, -4.0 + 5.0 * trng_uniform(&r));
        double R[3] = {Rn, Rt, Rt};
        double y[3] = {trng_normal(&r), trng_normal(&r), trng_normal(&r)};
        double g[3], dg[9];
        int reg = ncp_sap_project(mu, Rn, Rt, y, g, dg);
        CHECK(reg >= 0 && reg <= 2);
        if (reg < 0 || reg > 2) continue;
        regions[reg]++;
        /* certificate: gamma ∈ F, z = R (gamma - y) ∈ F*, gamma . z = 0 */
        double z[3], sc = fabs(y[0]) + hypot(y[1], y[2]);
        for (int i = 0; i < 3; i++) z[i] = R[i] * (g[i] - y[i]);
        double rs = Rn + Rt;
        double kkt = fmax(fmax(hypot(g[1], g[2]) - mu * g[0], -g[0]) / sc,
                          fmax(mu * hypot(z[1], z[2]) - z[0], fabs(g[0] * z[0] + g[1] * z[1] +
                                                                   g[2] * z[2]) / sc) /
                              (rs * sc));
        worst_kkt = fmax(worst_kkt, kkt);
        CHECK(kkt <= 1e-13);
        /* brute force (fewer cases: it is slow) */
        if (c < 80) {
            double b[3];
            brute_project(mu, R, y, b);
            double d = rcost(R, g, y) - rcost(R, b, y);
            double rel = d / (rs * sc * sc);
            worst_bf = fmax(worst_bf, rel);
            CHECK(rel <= 1e-12); /* the analytic point is at least as good */
        }
        /* aliasing allowed */
        double ya[3] = {y[0], y[1], y[2]};
        ncp_sap_project(mu, Rn, Rt, ya, ya, NULL);
        for (int i = 0; i < 3; i++) CHECK(ya[i] == g[i]);
        /* derivative, central differences (skip points within 1e-4 of a region boundary) */
        double h = 1e-6 * sc, fd[9];
        int same = 1;
        for (int j = 0; j < 3 && same; j++) {
            double yp[3] = {y[0], y[1], y[2]}, ym[3] = {y[0], y[1], y[2]}, gp[3], gm[3];
            yp[j] += h;
            ym[j] -= h;
            double yp2[3] = {y[0], y[1], y[2]}, ym2[3] = {y[0], y[1], y[2]}, tmp[3];
            yp2[j] += 1e-4 * sc;
            ym2[j] -= 1e-4 * sc;
            same = ncp_sap_project(mu, Rn, Rt, yp, gp, NULL) == reg &&
                   ncp_sap_project(mu, Rn, Rt, ym, gm, NULL) == reg &&
                   ncp_sap_project(mu, Rn, Rt, yp2, tmp, NULL) == reg &&
                   ncp_sap_project(mu, Rn, Rt, ym2, tmp, NULL) == reg;
            for (int i = 0; i < 3; i++) fd[i + 3 * j] = (gp[i] - gm[i]) / (2.0 * h);
        }
        if (same)
            for (int i = 0; i < 9; i++) CHECK_NEAR(dg[i], fd[i], 1e-6 * (1.0 + fabs(dg[i])));
    }
    printf("projection: stick %d, slide %d, open %d; worst certificate %.2e, worst brute-force "
           "excess %.2e\n",
           regions[0], regions[1], regions[2], worst_kkt, worst_bf);
    CHECK(regions[0] > 20 && regions[1] > 20 && regions[2] > 20);

    /* exact boundary cases: apex, mu = 0, the polar boundary (assigned to slide, gamma = 0) */
    double g[3], dg[9];
    double y0[3] = {0.0, 0.0, 0.0};
    CHECK(ncp_sap_project(0.5, 1.0, 0.1, y0, g, dg) == NCP_SAP_STICK);
    CHECK(g[0] == 0.0 && g[1] == 0.0 && g[2] == 0.0 && dg[0] == 1.0 && dg[4] == 1.0);
    double ym[3] = {-1.0, 0.0, 0.0};
    CHECK(ncp_sap_project(0.0, 1.0, 0.1, ym, g, NULL) == NCP_SAP_OPEN);
    CHECK(g[0] == 0.0);
    double yf[3] = {2.0, 3.0, -4.0}; /* mu = 0: gamma = (y_n, 0, 0) */
    CHECK(ncp_sap_project(0.0, 1.0, 0.1, yf, g, NULL) == NCP_SAP_SLIDE);
    CHECK(g[0] == 2.0 && g[1] == 0.0 && g[2] == 0.0);
    /* polar boundary y_n = -mu_hat y_r: mu = 1, Rt/Rn = 0.5 -> mu_hat = 0.5, y_r = 2, y_n = -1 */
    double yb[3] = {-1.0, 2.0, 0.0};
    CHECK(ncp_sap_project(1.0, 2.0, 1.0, yb, g, NULL) == NCP_SAP_SLIDE);
    CHECK_NEAR(g[0], 0.0, 1e-16);
}

/* ---------- (b) block derivatives ---------- */

static void test_block_derivatives(void)
{
    ncp_problem p;
    ncp_error err = {0};
    CHECK_OK(tutil_random_problem(&p, 31, 12, 2, 1, 1, 1, &err), &err);
    ncp_sap_model sm;
    ncp_dop dense = {.m = p.m, .D = p.D}; /* the dense route: nothing to allocate */
    CHECK_OK(ncp_sap_model_build(&p, &dense, 0.7, 0.01, &sm, &err), &err);
    trng r = {5};
    for (int trial = 0; trial < 200; trial++) {
        int bi = trial % p.nblocks;
        const ncp_block *b = &p.blocks[bi];
        int s = ncp_block_type_size(b->type), row = b->row;
        double u[3], g[3], G[9];
        for (int i = 0; i < s; i++) u[i] = 0.3 * trng_normal(&r) * sm.R[row + i] * 3.0 +
                                           (b->type == NCP_SOFT ? trng_normal(&r) : 0.0);
        ncp_sap_block(&p, &sm, bi, u, g, G);
        double scale = 0.0;
        for (int i = 0; i < s; i++) scale += fabs(u[i]);
        double h = 1e-6 * (scale + 1e-3);
        for (int j = 0; j < s; j++) {
            double up[3], um[3], gp[3], gm[3];
            memcpy(up, u, sizeof up);
            memcpy(um, u, sizeof um);
            up[j] += h;
            um[j] -= h;
            double lp = ncp_sap_block(&p, &sm, bi, up, gp, NULL);
            double lm = ncp_sap_block(&p, &sm, bi, um, gm, NULL);
            /* gamma = -dl/du_hat (eq. 39) */
            CHECK_NEAR(-(lp - lm) / (2.0 * h), g[j], 1e-5 * (1.0 + fabs(g[j])));
            /* G = -dgamma/du_hat; skip kinks (a region change inside +-h) */
            for (int i = 0; i < s; i++) {
                double fd = -(gp[i] - gm[i]) / (2.0 * h);
                double gij = G[i + s * j];
                if (fabs(fd - gij) > 1e-4 * (1.0 + fabs(gij))) {
                    /* allowed only at a kink: then the one-sided slopes differ */
                    double f1 = -(gp[i] - g[i]) / h, f2 = -(g[i] - gm[i]) / h;
                    CHECK(fabs(f1 - f2) > 1e-3 * (1.0 + fabs(gij)));
                }
            }
        }
        /* symmetric PSD */
        for (int i = 0; i < s; i++)
            for (int j = 0; j < s; j++) CHECK(G[i + s * j] == G[j + s * i]);
        if (s == 3) {
            double E[9], ev[3];
            memcpy(E, G, sizeof E);
            CHECK_OK(ncp_sym_eig(3, E, ev, &err), &err);
            CHECK(ev[0] >= -1e-12 * fabs(ev[2]));
        } else {
            CHECK(G[0] >= 0.0);
        }
    }
    ncp_sap_model_free(&sm);
    ncp_problem_free(&p);
}

/* ---------- running the solver ---------- */

static const ncp_solver_desc *S_SAP, *S_NSN;

static int t_solve(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps,
                   const double *lambda0, const double *v0, double tol, int max_iter,
                   double time_ms, ncp_result *res)
{
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    o.budget.tol = tol;
    o.budget.max_iter = max_iter;
    o.budget.time_ms = time_ms;
    o.stop_metric = ncp_metrics_index("natural_map_abs");
    return tutil_solve_opts(s, p, ps, lambda0, v0, &o, res);
}

/* SAP's own convergence (tol -1: the harness's NCP metric never stops it). */
static int sap_own(const ncp_problem *p, const ncp_params *ps, const double *lambda0,
                   const double *v0, ncp_result *res)
{
    int rc = t_solve(S_SAP, p, ps, lambda0, v0, -1.0, 200, 0.0, res);
    CHECK(rc == 0);
    if (!rc) CHECK(res->status == NCP_STATUS_STALLED);
    return rc;
}

/* ---------- (c) analytic ---------- */

static void test_single_contact(void)
{
    /* D = diag(a, b, b), no geometry (shift 0): SAP solves min 1/2 g^T N g + v_f^T g over F with
     * N = D + R = diag(a + Rn, b + Rt, b + Rt), R from w = ||D||_F / 3 (eqs. 29-30).
     *   stick: g = -N^{-1} v_f when inside F;
     *   slide: g = s (1, mu t), t = -v_f,t/|v_f,t| (friction opposes the free slip), and
     *          s = (-v_f,n + mu |v_f,t|) / (N_n + mu^2 N_t) minimises the quadratic along the ray
     *          (valid when the unconstrained point lies outside F and s > 0). */
    const double a = 2.0, b = 0.5, mu = 0.5, beta = 1.0, sigma = 1e-3;
    const double w = sqrt(a * a + 2.0 * b * b) / 3.0;
    const double Rn = beta * beta / (4.0 * PI * PI) * w, Rt = sigma * w;
    const double Nn = a + Rn, Nt = b + Rt;
    struct {
        const char *name;
        double vf[3];
    } cases[] = {
        {"stick", {-1.0, 0.1, -0.05}}, {"slide", {-1.0, 0.6, 0.8}}, {"open", {1.0, 0.7, -0.2}}};
    const double G[9] = {a, 0, 0, 0, b, 0, 0, 0, b};
    for (int c = 0; c < 3; c++) {
        ncp_problem p;
        ncp_error err = {0};
        CHECK_OK(tutil_one_contact(&p, G, cases[c].vf, mu, &err), &err);
        double ex[3];
        const double *q = cases[c].vf;
        if (c == 0) {
            ex[0] = -q[0] / Nn;
            ex[1] = -q[1] / Nt;
            ex[2] = -q[2] / Nt;
            CHECK(hypot(ex[1], ex[2]) < mu * ex[0]); /* really stick */
        } else if (c == 1) {
            double qt = hypot(q[1], q[2]);
            double s = (-q[0] + mu * qt) / (Nn + mu * mu * Nt);
            ex[0] = s;
            ex[1] = -s * mu * q[1] / qt;
            ex[2] = -s * mu * q[2] / qt;
            CHECK(s > 0.0 && qt / Nt > mu * (-q[0] / Nn)); /* unconstrained point outside F */
        } else { /* open in the CCP: v_f inside K* (0.3 would not do: mu |v_f,t| = 0.36) */
            ex[0] = ex[1] = ex[2] = 0.0;
            CHECK(q[0] > mu * hypot(q[1], q[2]));
        }
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        tutil_param(&ps, "rel_tol", 1e-13);
        ncp_result res;
        if (sap_own(&p, &ps, NULL, NULL, &res) == 0) {
            for (int i = 0; i < 3; i++) CHECK_NEAR(res.lambda[i], ex[i], 1e-12);
            CHECK(res.iterations <= 10);
            printf("single contact %s: %d iterations, lambda = (%.12g, %.12g, %.12g)\n",
                   cases[c].name, res.iterations, res.lambda[0], res.lambda[1], res.lambda[2]);
            ncp_result_free(&res);
        }
        ncp_problem_free(&p);
    }
}

/* A point mass m on the ground: nv = 3 (v_n, v_t1, v_t2), A = m I, J = I, b = h m g (pulling into
 * the ground), gap phi0, stiffness k and dissipation tau. No tangential load: gamma_t = 0, and
 * SAP's normal impulse must obey the paper's force law (eq. 2) exactly when h resolves the
 * contact, or the near-rigid law with R_n = beta^2/(4 pi^2) w otherwise. */
static int point_mass(ncp_problem *p, double m, double h, double phi0, double k, double tau,
                      ncp_error *err)
{
    ncp_problem_init(p);
    int rc = ncp_problem_alloc_blocks(p, 1, err);
    if (rc) return rc;
    p->blocks[0].type = NCP_CONTACT;
    p->blocks[0].mu = 0.8;
    ncp_problem_layout(p);
    p->nv = 3;
    p->h = h;
    p->A = ncp_calloc(err, 9, sizeof(double));
    p->b = ncp_calloc(err, 3, sizeof(double));
    p->e = ncp_calloc(err, 3, sizeof(double));
    p->contacts = ncp_calloc(err, 1, sizeof(ncp_contact_info));
    p->name = ncp_strdup(err, "point-mass");
    p->scene = ncp_strdup(err, "test");
    p->driver = ncp_strdup(err, "");
    if (!p->A || !p->b || !p->e || !p->contacts || !p->name || !p->scene || !p->driver)
        return NCP_ERR_NOMEM;
    double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < 9; i++) p->A[i] = m * I3[i];
    p->b[0] = -h * m * 9.81;
    p->e[0] = phi0 >= 0.0 ? phi0 / h : 0.2 * phi0 / h; /* our NCP bias: SAP must undo it */
    p->contacts[0].gap = phi0;
    p->contacts[0].stiffness = k;
    p->contacts[0].dissipation = tau;
    p->contacts[0].frame[0] = p->contacts[0].frame[4] = p->contacts[0].frame[8] = 1.0;
    p->contacts[0].body[0] = -1;
    p->contacts[0].body[1] = 0;
    if ((rc = ncp_csr_from_dense(&p->J, 3, 3, I3, 0.0, err))) return rc;
    p->has_primal = 1;
    return ncp_problem_compute_dual(p, err);
}

static void test_compliant_point_mass(void)
{
    const double m = 1.0, h = 0.01, phi0 = -1e-3;
    struct {
        double k, tau;
        int compliant;
    } cases[] = {{1e4, 0.02, 1}, {3e4, 0.0, 1}, {1e12, 0.01, 0}, {0.0, 0.0, 0}};
    for (int c = 0; c < 4; c++) {
        for (int cs = 0; cs < 2; cs++) {
            ncp_problem p;
            ncp_error err = {0};
            CHECK_OK(point_mass(&p, m, h, phi0, cases[c].k, cases[c].tau, &err), &err);
            ncp_params ps;
            memset(&ps, 0, sizeof ps);
            tutil_param(&ps, "rel_tol", 1e-13);
            tutil_param(&ps, "contact_space", cs);
            ncp_result res;
            if (sap_own(&p, &ps, NULL, NULL, &res)) {
                ncp_problem_free(&p);
                continue;
            }
            double vs = p.b[0] / m, g = res.lambda[0];
            double vn = vs + g / m; /* momentum balance */
            double tau = cases[c].tau, k = cases[c].k;
            if (cases[c].compliant) {
                /* eq. 2: g/h = -k phi - tau k v_n with phi = phi0 + h v_n (positive part) */
                double law = h * fmax(0.0, -k * (phi0 + h * vn) - tau * k * vn);
                CHECK_NEAR(g, law, 1e-12 * fabs(law));
                double w = (1.0 / m) / sqrt(3.0); /* ||I/m||_F / 3 */
                CHECK(1.0 / (h * k * (h + tau)) > w / (4.0 * PI * PI)); /* really compliant */
            } else {
                /* near-rigid: R_n = beta^2/(4 pi^2) w, v_hat = -phi0/(h + tau) */
                double w = (1.0 / m) / sqrt(3.0), Rn = w / (4.0 * PI * PI);
                double law = fmax(0.0, (-phi0 / (h + tau) - vn) / Rn);
                CHECK_NEAR(g, law, 1e-12 * fabs(law));
            }
            CHECK_NEAR(res.lambda[1], 0.0, 1e-15);
            CHECK_NEAR(res.lambda[2], 0.0, 1e-15);
            if (cs == 0) {
                CHECK(res.has_solver_v);
                CHECK_NEAR(res.solver_v[0], vn, 1e-12 * fabs(vn));
            }
            ncp_result_free(&res);
            ncp_problem_free(&p);
        }
    }
}

/* ---------- (d) Newton on random problems, (e) both paths agree ---------- */

/* R computed here from D (eqs. 29-30, rigid contacts), independent of sap_model.c. */
static void t_regularisation(const ncp_problem *p, double beta, double sigma, double *R)
{
    int m = p->m;
    double dmax = 0.0;
    for (int i = 0; i < m; i++) dmax = fmax(dmax, p->D[i + (size_t)i * m]);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        if (b->type == NCP_CONTACT) {
            double f = 0.0;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) f += pow(p->D[r + i + (size_t)(r + j) * m], 2);
            double w = fmax(sqrt(f) / 3.0, 1e-14 * dmax);
            R[r] = beta * beta / (4.0 * PI * PI) * w;
            R[r + 1] = R[r + 2] = sigma * w;
        } else if (b->type != NCP_SOFT) {
            R[r] = beta * beta / (4.0 * PI * PI) * fmax(p->D[r + (size_t)r * m], 1e-14 * dmax);
        } else {
            R[r] = 0.0;
        }
    }
}

static int newton_worst;

static void test_random_newton(int count)
{
    double worst_agree = 0.0;
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err = {0};
        int mixed = i % 2;
        trng r = {900u + (uint64_t)i};
        int nc = 1 + (int)(trng_uniform(&r) * 6);
        int nv = 6 + (int)(trng_uniform(&r) * 20);
        CHECK_OK(tutil_random_problem(&p, 4000u + (uint64_t)i, nv, nc, mixed, mixed, mixed, &err),
                 &err);
        /* no geometry: SAP's u_hat = u, so the test can recompute everything from u */
        free(p.contacts);
        p.contacts = NULL;
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        tutil_param(&ps, "rel_tol", 1e-10);
        ncp_result a, d;
        if (sap_own(&p, &ps, NULL, NULL, &a)) {
            ncp_problem_free(&p);
            continue;
        }
        newton_worst = a.iterations > newton_worst ? a.iterations : newton_worst;
        CHECK(a.has_solver_v);
        /* eq. 26 recomputed: grad = A v - b - J^T gamma, D_s = diag(A)^{-1/2} */
        int m = p.m;
        double *jg = calloc((size_t)nv, sizeof(double));
        double *R = calloc((size_t)m, sizeof(double));
        double g2 = 0.0, p2 = 0.0, c2 = 0.0;
        for (int k = 0; k < nv; k++) {
            double av = 0.0;
            for (int l = 0; l < nv; l++) av += p.A[k + (size_t)l * nv] * a.solver_v[l];
            for (int rr = 0; rr < m; rr++)
                for (int q = p.J.rowptr[rr]; q < p.J.rowptr[rr + 1]; q++)
                    if (p.J.col[q] == k) jg[k] += p.J.val[q] * a.lambda[rr];
            double ds2 = 1.0 / p.A[k + (size_t)k * nv], gr = av - p.b[k] - jg[k];
            g2 += ds2 * gr * gr;
            p2 += ds2 * av * av;
            c2 += ds2 * jg[k] * jg[k];
        }
        CHECK(sqrt(g2) <= 1e-10 * sqrt(fmax(p2, c2)) + 1e-16);
        /* the answer lies in the cones, and with u_hat = J v + e it is complementary in SAP's
         * model: K ∋ gamma ⊥ u_hat + R gamma ∈ K* (R recomputed here) */
        t_regularisation(&p, 1.0, 1e-3, R);
        double *uh = calloc((size_t)m, sizeof(double));
        ncp_csr_gemv(&p.J, 1.0, a.solver_v, 0.0, uh);
        for (int bi = 0; bi < p.nblocks; bi++) {
            const ncp_block *b = &p.blocks[bi];
            int q = b->row;
            if (b->type != NCP_CONTACT) continue;
            const double *l = a.lambda + q;
            double gg[3];
            for (int j = 0; j < 3; j++) gg[j] = uh[q + j] + p.e[q + j] + R[q + j] * l[j];
            double sc = 1.0 + fabs(l[0]);
            CHECK(hypot(l[1], l[2]) <= b->mu * l[0] * (1.0 + 1e-14) + 1e-300);
            CHECK(b->mu * hypot(gg[1], gg[2]) - gg[0] <= 1e-9 * sc);
            CHECK(fabs(l[0] * gg[0] + l[1] * gg[1] + l[2] * gg[2]) <= 1e-9 * sc * sc);
        }
        free(uh);
        free(jg);
        free(R);
        /* (e) contact space on the same problem */
        tutil_param(&ps, "contact_space", 1);
        if (sap_own(&p, &ps, NULL, NULL, &d) == 0) {
            double diff = 0.0, nl = 0.0;
            for (int k = 0; k < m; k++) {
                diff = fmax(diff, fabs(a.lambda[k] - d.lambda[k]));
                nl = fmax(nl, fabs(a.lambda[k]));
            }
            worst_agree = fmax(worst_agree, diff / fmax(1.0, nl));
            CHECK(diff <= 1e-7 * fmax(1.0, nl));
            CHECK(!d.has_solver_v);
            ncp_result_free(&d);
        }
        /* and on the dual-only version of it (the FCLib-import situation) */
        ncp_problem q;
        CHECK_OK(ncp_problem_copy(&q, &p, &err), &err);
        free(q.A);
        free(q.b);
        free(q.e);
        q.A = q.b = q.e = NULL;
        ncp_csr_free(&q.J);
        q.has_primal = 0;
        q.nv = 0;
        tutil_param(&ps, "contact_space", 0); /* no primal data: contact space anyway */
        if (sap_own(&q, &ps, NULL, NULL, &d) == 0) {
            double diff = 0.0;
            for (int k = 0; k < m; k++) diff = fmax(diff, fabs(a.lambda[k] - d.lambda[k]));
            CHECK(diff <= 1e-7 * fmax(1.0, ncp_norminf(m, a.lambda)));
            ncp_result_free(&d);
        }
        ncp_problem_free(&q);
        ncp_result_free(&a);
        ncp_problem_free(&p);
    }
    printf("random problems: primal Newton <= %d iterations to rel_tol 1e-10; primal vs "
           "contact space max |diff| %.2e\n",
           newton_worst, worst_agree);
    CHECK(newton_worst <= 50);
}

/* ---------- (f) near-rigid limit ---------- */

static void test_near_rigid(void)
{
    /* D SPD (random), contacts alternately stick (lambda* inside K, u* = 0) and open (lambda* = 0,
     * u* inside K*): lambda* solves the NCP (and the CCP, no contact slides), v_f = u* - D
     * lambda*. SAP's R -> 0 as beta -> 0 with sigma = beta^2/(4 pi^2): its answer -> lambda*,
     * the gap O(R) = O(beta^2). */
    const int nc = 6, m = 18;
    ncp_problem p;
    ncp_error err = {0};
    CHECK_OK(tutil_dual_problem(&p, nc, NULL, &err), &err);
    trng r = {2024};
    double B[18 * 18], ls[18] = {0}, us[18] = {0};
    for (int i = 0; i < m * m; i++) B[i] = trng_normal(&r);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            double s = 0.0;
            for (int l = 0; l < m; l++) s += B[i + l * m] * B[j + l * m];
            p.D[i + j * m] = s / m + (i == j ? 0.5 : 0.0);
        }
    for (int c = 0; c < nc; c++) {
        double mu = 0.3 + 0.5 * trng_uniform(&r);
        p.blocks[c].mu = mu;
        double th = 2.0 * PI * trng_uniform(&r);
        if (c % 2 == 0) { /* stick, |lambda_t| = 0.5 mu lambda_n */
            double ln = 0.5 + trng_uniform(&r);
            ls[3 * c] = ln;
            ls[3 * c + 1] = 0.5 * mu * ln * cos(th);
            ls[3 * c + 2] = 0.5 * mu * ln * sin(th);
        } else { /* open, u_n = mu |u_t| + 0.5 */
            double ut = trng_uniform(&r);
            us[3 * c] = mu * ut + 0.5;
            us[3 * c + 1] = ut * cos(th);
            us[3 * c + 2] = ut * sin(th);
        }
    }
    for (int i = 0; i < m; i++) {
        double s = 0.0;
        for (int j = 0; j < m; j++) s += p.D[i + j * m] * ls[j];
        p.vf[i] = us[i] - s;
    }
    /* very stiff contacts as in the paper's clutter scene (k = 1e12 N/m, tau_d = h = 10 ms): the
     * compliant branch of eq. 29, 1/(h k (h + tau_d)) = 5e-9, is below the near-rigid one for
     * every beta used here (beta^2 w/(4 pi^2) >= 1e-5), so beta sets R_n. Dual only: no primal
     * e, so the problem's own bias is the stabilisation (sap_model.h). */
    p.h = 0.01;
    p.contacts = ncp_calloc(&err, nc, sizeof(ncp_contact_info));
    CHECK(p.contacts != NULL);
    for (int c = 0; p.contacts && c < nc; c++) {
        p.contacts[c].stiffness = 1e12;
        p.contacts[c].dissipation = 0.01;
    }
    /* nsn-nm finds lambda* (the NCP solution; unique here, D is SPD) */
    ncp_result nr;
    CHECK_OK(t_solve(S_NSN, &p, NULL, NULL, NULL, 1e-13, 200, 0.0, &nr), &err);
    CHECK(nr.converged);
    double d0 = 0.0;
    for (int i = 0; i < m; i++) d0 = fmax(d0, fabs(nr.lambda[i] - ls[i]));
    CHECK(d0 <= 1e-10);

    double betas[5] = {1.0, 0.5, 0.25, 0.125, 0.0625}, gaps[5];
    for (int k = 0; k < 5; k++) {
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        tutil_param(&ps, "beta", betas[k]);
        tutil_param(&ps, "sigma", betas[k] * betas[k] / (4.0 * PI * PI));
        tutil_param(&ps, "rel_tol", 1e-12);
        ncp_result res;
        gaps[k] = INFINITY;
        if (sap_own(&p, &ps, NULL, NULL, &res) == 0) {
            double g = 0.0;
            for (int i = 0; i < m; i++) g = fmax(g, fabs(res.lambda[i] - nr.lambda[i]));
            gaps[k] = g;
            printf("near-rigid: beta %-7g gap to nsn-nm %.3e (%d iterations)\n", betas[k], g,
                   res.iterations);
            ncp_result_free(&res);
        }
    }
    /* O(beta^2): each halving divides the gap by about 4; we ask for 2 at every step */
    for (int k = 1; k < 5; k++) CHECK(gaps[k] <= 0.5 * gaps[k - 1]);
    CHECK(gaps[4] <= 0.02 * gaps[0]);
    ncp_result_free(&nr);
    ncp_problem_free(&p);
}

/* ---------- (g) warm start, budgets, errors ---------- */

static void test_warm_start(int count)
{
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err = {0};
        CHECK_OK(tutil_random_problem(&p, 7000u + (uint64_t)i, 15, 4, i % 2, i % 2, i % 2, &err),
                 &err);
        for (int cs = 0; cs < 2; cs++) {
            ncp_params tight, def;
            memset(&tight, 0, sizeof tight);
            memset(&def, 0, sizeof def);
            tutil_param(&tight, "rel_tol", 1e-12);
            tutil_param(&tight, "contact_space", cs);
            tutil_param(&def, "contact_space", cs);
            ncp_result sol, res;
            if (sap_own(&p, &tight, NULL, NULL, &sol)) continue;
            CHECK(sol.iterations >= 2); /* so that "within one" below means something */
            /* from the impulses (the default tolerance) */
            if (sap_own(&p, &def, sol.lambda, NULL, &res) == 0) {
                CHECK(res.iterations <= 1);
                ncp_result_free(&res);
            }
            /* from the velocity (the paper's warm start; primal path) */
            if (cs == 0 && sap_own(&p, &def, NULL, sol.v, &res) == 0) {
                CHECK(res.iterations == 1);
                for (int k = 0; k < p.m; k++) CHECK_NEAR(res.lambda[k], sol.lambda[k], 1e-9);
                ncp_result_free(&res);
            }
            ncp_result_free(&sol);
        }
        ncp_problem_free(&p);
    }
}

static void test_budgets(void)
{
    ncp_problem p;
    ncp_error err = {0};
    CHECK_OK(tutil_random_problem(&p, 8080, 20, 6, 1, 1, 1, &err), &err);
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    tutil_param(&ps, "rel_tol", 1e-12);
    for (int cs = 0; cs < 2; cs++) {
        tutil_param(&ps, "contact_space", cs);
        ncp_result full;
        if (sap_own(&p, &ps, NULL, NULL, &full)) continue;
        CHECK(full.iterations > 3);
        for (int budget = 1; budget <= 3; budget++) {
            ncp_result res;
            CHECK_OK(t_solve(S_SAP, &p, &ps, NULL, NULL, -1.0, budget, 0.0, &res), &err);
            CHECK(res.iterations == budget);
            CHECK(res.status == NCP_STATUS_MAX_ITER);
            ncp_result_free(&res);
        }
        /* a time budget far below one Newton step: stopped at the setup or the first iterate */
        ncp_result res;
        CHECK_OK(t_solve(S_SAP, &p, &ps, NULL, NULL, -1.0, 1000, 1e-9, &res), &err);
        CHECK(res.iterations <= 1);
        CHECK(res.status == NCP_STATUS_TIMEOUT);
        ncp_result_free(&res);
        ncp_result_free(&full);
    }
    ncp_problem_free(&p);
}

static void test_errors(void)
{
    ncp_problem p;
    ncp_error err = {0};
    CHECK_OK(tutil_random_problem(&p, 99, 8, 2, 0, 0, 0, &err), &err);
    const char *names[4] = {"beta", "sigma", "rel_tol", "contact_space"};
    double bad[4] = {0.0, -1.0, 1.0, 2.0};
    for (int i = 0; i < 4; i++) tutil_check_bad_param(S_SAP, &p, names[i], bad[i]);
    /* a negative stiffness is an input error naming the field */
    p.contacts[1].stiffness = -5.0;
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    ncp_result res;
    ncp_error e = {0};
    CHECK(ncp_harness_solve(S_SAP, &p, NULL, NULL, NULL, &o, &res, &e) == NCP_ERR_INPUT);
    CHECK(strstr(e.msg, "stiffness[1]") != NULL);
    p.contacts[1].stiffness = 0.0;
    p.contacts[0].dissipation = NAN;
    ncp_error_clear(&e);
    CHECK(ncp_harness_solve(S_SAP, &p, NULL, NULL, NULL, &o, &res, &e) == NCP_ERR_INPUT);
    CHECK(strstr(e.msg, "dissipation[0]") != NULL);
    ncp_problem_free(&p);

    /* no constraint at all: v = v*, reported once */
    CHECK_OK(tutil_random_problem(&p, 5, 6, 0, 0, 0, 0, &err), &err);
    CHECK_OK(t_solve(S_SAP, &p, NULL, NULL, NULL, 1e-10, 10, 0.0, &res), &err);
    CHECK(res.converged && res.iterations == 1);
    ncp_result_free(&res);
    ncp_problem_free(&p);
}

/* ---------- (h) sparse against dense Newton matrix ---------- */

/* sap on a and on b (params pa, pb; v0 may be NULL) stopped after k = 1, 2, ... Newton
 * iterations until a's own stop: same iteration counts, lambda and v within tol relative.
 * Returns the largest relative difference; *iters the full solve's iterations. */
static double sparse_vs_dense(const char *what, const ncp_problem *a, const ncp_params *pa,
                              const ncp_problem *b, const ncp_params *pb, const double *v0,
                              double tol, int *iters)
{
    ncp_result full;
    double worst = 0.0;
    *iters = 0;
    if (t_solve(S_SAP, a, pa, NULL, v0, -1.0, 200, 0.0, &full)) {
        CHECK(0);
        return INFINITY;
    }
    *iters = full.iterations;
    CHECK(full.has_solver_v && full.iterations >= 2);
    ncp_result_free(&full);
    for (int k = 1; k <= *iters; k++) {
        ncp_result ra, rb;
        int ea = t_solve(S_SAP, a, pa, NULL, v0, -1.0, k, 0.0, &ra);
        int eb = t_solve(S_SAP, b, pb, NULL, v0, -1.0, k, 0.0, &rb);
        CHECK(ea == 0 && eb == 0);
        if (ea || eb) {
            if (!ea) ncp_result_free(&ra);
            if (!eb) ncp_result_free(&rb);
            return INFINITY;
        }
        CHECK(ra.iterations == rb.iterations && ra.has_solver_v && rb.has_solver_v);
        double dl = tutil_reldiff((size_t)a->m, rb.lambda, ra.lambda, 0.0);
        double dv = ra.solver_v && rb.solver_v
                        ? tutil_reldiff((size_t)a->nv, rb.solver_v, ra.solver_v, 0.0) : INFINITY;
        if (!(dl <= tol && dv <= tol))
            fprintf(stderr, "%s: iteration %d: lambda rel. diff %.3g, v %.3g\n", what, k, dl,
                    dv);
        CHECK(dl <= tol && dv <= tol);
        worst = fmax(worst, fmax(dl, dv));
        ncp_result_free(&ra);
        ncp_result_free(&rb);
    }
    return worst;
}

/* Boxes on the ground and on each other, pressed down (a pile with box-box contacts that couple
 * the bodies' dofs); k = 1e12, tau_d = h as in Castro et al. 2023's clutter. */
static ncp_scene *pile_scene(void)
{
    enum { NG = 9, NS = 4 };
    char js[8192];
    size_t n = (size_t)snprintf(js, sizeof js,
                                "{\"name\":\"sap-pile\",\"timestep\":0.01,\"steps\":1,"
                                "\"materials\":[{\"name\":\"m\",\"friction\":1.0,"
                                "\"stiffness\":1e12,\"dissipation\":0.005}],\"bodies\":[{"
                                "\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":"
                                "\"plane\",\"material\":\"m\"}]}");
    for (int i = 0; i < NG + NS && n < sizeof js; i++) {
        int k = i < NG ? i : (i - NG) * 2;
        double x = 0.25 * (k % 3), y = 0.25 * (k / 3), z = i < NG ? 0.099 : 0.297;
        n += (size_t)snprintf(js + n, sizeof js - n,
                              ",{\"name\":\"b%d\",\"type\":\"dynamic\",\"mass\":%g,"
                              "\"position\":[%.17g,%.17g,%.17g],\"velocity\":[%g,0.05,-0.3],"
                              "\"axis\":[0.2,0.3,1],\"angle\":%g,\"shapes\":[{\"type\":"
                              "\"box\",\"half_extents\":[0.1,0.1,0.1],\"material\":\"m\"}]}",
                              i, 1.0 + 0.1 * i, x + (i >= NG ? 0.04 : 0.0), y, z,
                              0.1 * (i % 3) - 0.1, i >= NG ? 0.3 : 0.0);
    }
    if (n < sizeof js) snprintf(js + n, sizeof js - n, "]}");
    ncp_error err = {0};
    ncp_scene *s = NULL;
    CHECK_OK(ncp_scene_parse(js, "sap-pile.json", NULL, &s, &err), &err);
    return s;
}

static void test_sparse_newton(void)
{
    ncp_params ps0, ps1;
    memset(&ps0, 0, sizeof ps0);
    memset(&ps1, 0, sizeof ps1);
    tutil_param(&ps0, "rel_tol", 1e-10);
    tutil_param(&ps1, "rel_tol", 1e-10);
    tutil_param(&ps0, "sparse", 0);
    tutil_param(&ps1, "sparse", 1);
    double worst = 0.0;
    int most = 0;
    for (int i = 0; i < 8; i++) {
        ncp_problem p;
        ncp_error err = {0};
        trng r = {700u + (uint64_t)i};
        int nc = 2 + (int)(trng_uniform(&r) * 6), nv = 8 + (int)(trng_uniform(&r) * 20), it;
        CHECK_OK(tutil_random_problem(&p, 5000u + (uint64_t)i, nv, nc, i % 2, i % 2, i % 2,
                                      &err),
                 &err);
        worst = fmax(worst, sparse_vs_dense("random", &p, &ps0, &p, &ps1, NULL, 1e-10, &it));
        most = it > most ? it : most;
        ncp_problem_free(&p);
    }
    printf("sparse Newton matrix: random problems, iterates (up to %d) agree with the dense "
           "one to %.2e relative\n", most, worst);

    /* the capture's block route (A_sparse, sap's default: sparse) against the dense route */
    ncp_scene *s = pile_scene();
    if (!s) return;
    ncp_model *m = (ncp_model *)ncp_scene_model(s); /* the test's own model */
    ncp_problem pb, pd;
    ncp_error err = {0};
    m->block_mass_ndof = 1; /* any nv > 1: the block route */
    CHECK_OK(ncp_model_initial_problem(m, &pb, &err), &err);
    m->block_mass_ndof = INT_MAX;
    CHECK_OK(ncp_model_initial_problem(m, &pd, &err), &err);
    CHECK(pb.has_sparse_primal && !pb.has_primal && pd.has_primal && pb.nv == pd.nv &&
          pb.m == pd.m && pb.ncontacts >= 13);
    ncp_params pa;
    memset(&pa, 0, sizeof pa);
    tutil_param(&pa, "rel_tol", 1e-10);
    double *v0 = calloc((size_t)pd.nv, sizeof(double));
    CHECK(v0 != NULL);
    if (v0 && pb.nv == pd.nv && pb.m == pd.m) {
        for (int i = 0; i < pd.nv; i++) v0[i] = 0.01 * (i % 5) - 0.3 * (i % 6 == 2);
        int it, it1;
        double d = sparse_vs_dense("block route", &pd, &pa, &pb, &pa, v0, 1e-10, &it);
        double d1 = sparse_vs_dense("dense A, sparse = 1", &pd, &ps0, &pd, &ps1, v0, 1e-10, &it1);
        printf("sparse Newton matrix: a pile of 13 boxes (nv %d, %d contacts): block route %d "
               "iterations, agree to %.2e; dense A with sparse = 1: %.2e\n",
               pd.nv, pd.ncontacts, it, d, d1);
        /* no dense D on the primal path (issue 27): the problem keeps none, w comes from the
         * operator's diagonal blocks; with D built (the former route, w from D's entries) the
         * iterates agree to rounding. The contact-space path builds D in its setup: the same
         * bits as with the problem's own D. */
        ncp_problem pbd;
        CHECK_OK(ncp_problem_copy(&pbd, &pb, &err), &err);
        CHECK_OK(ncp_problem_need_dual(&pbd, &err), &err);
        CHECK(!pb.has_dual && pb.D == NULL && pbd.has_dual && pbd.D != NULL);
        int it2;
        double d2 = sparse_vs_dense("D kept / operator", &pbd, &pa, &pb, &pa, v0, 1e-12, &it2);
        ncp_result rn;
        if (!t_solve(S_SAP, &pb, &pa, NULL, v0, -1.0, 2, 0.0, &rn)) {
            if (!strstr(rn.note, "w from D sparse")) fprintf(stderr, "note: %s\n", rn.note);
            CHECK(strstr(rn.note, "w from D sparse") != NULL);
            ncp_result_free(&rn);
        } else {
            CHECK(0);
        }
        CHECK(!pb.has_dual && pb.D == NULL);
        ncp_params pc;
        memset(&pc, 0, sizeof pc);
        tutil_param(&pc, "contact_space", 1);
        ncp_result ca, cb;
        int ea = t_solve(S_SAP, &pbd, &pc, NULL, NULL, -1.0, 5, 0.0, &ca);
        int eb = t_solve(S_SAP, &pb, &pc, NULL, NULL, -1.0, 5, 0.0, &cb);
        CHECK(ea == 0 && eb == 0);
        if (!ea && !eb) {
            CHECK(ca.iterations == cb.iterations &&
                  memcmp(ca.lambda, cb.lambda, (size_t)pb.m * sizeof(double)) == 0);
        }
        if (!ea) ncp_result_free(&ca);
        if (!eb) ncp_result_free(&cb);
        printf("sap without D: the operator's diagonal blocks, iterates (%d) agree with D's to "
               "%.2e; contact space with D built in its setup: the same bits\n", it2, d2);
        ncp_problem_free(&pbd);
        /* sparse = 0 needs a dense A */
        ncp_params bad;
        memset(&bad, 0, sizeof bad);
        tutil_param(&bad, "sparse", 0);
        ncp_harness_opts o;
        ncp_harness_opts_default(&o);
        ncp_result res;
        CHECK(ncp_harness_solve(S_SAP, &pb, &bad, NULL, NULL, &o, &res, &err) == NCP_ERR_INPUT);
        ncp_error_clear(&err);
    }
    free(v0);
    ncp_problem_free(&pb);
    ncp_problem_free(&pd);
    ncp_scene_free(s);
}

int main(void)
{
    S_SAP = ncp_solver_find("sap");
    S_NSN = ncp_solver_find("nsn-nm");
    CHECK(S_SAP != NULL && S_NSN != NULL);
    if (!S_SAP || !S_NSN) return tcheck_exit("test_sap");
    CHECK(S_SAP->ccp == 1 && (S_SAP->needs & NCP_NEEDS_DUAL_OP) && !(S_SAP->needs & NCP_NEEDS_DUAL));
    test_projection();
    test_block_derivatives();
    test_single_contact();
    test_compliant_point_mass();
    test_random_newton(40);
    test_near_rigid();
    test_warm_start(10);
    test_budgets();
    test_errors();
    test_sparse_newton();
    return tcheck_exit("test_sap");
}
