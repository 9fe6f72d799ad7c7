/* Tests of the augmented-Lagrangian solvers of Lee et al. 2025: canal (Alg. 1) and the Table II
 * ablations al-trdogleg and al-dampedsn (solvers/al_common.c, canal.c, al_trdogleg.c,
 * al_dampedsn.c), through the harness and through the observed run of solvers/al.h.
 *
 * (a) the per-block operators: T's derivative G against central finite differences (proximal
 *     and strict contact operators, every scalar type) and grad psi = T / beta (eq. 22's h);
 * (b) every canal Newton step, checked from outside with independent code: h (recomputed here
 *     from its definition with our own cone projection) does not increase; the step is
 *     alpha d with H d = -r to backward error 1e-9, r and H = A + beta sum J^T G J (eq. 23
 *     written out here) assembled densely here (this checks eqs. 21, 24, 25 and the sparse,
 *     per-component assembly and factorisation of al_common.c; one family has a block-diagonal A
 *     and contacts on separate bodies so that the Hessian really splits into components); alpha
 *     is the exact minimiser (phi'(alpha) = 0, recomputed here);
 * (c) agreement with nsn-nm: on seeded random problems (contact-only and mixed blocks) canal
 *     reaches natural map <= 1e-9 and nsn-nm <= 1e-10, both checked again by an independent
 *     natural-map computation; where D is SPD the two lambdas agree;
 * (d) warm start from a solution: converged after one iteration; budgets: max_iter respected;
 *     ncp_al_solve_observed runs exactly the requested loops, its counts match the observed
 *     steps, and it gives the same iterate as the harness path;
 * (e) the ablations: what they reach on the same random problems (documented in their headers)
 *     and that their inner failures are counted;
 * (f) parameters: bad values rejected by name, defaults equal the documented ones, determinism;
 * (g) one contact with a diagonal Delassus operator, hand-derived answers (testutil.c: open,
 *     grazing, stick, slide, frictionless, stick limit) for the three AL solvers and
 *     pgs-decoupled; pgs-decoupled on the SPD random family.
 * (h) the sparse route of eq. 25 (newton_factor 2): the checks of (b) on every Newton step of
 *     the random families and of a generated pyramid of 14 boxes pressed into each other (84
 *     dofs, started shaken), whose AL loops end where the dense route's do (newton_factor 1) to
 *     1e-10 relative with the same step counts; the automatic rule picks sparse on the first
 *     problem of pouring-45 (the G1 upper body and 45 particles, 291 dofs) and dense below 64
 *     dofs.
 * (i) the scale rule's diagonal of D from the operator's diagonal blocks (ncp_al_delassus_diag)
 *     on captures of laikago8, boltnut and a 10^2 wall: against the dense ||L^-1 J_i^T||^2, with
 *     A kept block-sparse, and canal's iterates against those from the problem's own D.
 *
 * Random problems are tests/test_solvers.c's families (tutil_random_family): e shifted by
 * tutil_feasible_shift so that v = 0 is strictly feasible (about 5% of raw draws have no
 * solution), nv in 6..30, 1..8 contacts; or nv >= m (D SPD).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/al.h"
#include "solvers/al_common.h"   /* ncp_al_delassus_diag, tested directly in (i) */
#include "solvers/al_operator.h" /* ncp_al_block_T, tested directly in (a) */
#include "solve/harness.h"
#include "solve/params.h"
#include "core/la.h"
#include "metrics/metrics.h"
#include "solvers/registry.h"
#include "scene/scene.h"
#include "sim/assemble.h"
#include "tcheck.h"
#include "testutil.h"

static const ncp_solver_desc *S_CANAL, *S_TR, *S_DSN, *S_NSN;

/* ---------- independent helpers (no cone.h / al_common code) ---------- */

/* The cone projection and the natural map are testutil.h's independent ones
 * (tutil_ref_project, tutil_ref_natural_map: own projection, own u, metrics.h conventions). */

/* J as a dense m x nv row-major copy. */
static double *t_dense_J(const ncp_problem *p)
{
    double *J = calloc((size_t)p->m * (size_t)p->nv + 1, sizeof(double));
    if (!J) return NULL;
    for (int i = 0; i < p->m; i++)
        for (int k = p->J.rowptr[i]; k < p->J.rowptr[i + 1]; k++)
            J[(size_t)i * p->nv + p->J.col[k]] += p->J.val[k];
    return J;
}

/* x = lam_prev - beta (J v + eshift). */
static void t_x(const ncp_problem *p, const double *J, const ncp_al_step *s, const double *v,
                double *x)
{
    for (int i = 0; i < p->m; i++) {
        double jv = 0.0;
        for (int j = 0; j < p->nv; j++) jv += J[(size_t)i * p->nv + j] * v[j];
        x[i] = s->lam_prev[i] - s->beta * (jv + s->eshift[i]);
    }
}

/* lambda = T(x) with the proximal contact operator, and h(v) of eq. 22 with the per-type
 * potentials (solvers/canal.c header), all written out here. */
static double t_h(const ncp_problem *p, const double *J, const ncp_al_step *s, const double *v,
                  double *lam)
{
    int n = p->nv;
    double *x = calloc((size_t)p->m + 1, sizeof(double));
    if (!x) return NAN;
    t_x(p, J, s, v, x);
    double h = 0.0, beta = s->beta;
    for (int i = 0; i < n; i++) {
        double av = 0.0;
        for (int j = 0; j < n; j++) av += p->A[i + (size_t)j * n] * v[j];
        h += 0.5 * v[i] * av - p->b[i] * v[i];
    }
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int q = b->row;
        double xv = x[q];
        switch (b->type) {
        case NCP_BILATERAL:
            lam[q] = xv;
            h += xv * xv / (2.0 * beta);
            break;
        case NCP_UNILATERAL:
            lam[q] = fmax(0.0, xv);
            h += lam[q] * lam[q] / (2.0 * beta);
            break;
        case NCP_SOFT:
            lam[q] = (b->c * xv - beta * b->k * b->phi) / (b->c + beta);
            h += (0.5 * b->c * xv * xv - beta * b->k * b->phi * xv) / (beta * (b->c + beta));
            break;
        default:
            tutil_ref_project(b->mu, x + q, lam + q);
            h += (lam[q] * lam[q] + lam[q + 1] * lam[q + 1] + lam[q + 2] * lam[q + 2]) /
                 (2.0 * beta);
        }
    }
    free(x);
    return h;
}

/* ---------- problems ---------- */

/* The family of tests/test_solvers.c (testutil.h): spd = 1 draws nv >= m (D SPD). */
static int t_random(ncp_problem *p, int i, int mixed, int spd, ncp_error *err)
{
    return tutil_random_family(p, 0x5eed0000u, 1000u, i, mixed, spd ? TUTIL_NV_SPD : TUTIL_NV_FREE,
                               NULL, err);
}

/* Two free bodies (dofs 0..5 and 6..11, A block diagonal), contact c on body c % 2 only: the
 * Hessian splits into (at least) two components. */
static int t_two_bodies(ncp_problem *p, int i, ncp_error *err)
{
    int nc = 4, nv = 12;
    int rc = tutil_random_problem(p, 5000u + (uint64_t)i, nv, nc, 0, 0, 0, err);
    if (rc) return rc;
    for (int a = 0; a < nv; a++)
        for (int b = 0; b < nv; b++)
            if ((a < 6) != (b < 6)) p->A[a + (size_t)b * nv] = 0.0;
    double *J = t_dense_J(p);
    if (!J) return NCP_ERR_NOMEM;
    for (int c = 0; c < nc; c++)
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < nv; j++)
                if ((j < 6) != (c % 2 == 0)) J[(size_t)(3 * c + k) * nv + j] = 0.0;
    double *Jc = calloc((size_t)p->m * nv, sizeof(double)); /* column-major for la.h */
    if (!Jc) {
        free(J);
        return NCP_ERR_NOMEM;
    }
    for (int r = 0; r < p->m; r++)
        for (int j = 0; j < nv; j++) Jc[r + (size_t)j * p->m] = J[(size_t)r * nv + j];
    ncp_csr_free(&p->J);
    rc = ncp_csr_from_dense(&p->J, p->m, nv, Jc, 0.0, err);
    free(J);
    free(Jc);
    if (!rc) rc = ncp_problem_compute_dual(p, err);
    if (!rc) tutil_feasible_shift(p);
    return rc;
}

/* ---------- (a) operators ---------- */

