/* The results tables (issue 16; bench/output.h, util/stats.h ncp_sgm): the shifted geometric
 * mean against analytic values, and the table of a crafted metrics.csv against values computed
 * here from the definitions (cube roots written out by hand), with a solver that fails a problem
 * and one that is unsupported on one, with and without a time budget. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/output.h"
#include "tcheck.h"
#include "util/stats.h"

static void test_sgm(void)
{
    double c[5] = {7, 7, 7, 7, 7};
    CHECK_REL(ncp_sgm(c, 5, 10.0), 7.0, 1e-14); /* of a constant: the constant, any shift */
    CHECK_REL(ncp_sgm(c, 5, 0.0), 7.0, 1e-14);
    double a[2] = {1, 100};
    CHECK_REL(ncp_sgm(a, 2, 0.0), 10.0, 1e-14); /* sqrt(1 * 100) */
    double b[2] = {6, 90};
    CHECK_REL(ncp_sgm(b, 2, 10.0), 30.0, 1e-14); /* sqrt(16 * 100) - 10 */
    double z[2] = {0, 30};
    CHECK_REL(ncp_sgm(z, 2, 10.0), 10.0, 1e-14); /* sqrt(10 * 40) - 10 */
    CHECK(ncp_sgm(z, 2, 0.0) == 0.0);            /* a zero without a shift */
    double t[3] = {2, 4, 10};
    CHECK_REL(ncp_sgm(t, 3, 10.0), cbrt(12.0 * 14.0 * 20.0) - 10.0, 1e-14);
    /* large samples: no overflow of the product */
    double big[400];
    for (int i = 0; i < 400; i++) big[i] = 1e6;
    CHECK_REL(ncp_sgm(big, 400, 10.0), 1e6, 1e-12);
    double bad[2] = {1, NAN}, neg[2] = {1, -11}, inf[2] = {1, INFINITY};
    CHECK(isnan(ncp_sgm(bad, 2, 10.0)) && isnan(ncp_sgm(neg, 2, 10.0)) &&
          isnan(ncp_sgm(inf, 2, 10.0)) && isnan(ncp_sgm(a, 0, 10.0)) &&
          isnan(ncp_sgm(a, 2, -1.0)));
}

/* 3 problems x 3 solvers; max_iter 100. time = setup_ms + solve_ms.
 *   p1: A converged 2 ms 10 it; B converged 6 ms 30 it; C converged 1 ms 5 it
 *   p2: A converged 4 ms 20 it; B max_iter 50 ms 100 it; C unsupported 0 ms 0 it
 *   p3: A converged 10 ms 40 it; B converged 10 ms 50 it; C stalled 3 ms 7 it
 * (the rows of p3 before those of p2's C: the reader must not need them problem-major) */
static const char *CSV =
    "problem,solver,iterations,converged,status,setup_ms,solve_ms,ms_per_iter,note\n"
    "p1,A,10,1,converged,0.5,1.5,0.15,\n"
    "p1,B,30,1,converged,1,5,0.2,\n"
    "p1,C,5,1,converged,0,1,0.2,\n"
    "p2,A,20,1,converged,1,3,0.2,\n"
    "p2,B,100,0,max_iter,0,50,0.5,\n"
    "p3,A,40,1,converged,2,8,0.25,\n"
    "p3,B,50,1,converged,0,10,0.2,\n"
    "p3,C,7,0,stalled,0,3,0.4,\n"
    "p2,C,0,0,unsupported,0,0,nan,\"needs a dense A: ...\"\n";

static const ncp_results_row *row_of(const ncp_results_row *rows, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].solver, s)) return &rows[i];
    return NULL;
}

