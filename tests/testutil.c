#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "core/la.h"
#include "tcheck.h"
#include "testutil.h"
#include "metrics/metrics.h"
#include "scene/scene.h"
#include "solvers/registry.h"
#include "solve/params.h"
#include "store/store.h"

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double trng_uniform(trng *r) { return (double)(splitmix64(&r->s) >> 11) * 0x1.0p-53; }

double trng_normal(trng *r)
{
    double u1 = trng_uniform(r), u2 = trng_uniform(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

int tutil_random_problem(ncp_problem *p, uint64_t seed, int nv, int nc, int nbil, int nuni,
                         int nsoft, ncp_error *err)
{
    trng r = {seed};
    ncp_problem_init(p);
    int nb = nc + nbil + nuni + nsoft;
    if (ncp_problem_alloc_blocks(p, nb, err)) return err->code;
    int k = 0;
    for (int i = 0; i < nbil; i++) p->blocks[k++].type = NCP_BILATERAL;
    for (int i = 0; i < nuni; i++) p->blocks[k++].type = NCP_UNILATERAL;
    for (int i = 0; i < nc; i++) {
        p->blocks[k].type = NCP_CONTACT;
        p->blocks[k].mu = 0.2 + 0.8 * trng_uniform(&r);
        k++;
    }
    for (int i = 0; i < nsoft; i++) {
        p->blocks[k].type = NCP_SOFT;
        p->blocks[k].k = 0.5 + trng_uniform(&r);
        p->blocks[k].c = 0.1 + trng_uniform(&r);
        p->blocks[k].phi = trng_normal(&r) * 0.1;
        k++;
    }
    ncp_problem_layout(p);
    int m = p->m;
    p->nv = nv;
    p->h = 0.01;
    p->A = ncp_calloc(err, (size_t)nv * nv, sizeof(double));
    p->b = ncp_calloc(err, nv, sizeof(double));
    p->e = ncp_calloc(err, m, sizeof(double));
    double *Jd = ncp_calloc(err, (size_t)m * nv, sizeof(double));
    double *G = ncp_calloc(err, (size_t)nv * nv, sizeof(double));
    if (!p->A || !p->b || !p->e || !Jd || !G) {
        free(Jd);
        free(G);
        return NCP_ERR_NOMEM;
    }
    for (int i = 0; i < nv * nv; i++) G[i] = trng_normal(&r);
    /* A = G G^T / nv + I : SPD with eigenvalues in about [1, 5] */
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < nv; j++) {
            double s = 0.0;
            for (int l = 0; l < nv; l++) s += G[i + l * nv] * G[j + l * nv];
            p->A[i + j * nv] = s / nv + (i == j ? 1.0 : 0.0);
        }
    for (int i = 0; i < m * nv; i++) Jd[i] = trng_normal(&r);
    for (int i = 0; i < nv; i++) p->b[i] = trng_normal(&r);
    for (int i = 0; i < m; i++) p->e[i] = 0.5 * trng_normal(&r);
    int rc = ncp_csr_from_dense(&p->J, m, nv, Jd, 0.0, err);
    free(Jd);
    free(G);
    if (rc) return rc;
    p->has_primal = 1;
    p->ncontacts = nc;
    p->contacts = ncp_calloc(err, nc ? nc : 1, sizeof(ncp_contact_info));
    if (!p->contacts) return NCP_ERR_NOMEM;
    for (int i = 0; i < nc; i++) {
        p->contacts[i].gap = 0.01 * trng_normal(&r);
        p->contacts[i].body[0] = -1;
        p->contacts[i].body[1] = i;
        p->contacts[i].frame[0] = 1.0;
        p->contacts[i].frame[4] = 1.0;
        p->contacts[i].frame[8] = 1.0;
    }
    p->name = ncp_strdup(err, "random");
    p->scene = ncp_strdup(err, "test");
    p->driver = ncp_strdup(err, "");
    if (!p->name || !p->scene || !p->driver) return NCP_ERR_NOMEM;
    p->step = -1;
    p->case_index = -1;
    p->seed = seed;
    return ncp_problem_compute_dual(p, err);
}

int tutil_sparse_bodies_problem(ncp_problem *p, uint64_t seed, int nbodies, int nc,
                                ncp_error *err)
{
    const int nv = 6 * nbodies;
    int rc = tutil_random_problem(p, seed, nv, nc, 0, 0, 0, err);
    if (rc) return rc;
    const int m = p->m;
    double *Jd = calloc((size_t)m * nv, sizeof(double));
    if (!Jd) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory");
    ncp_csr_to_dense(&p->J, Jd);
    for (int c = 0; c < nc; c++) { /* keep the columns of bodies a and b (b < 0: the ground) */
        int a = c % nbodies, b = c % 5 == 4 ? -1 : (a + 1 + (7 * c) % (nbodies - 1)) % nbodies;
        for (int i = 3 * c; i < 3 * c + 3; i++)
            for (int j = 0; j < nv; j++)
                if (j / 6 != a && j / 6 != b) Jd[i + (size_t)j * m] = 0.0;
    }
    for (int j = 0; j < nv; j++) /* A block diagonal: its diagonal blocks stay SPD */
        for (int i = 0; i < nv; i++)
            if (i / 6 != j / 6) p->A[i + (size_t)j * nv] = 0.0;
    ncp_csr_free(&p->J);
    rc = ncp_csr_from_dense(&p->J, m, nv, Jd, 0.0, err);
    if (!rc) rc = ncp_csr_from_dense(&p->A_sparse, nv, nv, p->A, 0.0, err);
    free(Jd);
    if (rc) return rc;
    free(p->A);
    p->A = NULL;
    p->has_primal = 0;
    p->has_sparse_primal = 1;
    p->has_dual = 0;
    free(p->D);
    free(p->vf);
    p->D = p->vf = NULL;
    return ncp_problem_compute_dual(p, err);
}

void tutil_feasible_shift(ncp_problem *p)
{
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        double old = p->e[r];
        if (b->type == NCP_BILATERAL)
            p->e[r] = 0.0;
        else if (b->type == NCP_UNILATERAL)
            p->e[r] = fmax(p->e[r], 0.1);
        else if (b->type == NCP_CONTACT)
            p->e[r] = fmax(p->e[r], b->mu * hypot(p->e[r + 1], p->e[r + 2]) + 0.1);
        else
            continue;
        p->vf[r] += p->e[r] - old;
    }
}