static void test_operators(void)
{
    trng r = {77};
    const double beta = 3.0, hfd = 1e-6;
    int types[4] = {NCP_BILATERAL, NCP_UNILATERAL, NCP_SOFT, NCP_CONTACT};
    int checked_slip[2] = {0, 0};
    for (int it = 0; it < 400; it++) {
        ncp_block b;
        memset(&b, 0, sizeof b);
        b.type = types[it % 4];
        b.mu = 0.2 + 0.8 * trng_uniform(&r);
        b.k = 0.5 + trng_uniform(&r);
        b.c = 0.1 + trng_uniform(&r);
        b.phi = 0.3 * trng_normal(&r);
        int k = ncp_block_type_size(b.type);
        for (int prox = 0; prox <= 1; prox++) {
            if (b.type != NCP_CONTACT && prox == 0) continue; /* one operator for scalar rows */
            double x[3] = {trng_normal(&r), trng_normal(&r), trng_normal(&r)};
            /* stay away from the kinks, where G is one of several elements */
            double s = hypot(x[1], x[2]);
            if (b.type == NCP_UNILATERAL && fabs(x[0]) < 1e-3) continue;
            if (b.type == NCP_CONTACT &&
                (fabs(s - b.mu * x[0]) < 1e-3 || fabs(b.mu * s + x[0]) < 1e-3 ||
                 fabs(x[0]) < 1e-3))
                continue;
            double T[3], G[9], Tp[3], Tm[3], dummy[9];
            double psi = ncp_al_block_T(&b, prox, beta, x, T, G, 1);
            (void)psi;
            for (int j = 0; j < k; j++) {
                double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
                xp[j] += hfd;
                xm[j] -= hfd;
                double pp = ncp_al_block_T(&b, prox, beta, xp, Tp, dummy, 1);
                double pm = ncp_al_block_T(&b, prox, beta, xm, Tm, dummy, 1);
                for (int i = 0; i < k; i++)
                    CHECK_NEAR(G[i + 3 * j], (Tp[i] - Tm[i]) / (2.0 * hfd), 1e-6);
                if (prox) /* grad psi = T / beta: r(v) is the gradient of h */
                    CHECK_NEAR((pp - pm) / (2.0 * hfd), T[j] / beta, 1e-7);
            }
            if (b.type == NCP_CONTACT && x[0] > 0 && s > b.mu * x[0]) checked_slip[prox]++;
        }
    }
    CHECK(checked_slip[0] > 10 && checked_slip[1] > 10); /* the slip branches were exercised */
    /* the strict operator of eq. 17 on a hand example: x = (2, 3, 4), mu = 0.5: normal kept,
     * tangent scaled to radius 1 along (3, 4)/5 */
    ncp_block b;
    memset(&b, 0, sizeof b);
    b.type = NCP_CONTACT;
    b.mu = 0.5;
    double x[3] = {2.0, 3.0, 4.0}, T[3];
    ncp_al_block_T(&b, 0, 1.0, x, T, NULL, 0);
    CHECK_NEAR(T[0], 2.0, 1e-15);
    CHECK_NEAR(T[1], 0.6, 1e-15);
    CHECK_NEAR(T[2], 0.8, 1e-15);
}

/* ---------- (b) the Newton steps of canal ---------- */

typedef struct step_check {
    const ncp_problem *p;
    double *J;          /* dense row-major */
    int steps, h_up, bad_dir, bad_ls, at_kink;
    double worst_dir, worst_ls, worst_h;
} step_check;

static void on_canal_step(void *ctx, const ncp_al_step *s)
{
    step_check *c = ctx;
    const ncp_problem *p = c->p;
    int n = p->nv, m = p->m;
    c->steps++;
    double *lam0 = calloc((size_t)m + 1, sizeof(double));
    double *lam1 = calloc((size_t)m + 1, sizeof(double));
    double *x = calloc((size_t)m + 1, sizeof(double)), *r = calloc((size_t)n, sizeof(double));
    double *H = calloc((size_t)n * n, sizeof(double)), *d = calloc((size_t)n, sizeof(double));
    if (!lam0 || !lam1 || !x || !r || !H || !d) {
        c->bad_dir++;
        goto out;
    }
    double h0 = t_h(p, c->J, s, s->v_before, lam0);
    double h1 = t_h(p, c->J, s, s->v_after, lam1);
    /* scale of h's terms, for the round-off allowance */
    double hs = 0.0;
    for (int i = 0; i < n; i++) hs += fabs(p->b[i] * s->v_before[i]);
    hs = fmax(hs, fabs(h0));
    if (h1 > h0 + 1e-12 * hs) c->h_up++;
    c->worst_h = fmax(c->worst_h, (h1 - h0) / hs);
    if (s->alpha <= 0.0) goto out;
    /* r = A v - b - J^T lambda and H = A + beta sum J^T G J at v_before, written out here */
    t_x(p, c->J, s, s->v_before, x);
    for (int i = 0; i < n; i++) {
        double acc = -p->b[i];
        for (int j = 0; j < n; j++) {
            acc += p->A[i + (size_t)j * n] * s->v_before[j];
            H[(size_t)i * n + j] = p->A[i + (size_t)j * n];
        }
        for (int q = 0; q < m; q++) acc -= c->J[(size_t)q * n + i] * lam0[q];
        r[i] = acc;
    }
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int q = b->row, k = ncp_block_type_size(b->type);
        double G[9] = {0};
        if (b->type == NCP_BILATERAL) G[0] = 1.0;
        else if (b->type == NCP_UNILATERAL) G[0] = x[q] > 0.0;
        else if (b->type == NCP_SOFT) G[0] = b->c / (b->c + s->beta);
        else {
            /* eq. 23 in normal-first order, written out; at the kinks
             * the element of the region tested first (stick, then open) */
            double mu = b->mu, xn = x[q], st = hypot(x[q + 1], x[q + 2]);
            if (xn >= 0.0 && st <= mu * xn) {
                G[0] = G[4] = G[8] = 1.0;
            } else if (!(mu * st <= -xn)) {
                double t[2] = {x[q + 1] / st, x[q + 2] / st}, f = mu * xn / st, c = 1.0 + mu * mu;
                G[0] = 1.0 / c;
                for (int a = 0; a < 2; a++) {
                    G[(1 + a) + 0] = mu * t[a] / c;     /* column 0, row 1+a */
                    G[0 + 3 * (1 + a)] = mu * t[a] / c; /* row 0, column 1+a */
                    for (int bb = 0; bb < 2; bb++)
                        G[(1 + a) + 3 * (1 + bb)] =
                            (mu * mu * (a == bb) + f * ((a == bb) - t[a] * t[bb])) / c;
                }
            }
        }
        for (int a = 0; a < n; a++)
            for (int bb = 0; bb < n; bb++) {
                double acc = 0.0;
                for (int i = 0; i < k; i++)
                    for (int j = 0; j < k; j++)
                        acc += c->J[(size_t)(q + i) * n + a] * G[i + 3 * j] *
                               c->J[(size_t)(q + j) * n + bb];
                H[(size_t)a * n + bb] += s->beta * acc;
            }
    }
    /* G is set-valued at the kinks of the projection (eq. 23's region boundaries), and an exact
     * line search often stops right at one: there the code's and our rounding of x can pick
     * different elements, so such steps are counted, not checked */
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        if (b->type != NCP_CONTACT) continue;
        int q = b->row;
        double st = hypot(x[q + 1], x[q + 2]), sc = fabs(x[q]) + st;
        if (fmin(fabs(st - b->mu * x[q]), fabs(b->mu * st + x[q])) <= 1e-8 * sc) {
            c->at_kink++;
            goto out;
        }
    }
    /* backward error of the step as a solution of H d = -r: ||H d_code + r|| <= 1e-9 x the
     * size of the terms (||H|| ||d||, r's own terms, and ||H|| 1e7 eps ||v|| / alpha for the
     * rounding of d = (v_after - v_before) / alpha), so that neither the conditioning of H
     * (beta up to 1e6) nor the rounding of r near convergence enters the tolerance */
    double hn = 0.0, dn = 0.0, res2 = 0.0, rs = 0.0;
    for (int i = 0; i < n; i++) {
        d[i] = (s->v_after[i] - s->v_before[i]) / s->alpha;
        dn += d[i] * d[i];
        double av = 0.0, jl = 0.0;
        for (int j = 0; j < n; j++) av += p->A[i + (size_t)j * n] * s->v_before[j];
        for (int q = 0; q < m; q++) jl += c->J[(size_t)q * n + i] * lam0[q];
        rs += fabs(av) + fabs(p->b[i]) + fabs(jl);
    }
    for (int i = 0; i < n; i++) {
        double acc = r[i];
        for (int j = 0; j < n; j++) {
            acc += H[(size_t)i * n + j] * d[j];
            hn += H[(size_t)i * n + j] * H[(size_t)i * n + j];
        }
        res2 += acc * acc;
    }
    /* d is recovered as (v_after - v_before)/alpha, which carries eps ||v|| / alpha */
    double vn = ncp_norm2(n, s->v_before);
    double rel =
        sqrt(res2) / (sqrt(hn) * sqrt(dn) + rs + 1e7 * DBL_EPSILON * sqrt(hn) * vn / s->alpha);
    c->worst_dir = fmax(c->worst_dir, rel);
    if (rel > 1e-9) c->bad_dir++;
    /* exact line search: phi'(alpha) = d^T (A v_a - b - J^T lambda(v_a)) = 0 relative to
     * phi'(0) = d^T r */
    double f0 = 0.0, fa = 0.0;
    for (int i = 0; i < n; i++) {
        double ra = -p->b[i];
        for (int j = 0; j < n; j++) ra += p->A[i + (size_t)j * n] * s->v_after[j];
        for (int q = 0; q < m; q++) ra -= c->J[(size_t)q * n + i] * lam1[q];
        double di = (s->v_after[i] - s->v_before[i]) / s->alpha;
        f0 += di * r[i];
        fa += di * ra;
    }
    double lsr = fabs(fa) / fmax(fabs(f0), 1e-300);
    /* rtsafe stops at |phi'| <= 1e-10 |phi'(0)| or a 1e-14-wide bracket; round-off in phi'
     * near convergence (phi'(0) tiny) is allowed for by the absolute term */
    if (lsr > 1e-6 && fabs(fa) > 1e-12 * (1.0 + ncp_norm2(n, p->b))) c->bad_ls++;
    c->worst_ls = fmax(c->worst_ls, fabs(f0) > 1e-20 ? lsr : 0.0);
