/* Cross-check of what we read from FCLib files against Siconos numerics 4.4 (Acary, Brémond,
 * Huber 2018) reading the same files. Built only with -Dsiconos (tests/meson.build).
 *
 * Debian's Siconos 4.4 is built without FCLib (SiconosConfig.h leaves WITH_FCLIB undefined and
 * libsiconos_numerics exports none of from_fclib_global, globalFrictionContact_fclib_read,
 * frictionContact_fclib_read): its problems are built here from each file read independently of
 * our reader by libfclib's (fclib_read_global, fclib_read_local), the way Siconos's own
 * from_fclib_global lays them out when it is built with FCLib: M and H as NM_SPARSE matrices
 * (triplets with i = rows and p = columns, or CSC; a CSR file, which that reader refuses, is
 * handed over in triplets: the same entries), Siconos's q = f and b = w, mu as stored, and no G
 * (Siconos's GlobalFrictionContactProblem has no equality rows: its reader drops G and b).
 *
 *   (a) global files (libfclib's writer in triplet, CSC and CSR storage, with a block M whose
 *       blocks are dense and two of them coupled, and with a diagonal M; one file with G;
 *       Box_Stacks from the samples when present): our D and v_f (ncp_load_problems: M
 *       factorised by blocks) equal the W and q of Siconos's
 *       globalFrictionContact_reformulation_FrictionContact (W = H^T M^-1 H, q = H^T M^-1 f + w,
 *       through its sparse LU inverse of M) to max |ours - Siconos| <= 1e-12 max |Siconos|.
 *       Rows are mapped by contact: Siconos's contact c (rows 3c..3c+2) is our c-th contact
 *       block. Without G our rows are exactly Siconos's (checked: block c is a contact at row 3c);
 *       with G our bilateral rows come first (checked) and the contact-contact part of D is what
 *       Siconos computes without G. mu agrees exactly.
 *   (b) local files (libfclib's writer in the three storages, symmetric and non-symmetric W;
 *       Capsules when present): our D and v_f equal libfclib's W and q as stored (1e-12).
 *   (c) every file of (a) without G and of (b): a few sweeps of Siconos's own fc3d NSGS (its
 *       defaults, a fixed iteration count, tolerance DBL_MIN so it does not stop early) on
 *       Siconos's local problem (the reformulation of (a), or W, q, mu of (b)) from r = 0 give
 *       an unconverged r; its error by fc3d_compute_error (the natural map's norm divided by
 *       max(|q|, |r|, |u|), Siconos >= 4.4) equals our natural_map_abs at lambda = r (our row
 *       order), divided by the same normalisation of our own v_f, lambda and u = D lambda + v_f,
 *       and our natural_map_rel_siconos column, to 1e-10 relative; and testutil's independent
 *       natural map agrees with natural_map_abs. A file with G is left out of (c): Siconos's
 *       problem lacks its rows, so the two natural maps are of different problems.
 *
 * Siconos runs in this process (solvers/siconos.c forks it for the benchmark; a test has no
 * budget to protect). Everything allocated here is freed, through Siconos's own functions for
 * its objects (globalFrictionContact_free, frictionContactProblem_free, solver_options_delete);
 * what Siconos leaks inside its reformulation is suppressed for LeakSanitizer below, and
 * nothing else (NSGS and fc3d_compute_error leak nothing). Siconos's fatal errors
 * (numerics_error, otherwise abort()) are caught with its external jump buffer and become
 * failed checks with its message. The sample directory is NCP_FCLIB_SAMPLES when set, else the
 * one test_fclib_read.c reads; absent, that part prints "skipped". */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fclib.h>

#include <FrictionContactProblem.h>

#include "solvers/siconos.h"
#include <Friction_cst.h>
#include <GlobalFrictionContactProblem.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <NumericsSparseMatrix.h>
#include <SolverOptions.h>
#include <fc3d_compute_error.h>
#include <sn_error_handling.h>

#include "core/la.h"
#include "metrics/metrics.h"
#include "store/store.h"
#include "fclib_testutil.h"
#include "tcheck.h"
#include "testutil.h"