int tutil_random_family(ncp_problem *p, uint64_t family, uint64_t pseed, int i, int mixed,
                        int shape, trng *rng, ncp_error *err)
{
    trng r = {family + (uint64_t)i * 7919u + (uint64_t)mixed * 104729u + (uint64_t)shape};
    int nc = 1 + (int)(trng_uniform(&r) * 8);
    int nb = 0, nu = 0, ns = 0;
    if (mixed) {
        nb = (int)(trng_uniform(&r) * 3);
        nu = (int)(trng_uniform(&r) * 3);
        ns = (int)(trng_uniform(&r) * 3);
    }
    int m = 3 * nc + nb + nu + ns, nv;
    if (shape == TUTIL_NV_SPD) {
        nv = m + (int)(trng_uniform(&r) * 4);
        if (nv < 6) nv = 6;
    } else if (shape == TUTIL_NV_FEW) {
        nv = 3 + (int)(trng_uniform(&r) * 3);
        if (m < nv + 3 + nb) nc += 2; /* keep m well above nv + n_bilateral */
    } else {
        nv = 6 + (int)(trng_uniform(&r) * 25);
    }
    int rc = tutil_random_problem(p, pseed + (uint64_t)i, nv, nc, nb, nu, ns, err);
    if (rc) return rc;
    if (shape != TUTIL_NV_SPD) tutil_feasible_shift(p);
    if (rng) *rng = r;
    return NCP_OK;
}

int tutil_dual_problem(ncp_problem *p, int nblocks, const int *types, ncp_error *err)
{
    ncp_problem_init(p);
    int rc = ncp_problem_alloc_blocks(p, nblocks, err);
    if (rc) return rc;
    for (int i = 0; i < nblocks; i++) p->blocks[i].type = types ? types[i] : NCP_CONTACT;
    ncp_problem_layout(p);
    p->D = ncp_calloc(err, (size_t)p->m * (size_t)p->m, sizeof(double));
    p->vf = ncp_calloc(err, (size_t)p->m, sizeof(double));
    p->name = ncp_strdup(err, "analytic");
    p->scene = ncp_strdup(err, "test");
    p->driver = ncp_strdup(err, "");
    if (!p->D || !p->vf || !p->name || !p->scene || !p->driver) return NCP_ERR_NOMEM;
    p->has_dual = 1;
    return NCP_OK;
}

int tutil_one_contact(ncp_problem *p, const double G[9], const double vf[3], double mu,
                      ncp_error *err)
{
    int rc = tutil_dual_problem(p, 1, NULL, err);
    if (rc) return rc;
    memcpy(p->D, G, 9 * sizeof(double));
    memcpy(p->vf, vf, 3 * sizeof(double));
    p->blocks[0].mu = mu;
    return NCP_OK;
}

/* One contact, D = diag(a, b, b) with a = 2, b = 0.5, q = v_f.
 * NCP: stick: lambda = -D^{-1} q if |lambda_t| <= mu lambda_n. Slide (with Gamma, u_n = 0):
 *   lambda_n = -q_n / a, lambda_t = -mu lambda_n q_t / |q_t|, valid when |q_t| > b mu lambda_n
 *   (then u_t = q_t (1 - b mu lambda_n / |q_t|) is parallel to q_t). Open: q_n >= 0.
 * CCP (no Gamma): open needs q in K*, q_n >= mu |q_t| (not just q_n >= 0); sliding, lambda =
 *   lambda_n (1, -mu d), d = q_t / |q_t|, and u ⊥ lambda on the dual cone's boundary gives
 *   u = sigma (mu, d) with sigma = |q_t| - b mu lambda_n and a lambda_n + q_n = mu sigma:
 *   lambda_n = (mu |q_t| - q_n) / (a + b mu^2). For q = (-1, .6, .8), mu = .5: lambda_n =
 *   1.5 / 2.125 = 12/17, lambda_t = -(6/17)(.6, .8), and u_n = mu sigma = 7/17 > 0 (the CCP's
 *   velocity "at a distance"). Stick and frictionless answers are the NCP's. */
