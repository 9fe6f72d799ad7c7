/* Reading FCLib files as their writers write them: libfclib's own writer in every storage
 * (triplet as CSparse lays it out, CSC, CSR), triplets written the way Siconos writes them
 * (i = rows, p = columns) and the other way round (p = rows, the fclib.h comment; used only
 * when it is the one reading in range), non-symmetric W, global problems whose M is kept
 * sparse (a 10^4-DOF diagonal M, a coupled block solved by CHOLMOD or refused without it),
 * /guesses, info strings, rolling-friction groups and malformed files. D of a global problem
 * is checked against a dense computation written here (Gaussian elimination, or the diagonal
 * formula D_ij = sum_k H_ki H_kj / M_kk), independent of src/core. Two sample files written by
 * Siconos (Box_Stacks, Capsules) are read when their directory exists (NCP_FCLIB_SAMPLES
 * overrides where it is looked for); otherwise that part prints "skipped". */
#include <fclib.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/sparse_chol.h"
#include "store/fclib_io.h"
#include "store/store.h"
#include "fclib_testutil.h"
#include "tcheck.h"
#include "testutil.h"

static char dir[256];

static void path_of(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
    unlink(buf); /* fclib_write_* refuse to add a group to an existing file's group */
}

/* Dense column-major copy of a CSR matrix, written here (not ncp_csr_to_dense). */
static double *csr_dense(const ncp_csr *S)
{
    double *A = calloc((size_t)S->m * S->n + 1, sizeof(double));
    for (int i = 0; i < S->m; i++)
        for (int k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) A[i + (size_t)S->col[k] * S->m] += S->val[k];
    return A;
}

/* A contact-only problem through libfclib's writer (info may be NULL). */
static void lib_write_global(const char *path, struct fclib_matrix *M, struct fclib_matrix *H,
                             double *f, double *w, double *mu, struct fclib_info *info)
{
    struct fclib_global G;
    memset(&G, 0, sizeof G);
    G.M = M;
    G.H = H;
    G.f = f;
    G.w = w;
    G.mu = mu;
    G.spacedim = 3;
    G.info = info;
    CHECK(fclib_write_global(&G, path) == 1);
}

static void lib_write_local(const char *path, struct fclib_matrix *W, double *q, double *mu)
{
    struct fclib_local L;
    memset(&L, 0, sizeof L);
    L.W = W;
    L.q = q;
    L.mu = mu;
    L.spacedim = 3;
    CHECK(fclib_write_local(&L, path) == 1);
}

static int load(const char *path, ncp_problem **q, ncp_error *err)
{
    int n = 0;
    *q = NULL;
    int rc = ncp_load_problems(path, q, &n, err);
    tutil_check_two_step_read(path, rc, err, *q, n); /* what MPI ranks read: the same */
    if (!rc && n != 1) {
        ncp_problems_free(*q, n);
        *q = NULL;
        return -1;
    }
    return rc;
}

static void expect_error(const char *path, const char *needle)
{
    ncp_error err = {0};
    ncp_problem *q = NULL;
    int rc = load(path, &q, &err);
    CHECK(rc == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, needle) != NULL);
    CHECK(strstr(err.msg, path) != NULL); /* every message names the file */
    if (rc != NCP_ERR_INPUT || !strstr(err.msg, needle))
        fprintf(stderr, "  expected \"%s\" in: [%d] %s\n", needle, rc, err.msg);
    if (!rc) ncp_problems_free(q, 1);
}

/* ---- raw HDF5 writing, as Siconos (or a damaged file) lays the data out ---- */

static hid_t raw_create(const char *path)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f >= 0);
    return f;
}

static void raw_group(hid_t f, const char *path)
{
    hid_t g = H5Gcreate2(f, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g >= 0);
    H5Gclose(g);
}

static void raw_int(hid_t f, const char *path, int v)
{
    hsize_t one = 1;
    CHECK(H5LTmake_dataset_int(f, path, 1, &one, &v) >= 0);
}

static void raw_ivec(hid_t f, const char *path, int n, const int *v)
{
    hsize_t d = (hsize_t)n;
    CHECK(H5LTmake_dataset_int(f, path, 1, &d, v) >= 0);
}

static void raw_dvec(hid_t f, const char *path, int n, const double *v)
{
    hsize_t d = (hsize_t)n;
    CHECK(H5LTmake_dataset_double(f, path, 1, &d, v) >= 0);
}

/* "gp/name" in b (256 bytes). */
static const char *at(char *b, const char *gp, const char *name)
{
    snprintf(b, 256, "%s/%s", gp, name);
    return b;
}

/* An FCLib matrix group with explicit arrays: np entries of p, ni of i and x. */
static void raw_matrix(hid_t f, const char *path, int m, int n, int nz, int nzmax, int np,
                       const int *p, int ni, const int *i, const double *x)
{
    char b[256];
    raw_group(f, path);
    raw_int(f, at(b, path, "nzmax"), nzmax);
    raw_int(f, at(b, path, "m"), m);
    raw_int(f, at(b, path, "n"), n);
    raw_int(f, at(b, path, "nz"), nz);
    raw_ivec(f, at(b, path, "p"), np, p);
    raw_ivec(f, at(b, path, "i"), ni, i);
    raw_dvec(f, at(b, path, "x"), ni, x);
}

/* Triplets of a dense column-major matrix: rows into *r, columns into *c (every non-zero). */
static int dense_triplets(int m, int n, const double *A, int **r, int **c, double **x)
{
    int k = 0;
    *r = malloc(sizeof(int) * ((size_t)m * n + 1));
    *c = malloc(sizeof(int) * ((size_t)m * n + 1));
    *x = malloc(sizeof(double) * ((size_t)m * n + 1));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            if (A[i + (size_t)j * m] != 0.0) {
                (*r)[k] = i;
                (*c)[k] = j;
                (*x)[k++] = A[i + (size_t)j * m];
            }
    return k;
}