/* LeakSanitizer suppression, for the ASan builds (scripts/test.sh; both hooks are unused
 * otherwise). Debian's Siconos 4.4 leaks inside globalFrictionContact_reformulation_FrictionContact
 * on sparse input: by their sizes and allocators, its n-double scratch for M^-1 f and three
 * NumericsMatrix structs per call (M^-1, M^-1 H and H^T of its sparse path) with their CSparse
 * arrays; none is returned, so the caller cannot free them (about 10 MB for Box_Stacks, 0.1 MB
 * for the other files). The suppression names that function only: a block is ignored only when
 * it was allocated under it; every other leak (ours, or Siconos's anywhere else) is still
 * reported. That frame is seen only by the slow unwinder: Debian builds libsiconos_numerics
 * without frame pointers, and the default fast stacks of those blocks stop one frame above the
 * allocator. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:globalFrictionContact_reformulation_FrictionContact\n";
}
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "fast_unwind_on_malloc=0"; }

/* The largest differences measured over all files, printed at the end. */
typedef struct xc_max {
    double D, vf, err;
    int nglobal, nlocal, nerr;
} xc_max;

/* ---------- files ---------- */

static void path_in(const char *dir, const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", dir, name);
    unlink(buf); /* fclib_write_* refuse to add a group to an existing file's group */
}

static int load_one(const char *path, ncp_problem **q)
{
    ncp_error err = {0};
    int n = 0;
    *q = NULL;
    int rc = ncp_load_problems(path, q, &n, &err);
    if (!rc && n == 1) rc = ncp_problem_need_dual(*q, &err); /* D, as the checks compare it */
    CHECK_OK(rc, &err);
    if (rc) return rc;
    CHECK(n == 1);
    if (n != 1) {
        ncp_problems_free(*q, n);
        *q = NULL;
        return -1;
    }
    return 0;
}

/* ---------- Siconos's problems from libfclib's reading ---------- */

/* Siconos's NM_SPARSE matrix of an FCLib matrix, with the origin Siconos's from_fclib_global
 * gives it (triplet or CSC; CSR as triplets, see the header). The entries go in through
 * NM_entry (duplicates of a triplet file stay duplicates, as in Siconos's reader). NULL if
 * Siconos cannot allocate it. */
static NumericsMatrix *sic_sparse(const struct fclib_matrix *A)
{
    NumericsMatrix *S = NM_create(NM_SPARSE, A->m, A->n);
    if (!S) return NULL;
    int nnz = A->nz >= 0 ? A->nz : A->p[A->nz == -1 ? A->n : A->m];
    NM_triplet_alloc(S, nnz > 0 ? nnz : 1);
    if (!S->matrix2 || !S->matrix2->triplet) {
        NM_clear(S);
        free(S);
        return NULL;
    }
    if (A->nz >= 0) { /* i = rows, p = columns (CSparse's and Siconos's layout) */
        for (int k = 0; k < A->nz; k++) NM_entry(S, A->i[k], A->p[k], A->x[k]);
    } else if (A->nz == -1) {
        for (int j = 0; j < A->n; j++)
            for (int k = A->p[j]; k < A->p[j + 1]; k++) NM_entry(S, A->i[k], j, A->x[k]);
    } else {
        for (int r = 0; r < A->m; r++)
            for (int k = A->p[r]; k < A->p[r + 1]; k++) NM_entry(S, r, A->i[k], A->x[k]);
    }
    if (A->nz == -1) {
        /* a CSC file is CSC for Siconos: compress, keep only that */
        if (!NM_csc(S)) {
            NM_clear(S);
            free(S);
            return NULL;
        }
        NM_clearTriplet(S);
        S->matrix2->origin = NSM_CSC;
    }
    return S;
}

static double *dup_vec(int n, const double *v)
{
    double *c = malloc(sizeof(double) * ((size_t)n + 1));
    if (c && n > 0) memcpy(c, v, sizeof(double) * (size_t)n);
    return c;
}

/* Siconos's global problem of libfclib's reading g (q = f, b = w; G dropped). */
static GlobalFrictionContactProblem *sic_global(const struct fclib_global *g)
{
    GlobalFrictionContactProblem *gp = globalFrictionContactProblem_new();
    if (!gp) return NULL;
    const int nc = g->H->n / 3;
    gp->dimension = 3;
    gp->numberOfContacts = nc;
    gp->M = sic_sparse(g->M);
    gp->H = sic_sparse(g->H);
    gp->q = dup_vec(g->M->m, g->f);
    gp->b = dup_vec(3 * nc, g->w);
    gp->mu = dup_vec(nc, g->mu);
    if (!gp->M || !gp->H || !gp->q || !gp->b || !gp->mu) {
        globalFrictionContact_free(gp);
        return NULL;
    }
    return gp;
}

