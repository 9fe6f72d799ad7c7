/* Tests of spg (solvers/spg.c, Birgin, Martínez, Raydan 2000 SPG2 with Jacobi preconditioning and
 * Heyn et al. 2013's fall-back) and of Tasora et al. 2021's TEST 1 scenes, run through the harness
 * as the benchmark runs them.
 *
 * (a) CCPs with known answers, built from the optimality conditions: per contact a sticking
 *     lambda* inside the cone with u* = 0, an open one (lambda* = 0, u* inside the dual cone) or
 *     a sliding one (lambda* and u* on the boundaries of the cone and of its dual, orthogonal);
 *     D SPD, so the answer is unique, and v_f = u* - D lambda*. spg (with and without
 *     preconditioning) must reach 1e-8 in lambda and in the CCP natural map (computed
 *     independently by tutil_ref_check); D = a I is solved in one step.
 * (b) the non-monotone rule's guarantee: on an ill-conditioned QP (unilateral rows, condition
 *     number 1e4), the largest f over every window of M iterates never increases (M = 1: f
 *     decreases at every iteration), while with a memory longer than the run the
 *     Barzilai–Borwein steps do raise f: the line search's reductions are what made M = 1
 *     monotone;
 * (c) the fall-back: on the same QP the reported residual (the harness's natural map, which for
 *     unilateral rows is the CCP's) never increases with fallback = 1 (beyond 1e-12 of the first
 *     residual: spg updates u = D l + v_f, the harness recomputes it) and does increase with
 *     fallback = 0;
 * (d) TEST 1 as captured from scenes/tasora-test1a.json and tasora-test1b.json: the normal
 *     impulse of every contact is h g times the mass above it (1.A) or, in 1.B, 0 under the
 *     pulled sphere, h (g + a) times the mass above for the contacts above it (a = (2 m_h - M) g
 *     / M, M the mass moving up) and h g times the mass down to the gap for those below; admm
 *     solved to natural_map_rel_acary <= 1e-10 must match to 1e-8 relative, and so must spg on
 *     1.B;
 * (e) parameters (documented defaults, bad values), budgets, a problem without rows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/pipeline.h"
#include "capture/capture.h"
#include "core/la.h"
#include "scene/scene.h"
#include "solve/harness.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "testutil.h"

static const ncp_solver_desc *S_SPG, *S_ADMM;

/* ---------- problems with known answers ---------- */

/* D = Q diag(ev) Q^T (n x n, column-major) with Q orthogonal from Gram–Schmidt on N(0, 1)
 * columns of trng {seed}. */
static void spd_with_spectrum(int n, const double *ev, uint64_t seed, double *D)
{
    trng r = {seed};
    double *Q = calloc((size_t)n * n, sizeof *Q);
    CHECK(Q != NULL);
    if (!Q) return;
    for (int j = 0; j < n; j++) {
        double *q = Q + (size_t)j * n;
        for (int i = 0; i < n; i++) q[i] = trng_normal(&r);
        for (int pass = 0; pass < 2; pass++) /* twice: orthogonal to round-off */
            for (int k = 0; k < j; k++) {
                double d = ncp_dot(n, q, Q + (size_t)k * n);
                for (int i = 0; i < n; i++) q[i] -= d * Q[i + (size_t)k * n];
            }
        ncp_scal(n, 1.0 / ncp_norm2(n, q), q);
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++) s += Q[i + (size_t)k * n] * ev[k] * Q[j + (size_t)k * n];
            D[i + (size_t)j * n] = s;
        }
    free(Q);
}

/* nc contacts of friction mu, D with eigenvalues from 1 to cond (geometric), and a known CCP
 * answer lstar: contact i sticks (i % 3 == 0), is open (1) or slides (2). */
