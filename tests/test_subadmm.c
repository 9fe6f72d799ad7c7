/* Tests of subadmm (Lee et al. 2025 Alg. 2) and its Table III ablations admm-nosub and admm-nobody
 * (solvers/subadmm_core.c, subadmm.c, admm_nosub.c, admm_nobody.c).
 *
 * Problems: hand-built structured problems (random trees of dofs per subsystem, one body per dof
 * with a random root-path Jacobian J_{b,j}, M_b = blkdiag(m I, rotational SPD), constraints of
 * every block type on one body or on two bodies of the same or of different subsystems, A and J
 * built from the structure as problem.h defines them), and captures of the rigid-body and
 * multibody pipeline (box-on-plane, quadruped, laikago8).
 *
 * (a) the iterates against an independent dense ADMM written here (its own pieces from the
 *     structure, one global LAPACK solve of A + beta sum J_p^T J_p, its own strict operator and
 *     soft law): subadmm (body pieces, tree factorisation), admm-nobody (subsystem pieces) and
 *     admm-nosub (whole rows) agree with it to 1e-9 after 25 iterations at fixed beta (also
 *     when the bodies' supports are not root paths of a tree and subadmm factorises densely);
 * (b) agreement at convergence: subadmm, canal and nsn-nm all reach natural map <= 1e-6
 *     (rel. Acary), recomputed here with independent code, and where D is well conditioned the
 *     velocities v = A^{-1}(b + J^T lambda) agree (hand-built problems; captures of box-on-plane,
 *     quadruped, fourbar-fixed (loop closures: bilateral rows on two bodies of one tree) and
 *     laikago8);
 * (c) one subsystem whose constraints each act on one body: subadmm reproduces admm-nosub's
 *     iterates (and admm-nobody is admm-nosub whenever there is one subsystem); one body per
 *     subsystem (rigid-body scenes): subadmm reproduces admm-nobody; with a constraint on two
 *     bodies of one subsystem the body split changes the iterates;
 * (d) threads: 1, 2, 3 and 4 threads give bitwise identical lambda, v and beta history;
 * (e) eq. 42 and 43: theta_p = max_i ||lambda_i^l - lambda_i^{l+1}|| / beta and theta_d =
 *     max_j ||A_j v_j - b_j - J_j^T lambda|| recomputed directly; one application of eq. 43;
 *     beta_0 = the geometric mean of the pseudo-densities, recomputed here; once both residuals
 *     are at round-off, eq. 43 no longer changes beta;
 * (f) warm start from an accurate solution stops after one iteration (with and without v0);
 *     budgets: max_iter respected, a time budget spent in setup gives TIMEOUT with no iteration;
 *     ncp_subadmm_run runs exactly the requested iterations;
 * (g) bad input: no structure, a structure that does not describe J or A, overlapping subsystems,
 *     bad parameters — each an NCP_ERR_INPUT whose message names the problem.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solve/harness.h"
#include "core/la.h"
#include "core/sparse_chol.h"
#include "metrics/metrics.h"
#include "solvers/registry.h"
#include "scene/scene.h"
#include "solvers/subadmm.h"
#include "tcheck.h"
#include "testutil.h"
#include "capture/capture.h"

static const ncp_solver_desc *S_SUB, *S_NOSUB, *S_NOBODY, *S_NSN, *S_CANAL;
/* the same three solvers' configurations, for the fixed-iteration runs of subadmm.h */
static const ncp_subadmm_config *const C_SUB = &ncp_subadmm_config_subadmm;
static const ncp_subadmm_config *const C_NOSUB = &ncp_subadmm_config_nosub;
static const ncp_subadmm_config *const C_NOBODY = &ncp_subadmm_config_nobody;

/* ---------- hand-built structured problems ---------- */

typedef struct hb_opts {
    int nsub, ndof_min, ndof_max;
    int nbil, nuni, ncontact, nsoft;
    double p_two;      /* a block acts on two bodies (else one body against the ground) */
    double p_same;     /* two bodies: both in the same subsystem */
    int chain;         /* 1: dof k's parent is k - 1; 0: a random earlier dof */
    double mass_ratio; /* masses log-uniform in [1/r, r] */
    int scramble;      /* 1: a body's support is its dof plus random others of its subsystem,
                          not a root path (usually no tree: subadmm factorises densely) */
} hb_opts;

static int hb_rand_int(trng *r, int lo, int hi)
{
    return lo + (int)(trng_uniform(r) * (hi - lo + 1));
}

/* Builds p with structure (see the file header). Body b sits on dof b of the whole numbering; its
 * support is the root path of that dof. */