/* Siconos's local problem of libfclib's reading l: W dense (column-major, duplicates summed),
 * q and mu copied; Siconos owns them. */
static FrictionContactProblem *sic_local(const struct fclib_local *l)
{
    const int n = l->W->m, nc = n / 3;
    double *W = fc_dense(l->W), *q = dup_vec(n, l->q), *mu = dup_vec(nc, l->mu);
    return ncp_siconos_problem_take(n, W, q, mu);
}

/* globalFrictionContact_reformulation_FrictionContact under Siconos's external jump buffer. */
static FrictionContactProblem *sic_reformulate(GlobalFrictionContactProblem *gp)
{
    if (setjmp(*sn_get_jmp_buf())) {
        fprintf(stderr, "  Siconos fatal error in the reformulation: %s\n", sn_fatal_error_msg());
        return NULL;
    }
    FrictionContactProblem *lp = globalFrictionContact_reformulation_FrictionContact(gp);
    sn_release_jmp_buf();
    return lp;
}

/* Dense column-major copy of Siconos's W (n x n, any storage). 0 on success. */
static int sic_dense(NumericsMatrix *W, int n, double *out)
{
    if (W->storageType == NM_DENSE) {
        memcpy(out, W->matrix0, sizeof(double) * (size_t)n * (size_t)n);
        return 0;
    }
    NumericsMatrix *B = NM_create(NM_DENSE, n, n);
    if (!B) return -1;
    int rc = NM_to_dense(W, B);
    if (!rc) memcpy(out, B->matrix0, sizeof(double) * (size_t)n * (size_t)n);
    NM_clear(B);
    free(B);
    return rc;
}

/* iters sweeps of Siconos's NSGS (its defaults) from r = 0 into r (v: velocity scratch).
 * Returns Siconos's info (non-zero: not converged, expected here), or -100 after a fatal
 * error. */
static int sic_nsgs(FrictionContactProblem *fp, int iters, double *r, double *v)
{
    SolverOptions *o = solver_options_create(SICONOS_FRICTION_3D_NSGS);
    if (!o) return -100;
    o->iparam[SICONOS_IPARAM_MAX_ITER] = iters;
    o->dparam[SICONOS_DPARAM_TOL] = DBL_MIN; /* the iteration count alone ends the run */
    int info;
    if (setjmp(*sn_get_jmp_buf())) {
        fprintf(stderr, "  Siconos fatal error in NSGS: %s\n", sn_fatal_error_msg());
        info = -100;
    } else {
        info = fc3d_driver(fp, r, v, o);
        sn_release_jmp_buf();
    }
    ncp_siconos_options_free(o);
    return info;
}

/* ---------- the checks ---------- */

/* Our contact blocks in order (their block indices in cb, cap entries at most); the number of
 * contact blocks. */
static int contact_blocks(const ncp_problem *p, int *cb, int cap)
{
    int nc = 0;
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].type == NCP_CONTACT) {
            if (nc < cap) cb[nc] = b;
            nc++;
        }
    return nc;
}

/* (a)/(b): our D, v_f, mu against Siconos's W, q, mu (its contact c = our contact block c).
 * nbil: the equality rows the file has (G's columns), which come first in ours. */
