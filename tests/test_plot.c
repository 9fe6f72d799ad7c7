/* Figures: aggregation of the traces (traces.csv of older runs, and the same rows in traces.h5)
 * into the gnuplot data files, checked against medians and quartiles computed by hand from a
 * synthetic trace; the panels by solver family (block order, panel and member columns,
 * fig_families.dat); the index page (every figure file linked, the table from summary.json); bad
 * input; the gnuplot run (when gnuplot is installed) and the "gnuplot missing" path. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ncp_config.h"
#include "bench/plot.h"
#include "store/traces.h"
#include "tcheck.h"

#define TOL 1e-9

static char tmpdir[64];

static void path_in(char *out, size_t cap, const char *dir, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char p[512];
    path_in(p, sizeof p, dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    CHECK(fclose(f) == 0);
}

static long file_size(const char *dir, const char *name)
{
    char p[512];
    struct stat st;
    path_in(p, sizeof p, dir, name);
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

static char *slurp(const char *dir, const char *name)
{
    char p[512];
    path_in(p, sizeof p, dir, name);
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b) b[fread(b, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return b;
}

static void rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
                char sub[1024];
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                rm_tree(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* ---- the synthetic trace --------------------------------------------------------------- */

#define HEADER                                                                                 \
    "problem,solver,iteration,time_ms,al_residual,al_residual_other,natural_map_abs,"          \
    "natural_map_inf,natural_map_rel_acary,natural_map_rel_siconos,natural_map_rel_fclib,"     \
    "ncp_primal,ncp_dual,ncp_compl,penetration\n"

/* alpha: problem p has iterations k = 1..p+2 at time (p+1) k ms, al_residual 10^-k.
 * beta:  problem 0: k = 0..2 at 0.5 + 0.5 k ms, residual 10^-2k;
 *        problem 1: k = 0..2 at 1 + k ms, residual nan, 1e-1, 1e-3;
 *        problem 2: k = 0..1 at 4 + k ms, residual 1e-1, 1e-5.
 * gamma: problem 0, k = 1, 2 at k ms, residual nan (absent from the residual figure).
 * natural_map_abs = 2 al_residual everywhere. */
typedef struct srow { const char *solver; int p, k; double t, r; } srow;

static int synth_rows(srow *rows)
{
    int n = 0;
    /* Interleave problems and solvers, alpha first (so alpha is solver index 0). */
    for (int k = 0; k <= 3; k++) {
        for (int p = 0; p < 3; p++) {
            int ka = k + 1;
            if (ka <= p + 2)
                rows[n++] = (srow){"alpha", p, ka, (p + 1) * (double)ka, pow(10.0, -ka)};
        }
        if (k <= 2) rows[n++] = (srow){"beta", 0, k, 0.5 + 0.5 * k, pow(10.0, -2 * k)};
        if (k <= 2)
            rows[n++] = (srow){"beta", 1, k, 1.0 + k, k == 0 ? NAN : pow(10.0, -(2 * k - 1))};
        if (k <= 1) rows[n++] = (srow){"beta", 2, k, 4.0 + k, k == 0 ? 1e-1 : 1e-5};
        /* gamma: no value of the metric at all (nan): timing only. */
        if (k >= 1 && k <= 2) rows[n++] = (srow){"gamma", 0, k, (double)k, NAN};
    }
    return n;
}

static void write_traces(const char *dir)
{
    srow rows[64];
    int n = synth_rows(rows);
    char p[512];
    path_in(p, sizeof p, dir, "traces.csv");
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(HEADER, f);
    for (int i = 0; i < n; i++) {
        /* beta is written quoted, to exercise the CSV quoting. */
        if (!strcmp(rows[i].solver, "beta")) fprintf(f, "%06d,\"beta\",", rows[i].p);
        else fprintf(f, "%06d,%s,", rows[i].p, rows[i].solver);
        fprintf(f, "%d,%.17g,%.17g,0,%.17g,1,1,1,1,0,0,0,0\n", rows[i].k, rows[i].t, rows[i].r,
                2 * rows[i].r);
    }
    CHECK(fclose(f) == 0);
}

/* The same rows as traces.h5 (one dataset per solver and problem, in order of first
 * appearance), without traces.csv: the reader must give the same aggregation. */