/* A small global problem, dense: M block diagonal (two bodies of 3 DOFs and one of 2: an SPD
 * 8 x 8 with three blocks), H (8 x 6, two contacts), f, w, mu. */
typedef struct small_global {
    int nv, mc;
    double M[64], H[48], f[8], w[6], mu[2];
} small_global;

static void small_global_make(small_global *s, uint64_t seed)
{
    trng r = {seed};
    memset(s, 0, sizeof *s);
    s->nv = 8;
    s->mc = 6;
    int blk[3][2] = {{0, 3}, {3, 3}, {6, 2}};
    for (int b = 0; b < 3; b++) {
        int o = blk[b][0], n = blk[b][1];
        double G[9];
        for (int k = 0; k < n * n; k++) G[k] = trng_uniform(&r) - 0.5;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double acc = i == j ? 1.0 + b : 0.0;
                for (int k = 0; k < n; k++) acc += G[i + k * n] * G[j + k * n];
                s->M[(o + i) + (size_t)(o + j) * 8] = acc;
            }
    }
    /* contact 0 touches bodies 0 and 1, contact 1 bodies 1 and 2 */
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 6; k++) s->H[k + (size_t)c * 8] = trng_uniform(&r) - 0.5;
    for (int c = 3; c < 6; c++)
        for (int k = 3; k < 8; k++) s->H[k + (size_t)c * 8] = trng_uniform(&r) - 0.5;
    for (int k = 0; k < 8; k++) s->f[k] = trng_uniform(&r) - 0.5;
    for (int k = 0; k < 6; k++) s->w[k] = trng_uniform(&r) - 0.5;
    s->mu[0] = 0.3;
    s->mu[1] = 0.7;
}

static void check_small_global_dual(const ncp_problem *q, const small_global *s);

/* The loaded problem is the small global problem: sparse primal data equal to M, H, f, w (J =
 * H^T, A_sparse = M, no dense A) and D, v_f equal to the dense condensation done here. */
static void check_small_global(const ncp_problem *q0, const small_global *s)
{
    /* read with v_f (and without D unless the file holds fclib_local: D is built on demand,
     * core/problem.h), then D as a consumer builds it */
    CHECK(q0->vf != NULL);
    ncp_problem view;
    double *own = NULL;
    ncp_error e = {0};
    CHECK(ncp_problem_dual_view(q0, &view, &own, &e) == NCP_OK);
    const ncp_problem *q = &view;
    check_small_global_dual(q, s);
    free(own);
}

static void check_small_global_dual(const ncp_problem *q, const small_global *s)
{
    int nv = s->nv, mc = s->mc;
    CHECK(q->nv == nv && q->m == mc && q->ncontacts == 2);
    CHECK(q->has_sparse_primal == 1 && q->has_primal == 0 && q->A == NULL);
    CHECK(q->has_dual && q->dual_symmetric == 1);
    if (!q->has_sparse_primal || q->nv != nv || q->m != mc) return;
    double *M = csr_dense(&q->A_sparse), *J = csr_dense(&q->J);
    CHECK(maxdiff((size_t)nv * nv, M, s->M) == 0.0);
    for (int i = 0; i < mc; i++)
        for (int k = 0; k < nv; k++) CHECK(J[i + (size_t)k * mc] == s->H[k + (size_t)i * nv]); /* J = H^T */
    CHECK(maxdiff((size_t)nv, q->b, s->f) == 0.0);
    CHECK(maxdiff((size_t)mc, q->e, s->w) == 0.0);
    CHECK(q->blocks[0].mu == 0.3 && q->blocks[1].mu == 0.7);
    double W[36], qv[6];
    local_from_global(nv, mc, s->M, s->H, s->f, s->w, W, qv);
    CHECK(maxdiff(36, q->D, W) <= 1e-12 * maxabs(36, W));
    CHECK(maxdiff(6, q->vf, qv) <= 1e-12 * fmax(1.0, maxabs(6, qv)));
    free(M);
    free(J);
}

/* ---- libfclib's writer, every storage ---- */

static void test_libfclib_global(int storage)
{
    small_global s;
    small_global_make(&s, 100 + (uint64_t)(storage + 2));
    struct fclib_matrix Mm = fc_from_dense(s.nv, s.nv, s.M, storage, 0);
    struct fclib_matrix Hm = fc_from_dense(s.nv, s.mc, s.H, storage, 0);
    struct fclib_info info = {"small global", "three bodies, two contacts", "none"};
    char path[512];
    path_of(path, sizeof path, "lib_global.hdf5");
    lib_write_global(path, &Mm, &Hm, s.f, s.w, s.mu, &info);
    /* a warm start: fclib_write_guesses sizes it from the problem in the file */
    double r[6] = {1, 2, 3, 4, 5, 6}, u[6] = {0}, v[8] = {8, 7, 6, 5, 4, 3, 2, 1};
    struct fclib_solution guess = {v, u, r, NULL};
    CHECK(fclib_write_guesses(1, &guess, path) == 1);
    ncp_error err = {0};
    ncp_problem *q;
    CHECK_OK(load(path, &q, &err), &err);
    if (q) {
        check_small_global(q, &s);
        CHECK(q->title && !strcmp(q->title, "small global"));
        CHECK(q->description && !strcmp(q->description, "three bodies, two contacts"));
        CHECK(q->guess_lambda && q->guess_v);
        if (q->guess_lambda) CHECK(maxdiff(6, q->guess_lambda, r) == 0.0);
        if (q->guess_v) CHECK(maxdiff(8, q->guess_v, v) == 0.0);
        /* three blocks of M: 3, 3 and 2 DOFs */
        CHECK(q->provenance_note && strstr(q->provenance_note, "3 blocks (largest block 3 DOFs"));
        if (storage == 0)
            CHECK(q->provenance_note && strstr(q->provenance_note, "/fclib_global/H: triplets read with i = rows"));
        ncp_problems_free(q, 1);
    }
    fc_free(&Mm);
    fc_free(&Hm);
}