static int hb_build(ncp_problem *p, uint64_t seed, const hb_opts *o, ncp_error *err)
{
    trng r = {seed};
    ncp_problem_init(p);
    int nb = o->nbil + o->nuni + o->ncontact + o->nsoft;
    int rc = ncp_problem_alloc_blocks(p, nb, err);
    if (rc) return rc;
    int k = 0;
    for (int i = 0; i < o->nbil; i++) p->blocks[k++].type = NCP_BILATERAL;
    for (int i = 0; i < o->nuni; i++) p->blocks[k++].type = NCP_UNILATERAL;
    for (int i = 0; i < o->ncontact; i++) {
        p->blocks[k].type = NCP_CONTACT;
        p->blocks[k++].mu = 0.2 + 0.8 * trng_uniform(&r);
    }
    for (int i = 0; i < o->nsoft; i++) {
        p->blocks[k].type = NCP_SOFT;
        p->blocks[k].k = 0.5 + trng_uniform(&r);
        p->blocks[k].c = 0.1 + trng_uniform(&r);
        p->blocks[k++].phi = 0.1 * trng_normal(&r);
    }
    ncp_problem_layout(p);
    int m = p->m;
    ncp_structure *s = ncp_calloc(err, 1, sizeof *s);
    if (!s) return NCP_ERR_NOMEM;
    p->structure = s;
    s->nsub = o->nsub;
    s->sub_dof_start = ncp_calloc(err, (size_t)o->nsub, sizeof(int));
    s->sub_ndof = ncp_calloc(err, (size_t)o->nsub, sizeof(int));
    if (!s->sub_dof_start || !s->sub_ndof) return NCP_ERR_NOMEM;
    int nv = 0;
    for (int j = 0; j < o->nsub; j++) {
        s->sub_dof_start[j] = nv;
        s->sub_ndof[j] = hb_rand_int(&r, o->ndof_min, o->ndof_max);
        nv += s->sub_ndof[j];
    }
    p->nv = nv;
    p->h = 0.01;
    int *par = ncp_calloc(err, (size_t)nv, sizeof(int)); /* global dof parent, -1 root */
    s->nbodies = nv;
    s->bodies = ncp_calloc(err, (size_t)nv, sizeof(ncp_structure_body));
    s->dof_diag = ncp_calloc(err, (size_t)nv, sizeof(double));
    p->A = ncp_calloc(err, (size_t)nv * nv, sizeof(double));
    p->b = ncp_calloc(err, (size_t)nv, sizeof(double));
    p->e = ncp_calloc(err, (size_t)m, sizeof(double));
    double *Jd = ncp_calloc(err, (size_t)m * nv, sizeof(double)); /* column-major m x nv */
    if (!par || !s->bodies || !s->dof_diag || !p->A || !p->b || !p->e || !Jd) {
        free(par);
        free(Jd);
        return NCP_ERR_NOMEM;
    }
    for (int j = 0; j < o->nsub; j++) {
        int d0 = s->sub_dof_start[j], n = s->sub_ndof[j];
        for (int q = 0; q < n; q++)
            par[d0 + q] = q == 0 ? -1 : d0 + (o->chain ? q - 1 : hb_rand_int(&r, 0, q - 1));
    }
    for (int b = 0; b < nv; b++) {
        ncp_structure_body *B = &s->bodies[b];
        int j = 0;
        while (j + 1 < o->nsub && b >= s->sub_dof_start[j + 1]) j++;
        int d0 = s->sub_dof_start[j], n = s->sub_ndof[j];
        B->subsystem = j;
        B->ndof = n;
        B->Jb = ncp_calloc(err, 6 * (size_t)n, sizeof(double));
        if (!B->Jb) {
            free(par);
            free(Jd);
            return NCP_ERR_NOMEM;
        }
        for (int d = b; d >= 0; d = par[d]) /* the root path */
            for (int rr = 0; rr < 6; rr++) B->Jb[6 * (d - d0) + rr] = trng_normal(&r);
        for (int d = d0; d < d0 + n && o->scramble; d++) { /* or b and random others */
            int on = d == b || trng_uniform(&r) < 0.4;
            for (int rr = 0; rr < 6; rr++) B->Jb[6 * (d - d0) + rr] = on ? trng_normal(&r) : 0.0;
        }
        double mass = exp(log(o->mass_ratio) * (2.0 * trng_uniform(&r) - 1.0));
        double G[9];
        for (int i = 0; i < 9; i++) G[i] = trng_normal(&r);
        for (int a = 0; a < 3; a++) {
            B->M[a * 6 + a] = mass;
            for (int c = 0; c < 3; c++) {
                double t = 0.0;
                for (int l = 0; l < 3; l++) t += G[a + 3 * l] * G[c + 3 * l];
                B->M[(3 + c) * 6 + 3 + a] = mass * (0.02 * t / 3.0 + (a == c ? 0.05 : 0.0));
            }
        }
        s->dof_diag[b] = 0.05;
    }
    /* A_j = sum_b J_b^T M_b J_b + diag (problem.h) */
    for (int b = 0; b < nv; b++) {
        const ncp_structure_body *B = &s->bodies[b];
        int d0 = s->sub_dof_start[B->subsystem], n = B->ndof;
        for (int c1 = 0; c1 < n; c1++)
            for (int c2 = 0; c2 < n; c2++) {
                double t = 0.0;
                for (int a = 0; a < 6; a++)
                    for (int c = 0; c < 6; c++)
                        t += B->Jb[6 * c1 + a] * B->M[a + 6 * c] * B->Jb[6 * c2 + c];
                p->A[(d0 + c1) + (size_t)(d0 + c2) * nv] += t;
            }
    }
    for (int d = 0; d < nv; d++) p->A[d + (size_t)d * nv] += s->dof_diag[d];
    /* constraints: bodies, links, J = sum J_{i,b} J_{b,j} */
    int bodies[64][2];
    int nl = 0;
    for (int i = 0; i < nb; i++) {
        bodies[i][0] = hb_rand_int(&r, 0, nv - 1);
        bodies[i][1] = -1;
        if (trng_uniform(&r) < o->p_two) {
            int j0 = p->structure->bodies[bodies[i][0]].subsystem;
            int same = o->nsub == 1 || trng_uniform(&r) < o->p_same;
            for (int tries = 0; tries < 100; tries++) {
                int c = hb_rand_int(&r, 0, nv - 1);
                if (c != bodies[i][0] && (s->bodies[c].subsystem == j0) == same) {
                    bodies[i][1] = c;
                    break;
                }
            }
        }
        nl += 1 + (bodies[i][1] >= 0);
    }
    s->nlinks = nl;
    s->links = ncp_calloc(err, (size_t)nl, sizeof(ncp_structure_link));
    if (!s->links) {
        free(par);
        free(Jd);
        return NCP_ERR_NOMEM;
    }
    int l = 0;
    for (int i = 0; i < nb; i++) {
        int kk = ncp_block_type_size(p->blocks[i].type), r0 = p->blocks[i].row;
        for (int t = 0; t < 2; t++) {
            int b = bodies[i][t];
            if (b < 0) continue;
            ncp_structure_link *L = &s->links[l++];
            L->block = i;
            L->body = b;
            L->Jib = ncp_calloc(err, 6 * (size_t)kk, sizeof(double));
            if (!L->Jib) {
                free(par);
                free(Jd);
                return NCP_ERR_NOMEM;
            }
            for (int e = 0; e < 6 * kk; e++) L->Jib[e] = 0.5 * trng_normal(&r);
            const ncp_structure_body *B = &s->bodies[b];
            int d0 = s->sub_dof_start[B->subsystem];
            for (int rr = 0; rr < kk; rr++)
                for (int c = 0; c < B->ndof; c++) {
                    double t2 = 0.0;
                    for (int a = 0; a < 6; a++) t2 += L->Jib[a * kk + rr] * B->Jb[6 * c + a];
                    Jd[(r0 + rr) + (size_t)(d0 + c) * m] += t2;
                }
        }
    }
    for (int d = 0; d < nv; d++) p->b[d] = trng_normal(&r);
    for (int i = 0; i < m; i++) p->e[i] = 0.3 * trng_normal(&r);
    rc = ncp_csr_from_dense(&p->J, m, nv, Jd, 0.0, err);
    free(Jd);
    free(par);
    if (rc) return rc;
    p->has_primal = 1;
    p->contacts =
        ncp_calloc(err, (size_t)(p->ncontacts ? p->ncontacts : 1), sizeof(ncp_contact_info));
    p->name = ncp_strdup(err, "handbuilt");
    p->scene = ncp_strdup(err, "test");
    p->driver = ncp_strdup(err, "");
    if (!p->contacts || !p->name || !p->scene || !p->driver) return NCP_ERR_NOMEM;
    for (int i = 0; i < p->ncontacts; i++) {
        p->contacts[i].body[0] = -1;
        p->contacts[i].body[1] = 0;
        p->contacts[i].frame[0] = p->contacts[i].frame[4] = p->contacts[i].frame[8] = 1.0;
    }
    p->seed = seed;
    rc = ncp_problem_compute_dual(p, err);
    if (!rc) tutil_feasible_shift(p); /* v = 0 strictly feasible: the NCP has a solution */
    return rc;
}

/* ---------- captures ---------- */

typedef struct cap {
    ncp_problem probs[8];
    int n;
} cap;

static int keep(void *ctx, const ncp_problem *p, ncp_error *err)
{
    cap *c = ctx;
    if (c->n >= 8) return NCP_OK;
    if (p->m == 0) return NCP_OK; /* nothing to solve */
    return ncp_problem_copy(&c->probs[c->n++], p, err);
}

static void capture(const char *path, cap *c)
{
    ncp_error err = {0};
    ncp_scene *s = NULL;
    memset(c, 0, sizeof *c);
    CHECK_OK(ncp_scene_load(path, ncp_registry_catalog(), &s, &err), &err);
    if (!s) return;
    ncp_capture_opts o = {1, 1, 0, NULL, NULL};
    CHECK_OK(ncp_capture_scene(s, &o, keep, c, &err), &err);
    ncp_scene_free(s);
}

static void cap_free(cap *c)
{
    for (int i = 0; i < c->n; i++) ncp_problem_free(&c->probs[i]);
    c->n = 0;
}

/* ---------- independent helpers ---------- */

/* Strict operator (Lee et al. 2025 eq. 17, normal first): clamp the normal, then the tangent
 * radially. */
static void t_strict(double mu, const double x[3], double y[3])
{
    double ln = x[0] > 0.0 ? x[0] : 0.0, s = sqrt(x[1] * x[1] + x[2] * x[2]);
    y[0] = ln;
    double f = s <= mu * ln ? 1.0 : mu * ln / s;
    y[1] = f * x[1];
    y[2] = f * x[2];
}

/* The NCP's natural map F = lambda - Pi_K(lambda - (u + Gamma(u))), u = D lambda + v_f, by
 * tutil_ref_natural_map (written independently of metrics/ and cone.h), divided by ||v_f||
 * (relative, Acary et al. 2018). */
static double rel_natural_map(const ncp_problem *p, const double *lam)
{
    double vf = ncp_norm2(p->m, p->vf);
    return tutil_ref_natural_map(p, lam, 0) / (vf > 0.0 ? vf : 1.0);
}

/* v = A^{-1}(b + J^T lambda) */
static int t_velocity(const ncp_problem *p, const double *lam, double *v)
{
    int n = p->nv;
    double *L = malloc((size_t)n * n * sizeof(double));
    if (!L) return NCP_ERR_NOMEM;
    memcpy(L, p->A, (size_t)n * n * sizeof(double));
    ncp_copy(n, p->b, v);
    ncp_csr_gemv_t(&p->J, 1.0, lam, 1.0, v);
    int rc = ncp_chol_factor(n, L, NULL);
    if (!rc) rc = ncp_chol_solve(n, L, 1, v, NULL);
    free(L);
    return rc;
}

/* ---------- (a) an independent dense ADMM ---------- */

/* Pieces as dense k x nv rows (row-major, k <= 3): variant 0 = per link (subadmm), 1 = per
 * (block, subsystem) (admm-nobody), 2 = the block's rows of J (admm-nosub). */
typedef struct ref_piece {
    int block, k;
    double *J;
    double z[3];
} ref_piece;