out:
    free(lam0);
    free(lam1);
    free(x);
    free(r);
    free(H);
    free(d);
}

static void test_newton_steps(int route)
{
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    ncp_error perr;
    ncp_error_clear(&perr);
    CHECK_OK(ncp_params_set(&ps, "newton_factor", route, &perr), &perr);
    step_check tot;
    memset(&tot, 0, sizeof tot);
    for (int fam = 0; fam < 3; fam++)
        for (int i = 0; i < 12; i++) {
            ncp_problem p;
            ncp_error err;
            ncp_error_clear(&err);
            if (fam < 2) CHECK_OK(t_random(&p, 300 + i, fam, 0, &err), &err);
            else CHECK_OK(t_two_bodies(&p, i, &err), &err);
            step_check c;
            memset(&c, 0, sizeof c);
            c.p = &p;
            c.J = t_dense_J(&p);
            CHECK(c.J != NULL);
            if (!c.J) return;
            ncp_al_stats st;
            double *lam = calloc((size_t)p.m + 1, sizeof(double));
            double *v = calloc((size_t)p.nv + 1, sizeof(double));
            CHECK(lam != NULL && v != NULL);
            if (!lam || !v) return;
            CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &p, &ps, NULL, NULL, 8,
                                           on_canal_step, &c, lam, v, &st, &err),
                     &err);
            CHECK(st.al_iterations >= 1);
            CHECK(st.sparse_newton == (route == 2));
            CHECK(c.steps == st.inner_iterations);   /* every step was observed */
            CHECK(st.factorizations == st.inner_iterations); /* one Cholesky per Newton step */
            CHECK(c.h_up == 0);
            CHECK(c.bad_dir == 0);
            CHECK(c.bad_ls == 0);
            if (c.h_up || c.bad_dir || c.bad_ls)
                fprintf(stderr, "  family %d problem %d: h up %d, bad direction %d (worst %g), "
                        "inexact line search %d (worst %g)\n", fam, i, c.h_up, c.bad_dir,
                        c.worst_dir, c.bad_ls, c.worst_ls);
            tot.steps += c.steps;
            tot.at_kink += c.at_kink;
            tot.worst_dir = fmax(tot.worst_dir, c.worst_dir);
            tot.worst_ls = fmax(tot.worst_ls, c.worst_ls);
            tot.worst_h = fmax(tot.worst_h, c.worst_h);
            free(lam);
            free(v);
            free(c.J);
            ncp_problem_free(&p);
        }
    printf("canal Newton steps checked (%s): %d (%d at a kink: h checked, direction not); worst "
           "backward error of the step %.2g, worst |phi'(a)|/|phi'(0)| %.2g, worst relative h "
           "increase %.2g\n", route == 2 ? "sparse Cholesky" : "dense per component",
           tot.steps, tot.at_kink, tot.worst_dir, tot.worst_ls, tot.worst_h);
    CHECK(tot.steps > 1000);
    CHECK(tot.at_kink * 10 < tot.steps);
}

/* ---------- (c) agreement with nsn-nm ---------- */

static void test_agree(int mixed, int spd, int count, int *iters_out, int *worst_out)
{
    int total = 0, worst = 0;
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, i, mixed, spd, &err), &err);
        ncp_result a, b;
        CHECK_OK(tutil_solve(S_CANAL, &p, NULL, NULL, 1e-8, 300, &a), &err);
        CHECK_OK(tutil_solve(S_NSN, &p, NULL, NULL, 1e-10, 500, &b), &err);
        CHECK(a.converged && b.converged);
        double na = tutil_ref_natural_map(&p, a.lambda, 0);
        double nb = tutil_ref_natural_map(&p, b.lambda, 0);
        CHECK(na <= 1e-6 && nb <= 1e-6);
        CHECK(na <= 1.01e-8);
        if (!a.converged || na > 1e-6)
            fprintf(stderr, "  canal on random %d (mixed %d spd %d): %s after %d, natural map %g\n",
                    i, mixed, spd, ncp_status_name(a.status), a.iterations, na);
        if (spd) { /* D SPD: compare the impulses themselves */
            double d = 0.0, s = 1.0;
            for (int k = 0; k < p.m; k++) {
                d = fmax(d, fabs(a.lambda[k] - b.lambda[k]));
                s = fmax(s, fabs(b.lambda[k]));
            }
            CHECK(d <= 1e-6 * s);
            if (d > 1e-6 * s) fprintf(stderr, "  spd random %d: |lambda diff| = %g\n", i, d);
        }
        /* canal reports its own velocity, which is A^{-1}(b + J^T lambda) up to its inner
         * tolerance */
        CHECK(a.has_solver_v);
        total += a.iterations;
        if (a.iterations > worst) worst = a.iterations;
        ncp_result_free(&a);
        ncp_result_free(&b);
        ncp_problem_free(&p);
    }
    *iters_out += total;
    if (worst > *worst_out) *worst_out = worst;
}

/* ---------- (d) warm start, budgets, the stats hook ---------- */

static void test_warm_start(int count)
{
    const ncp_solver_desc *ss[3] = {S_CANAL, S_TR, S_DSN};
    for (int i = 0; i < count; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 100 + i, i % 2, 0, &err), &err);
        tutil_check_warm_starts(S_NSN, &p, ss, 3, 1e-8);
        ncp_problem_free(&p);
    }
}

static void test_budgets(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_random(&p, 7, 1, 0, &err), &err);
    const ncp_solver_desc *ss[3] = {S_CANAL, S_TR, S_DSN};
    for (int si = 0; si < 3; si++) tutil_check_budgets(ss[si], &p, NULL);
    ncp_problem_free(&p);
}

static int count_steps;
static void on_count(void *ctx, const ncp_al_step *s)
{
    (void)s;
    (*(int *)ctx)++;
}