/* A non-symmetric W whose lower triangle, mirrored, has a negative eigenvalue: W = I + K with K
 * skew (2, -2): the symmetric part is I. */
static const double W_skew[9] = {1, -2, 0, 2, 1, 0, 0, 0, 1};

static void test_libfclib_local(int storage)
{
    struct fclib_matrix Wm = fc_from_dense(3, 3, W_skew, storage, 0);
    double q[3] = {-1, 0.5, 0.25}, mu[1] = {0.5};
    char path[512];
    path_of(path, sizeof path, "lib_local.hdf5");
    lib_write_local(path, &Wm, q, mu);
    double r[3] = {1, 0.1, -0.1}, u[3] = {0};
    struct fclib_solution guess = {NULL, u, r, NULL};
    CHECK(fclib_write_guesses(1, &guess, path) == 1);
    ncp_error err = {0};
    ncp_problem *p;
    CHECK_OK(load(path, &p, &err), &err);
    if (p) {
        CHECK(p->m == 3 && p->ncontacts == 1 && p->has_dual);
        CHECK(maxdiff(9, p->D, W_skew) == 0.0); /* W as given */
        CHECK(maxdiff(3, p->vf, q) == 0.0);
        CHECK(p->dual_symmetric == 0);
        CHECK(p->has_primal == 0 && p->has_sparse_primal == 0); /* dual-only as read */
        /* a primal form on request: from the symmetric part, which is PSD here */
        CHECK_OK(ncp_problem_primal_from_dual(p, &err), &err);
        CHECK(p->title && p->title[0] == '\0' && p->description && p->description[0] == '\0');
        CHECK(p->guess_lambda && !p->guess_v);
        if (p->guess_lambda) CHECK(maxdiff(3, p->guess_lambda, r) == 0.0);
        CHECK(p->provenance_note && strstr(p->provenance_note, "W is not symmetric"));
        if (p->has_primal) {
            /* J J^T = (W + W^T)/2 = I */
            double *J = csr_dense(&p->J), e = 0;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double acc = 0;
                    for (int k = 0; k < p->nv; k++) acc += J[i + (size_t)k * 3] * J[j + (size_t)k * 3];
                    e = fmax(e, fabs(acc - (i == j)));
                }
            CHECK(e <= 1e-14);
            free(J);
        }
        ncp_problems_free(p, 1);
    }
    fc_free(&Wm);
}

/* W whose symmetric part is indefinite (eigenvalues 3, -1, 1) with a positive diagonal: loads
 * (dual-only, as every local problem); a primal form cannot be built from it. (A negative
 * diagonal entry is refused at load: test_badstore.sh.) */
static void test_local_indefinite(void)
{
    double W[9] = {1, 2, 0, 2, 1, 0, 0, 0, 1}, q[3] = {-1, 0, 0}, mu[1] = {0.5};
    struct fclib_matrix Wm = fc_from_dense(3, 3, W, -2, 0);
    char path[512];
    path_of(path, sizeof path, "indefinite.hdf5");
    lib_write_local(path, &Wm, q, mu);
    ncp_error err = {0};
    ncp_problem *p;
    CHECK_OK(load(path, &p, &err), &err);
    if (p) {
        CHECK(p->has_dual && !p->has_primal && p->dual_symmetric == 1);
        ncp_error e2 = {0};
        CHECK(ncp_problem_primal_from_dual(p, &e2) == NCP_ERR_INPUT);
        CHECK(strstr(e2.msg, "negative eigenvalue") != NULL);
        ncp_problems_free(p, 1);
    }
    fc_free(&Wm);
}

/* ---- triplets as Siconos writes them, and the other way round ---- */

static void write_raw_global(const char *path, const small_global *s, int p_rows)
{
    hid_t f = raw_create(path);
    raw_group(f, "/fclib_global");
    raw_int(f, "/fclib_global/spacedim", 3);
    int *r, *c;
    double *x;
    int nz = dense_triplets(s->nv, s->nv, s->M, &r, &c, &x);
    raw_matrix(f, "/fclib_global/M", s->nv, s->nv, nz, nz, nz, p_rows ? r : c, nz, p_rows ? c : r, x);
    free(r);
    free(c);
    free(x);
    nz = dense_triplets(s->nv, s->mc, s->H, &r, &c, &x);
    /* nzmax larger than nz, as in Siconos's files */
    raw_matrix(f, "/fclib_global/H", s->nv, s->mc, nz, nz + 7, nz, p_rows ? r : c, nz, p_rows ? c : r, x);
    free(r);
    free(c);
    free(x);
    raw_group(f, "/fclib_global/vectors");
    raw_dvec(f, "/fclib_global/vectors/f", s->nv, s->f);
    raw_dvec(f, "/fclib_global/vectors/w", s->mc, s->w);
    raw_dvec(f, "/fclib_global/vectors/mu", 2, s->mu);
    raw_group(f, "/fclib_global/info");
    CHECK(H5LTmake_dataset_string(f, "/fclib_global/info/title", "raw") >= 0);
    H5Fclose(f);
}

static void test_siconos_triplets(void)
{
    small_global s;
    small_global_make(&s, 7);
    char path[512];
    ncp_error err = {0};
    ncp_problem *q;
    /* Siconos: i = rows, p = columns. H is 8 x 6: read with p as rows, the row indices 6, 7
     * would be out of range as column indices, which is the message the old reader gave */
    path_of(path, sizeof path, "siconos.hdf5");
    write_raw_global(path, &s, 0);
    CHECK_OK(load(path, &q, &err), &err);
    if (q) {
        check_small_global(q, &s);
        CHECK(q->title && !strcmp(q->title, "raw") && q->description && !q->description[0]);
        CHECK(!q->guess_lambda && !q->guess_v);
        CHECK(q->provenance_note && strstr(q->provenance_note, "/fclib_global/H: triplets read with i = rows, p = columns"));
        ncp_problems_free(q, 1);
    }
    /* the fclib.h comment's layout (p = rows): only that reading is in range for H */
    path_of(path, sizeof path, "prows.hdf5");
    write_raw_global(path, &s, 1);
    CHECK_OK(load(path, &q, &err), &err);
    if (q) {
        check_small_global(q, &s);
        CHECK(q->provenance_note && strstr(q->provenance_note, "/fclib_global/H: triplets read with p = rows, i = columns"));
        ncp_problems_free(q, 1);
    }
}