static int ref_pieces(const ncp_problem *p, int variant, ref_piece **out, int *np)
{
    const ncp_structure *s = p->structure;
    int n = p->nv, cap = s ? s->nlinks + p->nblocks : p->nblocks, cnt = 0;
    ref_piece *P = calloc((size_t)cap + 1, sizeof(ref_piece));
    if (!P) return NCP_ERR_NOMEM;
    for (int i = 0; i < p->nblocks; i++) {
        int k = ncp_block_type_size(p->blocks[i].type), r0 = p->blocks[i].row;
        if (variant == 2) {
            P[cnt].block = i;
            P[cnt].k = k;
            P[cnt].J = calloc((size_t)k * n, sizeof(double));
            if (!P[cnt].J) return NCP_ERR_NOMEM;
            for (int rr = 0; rr < k; rr++)
                for (int e = p->J.rowptr[r0 + rr]; e < p->J.rowptr[r0 + rr + 1]; e++)
                    P[cnt].J[rr * n + p->J.col[e]] = p->J.val[e];
            cnt++;
            continue;
        }
        for (int j = 0; j < (variant == 1 ? s->nsub : 1); j++) {
            int first = cnt;
            for (int l = 0; l < s->nlinks; l++) {
                const ncp_structure_link *L = &s->links[l];
                const ncp_structure_body *B = &s->bodies[L->body];
                if (L->block != i || (variant == 1 && B->subsystem != j)) continue;
                if (variant == 0 || cnt == first) {
                    P[cnt].block = i;
                    P[cnt].k = k;
                    P[cnt].J = calloc((size_t)k * n, sizeof(double));
                    if (!P[cnt].J) return NCP_ERR_NOMEM;
                    cnt++;
                }
                int d0 = s->sub_dof_start[B->subsystem];
                for (int rr = 0; rr < k; rr++)
                    for (int c = 0; c < B->ndof; c++) {
                        double t = 0.0;
                        for (int a = 0; a < 6; a++) t += L->Jib[a * k + rr] * B->Jb[6 * c + a];
                        P[cnt - 1].J[rr * n + d0 + c] += t;
                    }
            }
        }
    }
    *out = P;
    *np = cnt;
    return NCP_OK;
}

/* iters iterations of ADMM at fixed beta from lambda = 0, z = 0: the global matrix
 * A + beta sum J_p^T J_p is block diagonal over subsystems for variants 0 and 1, so one dense
 * solve is the per-subsystem solves. */
static int ref_admm(const ncp_problem *p, int variant, double beta, int iters, double *lam)
{
    int n = p->nv, np = 0;
    ref_piece *P = NULL;
    int rc = ref_pieces(p, variant, &P, &np);
    double *K = malloc((size_t)n * n * sizeof(double)), *v = malloc((size_t)n * sizeof(double));
    if (rc || !K || !v) {
        free(K);
        free(v);
        return NCP_ERR_NOMEM;
    }
    memcpy(K, p->A, (size_t)n * n * sizeof(double));
    for (int q = 0; q < np; q++)
        for (int a = 0; a < n; a++)
            for (int c = 0; c < n; c++) {
                double t = 0.0;
                for (int rr = 0; rr < P[q].k; rr++) t += P[q].J[rr * n + a] * P[q].J[rr * n + c];
                K[a + (size_t)c * n] += beta * t;
            }
    rc = ncp_chol_factor(n, K, NULL);
    memset(lam, 0, (size_t)p->m * sizeof(double));
    for (int it = 0; it < iters && !rc; it++) {
        ncp_copy(n, p->b, v);
        for (int q = 0; q < np; q++) {
            const double *l = lam + p->blocks[P[q].block].row;
            for (int rr = 0; rr < P[q].k; rr++)
                for (int c = 0; c < n; c++)
                    v[c] += P[q].J[rr * n + c] * (beta * P[q].z[rr] + l[rr]);
        }
        ncp_chol_solve(n, K, 1, v, NULL);
        for (int i = 0; i < p->nblocks; i++) {
            const ncp_block *B = &p->blocks[i];
            int k = ncp_block_type_size(B->type), nz = 0;
            double *l = lam + B->row, S[3] = {0, 0, 0}, y[16][3], x[3] = {0, 0, 0}, ln[3];
            for (int q = 0; q < np; q++) {
                if (P[q].block != i) continue;
                for (int rr = 0; rr < k; rr++) {
                    double w = 0.0;
                    for (int c = 0; c < n; c++) w += P[q].J[rr * n + c] * v[c];
                    y[nz][rr] = beta * w - l[rr];
                    S[rr] += y[nz][rr];
                }
                nz++;
            }
            double d = nz ? nz : 1;
            for (int rr = 0; rr < k; rr++) x[rr] = -(S[rr] + beta * p->e[B->row + rr]) / d;
            if (B->type == NCP_CONTACT) t_strict(B->mu, x, ln);
            else if (B->type == NCP_UNILATERAL) ln[0] = x[0] > 0.0 ? x[0] : 0.0;
            else if (B->type == NCP_BILATERAL) ln[0] = x[0];
            else /* soft: lambda = -k phi - c (sum_p z_p + e) with beta sum z_p = S + nz lambda */
                ln[0] = -(B->c * (S[0] + beta * p->e[B->row]) + beta * B->k * B->phi) /
                        (B->c * d + beta);
            int t = 0;
            for (int q = 0; q < np; q++) {
                if (P[q].block != i) continue;
                for (int rr = 0; rr < k; rr++) P[q].z[rr] = (y[t][rr] + ln[rr]) / beta;
                t++;
            }
            for (int rr = 0; rr < k; rr++) l[rr] = ln[rr];
        }
    }
    for (int q = 0; q < np; q++) free(P[q].J);
    free(P);
    free(K);
    free(v);
    return rc;
}

/* the relative difference of the two computations (testutil.h) */
static double rel_diff(size_t n, const double *a, const double *b)
{
    return tutil_reldiff(n, a, b, 1.0);
}

static const hb_opts HB_MIXED = {3, 3, 7, 1, 2, 5, 1, 0.5, 0.5, 0, 3.0, 0};

static void test_reference(void)
{
    const ncp_subadmm_config *cv[3] = {C_SUB, C_NOBODY, C_NOSUB};
    int checked = 0, intra = 0, dense = 0;
    for (int seed = 1; seed <= 15; seed++) {
        ncp_problem p;
        ncp_error err = {0};
        hb_opts o = HB_MIXED;
        o.chain = seed % 2;
        o.scramble = seed > 12;
        CHECK_OK(hb_build(&p, 100 + seed, &o, &err), &err);
        ncp_subadmm_stats st;
        double beta = 0.5 + 0.25 * (seed % 4);
        ncp_params ps = {0};
        tutil_param(&ps, "adaptive", 0.0);
        tutil_param(&ps, "beta0", beta);
        double *lam = calloc((size_t)p.m, sizeof(double));
        double *ref = calloc((size_t)p.m, sizeof(double));
        double *v = calloc((size_t)p.nv, sizeof(double));
        for (int vi = 0; vi < 3 && lam && ref && v; vi++) {
            CHECK_OK(ncp_subadmm_run(cv[vi], &p, &ps, NULL, NULL, 25, lam, v, &st, &err), &err);
            CHECK(st.iterations == 25 || st.status == NCP_STATUS_STALLED);
            CHECK_OK(ref_admm(&p, vi, beta, st.iterations, ref), &err);
            double d = rel_diff(p.m, lam, ref);
            if (!(d <= 1e-9))
                fprintf(stderr, "reference seed %d %s: rel diff %.3g\n", seed, cv[vi]->desc->name,
                        d);
            CHECK(d <= 1e-9);
            if (vi == 0) { /* the tree factorisation was used, and the body split mattered */
                CHECK(o.scramble || st.tree == p.structure->nsub);
                dense += st.tree < p.structure->nsub;
                intra += st.npieces > p.nblocks;
            }
            checked++;
        }
        free(lam);
        free(ref);
        free(v);
        ncp_problem_free(&p);
    }
    CHECK(checked == 45);
    CHECK(intra > 0);
    CHECK(dense > 0); /* the scrambled supports: dense per-subsystem Cholesky, same iterates */
}

/* ---------- (b) agreement at convergence ---------- */

/* The harness's default options (stopping on natural_map_rel_acary) with tol and max_iter, for
 * tutil_solve_opts. */
static ncp_harness_opts run_opts(double tol, int max_iter)
{
    ncp_harness_opts o;
    ncp_harness_opts_default(&o);
    o.budget.tol = tol;
    o.budget.max_iter = max_iter;
    return o;
}

/* smallest / largest eigenvalue of D */
static double d_condition(const ncp_problem *p)
{
    int m = p->m;
    double *W = malloc((size_t)m * m * sizeof(double)), *ev = malloc((size_t)m * sizeof(double));
    double c = 0.0;
    if (W && ev) {
        memcpy(W, p->D, (size_t)m * m * sizeof(double));
        if (!ncp_sym_eig(m, W, ev, NULL) && ev[m - 1] > 0.0) c = ev[0] / ev[m - 1];
    }
    free(W);
    free(ev);
    return c;
}

