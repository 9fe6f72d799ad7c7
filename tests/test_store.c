/* problems.h5 and solutions.h5: bit-exact round trips, the FCLib groups checked with raw HDF5
 * calls against the problem they came from, corrupt inputs, temporary files. */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "ncp_config.h"
#include "scene/scene.h"
#include "solvers/registry.h"
#include "store/h5util.h"
#include "store/store.h"
#include "tcheck.h"
#include "testutil.h"
#include "store/solutions.h"

static char dir[256];

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static int same_bits(const void *a, const void *b, size_t bytes)
{
    if (bytes == 0) return 1;
    if (!a || !b) return 0;
    return memcmp(a, b, bytes) == 0;
}

/* Number of files in dir whose name contains "tmp-". */
static int count_tmp(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c 'tmp-'", dir);
    FILE *f = popen(cmd, "r");
    int n = -1;
    if (f) {
        if (fscanf(f, "%d", &n) != 1) n = -1;
        pclose(f);
    }
    return n;
}

static void copy_file(const char *src, const char *dst, long max_bytes)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    CHECK(in && out);
    if (!in || !out) {
        if (in) fclose(in);
        if (out) fclose(out);
        return;
    }
    char buf[4096];
    long total = 0;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        if (max_bytes >= 0 && total + (long)n > max_bytes) n = (size_t)(max_bytes - total);
        fwrite(buf, 1, n, out);
        total += (long)n;
        if (max_bytes >= 0 && total >= max_bytes) break;
    }
    fclose(in);
    fclose(out);
}

static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* ---- fixtures ---- */

static void add_geometry(ncp_problem *p, uint64_t seed)
{
    trng r = {seed * 7 + 3};
    for (int k = 0; k < p->ncontacts; k++) {
        ncp_contact_info *c = &p->contacts[k];
        for (int i = 0; i < 3; i++) c->point[i] = trng_normal(&r);
        for (int i = 0; i < 9; i++) c->frame[i] = trng_normal(&r);
        c->body[0] = k - 1;
        c->body[1] = k + 4;
        /* compliant model data (problem.h): some rigid (0), some finite */
        c->stiffness = k % 3 == 0 ? 0.0 : 1e3 * (1.0 + trng_uniform(&r));
        c->dissipation = k % 2 ? 0.0 : 0.01 * trng_uniform(&r);
    }
}

/* Hand-built structure for a problem with nv = 10: two subsystems [0, 6) and [6, 10), three
 * bodies, links to every block (1-row and 3-row). */
static ncp_structure *make_structure(const ncp_problem *p, uint64_t seed)
{
    trng r = {seed};
    ncp_error err = {0};
    ncp_structure *s = ncp_calloc(&err, 1, sizeof *s);
    s->nsub = 2;
    s->sub_dof_start = ncp_calloc(&err, 2, sizeof(int));
    s->sub_ndof = ncp_calloc(&err, 2, sizeof(int));
    s->sub_dof_start[0] = 0;
    s->sub_ndof[0] = 6;
    s->sub_dof_start[1] = 6;
    s->sub_ndof[1] = p->nv - 6;
    s->nbodies = 3;
    s->bodies = ncp_calloc(&err, 3, sizeof *s->bodies);
    int subs[3] = {0, 1, 1};
    for (int b = 0; b < 3; b++) {
        ncp_structure_body *B = &s->bodies[b];
        B->subsystem = subs[b];
        B->ndof = s->sub_ndof[subs[b]];
        for (int i = 0; i < 36; i++) B->M[i] = trng_normal(&r);
        B->Jb = ncp_malloc(&err, 6 * (size_t)B->ndof, sizeof(double));
        for (int i = 0; i < 6 * B->ndof; i++) B->Jb[i] = trng_normal(&r);
    }
    s->nlinks = p->nblocks;
    s->links = ncp_calloc(&err, (size_t)p->nblocks, sizeof *s->links);
    for (int l = 0; l < p->nblocks; l++) {
        ncp_structure_link *L = &s->links[l];
        L->block = p->nblocks - 1 - l;
        L->body = l % 3;
        int rows = ncp_block_type_size(p->blocks[L->block].type);
        L->Jib = ncp_malloc(&err, 6 * (size_t)rows, sizeof(double));
        for (int i = 0; i < 6 * rows; i++) L->Jib[i] = trng_normal(&r);
    }
    /* the multibody joint-space diagonal of A (armature, implicit gains) */
    s->dof_diag = ncp_malloc(&err, (size_t)p->nv, sizeof(double));
    for (int i = 0; i < p->nv; i++) s->dof_diag[i] = trng_uniform(&r);
    return s;
}

static void set_name(ncp_problem *p, const char *name, int step)
{
    free(p->name);
    p->name = strdup(name);
    free(p->scene);
    p->scene = strdup("unit-scene");
    free(p->driver);
    p->driver = strdup("pgs");
    p->step = step;
    p->case_index = step + 100;
    p->seed = 0xFEDCBA9876543210ull + (uint64_t)step;
}

/* ---- comparison ---- */

static void check_same_problem(const ncp_problem *a, const ncp_problem *b, int cmp_primal,
                               int cmp_dual)
{
    CHECK(a->name && b->name && !strcmp(a->name, b->name));
    CHECK(a->scene && b->scene && !strcmp(a->scene, b->scene));
    CHECK(a->driver && b->driver && !strcmp(a->driver, b->driver));
    CHECK(a->step == b->step);
    CHECK(a->case_index == b->case_index);
    CHECK(a->seed == b->seed);
    CHECK(same_bits(&a->h, &b->h, sizeof a->h));
    CHECK(a->m == b->m);
    CHECK(a->nblocks == b->nblocks);
    CHECK(a->ncontacts == b->ncontacts);
    if (a->nblocks != b->nblocks || a->m != b->m) return;
    CHECK(same_bits(a->blocks, b->blocks, sizeof(ncp_block) * (size_t)a->nblocks));
    if (a->contacts && a->ncontacts > 0) {
        CHECK(b->contacts != NULL);
        CHECK(same_bits(a->contacts, b->contacts, sizeof(ncp_contact_info) * (size_t)a->ncontacts));
    }
    size_t m = (size_t)a->m, nv = (size_t)a->nv;
    if (cmp_primal) {
        CHECK(b->has_primal);
        CHECK(a->nv == b->nv);
        if (a->nv != b->nv) return;
        CHECK(same_bits(a->A, b->A, nv * nv * sizeof(double)));
        CHECK(same_bits(a->b, b->b, nv * sizeof(double)));
        CHECK(same_bits(a->e, b->e, m * sizeof(double)));
        CHECK(a->J.m == b->J.m && a->J.n == b->J.n && a->J.nnz == b->J.nnz);
        if (a->J.nnz == b->J.nnz && a->J.m == b->J.m) {
            CHECK(same_bits(a->J.rowptr, b->J.rowptr, (m + 1) * sizeof(int)));
            CHECK(same_bits(a->J.col, b->J.col, (size_t)a->J.nnz * sizeof(int)));
            CHECK(same_bits(a->J.val, b->J.val, (size_t)a->J.nnz * sizeof(double)));
        }
    }
    if (cmp_dual) {
        /* D as either keeps it, or built on demand from its primal data (core/problem.h): the
         * same bits as the D the capture used to build eagerly; v_f is kept by both */
        ncp_problem va, vb;
        double *oa = NULL, *ob = NULL;
        ncp_error e = {0};
        CHECK(ncp_problem_dual_view(a, &va, &oa, &e) == NCP_OK);
        CHECK(ncp_problem_dual_view(b, &vb, &ob, &e) == NCP_OK);
        CHECK(b->vf != NULL);
        if (va.D && vb.D) CHECK(same_bits(va.D, vb.D, m * m * sizeof(double)));
        CHECK(same_bits(a->vf, b->vf, m * sizeof(double)));
        free(oa);
        free(ob);
    }
    CHECK((a->structure == NULL) == (b->structure == NULL));
    if (a->structure && b->structure) {
        const ncp_structure *s = a->structure, *t = b->structure;
        CHECK(s->nsub == t->nsub && s->nbodies == t->nbodies && s->nlinks == t->nlinks);
        if (s->nsub == t->nsub && s->nbodies == t->nbodies && s->nlinks == t->nlinks) {
            CHECK(same_bits(s->sub_dof_start, t->sub_dof_start, (size_t)s->nsub * sizeof(int)));
            CHECK(same_bits(s->sub_ndof, t->sub_ndof, (size_t)s->nsub * sizeof(int)));
            for (int k = 0; k < s->nbodies; k++) {
                CHECK(s->bodies[k].subsystem == t->bodies[k].subsystem);
                CHECK(s->bodies[k].ndof == t->bodies[k].ndof);
                CHECK(same_bits(s->bodies[k].M, t->bodies[k].M, sizeof s->bodies[k].M));
                CHECK(same_bits(s->bodies[k].Jb, t->bodies[k].Jb, 6 * (size_t)s->bodies[k].ndof * sizeof(double)));
            }
            for (int k = 0; k < s->nlinks; k++) {
                CHECK(s->links[k].block == t->links[k].block);
                CHECK(s->links[k].body == t->links[k].body);
                int rows = ncp_block_type_size(a->blocks[s->links[k].block].type);
                CHECK(same_bits(s->links[k].Jib, t->links[k].Jib, 6 * (size_t)rows * sizeof(double)));
            }
            CHECK((s->dof_diag == NULL) == (t->dof_diag == NULL));
            if (s->dof_diag && t->dof_diag) CHECK(same_bits(s->dof_diag, t->dof_diag, (size_t)a->nv * sizeof(double)));
        }
    }
}