/* ---- a 10^4-DOF global problem with diagonal M ---- */

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void test_large_diagonal(void)
{
    const int nbody = 1667, nv = 6 * nbody, nc = 300, mc = 3 * nc;
    trng r = {4242};
    double *Md = malloc(sizeof(double) * nv), *f = malloc(sizeof(double) * nv);
    double *w = malloc(sizeof(double) * mc), *mu = malloc(sizeof(double) * nc);
    int *bodies = malloc(sizeof(int) * 2 * nc);
    for (int k = 0; k < nv; k++) {
        Md[k] = 0.5 + trng_uniform(&r);
        f[k] = trng_uniform(&r) - 0.5;
    }
    /* H in CSC: contact c's three columns touch the 6 DOFs of each of its two bodies */
    int nnz = mc * 12;
    int *Hp = malloc(sizeof(int) * (mc + 1)), *Hi = malloc(sizeof(int) * nnz);
    double *Hx = malloc(sizeof(double) * nnz);
    int k = 0;
    Hp[0] = 0;
    for (int c = 0; c < nc; c++) {
        int b0 = (int)(trng_uniform(&r) * nbody), b1 = (int)(trng_uniform(&r) * nbody);
        if (b1 == b0) b1 = (b0 + 1) % nbody;
        if (b1 < b0) {
            int t = b0;
            b0 = b1;
            b1 = t;
        }
        bodies[2 * c] = b0;
        bodies[2 * c + 1] = b1;
        mu[c] = 0.5;
        for (int j = 0; j < 3; j++) {
            for (int d = 0; d < 6; d++) {
                Hi[k] = 6 * b0 + d;
                Hx[k++] = trng_uniform(&r) - 0.5;
            }
            for (int d = 0; d < 6; d++) {
                Hi[k] = 6 * b1 + d;
                Hx[k++] = trng_uniform(&r) - 0.5;
            }
            w[3 * c + j] = trng_uniform(&r) - 0.5;
            Hp[3 * c + j + 1] = k;
        }
    }
    int *Mp = malloc(sizeof(int) * (nv + 1)), *Mi = malloc(sizeof(int) * nv);
    for (int j = 0; j < nv; j++) {
        Mp[j] = j;
        Mi[j] = j;
    }
    Mp[nv] = nv;
    struct fclib_matrix Mm = {nv, nv, nv, Mp, Mi, Md, -1, NULL};
    struct fclib_matrix Hm = {nnz, nv, mc, Hp, Hi, Hx, -1, NULL};
    char path[512];
    path_of(path, sizeof path, "large.hdf5");
    lib_write_global(path, &Mm, &Hm, f, w, mu, NULL);

    long rss0 = maxrss_kb();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ncp_error err = {0};
    ncp_problem *q;
    CHECK_OK(load(path, &q, &err), &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long rss1 = maxrss_kb();
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    double dense_mb = (double)nv * nv * 8.0 / 1048576.0;
    printf("large: %d DOFs, %d contacts: loaded in %.1f ms, peak RSS grew by %.1f MB (a dense M would be %.0f MB)\n",
           nv, nc, ms, (double)(rss1 - rss0) / 1024.0, dense_mb);
    /* the high-water mark of the process: far below one dense n_dof x n_dof array */
    CHECK((double)(rss1 - rss0) / 1024.0 < dense_mb / 8.0);
    if (q) {
        CHECK(q->nv == nv && q->m == mc && q->has_sparse_primal && !q->has_primal && q->A == NULL);
        CHECK(q->A_sparse.nnz == nv);
        /* D_ij = sum_k H_ki H_kj / M_kk, from the CSC arrays written above */
        int pairs[][2] = {{0, 0}, {0, 2}, {5, 4}, {mc - 1, mc - 3}, {0, mc - 1}, {10, 11}};
        int shared = -1; /* two contacts sharing a body, for an off-diagonal block */
        for (int a = 0; a < nc && shared < 0; a++)
            for (int b = a + 1; b < nc && shared < 0; b++)
                if (bodies[2 * a] == bodies[2 * b] || bodies[2 * a] == bodies[2 * b + 1] ||
                    bodies[2 * a + 1] == bodies[2 * b] || bodies[2 * a + 1] == bodies[2 * b + 1])
                    shared = a * nc + b;
        double *x = calloc((size_t)nv, sizeof(double));
        int npairs = (int)(sizeof pairs / sizeof pairs[0]) + (shared >= 0);
        for (int t = 0; t < npairs; t++) {
            int i = t < 6 ? pairs[t][0] : 3 * (shared / nc), j = t < 6 ? pairs[t][1] : 3 * (shared % nc) + 1;
            for (int q2 = Hp[j]; q2 < Hp[j + 1]; q2++) x[Hi[q2]] = Hx[q2];
            double ref = 0;
            for (int q2 = Hp[i]; q2 < Hp[i + 1]; q2++) ref += Hx[q2] * x[Hi[q2]] / Md[Hi[q2]];
            for (int q2 = Hp[j]; q2 < Hp[j + 1]; q2++) x[Hi[q2]] = 0.0;
            if (i == 0 && j == 0) CHECK_OK(ncp_problem_need_dual(q, &err), &err); /* D on demand */
            CHECK_NEAR(q->D[i + (size_t)j * mc], ref, 1e-13 * fmax(1.0, fabs(ref)));
            if (t == 6) CHECK(ref != 0.0);
        }
        /* v_f_i = w_i + sum_k H_ki f_k / M_kk */
        for (int i = 0; i < mc; i += 97) {
            double ref = w[i];
            for (int q2 = Hp[i]; q2 < Hp[i + 1]; q2++) ref += Hx[q2] * f[Hi[q2]] / Md[Hi[q2]];
            CHECK_NEAR(q->vf[i], ref, 1e-13 * fmax(1.0, fabs(ref)));
        }
        free(x);
        ncp_problems_free(q, 1);
    }
    free(Md);
    free(f);
    free(w);
    free(mu);
    free(bodies);
    free(Hp);
    free(Hi);
    free(Hx);
    free(Mp);
    free(Mi);
}

/* ---- a coupled block: CHOLMOD when built with it, a dense factor within a limit, else a
 * clear error ---- */

/* Tridiagonal SPD n x n (one connected block), CSR. */
static void tridiag(int n, ncp_csr *A)
{
    ncp_error err = {0};
    CHECK_OK(ncp_csr_alloc(A, n, n, 3 * n - 2, &err), &err);
    int k = 0;
    A->rowptr[0] = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0) {
            A->col[k] = i - 1;
            A->val[k++] = -1.0;
        }
        A->col[k] = i;
        A->val[k++] = 2.5 + 0.001 * (i % 7);
        if (i + 1 < n) {
            A->col[k] = i + 1;
            A->val[k++] = -1.0;
        }
        A->rowptr[i + 1] = k;
    }
}