static void write_traces_h5(const char *dir)
{
    srow rows[64];
    int n = synth_rows(rows);
    const char *cols[] = {"iter", "time_ms", "al_residual", "al_residual_other",
                          "natural_map_abs", "natural_map_inf", "natural_map_rel_acary",
                          "natural_map_rel_siconos", "natural_map_rel_fclib", "ncp_primal",
                          "ncp_dual", "ncp_compl", "penetration"};
    enum { NC = sizeof cols / sizeof cols[0] };
    char p[512];
    path_in(p, sizeof p, dir, "traces.h5");
    ncp_error err = {0, ""};
    ncp_traces *t = NULL;
    CHECK_OK(ncp_traces_create(p, NC, cols, "every", &t, &err), &err);
    int done[64] = {0};
    for (int i = 0; t && i < n; i++) {
        if (done[i]) continue;
        double buf[64 * NC];
        int m = 0;
        for (int j = i; j < n; j++) {
            if (strcmp(rows[j].solver, rows[i].solver) || rows[j].p != rows[i].p) continue;
            double v[NC] = {rows[j].k, rows[j].t, rows[j].r, 0, 2 * rows[j].r, 1, 1, 1, 1,
                            0, 0, 0, 0};
            memcpy(buf + m++ * NC, v, sizeof v);
            done[j] = 1;
        }
        char prob[16];
        snprintf(prob, sizeof prob, "%06d", rows[i].p);
        CHECK_OK(ncp_traces_write(t, rows[i].solver, prob, m, buf, m, "x", &err), &err);
    }
    CHECK_OK(ncp_traces_close(t, &err), &err);
}

/* Independent step function: the value of the last finite iteration with time <= t (the
 * synthetic times are increasing in k). */
static int step_value(const srow *rows, int n, const char *solver, int p, double t, double *v)
{
    int found = 0, best_k = -1;
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].solver, solver) && rows[i].p == p && rows[i].t <= t &&
            !isnan(rows[i].r) && rows[i].k > best_k) {
            best_k = rows[i].k;
            *v = rows[i].r;
            found = 1;
        }
    return found;
}

/* Median and quartiles of n <= 3 sorted values, written out by hand (type 7). */
static void hand_quartiles(const double *x, int n, double *med, double *q25, double *q75)
{
    if (n == 1) {
        *med = *q25 = *q75 = x[0];
    } else if (n == 2) {
        *med = 0.5 * (x[0] + x[1]);
        *q25 = x[0] + 0.25 * (x[1] - x[0]);
        *q75 = x[0] + 0.75 * (x[1] - x[0]);
    } else {
        *med = x[1];
        *q25 = 0.5 * (x[0] + x[1]);
        *q75 = 0.5 * (x[1] + x[2]);
    }
}

/* ---- reading the .dat files ------------------------------------------------------------- */

typedef struct datrow { char solver[32]; int idx, block; double c[8]; } datrow;

/* Data rows of a .dat file: solver, index, then up to 6 numbers; block = index block number
 * (blocks separated by two blank lines, as gnuplot counts them). */
static int read_dat(const char *dir, const char *name, datrow *rows, int cap, int *nblocks)
{
    int n = 0, block = 0, blanks = 0, seen_data = 0;
    char p[512];
    path_in(p, sizeof p, dir, name);
    FILE *f = fopen(p, "r");
    CHECK(f != NULL);
    if (!f) return 0;
    char buf[512];
    while (fgets(buf, sizeof buf, f)) {
        if (buf[0] == '\n') {
            blanks++;
            continue;
        }
        if (buf[0] == '#') continue;
        if (seen_data && blanks >= 2) block++;
        blanks = 0;
        seen_data = 1;
        if (n < cap) {
            datrow *r = &rows[n];
            memset(r, 0, sizeof *r);
            int got = sscanf(buf, "%31s %d %lf %lf %lf %lf %lf %lf %lf %lf", r->solver, &r->idx,
                             &r->c[0], &r->c[1], &r->c[2], &r->c[3], &r->c[4], &r->c[5],
                             &r->c[6], &r->c[7]);
            CHECK(got >= 7);
            r->block = block;
        }
        n++;
    }
    fclose(f);
    *nblocks = seen_data ? block + 1 : 0;
    return n < cap ? n : cap;
}

