/* Siconos .dat problems (store/siconos_dat.h) against Siconos's own reading of the same files
 * (frictionContact_new_from_filename / globalFrictionContact_new_from_filename, entries through
 * NM_get_value, a path that shares nothing with the reader's triplet conversion): sizes, mu, W
 * and q of a local problem, M, H, q and b of a global one (A_sparse = M, J = H^T, b = q, e = b).
 * The committed samples (tests/data/siconos) always; the shared ones (../shared/siconos-dat-
 * samples beside the clone, or NCP_SICONOS_DAT_SAMPLES) when present. Then a global problem
 * with one missing mirror entry in M: read as its symmetric part with a note at the default
 * tolerance, refused below it; and a truncated file refused naming it. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <FrictionContactProblem.h>
#include <GlobalFrictionContactProblem.h>
#include <NumericsMatrix.h>

#include "core/la.h"
#include "core/sparse_chol.h"
#include "store/siconos_dat.h"
#include "store/store.h"
#include "tcheck.h"

static double csr_get(const ncp_csr *S, int i, int j)
{
    for (int q = S->rowptr[i]; q < S->rowptr[i + 1]; q++)
        if (S->col[q] == j) return S->val[q];
    return 0.0;
}

static void check_file(const char *path)
{
    ncp_problem *ps = NULL;
    int n = 0;
    ncp_error err = {0};
    int rc = ncp_load_problems_isolated(path, 0.0, &ps, &n, &err);
    CHECK(rc == NCP_OK && n == 1);
    if (rc || n != 1) {
        printf("%s: %s\n", path, err.msg);
        return;
    }
    const ncp_problem *p = &ps[0];
    int bad = 0;
    if (p->has_sparse_primal) {
        GlobalFrictionContactProblem *g = globalFrictionContact_new_from_filename(path);
        CHECK(g != NULL);
        if (g) {
            int nv = g->M->size0, m = 3 * g->numberOfContacts;
            CHECK(p->nv == nv && p->m == m && p->ncontacts == g->numberOfContacts);
            for (int i = 0; p->nv == nv && p->m == m && i < nv; i++) {
                for (int j = 0; j < nv; j++) bad += csr_get(&p->A_sparse, i, j) != NM_get_value(g->M, i, j);
                for (int r = 0; r < m; r++) bad += csr_get(&p->J, r, i) != NM_get_value(g->H, i, r);
                bad += p->b[i] != g->q[i];
            }
            for (int r = 0; p->m == m && r < m; r++) bad += p->e[r] != g->b[r];
            for (int k = 0; p->m == m && k < g->numberOfContacts; k++) bad += p->blocks[k].mu != g->mu[k];
            CHECK(p->has_dual); /* D from the sparse factorisation of M */
            globalFrictionContact_free(g);
        }
    } else {
        FrictionContactProblem *fc = frictionContact_new_from_filename(path);
        CHECK(fc != NULL);
        if (fc) {
            int m = 3 * fc->numberOfContacts;
            CHECK(p->m == m && p->has_dual && !p->has_primal);
            for (int i = 0; p->m == m && i < m; i++) {
                for (int j = 0; j < m; j++) bad += p->D[i + (size_t)j * m] != NM_get_value(fc->M, i, j);
                bad += p->vf[i] != fc->q[i];
            }
            for (int k = 0; p->m == m && k < fc->numberOfContacts; k++) bad += p->blocks[k].mu != fc->mu[k];
            frictionContactProblem_free(fc);
        }
    }
    CHECK(bad == 0);
    printf("%s: %s, %d contacts, nv %d: %d entries differ from Siconos's reading\n", path,
           p->has_sparse_primal ? "global" : "local", p->ncontacts, p->nv, bad);
    ncp_problems_free(ps, n);
}

static void check_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("%s absent, skipped\n", dir);
        return;
    }
    struct dirent *e;
    int k = 0;
    while ((e = readdir(d))) {
        if (!ncp_siconos_dat_is(e->d_name)) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        CHECK(ncp_siconos_dat_sniff(path));
        check_file(path);
        k++;
    }
    closedir(d);
    CHECK(k > 0);
}

/* A global problem, nv = 3, one contact: M = 2 I with M[0][1] = delta alone (its mirror
 * missing), H = I, q = (0, 0, -1), b = 0, mu = 0.5, in Siconos's dense text layout. */
static void write_asym(const char *path, double delta)
{
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "3\n1\n0\n3\n3\n3\t3\n");
    fprintf(f, "2 %.17g 0\n0 2 0\n0 0 2\n", delta);
    fprintf(f, "0\n3\n3\n3\t3\n1 0 0\n0 1 0\n0 0 1\n");
    fprintf(f, "0 0 -1\n0 0 0\n0.5\n1\n");
    fclose(f);
}

static void test_asymmetric(void)
{
    const char *path = "build-test-asym.dat";
    /* |M - M^T|_F / |M|_F = sqrt(2) delta / sqrt(12 + delta^2) */
    double delta = 1e-7 * sqrt(12.0) / sqrt(2.0);
    write_asym(path, delta);
    ncp_problem p;
    ncp_problem_init(&p);
    ncp_error err = {0};
    int rc = ncp_siconos_dat_read(path, "asym", 0.0, 0.0, &p, &err);
    CHECK(rc == NCP_OK);
    if (!rc) {
        CHECK(p.provenance_note && strstr(p.provenance_note, "symmetric part"));
        CHECK(ncp_csr_max_asymmetry(&p.A_sparse, NULL, NULL) == 0.0);
        CHECK(fabs(csr_get(&p.A_sparse, 0, 1) - delta / 2) < 1e-22 && fabs(csr_get(&p.A_sparse, 1, 0) - delta / 2) < 1e-22);
        CHECK(fabs(ncp_csr_asymmetry_rel(&p.A_sparse)) == 0.0);
        printf("asymmetric M (1e-7) at the default tolerance: %s\n", p.provenance_note);
    }
    ncp_problem_free(&p);
    ncp_problem_init(&p);
    rc = ncp_siconos_dat_read(path, "asym", 0.0, 1e-8, &p, &err); /* below it: refused */
    CHECK(rc == NCP_ERR_INPUT && strstr(err.msg, "not symmetric") && strstr(err.msg, "--sym-tol") && strstr(err.msg, path));
    printf("at tolerance 1e-8: %s\n", err.msg);
    ncp_problem_free(&p);
    /* a symmetric one reads without a note of it */
    write_asym(path, 0.0);
    ncp_problem_init(&p);
    rc = ncp_siconos_dat_read(path, "sym", 0.0, 1e-8, &p, &err);
    CHECK(rc == NCP_OK && (!p.provenance_note || !strstr(p.provenance_note, "symmetric part")));
    ncp_problem_free(&p);
    /* cut short: refused, naming the file and saying so */
    memset(&err, 0, sizeof err);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "3\n1\n0\n3\n3\n3\t3\n2 0 0\n0 2 0\n");
        fclose(f);
    }
    ncp_problem_init(&p);
    rc = ncp_siconos_dat_read(path, "cut", 0.0, 0.0, &p, &err);
    CHECK(rc == NCP_ERR_INPUT && strstr(err.msg, path) && strstr(err.msg, "cut short"));
    printf("truncated: %s\n", err.msg);
    ncp_problem_free(&p);
    remove(path);
}

int main(void)
{
    check_dir("tests/data/siconos");
    const char *sd = getenv("NCP_SICONOS_DAT_SAMPLES");
    check_dir(sd ? sd : "../shared/siconos-dat-samples");
    test_asymmetric();
    return tcheck_exit("siconos_dat");
}
