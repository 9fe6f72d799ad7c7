/* Traces (store/traces.h, bench/output.h): a trace written to traces.h5 and read back equals
 * what was written, value for value (NaN included), in the run order; the file appears under
 * its name only when closed; the log sample is exactly {1..20} U {ceil(10^(j/20))} plus the last
 * iteration (an independent statement of "floor(20 log10 k) changes"); traces.csv and traces.h5
 * read through the one reader give the same blocks; and every registered solver has a family. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/output.h"
#include "metrics/metrics.h"
#include "solvers/registry.h"
#include "store/traces.h"
#include "util/fsutil.h"
#include "tcheck.h"

static char dir[64];

/* ceil(10^(j/20)) for j = 0, 1, ...: the iterations where floor(20 log10 k) steps (k >= 2),
 * from the decade's 20th roots written as integers thresholds, not from log10. */
static int on_grid(long k)
{
    if (k <= 20) return 1;
    for (int j = 0; j < 200; j++) {
        double x = pow(10.0, j / 20.0);
        long c = (long)ceil(x - 1e-9 * x); /* 10^(j/20) is an integer only for j = 20 m */
        if (c == k) return 1;
        if (c > k) return 0;
    }
    return 0;
}

typedef struct collected {
    int n;
    char solver[4][32], problem[4][32];
    int nrows[4], ncols[4], iterations[4];
    double data[4][2048];
    char sampling[4][16];
} collected;

static int collect(void *ctx, const ncp_trace_block *b, ncp_error *err)
{
    (void)err;
    collected *c = ctx;
    CHECK(c->n < 4);
    if (c->n >= 4) return NCP_ERR_INTERNAL;
    int k = c->n++;
    snprintf(c->solver[k], 32, "%s", b->solver);
    snprintf(c->problem[k], 32, "%s", b->problem);
    c->nrows[k] = b->nrows;
    c->ncols[k] = b->ncols;
    c->iterations[k] = b->iterations;
    snprintf(c->sampling[k], 16, "%s", b->sampling ? b->sampling : "-");
    if (b->nrows * b->ncols <= 2048)
        memcpy(c->data[k], b->data, sizeof(double) * (size_t)(b->nrows * b->ncols));
    return NCP_OK;
}

static int same(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

static void test_roundtrip(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/t.h5", dir);
    const char *cols[4] = {"iter", "time_ms", "m1", "m2"};
    double a[3 * 4] = {1, 0.5, 1e-3, NAN, 2, 0.75, -2.5, 1e300, 7, 1.25, 0x1.fffffffffffffp-1, 0};
    double b[1 * 4] = {1, 0.0, INFINITY, 3};
    ncp_error err = {0, ""};
    ncp_traces *t = NULL;
    CHECK_OK(ncp_traces_create(path, 4, cols, "log", &t, &err), &err);
    CHECK_OK(ncp_traces_write(t, "zeta", "p1", 3, a, 7, "converged", &err), &err);
    CHECK_OK(ncp_traces_write(t, "alpha", "p0", 1, b, 1, "failed", &err), &err);
    CHECK_OK(ncp_traces_write(t, "zeta", "p0", 0, b, 0, "unsupported", &err), &err); /* nothing */
    CHECK(ncp_traces_write(t, "a/b", "p0", 1, b, 1, "x", &err) == NCP_ERR_INPUT);
    ncp_error_clear(&err);
    CHECK(!ncp_file_exists(path)); /* only the temporary file until closed */
    CHECK_OK(ncp_traces_close(t, &err), &err);
    CHECK(ncp_file_exists(path));

    collected c;
    memset(&c, 0, sizeof c);
    CHECK_OK(ncp_traces_read(path, collect, &c, &err), &err);
    CHECK(c.n == 2);
    /* creation order, not name order: zeta was written first */
    CHECK(!strcmp(c.solver[0], "zeta") && !strcmp(c.problem[0], "p1"));
    CHECK(!strcmp(c.solver[1], "alpha") && !strcmp(c.problem[1], "p0"));
    CHECK(c.nrows[0] == 3 && c.ncols[0] == 4 && c.iterations[0] == 7);
    CHECK(c.nrows[1] == 1 && c.iterations[1] == 1);
    CHECK(!strcmp(c.sampling[0], "log"));
    for (int i = 0; i < 12; i++) CHECK(same(c.data[0][i], a[i]));
    for (int i = 0; i < 4; i++) CHECK(same(c.data[1][i], b[i]));

    /* random access */
    ncp_traces_in *r = NULL;
    CHECK_OK(ncp_traces_in_open(path, &r, &err), &err);
    memset(&c, 0, sizeof c);
    int found = -1;
    CHECK_OK(ncp_traces_in_get(r, "alpha", "p0", collect, &c, &found, &err), &err);
    CHECK(found == 1 && c.n == 1 && same(c.data[0][2], INFINITY));
    CHECK_OK(ncp_traces_in_get(r, "alpha", "p9", collect, &c, &found, &err), &err);
    CHECK(found == 0 && c.n == 1);
    ncp_traces_in_close(r);

    /* a bad time in a file is an input error naming the dataset */
    snprintf(path, sizeof path, "%s/bad.h5", dir);
    double bad[4] = {1, -1, 0, 0};
    CHECK_OK(ncp_traces_create(path, 4, cols, "every", &t, &err), &err);
    CHECK_OK(ncp_traces_write(t, "s", "p", 1, bad, 1, "x", &err), &err);
    CHECK_OK(ncp_traces_close(t, &err), &err);
    memset(&c, 0, sizeof c);
    CHECK(ncp_traces_read(path, collect, &c, &err) == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, "/traces/s/p") && strstr(err.msg, "time_ms"));
    if (!strstr(err.msg, "/traces/s/p")) fprintf(stderr, "  message was: %s\n", err.msg);
}