static void check_dual(const char *what, const ncp_problem *p, FrictionContactProblem *fp,
                       int nbil, xc_max *mx, int global)
{
    const int nc = fp->numberOfContacts, n = 3 * nc;
    int *cb = malloc(sizeof(int) * ((size_t)nc + 1)), *cr = malloc(sizeof(int) * ((size_t)nc + 1));
    double *W = malloc(sizeof(double) * ((size_t)n * (size_t)n + 1));
    CHECK(cb && cr && W);
    if (!cb || !cr || !W) goto out;
    CHECK(fp->dimension == 3);
    CHECK(p->ncontacts == nc && p->m == n + nbil);
    CHECK(contact_blocks(p, cb, nc) == nc);
    if (p->ncontacts != nc || p->m != n + nbil) goto out;
    for (int c = 0; c < nc; c++) cr[c] = p->blocks[cb[c]].row;
    /* the row order: contact c at row nbil + 3c (nbil = 0: Siconos's rows exactly), the
     * equality rows before */
    int order_ok = 1;
    for (int c = 0; c < nc; c++) order_ok &= cr[c] == nbil + 3 * c;
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].type != NCP_CONTACT)
            order_ok &= p->blocks[b].type == NCP_BILATERAL && p->blocks[b].row < nbil;
    CHECK(order_ok);
    for (int c = 0; c < nc; c++) CHECK(p->blocks[cb[c]].mu == fp->mu[c]);
    int rc = sic_dense(fp->M, n, W);
    CHECK(rc == 0);
    if (rc) goto out;
    double dmax = 0, wmax = maxabs((size_t)n * n, W), qmax = maxabs((size_t)n, fp->q), vmax = 0;
    for (int cj = 0; cj < nc; cj++)
        for (int b = 0; b < 3; b++) {
            const double *col = p->D + (size_t)(cr[cj] + b) * (size_t)p->m;
            const double *wcol = W + (size_t)(3 * cj + b) * (size_t)n;
            for (int ci = 0; ci < nc; ci++)
                for (int a = 0; a < 3; a++)
                    dmax = fmax(dmax, fabs(col[cr[ci] + a] - wcol[3 * ci + a]));
            vmax = fmax(vmax, fabs(p->vf[cr[cj] + b] - fp->q[3 * cj + b]));
        }
    double dr = dmax / fmax(wmax, DBL_MIN), vr = vmax / fmax(qmax, DBL_MIN);
    printf("  %-34s %s nc %4d: max|D - W|/max|W| %.2e, max|v_f - q|/max|q| %.2e\n", what,
           global ? "global" : "local ", nc, dr, vr);
    CHECK(wmax > 0 && qmax > 0);
    CHECK(dr <= 1e-12);
    CHECK(vr <= 1e-12);
    mx->D = fmax(mx->D, dr);
    mx->vf = fmax(mx->vf, vr);
    *(global ? &mx->nglobal : &mx->nlocal) += 1;
out:
    free(cb);
    free(cr);
    free(W);
}

/* (c): Siconos's error of a few NSGS sweeps against our natural map (p contact-only, rows as
 * Siconos's: checked by check_dual). */
static void check_error(const char *what, const ncp_problem *p, FrictionContactProblem *fp,
                        int iters, xc_max *mx)
{
    const int n = 3 * fp->numberOfContacts;
    if (p->m != n) return; /* check_dual failed already */
    double *r = calloc((size_t)n + 1, sizeof(double));
    double *v = calloc((size_t)n + 1, sizeof(double));
    double *u = calloc((size_t)n + 1, sizeof(double));
    ncp_metrics_ws *ws = NULL;
    ncp_error err = {0};
    CHECK(r && v && u);
    if (!r || !v || !u) goto out;
    int info = sic_nsgs(fp, iters, r, v);
    CHECK(info != -100);
    if (info == -100) goto out;
    double qn = ncp_norm2(n, fp->q), sic = NAN;
    /* Siconos returns 1 when its error exceeds the tolerance given (DBL_MIN: unconverged) */
    CHECK(fc3d_compute_error(fp, r, v, DBL_MIN, NULL, qn, &sic) == 1);
    /* ours, at lambda = r (our rows are Siconos's: check_dual) */
    int rc = ncp_metrics_ws_create(p, &ws, &err);
    CHECK_OK(rc, &err);
    if (rc) goto out;
    ncp_metrics mt;
    rc = ncp_metrics_eval(ws, r, &mt, &err);
    CHECK_OK(rc, &err);
    if (rc) goto out;
    ncp_copy(n, p->vf, u);
    ncp_gemv(0, n, n, 1.0, p->D, r, 1.0, u);
    double scale = fmax(ncp_norm2(n, p->vf), fmax(ncp_norm2(n, r), ncp_norm2(n, u)));
    double ours = mt.natural_map_abs / scale;
    double e1 = fabs(sic - ours) / sic, e2 = fabs(sic - mt.natural_map_rel_siconos) / sic;
    double ref = tutil_ref_natural_map(p, r, 0);
    double e3 = fabs(ref - mt.natural_map_abs) / mt.natural_map_abs;
    printf("  %-34s NSGS %3d sweeps (info %d): Siconos error %.6e, ours %.6e, rel diff %.2e "
           "(natural_map_rel_siconos %.2e, reference natural map %.2e)\n",
           what, iters, info, sic, ours, e1, e2, e3);
    CHECK(sic > 1e-8); /* an unconverged iterate: the comparison is not of two round-offs */
    CHECK(e1 <= 1e-10);
    CHECK(e2 <= 1e-10);
    CHECK(e3 <= 1e-10);
    mx->err = fmax(mx->err, fmax(e1, e2));
    mx->nerr++;
out:
    ncp_metrics_ws_free(ws);
    free(r);
    free(v);
    free(u);
}