static void test_stats_hook(void)
{
    const ncp_solver_desc *ss[3] = {S_CANAL, S_TR, S_DSN};
    const ncp_al_config *cs[3] = {&ncp_al_config_canal, &ncp_al_config_trdogleg,
                                  &ncp_al_config_dampedsn};
    for (int si = 0; si < 3; si++) CHECK(cs[si]->desc == ss[si]); /* the registered solvers */
    for (int i = 0; i < 6; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 400 + i, i % 2, 0, &err), &err);
        for (int si = 0; si < 3; si++) {
            ncp_al_stats st;
            count_steps = 0;
            double *lam = calloc((size_t)p.m + 1, sizeof(double));
            double *v = calloc((size_t)p.nv + 1, sizeof(double));
            CHECK(lam != NULL && v != NULL);
            if (!lam || !v) return;
            CHECK_OK(ncp_al_solve_observed(cs[si], &p, NULL, NULL, NULL, 10, on_count,
                                           &count_steps, lam, v, &st, &err),
                     &err);
            CHECK(st.al_iterations == 10 || st.status == NCP_STATUS_STALLED);
            CHECK(st.status == NCP_STATUS_MAX_ITER || st.status == NCP_STATUS_STALLED);
            CHECK(count_steps == st.inner_iterations);
            CHECK(st.inner_failures >= 0 && st.inner_failures <= st.al_iterations);
            CHECK(st.inner_max_per_loop <= 100);
            /* the harness path runs the same algorithm: the same iterate after as many loops */
            ncp_result res;
            CHECK_OK(tutil_solve(ss[si], &p, NULL, NULL, 1e-300, st.al_iterations, &res), &err);
            CHECK(res.iterations == st.al_iterations);
            CHECK(memcmp(res.lambda, lam, (size_t)p.m * sizeof(double)) == 0);
            ncp_result_free(&res);
            free(lam);
            free(v);
        }
        ncp_problem_free(&p);
    }
    /* no configuration, bad loop count */
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_random(&p, 1, 0, 0, &err), &err);
    double lam[64], v[64];
    ncp_al_stats st;
    CHECK(ncp_al_solve_observed(NULL, &p, NULL, NULL, NULL, 10, NULL, NULL, lam, v, &st, &err) ==
          NCP_ERR_INPUT);
    CHECK(ncp_al_solve_observed(&ncp_al_config_canal, &p, NULL, NULL, NULL, 0, NULL, NULL, lam, v,
                                &st, &err) == NCP_ERR_INPUT);
    ncp_problem_free(&p);
}

/* ---------- (e) the ablations ---------- */

static void test_ablations(int count)
{
    const ncp_solver_desc *ss[2] = {S_TR, S_DSN};
    const ncp_al_config *cs[2] = {&ncp_al_config_trdogleg, &ncp_al_config_dampedsn};
    for (int si = 0; si < 2; si++) {
        int conv = 0, inner = 0, fails = 0, loops = 0;
        for (int i = 0; i < count; i++) {
            ncp_problem p;
            ncp_error err;
            ncp_error_clear(&err);
            CHECK_OK(t_random(&p, i, i % 2, 0, &err), &err);
            ncp_result res;
            CHECK_OK(tutil_solve(ss[si], &p, NULL, NULL, 1e-9, 300, &res), &err);
            /* whatever the outcome, the answer is finite and the status is one of the documented */
            CHECK(ncp_all_finite(p.m, res.lambda));
            if (res.converged) {
                conv++;
                CHECK(tutil_ref_natural_map(&p, res.lambda, 0) <= 1.01e-9);
            }
            ncp_al_stats st;
            double *lam = calloc((size_t)p.m + 1, sizeof(double));
            double *v = calloc((size_t)p.nv + 1, sizeof(double));
            CHECK(lam != NULL && v != NULL);
            if (!lam || !v) return;
            CHECK_OK(ncp_al_solve_observed(cs[si], &p, NULL, NULL, NULL, 10, NULL, NULL, lam, v,
                                           &st, &err),
                     &err);
            inner += st.inner_iterations;
            fails += st.inner_failures;
            loops += st.al_iterations;
            free(lam);
            free(v);
            ncp_result_free(&res);
            ncp_problem_free(&p);
        }
        printf("%s on %d random problems: %d reach natural map 1e-9 within 300 AL loops; over 10 "
               "loops each: %.1f inner steps per problem, %d of %d inner solves failed\n",
               ss[si]->name, count, conv, (double)inner / count, fails, loops);
        /* documented in solvers/al_trdogleg.c / al_dampedsn.c */
        CHECK(conv >= count * 9 / 10);
    }
}

/* ---------- (f) parameters ---------- */

static void test_params(void)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_random(&p, 11, 1, 0, &err), &err);
    const ncp_solver_desc *ss[3] = {S_CANAL, S_TR, S_DSN};
    for (int si = 0; si < 3; si++) tutil_check_param_defaults(ss[si], &p, 1e-9, 50);
    struct {
        const ncp_solver_desc *s;
        const char *name;
        double value;
    } bad[] = {
        {S_CANAL, "beta0", -1.0},     {S_CANAL, "kappa", 1.0},    {S_CANAL, "beta_max_ratio", 0.5},
        {S_CANAL, "zeta", -1.0},      {S_CANAL, "inner_tol", 2.0}, {S_CANAL, "inner_max", 0.0},
        {S_CANAL, "ls_tol", 0.0},     {S_CANAL, "ls_max", 1.5},   {S_CANAL, "theta_al", -1.0},
        {S_TR, "eta", 0.25},          {S_TR, "inner_max", 2.5},   {S_DSN, "armijo", 0.5},
        {S_DSN, "p", 2.0},            {S_DSN, "rho", 0.0},        {S_DSN, "ls_max", 0.0},
        {S_CANAL, "beta0_rel", 0.0},  {S_CANAL, "theta_n", -1.0}, {S_CANAL, "cold_v", 2.0},
        {S_DSN, "ls_abort", 2.0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tutil_check_bad_param(bad[i].s, &p, bad[i].name, bad[i].value);
    ncp_problem_free(&p);
}

static void analytic_case(const tutil_contact_case *k, ncp_problem *p, void *ctx)
{
    const ncp_solver_desc *const *ss = ctx;
    ncp_error err;
    ncp_error_clear(&err);
    /* A = I, J = diag(sqrt 2, sqrt .5, sqrt .5) (the Cholesky factor of D), b = 0, e = v_f */
    CHECK_OK(ncp_problem_primal_from_dual(p, &err), &err);
    for (int si = 0; si < 4 && ss[si]; si++)
        tutil_check_answer(k->name, ss[si], p, NULL, 1e-11, 500, k->ncp, 1e-10);
}

/* One contact with A = I, J = diag(sqrt(a), sqrt(b), sqrt(b)), b = 0, e = v_f: D = diag(a, b, b).
 * The answers are testutil.c's hand derivations (open, grazing, stick, slide, frictionless,
 * stick limit); every AL solver and pgs-decoupled must reproduce them. */
static void test_analytic(void)
{
    const ncp_solver_desc *ss[4] = {S_CANAL, S_TR, S_DSN, ncp_solver_find("pgs-decoupled")};
    CHECK(ss[3] != NULL);
    tutil_for_contact_cases(analytic_case, ss);
}

/* pgs-decoupled (Lee et al. 2025's baseline, solvers/pgs_decoupled.c) on the random families: it
 * reaches the natural map 1e-8 where D is SPD (nv >= m); on the rank-deficient ones it is allowed
 * the slow convergence every PGS shows, and its answer must stay finite and in the cone. */
static void test_pgs_decoupled(void)
{
    const ncp_solver_desc *s = ncp_solver_find("pgs-decoupled");
    CHECK(s != NULL);
    if (!s) return;
    int conv = 0, total = 0;
    for (int i = 0; i < 20; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, i, i % 2, 1, &err), &err);
        ncp_result res;
        CHECK_OK(tutil_solve(s, &p, NULL, NULL, 1e-8, 50000, &res), &err);
        conv += res.converged;
        total++;
        CHECK(res.converged);
        CHECK(tutil_ref_natural_map(&p, res.lambda, 0) <= 1.01e-8);
        for (int bi = 0; bi < p.nblocks; bi++) {
            const ncp_block *b = &p.blocks[bi];
            if (b->type != NCP_CONTACT) continue;
            const double *l = res.lambda + b->row;
            CHECK(l[0] >= 0.0 && hypot(l[1], l[2]) <= b->mu * l[0] * (1.0 + 1e-12));
        }
        ncp_result_free(&res);
        ncp_problem_free(&p);
    }
    printf("pgs-decoupled: %d of %d SPD random problems to natural map 1e-8\n", conv, total);
}

/* ---------- (g) warm start, theta_N, scale-free beta0 (Lee et al. 2025 §V-D, Alg. 1 l. 8) ---- */

/* The last step of every AL loop: enough to recompute ||r|| at the loop's end independently. */
typedef struct loop_end {
    const ncp_problem *p;
    int steps, nl;
    double beta[16];
    double *lam_prev[16], *eshift[16], *v[16];
} loop_end;

static void on_loop_end(void *ctx, const ncp_al_step *s)
{
    loop_end *c = ctx;
    c->steps++;
    int l = s->al_iter - 1;
    if (l < 0 || l >= 16) return;
    if (l + 1 > c->nl) c->nl = l + 1;
    c->beta[l] = s->beta;
    memcpy(c->lam_prev[l], s->lam_prev, (size_t)c->p->m * sizeof(double));
    memcpy(c->eshift[l], s->eshift, (size_t)c->p->m * sizeof(double));
    memcpy(c->v[l], s->v_after, (size_t)c->p->nv * sizeof(double));
}