static void test_coupled_block(void)
{
    const int n = 600, m = 30; /* one block beyond NCP_SPARSE_DENSE_BLOCK */
    ncp_csr A, J;
    tridiag(n, &A);
    ncp_error err = {0};
    /* J: row i touches DOFs 20 i .. 20 i + 2 */
    CHECK_OK(ncp_csr_alloc(&J, m, n, 3 * m, &err), &err);
    J.rowptr[0] = 0;
    for (int i = 0; i < m; i++) {
        for (int d = 0; d < 3; d++) {
            J.col[3 * i + d] = 20 * i + d;
            J.val[3 * i + d] = 1.0 + 0.1 * d - 0.05 * i;
        }
        J.rowptr[i + 1] = 3 * i + 3;
    }
    /* reference: dense Gaussian elimination on the whole matrix */
    double *Ad = csr_dense(&A), *X = calloc((size_t)n * m, sizeof(double));
    for (int i = 0; i < m; i++)
        for (int k = J.rowptr[i]; k < J.rowptr[i + 1]; k++) X[J.col[k] + (size_t)i * n] = J.val[k];
    gauss_solve(n, Ad, m, X);
    double *Dref = calloc((size_t)m * m, sizeof(double));
    for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++)
            for (int k = J.rowptr[i]; k < J.rowptr[i + 1]; k++) Dref[i + (size_t)j * m] += J.val[k] * X[J.col[k] + (size_t)j * n];
    double *D = calloc((size_t)m * m, sizeof(double));

    /* 1. the default path (CHOLMOD when built with it, else a dense factor within the limit) */
    ncp_sparse_chol *F = NULL;
    CHECK_OK(ncp_sparse_chol_factor(&A, NULL, &F, &err), &err);
    if (F) {
        int nb, big, nch;
        ncp_sparse_chol_stats(F, &nb, &big, &nch);
        CHECK(nb == 1 && big == n);
#ifdef NCP_HAVE_CHOLMOD
        CHECK(nch == 1);
#else
        CHECK(nch == 0);
#endif
        CHECK_OK(ncp_sparse_chol_delassus(F, NULL, &J, NULL, D, NULL, &err), &err);
        CHECK(maxdiff((size_t)m * m, D, Dref) <= 1e-12 * maxabs((size_t)m * m, Dref));
        /* solve with two right-hand sides against the dense reference */
        double *B = malloc(sizeof(double) * 2 * n), *Bref = malloc(sizeof(double) * 2 * n);
        for (int k = 0; k < 2 * n; k++) B[k] = Bref[k] = sin(0.1 * k);
        CHECK_OK(ncp_sparse_chol_solve(F, 2, B, &err), &err);
        gauss_solve(n, Ad, 2, Bref);
        CHECK(maxdiff((size_t)2 * n, B, Bref) <= 1e-12 * maxabs((size_t)2 * n, Bref));
        free(B);
        free(Bref);
        ncp_sparse_chol_free(F);
    }
    /* 2. no CHOLMOD, block beyond the dense limit: refused, saying how to build */
    ncp_sparse_chol_opts o = {0, 1 << 20, 1};
    ncp_error e2 = {0};
    F = NULL;
    CHECK(ncp_sparse_chol_factor(&A, &o, &F, &e2) == NCP_ERR_INPUT && F == NULL);
    CHECK(strstr(e2.msg, "-Dsuitesparse=enabled") && strstr(e2.msg, "600 coupled DOFs"));
    /* 3. no CHOLMOD, within the limit: a dense factor of the block */
    o.dense_bytes = (size_t)64 << 20;
    CHECK_OK(ncp_sparse_chol_factor(&A, &o, &F, &err), &err);
    if (F) {
        CHECK_OK(ncp_sparse_chol_delassus(F, NULL, &J, NULL, D, NULL, &err), &err);
        CHECK(maxdiff((size_t)m * m, D, Dref) <= 1e-12 * maxabs((size_t)m * m, Dref));
        ncp_sparse_chol_free(F);
    }
    /* 4. not positive definite: NCP_ERR_NUMERIC naming the block */
    A.val[A.rowptr[300] + 1] = -3.0;
    ncp_error e3 = {0};
    o.dense_bytes = 0;
    o.no_cholmod = 0;
    CHECK(ncp_sparse_chol_factor(&A, &o, &F, &e3) == NCP_ERR_NUMERIC);
    CHECK(strstr(e3.msg, "not positive definite") != NULL);
    free(Ad);
    free(X);
    free(Dref);
    free(D);
    ncp_csr_free(&A);
    ncp_csr_free(&J);
}

/* The same through a file: a global problem whose M is one tridiagonal block of 6000 DOFs
 * (beyond the default dense limit): loads with CHOLMOD, else names the file and the option. */