const tutil_contact_case tutil_contact_cases[TUTIL_NCONTACT_CASES] = {
    /* q_n > 0 but q not in K*: NCP open, CCP not */
    {"open", 0.5, {0.3, 0.7, -0.2}, {0.0, 0.0, 0.0}, 0, {0.0, 0.0, 0.0}},
    {"open-grazing", 0.5, {0.0, 0.7, -0.2}, {0.0, 0.0, 0.0}, 0, {0.0, 0.0, 0.0}},
    /* q in K*: open in both */
    {"open-both", 0.5, {1.0, 0.7, -0.2}, {0.0, 0.0, 0.0}, 1, {0.0, 0.0, 0.0}},
    /* lambda_n = 0.5, lambda_t = (-0.2, 0.1), |lambda_t| = 0.2236 <= 0.25 */
    {"stick", 0.5, {-1.0, 0.1, -0.05}, {0.5, -0.2, 0.1}, 1, {0.5, -0.2, 0.1}},
    /* q_t = (0.6, 0.8), |q_t| = 1 > 0.125: lambda_t = -0.25 (0.6, 0.8) */
    {"slide", 0.5, {-1.0, 0.6, 0.8}, {0.5, -0.15, -0.2}, 1,
     {12.0 / 17.0, -18.0 / 85.0, -24.0 / 85.0}},
    {"frictionless", 0.0, {-1.0, 0.6, 0.8}, {0.5, 0.0, 0.0}, 1, {0.5, 0.0, 0.0}},
    /* mu = 1: |lambda_t| = 0.5 * 1, exactly on the cone, when q_t = (-0.25, 0): stick limit */
    {"stick-limit", 1.0, {-1.0, -0.25, 0.0}, {0.5, 0.5, 0.0}, 1, {0.5, 0.5, 0.0}},
    /* 0 < q_n < mu |q_t|: the NCP leaves it open (u_n >= 0), the CCP slides with lambda_n =
     * (0.5 - 0.1) / 2.125 = 16/85, lambda_t = -(8/85)(.6, .8) */
    {"ccp-graze", 0.5, {0.1, 0.6, 0.8}, {0.0, 0.0, 0.0}, 1,
     {16.0 / 85.0, -24.0 / 425.0, -32.0 / 425.0}},
};

int tutil_contact_case_problem(ncp_problem *p, const tutil_contact_case *c, ncp_error *err)
{
    const double G[9] = {2.0, 0, 0, 0, 0.5, 0, 0, 0, 0.5};
    int rc = tutil_one_contact(p, G, c->vf, c->mu, err);
    if (rc) return rc;
    free(p->name); /* name the problem after its case, for failure messages */
    p->name = ncp_strdup(err, c->name);
    return p->name ? NCP_OK : NCP_ERR_NOMEM;
}

void tutil_for_contact_cases(tutil_case_fn fn, void *ctx)
{
    for (int c = 0; c < TUTIL_NCONTACT_CASES; c++) {
        const tutil_contact_case *k = &tutil_contact_cases[c];
        ncp_problem p;
        ncp_error err;
        ncp_error_clear(&err);
        int rc = tutil_contact_case_problem(&p, k, &err);
        CHECK_OK(rc, &err);
        if (!rc) {
            tutil_check_solves(&p, k->ncp, 0, 1e-15);
            if (k->ccp_known) tutil_check_solves(&p, k->ccp, 1, 1e-15);
            fn(k, &p, ctx);
        }
        ncp_problem_free(&p);
    }
}

/* Diagonal D, one of each scalar type plus a sliding contact and a rigid soft row:
 *   bilateral  D = 2, v_f = -1   -> lambda = 0.5 (u = 0)
 *   unilateral D = 4, v_f = 2    -> 0 (u = 2 > 0)
 *   unilateral D = 4, v_f = -2   -> 0.5 (u = 0)
 *   contact    diag(2, .5, .5), v_f = (-1, .6, .8), mu .5 -> NCP (0.5, -0.15, -0.2) (slide),
 *              CCP (12/17, -18/85, -24/85) (tutil_contact_cases "slide")
 *   soft       D = 1, k = 2, phi = 0.25, c = 0.5, v_f = 0.2: lambda = -k phi - c (lambda + v_f)
 *              -> (-0.5 - 0.1) / 1.5 = -0.4
 *   soft       D = 3, c = 0, k = 3, phi = -0.1, v_f = 5: lambda = -k phi = 0.3 whatever D, v_f */