static int loop_end_alloc(loop_end *c, const ncp_problem *p)
{
    memset(c, 0, sizeof *c);
    c->p = p;
    int ok = 1;
    for (int l = 0; l < 16; l++) {
        c->lam_prev[l] = calloc((size_t)p->m + 1, sizeof(double));
        c->eshift[l] = calloc((size_t)p->m + 1, sizeof(double));
        c->v[l] = calloc((size_t)p->nv + 1, sizeof(double));
        ok &= c->lam_prev[l] && c->eshift[l] && c->v[l];
    }
    return ok;
}

static void loop_end_free(loop_end *c)
{
    for (int l = 0; l < 16; l++) {
        free(c->lam_prev[l]);
        free(c->eshift[l]);
        free(c->v[l]);
    }
}

/* ||A v - b - J^T T(x(v))|| at loop l's end, with testutil's projection (t_h). */
static double t_rnorm(const ncp_problem *p, const double *J, const loop_end *c, int l)
{
    int n = p->nv, m = p->m;
    ncp_al_step s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.beta = c->beta[l];
    s.lam_prev = c->lam_prev[l];
    s.eshift = c->eshift[l];
    double *lam = calloc((size_t)m + 1, sizeof(double));
    if (!lam) return INFINITY;
    t_h(p, J, &s, c->v[l], lam);
    double r2 = 0.0;
    for (int i = 0; i < n; i++) {
        double acc = -p->b[i];
        for (int j = 0; j < n; j++) acc += p->A[i + (size_t)j * n] * c->v[l][j];
        for (int q = 0; q < m; q++) acc -= J[(size_t)q * n + i] * lam[q];
        r2 += acc * acc;
    }
    free(lam);
    return sqrt(r2);
}

/* A converged solution is a fixed point of the warm start: from (lambda*, v*) one AL loop takes
 * no Newton step (||r(v*)|| is already below theta_N) and leaves lambda where it was. */
static void test_warm_fixed_point(void)
{
    int zero_steps = 0;
    for (int i = 0; i < 10; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 700 + i, i % 2, 0, &err), &err);
        int m = p.m, n = p.nv;
        double *l1 = calloc((size_t)m + 1, sizeof(double)), *v1 = calloc((size_t)n + 1, 8);
        double *l2 = calloc((size_t)m + 1, sizeof(double)), *v2 = calloc((size_t)n + 1, 8);
        CHECK(l1 && v1 && l2 && v2);
        if (l1 && v1 && l2 && v2) {
            ncp_al_stats st;
            CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &p, NULL, NULL, NULL, 200, NULL,
                                           NULL, l1, v1, &st, &err),
                     &err);
            double nm = tutil_ref_natural_map(&p, l1, 0);
            CHECK(nm <= 1e-8);
            int steps = 0;
            CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &p, NULL, l1, v1, 1, on_count,
                                           &steps, l2, v2, &st, &err),
                     &err);
            zero_steps += steps == 0;
            CHECK(steps <= 1);
            CHECK(st.inner_failures == 0);
            double d = 0.0, s = 1e-300;
            for (int k = 0; k < m; k++) {
                d = fmax(d, fabs(l2[k] - l1[k]));
                s = fmax(s, fabs(l1[k]));
            }
            CHECK(d <= 1e-7 * s);
            CHECK(tutil_ref_natural_map(&p, l2, 0) <= 1e-8); /* still converged */
        }
        free(l1);
        free(v1);
        free(l2);
        free(v2);
        ncp_problem_free(&p);
    }
    CHECK(zero_steps >= 5);
    printf("canal warm-started at its own solution: %d of 10 loops without a Newton step\n",
           zero_steps);
}

/* Alg. 1 line 5 / eq. 21, recomputed: loop l+1's De Saxce shift is e + mu ||z_t^l|| with the
 * slack of eqs. 12-13, z^l = J v^l + e + (lambda^l - lambda^{l-1}) / beta_l (u^l = -lambda^l),
 * from loop l's last velocity, its multipliers and its beta (before eq. 27 raises it). And at a
 * contact whose lambda^l lies strictly inside the cone (sticking), z_t^l = 0: the shift does not
 * move there, only on sliding and open contacts (the Table II diagnosis in results/REPORT.md). */
static void test_cascade_shift(void)
{
    int checked = 0, sticking = 0;
    for (int i = 0; i < 24; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 900 + i, i % 2, 0, &err), &err);
        int m = p.m, n = p.nv;
        double *J = t_dense_J(&p);
        double *lam = calloc((size_t)m + 1, sizeof(double)), *v = calloc((size_t)n + 1, 8);
        loop_end c;
        int ok = loop_end_alloc(&c, &p) && J && lam && v;
        CHECK(ok);
        if (ok) {
            ncp_al_stats st;
            ncp_params ps;
            memset(&ps, 0, sizeof ps);
            /* theta_n 0: every loop takes at least one Newton step (ncp_al_inner_done cannot
             * stop before the first), so the observer sees every loop's end */
            CHECK_OK(ncp_params_set(&ps, "theta_n", 0.0, &err), &err);
            CHECK_OK(ncp_params_set(&ps, "inner_max", 30.0, &err), &err);
            CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &p, &ps, NULL, NULL, 8,
                                           on_loop_end, &c, lam, v, &st, &err),
                     &err);
            for (int l = 0; l + 1 < c.nl; l++) {
                double scale = 1e-300;
                for (int q = 0; q < m; q++) scale = fmax(scale, fabs(c.eshift[l + 1][q]));
                for (int bi = 0; bi < p.nblocks; bi++) {
                    const ncp_block *b = &p.blocks[bi];
                    if (b->type != NCP_CONTACT) continue;
                    int r = b->row;
                    double z[3];
                    for (int k = 0; k < 3; k++) {
                        double jv = 0.0;
                        for (int j = 0; j < n; j++) jv += J[(size_t)(r + k) * n + j] * c.v[l][j];
                        z[k] = jv + p.e[r + k] +
                               (c.lam_prev[l + 1][r + k] - c.lam_prev[l][r + k]) / c.beta[l];
                    }
                    double want = p.e[r] + b->mu * hypot(z[1], z[2]);
                    CHECK(fabs(c.eshift[l + 1][r] - want) <= 1e-9 * scale);
                    CHECK(c.eshift[l + 1][r + 1] == p.e[r + 1] &&
                          c.eshift[l + 1][r + 2] == p.e[r + 2]);
                    checked++;
                    const double *lr = c.lam_prev[l + 1] + r;
                    if (lr[0] > 0.0 && hypot(lr[1], lr[2]) < (1.0 - 1e-6) * b->mu * lr[0]) {
                        sticking++;
                        CHECK(hypot(z[1], z[2]) <= 1e-8 * (1.0 + scale));
                    }
                }
            }
        }
        loop_end_free(&c);
        free(J);
        free(lam);
        free(v);
        ncp_problem_free(&p);
    }
    CHECK(checked > 300 && sticking >= 10);
    printf("canal's De Saxce shift recomputed from eqs. 12-13 on %d contact-loops (%d sticking: "
           "no shift)\n", checked, sticking);
}

/* Sec. V-D's warm start of u: u^0 = -lambda0 (with v^0 = v0) from a start far from the solution
 * reaches the cold start's fixed point (D SPD: the solution is unique) to 1e-8 relative. */
static void test_warm_u_same_fixed_point(void)
{
    for (int i = 0; i < 6; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 950 + i, i % 2, 1, &err), &err);
        int m = p.m, n = p.nv;
        double *lc = calloc((size_t)m + 1, sizeof(double)), *vc = calloc((size_t)n + 1, 8);
        double *lw = calloc((size_t)m + 1, sizeof(double)), *vw = calloc((size_t)n + 1, 8);
        double *l0 = calloc((size_t)m + 1, sizeof(double)), *v0 = calloc((size_t)n + 1, 8);
        CHECK(lc && vc && lw && vw && l0 && v0);
        if (lc && vc && lw && vw && l0 && v0) {
            ncp_al_stats st;
            CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &p, NULL, NULL, NULL, 200, NULL,
                                           NULL, lc, vc, &st, &err),
                     &err);
            /* a start off the solution: twice the impulses, turned (t1 <-> t2), and a velocity
             * of the opposite sign */
            double s = 1.0;
            for (int k = 0; k < m; k++) s = fmax(s, fabs(lc[k]));
            for (int bi = 0; bi < p.nblocks; bi++) {
                int r = p.blocks[bi].row, k = ncp_block_type_size(p.blocks[bi].type);
                for (int a = 0; a < k; a++) l0[r + a] = 2.0 * lc[r + a];
                if (k == 3) {
                    l0[r + 1] = 2.0 * lc[r + 2];
                    l0[r + 2] = 2.0 * lc[r + 1];
                }
            }
            for (int j = 0; j < n; j++) v0[j] = -vc[j] + 0.1;
            CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &p, NULL, l0, v0, 200, NULL,
                                           NULL, lw, vw, &st, &err),
                     &err);
            CHECK(st.inner_failures == 0);
            double d = 0.0;
            for (int k = 0; k < m; k++) d = fmax(d, fabs(lw[k] - lc[k]));
            CHECK(d <= 1e-8 * s);
            if (d > 1e-8 * s) fprintf(stderr, "  warm u: random %d: |lambda diff| %g\n", i, d);
            CHECK(tutil_ref_natural_map(&p, lw, 0) <= 1e-8);
        }
        free(lc);
        free(vc);
        free(lw);
        free(vw);
        free(l0);
        free(v0);
        ncp_problem_free(&p);
    }
}

