/* FCLib interoperability, checked against Debian's libfclib 3.1 (the reference implementation
 * of the format): our exports read by fclib_read_local / fclib_read_global, and files written
 * by fclib_write_local / fclib_write_global (CSC, CSR, triplet storage; V/R and G equality
 * rows) read by ncp_load_problems. The local/global relation W = H^T M^-1 H, q = w + H^T M^-1 f
 * (FCLib's definition) is checked with a dense Gaussian elimination (fclib_testutil.h),
 * independent of src/core/la.c. */
#include <fclib.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "tcheck.h"
#include "testutil.h"
#include "store/fclib_io.h"
#include "fclib_testutil.h"

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

static double *dense_J(const ncp_problem *p)
{
    double *J = calloc((size_t)p->m * p->nv + 1, sizeof(double));
    ncp_csr_to_dense(&p->J, J);
    return J;
}

/* J^T restricted to the rows of one block type (nv x rows), and the matching e entries. */
static double *jt_rows(const ncp_problem *p, int type, int *nrows, double *erows)
{
    double *J = dense_J(p);
    double *T = calloc((size_t)p->nv * p->m + 1, sizeof(double));
    int c = 0;
    for (int b = 0; b < p->nblocks; b++) {
        if (p->blocks[b].type != type) continue;
        for (int r = p->blocks[b].row; r < p->blocks[b].row + ncp_block_type_size(type); r++, c++) {
            for (int j = 0; j < p->nv; j++) T[j + (size_t)c * p->nv] = J[r + (size_t)j * p->m];
            if (erows) erows[c] = p->e[r];
        }
    }
    *nrows = c;
    free(J);
    return T;
}

static void mu_of(const ncp_problem *p, double *mu)
{
    int k = 0;
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].type == NCP_CONTACT) mu[k++] = p->blocks[b].mu;
}

static void path_of(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
    unlink(buf); /* fclib_write_* refuse to add a group that exists  */
}

static int load_one(const char *path, ncp_problem **q)
{
    ncp_error err = {0};
    int n = 0;
    *q = NULL;
    CHECK_OK(ncp_load_problems(path, q, &n, &err), &err);
    CHECK(n == 1);
    return n == 1;
}

/* ---- export -> libfclib ---- */