static void check_residual_time(const char *dir, double scale, const char *metric)
{
    srow srows[64];
    int ns = synth_rows(srows);
    datrow rows[400];
    int nb = 0;
    int n = read_dat(dir, "fig_residual_time.dat", rows, 400, &nb);
    CHECK(nb == 2);
    CHECK(n == 2 * NCP_PLOT_GRID);
    char *text = slurp(dir, "fig_residual_time.dat");
    CHECK(text && strstr(text, metric) != NULL); /* the header names the metric */
    CHECK(text && strstr(text, "without any value") && strstr(text, ": gamma"));
    free(text);

    const char *solvers[2] = {"alpha", "beta"};
    const double t_lo[2] = {1.0, 0.5}, t_hi[2] = {12.0, 5.0};
    for (int s = 0; s < 2; s++) {
        const datrow *b = NULL;
        int nbk = 0;
        for (int i = 0; i < n; i++)
            if (rows[i].block == s) {
                if (!b) b = &rows[i];
                nbk++;
            }
        CHECK(nbk == NCP_PLOT_GRID);
        if (!b || nbk != NCP_PLOT_GRID) continue;
        CHECK(!strcmp(b[0].solver, solvers[s]));
        CHECK(b[0].idx == s);
        /* Grid: log-spaced from the earliest to the latest valued iteration time. */
        CHECK_REL(b[0].c[0], t_lo[s], TOL);
        CHECK_REL(b[nbk - 1].c[0], t_hi[s], TOL);
        double ratio = pow(t_hi[s] / t_lo[s], 1.0 / (NCP_PLOT_GRID - 1));
        for (int g = 1; g < nbk; g++) CHECK_REL(b[g].c[0] / b[g - 1].c[0], ratio, 1e-9);
        /* Every grid point against the independent step functions. */
        for (int g = 0; g < nbk; g++) {
            double t = b[g].c[0], x[3];
            int m = 0;
            for (int p = 0; p < 3; p++) {
                double v;
                /* The grid times are printed with 12 digits: evaluate just above a printed
                 * time that rounds an iteration time (only the end points are exact). */
                if (step_value(srows, ns, solvers[s], p, t * (1 + 1e-11), &v)) x[m++] = scale * v;
            }
            for (int i = 1; i < m; i++) /* insertion sort */
                for (int j = i; j > 0 && x[j] < x[j - 1]; j--) {
                    double tmp = x[j]; x[j] = x[j - 1]; x[j - 1] = tmp;
                }
            CHECK(m >= 1);
            if (m < 1) continue;
            double med, q25, q75;
            hand_quartiles(x, m, &med, &q25, &q75);
            CHECK_NEAR(b[g].c[1], med, TOL * med);
            CHECK_NEAR(b[g].c[2], q25, TOL * q25);
            CHECK_NEAR(b[g].c[3], q75, TOL * q75);
            CHECK((int)b[g].c[4] == m);
            CHECK((int)b[g].c[5] == 3);
        }
    }
    /* The end points by hand. alpha at 1 ms: only problem 0 started (0.1). At 12 ms all are
     * done: {1e-2, 1e-3, 1e-4} -> median 1e-3, q25 5.5e-4, q75 5.5e-3.
     * beta at 0.5 ms: problem 0 only (1). At 5 ms: {1e-4, 1e-3, 1e-5} -> 1e-4, 5.5e-5, 5.5e-4. */
    if (n == 2 * NCP_PLOT_GRID) {
        const datrow *a0 = &rows[0], *a1 = &rows[NCP_PLOT_GRID - 1];
        const datrow *b0 = &rows[NCP_PLOT_GRID], *b1 = &rows[2 * NCP_PLOT_GRID - 1];
        CHECK_NEAR(a0->c[1], scale * 0.1, 1e-15);
        CHECK_NEAR(a0->c[2], scale * 0.1, 1e-15);
        CHECK((int)a0->c[4] == 1);
        CHECK_NEAR(a1->c[1], scale * 1e-3, 1e-15);
        CHECK_NEAR(a1->c[2], scale * 5.5e-4, 1e-15);
        CHECK_NEAR(a1->c[3], scale * 5.5e-3, 1e-15);
        CHECK((int)a1->c[4] == 3);
        CHECK_NEAR(b0->c[1], scale * 1.0, 1e-15);
        CHECK((int)b0->c[4] == 1);
        CHECK_NEAR(b1->c[1], scale * 1e-4, 1e-15);
        CHECK_NEAR(b1->c[2], scale * 5.5e-5, 1e-15);
        CHECK_NEAR(b1->c[3], scale * 5.5e-4, 1e-15);
    }
}