/* Alg. 1 line 8 with an absolute theta_N: every loop reported converged ends with ||r|| <=
 * theta_N, recomputed here from the loop's last iterate. */
static void test_theta_n(void)
{
    for (int i = 0; i < 8; i++) {
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 800 + i, i % 2, 0, &err), &err);
        double *J = t_dense_J(&p);
        double thn = 1e-7 * ncp_norm2(p.nv, p.b);
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        CHECK_OK(ncp_params_set(&ps, "theta_n_abs", thn, &err), &err);
        double *lam = calloc((size_t)p.m + 1, sizeof(double)), *v = calloc((size_t)p.nv + 1, 8);
        loop_end c;
        int ok = loop_end_alloc(&c, &p) && J && lam && v;
        CHECK(ok);
        if (ok) {
            ncp_al_stats st;
            CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &p, &ps, NULL, NULL, 10,
                                           on_loop_end, &c, lam, v, &st, &err),
                     &err);
            CHECK(st.inner_failures == 0);
            CHECK(c.steps == st.inner_iterations);
            for (int l = 0; l < c.nl && st.inner_failures == 0; l++) {
                if (c.beta[l] == 0.0) continue; /* a loop without a step */
                double r = t_rnorm(&p, J, &c, l);
                CHECK(r <= thn);
                if (r > thn) fprintf(stderr, "  theta_N: random %d loop %d ||r|| %g > %g\n", i, l,
                                     r, thn);
            }
        }
        loop_end_free(&c);
        free(J);
        free(lam);
        free(v);
        ncp_problem_free(&p);
    }
}

/* Scale-free beta0 and theta_N: with A, b and the soft rows' k, c times s (every mass times s)
 * the iterates are the
 * same with lambda times s; with the paper's absolute beta0 they are not (the penalty then means
 * something else relative to the masses). */
static void test_scale_free(void)
{
    const double s = 1024.0; /* a power of 2: the scaled data are exact */
    double worst = 0.0, worst_abs = 0.0;
    for (int i = 0; i < 6; i++) {
        ncp_problem p, q;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(t_random(&p, 900 + i, i % 2, 0, &err), &err);
        CHECK_OK(ncp_problem_copy(&q, &p, &err), &err);
        int n = p.nv, m = p.m;
        for (size_t k = 0; k < (size_t)n * n; k++) q.A[k] *= s;
        for (int k = 0; k < n; k++) q.b[k] *= s;
        for (int bi = 0; bi < q.nblocks; bi++) /* impulse per unit phi / velocity: x s too */
            if (q.blocks[bi].type == NCP_SOFT) {
                q.blocks[bi].k *= s;
                q.blocks[bi].c *= s;
            }
        CHECK_OK(ncp_problem_compute_dual(&q, &err), &err);
        for (int absb = 0; absb < 2; absb++) {
            ncp_params ps;
            memset(&ps, 0, sizeof ps);
            if (absb) CHECK_OK(ncp_params_set(&ps, "beta0", 1e4, &err), &err);
            double *l1 = calloc((size_t)m + 1, 8), *v1 = calloc((size_t)n + 1, 8);
            double *l2 = calloc((size_t)m + 1, 8), *v2 = calloc((size_t)n + 1, 8);
            CHECK(l1 && v1 && l2 && v2);
            if (l1 && v1 && l2 && v2) {
                ncp_al_stats st1, st2;
                CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &p, &ps, NULL, NULL, 4, NULL,
                                               NULL, l1, v1, &st1, &err),
                         &err);
                CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &q, &ps, NULL, NULL, 4, NULL,
                                               NULL, l2, v2, &st2, &err),
                         &err);
                double dl = 0.0, sl = 1e-300, dv = 0.0, sv = 1e-300;
                for (int k = 0; k < m; k++) {
                    dl = fmax(dl, fabs(l2[k] / s - l1[k]));
                    sl = fmax(sl, fabs(l1[k]));
                }
                for (int k = 0; k < n; k++) {
                    dv = fmax(dv, fabs(v2[k] - v1[k]));
                    sv = fmax(sv, fabs(v1[k]));
                }
                double rel = fmax(dl / sl, dv / sv);
                if (absb) worst_abs = fmax(worst_abs, rel);
                else {
                    worst = fmax(worst, rel);
                    CHECK(rel <= 1e-8);
                    if (rel > 1e-8) fprintf(stderr, "  scale-free: random %d: %g\n", 900 + i, rel);
                    CHECK(st1.inner_iterations == st2.inner_iterations);
                }
            }
            free(l1);
            free(v1);
            free(l2);
            free(v2);
        }
        ncp_problem_free(&q);
        ncp_problem_free(&p);
    }
    /* the absolute beta0 really changes the iterates: the test above can fail */
    CHECK(worst_abs > 1e-4);
    printf("masses x %g after 4 AL loops: scale-free beta0 relative change %.1e, absolute beta0 "
           "1e4 %.1e\n", s, worst, worst_abs);
}

static void test_empty(void)
{
    /* no constraint rows: one iteration, v = A^{-1} b */
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(tutil_random_problem(&p, 9, 5, 0, 0, 0, 0, &err), &err);
    ncp_result res;
    CHECK_OK(tutil_solve(S_CANAL, &p, NULL, NULL, 1e-10, 10, &res), &err);
    CHECK(res.converged && res.iterations == 1);
    double *Av = calloc(5, sizeof(double));
    CHECK(res.solver_v != NULL); /* canal's own v, not the harness's A^{-1}(b + J^T lambda) */
    if (Av && res.solver_v) {
        ncp_gemv(0, 5, 5, 1.0, p.A, res.solver_v, 0.0, Av);
        for (int i = 0; i < 5; i++) CHECK_NEAR(Av[i], p.b[i], 1e-12);
    }
    free(Av);
    ncp_result_free(&res);
    ncp_problem_free(&p);
}

/* ---------- (h) the sparse route on a robot with a particle pile ---------- */

typedef struct iter_rec {
    int n, steps, cap;
    double *v; /* v_after of every step, n each */
    int *loop; /* its AL loop */
} iter_rec;

static void on_record(void *ctx, const ncp_al_step *s)
{
    iter_rec *c = ctx;
    if (c->steps >= c->cap) {
        int cap = c->cap ? 2 * c->cap : 64;
        double *nv = realloc(c->v, (size_t)cap * (size_t)c->n * sizeof(double));
        if (nv) c->v = nv;
        int *nl = realloc(c->loop, (size_t)cap * sizeof(int));
        if (nl) c->loop = nl;
        if (!nv || !nl) return; /* the step count check then fails */
        c->cap = cap;
    }
    c->loop[c->steps] = s->al_iter;
    memcpy(c->v + (size_t)c->steps++ * c->n, s->v_after, (size_t)c->n * sizeof(double));
}

/* The first problem of a scene file, or (file NULL) of a generated pyramid of boxes pressed
 * 1 mm into each other and the ground: 3 x 3 on the ground (touching side to side), 2 x 2 on
 * the junctions of four, 1 on top; 14 bodies, 84 dofs, every box coupled to its neighbours by
 * loaded contacts. 0 on failure. */