static void test_export_contact_only(void)
{
    ncp_error err = {0};
    ncp_problem p;
    CHECK_OK(tutil_random_problem(&p, 21, 9, 3, 0, 0, 0, &err), &err);
    int m = p.m, nv = p.nv;
    char path[512];
    path_of(path, sizeof path, "local.hdf5");
    CHECK_OK(ncp_fclib_export(&p, path, &err), &err);
    double mu[8];
    mu_of(&p, mu);

    struct fclib_local *L = fclib_read_local(path);
    CHECK(L != NULL);
    if (L) {
        CHECK(L->spacedim == 3);
        CHECK(L->W->nz == -1); /* CSC: the storage fclib_merit_local understands (G3) */
        CHECK(L->W->m == m && L->W->n == m);
        CHECK(L->V == NULL && L->R == NULL);
        double *W = fc_dense(L->W);
        CHECK(same_bits(W, p.D, sizeof(double) * (size_t)m * m));
        CHECK(same_bits(L->q, p.vf, sizeof(double) * (size_t)m));
        CHECK(same_bits(L->mu, mu, sizeof(double) * (size_t)p.ncontacts));
        CHECK(L->info && L->info->title && strstr(L->info->title, p.name) && strstr(L->info->title, p.scene));
        free(W);
        fclib_delete_local(L);
        free(L);
    }
    struct fclib_global *G = fclib_read_global(path);
    CHECK(G != NULL);
    if (G) {
        CHECK(G->spacedim == 3);
        CHECK(G->G == NULL);
        CHECK(G->M->m == nv && G->M->n == nv && G->H->m == nv && G->H->n == m);
        double *M = fc_dense(G->M), *H = fc_dense(G->H);
        int nr;
        double *Href = jt_rows(&p, NCP_CONTACT, &nr, NULL);
        CHECK(same_bits(M, p.A, sizeof(double) * (size_t)nv * nv));   /* M = A */
        CHECK(same_bits(H, Href, sizeof(double) * (size_t)nv * m));   /* H = J^T */
        CHECK(same_bits(G->f, p.b, sizeof(double) * (size_t)nv));     /* f = b */
        CHECK(same_bits(G->w, p.e, sizeof(double) * (size_t)m));      /* w = e */
        CHECK(same_bits(G->mu, mu, sizeof(double) * (size_t)p.ncontacts));
        /* the local problem is the global one condensed: D = H^T M^-1 H, v_f = w + H^T M^-1 f */
        double *Wref = malloc(sizeof(double) * (size_t)m * m), *qref = malloc(sizeof(double) * (size_t)m);
        local_from_global(nv, m, M, H, G->f, G->w, Wref, qref);
        double ew = maxdiff((size_t)m * m, Wref, p.D) / maxabs((size_t)m * m, Wref);
        double eq = maxdiff((size_t)m, qref, p.vf) / fmax(1.0, maxabs((size_t)m, qref));
        printf("export: D vs H^T M^-1 H rel err %.2e, v_f vs w + H^T M^-1 f rel err %.2e\n", ew, eq);
        CHECK(ew <= 1e-12);
        CHECK(eq <= 1e-12);
        free(Wref);
        free(qref);
        free(M);
        free(H);
        free(Href);
        fclib_delete_global(G);
        free(G);
    }
    /* and back through our reader: both groups present, every array identical */
    ncp_problem *q;
    if (load_one(path, &q)) {
        CHECK(!strcmp(q->name, "local"));
        CHECK(q->nv == nv && q->m == m && q->nblocks == p.nblocks);
        /* fclib_global's M is kept sparse (A_sparse, no dense A) */
        CHECK(q->has_sparse_primal && !q->has_primal && !q->A);
        double *Aq = calloc((size_t)nv * nv, sizeof(double));
        ncp_csr_to_dense(&q->A_sparse, Aq);
        CHECK(same_bits(Aq, p.A, sizeof(double) * (size_t)nv * nv));
        free(Aq);
        CHECK(same_bits(q->b, p.b, sizeof(double) * (size_t)nv));
        CHECK(same_bits(q->e, p.e, sizeof(double) * (size_t)m));
        CHECK(same_bits(q->D, p.D, sizeof(double) * (size_t)m * m));
        CHECK(same_bits(q->vf, p.vf, sizeof(double) * (size_t)m));
        CHECK(q->J.nnz == p.J.nnz && same_bits(q->J.val, p.J.val, sizeof(double) * (size_t)p.J.nnz));
        CHECK(same_bits(q->J.col, p.J.col, sizeof(int) * (size_t)p.J.nnz));
        for (int b = 0; b < q->nblocks; b++) {
            CHECK(q->blocks[b].type == NCP_CONTACT);
            CHECK(q->blocks[b].mu == p.blocks[b].mu);
        }
        ncp_problems_free(q, 1);
    }
    ncp_problem_free(&p);
}