static void agree_on(const ncp_problem *p, const char *label, int *nprob, int *nvel)
{
    const ncp_solver_desc *sv[3] = {S_SUB, S_CANAL, S_NSN};
    double *vel[3] = {NULL, NULL, NULL};
    int ok = 1;
    for (int k = 0; k < 3; k++) {
        ncp_result res;
        /* references to 1e-8 within 2000 iterations: on the 80-100 contact laikago8 pile canal
         * plateaus near 1e-9 and nsn-nm needs ~700 iterations */
        ncp_harness_opts o = run_opts(k == 0 ? 1e-7 : 1e-8, k == 0 ? 50000 : 2000);
        int rc = tutil_solve_opts(sv[k], p, NULL, NULL, NULL, &o, &res);
        CHECK(rc == 0);
        if (rc) {
            ok = 0;
            continue;
        }
        double nm = rel_natural_map(p, res.lambda);
        if (!(nm <= 1e-6) || !res.converged)
            fprintf(stderr, "%s problem %s: %s natural map %.3g after %d iterations (%s)\n", label,
                    p->name, sv[k]->name, nm, res.iterations, ncp_status_name(res.status));
        CHECK(nm <= 1e-6);
        CHECK(res.converged);
        vel[k] = calloc((size_t)p->nv, sizeof(double));
        if (!vel[k] || t_velocity(p, res.lambda, vel[k])) ok = 0;
        ncp_result_free(&res);
    }
    /* where D is well conditioned the NCP's solution is locally unique: the velocities agree */
    if (ok && d_condition(p) > 1e-6) {
        double scale = ncp_norminf(p->nv, vel[2]);
        CHECK(rel_diff(p->nv, vel[0], vel[2]) <= 1e-4 * fmax(1.0, scale));
        CHECK(rel_diff(p->nv, vel[1], vel[2]) <= 1e-4 * fmax(1.0, scale));
        (*nvel)++;
    }
    (*nprob)++;
    for (int k = 0; k < 3; k++) free(vel[k]);
}

static void test_agreement(void)
{
    int nprob = 0, nvel = 0;
    for (int seed = 1; seed <= 8; seed++) {
        ncp_problem p;
        ncp_error err = {0};
        hb_opts o = HB_MIXED;
        o.ncontact = 2 + seed % 3;
        o.nbil = seed % 2;
        CHECK_OK(hb_build(&p, 300 + seed, &o, &err), &err);
        agree_on(&p, "hand-built", &nprob, &nvel);
        ncp_problem_free(&p);
    }
    const char *scenes[] = {"scenes/box-on-plane.json", "scenes/quadruped.json",
                            "scenes/fourbar-fixed.json", "scenes/laikago8.json"};
    for (int si = 0; si < 4; si++) {
        cap c;
        capture(scenes[si], &c);
        CHECK(c.n >= 1);
        ncp_error e = {0};
        for (int i = 0; i < c.n; i++) { /* D on demand (core/problem.h), for d_condition */
            CHECK_OK(ncp_problem_need_dual(&c.probs[i], &e), &e);
            agree_on(&c.probs[i], scenes[si], &nprob, &nvel);
        }
        cap_free(&c);
    }
    CHECK(nprob >= 16);
    CHECK(nvel >= 3);
    printf("agreement: %d problems, velocities compared on %d\n", nprob, nvel);
}

/* ---------- (c) same iterates ---------- */

static double iter_diff(const ncp_subadmm_config *a, const ncp_subadmm_config *b,
                        const ncp_problem *p, const ncp_params *ps, int iters)
{
    ncp_error err = {0};
    double *la = calloc((size_t)p->m, sizeof(double)), *lb = calloc((size_t)p->m, sizeof(double));
    double *va = calloc((size_t)p->nv, sizeof(double)), *vb = calloc((size_t)p->nv, sizeof(double));
    double worst = INFINITY;
    if (la && lb && va && vb) {
        worst = 0.0;
        for (int k = 1; k <= iters; k += 3) {
            ncp_subadmm_stats sa, sb;
            CHECK_OK(ncp_subadmm_run(a, p, ps, NULL, NULL, k, la, va, &sa, &err), &err);
            CHECK_OK(ncp_subadmm_run(b, p, ps, NULL, NULL, k, lb, vb, &sb, &err), &err);
            worst = fmax(worst, rel_diff(p->m, la, lb));
            worst = fmax(worst, rel_diff(p->nv, va, vb));
        }
    }
    free(la);
    free(lb);
    free(va);
    free(vb);
    return worst;
}

static void test_same_iterates(void)
{
    for (int adaptive = 0; adaptive <= 1; adaptive++) {
        ncp_params ps = {0};
        tutil_param(&ps, "adaptive", adaptive);
        for (int seed = 1; seed <= 4; seed++) {
            ncp_error err = {0};
            ncp_problem p;
            /* one subsystem (a branching tree of 6..9 dofs, one body per dof), every constraint on
             * one body against the ground: subadmm = admm-nosub = admm-nobody */
            hb_opts o = {1, 6, 9, 1, 1, 3, 1, 0.0, 1.0, 0, 2.0, 0};
            CHECK_OK(hb_build(&p, 500 + seed, &o, &err), &err);
            CHECK(iter_diff(C_SUB, C_NOSUB, &p, &ps, 40) <= 1e-9);
            CHECK(iter_diff(C_NOBODY, C_NOSUB, &p, &ps, 40) <= 1e-9);
            ncp_problem_free(&p);
            /* one subsystem with constraints on two of its bodies: admm-nobody is still admm-nosub
             * (one piece per constraint), subadmm splits them (eq. 31) and its iterates differ */
            o.p_two = 1.0;
            CHECK_OK(hb_build(&p, 600 + seed, &o, &err), &err);
            CHECK(iter_diff(C_NOBODY, C_NOSUB, &p, &ps, 40) <= 1e-9);
            CHECK(iter_diff(C_SUB, C_NOSUB, &p, &ps, 40) > 1e-6);
            ncp_problem_free(&p);
        }
        /* rigid-body captures: one body per subsystem, so the body split is the subsystem split */
        cap c;
        capture("scenes/sphere-stack.json", &c);
        CHECK(c.n >= 2);
        for (int i = 0; i < c.n; i++)
            CHECK(iter_diff(C_SUB, C_NOBODY, &c.probs[i], &ps, 40) <= 1e-9);
        cap_free(&c);
    }
}

/* ---------- (d) threads ---------- */

static void threads_on(const ncp_subadmm_config *s, const ncp_problem *p)
{
    ncp_error err = {0};
    int m = p->m, n = p->nv;
    double *l1 = calloc((size_t)m, sizeof(double)), *v1 = calloc((size_t)n, sizeof(double));
    double *l2 = calloc((size_t)m, sizeof(double)), *v2 = calloc((size_t)n, sizeof(double));
    if (!l1 || !v1 || !l2 || !v2) {
        CHECK(0);
    } else {
        ncp_params ps = {0};
        tutil_param(&ps, "threads", 1);
        ncp_subadmm_stats s1, s2;
        CHECK_OK(ncp_subadmm_run(s, p, &ps, NULL, NULL, 60, l1, v1, &s1, &err), &err);
        for (int t = 2; t <= 4; t++) {
            ps.n = 0;
            tutil_param(&ps, "threads", t);
            CHECK_OK(ncp_subadmm_run(s, p, &ps, NULL, NULL, 60, l2, v2, &s2, &err), &err);
            CHECK(memcmp(l1, l2, (size_t)m * sizeof(double)) == 0);
            CHECK(memcmp(v1, v2, (size_t)n * sizeof(double)) == 0);
            CHECK(s1.beta == s2.beta && s1.beta_updates == s2.beta_updates &&
                  s1.theta_p == s2.theta_p && s1.theta_d == s2.theta_d &&
                  s1.iterations == s2.iterations);
        }
    }
    free(l1);
    free(v1);
    free(l2);
    free(v2);
}

static void test_threads(void)
{
    const ncp_subadmm_config *cv[3] = {C_SUB, C_NOBODY, C_NOSUB};
    ncp_error err = {0};
    ncp_problem p;
    hb_opts o = HB_MIXED;
    o.nsub = 8;
    CHECK_OK(hb_build(&p, 777, &o, &err), &err);
    for (int k = 0; k < 3; k++) threads_on(cv[k], &p);
    ncp_problem_free(&p);
    cap c;
    capture("scenes/laikago8.json", &c);
    CHECK(c.n >= 1 && c.probs[0].structure && c.probs[0].structure->nsub == 8);
    for (int i = 0; i < c.n; i++)
        for (int k = 0; k < 3; k++) threads_on(cv[k], &c.probs[i]);
    cap_free(&c);
}

/* ---------- (e) eqs. 42, 43 and beta_0 ---------- */