static int scene_problem(const char *file, ncp_problem *p)
{
    ncp_error err = {0};
    ncp_scene *s = NULL;
    int rc;
    if (file) {
        rc = ncp_scene_load(file, ncp_registry_catalog(), &s, &err);
    } else {
        char js[16384];
        size_t n = (size_t)snprintf(js, sizeof js,
                                    "{\"name\":\"pyramid\",\"timestep\":0.005,\"steps\":1,"
                                    "\"bodies\":[{\"name\":\"g\",\"type\":\"static\","
                                    "\"shapes\":[{\"type\":\"plane\"}]}");
        int id = 0;
        for (int layer = 0; layer < 3; layer++) {
            int side = 3 - layer;
            for (int i = 0; i < side * side; i++, id++)
                n += (size_t)snprintf(
                    js + n, sizeof js - n,
                    ",{\"name\":\"b%d\",\"type\":\"dynamic\",\"mass\":%g,"
                    "\"position\":[%.17g,%.17g,%.17g],\"velocity\":[0.05,%g,-0.1],"
                    "\"shapes\":[{\"type\":\"box\",\"half_extents\":[0.1,0.1,0.1]}]}",
                    id, 1.0 + 0.05 * id, 0.1 * layer + 0.2 * (i % side),
                    0.1 * layer + 0.2 * (i / side), 0.099 + 0.198 * layer, 0.02 * (id % 5));
        }
        snprintf(js + n, sizeof js - n, "]}");
        rc = ncp_scene_parse(js, "pyramid.json", NULL, &s, &err);
    }
    if (!rc) rc = ncp_model_initial_problem(ncp_scene_model(s), p, &err);
    CHECK_OK(rc, &err);
    ncp_scene_free(s);
    return rc == NCP_OK;
}

/* canal with newton_factor `route` for `loops` AL loops from v0, every step's v recorded. */
static void run_route(const ncp_problem *p, int route, int loops, const double *v0,
                      iter_rec *rec, double *lam, double *v, ncp_al_stats *st)
{
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(ncp_params_set(&ps, "newton_factor", route, &err), &err);
    memset(rec, 0, sizeof *rec);
    rec->n = p->nv;
    CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, p, &ps, NULL, v0, loops, on_record,
                                   rec, lam, v, st, &err),
             &err);
}

static void test_sparse_pile(void)
{
    ncp_problem p;
    if (!scene_problem(NULL, &p)) return;
    int n = p.nv, m = p.m;
    CHECK(n == 84 && p.nblocks >= 28); /* a pile: every box rests on others */
    double *l1 = calloc((size_t)m + 1, 8), *v1 = calloc((size_t)n, 8);
    double *l2 = calloc((size_t)m + 1, 8), *v2 = calloc((size_t)n, 8);
    double *v0 = calloc((size_t)n, 8);
    iter_rec rd, rs;
    ncp_al_stats sd, ss;
    int ok = l1 && v1 && l2 && v2 && v0;
    CHECK(ok);
    if (ok) {
        /* start from a shaken state (every dof moving at up to 0.1 m/s or rad/s) */
        for (int i = 0; i < n; i++) v0[i] = 0.1 * sin(1.0 + 7.0 * i);
        run_route(&p, 1, 10, v0, &rd, l1, v1, &sd);
        run_route(&p, 2, 10, v0, &rs, l2, v2, &ss);
        CHECK(sd.sparse_newton == 0 && ss.sparse_newton == 1);
        CHECK(rd.steps == sd.inner_iterations && rs.steps == ss.inner_iterations);
        CHECK(rd.steps == rs.steps && rd.steps >= 20);
        /* Each AL loop ends at the unique minimiser of its strongly convex h (eq. 22): the two
         * routes' loop ends agree to the Newton tolerance. Inside a loop the steps may not: on a
         * long run of steps through kinks of the operator the round-off of the two
         * factorisations grows (1e-6 relative on a 30-box pile at loop 4, measured) before the
         * steps converge to the same point. */
        double worst = 0.0;
        int loops = 0;
        for (int k = 0; k < rd.steps && k < rs.steps; k++) {
            if (k + 1 < rd.steps && rd.loop[k + 1] == rd.loop[k]) continue; /* not a loop end */
            CHECK(rs.loop[k] == rd.loop[k] && (k + 1 == rs.steps || rs.loop[k + 1] != rs.loop[k]));
            loops++;
            const double *a = rd.v + (size_t)k * n, *b = rs.v + (size_t)k * n;
            double dv = 0.0, sv = 1e-300;
            for (int i = 0; i < n; i++) {
                dv = fmax(dv, fabs(a[i] - b[i]));
                sv = fmax(sv, fabs(a[i]));
            }
            worst = fmax(worst, dv / sv);
        }
        CHECK(loops >= 5);
        double dl = 0.0, sl = 1e-300;
        for (int i = 0; i < m; i++) {
            dl = fmax(dl, fabs(l1[i] - l2[i]));
            sl = fmax(sl, fabs(l1[i]));
        }
        CHECK(worst <= 1e-10);
        CHECK(dl / sl <= 1e-10);
        CHECK(sl > 0.0); /* the particles rest on each other: a non-trivial answer */
        printf("canal sparse vs dense Newton route on a pyramid of 14 boxes (nv %d, %d "
               "blocks): %d steps each, worst relative difference of the %d loop ends %.2g, "
               "lambda %.2g\n", n, p.nblocks, rd.steps, loops, worst, dl / sl);
        /* the sparse steps checked from outside as in (b) */
        step_check c;
        memset(&c, 0, sizeof c);
        c.p = &p;
        c.J = t_dense_J(&p);
        CHECK(c.J != NULL);
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        ncp_error err;
        ncp_error_clear(&err);
        CHECK_OK(ncp_params_set(&ps, "newton_factor", 2, &err), &err);
        if (c.J)
            CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &p, &ps, NULL, v0, 2,
                                           on_canal_step, &c, l2, v2, &ss, &err),
                     &err);
        CHECK(c.steps == ss.inner_iterations && c.h_up == 0 && c.bad_dir == 0 && c.bad_ls == 0);
        free(c.J);
        free(rd.v);
        free(rs.v);
        free(rd.loop);
        free(rs.loop);
    }
    free(l1);
    free(v1);
    free(l2);
    free(v2);
    free(v0);
    ncp_problem_free(&p);
    /* the automatic rule: sparse on the 45-particle pile, dense below 64 dofs */
    if (scene_problem("scenes/pouring-sweep/pouring-45.json", &p)) {
        double *lam = calloc((size_t)p.m + 1, 8), *v = calloc((size_t)p.nv, 8);
        ncp_al_stats st;
        ncp_error err;
        ncp_error_clear(&err);
        CHECK(lam && v && p.nv >= 64);
        if (lam && v)
            CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &p, NULL, NULL, NULL, 1, NULL,
                                           NULL, lam, v, &st, &err),
                     &err);
        CHECK(st.sparse_newton == 1);
        free(lam);
        free(v);
        ncp_problem_free(&p);
    }
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(t_random(&p, 301, 1, 0, &err), &err);
    double *lam = calloc((size_t)p.m + 1, 8), *v = calloc((size_t)p.nv, 8);
    ncp_al_stats st;
    CHECK(lam && v && p.nv < 64);
    if (lam && v)
        CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &p, NULL, NULL, NULL, 1, NULL, NULL,
                                       lam, v, &st, &err),
                 &err);
    CHECK(st.sparse_newton == 0);
    free(lam);
    free(v);
    ncp_problem_free(&p);
}

/* canal on a block-sparse A (the block route's A_sparse) takes the sparse Newton route and gives,
 * step by step, bit for bit the iterates of the sparse route on the same A kept dense
 * (newton_factor 2), with newton_factor 0 and 2 alike; 1 (dense) is refused with a message. On
 * the pyramid and on a scene's initial problem. */
static void test_sparse_a(void)
{
    for (int si = 0; si < 2; si++) {
        ncp_problem p, q;
        if (!scene_problem(si ? "scenes/box-on-plane.json" : NULL, &p)) return;
        ncp_error err = {0};
        CHECK(p.has_primal);
        CHECK_OK(ncp_problem_copy(&q, &p, &err), &err);
        CHECK_OK(ncp_csr_from_dense(&q.A_sparse, q.nv, q.nv, q.A, 0.0, &err), &err);
        free(q.A);
        q.A = NULL;
        q.has_primal = 0;
        q.has_sparse_primal = 1;
        q.dop_route = 0;
        int n = p.nv, m = p.m;
        double *l1 = calloc((size_t)m + 1, 8), *v1 = calloc((size_t)n, 8);
        double *l2 = calloc((size_t)m + 1, 8), *v2 = calloc((size_t)n, 8);
        CHECK(l1 && v1 && l2 && v2);
        iter_rec r1, r2;
        ncp_al_stats s1, s2;
        run_route(&p, 2, 6, NULL, &r1, l1, v1, &s1);
        for (int route = 0; route <= 2 && l1 && v1 && l2 && v2; route += 2) {
            run_route(&q, route, 6, NULL, &r2, l2, v2, &s2);
            CHECK(r1.steps > 0 && r1.steps == r2.steps && s1.status == s2.status);
            CHECK(r1.v && r2.v &&
                  memcmp(r1.v, r2.v, (size_t)r1.steps * (size_t)n * sizeof(double)) == 0);
            CHECK(memcmp(l1, l2, (size_t)m * sizeof(double)) == 0);
            CHECK(memcmp(v1, v2, (size_t)n * sizeof(double)) == 0);
            free(r2.v);
            free(r2.loop);
        }
        printf("canal, A dense vs block-sparse (%s): %d Newton steps bit for bit equal\n",
               si ? "box-on-plane" : "pyramid", r1.steps);
        free(r1.v);
        free(r1.loop);
        ncp_params ps;
        memset(&ps, 0, sizeof ps);
        CHECK_OK(ncp_params_set(&ps, "newton_factor", 1, &err), &err);
        ncp_error e2 = {0};
        CHECK(ncp_al_solve_observed(&ncp_al_config_canal, &q, &ps, NULL, NULL, 1, NULL, NULL, l2,
                                    v2, NULL, &e2) == NCP_ERR_INPUT);
        CHECK(strstr(e2.msg, "keeps A sparse") != NULL);
        free(l1);
        free(v1);
        free(l2);
        free(v2);
        ncp_problem_free(&p);
        ncp_problem_free(&q);
    }
}