/* ---- raw HDF5 readers used to check the files independently of src/ ---- */

static int raw_int1(hid_t loc, const char *path)
{
    /* must be exactly what libfclib writes: a rank-1, 1-element, 32-bit integer dataset */
    hid_t d = H5Dopen2(loc, path, H5P_DEFAULT);
    CHECK(d >= 0);
    if (d < 0) return -999;
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    hsize_t dim[4] = {0};
    int rank = H5Sget_simple_extent_dims(s, dim, NULL);
    CHECK(H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == 4);
    CHECK(rank == 1 && dim[0] == 1);
    int v = -999;
    CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0);
    H5Tclose(t);
    H5Sclose(s);
    H5Dclose(d);
    return v;
}

/* A rank-1 dataset of `expect` elements of memory type `mt` (elsize bytes each), or NULL. */
static void *raw_vec(hid_t loc, const char *path, int expect, hid_t mt, size_t elsize)
{
    hid_t d = H5Dopen2(loc, path, H5P_DEFAULT);
    CHECK(d >= 0);
    if (d < 0) return NULL;
    hid_t s = H5Dget_space(d);
    hsize_t dim[4] = {0};
    int rank = H5Sget_simple_extent_dims(s, dim, NULL);
    CHECK(rank == 1 && dim[0] == (hsize_t)expect);
    void *v = calloc((size_t)expect + 1, elsize);
    if (v && rank == 1 && dim[0] == (hsize_t)expect)
        CHECK(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Sclose(s);
    H5Dclose(d);
    return v;
}

static double *raw_dvec(hid_t loc, const char *path, int expect)
{
    return raw_vec(loc, path, expect, H5T_NATIVE_DOUBLE, sizeof(double));
}

static int *raw_ivec(hid_t loc, const char *path, int expect)
{
    return raw_vec(loc, path, expect, H5T_NATIVE_INT, sizeof(int));
}

/* Reads an FCLib CSC matrix group and returns it dense (column-major), checking its layout. */
static double *raw_csc_dense(hid_t loc, const char *g, int m, int n)
{
    char p[256];
    snprintf(p, sizeof p, "%s/nz", g);
    CHECK(raw_int1(loc, p) == -1);
    snprintf(p, sizeof p, "%s/m", g);
    CHECK(raw_int1(loc, p) == m);
    snprintf(p, sizeof p, "%s/n", g);
    CHECK(raw_int1(loc, p) == n);
    snprintf(p, sizeof p, "%s/nzmax", g);
    int nzmax = raw_int1(loc, p);
    snprintf(p, sizeof p, "%s/p", g);
    int *cp = raw_ivec(loc, p, n + 1);
    snprintf(p, sizeof p, "%s/i", g);
    int *ci = raw_ivec(loc, p, nzmax);
    snprintf(p, sizeof p, "%s/x", g);
    double *cx = raw_dvec(loc, p, nzmax);
    double *A = calloc((size_t)m * n + 1, sizeof(double));
    if (cp && ci && cx) {
        CHECK(cp[0] == 0 && cp[n] == nzmax);
        for (int j = 0; j < n; j++)
            for (int k = cp[j]; k < cp[j + 1]; k++) {
                CHECK(ci[k] >= 0 && ci[k] < m);
                CHECK(cx[k] != 0.0); /* only non-zeros are stored */
                if (ci[k] >= 0 && ci[k] < m) A[ci[k] + (size_t)j * m] = cx[k];
            }
    }
    free(cp);
    free(ci);
    free(cx);
    return A;
}

static int count_nonzero(size_t n, const double *a)
{
    int c = 0;
    for (size_t k = 0; k < n; k++) c += a[k] != 0.0;
    return c;
}

/* Checks the FCLib groups of one stored problem against the problem itself. */
static void check_fclib_groups(hid_t f, const ncp_problem *p, int expect_local, int expect_global)
{
    char g[256];
    snprintf(g, sizeof g, "/problems/%s", p->name);
    hid_t pg = H5Gopen2(f, g, H5P_DEFAULT);
    CHECK(pg >= 0);
    CHECK((H5Lexists(pg, "fclib_local", H5P_DEFAULT) > 0) == expect_local);
    CHECK((H5Lexists(pg, "fclib_global", H5P_DEFAULT) > 0) == expect_global);
    int m = p->m, nv = p->nv, nc = p->ncontacts;
    double *mu = calloc((size_t)nc + 1, sizeof(double));
    int k = 0;
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].type == NCP_CONTACT) mu[k++] = p->blocks[b].mu;
    if (expect_local) {
        CHECK(raw_int1(pg, "fclib_local/spacedim") == 3);
        CHECK(raw_int1(pg, "fclib_local/W/nzmax") == count_nonzero((size_t)m * m, p->D));
        double *W = raw_csc_dense(pg, "fclib_local/W", m, m);
        CHECK(same_bits(W, p->D, (size_t)m * m * sizeof(double))); /* W = D */
        double *qv = raw_dvec(pg, "fclib_local/vectors/q", m);
        CHECK(same_bits(qv, p->vf, (size_t)m * sizeof(double))); /* q = v_f */
        double *muv = raw_dvec(pg, "fclib_local/vectors/mu", nc);
        CHECK(same_bits(muv, mu, (size_t)nc * sizeof(double)));
        free(W);
        free(qv);
        free(muv);
    }
    if (expect_global) {
        CHECK(raw_int1(pg, "fclib_global/spacedim") == 3);
        double *M = raw_csc_dense(pg, "fclib_global/M", nv, nv);
        CHECK(same_bits(M, p->A, (size_t)nv * nv * sizeof(double))); /* M = A */
        /* H = J^T over the contact rows, G = J^T over the bilateral rows (row order kept) */
        double *Jd = calloc((size_t)m * nv + 1, sizeof(double));
        ncp_csr_to_dense(&p->J, Jd);
        int nb = 0;
        for (int b = 0; b < p->nblocks; b++) nb += p->blocks[b].type == NCP_BILATERAL;
        double *Href = calloc((size_t)nv * 3 * nc + 1, sizeof(double));
        double *Gref = calloc((size_t)nv * nb + 1, sizeof(double));
        double *wref = calloc((size_t)3 * nc + 1, sizeof(double));
        double *bref = calloc((size_t)nb + 1, sizeof(double));
        int ch = 0, cg = 0;
        for (int b = 0; b < p->nblocks; b++) {
            int r0 = p->blocks[b].row;
            if (p->blocks[b].type == NCP_CONTACT) {
                for (int r = r0; r < r0 + 3; r++, ch++) {
                    for (int j = 0; j < nv; j++) Href[j + (size_t)ch * nv] = Jd[r + (size_t)j * m];
                    wref[ch] = p->e[r];
                }
            } else {
                for (int j = 0; j < nv; j++) Gref[j + (size_t)cg * nv] = Jd[r0 + (size_t)j * m];
                bref[cg++] = p->e[r0];
            }
        }
        double *H = raw_csc_dense(pg, "fclib_global/H", nv, 3 * nc);
        CHECK(same_bits(H, Href, (size_t)nv * 3 * nc * sizeof(double)));
        double *fv = raw_dvec(pg, "fclib_global/vectors/f", nv);
        CHECK(same_bits(fv, p->b, (size_t)nv * sizeof(double))); /* f = b */
        double *wv = raw_dvec(pg, "fclib_global/vectors/w", 3 * nc);
        CHECK(same_bits(wv, wref, (size_t)3 * nc * sizeof(double))); /* w = e */
        double *muv = raw_dvec(pg, "fclib_global/vectors/mu", nc);
        CHECK(same_bits(muv, mu, (size_t)nc * sizeof(double)));
        CHECK((H5Lexists(pg, "fclib_global/G", H5P_DEFAULT) > 0) == (nb > 0));
        if (nb > 0) {
            double *G = raw_csc_dense(pg, "fclib_global/G", nv, nb);
            CHECK(same_bits(G, Gref, (size_t)nv * nb * sizeof(double)));
            double *bv = raw_dvec(pg, "fclib_global/vectors/b", nb);
            CHECK(same_bits(bv, bref, (size_t)nb * sizeof(double)));
            free(G);
            free(bv);
        }
        free(M);
        free(Jd);
        free(Href);
        free(Gref);
        free(wref);
        free(bref);
        free(H);
        free(fv);
        free(wv);
        free(muv);
    }
    /* our own groups: dense D as (m, m) and J as an FCLib CSR group */
    if (p->has_primal) {
        CHECK(raw_int1(pg, "primal/J/nz") == -2);
        CHECK(raw_int1(pg, "primal/J/m") == m);
        CHECK(raw_int1(pg, "primal/J/n") == nv);
    }
    free(mu);
    H5Gclose(pg);
}