static void test_export_bilateral(void)
{
    ncp_error err = {0};
    ncp_problem p;
    CHECK_OK(tutil_random_problem(&p, 22, 8, 2, 2, 0, 0, &err), &err);
    int m = p.m, nv = p.nv;
    char path[512];
    path_of(path, sizeof path, "global_g.hdf5");
    CHECK_OK(ncp_fclib_export(&p, path, &err), &err);
    /* no fclib_local: W would have to fold the bilateral rows in (docs/design.md) */
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0);
    CHECK(H5Lexists(f, "/fclib_local", H5P_DEFAULT) == 0);
    CHECK(H5Lexists(f, "/fclib_global/G", H5P_DEFAULT) > 0);
    H5Fclose(f);
    struct fclib_global *G = fclib_read_global(path);
    CHECK(G != NULL);
    if (G) {
        int nc3, nb;
        double *w = malloc(sizeof(double) * (size_t)m), *bb = malloc(sizeof(double) * (size_t)m);
        double *Href = jt_rows(&p, NCP_CONTACT, &nc3, w);
        double *Gref = jt_rows(&p, NCP_BILATERAL, &nb, bb);
        CHECK(nc3 == 6 && nb == 2);
        CHECK(G->G != NULL && G->b != NULL);
        CHECK(G->H->n == nc3 && G->G && G->G->n == nb);
        double *M = fc_dense(G->M), *H = fc_dense(G->H), *Gd = G->G ? fc_dense(G->G) : NULL;
        CHECK(same_bits(M, p.A, sizeof(double) * (size_t)nv * nv));
        CHECK(same_bits(H, Href, sizeof(double) * (size_t)nv * nc3));
        CHECK(same_bits(Gd, Gref, sizeof(double) * (size_t)nv * nb));   /* G = J_b^T */
        CHECK(same_bits(G->w, w, sizeof(double) * (size_t)nc3));
        CHECK(same_bits(G->b, bb, sizeof(double) * (size_t)nb));        /* G^T v + b = J_b v + e_b */
        CHECK(same_bits(G->f, p.b, sizeof(double) * (size_t)nv));
        free(w);
        free(bb);
        free(Href);
        free(Gref);
        free(M);
        free(H);
        free(Gd);
        fclib_delete_global(G);
        free(G);
    }
    /* our reader puts the G rows first, as tutil does: the problem comes back identical */
    ncp_problem *q;
    if (load_one(path, &q)) {
        CHECK(q->nblocks == p.nblocks);
        for (int b = 0; b < q->nblocks && b < p.nblocks; b++) CHECK(q->blocks[b].type == p.blocks[b].type);
        CHECK(same_bits(q->e, p.e, sizeof(double) * (size_t)m));
        CHECK(q->J.nnz == p.J.nnz && same_bits(q->J.val, p.J.val, sizeof(double) * (size_t)p.J.nnz));
        CHECK(same_bits(q->J.rowptr, p.J.rowptr, sizeof(int) * ((size_t)m + 1)));
        CHECK(!q->has_dual && !q->D); /* read without D: built on demand */
        CHECK(ncp_problem_need_dual(q, &err) == NCP_OK);
        CHECK(same_bits(q->D, p.D, sizeof(double) * (size_t)m * m)); /* same algebra, same bits */
        CHECK(same_bits(q->vf, p.vf, sizeof(double) * (size_t)m));
        ncp_problems_free(q, 1);
    }
    ncp_problem_free(&p);
}

static void test_export_refused(void)
{
    struct {
        int nbil, nuni, nsoft, nc;
        const char *needle;
    } cases[] = {{0, 1, 0, 2, "unilateral"}, {1, 0, 1, 2, "soft"}, {2, 0, 0, 0, "no contact rows"}};
    for (int k = 0; k < 3; k++) {
        ncp_error err = {0};
        ncp_problem p;
        CHECK_OK(tutil_random_problem(&p, 30 + k, 6, cases[k].nc, cases[k].nbil, cases[k].nuni, cases[k].nsoft, &err), &err);
        char path[512], tmp[600];
        path_of(path, sizeof path, "refused.hdf5");
        snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
        ncp_error e = {0};
        CHECK(ncp_fclib_export(&p, path, &e) == NCP_ERR_INPUT);
        CHECK(strstr(e.msg, cases[k].needle) != NULL);
        CHECK(strstr(e.msg, "not written") != NULL);
        CHECK(!exists(path) && !exists(tmp));
        ncp_problem_free(&p);
    }
}

/* ---- libfclib writes -> our reader ---- */