static void check_time_iter(const char *dir)
{
    datrow rows[64];
    int nb = 0;
    int n = read_dat(dir, "fig_time_iter.dat", rows, 64, &nb);
    CHECK(nb == 3);
    /* solver, iteration, median, q25, q75, n -- by hand from the synthetic times:
     * alpha k=1: {1,2,3}; k=2: {2,4,6}; k=3: {6,9}; k=4: {12}.
     * beta  k=0: {0.5,1,4}; k=1: {1,2,5}; k=2: {1.5,3}. */
    const struct { const char *s; int k; double med, q25, q75; int n; } want[] = {
        {"alpha", 1, 2, 1.5, 2.5, 3},  {"alpha", 2, 4, 3, 5, 3},
        {"alpha", 3, 7.5, 6.75, 8.25, 2}, {"alpha", 4, 12, 12, 12, 1},
        {"beta", 0, 1, 0.75, 2.5, 3},  {"beta", 1, 2, 1.5, 3.5, 3},
        {"beta", 2, 2.25, 1.875, 2.625, 2},
        {"gamma", 1, 1, 1, 1, 1}, {"gamma", 2, 2, 2, 2, 1},
    };
    int nw = (int)(sizeof want / sizeof want[0]);
    CHECK(n == nw);
    for (int i = 0; i < n && i < nw; i++) {
        CHECK(!strcmp(rows[i].solver, want[i].s));
        int sid = want[i].s[0] == 'a' ? 0 : want[i].s[0] == 'b' ? 1 : 2;
        CHECK(rows[i].block == sid);
        CHECK(rows[i].idx == sid); /* the colour index matches the residual figure's */
        CHECK((int)rows[i].c[0] == want[i].k);
        CHECK_NEAR(rows[i].c[1], want[i].med, 1e-12);
        CHECK_NEAR(rows[i].c[2], want[i].q25, 1e-12);
        CHECK_NEAR(rows[i].c[3], want[i].q75, 1e-12);
        CHECK((int)rows[i].c[4] == want[i].n);
    }
}

/* ---- bad input -------------------------------------------------------------------------- */

static void expect_input_error(const char *dir, const char *csv, const char *metric,
                               const char *needle1, const char *needle2)
{
    write_file(dir, "traces.csv", csv);
    ncp_error err = {0, ""};
    int rc = ncp_plot_aggregate(dir, metric, &err);
    CHECK(rc == NCP_ERR_INPUT);
    CHECK(err.code == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, needle1) != NULL);
    if (needle2) CHECK(strstr(err.msg, needle2) != NULL);
    if (rc != NCP_ERR_INPUT || !strstr(err.msg, needle1) || (needle2 && !strstr(err.msg, needle2)))
        fprintf(stderr, "  message was: %s\n", err.msg);
}

#define ROW(p, s, k, t, r) p "," s "," k "," t "," r ",0,0,0,0,0,0,0,0,0,0\n"