static void test_residuals(void)
{
    for (int seed = 1; seed <= 6; seed++) {
        ncp_error err = {0};
        ncp_problem p;
        hb_opts o = HB_MIXED;
        CHECK_OK(hb_build(&p, 900 + seed, &o, &err), &err);
        const ncp_structure *s = p.structure;
        int m = p.m, n = p.nv;
        double *l0 = calloc((size_t)m, sizeof(double)), *l1 = calloc((size_t)m, sizeof(double));
        double *v = calloc((size_t)n, sizeof(double)), *r = calloc((size_t)n, sizeof(double));
        if (!l0 || !l1 || !v || !r) {
            CHECK(0);
            break;
        }
        ncp_params ps = {0};
        tutil_param(&ps, "adaptive", 0);
        ncp_subadmm_stats st;
        int N = 7 + seed;
        CHECK_OK(ncp_subadmm_run(C_SUB, &p, &ps, NULL, NULL, N - 1, l0, v, &st, &err), &err);
        CHECK_OK(ncp_subadmm_run(C_SUB, &p, &ps, NULL, NULL, N, l1, v, &st, &err), &err);
        /* theta_p = max_{i,p} ||J_p v - z_p|| = max_i ||lambda_i^{N-1} - lambda_i^N|| / beta */
        double tp = 0.0;
        for (int bi = 0; bi < p.nblocks; bi++) {
            int k = ncp_block_type_size(p.blocks[bi].type), r0 = p.blocks[bi].row;
            double d2 = 0.0;
            for (int q = 0; q < k; q++) d2 += (l1[r0 + q] - l0[r0 + q]) * (l1[r0 + q] - l0[r0 + q]);
            tp = fmax(tp, sqrt(d2) / st.beta);
        }
        CHECK_NEAR(st.theta_p, tp, 1e-9 * fmax(tp, 1e-12));
        /* theta_d = max_j ||A_j v_j - b_j - (J^T lambda)_j||, with the problem's dense A */
        ncp_gemv(0, n, n, 1.0, p.A, v, 0.0, r);
        ncp_axpy(n, -1.0, p.b, r);
        ncp_csr_gemv_t(&p.J, -1.0, l1, 1.0, r);
        double td = 0.0, bscale = ncp_norminf(n, p.b);
        for (int j = 0; j < s->nsub; j++)
            td = fmax(td, ncp_norm2(s->sub_ndof[j], r + s->sub_dof_start[j]));
        CHECK_NEAR(st.theta_d, td, 1e-10 * fmax(1.0, bscale) + 1e-6 * td);
        /* eq. 43 once: the beta of iteration 2 is beta0 sqrt(m* theta_p / theta_d) of iteration
         * 1 when the ratio leaves [1/gamma, gamma], m* = the body mass scale (checked in
         * test_beta0; the scale-free default), or m* = 1 kg (theta_mass = 1, the paper's literal
         * rule) */
        ps.n = 0;
        tutil_param(&ps, "adaptive", 0);
        ncp_subadmm_stats s1, s2;
        CHECK_OK(ncp_subadmm_run(C_SUB, &p, &ps, NULL, NULL, 1, l0, v, &s1, &err), &err);
        ps.n = 0;
        tutil_param(&ps, "gamma", 1.0 + 1e-9);
        tutil_param(&ps, "beta_range", 1e300);
        CHECK_OK(ncp_subadmm_run(C_SUB, &p, &ps, NULL, NULL, 2, l0, v, &s2, &err), &err);
        CHECK(s1.theta_p > 0.0 && s1.theta_d > 0.0);
        CHECK_REL(s2.beta, s1.beta0 * sqrt(s1.mass_scale * s1.theta_p / s1.theta_d), 1e-12);
        CHECK(s2.beta_updates == 1 && s2.factorizations == 2);
        tutil_param(&ps, "theta_mass", 1.0);
        CHECK_OK(ncp_subadmm_run(C_SUB, &p, &ps, NULL, NULL, 2, l0, v, &s2, &err), &err);
        CHECK_REL(s2.beta, s1.beta0 * sqrt(s1.theta_p / s1.theta_d), 1e-12);
        free(l0);
        free(l1);
        free(v);
        free(r);
        ncp_problem_free(&p);
    }
}

static void test_beta0(void)
{
    ncp_error err = {0};
    ncp_problem p;
    hb_opts o = HB_MIXED;
    CHECK_OK(hb_build(&p, 4242, &o, &err), &err);
    const ncp_structure *s = p.structure;
    /* pseudo-density m_b / n_b over bodies with contact pieces (a two-body contact counts for
     * both; bilateral, unilateral and soft pieces do not count), geometric mean */
    double sum = 0.0;
    int q = 0;
    for (int b = 0; b < s->nbodies; b++) {
        int nb = 0;
        for (int l = 0; l < s->nlinks; l++)
            nb += s->links[l].body == b && p.blocks[s->links[l].block].type == NCP_CONTACT;
        if (nb) {
            sum += log(s->bodies[b].M[0] / nb);
            q++;
        }
    }
    CHECK(q >= 2);
    double *lam = calloc((size_t)p.m, sizeof(double)), *v = calloc((size_t)p.nv, sizeof(double));
    ncp_subadmm_stats st;
    const ncp_subadmm_config *cv[3] = {C_SUB, C_NOBODY, C_NOSUB};
    for (int k = 0; k < 3 && lam && v; k++) {
        CHECK_OK(ncp_subadmm_run(cv[k], &p, NULL, NULL, NULL, 1, lam, v, &st, &err), &err);
        CHECK_REL(st.beta0, exp(sum / q), 1e-12);
    }
    /* eq. 43's mass scale: the geometric mean of the masses of the bodies that carry a
     * constraint piece (of any type) */
    double ms = 0.0;
    int nq = 0;
    for (int b = 0; b < s->nbodies; b++) {
        int has = 0;
        for (int l = 0; l < s->nlinks; l++) has |= s->links[l].body == b;
        if (has) {
            ms += log(s->bodies[b].M[0]);
            nq++;
        }
    }
    CHECK(nq >= 2);
    for (int k = 0; k < 3 && lam && v; k++) {
        CHECK_OK(ncp_subadmm_run(cv[k], &p, NULL, NULL, NULL, 1, lam, v, &st, &err), &err);
        CHECK_REL(st.mass_scale, exp(ms / nq), 1e-12);
    }
    /* an explicit beta0 overrides it */
    ncp_params ps = {0};
    tutil_param(&ps, "beta0", 3.5);
    CHECK_OK(ncp_subadmm_run(C_SUB, &p, &ps, NULL, NULL, 1, lam, v, &st, &err), &err);
    CHECK(st.beta0 == 3.5);
    free(lam);
    free(v);
    ncp_problem_free(&p);
}

/* Once both residuals are at round-off, eq. 43 stops changing beta: box-on-plane converges to
 * al_residual ~1e-15 within 150 iterations; 150 more add no beta update and keep the accuracy. */
static void test_roundoff_guard(void)
{
    cap c;
    capture("scenes/box-on-plane.json", &c);
    CHECK(c.n >= 4);
    int updates = 0;
    for (int i = 0; i < c.n; i++) {
        const ncp_problem *p = &c.probs[i];
        ncp_error err = {0};
        double *lam = calloc((size_t)p->m, sizeof(double));
        double *v = calloc((size_t)p->nv, sizeof(double));
        ncp_subadmm_stats s1, s2;
        if (!lam || !v) {
            CHECK(0);
        } else {
            CHECK_OK(ncp_subadmm_run(C_SUB, p, NULL, NULL, NULL, 150, lam, v, &s1, &err), &err);
            double nm = rel_natural_map(p, lam);
            CHECK_OK(ncp_subadmm_run(C_SUB, p, NULL, NULL, NULL, 300, lam, v, &s2, &err), &err);
            CHECK(nm <= 1e-12);
            CHECK(s2.beta_updates == s1.beta_updates);
            CHECK(rel_natural_map(p, lam) <= 1e-12);
            updates += s1.beta_updates;
        }
        free(lam);
        free(v);
    }
    CHECK(updates > 0); /* eq. 43 did act before convergence */
    cap_free(&c);
}

/* ---------- (f) warm start and budgets ---------- */

static void test_warm_and_budgets(void)
{
    for (int seed = 1; seed <= 4; seed++) {
        ncp_error err = {0};
        ncp_problem p;
        hb_opts o = HB_MIXED;
        o.ncontact = 3;
        CHECK_OK(hb_build(&p, 1100 + seed, &o, &err), &err);
        ncp_result ref, res;
        ncp_harness_opts ho = run_opts(1e-13, 500);
        CHECK_OK(tutil_solve_opts(S_NSN, &p, NULL, NULL, NULL, &ho, &ref), &err);
        CHECK(rel_natural_map(&p, ref.lambda) <= 1e-12);
        const ncp_solver_desc *sv[3] = {S_SUB, S_NOBODY, S_NOSUB};
        for (int k = 0; k < 3; k++) {
            /* lambda0 only: v0 = A^{-1}(b + J^T lambda0) inside; and with v0 given */
            ho = run_opts(1e-9, 100);
            CHECK_OK(tutil_solve_opts(sv[k], &p, NULL, ref.lambda, NULL, &ho, &res), &err);
            CHECK(res.converged && res.iterations == 1);
            ncp_result_free(&res);
            CHECK_OK(tutil_solve_opts(sv[k], &p, NULL, ref.lambda, ref.v, &ho, &res), &err);
            CHECK(res.converged && res.iterations == 1);
            ncp_result_free(&res);
        }
        /* max_iter: exactly that many iterations, status MAX_ITER */
        ho = run_opts(0.0, 7);
        CHECK_OK(tutil_solve_opts(S_SUB, &p, NULL, NULL, NULL, &ho, &res), &err);
        CHECK(res.iterations == 7 && res.status == NCP_STATUS_MAX_ITER && !res.converged);
        ncp_result_free(&res);
        for (int k = 0; k < 3; k++) tutil_check_budgets(sv[k], &p, NULL); /* 1, 2, 3 and 5 */
        /* a time budget the setup alone exceeds: TIMEOUT, no iteration */
        ncp_harness_opts_default(&ho);
        ho.budget.time_ms = 1e-9;
        CHECK_OK(ncp_harness_solve(S_SUB, &p, NULL, NULL, NULL, &ho, &res, &err), &err);
        CHECK(res.status == NCP_STATUS_TIMEOUT && res.iterations == 0);
        ncp_result_free(&res);
        /* ncp_subadmm_run: exactly the requested iterations */
        double *lam = calloc((size_t)p.m, sizeof(double));
        double *v = calloc((size_t)p.nv, sizeof(double));
        ncp_subadmm_stats st;
        if (lam && v) {
            CHECK_OK(ncp_subadmm_run(C_SUB, &p, NULL, NULL, NULL, 13, lam, v, &st, &err), &err);
            CHECK(st.iterations == 13 && st.status == NCP_STATUS_MAX_ITER);
        }
        free(lam);
        free(v);
        ncp_result_free(&ref);
        ncp_problem_free(&p);
    }
}