static int t_known_ccp(ncp_problem *p, int nc, double cond, uint64_t seed, double *lstar,
                       ncp_error *err)
{
    int rc = tutil_dual_problem(p, nc, NULL, err);
    if (rc) return rc;
    int m = p->m;
    double ev[3 * 8] = {0}, u[3 * 8] = {0};
    if (m < 2 || m > 3 * 8) return ncp_error_set(err, NCP_ERR_INPUT, "t_known_ccp: 1..8 contacts");
    for (int k = 0; k < m; k++) ev[k] = pow(cond, (double)k / (m - 1));
    spd_with_spectrum(m, ev, seed, p->D);
    const double mu = 0.5;
    for (int i = 0; i < nc; i++) {
        double th = 0.7 + i, *l = lstar + 3 * i, *v = u + 3 * i;
        p->blocks[i].mu = mu;
        if (i % 3 == 0) { /* sticking: inside the cone, u = 0 */
            l[0] = 1.0 + 0.1 * i, l[1] = 0.2 * mu * cos(th), l[2] = 0.2 * mu * sin(th);
            v[0] = v[1] = v[2] = 0.0;
        } else if (i % 3 == 1) { /* open: lambda = 0, u inside the dual cone */
            l[0] = l[1] = l[2] = 0.0;
            v[0] = 0.5, v[1] = 0.1 * cos(th), v[2] = 0.1 * sin(th);
        } else { /* sliding: lambda on the cone's edge, u on the dual cone's, orthogonal */
            l[0] = 0.8, l[1] = 0.8 * mu * cos(th), l[2] = 0.8 * mu * sin(th);
            v[0] = 0.3 * mu, v[1] = -0.3 * cos(th), v[2] = -0.3 * sin(th);
        }
    }
    for (int i = 0; i < m; i++) {
        double s = 0.0;
        for (int j = 0; j < m; j++) s += p->D[i + (size_t)j * m] * lstar[j];
        p->vf[i] = u[i] - s;
    }
    return NCP_OK;
}

/* n unilateral rows, D with eigenvalues 1 .. cond, answer lstar > 0 (interior): v_f = -D lstar. */
static int t_uni_qp(ncp_problem *p, int n, double cond, uint64_t seed, double *lstar,
                    ncp_error *err)
{
    int types[16];
    for (int i = 0; i < 16; i++) types[i] = NCP_UNILATERAL;
    int rc = tutil_dual_problem(p, n, types, err);
    if (rc) return rc;
    double ev[16] = {0};
    if (n < 2 || n > 16) return ncp_error_set(err, NCP_ERR_INPUT, "t_uni_qp: 2..16 rows");
    for (int k = 0; k < n; k++) ev[k] = pow(cond, (double)k / (n - 1));
    spd_with_spectrum(n, ev, seed, p->D);
    for (int i = 0; i < n; i++) lstar[i] = 1.0 + 0.25 * i;
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++) s += p->D[i + (size_t)j * n] * lstar[j];
        p->vf[i] = -s;
    }
    return NCP_OK;
}

static ncp_params t_params(int precond, int memory, int fallback)
{
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    tutil_param(&ps, "precond", precond);
    tutil_param(&ps, "memory", memory);
    tutil_param(&ps, "fallback", fallback);
    return ps;
}

/* ---------- (a) ---------- */