static void test_read_local(int storage, int with_vr)
{
    ncp_error err = {0};
    ncp_problem p;
    CHECK_OK(tutil_random_problem(&p, 40 + storage, 7, 3, with_vr ? 2 : 0, 0, 0, &err), &err);
    int m = p.m, nl = with_vr ? 2 : 0, mc = m - nl;
    /* tutil puts the bilateral rows first: D = [R V^T; V W] */
    double *W = malloc(sizeof(double) * (size_t)mc * mc), *V = malloc(sizeof(double) * (size_t)mc * 2 + 1);
    double *R = malloc(sizeof(double) * 4);
    for (int i = 0; i < mc; i++)
        for (int j = 0; j < mc; j++) W[i + (size_t)j * mc] = p.D[(nl + i) + (size_t)(nl + j) * m];
    for (int i = 0; i < mc; i++)
        for (int j = 0; j < nl; j++) V[i + (size_t)j * mc] = p.D[(nl + i) + (size_t)j * m];
    for (int i = 0; i < nl; i++)
        for (int j = 0; j < nl; j++) R[i + 2 * j] = p.D[i + (size_t)j * m];
    double mu[8];
    mu_of(&p, mu);
    struct fclib_matrix Wm = fc_from_dense(mc, mc, W, storage, 1), Vm, Rm;
    struct fclib_local L;
    memset(&L, 0, sizeof L);
    L.W = &Wm;
    L.q = p.vf + nl;
    L.mu = mu;
    L.spacedim = 3;
    if (with_vr) {
        Vm = fc_from_dense(mc, nl, V, storage, 0);
        Rm = fc_from_dense(nl, nl, R, storage, 0);
        L.V = &Vm;
        L.R = &Rm;
        L.s = p.vf;
    }
    char path[512];
    path_of(path, sizeof path, "fc_local.hdf5");
    CHECK(fclib_write_local(&L, path) == 1);
    ncp_problem *q;
    if (load_one(path, &q)) {
        CHECK(!strcmp(q->name, "fc_local"));
        CHECK(q->m == m && q->ncontacts == 3 && q->nblocks == 3 + nl);
        for (int b = 0; b < q->nblocks && b < p.nblocks; b++) {
            CHECK(q->blocks[b].type == p.blocks[b].type);
            CHECK(q->blocks[b].mu == p.blocks[b].mu);
        }
        CHECK(same_bits(q->D, p.D, sizeof(double) * (size_t)m * m)); /* W (+V, R) = D */
        CHECK(same_bits(q->vf, p.vf, sizeof(double) * (size_t)m));   /* q (+s) = v_f */
        /* a local problem stays dual-only; the primal form built from it on request: A = I,
         * b = 0 and J J^T = D, e = v_f */
        CHECK(!q->has_primal && !q->has_sparse_primal);
        CHECK_OK(ncp_problem_primal_from_dual(q, &err), &err);
        if (q->has_primal) {
            int nv = q->nv;
            double *J = dense_J(q), e = 0;
            for (int i = 0; i < m; i++)
                for (int j = 0; j < m; j++) {
                    double s = 0;
                    for (int k = 0; k < nv; k++) s += J[i + (size_t)k * m] * J[j + (size_t)k * m];
                    e = fmax(e, fabs(s - p.D[i + (size_t)j * m]));
                }
            CHECK(e <= 1e-12 * maxabs((size_t)m * m, p.D));
            CHECK(same_bits(q->e, p.vf, sizeof(double) * (size_t)m));
            CHECK(maxabs((size_t)nv, q->b) == 0.0);
            free(J);
        }
        ncp_problems_free(q, 1);
    }
    fc_free(&Wm);
    if (with_vr) {
        fc_free(&Vm);
        fc_free(&Rm);
    }
    free(W);
    free(V);
    free(R);
    ncp_problem_free(&p);
}