static void test_bad_input(const char *dir)
{
    ncp_error err = {0, ""};
    char tp[600];
    path_in(tp, sizeof tp, dir, "traces.csv");
    CHECK(unlink(tp) == 0);
    CHECK(ncp_plot_aggregate(dir, NULL, &err) == NCP_ERR_INPUT); /* no traces.csv */
    CHECK(strstr(err.msg, "traces.csv") != NULL);

    expect_input_error(dir, HEADER ROW("000000", "pgs", "1", "0.1", "0.5")
                                ROW("000000", "pgs", "2", "0.2", "0.25")
                                ROW("000000", "pgs", "3", "abc", "0.125"),
                       NULL, "traces.csv:4:", "time_ms");
    expect_input_error(dir, HEADER ROW("000000", "pgs", "1", "0.1", "0.5") "000000,pgs,2,0.2\n",
                       NULL, "traces.csv:3:", "fields");
    expect_input_error(dir, HEADER ROW("000000", "pgs", "1.5", "0.1", "0.5"), NULL,
                       "traces.csv:2:", "iteration");
    expect_input_error(dir, HEADER ROW("000000", "pgs", "-1", "0.1", "0.5"), NULL,
                       "traces.csv:2:", "iteration");
    expect_input_error(dir, HEADER ROW("000000", "pgs", "1", "-0.1", "0.5"), NULL,
                       "traces.csv:2:", "time_ms");
    expect_input_error(dir, HEADER ROW("000000", "pgs", "1", "0.1", "x1"), NULL,
                       "traces.csv:2:", "al_residual");
    expect_input_error(dir, HEADER ROW("000000", "pgs", "1", "0.1", ""), NULL,
                       "traces.csv:2:", "al_residual");
    expect_input_error(dir, HEADER ROW("000000", "\"pgs", "1", "0.1", "0.5"), NULL,
                       "traces.csv:2:", "quote");
    expect_input_error(dir, HEADER ROW("000000", "pgs", "1", "0.1", "0.5")
                                ROW("000000", "pgs", "1", "0.2", "0.5"),
                       NULL, "traces.csv:3:", "line 2");
    expect_input_error(dir, "problem,solver,iteration,al_residual\n000000,pgs,1,0.5\n", NULL,
                       "traces.csv:1:", "time_ms");
    expect_input_error(dir, HEADER ROW("000000", "pgs", "1", "0.1", "0.5"), "no_such_metric",
                       "traces.csv:1:", "no_such_metric");
    expect_input_error(dir, HEADER ROW("000000", "pgs", "1", "0.1", "0.5"), "solver",
                       "traces.csv:1:", "not a metric");
    expect_input_error(dir, HEADER, NULL, "traces.csv", "no trace rows");
    expect_input_error(dir, "", NULL, "traces.csv:1:", "empty");
    /* Every metric value nan: nothing to draw. */
    expect_input_error(dir, HEADER ROW("000000", "pgs", "1", "0.1", "nan"), NULL, "al_residual",
                       "nan");
}

/* ---- panels by solver family -------------------------------------------------------------- */

/* Solvers of three registry families and one unknown name, in this order of appearance: the
 * blocks come by panel (registry family order: sweeps, ADMM, Newton & AL; "other" last), then
 * by appearance. */
static void test_families(const char *dir)
{
    char csv[2048] = HEADER;
    const char *order[] = {"zzz", "admm", "pgs", "nsn-fb", "jacobi"};
    for (int s = 0; s < 5; s++)
        for (int k = 1; k <= 2; k++) {
            size_t u = strlen(csv);
            snprintf(csv + u, sizeof csv - u, "000000,%s,%d,%d,0.5,0,0,0,0,0,0,0,0,0,0\n",
                     order[s], k, k + s);
        }
    write_file(dir, "traces.csv", csv);
    ncp_error err = {0, ""};
    CHECK_OK(ncp_plot_aggregate(dir, NULL, &err), &err);
    datrow rows[32];
    int nb = 0, n = read_dat(dir, "fig_time_iter.dat", rows, 32, &nb);
    /* solver, its index by appearance, panel, member */
    const struct { const char *s; int idx, panel, member; } want[] = {
        {"pgs", 2, 0, 0}, {"jacobi", 4, 0, 1}, {"admm", 1, 1, 0}, {"nsn-fb", 3, 2, 0},
        {"zzz", 0, 3, 0}};
    CHECK(nb == 5 && n == 10);
    for (int b = 0; b < 5 && n == 10; b++)
        for (int k = 0; k < 2; k++) {
            const datrow *r = &rows[2 * b + k];
            CHECK(r->block == b && !strcmp(r->solver, want[b].s) && r->idx == want[b].idx);
            CHECK((int)r->c[0] == k + 1);
            CHECK_NEAR(r->c[1], k + 1 + want[b].idx, 1e-12); /* the time written above */
            CHECK((int)r->c[5] == want[b].panel && (int)r->c[6] == want[b].member);
        }
    char *fam = slurp(dir, "fig_families.dat");
    CHECK(fam && strstr(fam, "\n0\tGauss-Seidel / Jacobi sweeps\tpgs jacobi\n") &&
          strstr(fam, "\n1\tADMM\tadmm\n") &&
          strstr(fam, "\n2\tNewton & augmented Lagrangian\tnsn-fb\n") &&
          strstr(fam, "\n3\tother\tzzz\n"));
    free(fam);
}

/* ---- log-sampled traces ------------------------------------------------------------------- */

/* Stored as `ncpbench run` stores them: problem A ran 25 iterations (stored 1..20, 23 and its
 * last, 25), B 30 (1..20, 23, 26, 29 and 30). The time figure uses the grid iterations only:
 * 1..20 and 23 (n = 2), 26 and 29 (n = 1; A stopped), never 25 or 30. */