static void test_known_ccp(void)
{
    for (int precond = 0; precond <= 1; precond++)
        for (int c = 0; c < 4; c++) {
            ncp_problem p;
            ncp_error err;
            ncp_error_clear(&err);
            double lstar[24];
            int nc = 3 + c;
            CHECK_OK(t_known_ccp(&p, nc, c < 2 ? 10.0 : 100.0, 0x5e9u + (uint64_t)c, lstar, &err),
                     &err);
            tutil_check_solves(&p, lstar, 1, 1e-13); /* the construction is right */
            ncp_params ps = t_params(precond, 10, 1);
            ncp_result res;
            /* tol < 0: the harness's (NCP) metric never stops it; sliding contacts keep it > 0 */
            int rc = tutil_solve(S_SPG, &p, &ps, NULL, -1.0, 20000, &res);
            CHECK(rc == 0);
            if (rc) {
                ncp_problem_free(&p);
                continue;
            }
            double d = tutil_maxdiff(p.m, res.lambda, lstar);
            double nat = tutil_ref_natural_map(&p, res.lambda, 1);
            CHECK(d <= 1e-8);
            CHECK(nat <= 1e-8);
            if (!(d <= 1e-8) || !(nat <= 1e-8))
                fprintf(stderr, "  known CCP %d (precond %d): %s after %d, |l - l*| = %.3g, CCP "
                                "natural map %.3g\n",
                        c, precond, ncp_status_name(res.status), res.iterations, d, nat);
            ncp_result_free(&res);
            ncp_problem_free(&p);
        }
    /* D = a I: one step of length 1/a reaches Pi_K(-v_f / a), then the step is 0 (stalled) */
    const double a = 1.5, vf[3] = {-1.0, 0.6, 0.8}, G[9] = {a, 0, 0, 0, a, 0, 0, 0, a};
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(tutil_one_contact(&p, G, vf, 0.5, &err), &err);
    double x[3] = {-vf[0] / a, -vf[1] / a, -vf[2] / a}, expect[3];
    tutil_ref_project(0.5, x, expect);
    ncp_result res;
    if (tutil_solve(S_SPG, &p, NULL, NULL, -1.0, 100, &res) == 0) {
        CHECK(res.status == NCP_STATUS_STALLED);
        CHECK(res.iterations <= 2);
        CHECK(tutil_maxdiff(3, res.lambda, expect) <= 1e-14);
        ncp_result_free(&res);
    }
    ncp_problem_free(&p);
}

/* ---------- (b) windowed monotonicity ---------- */

static double t_f(const ncp_problem *p, const double *l)
{
    double f = 0.0;
    for (int i = 0; i < p->m; i++) {
        double s = 0.0;
        for (int j = 0; j < p->m; j++) s += p->D[i + (size_t)j * p->m] * l[j];
        f += l[i] * (0.5 * s + p->vf[i]);
    }
    return f;
}

/* f of the iterates 0..K of spg (fallback 0, no preconditioning, memory M): iterate k is the
 * answer of a run with max_iter k (the runs are deterministic). Returns how many were made. */
static int t_f_sequence(const ncp_problem *p, int M, int K, double *f)
{
    ncp_params ps = t_params(0, M, 0);
    double *zero = calloc((size_t)p->m, sizeof *zero);
    CHECK(zero != NULL);
    if (!zero) return 0;
    f[0] = t_f(p, zero); /* l_0 = Pi_K(0) = 0 */
    free(zero);
    int n = 1;
    for (int k = 1; k <= K; k++, n++) {
        ncp_result res;
        if (tutil_solve(S_SPG, p, &ps, NULL, -1.0, k, &res)) break;
        int done = res.iterations < k; /* its own stall test: no further iterates */
        f[k] = t_f(p, res.lambda);
        ncp_result_free(&res);
        if (done) break;
    }
    return n;
}

static void test_window_monotone(void)
{
    enum { K = 80 };
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    double lstar[12], f[K + 1];
    CHECK_OK(t_uni_qp(&p, 12, 1e4, 0x77u, lstar, &err), &err);
    const int Ms[3] = {1, 3, 10};
    for (int mi = 0; mi < 3; mi++) {
        int M = Ms[mi], n = t_f_sequence(&p, M, K, f);
        CHECK(n == K + 1);
        int bad = 0;
        double Fprev = INFINITY;
        for (int k = 0; k < n; k++) {
            double F = -INFINITY; /* max of f over the window of the last M iterates */
            for (int j = k - M + 1; j <= k; j++)
                if (j >= 0) F = fmax(F, f[j]);
            if (F > Fprev + 1e-12 * fabs(Fprev)) bad++;
            Fprev = F;
        }
        CHECK(bad == 0);
        if (bad) fprintf(stderr, "  memory %d: window maximum of f increased %d times\n", M, bad);
    }
    /* a memory longer than the run: the reference stays f_0, the Barzilai–Borwein steps are
     * taken as they come, and f does rise on this problem */
    int n = t_f_sequence(&p, 1000, K, f), rises = 0;
    for (int k = 1; k < n; k++) rises += f[k] > f[k - 1];
    CHECK(rises > 0);
    ncp_problem_free(&p);
}