int tutil_scalar_blocks(ncp_problem *p, double ncp[8], double ccp[8], ncp_error *err)
{
    const int types[6] = {NCP_BILATERAL, NCP_UNILATERAL, NCP_UNILATERAL,
                          NCP_CONTACT,   NCP_SOFT,       NCP_SOFT};
    int rc = tutil_dual_problem(p, 6, types, err);
    if (rc) return rc;
    const double diag[8] = {2.0, 4.0, 4.0, 2.0, 0.5, 0.5, 1.0, 3.0};
    const double vf[8] = {-1.0, 2.0, -2.0, -1.0, 0.6, 0.8, 0.2, 5.0};
    for (int i = 0; i < 8; i++) p->D[i + (size_t)i * 8] = diag[i];
    memcpy(p->vf, vf, sizeof vf);
    p->blocks[3].mu = 0.5;
    p->blocks[4].k = 2.0;
    p->blocks[4].phi = 0.25;
    p->blocks[4].c = 0.5;
    p->blocks[5].k = 3.0;
    p->blocks[5].phi = -0.1;
    p->blocks[5].c = 0.0;
    const double n[8] = {0.5, 0.0, 0.5, 0.5, -0.15, -0.2, -0.4, 0.3};
    const double c[8] = {0.5, 0.0, 0.5, 12.0 / 17.0, -18.0 / 85.0, -24.0 / 85.0, -0.4, 0.3};
    if (ncp) memcpy(ncp, n, sizeof n);
    if (ccp) memcpy(ccp, c, sizeof c);
    return NCP_OK;
}

/* D = [[2, 1], [1, 2]], v_f = (1, -1): D lambda = -v_f -> lambda = (-1, 1). */
int tutil_coupled_bilateral(ncp_problem *p, double expect[2], ncp_error *err)
{
    const int types[2] = {NCP_BILATERAL, NCP_BILATERAL};
    int rc = tutil_dual_problem(p, 2, types, err);
    if (rc) return rc;
    p->D[0] = 2.0;
    p->D[1] = 1.0;
    p->D[2] = 1.0;
    p->D[3] = 2.0;
    p->vf[0] = 1.0;
    p->vf[1] = -1.0;
    expect[0] = -1.0;
    expect[1] = 1.0;
    return NCP_OK;
}

/* diag(0, 2, .5, .5), v_f = (0, -1, .1, -.05), mu .5: the contact sticks at (0.5, -0.2, 0.1). */
int tutil_zero_diagonal(ncp_problem *p, double expect[4], ncp_error *err)
{
    const int types[2] = {NCP_BILATERAL, NCP_CONTACT};
    int rc = tutil_dual_problem(p, 2, types, err);
    if (rc) return rc;
    const double diag[4] = {0.0, 2.0, 0.5, 0.5}, vf[4] = {0.0, -1.0, 0.1, -0.05};
    const double ex[4] = {0.0, 0.5, -0.2, 0.1};
    for (int i = 0; i < 4; i++) p->D[i + (size_t)i * 4] = diag[i];
    memcpy(p->vf, vf, sizeof vf);
    p->blocks[1].mu = 0.5;
    memcpy(expect, ex, sizeof ex);
    return NCP_OK;
}

void tutil_ref_project(double mu, const double x[3], double y[3])
{
    double s = sqrt(x[1] * x[1] + x[2] * x[2]);
    if (s <= mu * x[0]) {
        memmove(y, x, 3 * sizeof(double));
    } else if (mu * s <= -x[0]) {
        y[0] = y[1] = y[2] = 0.0;
    } else {
        /* boundary ray r(a) = a (1, mu t), |(1, mu t)|^2 = 1 + mu^2, t = x_t / s (s > 0 here:
         * s = 0 falls in one of the branches above) */
        double a = (x[0] + mu * s) / (1.0 + mu * mu);
        y[0] = a;
        y[1] = a * mu * x[1] / s;
        y[2] = a * mu * x[2] / s;
    }
}