static void test_sampled(const char *dir)
{
    char sub[128], p[256];
    path_in(sub, sizeof sub, dir, "sampled");
    CHECK(mkdir(sub, 0755) == 0);
    path_in(p, sizeof p, sub, "traces.h5");
    const char *cols[3] = {"iter", "time_ms", "al_residual"};
    ncp_error err = {0, ""};
    ncp_traces *t = NULL;
    CHECK_OK(ncp_traces_create(p, 3, cols, "log", &t, &err), &err);
    const int last[2] = {25, 30};
    for (int q = 0; q < 2 && t; q++) {
        double rows[40 * 3];
        int n = 0;
        for (int k = 1; k <= last[q]; k++)
            if (k <= 20 || k == 23 || k == 26 || k == 29 || k == last[q]) {
                rows[3 * n] = k;
                rows[3 * n + 1] = (q + 1) * k; /* A: k ms, B: 2k ms */
                rows[3 * n++ + 2] = 1.0 / k;
            }
        CHECK_OK(ncp_traces_write(t, "pgs", q ? "B" : "A", n, rows, last[q], "max_iter", &err), &err);
    }
    CHECK_OK(ncp_traces_close(t, &err), &err);
    CHECK_OK(ncp_plot_aggregate(sub, NULL, &err), &err);
    datrow rows[64];
    int nb = 0, n = read_dat(sub, "fig_time_iter.dat", rows, 64, &nb);
    CHECK(nb == 1 && n == 23);
    for (int i = 0; i < n && n == 23; i++) {
        int k = (int)rows[i].c[0], want = i < 20 ? i + 1 : i == 20 ? 23 : i == 21 ? 26 : 29;
        CHECK(k == want);
        CHECK((int)rows[i].c[4] == (k <= 23 ? 2 : 1));
        CHECK_NEAR(rows[i].c[1], k <= 23 ? 1.5 * k : 2.0 * k, 1e-12); /* median of k and 2k */
    }
    rm_tree(sub);
}

/* ---- the index page ------------------------------------------------------------------------ */

static void test_index(const char *dir)
{
    char sub[128];
    path_in(sub, sizeof sub, dir, "idx");
    CHECK(mkdir(sub, 0755) == 0);
    write_file(sub, "summary.json",
               "{\"scene\": \"idx_test\", \"budget\": {\"stop_metric\": \"al_residual\"},\n"
               " \"solvers\": [{\"solver\": \"pgs\", \"problems\": 4, \"converged\": 3,\n"
               "  \"median_iterations\": 12.5, \"median_solve_ms\": 0.25,\n"
               "  \"median\": {\"al_residual\": 1e-9}},\n"
               " {\"solver\": \"mystery\", \"problems\": 2, \"converged\": 0,\n"
               "  \"median_iterations\": null, \"median_solve_ms\": 7, \"median\": {}}],\n"
               " \"results_table\": {\"problems\": 4, \"tol\": 1e-8, \"stop_metric\": \"al_residual\",\n"
               "  \"max_iter\": 100, \"solvers\": [\n"
               "  {\"solver\": \"mystery\", \"rank\": 2, \"family\": \"other\", \"problems\": 4,\n"
               "   \"converged\": 0, \"unsupported\": 0, \"success_rate\": 0, \"sgm_time_ms\": 7.5,\n"
               "   \"sgm_time_normalized\": 3, \"sgm_iterations\": null},\n"
               "  {\"solver\": \"pgs\", \"rank\": 1, \"family\": \"Gauss-Seidel / Jacobi sweeps\",\n"
               "   \"problems\": 4, \"converged\": 3, \"unsupported\": 0, \"success_rate\": 0.75,\n"
               "   \"sgm_time_ms\": 2.5, \"sgm_time_normalized\": 1, \"sgm_iterations\": 12.25,\n"
               "   \"sgm_iterations_normalized\": 1}]}}\n");
    const char *figs[] = {"residual_vs_time.png", "residual_vs_time.svg", "extra.svg", "b.png"};
    for (int i = 0; i < 4; i++) write_file(sub, figs[i], "x");
    write_file(sub, "notafigure.txt", "x");
    ncp_error err = {0, ""};
    CHECK_OK(ncp_plot_index(sub, &err), &err);
    char *md = slurp(sub, "index.md"), *html = slurp(sub, "index.html");
    CHECK(md && html);
    if (!md || !html) { free(md); free(html); return; }
    for (int i = 0; i < 4; i++) {
        char link[128];
        snprintf(link, sizeof link, "](%s)", figs[i]);
        CHECK(strstr(md, link) != NULL);
        snprintf(link, sizeof link, "href=\"%s\"", figs[i]);
        CHECK(strstr(html, link) != NULL);
    }
    CHECK(!strstr(md, "notafigure"));
    CHECK(strstr(md, "# idx_test") != NULL);
    CHECK(strstr(md, "| pgs | Gauss-Seidel / Jacobi sweeps | 3 / 4 | 12.5 | 0.25 | 1e-09 |") != NULL);
    CHECK(strstr(md, "| mystery | other | 0 / 2 | - | 7 | - |") != NULL);
    CHECK(strstr(md, "median al_residual") != NULL);
    /* the results table first, by rank, with counts and raw values; in HTML each number's
     * raw value in data-value, the sorter inline, before the first figure */
    const char *r1 = strstr(md, "| pgs | Gauss-Seidel / Jacobi sweeps | 75.0% (3/4) | 1.00 (2.5 ms) "
                                "| 1.00 (12.2) |");
    const char *r2 = strstr(md, "| mystery | other | 0.0% (0/4) | 3.00 (7.5 ms) | - |");
    CHECK(r1 && r2 && r1 < r2 && r2 < strstr(md, "## Figures"));
    const char *tab = strstr(html, "<table id=\"results-table\">");
    CHECK(tab && tab < strstr(html, "<img") && strstr(html, "function sortBy(") != NULL);
    CHECK(strstr(html, "<td data-value=\"2.5\">1.00 (2.5 ms)</td>") != NULL);
    CHECK(strstr(html, "<td data-value=\"0.75\">75.0% (3/4)</td>") != NULL);
    CHECK(strstr(html, "<td data-value=\"\">-</td>") != NULL); /* mystery's iterations */
    CHECK(strstr(html, "src=\"b.png\"") && strstr(html, "onerror=") && !strstr(html, "http"));
    free(md);
    free(html);
    rm_tree(sub);
}