/* ---------- (i) the scale rule's diagonal of D through the operator ---------- */

/* D's diagonal computed here as the scale rule did before it used the operator: the dense A
 * factorised (A = L L^T), D_ii = ||L^-1 J_i^T||^2 row by row over all dofs. */
static double *t_dense_diag(const ncp_problem *p)
{
    int n = p->nv, m = p->m;
    double *L = malloc((size_t)n * n * sizeof(double)), *t = malloc((size_t)n * sizeof(double));
    double *d = malloc((size_t)m * sizeof(double));
    ncp_error err = {0};
    int ok = L && t && d && p->A;
    if (ok) memcpy(L, p->A, (size_t)n * n * sizeof(double));
    if (ok) CHECK_OK(ncp_chol_factor(n, L, &err), &err);
    for (int i = 0; ok && !err.code && i < m; i++) {
        memset(t, 0, (size_t)n * sizeof(double));
        for (int e = p->J.rowptr[i]; e < p->J.rowptr[i + 1]; e++) t[p->J.col[e]] += p->J.val[e];
        ncp_trsm_lower(0, n, L, 1, t);
        double s = 0.0;
        for (int k = 0; k < n; k++) s += t[k] * t[k];
        d[i] = s;
    }
    free(L);
    free(t);
    if (!ok || err.code) {
        free(d);
        return NULL;
    }
    return d;
}

/* On real captures (laikago8: eight articulated robots, bilateral, unilateral and contact rows;
 * boltnut: one body, m >> nv; a wall of the scaling family: many bodies): the diagonal that
 * problem_scale takes from the operator's diagonal blocks agrees with the dense route's
 * ||L^-1 J_i^T||^2 to 1e-12 relative, also with A kept block-sparse; and canal's iterates from
 * it agree with those from the problem's own dense D (the same problem with D attached, whose
 * diagonal problem_scale reads as it is) to rounding: same AL loops and Newton steps, lambda
 * and v to 1e-9 relative after 4 loops. */
static void test_delassus_diag(void)
{
    static const struct { const char *scene; int steps; } cases[] = {
        {"scenes/laikago8.json", 0}, {"scenes/boltnut.json", 0}, {"scenes/scaling/wall-1e2.json", 2}};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        ncp_problem p, q, s;
        if (tutil_capture_largest(cases[ci].scene, cases[ci].steps, &p)) continue;
        ncp_error err = {0};
        int m = p.m, n = p.nv;
        double *dref = t_dense_diag(&p), *d = calloc((size_t)m, sizeof(double));
        double *ds = calloc((size_t)m, sizeof(double));
        CHECK(dref && d && ds);
        if (!dref || !d || !ds) {
            free(dref);
            free(d);
            free(ds);
            ncp_problem_free(&p);
            continue;
        }
        CHECK_OK(ncp_al_delassus_diag(&p, d, &err), &err);
        /* the same with A kept block-sparse (the simulator's block route) */
        CHECK_OK(ncp_problem_copy(&s, &p, &err), &err);
        CHECK_OK(ncp_csr_from_dense(&s.A_sparse, n, n, s.A, 0.0, &err), &err);
        free(s.A);
        s.A = NULL;
        s.has_primal = 0;
        s.has_sparse_primal = 1;
        s.dop_route = 0;
        CHECK_OK(ncp_al_delassus_diag(&s, ds, &err), &err);
        double worst = 0.0, dmax = 0.0;
        for (int i = 0; i < m; i++) {
            dmax = fmax(dmax, dref[i]);
            worst = fmax(worst, fabs(d[i] - dref[i]) / fabs(dref[i]));
            CHECK(d[i] == ds[i]);
        }
        CHECK(worst <= 1e-12 && dmax > 0.0);
        /* canal from the dense D's diagonal (D attached) against from the operator's */
        double *own = NULL;
        CHECK_OK(ncp_problem_dual_view(&p, &q, &own, &err), &err);
        q.has_dual = 1;
        for (int i = 0; own && i < m; i++) CHECK(fabs(q.D[i + (size_t)i * m] - dref[i]) <= 1e-12 * dref[i]);
        double *l1 = calloc((size_t)m, 8), *v1 = calloc((size_t)n, 8);
        double *l2 = calloc((size_t)m, 8), *v2 = calloc((size_t)n, 8);
        CHECK(l1 && v1 && l2 && v2 && own);
        ncp_al_stats s1, s2;
        if (l1 && v1 && l2 && v2 && own) {
            CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &p, NULL, NULL, NULL, 4, NULL,
                                           NULL, l1, v1, &s1, &err),
                     &err);
            CHECK_OK(ncp_al_solve_observed(&ncp_al_config_canal, &q, NULL, NULL, NULL, 4, NULL,
                                           NULL, l2, v2, &s2, &err),
                     &err);
            CHECK(s1.al_iterations == s2.al_iterations &&
                  s1.inner_iterations == s2.inner_iterations && s1.status == s2.status);
            double dl = 0.0, sl = 1e-300, dv = 0.0, sv = 1e-300;
            for (int i = 0; i < m; i++) {
                dl = fmax(dl, fabs(l1[i] - l2[i]));
                sl = fmax(sl, fabs(l2[i]));
            }
            for (int i = 0; i < n; i++) {
                dv = fmax(dv, fabs(v1[i] - v2[i]));
                sv = fmax(sv, fabs(v2[i]));
            }
            CHECK(dl <= 1e-9 * sl && dv <= 1e-9 * sv);
            CHECK(sl > 1e-200);
            printf("canal scale rule on %s (m %d, nv %d): diagonal of D through the operator vs "
                   "dense %.2g relative; %d AL loops, %d Newton steps, lambda %.2g, v %.2g "
                   "relative against D's own diagonal\n", cases[ci].scene, m, n, worst,
                   s1.al_iterations, s1.inner_iterations, dl / sl, dv / sv);
        }
        free(l1);
        free(v1);
        free(l2);
        free(v2);
        free(own);
        free(dref);
        free(d);
        free(ds);
        ncp_problem_free(&s);
        ncp_problem_free(&p);
    }
}

int main(void)
{
    S_CANAL = ncp_solver_find("canal");
    S_TR = ncp_solver_find("al-trdogleg");
    S_DSN = ncp_solver_find("al-dampedsn");
    S_NSN = ncp_solver_find("nsn-nm");
    CHECK(S_CANAL && S_TR && S_DSN && S_NSN);
    if (!S_CANAL || !S_TR || !S_DSN || !S_NSN) return tcheck_exit("canal");
    test_operators();
    test_newton_steps(1);
    test_newton_steps(2);
    test_sparse_pile();
    test_sparse_a();
    test_delassus_diag();
    int iters = 0, worst = 0;
    test_agree(0, 0, 40, &iters, &worst);
    test_agree(1, 0, 40, &iters, &worst);
    test_agree(0, 1, 15, &iters, &worst);
    test_agree(1, 1, 15, &iters, &worst);
    printf("canal to natural map 1e-8 on 110 random problems: mean %.1f, max %d AL iterations\n",
           iters / 110.0, worst);
    test_warm_start(10);
    test_budgets();
    test_stats_hook();
    test_ablations(40);
    test_params();
    test_analytic();
    test_pgs_decoupled();
    test_empty();
    test_warm_fixed_point();
    test_theta_n();
    test_scale_free();
    test_cascade_shift();
    test_warm_u_same_fixed_point();
    return tcheck_exit("canal");
}