static void test_coupled_file(void)
{
    const int nv = 6000, mc = 3;
    ncp_csr A;
    tridiag(nv, &A);
    /* M in CSR, H: one contact on DOFs 0..2 */
    struct fclib_matrix Mm = {A.nnz, nv, nv, A.rowptr, A.col, A.val, -2, NULL};
    int Hp[4] = {0, 1, 2, 3}, Hi[3] = {0, 1, 2};
    double Hx[3] = {1, 1, 1}, w[3] = {-1, 0, 0}, mu[1] = {0.4};
    double *f = calloc(nv, sizeof(double));
    struct fclib_matrix Hm = {3, nv, mc, Hp, Hi, Hx, -1, NULL};
    char path[512];
    path_of(path, sizeof path, "coupled.hdf5");
    lib_write_global(path, &Mm, &Hm, f, w, mu, NULL);
#ifdef NCP_HAVE_CHOLMOD
    ncp_error err = {0};
    ncp_problem *q;
    CHECK_OK(load(path, &q, &err), &err);
    if (q) {
        CHECK(q->provenance_note && strstr(q->provenance_note, "1 by CHOLMOD"));
        /* D = M^-1 restricted to DOFs 0..2: compare D_00 with the Thomas algorithm */
        double *c = malloc(sizeof(double) * nv), *d = malloc(sizeof(double) * nv);
        for (int i = 0; i < nv; i++) d[i] = i == 0; /* solve M x = e_0 */
        double diag0 = 2.5;
        c[0] = -1.0 / diag0;
        d[0] = d[0] / diag0;
        for (int i = 1; i < nv; i++) {
            double di = 2.5 + 0.001 * (i % 7), den = di + c[i - 1];
            c[i] = -1.0 / den;
            d[i] = (d[i] + d[i - 1]) / den;
        }
        for (int i = nv - 2; i >= 0; i--) d[i] -= c[i] * d[i + 1];
        CHECK_OK(ncp_problem_need_dual(q, &err), &err); /* D on demand */
        CHECK_NEAR(q->D[0], d[0], 1e-12);
        CHECK_NEAR(q->D[1], d[1], 1e-12);
        free(c);
        free(d);
        ncp_problems_free(q, 1);
    }
#else
    expect_error(path, "-Dsuitesparse=enabled");
#endif
    free(f);
    ncp_csr_free(&A);
}

/* ---- rolling friction, unknown files, bad input ---- */

static void test_rolling_and_unknown(void)
{
    char path[512];
    path_of(path, sizeof path, "rolling.hdf5");
    hid_t f = raw_create(path);
    raw_group(f, "/fclib_global_rolling");
    raw_int(f, "/fclib_global_rolling/spacedim", 5);
    H5Fclose(f);
    char want[700];
    snprintf(want, sizeof want, "%s: rolling friction (5-D cones) is not supported", path);
    expect_error(path, want);
    f = raw_create(path);
    raw_group(f, "/Fclib_Local_Rolling");
    H5Fclose(f);
    expect_error(path, "rolling friction (5-D cones) is not supported");
    f = raw_create(path);
    raw_group(f, "/something");
    raw_group(f, "/else");
    H5Fclose(f);
    expect_error(path, "no /problems, /fclib_local or /fclib_global group (the root group holds /else, /something)");
}