/* ---------- (g) bad input ---------- */

static void expect_input_error(int rc, const ncp_error *err, const char *needle)
{
    CHECK(rc == NCP_ERR_INPUT);
    if (needle && !strstr(err->msg, needle)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", err->msg, needle);
        CHECK(0);
    }
}

static void test_bad_input(void)
{
    ncp_error err = {0};
    ncp_problem p;
    hb_opts o = HB_MIXED;
    CHECK_OK(hb_build(&p, 31337, &o, &err), &err);
    CHECK_OK(ncp_subadmm_check_structure(&p, 1e-10, &err), &err);
    double *lam = calloc((size_t)p.m, sizeof(double)), *v = calloc((size_t)p.nv, sizeof(double));
    ncp_subadmm_stats st;
    ncp_structure *s = p.structure;
    /* a link Jacobian that no longer matches J */
    s->links[0].Jib[0] += 0.1;
    ncp_error_clear(&err);
    expect_input_error(ncp_subadmm_check_structure(&p, 1e-10, &err), &err, "does not describe J");
    ncp_error_clear(&err);
    expect_input_error(ncp_subadmm_run(C_SUB, &p, NULL, NULL, NULL, 3, lam, v, &st, &err), &err,
                       "handbuilt");
    s->links[0].Jib[0] -= 0.1;
    /* a body inertia that no longer matches A */
    s->bodies[1].M[0] *= 1.5;
    ncp_error_clear(&err);
    expect_input_error(ncp_subadmm_run(C_SUB, &p, NULL, NULL, NULL, 3, lam, v, &st, &err), &err,
                       "does not describe A");
    s->bodies[1].M[0] /= 1.5;
    /* A coupling two subsystems (the full check) */
    int n = p.nv, a = s->sub_dof_start[0], c = s->sub_dof_start[1];
    p.A[a + (size_t)c * n] = p.A[c + (size_t)a * n] = 0.01;
    ncp_error_clear(&err);
    expect_input_error(ncp_subadmm_check_structure(&p, 1e-10, &err), &err, "couples subsystems");
    p.A[a + (size_t)c * n] = p.A[c + (size_t)a * n] = 0.0;
    /* overlapping subsystems */
    s->sub_dof_start[1] -= 1;
    ncp_error_clear(&err);
    expect_input_error(ncp_subadmm_run(C_NOBODY, &p, NULL, NULL, NULL, 3, lam, v, &st, &err), &err,
                       "overlap");
    s->sub_dof_start[1] += 1;
    ncp_error_clear(&err);
    CHECK_OK(ncp_subadmm_check_structure(&p, 1e-10, &err), &err);
    /* parameters, for the three solvers (they share the parameter table) */
    const struct {
        const char *name;
        double value;
    } bad[] = {{"gamma", 1.0},  {"threads", -1.0},   {"adaptive", 2.0},
               {"beta0", -1.0}, {"beta_range", 0.5}, {"theta_th", -1.0}};
    const ncp_solver_desc *sv[3] = {S_SUB, S_NOBODY, S_NOSUB};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            tutil_check_bad_param(sv[k], &p, bad[i].name, bad[i].value);
    ncp_params ps = {0}; /* ncp_subadmm_run reads the same table */
    tutil_param(&ps, "gamma", 1.0);
    ncp_error_clear(&err);
    expect_input_error(ncp_subadmm_run(C_SUB, &p, &ps, NULL, NULL, 3, lam, v, &st, &err), &err,
                       "gamma");
    ncp_error_clear(&err);
    expect_input_error(ncp_subadmm_run(NULL, &p, NULL, NULL, NULL, 3, lam, v, &st, &err), &err,
                       "configuration");
    /* no structure: subadmm and admm-nobody refuse, admm-nosub runs (beta_0 per dof) */
    ncp_structure_free(p.structure);
    p.structure = NULL;
    ncp_error_clear(&err);
    expect_input_error(ncp_subadmm_run(C_NOBODY, &p, NULL, NULL, NULL, 3, lam, v, &st, &err), &err,
                       "no subsystem structure");
    ncp_result res;
    ncp_harness_opts ho;
    ncp_harness_opts_default(&ho);
    ncp_error_clear(&err);
    expect_input_error(ncp_harness_solve(S_SUB, &p, NULL, NULL, NULL, &ho, &res, &err), &err, NULL);
    ncp_error_clear(&err);
    CHECK_OK(ncp_subadmm_run(C_NOSUB, &p, NULL, NULL, NULL, 3, lam, v, &st, &err), &err);
    CHECK(st.beta0 > 0.0 && isfinite(st.beta0));
    free(lam);
    free(v);
    ncp_problem_free(&p);
}

/* ---------- scale-free eq. 43: invariance under a change of mass unit ---------- */

/* q = p with every mass multiplied by s: A, b (a momentum), the bodies' M_b, dof_diag. */
static int scale_masses(const ncp_problem *p, double s, ncp_problem *q, ncp_error *err)
{
    int rc = ncp_problem_copy(q, p, err);
    if (rc) return rc;
    size_t nn = (size_t)q->nv * (size_t)q->nv;
    for (size_t e = 0; e < nn; e++) q->A[e] *= s;
    for (int k = 0; k < q->nv; k++) q->b[k] *= s;
    ncp_structure *st = q->structure;
    for (int b = 0; b < st->nbodies; b++)
        for (int e = 0; e < 36; e++) st->bodies[b].M[e] *= s;
    if (st->dof_diag)
        for (int k = 0; k < q->nv; k++) st->dof_diag[k] *= s;
    return NCP_OK;
}

/* Scaling every mass by s (kg -> another unit) scales lambda by s and leaves v unchanged: with
 * the scale-free eq. 43 (default) the iterates of every member, eq. 43's decisions included,
 * are the same up to round-off; with the paper's literal rule (theta_mass = 1 kg) they are not. */
static void test_scale_free(void)
{
    const ncp_subadmm_config *cv[3] = {C_SUB, C_NOBODY, C_NOSUB};
    const double scales[2] = {1e-3, 64.0};
    int lit_differs = 0, updates = 0;
    for (int seed = 1; seed <= 3; seed++) {
        ncp_error err = {0};
        ncp_problem p;
        hb_opts o = HB_MIXED;
        o.nsoft = 0; /* a soft block's compliance has units of 1/kg: it would need rescaling too */
        o.nsub = 4;
        CHECK_OK(hb_build(&p, 3100 + seed, &o, &err), &err);
        int m = p.m, n = p.nv;
        double *l1 = calloc((size_t)m, sizeof(double)), *v1 = calloc((size_t)n, sizeof(double));
        double *l2 = calloc((size_t)m, sizeof(double)), *v2 = calloc((size_t)n, sizeof(double));
        if (!l1 || !v1 || !l2 || !v2) CHECK(0);
        for (int si = 0; si < 2 && l1 && v1 && l2 && v2; si++) {
            ncp_problem q;
            CHECK_OK(scale_masses(&p, scales[si], &q, &err), &err);
            for (int lit = 0; lit <= 1; lit++)
                for (int k = 0; k < 3; k++) {
                    ncp_params ps = {0};
                    if (lit) tutil_param(&ps, "theta_mass", 1.0);
                    ncp_subadmm_stats a, b;
                    CHECK_OK(ncp_subadmm_run(cv[k], &p, &ps, NULL, NULL, 25, l1, v1, &a, &err),
                             &err);
                    CHECK_OK(ncp_subadmm_run(cv[k], &q, &ps, NULL, NULL, 25, l2, v2, &b, &err),
                             &err);
                    for (int i = 0; i < m; i++) l2[i] /= scales[si];
                    double d = fmax(rel_diff(m, l2, l1), rel_diff(n, v2, v1));
                    if (lit) {
                        lit_differs += d > 1e-4;
                    } else {
                        CHECK(d <= 1e-9);
                        CHECK_REL(b.beta0, a.beta0 * scales[si], 1e-12);
                        CHECK_REL(b.mass_scale, a.mass_scale * scales[si], 1e-12);
                        CHECK_REL(b.beta, a.beta * scales[si], 1e-9);
                        CHECK(a.beta_updates == b.beta_updates);
                        updates += a.beta_updates;
                    }
                }
            ncp_problem_free(&q);
        }
        free(l1);
        free(v1);
        free(l2);
        free(v2);
        ncp_problem_free(&p);
    }
    CHECK(updates > 0);     /* eq. 43 acted, so its decisions were compared */
    CHECK(lit_differs > 0); /* the literal rule depends on the mass unit */
}