/* ---------- (c) fall-back ---------- */

typedef struct t_trace {
    double v[4096];
    int n;
} t_trace;

static int t_trace_fn(void *ctx, int iter, double ms, const ncp_metrics *mt)
{
    (void)ms;
    t_trace *t = ctx;
    if (iter >= 1 && iter <= 4096) {
        t->v[iter - 1] = mt->natural_map_abs;
        if (iter > t->n) t->n = iter;
    }
    return 0;
}

static int t_increases(const t_trace *t)
{
    int k = 0;
    /* rises above the round-off of u = D l + v_f (spg updates u, the harness recomputes it) */
    for (int i = 1; i < t->n; i++) k += t->v[i] > t->v[i - 1] + 1e-12 * t->v[0];
    return k;
}

static void test_fallback(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    double lstar[12];
    CHECK_OK(t_uni_qp(&p, 12, 1e4, 0x77u, lstar, &err), &err);
    int inc[2] = {-1, -1};
    for (int fb = 0; fb <= 1; fb++) {
        static t_trace tr;
        memset(&tr, 0, sizeof tr);
        ncp_harness_opts o;
        ncp_harness_opts_default(&o);
        o.budget.tol = 1e-10;
        o.budget.max_iter = 4000;
        o.stop_metric = ncp_metrics_index("natural_map_abs");
        o.trace = t_trace_fn;
        o.trace_ctx = &tr;
        ncp_params ps = t_params(0, 10, fb);
        ncp_result res;
        if (tutil_solve_opts(S_SPG, &p, &ps, NULL, NULL, &o, &res)) continue;
        CHECK(res.converged);
        CHECK(tutil_maxdiff(p.m, res.lambda, lstar) <= 1e-8);
        inc[fb] = t_increases(&tr);
        ncp_result_free(&res);
    }
    /* fallback 0 reports the non-monotone iterates; fallback 1 never a worse one */
    CHECK(inc[0] > 0);
    CHECK(inc[1] == 0);
    if (!(inc[0] > 0) || inc[1] != 0)
        fprintf(stderr, "  fall-back: residual increases %d (fallback 0), %d (fallback 1)\n",
                inc[0], inc[1]);
    ncp_problem_free(&p);
}

/* ---------- (d) TEST 1 ---------- */

/* The first captured problem of a scene file. */
static int t_capture_first(const char *path, ncp_problem *out, ncp_error *err)
{
    ncp_scene *s = NULL;
    ncp_capture_sink sink;
    memset(&sink, 0, sizeof sink);
    int rc = ncp_scene_load(path, ncp_registry_catalog(), &s, err);
    if (!rc) {
        ncp_capture_opts o = {1, 0, 1, NULL, NULL};
        rc = ncp_capture_scene(s, &o, ncp_capture_sink_fn, &sink, err);
    }
    if (!rc && sink.n < 1) rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: nothing captured", path);
    if (!rc) rc = ncp_problem_copy(out, &sink.probs[0], err);
    if (!rc && !out->has_dual) rc = ncp_problem_compute_dual(out, err);
    ncp_capture_sink_free(&sink);
    ncp_scene_free(s);
    return rc;
}

/* The scenes' spheres: centre 0.5 + i m, i = 0 (1000 kg, on the floor) .. 20; i = 10 is the
 * stack's 10th, 10 000 kg. */
static double t_sphere_mass(int i) { return i == 0 ? 1000.0 : i == 10 ? 10000.0 : 10.0; }