static char *read_attr_str(hid_t obj, const char *name)
{
    /* any string attribute (fixed or variable length), read with the HL API */
    char *out = NULL;
    hsize_t dims[4] = {0};
    H5T_class_t cls;
    size_t size = 0;
    CHECK(H5LTget_attribute_info(obj, ".", name, dims, &cls, &size) >= 0);
    CHECK(cls == H5T_STRING);
    out = calloc(size + 1, 1);
    CHECK(H5LTget_attribute_string(obj, ".", name, out) >= 0);
    return out;
}

/* ---- corruption helpers ---- */

static void corrupt_double(const char *file, const char *dset, size_t index, double v)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0);
    hid_t d = H5Dopen2(f, dset, H5P_DEFAULT);
    CHECK(d >= 0);
    hid_t s = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    CHECK(n > (hssize_t)index);
    double *buf = calloc((size_t)n, sizeof(double));
    CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    buf[index] = v;
    CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    free(buf);
    H5Sclose(s);
    H5Dclose(d);
    H5Fclose(f);
}

static void corrupt_int(const char *file, const char *dset, size_t index, int v)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0);
    hid_t d = H5Dopen2(f, dset, H5P_DEFAULT);
    CHECK(d >= 0);
    hid_t s = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    CHECK(n > (hssize_t)index);
    int *buf = calloc((size_t)n, sizeof(int));
    CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    buf[index] = v;
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    free(buf);
    H5Sclose(s);
    H5Dclose(d);
    H5Fclose(f);
}

static void delete_link(const char *file, const char *path)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0);
    CHECK(H5Ldelete(f, path, H5P_DEFAULT) >= 0);
    H5Fclose(f);
}

static void replace_with_matrix(const char *file, const char *path)
{
    /* the dataset becomes a 2-D array: wrong rank */
    hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0);
    CHECK(H5Ldelete(f, path, H5P_DEFAULT) >= 0);
    hsize_t d[2] = {2, 2};
    double v[4] = {1, 2, 3, 4};
    CHECK(H5LTmake_dataset_double(f, path, 2, d, v) >= 0);
    H5Fclose(f);
}

/* Loading must fail with NCP_ERR_INPUT and a message that contains `needle`. */
static void expect_input_error(const char *file, const char *needle)
{
    ncp_error err = {0};
    ncp_problem *ps = (ncp_problem *)1;
    int n = -1;
    int rc = ncp_load_problems(file, &ps, &n, &err);
    tutil_check_two_step_read(file, rc, &err, ps, n); /* the same error, read in two steps */
    CHECK(rc == NCP_ERR_INPUT);
    CHECK(err.code == NCP_ERR_INPUT);
    CHECK(ps == NULL && n == 0);
    CHECK(strstr(err.msg, needle) != NULL);
    CHECK(strstr(err.msg, file) != NULL || strstr(err.msg, strrchr(file, '/') + 1) != NULL);
    if (rc != NCP_ERR_INPUT || !strstr(err.msg, needle))
        fprintf(stderr, "  expected \"%s\" in: [%d] %s\n", needle, rc, err.msg);
    if (rc == NCP_OK) ncp_problems_free(ps, n);
}