/* ---------- admm-nosub: sparse factorisation = dense ---------- */

/* The fixed-pattern sparse Cholesky on its own: random sparse SPD matrices (a few couplings
 * between otherwise independent blocks), pattern given as both triangles or as one, solved
 * against a dense product; a matrix that is not positive definite is NCP_ERR_NUMERIC. */
static void test_spchol(void)
{
    trng r = {99};
    for (int trial = 0; trial < 6; trial++) {
        int n = 5 + 13 * trial;
        double *A = calloc((size_t)n * n, sizeof(double)), *x = calloc((size_t)n, sizeof(double));
        double *b = calloc((size_t)n, sizeof(double));
        int *ptr = calloc((size_t)n + 1, sizeof(int)), *idx = malloc((size_t)n * n * sizeof(int));
        double *val = malloc((size_t)n * n * sizeof(double));
        if (!A || !x || !b || !ptr || !idx || !val) {
            CHECK(0);
        } else {
            /* B B^T + n I with B sparse: a random symmetric pattern */
            for (int i = 0; i < n; i++) A[i + (size_t)i * n] = n;
            for (int e = 0; e < 2 * n; e++) {
                int i = (int)(trng_uniform(&r) * n), j = (int)(trng_uniform(&r) * n);
                double a = trng_uniform(&r) - 0.5;
                if (i == j) continue;
                A[i + (size_t)j * n] += a;
                A[j + (size_t)i * n] += a;
            }
            for (int i = 0; i < n; i++) b[i] = trng_uniform(&r) - 0.5;
            for (int upper = 0; upper <= 1; upper++) {
                int nz = 0;
                for (int i = 0; i < n; i++) {
                    for (int j = upper ? i : 0; j < n; j++)
                        if (A[i + (size_t)j * n] != 0.0) {
                            idx[nz] = j;
                            val[nz++] = A[i + (size_t)j * n];
                        }
                    ptr[i + 1] = nz;
                }
                ncp_error err = {0};
                ncp_spchol *F = NULL;
                CHECK_OK(ncp_spchol_analyse(n, ptr, idx, &F, &err), &err);
                if (!F) continue;
                /* val + 2 * val2 with val2 = val / 2 - val / 4... : beta scales the second set */
                double *half = malloc((size_t)nz * sizeof(double));
                if (!half) {
                    CHECK(0);
                    ncp_spchol_free(F);
                    continue;
                }
                for (int q = 0; q < nz; q++) half[q] = 0.25 * val[q];
                CHECK_OK(ncp_spchol_factor(F, half, half, 3.0, &err), &err); /* = A */
                memcpy(x, b, (size_t)n * sizeof(double));
                ncp_spchol_solve(F, x);
                double res = 0.0;
                for (int i = 0; i < n; i++) {
                    double s = -b[i];
                    for (int j = 0; j < n; j++) s += A[i + (size_t)j * n] * x[j];
                    res = fmax(res, fabs(s));
                }
                CHECK(res <= 1e-12 * n);
                size_t nnzl;
                double fl;
                ncp_spchol_stats(F, &nnzl, &fl);
                CHECK(nnzl >= (size_t)n && nnzl <= (size_t)n * (n + 1) / 2 && fl >= n);
                /* negative definite: the first pivot fails */
                for (int q = 0; q < nz; q++) half[q] = -val[q];
                CHECK(ncp_spchol_factor(F, half, NULL, 0.0, &err) == NCP_ERR_NUMERIC);
                free(half);
                ncp_spchol_free(F);
            }
        }
        free(A);
        free(x);
        free(b);
        free(ptr);
        free(idx);
        free(val);
    }
}

#ifdef NCP_HAVE_CHOLMOD
/* The fill-reducing ordering at a size the exact minimum degree never reached (n > 8192, where
 * it kept the natural order): the 5-point Laplacian of a 96 x 96 grid (n = 9216) plus 4 I, its
 * unknowns numbered at random. The natural order of that numbering gives nnz(L) = 6.3e6
 * (scipy's SuperLU, permc_spec NATURAL); a fill-reducing ordering keeps it O(n log n) (nested
 * dissection of the grid: 31/8 n log2 n, George 1973; CHOLMOD's AMD gives 1.9e5). The bound,
 * 8 n log2 n = 9.7e5, fails by 6.5x on the natural order. The solve is checked against A x = b. */
static void test_spchol_ordering(void)
{
    const int k = 96, n = k * k;
    trng r = {7};
    int *lab = malloc((size_t)n * sizeof(int)), *ptr = calloc((size_t)n + 1, sizeof(int));
    int *idx = malloc((size_t)5 * n * sizeof(int));
    double *val = malloc((size_t)5 * n * sizeof(double)), *x = malloc((size_t)n * sizeof(double));
    double *b = malloc((size_t)n * sizeof(double));
    if (!lab || !ptr || !idx || !val || !x || !b) {
        CHECK(0);
        goto out;
    }
    for (int i = 0; i < n; i++) lab[i] = i;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)(trng_uniform(&r) * (i + 1));
        if (j > i) j = i;
        int t = lab[i];
        lab[i] = lab[j];
        lab[j] = t;
    }
    /* row lab[g] of A holds grid node g's stencil (both triangles) */
    int *inv = malloc((size_t)n * sizeof(int));
    if (!inv) {
        CHECK(0);
        goto out;
    }
    for (int g = 0; g < n; g++) inv[lab[g]] = g;
    int nz = 0;
    for (int row = 0; row < n; row++) {
        int g = inv[row], gi = g % k, gj = g / k;
        idx[nz] = row;
        val[nz++] = 8.0;
        const int di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
        for (int t = 0; t < 4; t++) {
            int ni = gi + di[t], nj = gj + dj[t];
            if (ni < 0 || ni >= k || nj < 0 || nj >= k) continue;
            idx[nz] = lab[ni + k * nj];
            val[nz++] = -1.0;
        }
        ptr[row + 1] = nz;
    }
    free(inv);
    ncp_error err = {0};
    ncp_spchol *F = NULL;
    CHECK_OK(ncp_spchol_analyse(n, ptr, idx, &F, &err), &err);
    if (F) {
        size_t nnzl;
        double fl;
        ncp_spchol_stats(F, &nnzl, &fl);
        CHECK(nnzl <= (size_t)(8.0 * n * log2((double)n)));
        CHECK_OK(ncp_spchol_factor(F, val, NULL, 0.0, &err), &err);
        for (int i = 0; i < n; i++) b[i] = x[i] = trng_uniform(&r) - 0.5;
        ncp_spchol_solve(F, x);
        double res = 0.0;
        for (int i = 0; i < n; i++) {
            double s = -b[i];
            for (int q = ptr[i]; q < ptr[i + 1]; q++) s += val[q] * x[idx[q]];
            res = fmax(res, fabs(s));
        }
        CHECK(res <= 1e-13);
        /* an indefinite matrix on the same pattern is refused, and the factor recovers */
        for (int q = 0; q < nz; q++) val[q] = -val[q];
        CHECK(ncp_spchol_factor(F, val, NULL, 0.0, &err) == NCP_ERR_NUMERIC);
        CHECK_OK(ncp_spchol_factor(F, val, val, -2.0, &err), &err); /* -A + 2 A */
        for (int q = 0; q < nz; q++) val[q] = -val[q];
        double *x2 = malloc((size_t)n * sizeof(double));
        if (x2) {
            memcpy(x2, b, (size_t)n * sizeof(double));
            ncp_spchol_solve(F, x2);
            double dx = 0.0;
            for (int i = 0; i < n; i++) dx = fmax(dx, fabs(x2[i] - x[i]));
            CHECK(dx <= 1e-14);
        }
        free(x2);
        ncp_spchol_free(F);
    }
out:
    free(lab);
    free(ptr);
    free(idx);
    free(val);
    free(x);
    free(b);
}
#endif