tutil_ref tutil_ref_check(const ncp_problem *p0, const double *lam, int ccp, double *u_out)
{
    int m = p0->m;
    tutil_ref r = {INFINITY, INFINITY};
    /* u = D lambda + v_f by the plain sum, with D as a consumer builds it when p0 keeps none */
    ncp_problem view;
    double *own = NULL;
    ncp_error e = {0};
    if (ncp_problem_dual_view(p0, &view, &own, &e)) return r;
    const ncp_problem *p = &view;
    double *u = calloc((size_t)(m ? m : 1), sizeof(double));
    if (!u) {
        free(own);
        return r;
    }
    for (int i = 0; i < m; i++) {
        double s = p->vf[i];
        for (int j = 0; j < m; j++) s += p->D[i + (size_t)j * m] * lam[j];
        u[i] = s;
    }
    double nat2 = 0.0, kkt = 0.0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int q = b->row;
        double l = lam[q], v = u[q];
        switch (b->type) {
        case NCP_BILATERAL:
            nat2 += v * v;
            kkt = fmax(kkt, fabs(v));
            break;
        case NCP_UNILATERAL: {
            double f = fmin(l, v);
            nat2 += f * f;
            kkt = fmax(kkt, fmax(fmax(-l, -v), fabs(l * v)));
            break;
        }
        case NCP_SOFT: {
            double f = l + b->k * b->phi + b->c * v;
            nat2 += f * f;
            kkt = fmax(kkt, fabs(f));
            break;
        }
        case NCP_CONTACT: {
            const double *lk = lam + q, *uk = u + q;
            double mu = b->mu;
            double st = sqrt(uk[1] * uk[1] + uk[2] * uk[2]);
            double w[3] = {uk[0] + (ccp ? 0.0 : mu * st), uk[1], uk[2]};
            double x[3] = {lk[0] - w[0], lk[1] - w[1], lk[2] - w[2]}, y[3];
            tutil_ref_project(mu, x, y);
            for (int i = 0; i < 3; i++) nat2 += (lk[i] - y[i]) * (lk[i] - y[i]);
            double lt = sqrt(lk[1] * lk[1] + lk[2] * lk[2]);
            kkt = fmax(kkt, lt - mu * lk[0]); /* lambda in K */
            kkt = fmax(kkt, -lk[0]);
            kkt = fmax(kkt, mu * st - w[0]); /* w in K* */
            kkt = fmax(kkt, fabs(lk[0] * w[0] + lk[1] * w[1] + lk[2] * w[2]));
            break;
        }
        default:
            kkt = INFINITY;
        }
    }
    if (u_out) memcpy(u_out, u, (size_t)m * sizeof(double));
    free(u);
    free(own);
    r.nat = sqrt(nat2);
    r.kkt = kkt;
    return r;
}

double tutil_ref_natural_map(const ncp_problem *p, const double *lambda, int ccp)
{
    return tutil_ref_check(p, lambda, ccp, NULL).nat;
}

double tutil_velocity_error(const ncp_problem *p, const double *lambda, const double *u)
{
    double e = 0.0, sc = 0.0;
    for (int i = 0; i < p->m; i++) {
        double s = p->vf[i], a = fabs(p->vf[i]);
        for (int j = 0; j < p->m; j++) {
            s += p->D[i + (size_t)j * p->m] * lambda[j];
            a += fabs(p->D[i + (size_t)j * p->m] * lambda[j]);
        }
        e = fmax(e, fabs(u[i] - s));
        sc = fmax(sc, a);
    }
    return e / sc;
}

double tutil_maxdiff(int n, const double *a, const double *b)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

double tutil_reldiff(size_t n, const double *a, const double *b, double floor)
{
    double d = 0.0, s = floor;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        s = fmax(s, fabs(b[i]));
    }
    return s > 0.0 ? d / s : d;
}

ncp_harness_opts tutil_rel_opts(double tol, int max_iter)
{
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    o.budget.tol = tol;
    o.budget.max_iter = max_iter;
    o.stop_metric = ncp_metrics_index("natural_map_rel_acary");
    return o;
}

int tutil_count_rows(void *ctx, int iter, double elapsed_ms, const ncp_metrics *mt)
{
    (void)iter;
    (void)elapsed_ms;
    (void)mt;
    (*(int *)ctx)++;
    return 0;
}

int tutil_solve_opts(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps,
                     const double *lambda0, const double *v0, const ncp_harness_opts *o,
                     ncp_result *res)
{
    ncp_error err;
    ncp_error_clear(&err);
    int rc = ncp_harness_solve(s, p, ps, lambda0, v0, o, res, &err);
    if (rc) fprintf(stderr, "%s on %s: %s\n", s->name, p->name, err.msg);
    return rc;
}

int tutil_solve(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps,
                const double *lambda0, double tol, int max_iter, ncp_result *res)
{
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    o.budget.tol = tol;
    o.budget.max_iter = max_iter;
    o.stop_metric = ncp_metrics_index("natural_map_abs");
    return tutil_solve_opts(s, p, ps, lambda0, NULL, &o, res);
}

void tutil_param(ncp_params *ps, const char *name, double v)
{
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(ncp_params_set(ps, name, v, &err), &err);
}

/* ---- checks ---- */

void tutil_check_answer(const char *what, const ncp_solver_desc *s, const ncp_problem *p,
                        const ncp_params *ps, double tol, int max_iter, const double *expect,
                        double lam_tol)
{
    ncp_result res;
    int rc = tutil_solve(s, p, ps, NULL, tol, max_iter, &res);
    CHECK(rc == 0);
    if (rc) return;
    double d = tutil_maxdiff(p->m, res.lambda, expect);
    int ok = res.converged && res.status == NCP_STATUS_CONVERGED && res.iterations >= 1 &&
             res.iterations <= max_iter && d <= lam_tol;
    CHECK(res.converged);
    CHECK(res.status == NCP_STATUS_CONVERGED);
    CHECK(res.iterations >= 1 && res.iterations <= max_iter);
    CHECK(d <= lam_tol);
    if (!ok)
        fprintf(stderr, "  %s, %s: %s after %d, |lambda - expected| = %.3g (allowed %.3g)\n", what,
                s->name, ncp_status_name(res.status), res.iterations, d, lam_tol);
    ncp_result_free(&res);
}