/* A raw global file with one thing wrong; `what` selects it. */
static void write_bad_global(const char *path, int what)
{
    small_global s;
    small_global_make(&s, 9);
    hid_t f = raw_create(path);
    raw_group(f, "/fclib_global");
    raw_int(f, "/fclib_global/spacedim", 3);
    int *r, *c;
    double *x;
    int nz = dense_triplets(s.nv, s.nv, s.M, &r, &c, &x);
    int declared = what == 5 ? 2000000000 : s.nv;
    if (what == 6) x[1] += 1e-3; /* M[1,0] != M[0,1] */
    if (what == 7) { /* CSC M whose last pointer says more entries than nzmax */
        int p[9];
        for (int j = 0; j <= 8; j++) p[j] = 0;
        int cnt = 0;
        for (int k = 0; k < nz; k++) p[c[k] + 1]++, cnt++;
        for (int j = 0; j < 8; j++) p[j + 1] += p[j];
        raw_matrix(f, "/fclib_global/M", s.nv, s.nv, -1, cnt - 1, 9, p, cnt - 1, r, x);
    } else {
        raw_matrix(f, "/fclib_global/M", declared, declared, what == 5 ? 0 : nz, what == 3 ? nz - 1 : nz,
                   what == 5 ? 0 : nz, c, what == 5 ? 0 : nz, r, x);
    }
    free(r);
    free(c);
    free(x);
    nz = dense_triplets(s.nv, s.mc, s.H, &r, &c, &x);
    if (what == 11) { /* H declares 10^9 triplets; its datasets are declared, never written */
        const int big = 1000000000;
        hsize_t ext = (hsize_t)big, chunk = 1 << 16;
        raw_group(f, "/fclib_global/H");
        raw_int(f, "/fclib_global/H/nzmax", big);
        raw_int(f, "/fclib_global/H/m", s.nv);
        raw_int(f, "/fclib_global/H/n", s.mc);
        raw_int(f, "/fclib_global/H/nz", big);
        const char *names[3] = {"/fclib_global/H/p", "/fclib_global/H/i", "/fclib_global/H/x"};
        for (int k = 0; k < 3; k++) {
            hid_t sp = H5Screate_simple(1, &ext, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
            H5Pset_chunk(dcpl, 1, &chunk);
            hid_t d = H5Dcreate2(f, names[k], k < 2 ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            CHECK(d >= 0);
            H5Dclose(d);
            H5Pclose(dcpl);
            H5Sclose(sp);
        }
        what = -1; /* the rest of the file as usual */
    }
    if (what == 1) x[2] = NAN;
    if (what == 4) r[3] = 99; /* row index out of range in both readings */
    if (what >= 0) raw_matrix(f, "/fclib_global/H", declared, s.mc, nz, nz, nz, c, nz, r, x);
    free(r);
    free(c);
    free(x);
    raw_group(f, "/fclib_global/vectors");
    raw_dvec(f, "/fclib_global/vectors/f", what == 2 ? 7 : s.nv, s.f);
    raw_dvec(f, "/fclib_global/vectors/w", s.mc, s.w);
    double mu[2] = {0.3, what == 8 ? -0.1 : 0.7};
    raw_dvec(f, "/fclib_global/vectors/mu", 2, mu);
    if (what == 9) {
        raw_group(f, "/guesses");
        raw_int(f, "/guesses/number_of_guesses", 1);
        raw_group(f, "/guesses/1");
        raw_dvec(f, "/guesses/1/r", 5, s.w);
    }
    if (what == 10) {
        raw_group(f, "/fclib_global/info");
        raw_int(f, "/fclib_global/info/title", 3);
    }
    H5Fclose(f);
}

static void test_bad_input(void)
{
    char path[512];
    path_of(path, sizeof path, "bad.hdf5");
    struct {
        int what;
        const char *needle;
    } cases[] = {
        {1, "/fclib_global/H/x: entry 2 is nan"},
        {2, "/fclib_global/vectors/f: has 7 entries, expected 8"},
        {3, "/fclib_global/M/nz: nz = "},
        {4, "/fclib_global/H/"},
        {5, "/fclib_global/vectors/f: has 8 entries, expected 2000000000"},
        {6, "/fclib_global/M: is not symmetric"},
        {7, "exceeds nzmax"},
        {8, "/fclib_global/vectors/mu: friction coefficient mu[1] = -0.1 is negative"},
        {9, "/guesses/1/r: has 5 entries, expected 6"},
        {10, "/fclib_global/info/title: is not one string"},
        {11, "/fclib_global/H/p: declares 3815 MiB of data but the file holds 0 bytes"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        write_bad_global(path, cases[k].what);
        expect_error(path, cases[k].needle);
    }
    write_bad_global(path, 4);
    expect_error(path, "fit neither reading of a 8 x 6 matrix");
    write_bad_global(path, 0); /* the same file without a fault loads */
    ncp_error err = {0};
    ncp_problem *q;
    CHECK_OK(load(path, &q, &err), &err);
    if (q) ncp_problems_free(q, 1);
    /* M not positive definite */
    small_global s;
    small_global_make(&s, 11);
    s.M[7 + 7 * 8] = -s.M[7 + 7 * 8];
    s.M[6 + 6 * 8] = 0.01;
    struct fclib_matrix Mm = fc_from_dense(8, 8, s.M, -1, 0), Hm = fc_from_dense(8, 6, s.H, -1, 0);
    path_of(path, sizeof path, "notspd.hdf5");
    lib_write_global(path, &Mm, &Hm, s.f, s.w, s.mu, NULL);
    expect_error(path, "M[7,7] = ");
    fc_free(&Mm);
    /* positive diagonal, indefinite 2 x 2 block of body 2: found by the factorisation */
    s.M[7 + 7 * 8] = -s.M[7 + 7 * 8];
    s.M[6 + 7 * 8] = s.M[7 + 6 * 8] = 10.0;
    Mm = fc_from_dense(8, 8, s.M, -1, 0);
    path_of(path, sizeof path, "notspd2.hdf5");
    lib_write_global(path, &Mm, &Hm, s.f, s.w, s.mu, NULL);
    expect_error(path, "/fclib_global/M: ");
    expect_error(path, "block of 2 coupled DOFs starting at DOF 6");
    fc_free(&Mm);
    fc_free(&Hm);
}

/* ---- a sparse problem exported and read back; dual_symmetric of our own files ---- */

static void test_export_sparse(void)
{
    small_global s;
    small_global_make(&s, 21);
    char path[512], out[512];
    path_of(path, sizeof path, "to_export.hdf5");
    write_raw_global(path, &s, 0);
    ncp_error err = {0};
    ncp_problem *q = NULL, *q2 = NULL;
    CHECK_OK(load(path, &q, &err), &err);
    path_of(out, sizeof out, "exported.hdf5");
    if (q) CHECK_OK(ncp_fclib_export(q, out, &err), &err);
    if (q) CHECK_OK(load(out, &q2, &err), &err);
    if (q && q2) {
        check_small_global(q2, &s);
        CHECK_OK(ncp_problem_need_dual(q, &err), &err); /* D on demand, as the export built it */
        CHECK_OK(ncp_problem_need_dual(q2, &err), &err);
        CHECK(maxdiff(36, q2->D, q->D) == 0.0); /* fclib_local holds the D computed on reading */
        CHECK(q2->A_sparse.nnz == q->A_sparse.nnz);
    }
    if (q) ncp_problems_free(q, 1);
    if (q2) ncp_problems_free(q2, 1);
}

static void test_own_file_symmetry(void)
{
    ncp_error err = {0};
    ncp_problem p[3];
    int types[1] = {NCP_CONTACT};
    const char *names[3] = {"sym", "skew", "indefinite"};
    for (int k = 0; k < 3; k++) {
        CHECK_OK(tutil_dual_problem(&p[k], 1, types, &err), &err);
        free(p[k].name);
        p[k].name = strdup(names[k]);
        for (int i = 0; i < 3; i++) p[k].D[i + 3 * i] = 2.0;
        p[k].D[1] = p[k].D[3] = 0.5;
        p[k].vf[0] = -1.0;
        p[k].blocks[0].mu = 0.5;
    }
    p[1].D[3] = 0.5 + 1e-6; /* D[0,1] != D[1,0] */
    p[2].D[2] = p[2].D[6] = 3.0; /* D[0,2] = D[2,0] = 3: indefinite, no primal form */
    char path[512];
    path_of(path, sizeof path, "own.h5");
    ncp_store *st = NULL;
    CHECK_OK(ncp_store_create(path, "test", "{}", 1, &st, &err), &err);
    for (int k = 0; k < 3 && st; k++) CHECK_OK(ncp_store_append(st, &p[k], &err), &err);
    if (st) CHECK_OK(ncp_store_close(st, &err), &err);
    ncp_problem *q = NULL;
    int n = 0;
    CHECK_OK(ncp_load_problems(path, &q, &n, &err), &err);
    CHECK(n == 3);
    if (n == 3) {
        CHECK(q[0].dual_symmetric == 1 && q[0].has_primal);
        CHECK(q[1].dual_symmetric == 0);
        CHECK(q[1].D[3] == 0.5 + 1e-6 && q[1].has_primal); /* from the symmetric part */
        /* our own dual-only problems get a primal form when read; this one cannot: it loads
         * with its dual form and a note instead of being refused */
        CHECK(q[2].has_dual && !q[2].has_primal);
        CHECK(q[2].provenance_note && strstr(q[2].provenance_note, "no primal form"));
    }
    ncp_problems_free(q, n);
    for (int k = 0; k < 3; k++) ncp_problem_free(&p[k]);
}

/* ---- the two Siconos sample files ---- */

/* Reads an FCLib triplet matrix group with raw HDF5 as CSparse lays it out (i = rows), dense. */
static double *raw_triplet_dense(hid_t f, const char *gp, int *m, int *n)
{
    char b[256];
    int nz = 0;
    H5LTread_dataset_int(f, at(b, gp, "m"), m);
    H5LTread_dataset_int(f, at(b, gp, "n"), n);
    H5LTread_dataset_int(f, at(b, gp, "nz"), &nz);
    CHECK(nz >= 0);
    double *A = calloc((size_t)*m * *n + 1, sizeof(double));
    if (nz <= 0) return A;
    int *p = malloc(sizeof(int) * nz), *i = malloc(sizeof(int) * nz);
    double *x = malloc(sizeof(double) * nz);
    H5LTread_dataset_int(f, at(b, gp, "p"), p);
    H5LTread_dataset_int(f, at(b, gp, "i"), i);
    H5LTread_dataset_double(f, at(b, gp, "x"), x);
    for (int k = 0; k < nz; k++) A[i[k] + (size_t)p[k] * *m] += x[k];
    free(p);
    free(i);
    free(x);
    return A;
}

static void test_samples(void)
{
    const char *sd = getenv("NCP_FCLIB_SAMPLES");
    if (!sd) sd = "/work/shared/fclib-samples";
    struct stat sb;
    if (stat(sd, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        printf("samples: %s absent, skipped\n", sd);
        return;
    }
    char box[512], caps[512];
    snprintf(box, sizeof box, "%s/Box_Stacks-i0122-82-5.hdf5", sd);
    snprintf(caps, sizeof caps, "%s/Capsules-i125-1213.hdf5", sd);
    ncp_error err = {0};
    ncp_problem *q;
    CHECK_OK(load(box, &q, &err), &err);
    if (q) {
        CHECK(q->ncontacts == 82 && q->nv == 450 && q->m == 246);
        CHECK(q->has_sparse_primal && !q->has_primal && !q->has_dual && !q->D && q->vf);
        CHECK(q->guess_lambda && q->guess_v);
        CHECK(q->title && !strcmp(q->title, "Box_stacks"));
        CHECK(q->description && strstr(q->description, "Box stacks with Bullet collision detection"));
        /* W from (M, H) against a dense computation from the raw datasets */
        hid_t f = H5Fopen(box, H5F_ACC_RDONLY, H5P_DEFAULT);
        int mm, mn, hm, hn;
        double *M = raw_triplet_dense(f, "/fclib_global/M", &mm, &mn);
        double *H = raw_triplet_dense(f, "/fclib_global/H", &hm, &hn);
        double *fv = malloc(sizeof(double) * 450), *wv = malloc(sizeof(double) * 246);
        H5LTread_dataset_double(f, "/fclib_global/vectors/f", fv);
        H5LTread_dataset_double(f, "/fclib_global/vectors/w", wv);
        H5Fclose(f);
        CHECK(mm == 450 && mn == 450 && hm == 450 && hn == 246);
        double *W = malloc(sizeof(double) * 246 * 246), *qv = malloc(sizeof(double) * 246);
        local_from_global(450, 246, M, H, fv, wv, W, qv);
        CHECK_OK(ncp_problem_need_dual(q, &err), &err); /* D on demand */
        double ew = maxdiff((size_t)246 * 246, q->D, W) / maxabs((size_t)246 * 246, W);
        double eq = maxdiff(246, q->vf, qv) / fmax(1.0, maxabs(246, qv));
        printf("Box_Stacks: D vs H^T M^-1 H rel err %.2e, v_f rel err %.2e\n", ew, eq);
        CHECK(ew <= 1e-12 && eq <= 1e-12);
        free(M);
        free(H);
        free(fv);
        free(wv);
        free(W);
        free(qv);
        ncp_problems_free(q, 1);
    }
    CHECK_OK(load(caps, &q, &err), &err);
    if (q) {
        CHECK(q->ncontacts == 286 && q->m == 858);
        CHECK(q->dual_symmetric == 0 && q->has_dual);
        CHECK(q->guess_lambda != NULL && q->guess_v == NULL);
        CHECK(q->title && !strcmp(q->title, "Capsules"));
        ncp_problems_free(q, 1);
    }
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    snprintf(dir, sizeof dir, "/tmp/ncp_test_fclib_read_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    int storages[3] = {-1, -2, 0}; /* CSC, CSR, triplet */
    for (int k = 0; k < 3; k++) {
        test_libfclib_global(storages[k]);
        test_libfclib_local(storages[k]);
    }
    test_local_indefinite();
    test_siconos_triplets();
    test_large_diagonal();
    test_coupled_block();
    test_coupled_file();
    test_rolling_and_unknown();
    test_bad_input();
    test_export_sparse();
    test_own_file_symmetry();
    test_samples();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return tcheck_exit("fclib_read");
}