/* admm-nosub's iterates after `iters` iterations with the dense (nosub_factor = 1) and the
 * sparse (2) factorisation: their largest relative difference (lambda and v), INFINITY on a
 * failure; the runs' eq. 43 decisions must agree. */
static double nosub_sparse_dense(const ncp_problem *p, int iters)
{
    ncp_params pd = {0}, psp = {0};
    tutil_param(&pd, "nosub_factor", 1);
    tutil_param(&psp, "nosub_factor", 2);
    ncp_error err = {0};
    double *la = calloc((size_t)p->m, sizeof(double)), *lb = calloc((size_t)p->m, sizeof(double));
    double *va = calloc((size_t)p->nv, sizeof(double)), *vb = calloc((size_t)p->nv, sizeof(double));
    double d = INFINITY;
    ncp_subadmm_stats sa, sb;
    if (la && lb && va && vb &&
        !ncp_subadmm_run(C_NOSUB, p, &pd, NULL, NULL, iters, la, va, &sa, &err) &&
        !ncp_subadmm_run(C_NOSUB, p, &psp, NULL, NULL, iters, lb, vb, &sb, &err)) {
        d = fmax(rel_diff(p->m, lb, la), rel_diff(p->nv, vb, va));
        CHECK(sa.beta_updates == sb.beta_updates && sa.iterations == sb.iterations);
        CHECK(sa.status == sb.status && sa.status != NCP_STATUS_FAILED);
    }
    CHECK(err.code == NCP_OK);
    free(la);
    free(lb);
    free(va);
    free(vb);
    return d;
}

/* admm-nosub with the sparse factorisation has the dense one's iterates to round-off:
 * hand-built problems whose constraints couple subsystems, and the multi-robot laikago8 captures
 * (8 robots, contacts between them), adaptive beta on (each change of beta refactorises). */
static void test_nosub_sparse(void)
{
    int checked = 0;
    for (int seed = 1; seed <= 4; seed++) {
        ncp_error err = {0};
        ncp_problem p;
        hb_opts o = HB_MIXED;
        o.nsub = 6;
        o.p_two = 0.7;
        o.p_same = 0.2;
        CHECK_OK(hb_build(&p, 4100 + seed, &o, &err), &err);
        CHECK(nosub_sparse_dense(&p, 40) <= 1e-9);
        checked++;
        ncp_problem_free(&p);
    }
    cap c;
    capture("scenes/laikago8.json", &c);
    CHECK(c.n >= 1);
    for (int i = 0; i < c.n; i++) {
        CHECK(nosub_sparse_dense(&c.probs[i], 100) <= 1e-9);
        checked++;
    }
    cap_free(&c);
    CHECK(checked >= 5);
}

/* ---------- the scenes' structures pass the full check ---------- */

static void test_scene_structures(void)
{
    const char *scenes[] = {"scenes/box-on-plane.json", "scenes/quadruped.json",
                            "scenes/laikago8.json", "scenes/fourbar-fixed.json"};
    for (int si = 0; si < 4; si++) {
        cap c;
        capture(scenes[si], &c);
        for (int i = 0; i < c.n; i++) {
            ncp_error err = {0};
            CHECK_OK(ncp_subadmm_check_structure(&c.probs[i], 1e-10, &err), &err);
        }
        cap_free(&c);
    }
}

/* ---------- A dense or block-sparse: the same iterates ---------- */

/* q = p with A in the other representation (dense <-> block-sparse CSR of its non-zeros), as the
 * simulator's block route keeps it or --primal dense densifies it. */
static void other_a(const ncp_problem *p, ncp_problem *q, ncp_error *err)
{
    CHECK_OK(ncp_problem_copy(q, p, err), err);
    int n = q->nv;
    if (q->has_primal) {
        CHECK_OK(ncp_csr_from_dense(&q->A_sparse, n, n, q->A, 0.0, err), err);
        free(q->A);
        q->A = NULL;
        q->has_primal = 0;
        q->has_sparse_primal = 1;
    } else {
        q->A = calloc((size_t)n * n, sizeof(double));
        CHECK(q->A != NULL);
        if (q->A) ncp_csr_to_dense(&q->A_sparse, q->A);
        ncp_csr_free(&q->A_sparse);
        q->has_primal = 1;
        q->has_sparse_primal = 0;
    }
    q->dop_route = 0;
}

/* subadmm and admm-nobody read A only in their setup's checks and scale rules: on a capture with
 * A dense and the same problem with A block-sparse (both ways round) their iterates, velocities
 * and counts are bit for bit the same after 1, 7 and 40 iterations, cold and warm; the structure
 * check accepts both; admm-nosub, which reads the dense A, says so on the sparse one. */
static void test_sparse_a(void)
{
    const char *scenes[] = {"scenes/box-on-plane.json", "scenes/laikago8.json",
                            "scenes/fourbar-fixed.json", "scenes/scaling/wall-1e2.json"};
    const ncp_subadmm_config *cfgs[2] = {C_SUB, C_NOBODY};
    const int iters[] = {1, 7, 40};
    int compared = 0, sparse_native = 0;
    for (int si = 0; si < 4; si++) {
        cap c;
        capture(scenes[si], &c);
        CHECK(c.n >= 1);
        for (int i = 0; i < c.n && i < 2; i++) {
            ncp_error err = {0};
            const ncp_problem *p = &c.probs[i];
            ncp_problem q;
            other_a(p, &q, &err);
            sparse_native += p->has_sparse_primal;
            const ncp_problem *pd = p->has_primal ? p : &q, *ps = p->has_primal ? &q : p;
            CHECK(pd->has_primal && !ps->has_primal && ps->has_sparse_primal);
            CHECK_OK(ncp_subadmm_check_structure(ps, 1e-8, &err), &err);
            size_t m = (size_t)p->m, n = (size_t)p->nv;
            double *l1 = calloc(m, sizeof(double)), *l2 = calloc(m, sizeof(double));
            double *v1 = calloc(n, sizeof(double)), *v2 = calloc(n, sizeof(double));
            CHECK(l1 && l2 && v1 && v2);
            for (int ci = 0; ci < 2 && l1 && l2 && v1 && v2; ci++)
                for (int k = 0; k < 3; k++)
                    for (int warm = 0; warm < 2; warm++) {
                        ncp_subadmm_stats s1, s2;
                        const double *l0 = warm ? p->guess_lambda : NULL;
                        const double *v0 = warm ? p->guess_v : NULL;
                        CHECK_OK(ncp_subadmm_run(cfgs[ci], pd, NULL, l0, v0, iters[k], l1, v1,
                                                 &s1, &err), &err);
                        CHECK_OK(ncp_subadmm_run(cfgs[ci], ps, NULL, l0, v0, iters[k], l2, v2,
                                                 &s2, &err), &err);
                        CHECK(s1.iterations == s2.iterations && s1.status == s2.status);
                        CHECK(s1.beta == s2.beta && s1.beta_updates == s2.beta_updates);
                        CHECK(memcmp(l1, l2, m * sizeof(double)) == 0);
                        CHECK(memcmp(v1, v2, n * sizeof(double)) == 0);
                        compared++;
                    }
            ncp_error e2 = {0};
            if (l1 && v1)
                CHECK(ncp_subadmm_run(C_NOSUB, ps, NULL, NULL, NULL, 1, l1, v1, NULL, &e2) ==
                      NCP_ERR_INPUT);
            CHECK(strstr(e2.msg, "--primal dense") != NULL);
            free(l1);
            free(l2);
            free(v1);
            free(v2);
            ncp_problem_free(&q);
        }
        cap_free(&c);
    }
    CHECK(compared >= 7 * 12);
    printf("A dense vs block-sparse: %d runs bit for bit equal (%d captures kept A sparse)\n",
           compared, sparse_native);
}

int main(void)
{
    S_SUB = ncp_solver_find("subadmm");
    S_NOSUB = ncp_solver_find("admm-nosub");
    S_NOBODY = ncp_solver_find("admm-nobody");
    S_NSN = ncp_solver_find("nsn-nm");
    S_CANAL = ncp_solver_find("canal");
    CHECK(S_SUB && S_NOSUB && S_NOBODY && S_NSN && S_CANAL);
    if (!S_SUB || !S_NOSUB || !S_NOBODY || !S_NSN || !S_CANAL) return tcheck_exit("subadmm");
    /* the configurations name the registered solvers */
    CHECK(C_SUB->desc == S_SUB && C_NOSUB->desc == S_NOSUB && C_NOBODY->desc == S_NOBODY);
    test_reference();
    test_same_iterates();
    test_threads();
    test_residuals();
    test_roundoff_guard();
    test_beta0();
    test_scale_free();
    test_spchol();
#ifdef NCP_HAVE_CHOLMOD
    test_spchol_ordering();
#endif
    test_nosub_sparse();
    test_warm_and_budgets();
    test_bad_input();
    test_scene_structures();
    test_agreement();
    test_sparse_a();
    return tcheck_exit("subadmm");
}