/* (a) and (c) for one global file; iters <= 0 skips (c). */
static void global_file(const char *what, const char *path, int iters, xc_max *mx)
{
    struct fclib_global *g = fclib_read_global(path);
    CHECK(g != NULL);
    if (!g) return;
    ncp_problem *p = NULL;
    GlobalFrictionContactProblem *gp = sic_global(g);
    CHECK(gp != NULL);
    FrictionContactProblem *lp = gp ? sic_reformulate(gp) : NULL;
    CHECK(lp != NULL);
    if (lp && load_one(path, &p) == 0) {
        CHECK(lp->numberOfContacts == g->H->n / 3);
        int nbil = g->G ? g->G->n : 0;
        check_dual(what, p, lp, nbil, mx, 1);
        if (iters > 0 && nbil == 0) check_error(what, p, lp, iters, mx);
        ncp_problems_free(p, 1);
    }
    if (lp) frictionContactProblem_free(lp);
    if (gp) globalFrictionContact_free(gp);
    fclib_delete_global(g);
    free(g);
}

/* (b) and (c) for one local file. */
static void local_file(const char *what, const char *path, int iters, xc_max *mx)
{
    struct fclib_local *l = fclib_read_local(path);
    CHECK(l != NULL);
    if (!l) return;
    ncp_problem *p = NULL;
    FrictionContactProblem *fp = sic_local(l);
    CHECK(fp != NULL);
    if (fp && load_one(path, &p) == 0) {
        check_dual(what, p, fp, 0, mx, 0);
        check_error(what, p, fp, iters, mx);
        ncp_problems_free(p, 1);
    }
    if (fp) frictionContactProblem_free(fp);
    fclib_delete_local(l);
    free(l);
}

/* ---------- problems written through libfclib ---------- */

/* A global problem, dense column-major: M (nv x nv, SPD), H (nv x 3 nc), f, w, mu and, when
 * nbil > 0, G (nv x nbil) and b. */
typedef struct xc_global {
    int nv, nc, nbil;
    double *M, *H, *f, *w, *mu, *G, *b;
} xc_global;

static void xc_global_free(xc_global *s)
{
    free(s->M);
    free(s->H);
    free(s->f);
    free(s->w);
    free(s->mu);
    free(s->G);
    free(s->b);
}

static double unif(trng *r, double lo, double hi) { return lo + (hi - lo) * trng_uniform(r); }

/* kind 0: three bodies of 6 DOFs, each block G G^T + (1 + b) I with G random (dense blocks),
 * bodies 1 and 2 coupled by a rank-one term c c^T supported on both (an off-diagonal block, so
 * M's pattern has one component of 12 DOFs); 4 contacts, contact k between bodies k mod 3 and
 * (k + 1) mod 3. kind 1: a diagonal M of 12 DOFs, 3 contacts with dense H columns. f and w in
 * [-1, 1], except that the even contacts close (q_n < 0), so that Siconos's NSGS has work to do
 * (with every q_n >= 0 its driver returns r = 0 without iterating). */