double tutil_check_ncp_answer(const ncp_solver_desc *s, const ncp_problem *p, ncp_metrics_ws *ws,
                              const ncp_result *res, double tol)
{
    ncp_error err;
    ncp_error_clear(&err);
    ncp_metrics mt;
    CHECK_OK(ncp_metrics_eval(ws, res->lambda, &mt, &err), &err);
    tutil_ref chk = tutil_ref_check(p, res->lambda, 0, NULL);
    /* sign and complementarity conditions, scaled by the solution's size */
    double scale = fmax(1.0, ncp_norminf(p->m, res->lambda) * ncp_norminf(p->m, res->u));
    int ok = res->converged && mt.natural_map_abs <= tol &&
             chk.nat <= tol * (1.0 + 1e-6) + 1e-15 && chk.kkt <= 100.0 * tol * scale;
    CHECK(res->converged);
    CHECK(mt.natural_map_abs <= tol);
    /* the same quantity computed independently (own projection, own u) */
    CHECK(chk.nat <= tol * (1.0 + 1e-6) + 1e-15);
    CHECK_NEAR(chk.nat, mt.natural_map_abs, 1e-6 * mt.natural_map_abs + 1e-14);
    CHECK(chk.kkt <= 100.0 * tol * scale);
    if (!ok)
        fprintf(stderr, "  %s on %s (seed %llu, m %d, nv %d): %s after %d, natural map %.3g "
                        "(reference %.3g), sign/complementarity %.3g\n",
                s->name, p->name, (unsigned long long)p->seed, p->m, p->nv,
                ncp_status_name(res->status), res->iterations, mt.natural_map_abs, chk.nat,
                chk.kkt);
    return chk.nat;
}

void tutil_check_warm_start(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps,
                            const double *lambda0, double tol)
{
    ncp_result res;
    int rc = tutil_solve(s, p, ps, lambda0, tol, 100, &res);
    CHECK(rc == 0);
    if (rc) return;
    CHECK(res.converged);
    CHECK(res.iterations <= 1);
    if (!res.converged || res.iterations > 1)
        fprintf(stderr, "  warm start of %s on %s (seed %llu): %s after %d iterations\n", s->name,
                p->name, (unsigned long long)p->seed, ncp_status_name(res.status),
                res.iterations);
    ncp_result_free(&res);
}

void tutil_check_warm_starts(const ncp_solver_desc *ref, const ncp_problem *p,
                             const ncp_solver_desc *const *ss, int n, double tol)
{
    ncp_result sol;
    int rc = tutil_solve(ref, p, NULL, NULL, 1e-13, 500, &sol);
    CHECK(rc == 0);
    if (rc) return;
    CHECK(sol.converged);
    if (!sol.converged)
        fprintf(stderr, "  %s on %s (seed %llu): no reference solution (%s after %d)\n",
                ref->name, p->name, (unsigned long long)p->seed, ncp_status_name(sol.status),
                sol.iterations);
    for (int si = 0; si < n; si++) tutil_check_warm_start(ss[si], p, NULL, sol.lambda, tol);
    ncp_result_free(&sol);
}

int tutil_local_iterations(const ncp_solver_desc *ref, const ncp_solver_desc *s,
                           const ncp_problem *p, uint64_t noise_seed, double noise, double tol,
                           int max_iter)
{
    ncp_result sol, res;
    int rc = tutil_solve(ref, p, NULL, NULL, 1e-13, 500, &sol);
    CHECK(rc == 0);
    if (rc) return max_iter + 1;
    CHECK(sol.converged);
    trng r = {noise_seed};
    for (int k = 0; k < p->m; k++) sol.lambda[k] += noise * trng_normal(&r);
    rc = tutil_solve(s, p, NULL, sol.lambda, tol, max_iter, &res);
    ncp_result_free(&sol);
    CHECK(rc == 0);
    if (rc) return max_iter + 1;
    CHECK(res.converged);
    int it = res.converged ? res.iterations : max_iter + 1;
    if (!res.converged)
        fprintf(stderr, "  %s on %s (seed %llu), %.3g off %s's solution: %s after %d\n", s->name,
                p->name, (unsigned long long)p->seed, noise, ref->name,
                ncp_status_name(res.status), res.iterations);
    ncp_result_free(&res);
    return it;
}

void tutil_check_solves(const ncp_problem *p, const double *lambda, int ccp, double tol)
{
    tutil_ref chk = tutil_ref_check(p, lambda, ccp, NULL);
    CHECK(chk.nat <= tol && chk.kkt <= tol);
    if (!(chk.nat <= tol && chk.kkt <= tol))
        fprintf(stderr, "  the expected %s answer of %s does not solve it: natural map %.3g, "
                        "sign/complementarity %.3g\n",
                ccp ? "CCP" : "NCP", p->name, chk.nat, chk.kkt);
}