static void check_table(const char *path, double budget)
{
    ncp_error err;
    ncp_error_clear(&err);
    ncp_results_grid g = {0};
    CHECK_OK(ncp_results_read_csv(&g, path, budget, 100, &err), &err);
    CHECK(g.np == 3 && g.ns == 3);
    ncp_results_row rows[3];
    CHECK_OK(ncp_results_compute(&g, rows, &err), &err);
    const ncp_results_row *A = row_of(rows, 3, "A"), *B = row_of(rows, 3, "B"),
                          *C = row_of(rows, 3, "C");
    CHECK(A && B && C);
    if (!A || !B || !C) {
        ncp_results_grid_free(&g);
        return;
    }
    /* success: unsupported is a failure of the set, left out of the supported rate */
    CHECK(A->converged == 3 && B->converged == 2 && C->converged == 1);
    CHECK(C->unsupported == 1 && A->unsupported == 0);
    CHECK_NEAR(A->success, 1.0, 0);
    CHECK_NEAR(B->success, 2.0 / 3.0, 1e-15);
    CHECK_NEAR(C->success, 1.0 / 3.0, 1e-15);
    CHECK_NEAR(C->success_supported, 0.5, 0);
    CHECK_NEAR(B->success_supported, 2.0 / 3.0, 1e-15);
    /* a failure's time: the budget, else the slowest run on the problem (p2: 50, p3: 10) */
    double f2 = budget > 0 ? budget : 50.0, f3 = budget > 0 ? budget : 10.0;
    double ta = cbrt(12.0 * 14.0 * 20.0) - 10.0;
    double tb = cbrt((6.0 + 10) * (f2 + 10) * 20.0) - 10.0;
    double tc = cbrt(11.0 * (f2 + 10) * (f3 + 10)) - 10.0;
    CHECK_REL(A->sgm_time_ms, ta, 1e-13);
    CHECK_REL(B->sgm_time_ms, tb, 1e-13);
    CHECK_REL(C->sgm_time_ms, tc, 1e-13);
    double best = fmin(ta, fmin(tb, tc));
    CHECK_REL(A->sgm_time_norm, ta / best, 1e-13);
    CHECK_REL(B->sgm_time_norm, tb / best, 1e-13);
    CHECK_REL(C->sgm_time_norm, tc / best, 1e-13);
    CHECK(A->sgm_time_norm == 1.0);
    /* iterations: a failure at max_iter = 100 */
    double ia = cbrt(20.0 * 30 * 50) - 10, ib = cbrt(40.0 * 110 * 60) - 10,
           ic = cbrt(15.0 * 110 * 110) - 10;
    CHECK_REL(A->sgm_iter, ia, 1e-13);
    CHECK_REL(B->sgm_iter, ib, 1e-13);
    CHECK_REL(C->sgm_iter, ic, 1e-13);
    CHECK_REL(B->sgm_iter_norm, ib / ia, 1e-13);
    CHECK_REL(C->sgm_iter_norm, ic / ia, 1e-13);
    /* ratios: p1 (best C = 1): A 2, B 6, C 1; p2 (best A): A 1; p3 (A, B tie): A 1, B 1 */
    CHECK_NEAR(A->rho_1, 2.0 / 3.0, 1e-15);
    CHECK_NEAR(B->rho_1, 1.0 / 3.0, 1e-15);
    CHECK_NEAR(C->rho_1, 1.0 / 3.0, 1e-15);
    CHECK_NEAR(A->rho_10, 1.0, 0);
    CHECK_NEAR(B->rho_10, 2.0 / 3.0, 1e-15);
    CHECK_NEAR(C->rho_10, 1.0 / 3.0, 1e-15);
    /* medians over the problems solved */
    CHECK_NEAR(A->median_time_ms, 4.0, 1e-12);
    CHECK_NEAR(B->median_time_ms, 8.0, 1e-12);
    CHECK_NEAR(C->median_time_ms, 1.0, 1e-12);
    /* ranks: by success first (A 3/3, B 2/3, C 1/3) whatever the times */
    CHECK(A->rank == 1 && B->rank == 2 && C->rank == 3);

    /* the same file twice: another 3 problems (names repeat across files), the same table */
    CHECK_OK(ncp_results_read_csv(&g, path, budget, 100, &err), &err);
    CHECK(g.np == 6 && g.ns == 3);
    ncp_results_row r2[3];
    CHECK_OK(ncp_results_compute(&g, r2, &err), &err);
    for (int s = 0; s < 3; s++) {
        CHECK_REL(r2[s].sgm_time_ms, rows[s].sgm_time_ms, 1e-13);
        CHECK_REL(r2[s].sgm_iter, rows[s].sgm_iter, 1e-13);
        CHECK_NEAR(r2[s].rho_1, rows[s].rho_1, 1e-15);
        CHECK_NEAR(r2[s].rho_10, rows[s].rho_10, 1e-15);
        CHECK_NEAR(r2[s].success, rows[s].success, 1e-15);
        CHECK(r2[s].problems == 6 && r2[s].converged == 2 * rows[s].converged);
    }
    ncp_results_grid_free(&g);
}