/* ---- gnuplot ---------------------------------------------------------------------------- */

static int has_png_signature(const char *dir, const char *name)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    char p[512];
    unsigned char b[8];
    path_in(p, sizeof p, dir, name);
    FILE *f = fopen(p, "rb");
    if (!f) return 0;
    size_t got = fread(b, 1, 8, f);
    fclose(f);
    return got == 8 && memcmp(b, sig, 8) == 0;
}

static void test_gnuplot(const char *dir)
{
    write_traces(dir);
    write_file(dir, "summary.json", "{\"scene\": \"incline_test\", \"solvers\": 2}\n");
    ncp_error err = {0, ""};
    CHECK_OK(ncp_plot_dir(dir, NCP_SOURCE_ROOT "/scripts", NULL, &err), &err);
    const char *figs[] = {"residual_vs_time.png", "residual_vs_time.svg",
                          "time_vs_iteration.png", "time_vs_iteration.svg"};
    for (int i = 0; i < 4; i++) CHECK(file_size(dir, figs[i]) > 0);
    CHECK(has_png_signature(dir, figs[0]));
    CHECK(has_png_signature(dir, figs[2]));
    /* The SVGs carry the title (scene from summary.json) and one legend entry per solver. */
    for (int i = 1; i < 4; i += 2) {
        char *svg = slurp(dir, figs[i]);
        CHECK(svg != NULL);
        if (!svg) continue;
        CHECK(strstr(svg, "<svg") != NULL);
        CHECK(strstr(svg, "incline_test") != NULL);
        CHECK(strstr(svg, ">alpha<") != NULL);
        CHECK(strstr(svg, ">beta<") != NULL);
        free(svg);
    }
    /* The data still matches after the full run (the scripts do not touch it). */
    check_residual_time(dir, 1.0, "al_residual");

    /* A failing script: the error names the log, which holds gnuplot's message. */
    char sdir[600];
    path_in(sdir, sizeof sdir, dir, "badscripts");
    CHECK(mkdir(sdir, 0755) == 0);
    write_file(sdir, "residual_vs_time.gp", "plot sin(x) with nonsense_style\n");
    write_file(sdir, "time_vs_iteration.gp", "exit status 0\n");
    ncp_error_clear(&err);
    CHECK(ncp_plot_dir(dir, sdir, NULL, &err) == NCP_ERR_IO);
    CHECK(strstr(err.msg, "gnuplot.log") != NULL);
    CHECK(file_size(dir, "gnuplot.log") > 0);
    CHECK(file_size(dir, "residual_vs_time.png") == -1); /* stale figure removed */

    /* DISPLAY is removed from gnuplot's environment: this script fails if it sees one. */
    write_file(sdir, "residual_vs_time.gp",
               "if (strlen(system('printenv DISPLAY')) > 0) exit status 7\n"
               "set terminal pngcairo; set output out.'.png'; plot x\n"
               "set terminal svg; set output out.'.svg'; plot x\n");
    write_file(sdir, "time_vs_iteration.gp",
               "set terminal pngcairo; set output out.'.png'; plot x\n"
               "set terminal svg; set output out.'.svg'; plot x\n");
    CHECK(setenv("DISPLAY", ":99", 1) == 0);
    ncp_error_clear(&err);
    CHECK_OK(ncp_plot_dir(dir, sdir, NULL, &err), &err);
    CHECK(unsetenv("DISPLAY") == 0);
    rm_tree(sdir);
}