void tutil_check_budgets(const ncp_solver_desc *s, const ncp_problem *p, const ncp_params *ps)
{
    const int budgets[4] = {1, 2, 3, 5};
    for (int bi = 0; bi < 4; bi++) {
        ncp_result res;
        int rc = tutil_solve(s, p, ps, NULL, 1e-300, budgets[bi], &res);
        CHECK(rc == 0);
        if (rc) continue;
        CHECK(res.iterations == budgets[bi]);
        CHECK(res.status == NCP_STATUS_MAX_ITER);
        if (res.iterations != budgets[bi] || res.status != NCP_STATUS_MAX_ITER)
            fprintf(stderr, "  %s on %s, budget %d: %s after %d iterations\n", s->name, p->name,
                    budgets[bi], ncp_status_name(res.status), res.iterations);
        ncp_result_free(&res);
    }
}

void tutil_check_param_defaults(const ncp_solver_desc *s, const ncp_problem *p, double tol,
                                int max_iter)
{
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    for (int k = 0; s->params[k].name; k++) tutil_param(&ps, s->params[k].name, s->params[k].def);
    ncp_result a, b, c;
    int ra = tutil_solve(s, p, NULL, NULL, tol, max_iter, &a);
    int rb = tutil_solve(s, p, &ps, NULL, tol, max_iter, &b);
    int rc = tutil_solve(s, p, NULL, NULL, tol, max_iter, &c);
    CHECK(ra == 0 && rb == 0 && rc == 0);
    if (!ra && !rb && !rc) {
        int same = a.iterations == b.iterations && a.iterations == c.iterations &&
                   memcmp(a.lambda, b.lambda, (size_t)p->m * sizeof(double)) == 0 &&
                   memcmp(a.lambda, c.lambda, (size_t)p->m * sizeof(double)) == 0;
        CHECK(a.iterations == b.iterations && a.iterations == c.iterations);
        CHECK(memcmp(a.lambda, b.lambda, (size_t)p->m * sizeof(double)) == 0);
        CHECK(memcmp(a.lambda, c.lambda, (size_t)p->m * sizeof(double)) == 0);
        if (!same)
            fprintf(stderr, "  %s on %s: defaults given / not given / again differ (%d, %d, %d "
                            "iterations)\n",
                    s->name, p->name, a.iterations, b.iterations, c.iterations);
    }
    if (!ra) ncp_result_free(&a);
    if (!rb) ncp_result_free(&b);
    if (!rc) ncp_result_free(&c);
}

void tutil_check_bad_param(const ncp_solver_desc *s, const ncp_problem *p, const char *name,
                           double value)
{
    ncp_params ps;
    memset(&ps, 0, sizeof ps);
    tutil_param(&ps, name, value);
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    ncp_result res;
    ncp_error err;
    ncp_error_clear(&err);
    int rc = ncp_harness_solve(s, p, &ps, NULL, NULL, &o, &res, &err);
    int named = strstr(err.msg, name) != NULL && strstr(err.msg, s->name) != NULL;
    CHECK(rc == NCP_ERR_INPUT);
    CHECK(named); /* the message names the parameter and the solver */
    if (rc != NCP_ERR_INPUT || !named)
        fprintf(stderr, "  %s with %s = %g: rc %d, message \"%s\"\n", s->name, name, value, rc,
                err.msg);
    if (rc == 0) ncp_result_free(&res);
}

void tutil_check_empty(const ncp_solver_desc *s)
{
    ncp_problem p;
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(tutil_dual_problem(&p, 0, NULL, &err), &err);
    ncp_result res;
    int rc = tutil_solve(s, &p, NULL, NULL, 1e-10, 10, &res);
    CHECK(rc == 0);
    if (!rc) {
        CHECK(res.converged && res.iterations <= 1);
        if (!res.converged || res.iterations > 1)
            fprintf(stderr, "  %s on an empty problem: %s after %d\n", s->name,
                    ncp_status_name(res.status), res.iterations);
        ncp_result_free(&res);
    }
    ncp_problem_free(&p);
}

static int same_doubles(size_t n, const double *a, const double *b)
{
    if (!a || !b) return a == b;
    return n == 0 || memcmp(a, b, n * sizeof(double)) == 0;
}

static int same_csr(const ncp_csr *a, const ncp_csr *b)
{
    if (a->m != b->m || a->n != b->n || a->nnz != b->nnz) return 0;
    if (!a->rowptr || !b->rowptr) return a->rowptr == b->rowptr;
    return !memcmp(a->rowptr, b->rowptr, sizeof(int) * (size_t)(a->m + 1)) &&
           (a->nnz == 0 || (!memcmp(a->col, b->col, sizeof(int) * (size_t)a->nnz) &&
                            same_doubles((size_t)a->nnz, a->val, b->val)));
}