static void test_sampling(void)
{
    for (long k = 1; k <= 2000000; k++) {
        int got = ncp_traces_sample_keep(k), want = on_grid(k);
        if (got != want) {
            CHECK(got == want);
            fprintf(stderr, "  k = %ld\n", k);
            break;
        }
    }
    /* about 20 per decade: 1..20, then 20*log10(1e6/20) = 94 more up to 10^6 */
    int n = 0;
    for (long k = 1; k <= 1000000; k++) n += ncp_traces_sample_keep(k);
    CHECK(n == 20 + 94);

    /* the writer: a 137-iteration trace keeps the grid and the last row */
    ncp_error err = {0, ""};
    ncp_out_traces *ot = NULL;
    char sub[128];
    snprintf(sub, sizeof sub, "%s/run", dir);
    CHECK_OK(ncp_mkdir_p(sub, &err), &err);
    CHECK_OK(ncp_out_traces_open(sub, 1, 0, &ot, &err), &err);
    int nc = ncp_out_traces_ncols();
    CHECK(nc == NCP_TRACE_FIXED + ncp_metrics_count());
    double *rows = calloc((size_t)137 * nc, sizeof *rows);
    for (int i = 0; rows && i < 137; i++) {
        rows[(size_t)i * nc] = i + 1;
        rows[(size_t)i * nc + 1] = 0.01 * (i + 1);
        for (int m = 2; m < nc; m++) rows[(size_t)i * nc + m] = (i + 1) * 10.0 + m;
    }
    if (rows) CHECK_OK(ncp_out_traces_put(ot, "000000", "pgs", 137, rows, 137, "max_iter", &err), &err);
    CHECK_OK(ncp_out_traces_close(ot, &err), &err);
    char path[256];
    snprintf(path, sizeof path, "%s/traces.h5", sub);
    collected c;
    memset(&c, 0, sizeof c);
    /* too many rows for collect's buffer: count through the reader of the directory instead */
    ncp_traces_in *r = NULL;
    CHECK_OK(ncp_traces_in_open(path, &r, &err), &err);
    int found = 0;
    CHECK_OK(ncp_traces_in_get(r, "pgs", "000000", collect, &c, &found, &err), &err);
    ncp_traces_in_close(r);
    int want = 0;
    for (long k = 1; k <= 137; k++) want += on_grid(k) || k == 137;
    CHECK(found && c.nrows[0] == want);
    for (int i = 0; i < c.nrows[0] && c.nrows[0] * nc <= 2048; i++) {
        long k = (long)c.data[0][(size_t)i * nc];
        CHECK(on_grid(k) || k == 137);
        CHECK(c.data[0][(size_t)i * nc + 3] == k * 10.0 + 3); /* the row of iteration k */
    }
    /* the same rows in traces.csv, through the same reader */
    collected c2;
    memset(&c2, 0, sizeof c2);
    snprintf(path, sizeof path, "%s/traces.csv", sub);
    CHECK_OK(ncp_traces_read(path, collect, &c2, &err), &err);
    CHECK(c2.n == 1 && c2.nrows[0] == c.nrows[0] && c2.ncols[0] == nc && c2.iterations[0] == -1);
    for (int i = 0; i < c.nrows[0] * nc && i < 2048; i++) CHECK(c2.data[0][i] == c.data[0][i]);
    free(rows);
}

static void test_families(void)
{
    int nf = ncp_registry_family_count();
    CHECK(nf >= 5);
    for (int i = 0; i < ncp_solver_count(); i++) {
        const char *name = ncp_solver_at(i)->name, *f = ncp_registry_family(name);
        int listed = 0;
        for (int k = 0; f && k < nf; k++) listed |= !strcmp(f, ncp_registry_family_at(k));
        CHECK(f != NULL && listed);
        if (!f || !listed) fprintf(stderr, "  solver %s has no family\n", name);
    }
    CHECK(ncp_registry_family("no-such-solver") == NULL);
    CHECK(!strcmp(ncp_registry_family("pgs"), ncp_registry_family("jacobi")));
    CHECK(strcmp(ncp_registry_family("pgs"), ncp_registry_family("admm")) != 0);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/ncp_test_traces_XXXXXX");
    if (!mkdtemp(dir)) return 1;
    test_roundtrip();
    test_sampling();
    test_families();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    return tcheck_exit("traces");
}