static void test_missing_gnuplot(const char *dir)
{
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    char empty[600];
    path_in(empty, sizeof empty, dir, "emptybin");
    CHECK(mkdir(empty, 0755) == 0);
    CHECK(setenv("PATH", empty, 1) == 0);
    CHECK(ncp_plot_available() == 0);
    write_traces(dir);
    char dat[700];
    path_in(dat, sizeof dat, dir, "fig_time_iter.dat");
    unlink(dat);
    ncp_error err = {0, ""};
    int rc = ncp_plot_dir(dir, NCP_SOURCE_ROOT "/scripts", NULL, &err);
    CHECK(rc == NCP_PLOT_SKIPPED);
    CHECK(strstr(err.msg, "gnuplot not found on PATH") != NULL);
    CHECK(strstr(err.msg, "gnuplot-nox") != NULL);
    CHECK(file_size(dir, "fig_time_iter.dat") > 0); /* the data was still written */
    if (saved) setenv("PATH", saved, 1);
    else unsetenv("PATH");
    free(saved);
    rmdir(empty);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ncp_test_plot_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    ncp_error err = {0, ""};

    write_traces(tmpdir);
    CHECK_OK(ncp_plot_aggregate(tmpdir, NULL, &err), &err);
    check_residual_time(tmpdir, 1.0, "al_residual");
    check_time_iter(tmpdir);

    /* Another metric column: natural_map_abs = 2 al_residual in the synthetic file. */
    ncp_error_clear(&err);
    CHECK_OK(ncp_plot_aggregate(tmpdir, "natural_map_abs", &err), &err);
    check_residual_time(tmpdir, 2.0, "natural_map_abs");
    check_time_iter(tmpdir);

    /* the same rows in traces.h5 (preferred over a traces.csv beside it) */
    char h5dir[128];
    path_in(h5dir, sizeof h5dir, tmpdir, "h5");
    CHECK(mkdir(h5dir, 0755) == 0);
    write_traces_h5(h5dir);
    write_file(h5dir, "traces.csv", HEADER ROW("000000", "other", "1", "0.1", "0.5"));
    ncp_error_clear(&err);
    CHECK_OK(ncp_plot_aggregate(h5dir, NULL, &err), &err);
    check_residual_time(h5dir, 1.0, "al_residual");
    check_time_iter(h5dir);
    ncp_error_clear(&err);
    CHECK_OK(ncp_plot_aggregate(h5dir, "natural_map_abs", &err), &err);
    check_residual_time(h5dir, 2.0, "natural_map_abs");
    ncp_error_clear(&err);
    CHECK(ncp_plot_aggregate(h5dir, "no_such_metric", &err) == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, "traces.h5") && strstr(err.msg, "no_such_metric"));
    rm_tree(h5dir);

    test_families(tmpdir);
    test_sampled(tmpdir);
    test_index(tmpdir);
    test_bad_input(tmpdir);
    test_missing_gnuplot(tmpdir);
    if (ncp_plot_available()) test_gnuplot(tmpdir);
    else fprintf(stderr, "test_plot: gnuplot not on PATH, figure checks skipped\n");

    rm_tree(tmpdir);
    return tcheck_exit("plot");
}