/* Writes text to dir/name (its path into path) and reads it as a table of at most nrows
 * solvers into g and rows (max_iter 50, no time budget); 0 when it could, else g is freed. */
static int table_of(const char *dir, const char *name, const char *text, char *path, size_t cap,
                    ncp_results_grid *g, ncp_results_row *rows, int nrows)
{
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return -1;
    fputs(text, f);
    fclose(f);
    ncp_error err;
    ncp_error_clear(&err);
    CHECK_OK(ncp_results_read_csv(g, path, 0.0, 50, &err), &err);
    CHECK(g->ns <= nrows);
    if (!err.code && g->ns <= nrows) CHECK_OK(ncp_results_compute(g, rows, &err), &err);
    if (!err.code && g->ns <= nrows) return 0;
    ncp_results_grid_free(g);
    return -1;
}

/* A solver that has no row for a problem (an interrupted run): a failure there. */
static void test_missing_row(const char *dir)
{
    char path[512];
    ncp_results_grid g = {0};
    ncp_results_row rows[2];
    if (table_of(dir, "missing.csv",
                 "problem,solver,iterations,converged,status,setup_ms,solve_ms\n"
                 "p1,A,4,1,converged,0,2\np1,B,6,1,converged,0,4\np2,A,8,1,converged,0,6\n",
                 path, sizeof path, &g, rows, 2))
        return;
    ncp_error err;
    CHECK(g.np == 2 && g.ns == 2 && rows[1].converged == 1 && rows[1].unsupported == 0);
    CHECK_NEAR(rows[1].success, 0.5, 0);
    /* B on p2: at the slowest time there (6 ms) and at max_iter 50 */
    CHECK_REL(rows[1].sgm_time_ms, sqrt(14.0 * 16.0) - 10.0, 1e-13);
    CHECK_REL(rows[1].sgm_iter, sqrt(16.0 * 60.0) - 10.0, 1e-13);
    ncp_results_grid_free(&g);
    /* a row that is not numbers: the file and line named */
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs("problem,solver,iterations,converged,status,setup_ms,solve_ms\n"
          "p1,A,4,yes,converged,0,2\n", f);
    fclose(f);
    ncp_error_clear(&err);
    CHECK(ncp_results_read_csv(&g, path, 0.0, 50, &err) == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, "missing.csv:2") != NULL);
    ncp_results_grid_free(&g);
}

/* The rank's order (output.h): success, then SGM time with an untimed solver (graded answers
 * without the program's time) after the timed ones, then SGM iterations, then appearance.
 *   Y, V, X all solve p1 and p2; Y is fastest; V and X take the same times, V fewer iterations;
 *   Z solves both in 1 iteration but untimed; W solves p1 only (fastest there); U = X. */