/* Analytic normal impulse of the contact at height zc (see (d) above). */
static double t_stack_impulse(double zc, int pull, double h, double g)
{
    double w = 0.0, M = 0.0;
    for (int i = 0; i <= 20; i++) {
        double z = 0.5 + i;
        if (z < zc) continue;
        if (pull && zc < 10.0 && z > 10.0) continue; /* above the gap: not carried */
        w += t_sphere_mass(i);
    }
    if (!pull || zc < 9.99) return h * g * w;
    if (zc < 10.01) return 0.0; /* the contact under the pulled sphere opens */
    for (int i = 10; i <= 20; i++) M += t_sphere_mass(i);
    double a = (2.0 * t_sphere_mass(10) - M) * g / M;
    return h * (g + a) * w;
}

static void test_stack(const char *path, int pull)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    ncp_problem_init(&p);
    CHECK_OK(t_capture_first(path, &p, &err), &err);
    CHECK(p.ncontacts == 21);
    if (p.ncontacts != 21) {
        ncp_problem_free(&p);
        return;
    }
    double *lstar = calloc((size_t)p.m, sizeof *lstar), lmax = 0.0;
    CHECK(lstar != NULL);
    if (!lstar) return;
    for (int bi = 0; bi < p.nblocks; bi++) {
        const ncp_block *b = &p.blocks[bi];
        CHECK(b->type == NCP_CONTACT);
        const ncp_contact_info *ci = &p.contacts[b->contact];
        CHECK_NEAR(ci->frame[2], 1.0, 1e-12); /* normal +z */
        CHECK_NEAR(ci->gap, 0.0, 1e-12);
        lstar[b->row] = t_stack_impulse(ci->point[2], pull, p.h, 9.8);
        lmax = fmax(lmax, lstar[b->row]);
    }
    tutil_check_solves(&p, lstar, 1, 1e-9 * lmax);
    const ncp_solver_desc *ss[2] = {S_ADMM, S_SPG};
    for (int k = 0; k < (pull ? 2 : 1); k++) {
        ncp_harness_opts o;
        ncp_harness_opts_default(&o); /* natural_map_rel_acary */
        o.budget.tol = 1e-10;
        o.budget.max_iter = 5000;
        ncp_result res;
        if (tutil_solve_opts(ss[k], &p, NULL, NULL, NULL, &o, &res)) continue;
        double d = tutil_maxdiff(p.m, res.lambda, lstar);
        CHECK(res.converged);
        CHECK(d <= 1e-8 * lmax);
        if (!res.converged || !(d <= 1e-8 * lmax))
            fprintf(stderr, "  %s, %s: %s after %d, |l - l*| = %.3g (max l* %.4g)\n", path,
                    ss[k]->name, ncp_status_name(res.status), res.iterations, d, lmax);
        ncp_result_free(&res);
    }
    free(lstar);
    ncp_problem_free(&p);
}

/* ---------- (e) ---------- */

static void test_params(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    double lstar[12];
    CHECK_OK(t_known_ccp(&p, 3, 10.0, 0x5e9u, lstar, &err), &err);
    tutil_check_param_defaults(S_SPG, &p, 1e-300, 50);
    tutil_check_bad_param(S_SPG, &p, "memory", 0);
    tutil_check_bad_param(S_SPG, &p, "precond", 2);
    tutil_check_bad_param(S_SPG, &p, "fallback", -1);
    tutil_check_bad_param(S_SPG, &p, "stall_tol", -1);
    tutil_check_budgets(S_SPG, &p, NULL);
    tutil_check_empty(S_SPG);
    ncp_problem_free(&p);
}

int main(void)
{
    S_SPG = ncp_solver_find("spg");
    S_ADMM = ncp_solver_find("admm");
    CHECK(S_SPG && S_ADMM);
    if (!S_SPG || !S_ADMM) return tcheck_exit("spg");
    test_known_ccp();
    test_window_monotone();
    test_fallback();
    test_stack("scenes/tasora-test1a.json", 0);
    test_stack("scenes/tasora-test1b.json", 1);
    test_params();
    return tcheck_exit("spg");
}