static void test_read_global(int storage, int with_g)
{
    ncp_error err = {0};
    ncp_problem p;
    CHECK_OK(tutil_random_problem(&p, 50 + storage, 8, 2, with_g ? 2 : 0, 0, 0, &err), &err);
    int m = p.m, nv = p.nv, mc, nb;
    double *w = malloc(sizeof(double) * (size_t)m), *bb = malloc(sizeof(double) * (size_t)m + 1);
    double *Hd = jt_rows(&p, NCP_CONTACT, &mc, w);
    double *Gd = jt_rows(&p, NCP_BILATERAL, &nb, bb);
    double mu[8];
    mu_of(&p, mu);
    struct fclib_matrix Mm = fc_from_dense(nv, nv, p.A, storage, 1);
    struct fclib_matrix Hm = fc_from_dense(nv, mc, Hd, storage, 0), Gm;
    struct fclib_global G;
    memset(&G, 0, sizeof G);
    G.M = &Mm;
    G.H = &Hm;
    G.f = p.b;
    G.w = w;
    G.mu = mu;
    G.spacedim = 3;
    if (with_g) {
        Gm = fc_from_dense(nv, nb, Gd, storage, 0);
        G.G = &Gm;
        G.b = bb;
    }
    char path[512];
    path_of(path, sizeof path, "fc_global.h5");
    CHECK(fclib_write_global(&G, path) == 1);
    ncp_problem *q;
    if (load_one(path, &q)) {
        CHECK(!strcmp(q->name, "fc_global"));
        CHECK(q->nv == nv && q->m == m && q->nblocks == p.nblocks && q->ncontacts == 2);
        for (int b = 0; b < q->nblocks && b < p.nblocks; b++) {
            CHECK(q->blocks[b].type == p.blocks[b].type);
            CHECK(q->blocks[b].mu == p.blocks[b].mu);
        }
        CHECK(q->has_sparse_primal && !q->has_primal && !q->A); /* M kept sparse */
        double *Aq = calloc((size_t)nv * nv, sizeof(double));
        ncp_csr_to_dense(&q->A_sparse, Aq);
        CHECK(same_bits(Aq, p.A, sizeof(double) * (size_t)nv * nv)); /* A = M (triplet halves summed) */
        free(Aq);
        CHECK(same_bits(q->b, p.b, sizeof(double) * (size_t)nv));      /* b = f */
        CHECK(same_bits(q->e, p.e, sizeof(double) * (size_t)m));       /* e = [b; w] */
        double *Jq = dense_J(q), *Jp = dense_J(&p);
        CHECK(same_bits(Jq, Jp, sizeof(double) * (size_t)m * nv));     /* J = [G^T; H^T] */
        free(Jq);
        free(Jp);
        CHECK_OK(ncp_problem_need_dual(q, &err), &err); /* D on demand */
        if (!with_g) {
            /* dual computed by ncp_problem_compute_dual vs the condensation done here */
            double *Wref = malloc(sizeof(double) * (size_t)m * m), *qref = malloc(sizeof(double) * (size_t)m);
            local_from_global(nv, mc, p.A, Hd, p.b, w, Wref, qref);
            CHECK(maxdiff((size_t)m * m, q->D, Wref) <= 1e-12 * maxabs((size_t)m * m, Wref));
            CHECK(maxdiff((size_t)m, q->vf, qref) <= 1e-12 * fmax(1.0, maxabs((size_t)m, qref)));
            free(Wref);
            free(qref);
        } else {
            CHECK(maxdiff((size_t)m * m, q->D, p.D) <= 1e-12 * maxabs((size_t)m * m, p.D));
        }
        ncp_problems_free(q, 1);
    }
    fc_free(&Mm);
    fc_free(&Hm);
    if (with_g) fc_free(&Gm);
    free(w);
    free(bb);
    free(Hd);
    free(Gd);
    ncp_problem_free(&p);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    snprintf(dir, sizeof dir, "/tmp/ncp_test_fclib_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_export_contact_only();
    test_export_bilateral();
    test_export_refused();
    int storages[3] = {-1, -2, 0}; /* CSC, CSR, triplet */
    for (int k = 0; k < 3; k++) {
        test_read_local(storages[k], 0);
        test_read_local(storages[k], 1);
        test_read_global(storages[k], 0);
        test_read_global(storages[k], 1);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return tcheck_exit("fclib");
}