/* Writes a plain FCLib local file with a triplet W (raw HDF5, as libfclib would). */
static void write_raw_local(const char *path, int m, int nz, const int *rows, const int *cols,
                            const double *x, const double *q, int nmu, const double *mu)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t one = 1, dnz = (hsize_t)nz, dm = (hsize_t)m, dmu = (hsize_t)nmu;
    int three = 3;
    H5Gclose(H5Gcreate2(f, "/fclib_local", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(H5Gcreate2(f, "/fclib_local/W", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(H5Gcreate2(f, "/fclib_local/vectors", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    CHECK(H5LTmake_dataset_int(f, "/fclib_local/spacedim", 1, &one, &three) >= 0);
    CHECK(H5LTmake_dataset_int(f, "/fclib_local/W/nzmax", 1, &one, &nz) >= 0);
    CHECK(H5LTmake_dataset_int(f, "/fclib_local/W/m", 1, &one, &m) >= 0);
    CHECK(H5LTmake_dataset_int(f, "/fclib_local/W/n", 1, &one, &m) >= 0);
    CHECK(H5LTmake_dataset_int(f, "/fclib_local/W/nz", 1, &one, &nz) >= 0);
    CHECK(H5LTmake_dataset_int(f, "/fclib_local/W/p", 1, &dnz, rows) >= 0);
    CHECK(H5LTmake_dataset_int(f, "/fclib_local/W/i", 1, &dnz, cols) >= 0);
    CHECK(H5LTmake_dataset_double(f, "/fclib_local/W/x", 1, &dnz, x) >= 0);
    CHECK(H5LTmake_dataset_double(f, "/fclib_local/vectors/q", 1, &dm, q) >= 0);
    CHECK(H5LTmake_dataset_double(f, "/fclib_local/vectors/mu", 1, &dmu, mu) >= 0);
    H5Fclose(f);
}

/* ---- tests ---- */

static void test_round_trip(void)
{
    ncp_error err = {0};
    ncp_problem p[5];
    /* 0: contact only */
    CHECK_OK(tutil_random_problem(&p[0], 11, 8, 3, 0, 0, 0, &err), &err);
    set_name(&p[0], "000000", 0);
    add_geometry(&p[0], 1);
    p[0].b[0] = -0.0; /* the sign of zero must survive too */
    p[0].h = 1.0 / 240.0;
    CHECK_OK(ncp_problem_compute_dual(&p[0], &err), &err); /* v_f of the new b */
    /* 1: every block type, with a structure */
    CHECK_OK(tutil_random_problem(&p[1], 12, 10, 2, 2, 1, 1, &err), &err);
    set_name(&p[1], "000001", 1);
    add_geometry(&p[1], 2);
    p[1].structure = make_structure(&p[1], 5);
    /* 2: bilateral + contact (fclib_global with G, no fclib_local); its v_f is not what the
     * primal data give, so dual/ is stored too and read back as stored */
    CHECK_OK(tutil_random_problem(&p[2], 13, 7, 2, 2, 0, 0, &err), &err);
    set_name(&p[2], "case_2", 2);
    add_geometry(&p[2], 3);
    p[2].vf[1] += 0.25;
    /* 3: dual only (contact rows), stored with dual/ and fclib_local, no primal */
    CHECK_OK(tutil_random_problem(&p[3], 14, 6, 2, 0, 0, 0, &err), &err);
    set_name(&p[3], "a_dual_only", 3);
    free(p[3].A);
    free(p[3].b);
    free(p[3].e);
    ncp_csr_free(&p[3].J);
    p[3].A = p[3].b = p[3].e = NULL;
    p[3].has_primal = 0;
    p[3].nv = 0;
    /* 4: primal only (dual recomputed on load) */
    CHECK_OK(tutil_random_problem(&p[4], 15, 9, 3, 0, 0, 0, &err), &err);
    set_name(&p[4], "0", 4);
    double *D4 = malloc((size_t)p[4].m * p[4].m * sizeof(double));
    double *vf4 = malloc((size_t)p[4].m * sizeof(double));
    memcpy(D4, p[4].D, (size_t)p[4].m * p[4].m * sizeof(double));
    memcpy(vf4, p[4].vf, (size_t)p[4].m * sizeof(double));
    free(p[4].D);
    free(p[4].vf);
    p[4].D = p[4].vf = NULL;
    p[4].has_dual = 0;

    char path[512], tmp[600];
    snprintf(path, sizeof path, "%s/problems.h5", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    /* a scene JSON larger than HDF5's 64 KiB compact-attribute limit */
    size_t jl = 100000;
    char *json = malloc(jl + 64);
    int jo = snprintf(json, jl + 64, "{\"name\": \"unit-scene\", \"dt\": 0.004166666666666667, \"pad\": \"");
    memset(json + jo, 'x', jl);
    snprintf(json + jo + jl, 64, "\"}");
    ncp_store *st = NULL;
    CHECK_OK(ncp_store_create(path, "unit-scene", json, 42, &st, &err), &err);
    ncp_store_set_fclib_groups(st, 1); /* --store-fclib: checked below against the problems */
    for (int k = 0; k < 5; k++) CHECK_OK(ncp_store_append(st, &p[k], &err), &err);
    CHECK(exists(tmp));
    CHECK(!exists(path));
    /* duplicate names are refused, and the store stays usable */
    ncp_error e2 = {0};
    CHECK(ncp_store_append(st, &p[0], &e2) == NCP_ERR_INPUT);
    CHECK(strstr(e2.msg, "000000") != NULL);
    CHECK_OK(ncp_store_close(st, &err), &err);
    CHECK(exists(path));
    CHECK(!exists(tmp));
    CHECK(count_tmp() == 0);

    /* raw checks of the file */
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    hid_t meta = H5Gopen2(f, "/meta", H5P_DEFAULT);
    char *s = read_attr_str(meta, "ncpbench_version");
    CHECK(s && !strcmp(s, NCP_VERSION));
    free(s);
    s = read_attr_str(meta, "scene");
    CHECK(s && !strcmp(s, json));
    free(s);
    s = read_attr_str(meta, "scene_name");
    CHECK(s && !strcmp(s, "unit-scene"));
    free(s);
    uint64_t seed = 0;
    CHECK(H5LTget_attribute(f, "/meta", "seed", H5T_NATIVE_UINT64, &seed) >= 0);
    CHECK(seed == 42);
    H5Gclose(meta);
    check_fclib_groups(f, &p[0], 1, 1);
    check_fclib_groups(f, &p[1], 0, 0); /* unilateral + soft rows: neither FCLib group */
    check_fclib_groups(f, &p[2], 0, 1); /* bilateral rows: global with G, no local */
    check_fclib_groups(f, &p[3], 1, 0); /* dual only: local only */
    {
        /* primal-only: fclib_local holds the D computed from the primal data */
        ncp_problem q4;
        ncp_problem_init(&q4);
        q4 = p[4];
        q4.D = D4;
        q4.vf = vf4;
        q4.has_dual = 1;
        check_fclib_groups(f, &q4, 1, 1);
        CHECK(H5Lexists(f, "/problems/0/dual", H5P_DEFAULT) == 0);
    }
    /* dual/ only where the primal data do not give D and v_f bit for bit */
    CHECK(H5Lexists(f, "/problems/000000/dual", H5P_DEFAULT) == 0);
    CHECK(H5Lexists(f, "/problems/000001/dual", H5P_DEFAULT) == 0);
    CHECK(H5Lexists(f, "/problems/case_2/dual", H5P_DEFAULT) > 0);
    CHECK(H5Lexists(f, "/problems/a_dual_only/dual", H5P_DEFAULT) > 0);
    CHECK(H5Lexists(f, "/problems/a_dual_only/primal", H5P_DEFAULT) == 0);
    CHECK(H5Lexists(f, "/problems/000001/structure", H5P_DEFAULT) > 0);
    CHECK(H5Lexists(f, "/problems/000000/structure", H5P_DEFAULT) == 0);
    H5Fclose(f);

    /* load back: same order, every array identical bit for bit */
    ncp_problem *q = NULL;
    int n = 0;
    CHECK_OK(ncp_load_problems(path, &q, &n, &err), &err);
    tutil_check_two_step_read(path, NCP_OK, &err, q, n); /* raw + finish, as MPI ranks read */
    CHECK(n == 5);
    if (n == 5) {
        check_same_problem(&p[0], &q[0], 1, 1);
        check_same_problem(&p[1], &q[1], 1, 1);
        check_same_problem(&p[2], &q[2], 1, 1);
        check_same_problem(&p[3], &q[3], 0, 1);
        check_same_problem(&p[4], &q[4], 1, 0);
        /* dual-only came back with a primal form reproducing D: J J^T = D (A = I, b = 0) */
        CHECK(q[3].has_primal && q[3].nv > 0);
        if (q[3].has_primal) {
            int m = q[3].m, nv = q[3].nv;
            double *Jd = calloc((size_t)m * nv, sizeof(double));
            ncp_csr_to_dense(&q[3].J, Jd);
            double maxerr = 0, maxd = 0;
            for (int i = 0; i < m; i++)
                for (int j = 0; j < m; j++) {
                    double sdot = 0;
                    for (int k = 0; k < nv; k++) sdot += Jd[i + (size_t)k * m] * Jd[j + (size_t)k * m];
                    maxerr = fmax(maxerr, fabs(sdot - q[3].D[i + (size_t)j * m]));
                    maxd = fmax(maxd, fabs(q[3].D[i + (size_t)j * m]));
                }
            CHECK(maxerr <= 1e-12 * maxd);
            CHECK(same_bits(q[3].e, q[3].vf, (size_t)m * sizeof(double)));
            free(Jd);
        }
        /* primal-only came back without D (built on demand), with v_f; D on demand by the
         * same algebra */
        CHECK(!q[4].has_dual && !q[4].D && q[4].vf);
        CHECK(ncp_problem_need_dual(&q[4], &err) == NCP_OK);
        if (q[4].has_dual) {
            CHECK(same_bits(q[4].D, D4, (size_t)q[4].m * q[4].m * sizeof(double)));
            CHECK(same_bits(q[4].vf, vf4, (size_t)q[4].m * sizeof(double)));
        }
    }
    ncp_problems_free(q, n);

    /* ---- corrupt copies ---- */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/bad.h5", dir);

    /* text file */
    FILE *tf = fopen(bad, "w");
    fputs("this is not an HDF5 file\n", tf);
    fclose(tf);
    expect_input_error(bad, "is not an HDF5 file (or is truncated)");
    /* truncated copies */
    long sz = file_size(path);
    long cuts[3] = {sz / 2, sz - 100, 400};
    for (int k = 0; k < 3; k++) {
        copy_file(path, bad, cuts[k]);
        expect_input_error(bad, "is not an HDF5 file (or is truncated)");
    }
    /* missing file */
    snprintf(bad, sizeof bad, "%s/does-not-exist.h5", dir);
    expect_input_error(bad, "No such file");
    snprintf(bad, sizeof bad, "%s/bad.h5", dir);

    copy_file(path, bad, -1);
    delete_link(bad, "/problems/case_2/dual/vf");
    expect_input_error(bad, "/problems/case_2/dual/vf: missing dataset");

    copy_file(path, bad, -1);
    delete_link(bad, "/problems/000001/primal/J/x");
    expect_input_error(bad, "/problems/000001/primal/J/x: missing dataset");

    copy_file(path, bad, -1);
    corrupt_double(bad, "/problems/000001/primal/A", 7, NAN);
    expect_input_error(bad, "/problems/000001/primal/A: entry 7 is nan");

    copy_file(path, bad, -1);
    corrupt_double(bad, "/problems/case_2/dual/D", 3, INFINITY);
    expect_input_error(bad, "/problems/case_2/dual/D");

    copy_file(path, bad, -1);
    corrupt_double(bad, "/problems/000000/blocks/mu", 1, -0.25);
    expect_input_error(bad, "/problems/000000/blocks/mu");

    copy_file(path, bad, -1);
    corrupt_int(bad, "/problems/000001/primal/J/i", 4, 10); /* nv = 10: one past the end */
    expect_input_error(bad, "/problems/000001/primal/J/i");

    copy_file(path, bad, -1);
    corrupt_int(bad, "/problems/000001/primal/J/p", 2, -5);
    expect_input_error(bad, "/problems/000001/primal/J/p");

    copy_file(path, bad, -1);
    corrupt_int(bad, "/problems/000000/blocks/type", 0, 9);
    expect_input_error(bad, "/problems/000000/blocks/type");

    copy_file(path, bad, -1);
    corrupt_int(bad, "/problems/000001/structure/link_block", 0, 99);
    expect_input_error(bad, "/problems/000001/structure/link_block");

    copy_file(path, bad, -1);
    corrupt_double(bad, "/problems/000001/structure/dof_diag", 1, NAN);
    expect_input_error(bad, "/problems/000001/structure/dof_diag");

    copy_file(path, bad, -1);
    replace_with_matrix(bad, "/problems/000000/primal/b");
    expect_input_error(bad, "/problems/000000/primal/b: has shape (2, 2), expected a vector");

    copy_file(path, bad, -1);
    delete_link(bad, "/problems/000000/contacts/frame");
    expect_input_error(bad, "/problems/000000/contacts/frame");

    copy_file(path, bad, -1);
    corrupt_double(bad, "/problems/000000/contacts/stiffness", 1, -3.0);
    expect_input_error(bad, "/problems/000000/contacts/stiffness: entry 1 is -3");

    copy_file(path, bad, -1);
    corrupt_double(bad, "/problems/000000/contacts/dissipation", 0, -1.0);
    expect_input_error(bad, "/problems/000000/contacts/dissipation: entry 0 is -1");

    /* files written before contacts/stiffness and dissipation existed: read as 0 (rigid, no
     * dissipation: the defaults), everything else intact */
    copy_file(path, bad, -1);
    delete_link(bad, "/problems/000000/contacts/stiffness");
    delete_link(bad, "/problems/000000/contacts/dissipation");
    {
        ncp_problem *o = NULL;
        int no = 0;
        ncp_error e2 = {0};
        CHECK_OK(ncp_load_problems(bad, &o, &no, &e2), &e2);
        CHECK(no == 5 && o && o[0].contacts);
        if (no == 5 && o && o[0].contacts) {
            CHECK(o[0].ncontacts == 3);
            for (int k = 0; k < o[0].ncontacts; k++)
                CHECK(o[0].contacts[k].stiffness == 0.0 && o[0].contacts[k].dissipation == 0.0);
            CHECK(o[0].contacts[1].gap == p[0].contacts[1].gap);
            CHECK(o[1].contacts[1].stiffness == p[1].contacts[1].stiffness); /* untouched */
            CHECK(o[1].contacts[1].stiffness > 0.0);
        }
        ncp_problems_free(o, no);
    }

    /* plain FCLib local files with bad content */
    int rows[4] = {0, 1, 2, 3}, cols[4] = {0, 1, 2, 3};
    double x[4] = {1, 1, 1, 1}, qv[4] = {0, 0, 0, 0}, mu1[1] = {0.5};
    write_raw_local(bad, 4, 4, rows, cols, x, qv, 1, mu1);
    expect_input_error(bad, "/fclib_local/W: has m = 4 rows, not a multiple of spacedim = 3");
    int rows3[3] = {0, 1, 3}, cols3[3] = {0, 1, 2};
    double x3[3] = {1, 1, 1}, q3[3] = {0, 0, 0}, mun[1] = {-0.5};
    write_raw_local(bad, 3, 3, rows3, cols3, x3, q3, 1, mu1);
    expect_input_error(bad, "/fclib_local/W/p: row index p[2] = 3 is out of range");
    rows3[2] = 2;
    write_raw_local(bad, 3, 3, rows3, cols3, x3, q3, 1, mun);
    expect_input_error(bad, "/fclib_local/vectors/mu: friction coefficient mu[0] = -0.5 is negative");
    x3[1] = NAN;
    write_raw_local(bad, 3, 3, rows3, cols3, x3, q3, 1, mu1);
    expect_input_error(bad, "/fclib_local/W/x: entry 1 is nan");
    x3[1] = 1;
    write_raw_local(bad, 3, 3, rows3, cols3, x3, q3, 1, mu1);
    {
        ncp_problem *ok = NULL;
        int nok = 0;
        CHECK_OK(ncp_load_problems(bad, &ok, &nok, &err), &err); /* the fixed file loads */
        CHECK(nok == 1 && ok && !strcmp(ok[0].name, "bad"));
        ncp_problems_free(ok, nok);
    }
    {
        /* a header claiming a huge W: refused before a 29 GB dense D is allocated */
        int big = 60000, r1 = 5, c1 = 7;
        double one = 1.0, *qb = calloc((size_t)big, sizeof(double)), *mub = calloc((size_t)big / 3, sizeof(double));
        write_raw_local(bad, big, 1, &r1, &c1, &one, qb, big / 3, mub);
        expect_input_error(bad, "/fclib_local/W: a dense 60000 x 60000 matrix");
        free(qb);
        free(mub);
        write_raw_local(bad, 3, 3, rows3, cols3, x3, q3, 1, mu1);
    }
    corrupt_int(bad, "/fclib_local/W/nz", 0, -3);
    expect_input_error(bad, "/fclib_local/W/nz: nz = -3 is not an FCLib storage");
    write_raw_local(bad, 3, 3, rows3, cols3, x3, q3, 1, mu1);
    delete_link(bad, "/fclib_local/vectors/q");
    expect_input_error(bad, "/fclib_local/vectors/q: missing dataset");
    /* an HDF5 file that is neither ours nor FCLib */
    {
        hid_t ef = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        H5Gclose(H5Gcreate2(ef, "/something", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        H5Fclose(ef);
        expect_input_error(bad, "no /problems, /fclib_local or /fclib_global group");
    }
    remove(bad);

    /* a failed append (NaN in the data) leaves the store usable and writes nothing */
    snprintf(path, sizeof path, "%s/aborted.h5", dir);
    CHECK_OK(ncp_store_create(path, "s", "{}", 1, &st, &err), &err);
    CHECK_OK(ncp_store_append(st, &p[0], &err), &err);
    double keep = p[2].b[1];
    p[2].b[1] = NAN;
    ncp_error e3 = {0};
    CHECK(ncp_store_append(st, &p[2], &e3) == NCP_ERR_INPUT);
    CHECK(strstr(e3.msg, "case_2") != NULL);
    p[2].b[1] = keep;
    char *oldname = p[2].name;
    p[2].name = "bad/name";
    ncp_error e4 = {0};
    CHECK(ncp_store_append(st, &p[2], &e4) == NCP_ERR_INPUT);
    p[2].name = oldname;
    CHECK(count_tmp() == 1);
    ncp_store_abort(st);
    CHECK(!exists(path));
    CHECK(count_tmp() == 0);
    /* a store in a directory that does not exist: clear error, nothing left */
    ncp_error e5 = {0};
    snprintf(path, sizeof path, "%s/no/such/dir/p.h5", dir);
    CHECK(ncp_store_create(path, "s", "{}", 1, &st, &e5) == NCP_ERR_IO);
    CHECK(st == NULL);
    CHECK(strstr(e5.msg, "no/such/dir") != NULL);

    for (int k = 0; k < 5; k++) ncp_problem_free(&p[k]);
    free(json);
    free(D4);
    free(vf4);
}

/* ---- captured problems: stored once, D and v_f rebuilt bit for bit ---- */

typedef struct keep_sink {
    ncp_store *st;
    ncp_problem p[64];
    int n;
} keep_sink;

static int keep_fn(void *ctx, const ncp_problem *p, ncp_error *err)
{
    keep_sink *k = ctx;
    if (k->n < 64) {
        int rc = ncp_problem_copy(&k->p[k->n], p, err);
        if (rc) return rc;
        k->n++;
    }
    return ncp_store_append(k->st, p, err);
}

/* 1 when the dataset is chunked with the deflate filter. */
static int is_deflated(hid_t f, const char *path)
{
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    if (d < 0) return -1;
    hid_t pl = H5Dget_create_plist(d);
    int yes = H5Pget_layout(pl) == H5D_CHUNKED;
    int deflate = 0;
    for (int k = 0; yes && k < H5Pget_nfilters(pl); k++) {
        unsigned flags, cd[8];
        size_t ncd = 8;
        if (H5Pget_filter2(pl, (unsigned)k, &flags, &ncd, cd, 0, NULL, NULL) == H5Z_FILTER_DEFLATE)
            deflate = 1;
    }
    H5Pclose(pl);
    H5Dclose(d);
    return yes && deflate;
}

/* Captures `steps` problems of a scene into problems.h5 (default options: no FCLib groups),
 * loads them back and compares D and v_f with what the capture computed, memcmp. */
static int test_capture_reload(const char *scene, int steps)
{
    ncp_error err = {0};
    ncp_scene *sc = NULL;
    CHECK_OK(ncp_scene_load(scene, ncp_registry_catalog(), &sc, &err), &err);
    if (!sc) return 0;
    char path[512];
    snprintf(path, sizeof path, "%s/captured.h5", dir);
    keep_sink *k = calloc(1, sizeof *k);
    CHECK_OK(ncp_store_create(path, ncp_scene_name(sc), ncp_scene_text(sc), 3, &k->st, &err), &err);
    ncp_capture_opts o = {0};
    o.seed = 3;
    o.steps = steps;
    CHECK_OK(ncp_capture_scene(sc, &o, keep_fn, k, &err), &err);
    CHECK_OK(ncp_store_close(k->st, &err), &err);
    ncp_scene_free(sc);
    CHECK(k->n >= 2);

    /* what the file holds: primal data, no dual/ and no FCLib groups, big datasets deflated */
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    int deflate = H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0, checked = 0;
    for (int i = 0; i < k->n && f >= 0; i++) {
        const ncp_problem *p = &k->p[i];
        char g[300];
        CHECK(p->has_primal && !p->has_dual && !p->D && p->vf); /* D only on demand */
        snprintf(g, sizeof g, "/problems/%s/dual", p->name);
        CHECK(H5Lexists(f, g, H5P_DEFAULT) == 0);
        snprintf(g, sizeof g, "/problems/%s/fclib_local", p->name);
        CHECK(H5Lexists(f, g, H5P_DEFAULT) == 0);
        snprintf(g, sizeof g, "/problems/%s/fclib_global", p->name);
        CHECK(H5Lexists(f, g, H5P_DEFAULT) == 0);
        /* J/x deflated from NCP_H5_COMPRESS_MIN bytes on (when this HDF5 can), smaller
         * datasets contiguous */
        snprintf(g, sizeof g, "/problems/%s/primal/J/x", p->name);
        int big = (size_t)p->J.nnz * sizeof(double) >= NCP_H5_COMPRESS_MIN;
        CHECK(is_deflated(f, g) == (deflate && big));
        checked += deflate && big;
    }
    if (f >= 0) H5Fclose(f);

    ncp_problem *q = NULL;
    int n = 0;
    CHECK_OK(ncp_load_problems(path, &q, &n, &err), &err);
    tutil_check_two_step_read(path, NCP_OK, &err, q, n); /* real captures, in two steps */
    CHECK(n == k->n);
    int same = 0;
    for (int i = 0; i < n && i < k->n; i++) {
        const ncp_problem *a = &k->p[i], *b = &q[i];
        check_same_problem(a, b, 1, 1); /* D on demand, v_f: memcmp against the capture's */
        size_t m = (size_t)a->m;
        /* neither keeps D; the one each builds on demand is the same bits */
        ncp_problem va, vb;
        double *oa = NULL, *ob = NULL;
        int ok = !a->has_dual && !b->has_dual && a->m == b->m &&
                 !ncp_problem_dual_view(a, &va, &oa, &err) &&
                 !ncp_problem_dual_view(b, &vb, &ob, &err);
        same += ok && !memcmp(va.D, vb.D, m * m * sizeof(double)) &&
                !memcmp(a->vf, b->vf, m * sizeof(double));
        free(oa);
        free(ob);
    }
    CHECK(same == n);
    printf("%s: %d captured problems reloaded, D and v_f bitwise equal in %d\n", scene, n, same);
    ncp_problems_free(q, n);
    for (int i = 0; i < k->n; i++) ncp_problem_free(&k->p[i]);
    free(k);
    remove(path);
    return checked;
}

/* ---- files written before the compact layout ---- */

static void raw_attr_int(hid_t g, const char *name, int v)
{
    CHECK(H5LTset_attribute_int(g, ".", name, &v, 1) >= 0);
}

static void raw_attr_str(hid_t g, const char *name, const char *v)
{
    CHECK(H5LTset_attribute_string(g, ".", name, v) >= 0);
}

/* Writes p the way ncpbench wrote problems.h5 before (contiguous datasets, dual/ beside
 * primal/, an fclib_local group), with raw HDF5 calls independent of src/store. */
static void write_old_problem(hid_t problems, const ncp_problem *p)
{
    hid_t g = H5Gcreate2(problems, p->name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g >= 0);
    int m = p->m, nv = p->nv, nb = p->nblocks, nc = p->ncontacts;
    raw_attr_int(g, "nv", nv);
    raw_attr_int(g, "m", m);
    raw_attr_int(g, "nblocks", nb);
    raw_attr_int(g, "ncontacts", nc);
    CHECK(H5LTset_attribute_double(g, ".", "h", &p->h, 1) >= 0);
    raw_attr_str(g, "scene", p->scene);
    raw_attr_int(g, "step", p->step);
    raw_attr_int(g, "case_index", p->case_index);
    unsigned long long seed = p->seed;
    CHECK(H5LTset_attribute_ulong(g, ".", "seed", (unsigned long *)&seed, 1) >= 0);
    raw_attr_str(g, "driver", p->driver);
    int *iv = calloc((size_t)nb * 3 + 1, sizeof(int));
    double *dv = calloc((size_t)nb * 4 + 1, sizeof(double));
    for (int b = 0; b < nb; b++) {
        iv[b] = p->blocks[b].type;
        iv[nb + b] = p->blocks[b].row;
        iv[2 * nb + b] = p->blocks[b].contact;
        dv[b] = p->blocks[b].mu;
        dv[nb + b] = p->blocks[b].k;
        dv[2 * nb + b] = p->blocks[b].c;
        dv[3 * nb + b] = p->blocks[b].phi;
    }
    hsize_t d1 = (hsize_t)nb;
    H5Gclose(H5Gcreate2(g, "blocks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    CHECK(H5LTmake_dataset_int(g, "blocks/type", 1, &d1, iv) >= 0);
    CHECK(H5LTmake_dataset_int(g, "blocks/row", 1, &d1, iv + nb) >= 0);
    CHECK(H5LTmake_dataset_int(g, "blocks/contact", 1, &d1, iv + 2 * nb) >= 0);
    CHECK(H5LTmake_dataset_double(g, "blocks/mu", 1, &d1, dv) >= 0);
    CHECK(H5LTmake_dataset_double(g, "blocks/k", 1, &d1, dv + nb) >= 0);
    CHECK(H5LTmake_dataset_double(g, "blocks/c", 1, &d1, dv + 2 * nb) >= 0);
    CHECK(H5LTmake_dataset_double(g, "blocks/phi", 1, &d1, dv + 3 * nb) >= 0);
    free(iv);
    free(dv);
    /* dense matrices as (rows, cols), row-major in the file */
    double *T = malloc(((size_t)nv * nv + (size_t)m * m + 1) * sizeof(double));
    H5Gclose(H5Gcreate2(g, "primal", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < nv; j++) T[(size_t)i * nv + j] = p->A[i + (size_t)j * nv];
    hsize_t dA[2] = {(hsize_t)nv, (hsize_t)nv}, dnv = (hsize_t)nv, dm = (hsize_t)m;
    CHECK(H5LTmake_dataset_double(g, "primal/A", 2, dA, T) >= 0);
    CHECK(H5LTmake_dataset_double(g, "primal/b", 1, &dnv, p->b) >= 0);
    CHECK(H5LTmake_dataset_double(g, "primal/e", 1, &dm, p->e) >= 0);
    H5Gclose(H5Gcreate2(g, "primal/J", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    int one[1], nz = p->J.nnz;
    hsize_t d11 = 1, dp = (hsize_t)m + 1, dnz = (hsize_t)nz;
    one[0] = nz;
    CHECK(H5LTmake_dataset_int(g, "primal/J/nzmax", 1, &d11, one) >= 0);
    one[0] = m;
    CHECK(H5LTmake_dataset_int(g, "primal/J/m", 1, &d11, one) >= 0);
    one[0] = nv;
    CHECK(H5LTmake_dataset_int(g, "primal/J/n", 1, &d11, one) >= 0);
    one[0] = -2;
    CHECK(H5LTmake_dataset_int(g, "primal/J/nz", 1, &d11, one) >= 0);
    CHECK(H5LTmake_dataset_int(g, "primal/J/p", 1, &dp, p->J.rowptr) >= 0);
    CHECK(H5LTmake_dataset_int(g, "primal/J/i", 1, &dnz, p->J.col) >= 0);
    CHECK(H5LTmake_dataset_double(g, "primal/J/x", 1, &dnz, p->J.val) >= 0);
    H5Gclose(H5Gcreate2(g, "dual", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) T[(size_t)i * m + j] = p->D[i + (size_t)j * m];
    hsize_t dD[2] = {(hsize_t)m, (hsize_t)m};
    CHECK(H5LTmake_dataset_double(g, "dual/D", 2, dD, T) >= 0);
    CHECK(H5LTmake_dataset_double(g, "dual/vf", 1, &dm, p->vf) >= 0);
    if (nc > 0 && p->contacts) {
        double *pt = malloc((size_t)nc * 13 * sizeof(double));
        int *body = malloc((size_t)nc * 2 * sizeof(int));
        for (int c = 0; c < nc; c++) {
            pt[c] = p->contacts[c].gap;
            memcpy(pt + nc + 3 * c, p->contacts[c].point, 3 * sizeof(double));
            memcpy(pt + 4 * nc + 9 * c, p->contacts[c].frame, 9 * sizeof(double));
            body[2 * c] = p->contacts[c].body[0];
            body[2 * c + 1] = p->contacts[c].body[1];
        }
        H5Gclose(H5Gcreate2(g, "contacts", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        hsize_t dc = (hsize_t)nc, d3[2] = {(hsize_t)nc, 3}, d9[3] = {(hsize_t)nc, 3, 3},
                db[2] = {(hsize_t)nc, 2};
        CHECK(H5LTmake_dataset_double(g, "contacts/gap", 1, &dc, pt) >= 0);
        CHECK(H5LTmake_dataset_double(g, "contacts/point", 2, d3, pt + nc) >= 0);
        CHECK(H5LTmake_dataset_double(g, "contacts/frame", 3, d9, pt + 4 * nc) >= 0);
        CHECK(H5LTmake_dataset_int(g, "contacts/body", 2, db, body) >= 0);
        free(pt);
        free(body);
    }
    /* an fclib_local group as the old writer put there (the reader ignores it) */
    H5Gclose(H5Gcreate2(g, "fclib_local", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(H5Gcreate2(g, "fclib_local/vectors", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    CHECK(H5LTmake_dataset_double(g, "fclib_local/vectors/q", 1, &dm, p->vf) >= 0);
    one[0] = 3;
    CHECK(H5LTmake_dataset_int(g, "fclib_local/spacedim", 1, &d11, one) >= 0);
    free(T);
    H5Gclose(g);
}

static void test_old_layout(void)
{
    ncp_error err = {0};
    ncp_problem p[2];
    CHECK_OK(tutil_random_problem(&p[0], 21, 9, 4, 0, 0, 0, &err), &err);
    set_name(&p[0], "000000", 0);
    CHECK_OK(tutil_random_problem(&p[1], 22, 40, 12, 0, 0, 0, &err), &err);
    set_name(&p[1], "000001", 1);
    /* the stored D is the one used, even where the primal data would give another */
    p[1].D[0] += 0.5;
    char path[512];
    snprintf(path, sizeof path, "%s/old.h5", dir);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f >= 0);
    H5Gclose(H5Gcreate2(f, "meta", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    hid_t pr = H5Gcreate2(f, "problems", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(pr >= 0);
    for (int i = 0; i < 2; i++) write_old_problem(pr, &p[i]);
    H5Gclose(pr);
    H5Fclose(f);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(is_deflated(f, "/problems/000001/dual/D") == 0); /* contiguous, as before */
    H5Fclose(f);

    ncp_problem *q = NULL;
    int n = 0;
    CHECK_OK(ncp_load_problems(path, &q, &n, &err), &err);
    CHECK(n == 2);
    if (n == 2) {
        check_same_problem(&p[0], &q[0], 1, 1);
        check_same_problem(&p[1], &q[1], 1, 1);
        CHECK(q[1].D[0] == p[1].D[0]);
    }
    ncp_problems_free(q, n);
    ncp_problem_free(&p[0]);
    ncp_problem_free(&p[1]);
    remove(path);
}

static void test_solutions(void)
{
    ncp_error err = {0};
    char path[512], tmp[600], cp[600];
    snprintf(path, sizeof path, "%s/solutions.h5", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    snprintf(cp, sizeof cp, "%s/snapshot.h5", dir);
    double r[6] = {1, 0.5, -0.25, 0, 0, -0.0}, u[6] = {0, 1, 2, 3, 4, 5}, v[4] = {9, 8, 7, 6};
    double sv[4] = {-1, 2.5, 0, 1e-300};
    ncp_solutions *s = NULL;
    CHECK_OK(ncp_solutions_create(path, &s, &err), &err);
    CHECK_OK(ncp_solutions_write(s, "pgs", "000000", 6, r, u, 4, v, 0, NULL, 17, 1, "converged", &err), &err);
    CHECK_OK(ncp_solutions_write(s, "nsn-nm", "000000", 6, u, r, 0, NULL, 0, NULL, 3, 0, "max_iter", &err), &err);
    /* flushed: a byte copy of the temporary file taken now (as if the process died) is a
     * readable HDF5 file with the results */
    CHECK(exists(tmp) && !exists(path));
    copy_file(tmp, cp, -1);
    hid_t f = H5Fopen(cp, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    if (f >= 0) {
        double *rr = raw_dvec(f, "/solutions/pgs/000000/r", 6);
        CHECK(same_bits(rr, r, sizeof r));
        free(rr);
        int it = 0;
        CHECK(H5LTget_attribute_int(f, "/solutions/nsn-nm/000000", "iterations", &it) >= 0);
        CHECK(it == 3);
        H5Fclose(f);
    }
    remove(cp);
    /* rewriting a result replaces it */
    r[0] = 2.0;
    CHECK_OK(ncp_solutions_write(s, "pgs", "000000", 6, r, u, 4, v, 4, sv, 18, 1, "converged", &err), &err);
    ncp_error e2 = {0};
    CHECK(ncp_solutions_write(s, "a/b", "000000", 6, r, u, 0, NULL, 0, NULL, 1, 1, "x", &e2) == NCP_ERR_INPUT);
    CHECK_OK(ncp_solutions_close(s, &err), &err);
    CHECK(exists(path) && !exists(tmp));

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    double *rr = raw_dvec(f, "/solutions/pgs/000000/r", 6);
    double *uu = raw_dvec(f, "/solutions/pgs/000000/u", 6);
    double *vv = raw_dvec(f, "/solutions/pgs/000000/v", 4);
    double *ss = raw_dvec(f, "/solutions/pgs/000000/v_solver", 4); /* the rewrite's, apart */
    CHECK(same_bits(rr, r, sizeof r));
    CHECK(same_bits(uu, u, sizeof u));
    CHECK(same_bits(vv, v, sizeof v));
    CHECK(same_bits(ss, sv, sizeof sv));
    CHECK(H5Lexists(f, "/solutions/nsn-nm/000000/v_solver", H5P_DEFAULT) == 0);
    free(rr);
    free(uu);
    free(vv);
    free(ss);
    int it = 0, conv = -1;
    CHECK(H5LTget_attribute_int(f, "/solutions/pgs/000000", "iterations", &it) >= 0);
    CHECK(H5LTget_attribute_int(f, "/solutions/pgs/000000", "converged", &conv) >= 0);
    CHECK(it == 18 && conv == 1);
    CHECK(H5Lexists(f, "/solutions/nsn-nm/000000/v", H5P_DEFAULT) == 0);
    hid_t g = H5Gopen2(f, "/solutions/nsn-nm/000000", H5P_DEFAULT);
    char *st = read_attr_str(g, "status");
    CHECK(st && !strcmp(st, "max_iter"));
    free(st);
    H5Gclose(g);
    H5Fclose(f);
    remove(path);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    snprintf(dir, sizeof dir, "/tmp/ncp_test_store_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip();
    /* boltnut: 6 dofs, many contacts (J/x of several KiB); quadruped: a multibody with
     * structure/ */
    int deflated = test_capture_reload("scenes/boltnut.json", 4);
    test_capture_reload("scenes/quadruped.json", 3);
    CHECK(H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0 || deflated > 0);
    test_old_layout();
    test_solutions();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return tcheck_exit("store");
}