static int xc_global_make(xc_global *s, int kind, int nbil, uint64_t stream)
{
    trng r = {stream};
    memset(s, 0, sizeof *s);
    s->nv = kind == 0 ? 18 : 12;
    s->nc = kind == 0 ? 4 : 3;
    s->nbil = nbil;
    const int nv = s->nv, mc = 3 * s->nc;
    s->M = calloc((size_t)nv * nv, sizeof(double));
    s->H = calloc((size_t)nv * mc, sizeof(double));
    s->f = calloc((size_t)nv, sizeof(double));
    s->w = calloc((size_t)mc, sizeof(double));
    s->mu = calloc((size_t)s->nc, sizeof(double));
    s->G = nbil ? calloc((size_t)nv * nbil, sizeof(double)) : NULL;
    s->b = nbil ? calloc((size_t)nbil, sizeof(double)) : NULL;
    if (!s->M || !s->H || !s->f || !s->w || !s->mu || (nbil && (!s->G || !s->b))) return -1;
    if (kind == 0) {
        for (int bd = 0; bd < 3; bd++) {
            double Gb[36];
            for (int k = 0; k < 36; k++) Gb[k] = unif(&r, -0.5, 0.5);
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) {
                    double acc = i == j ? 1.0 + bd : 0.0;
                    for (int k = 0; k < 6; k++) acc += Gb[i + 6 * k] * Gb[j + 6 * k];
                    s->M[(6 * bd + i) + (size_t)(6 * bd + j) * nv] = acc;
                }
        }
        double c[18] = {0};
        for (int i = 6; i < 18; i++) c[i] = unif(&r, -0.5, 0.5);
        for (int i = 6; i < 18; i++)
            for (int j = 6; j < 18; j++) s->M[i + (size_t)j * nv] += c[i] * c[j];
        for (int k = 0; k < s->nc; k++) {
            int b0 = k % 3, b1 = (k + 1) % 3;
            for (int a = 0; a < 3; a++)
                for (int d = 0; d < 6; d++) {
                    s->H[(6 * b0 + d) + (size_t)(3 * k + a) * nv] = unif(&r, -0.5, 0.5);
                    s->H[(6 * b1 + d) + (size_t)(3 * k + a) * nv] = unif(&r, -0.5, 0.5);
                }
        }
    } else {
        for (int i = 0; i < nv; i++) s->M[i + (size_t)i * nv] = unif(&r, 0.5, 2.5);
        for (size_t k = 0; k < (size_t)nv * mc; k++) s->H[k] = unif(&r, -0.5, 0.5);
    }
    for (int i = 0; i < nv; i++) s->f[i] = unif(&r, -1.0, 1.0);
    for (int k = 0; k < mc; k++) s->w[k] = unif(&r, -1.0, 1.0);
    for (int k = 0; k < s->nc; k++) s->mu[k] = unif(&r, 0.2, 0.8);
    /* even contacts closing: their w_n moved so that q_n = (H^T M^-1 f + w)_n < 0 */
    double *W = malloc(sizeof(double) * (size_t)mc * mc), *q = malloc(sizeof(double) * mc);
    if (!W || !q) {
        free(W);
        free(q);
        return -1;
    }
    local_from_global(nv, mc, s->M, s->H, s->f, s->w, W, q);
    for (int k = 0; k < s->nc; k += 2) s->w[3 * k] += -unif(&r, 0.2, 1.0) - q[3 * k];
    free(W);
    free(q);
    /* equality rows on body 0's DOFs (kind 0) or the first six (kind 1) */
    for (int j = 0; j < nbil; j++) {
        for (int d = 0; d < 6; d++) s->G[d + (size_t)j * nv] = unif(&r, -0.5, 0.5);
        s->b[j] = unif(&r, -0.1, 0.1);
    }
    return 0;
}

/* Writes s through libfclib in the given storage (triplets with one entry split in two halves,
 * a duplicate both readers must sum). */
static void xc_global_write(const xc_global *s, int storage, const char *path)
{
    const int mc = 3 * s->nc;
    struct fclib_matrix M = fc_from_dense(s->nv, s->nv, s->M, storage, 1);
    struct fclib_matrix H = fc_from_dense(s->nv, mc, s->H, storage, 0);
    struct fclib_matrix G;
    memset(&G, 0, sizeof G);
    if (s->nbil) G = fc_from_dense(s->nv, s->nbil, s->G, storage, 0);
    struct fclib_global g;
    memset(&g, 0, sizeof g);
    g.M = &M;
    g.H = &H;
    g.G = s->nbil ? &G : NULL;
    g.f = s->f;
    g.w = s->w;
    g.b = s->nbil ? s->b : NULL;
    g.mu = s->mu;
    g.spacedim = 3;
    CHECK(fclib_write_global(&g, path) == 1);
    fc_free(&M);
    fc_free(&H);
    if (s->nbil) fc_free(&G);
}