static void test_rank(const char *dir)
{
    char path[512];
    ncp_results_grid g = {0};
    ncp_results_row rows[6];
    if (table_of(dir, "rank.csv",
                 "problem,solver,iterations,converged,status,setup_ms,solve_ms\n"
                 "p1,X,10,1,converged,0,4\np1,Y,20,1,converged,0,2\np1,Z,1,1,converged,nan,nan\n"
                 "p1,W,3,1,converged,0,1\np1,V,5,1,converged,0,4\np1,U,10,1,converged,0,4\n"
                 "p2,X,10,1,converged,0,4\np2,Y,20,1,converged,0,2\np2,Z,1,1,converged,nan,nan\n"
                 "p2,W,50,0,max_iter,0,9\np2,V,5,1,converged,0,4\np2,U,10,1,converged,0,4\n",
                 path, sizeof path, &g, rows, 6))
        return;
    static const char *const want[6] = {"Y", "V", "X", "U", "Z", "W"};
    for (int r = 0; r < 6; r++) {
        const ncp_results_row *w = row_of(rows, 6, want[r]);
        CHECK(w && w->rank == r + 1);
        if (w && w->rank != r + 1)
            fprintf(stderr, "rank of %s: %d, want %d\n", want[r], w->rank, r + 1);
    }
    ncp_results_grid_free(&g);
}

/* results.md and the JSON object name every solver and state the budget. */
static void test_outputs(const char *dir, const char *csv)
{
    char md[512];
    snprintf(md, sizeof md, "%s/results.md", dir);
    ncp_error err;
    ncp_error_clear(&err);
    ncp_results_grid g = {0};
    CHECK_OK(ncp_results_read_csv(&g, csv, 60.0, 100, &err), &err);
    ncp_results_row rows[3];
    CHECK_OK(ncp_results_compute(&g, rows, &err), &err);
    ncp_results_conditions c = {1e-8, "natural_map_rel_acary", 100, 60.0, NULL, NULL, NULL, NULL, 0};
    CHECK_OK(ncp_results_markdown(md, "Results", &g, rows, &c, &err), &err);
    char buf[8192] = {0};
    FILE *f = fopen(md, "r");
    CHECK(f != NULL);
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    CHECK(strstr(buf, "Tolerance: 1e-08 on natural_map_rel_acary") != NULL);
    CHECK(strstr(buf, "100 iterations, 60 ms per solve") != NULL);
    CHECK(strstr(buf, "| C | other | 33.3% (1/3; 50.0% of 2 supported) |") != NULL);
    CHECK(strstr(buf, "| A | other | 100.0% (3/3) | 1.00 (") != NULL);
    cJSON *raw = ncp_results_json(&g, rows, &c);
    CHECK(raw != NULL);
    /* its numbers are raw text (%.17g): read back as a file reader would */
    char *text = raw ? cJSON_PrintUnformatted(raw) : NULL;
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    free(text);
    cJSON_Delete(raw);
    CHECK(o != NULL);
    if (!o) {
        ncp_results_grid_free(&g);
        return;
    }
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "solvers");
    CHECK(cJSON_GetArraySize(arr) == 3);
    const cJSON *c0 = cJSON_GetArrayItem(arr, 2);
    CHECK(c0 && !strcmp(cJSON_GetObjectItemCaseSensitive(c0, "solver")->valuestring, "C"));
    CHECK(c0 && cJSON_GetObjectItemCaseSensitive(c0, "success_rate_supported")->valuedouble == 0.5);
    CHECK(cJSON_GetObjectItemCaseSensitive(o, "time_budget_ms")->valuedouble == 60.0);
    cJSON_Delete(o);
    ncp_results_grid_free(&g);
}

int main(void)
{
    test_sgm();
    char dir[] = "/tmp/ncp_test_results_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char csv[512];
    snprintf(csv, sizeof csv, "%s/metrics.csv", dir);
    FILE *f = fopen(csv, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(CSV, f);
        fclose(f);
        check_table(csv, 0.0);  /* no time budget */
        check_table(csv, 60.0); /* failures at 60 ms */
        test_outputs(dir, csv);
    }
    test_missing_row(dir);
    test_rank(dir);
    char path[600];
    const char *files[] = {"metrics.csv", "missing.csv", "rank.csv", "results.md"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    return tcheck_exit("results");
}