/* Problems a (read in one step) and b (two steps) the same, bit for bit. */
static void check_same_read(const ncp_problem *a, const ncp_problem *b)
{
    size_t m = (size_t)a->m, nv = (size_t)a->nv;
    CHECK(!strcmp(a->name, b->name) && a->m == b->m && a->nv == b->nv);
    CHECK(a->has_primal == b->has_primal && a->has_sparse_primal == b->has_sparse_primal &&
          a->has_dual == b->has_dual && a->dual_symmetric == b->dual_symmetric &&
          a->dop_route == b->dop_route);
    CHECK((!a->provenance_note && !b->provenance_note) ||
          (a->provenance_note && b->provenance_note &&
           !strcmp(a->provenance_note, b->provenance_note)));
    if (a->m != b->m || a->nv != b->nv) return;
    CHECK(same_doubles(m * m, a->D, b->D) && same_doubles(m, a->vf, b->vf));
    CHECK(same_doubles(nv * nv, a->A, b->A) && same_doubles(nv, a->b, b->b));
    CHECK(same_doubles(m, a->e, b->e));
    CHECK(same_csr(&a->J, &b->J) && same_csr(&a->A_sparse, &b->A_sparse));
}

void tutil_check_two_step_read(const char *path, int rc_full, const ncp_error *err_full,
                               const ncp_problem *q, int n)
{
    ncp_error err = {0};
    ncp_problem *r = NULL;
    ncp_problem_origin *o = NULL;
    int nr = 0, rc = ncp_load_problems_raw(path, 0.0, 0.0, &r, &o, &nr, &err);
    ncp_problem_keep *keep = calloc(nr > 0 ? (size_t)nr : 1, sizeof *keep);
    if (!keep) abort();
    int *stored_d = calloc(nr > 0 ? (size_t)nr : 1, sizeof *stored_d);
    if (!stored_d) abort();
    for (int k = 0; !rc && k < nr; k++) {
        /* nothing derived yet: a problem stored by its primal data alone has no D */
        if (r[k].has_primal && !r[k].has_dual) CHECK(r[k].D == NULL && r[k].vf == NULL);
        stored_d[k] = r[k].has_dual;
        rc = ncp_problem_finish_keep(&r[k], path, &o[k], 0.0, &keep[k], &err);
    }
    CHECK(rc == rc_full);
    if (rc || rc_full) {
        CHECK(!strcmp(err.msg, err_full->msg));
        if (strcmp(err.msg, err_full->msg))
            fprintf(stderr, "  two-step: [%d] %s\n  one-step: [%d] %s\n", rc, err.msg, rc_full,
                    err_full->msg);
    } else {
        CHECK(nr == n);
        for (int k = 0; k < nr && k < n; k++) check_same_read(&q[k], &r[k]);
        /* released (what a lazy collection does once no solve of it is left) and finished
         * again: back to as read exactly when finish derived D, then the same bits again */
        for (int k = 0; k < nr && k < n; k++) {
            int rel = ncp_problem_release(&r[k], &keep[k]);
            CHECK(rel == !stored_d[k]);
            if (!rel) continue; /* stays finished: bench.c never finishes it again */
            CHECK(!r[k].has_dual && !r[k].D && !r[k].vf && r[k].dop_route == 0);
            CHECK_OK(ncp_problem_finish_keep(&r[k], path, &o[k], 0.0, &keep[k], &err), &err);
            check_same_read(&q[k], &r[k]);
        }
    }
    for (int k = 0; k < nr; k++) ncp_problem_keep_free(&keep[k]);
    free(keep);
    free(stored_d);
    ncp_problems_free(r, nr);
    free(o);
}

typedef struct keep_largest {
    ncp_problem p;
    int have;
} keep_largest;

/* Keeps a copy of the captured problem with the most rows. */
static int keep_largest_fn(void *ctx, const ncp_problem *p, ncp_error *err)
{
    keep_largest *k = ctx;
    if (k->have && k->p.m >= p->m) return NCP_OK;
    if (k->have) ncp_problem_free(&k->p);
    k->have = 0;
    int rc = ncp_problem_copy(&k->p, p, err);
    k->have = rc == NCP_OK;
    return rc;
}

int tutil_capture_largest(const char *scene, int steps, ncp_problem *p)
{
    ncp_error err = {0};
    ncp_scene *s = NULL;
    CHECK_OK(ncp_scene_load(scene, ncp_registry_catalog(), &s, &err), &err);
    if (!s) return 1;
    keep_largest k = {.have = 0};
    ncp_capture_opts o = {1, 1, steps, NULL, NULL};
    CHECK_OK(ncp_capture_scene(s, &o, keep_largest_fn, &k, &err), &err);
    ncp_scene_free(s);
    CHECK(k.have && k.p.m > 0 && k.p.has_primal && !k.p.has_dual && k.p.vf);
    if (!k.have) return 1;
    *p = k.p;
    return 0;
}