/* Writes W = H^T M^-1 H (plus skew * a skew-symmetric part: a non-symmetric W, as Siconos
 * writes some) and q = H^T M^-1 f + w of s as a local problem. */
static void xc_local_write(const xc_global *s, int storage, double skew, const char *path)
{
    const int mc = 3 * s->nc;
    double *W = malloc(sizeof(double) * (size_t)mc * mc), *q = malloc(sizeof(double) * mc);
    CHECK(W && q);
    if (W && q) {
        local_from_global(s->nv, mc, s->M, s->H, s->f, s->w, W, q);
        trng r = {0x5c0e11u};
        for (int j = 0; j < mc; j++)
            for (int i = 0; i < j; i++) {
                double k = skew * unif(&r, -1.0, 1.0);
                W[i + (size_t)j * mc] += k;
                W[j + (size_t)i * mc] -= k;
            }
        struct fclib_matrix Wm = fc_from_dense(mc, mc, W, storage, 1);
        struct fclib_local l;
        memset(&l, 0, sizeof l);
        l.W = &Wm;
        l.q = q;
        l.mu = s->mu;
        l.spacedim = 3;
        CHECK(fclib_write_local(&l, path) == 1);
        fc_free(&Wm);
    }
    free(W);
    free(q);
}

static const char *storage_name(int storage)
{
    return storage == -1 ? "csc" : storage == -2 ? "csr" : "triplet";
}

static void test_written(const char *dir, xc_max *mx)
{
    static const int storages[3] = {0, -1, -2};
    char path[512], what[64];
    for (int kind = 0; kind < 2; kind++) {
        xc_global s;
        int rc = xc_global_make(&s, kind, 0, 0x5c0e00u + (uint64_t)kind);
        CHECK(rc == 0);
        for (int k = 0; !rc && k < 3; k++) {
            snprintf(what, sizeof what, "%s M, %s", kind ? "diagonal" : "block",
                     storage_name(storages[k]));
            path_in(dir, "global.hdf5", path, sizeof path);
            xc_global_write(&s, storages[k], path);
            global_file(what, path, 2, mx);
            if (kind == 0) { /* local files from the same data */
                for (int sk = 0; sk < 2; sk++) {
                    snprintf(what, sizeof what, "local W%s, %s", sk ? " non-symmetric" : "",
                             storage_name(storages[k]));
                    path_in(dir, "local.hdf5", path, sizeof path);
                    xc_local_write(&s, storages[k], sk ? 0.05 : 0.0, path);
                    local_file(what, path, 2, mx);
                }
            }
        }
        xc_global_free(&s);
    }
    /* equality rows: ours first, Siconos without them */
    xc_global s;
    int rc = xc_global_make(&s, 0, 2, 0x5c0e02u);
    CHECK(rc == 0);
    if (!rc) {
        path_in(dir, "global_G.hdf5", path, sizeof path);
        xc_global_write(&s, -1, path);
        global_file("block M with G (2 rows), csc", path, 0, mx);
    }
    xc_global_free(&s);
}

static void test_samples(xc_max *mx)
{
    const char *sd = getenv("NCP_FCLIB_SAMPLES");
    if (!sd) sd = "/work/shared/fclib-samples";
    struct stat sb;
    if (stat(sd, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        printf("samples: %s absent, skipped\n", sd);
        return;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/Box_Stacks-i0122-82-5.hdf5", sd);
    if (access(path, R_OK) == 0) global_file("Box_Stacks", path, 10, mx);
    else printf("samples: %s absent, skipped\n", path);
    snprintf(path, sizeof path, "%s/Capsules-i125-1213.hdf5", sd);
    if (access(path, R_OK) == 0) local_file("Capsules", path, 10, mx);
    else printf("samples: %s absent, skipped\n", path);
}

int main(void)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/ncp_test_siconos_xcheck_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    xc_max mx = {0, 0, 0, 0, 0, 0};
    test_written(dir, &mx);
    test_samples(&mx);
    printf("max over %d global and %d local files: D %.2e, v_f %.2e (relative to max |W|, "
           "max |q|); error over %d files: %.2e\n",
           mx.nglobal, mx.nlocal, mx.D, mx.vf, mx.nerr, mx.err);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return tcheck_exit("siconos_xcheck");
}
