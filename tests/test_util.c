/* util/csv.h, util/stats.h and util/membudget.h (parsing --max-memory, the budget check's
 * message): the CSV reader on good files (quoted, empty and blank-padded
 * fields, nan, a byte-order mark, CRLF, blank lines) and on bad ones (each message names the file
 * and the line), and the quantile against hand-computed (numpy) values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tcheck.h"
#include "bench/deadline.h"
#include "util/csv.h"
#include "util/membudget.h"
#include "util/stats.h"

/* ---- quantile ---- */

static void test_quantile(void)
{
    /* numpy.percentile([1, 2, 3, 4], [0, 25, 50, 75, 100]) = 1, 1.75, 2.5, 3.25, 4 */
    const double x[4] = {1, 2, 3, 4};
    CHECK(ncp_quantile_sorted(x, 4, 0.0) == 1.0);
    CHECK_NEAR(ncp_quantile_sorted(x, 4, 0.25), 1.75, 1e-15);
    CHECK_NEAR(ncp_quantile_sorted(x, 4, 0.5), 2.5, 1e-15);
    CHECK_NEAR(ncp_quantile_sorted(x, 4, 0.75), 3.25, 1e-15);
    CHECK(ncp_quantile_sorted(x, 4, 1.0) == 4.0);
    /* odd n: the median is the middle order statistic exactly; q = 0.9 of 5 values: h = 3.6,
     * 8 + 0.6 (16 - 8) = 12.8 */
    const double y[5] = {1, 2, 4, 8, 16};
    CHECK(ncp_quantile_sorted(y, 5, 0.5) == 4.0);
    CHECK_NEAR(ncp_quantile_sorted(y, 5, 0.9), 12.8, 1e-14);
    /* {1e-4, 1e-3, 1e-2}: q25 = 1e-4 + 0.5 (1e-3 - 1e-4) = 5.5e-4 */
    const double z[3] = {1e-4, 1e-3, 1e-2};
    CHECK_NEAR(ncp_quantile_sorted(z, 3, 0.25), 5.5e-4, 1e-18);
    CHECK_NEAR(ncp_quantile_sorted(z, 3, 0.75), 5.5e-3, 1e-17);
    /* ends and degenerate sizes */
    CHECK(ncp_quantile_sorted(x, 4, -0.5) == 1.0 && ncp_quantile_sorted(x, 4, 2.0) == 4.0);
    CHECK(ncp_quantile_sorted(x, 1, 0.5) == 1.0);
    CHECK(isnan(ncp_quantile_sorted(x, 0, 0.5)));
    /* infinite order statistics: no inf - inf or 0 * inf */
    const double w[4] = {1, 2, INFINITY, INFINITY};
    CHECK(ncp_quantile_sorted(w, 3, 0.5) == 2.0);       /* h = 1: x_1 exactly */
    CHECK(ncp_quantile_sorted(w, 4, 0.75) == INFINITY); /* between two infinities */
    CHECK(ncp_quantile_sorted(w, 3, 0.75) == INFINITY); /* 2 + 0.5 (inf - 2) */
}

/* ---- CSV ---- */

static void write_file(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(fwrite(text, 1, n, f) == n);
    CHECK(fclose(f) == 0);
}

#define WRITE(path, text) write_file(path, text, sizeof(text) - 1)

static void test_csv_good(const char *path)
{
    ncp_error err = {0, ""};
    ncp_csv r;
    /* BOM, CRLF, blanks around fields, quoted fields (a comma, a doubled quote, kept blanks),
     * empty fields, a blank line, nan */
    WRITE(path, "\xEF\xBB\xBF" "name, value ,note\r\n"
                "a,1.5,\"x, y\"\r\n"
                "\r\n"
                "\"b \"\"q\"\"\" , nan ,\n"
                "  c ,,\" kept \"\n");
    CHECK_OK(ncp_csv_open(&r, path, NULL, &err), &err);
    CHECK(r.ncols == 3 && r.line == 1);
    CHECK(r.ncols == 3 && !strcmp(r.header[0], "name") && !strcmp(r.header[1], "value") &&
          !strcmp(r.header[2], "note"));
    CHECK(ncp_csv_column(&r, "value") == 1 && ncp_csv_column(&r, "Value") == -1);
    int col = -1;
    CHECK_OK(ncp_csv_need_column(&r, "note", "hint", &col, &err), &err);
    CHECK(col == 2);

    double v = 0;
    CHECK_OK(ncp_csv_next(&r, &err), &err);
    CHECK(r.line == 2 && !strcmp(r.field[0], "a") && !strcmp(r.field[2], "x, y"));
    CHECK(ncp_csv_number(r.field[1], &v) == 0 && v == 1.5);

    CHECK_OK(ncp_csv_next(&r, &err), &err); /* the blank line 3 is skipped */
    CHECK(r.line == 4 && !strcmp(r.field[0], "b \"q\"") && !strcmp(r.field[2], ""));
    CHECK(ncp_csv_number(r.field[1], &v) == 0 && isnan(v));

    CHECK_OK(ncp_csv_next(&r, &err), &err);
    CHECK(r.line == 5 && !strcmp(r.field[0], "c") && !strcmp(r.field[1], "") &&
          !strcmp(r.field[2], " kept "));
    CHECK(ncp_csv_number(r.field[1], &v) == -1); /* empty is not a number */

    CHECK(ncp_csv_next(&r, &err) == NCP_CSV_END);
    CHECK(err.code == NCP_OK);
    ncp_csv_close(&r);
    ncp_csv_close(&r); /* twice is harmless */

    /* numbers: whole field only; inf as the benchmark writes it */
    CHECK(ncp_csv_number("inf", &v) == 0 && isinf(v) && v > 0);
    CHECK(ncp_csv_number("-inf", &v) == 0 && isinf(v) && v < 0);
    CHECK(ncp_csv_number("1e-3", &v) == 0 && v == 1e-3);
    CHECK(ncp_csv_number("1e-3x", &v) == -1 && ncp_csv_number("x", &v) == -1);
}

typedef struct acc {
    int n;
    char got[8][3][16];
} acc;

static int acc_row(void *ctx, const char *const *f, const char *path, long line, ncp_error *err)
{
    (void)path;
    (void)line;
    (void)err;
    acc *a = ctx;
    if (a->n < 8)
        for (int i = 0; i < 3; i++) snprintf(a->got[a->n][i], 16, "%s", f[i]);
    a->n++;
    return NCP_OK;
}

static int stop_row(void *ctx, const char *const *f, const char *path, long line, ncp_error *err)
{
    (void)ctx;
    (void)f;
    return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: stop here", path, line);
}

static void test_csv_read(const char *path)
{
    const char *const cols[3] = {"solver", "problem", "solve_ms"};
    ncp_error err = {0, ""};
    /* columns come back in the requested order; a blank line is skipped */
    WRITE(path, "problem,solver,converged,solve_ms\n000001,pgs,1,0.5\n\n000002,\"apgd\",0,1e-3\n");
    acc a = {0};
    CHECK_OK(ncp_csv_read(path, cols, 3, acc_row, &a, &err), &err);
    CHECK(a.n == 2);
    CHECK(!strcmp(a.got[0][0], "pgs") && !strcmp(a.got[0][1], "000001") &&
          !strcmp(a.got[0][2], "0.5"));
    CHECK(!strcmp(a.got[1][0], "apgd") && !strcmp(a.got[1][2], "1e-3"));
    /* the row function's error stops the reading */
    ncp_error_clear(&err);
    CHECK(ncp_csv_read(path, cols, 3, stop_row, NULL, &err) == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, "m.csv:2: stop here") != NULL);
    ncp_error_clear(&err);
    CHECK(ncp_csv_read(path, cols, 17, acc_row, &a, &err) == NCP_ERR_INTERNAL);
}

static void test_csv_bad(const char *path)
{
    static const struct {
        const char *text;
        size_t n;
        const char *needle;
    } bad[] = {
#define BAD(text, needle) {text, sizeof(text) - 1, needle}
        BAD("problem,solver\n1,pgs\n", "m.csv:1: the header has no column 'solve_ms' (is this a"),
        BAD("problem,solver,solve_ms\n1,pgs,0.5\n2,pgs\n", "m.csv:3: 2 fields, but the header has 3 columns"),
        BAD("problem,solver,solve_ms\n1,pgs,0.5,7\n", "m.csv:2: 4 fields, but the header has 3 columns"),
        BAD("problem,solver,solve_ms\n1,\"pgs,0.5\n", "m.csv:2: unterminated or misplaced quote"),
        BAD("problem,solver,solve_ms\n1,\"pgs\"x,0.5\n", "m.csv:2: unterminated or misplaced quote"),
        BAD("problem,\"solver,solve_ms\n", "m.csv:1: unterminated or misplaced quote"),
        BAD("problem,solver,solve_ms\n1,p\0gs,0.5\n", "m.csv:2: contains a NUL byte"),
        BAD("", "m.csv:1: empty file"),
#undef BAD
    };
    const char *const cols[3] = {"solver", "problem", "solve_ms"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(path, bad[i].text, bad[i].n);
        acc b = {0};
        ncp_error err = {0, ""};
        CHECK(ncp_csv_read(path, cols, 3, acc_row, &b, &err) == NCP_ERR_INPUT);
        CHECK(strstr(err.msg, bad[i].needle) != NULL);
        if (!strstr(err.msg, bad[i].needle))
            fprintf(stderr, "  case %zu: \"%s\" lacks \"%s\"\n", i, err.msg, bad[i].needle);
    }
    /* more columns than the reader holds */
    char wide[4 * (NCP_CSV_MAX_COLS + 1) + 2] = "";
    for (int i = 0; i <= NCP_CSV_MAX_COLS; i++)
        snprintf(wide + strlen(wide), sizeof wide - strlen(wide), "%sc%d", i ? "," : "", i);
    strcat(wide, "\n");
    write_file(path, wide, strlen(wide));
    ncp_csv r;
    ncp_error err = {0, ""};
    CHECK(ncp_csv_open(&r, path, NULL, &err) == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, "m.csv:1: more than 64 columns") != NULL);
    /* a missing column with the caller's hint; a missing file with the caller's advice */
    WRITE(path, "a,b\n1,2\n");
    ncp_error_clear(&err);
    CHECK_OK(ncp_csv_open(&r, path, NULL, &err), &err);
    int col = 0;
    CHECK(ncp_csv_need_column(&r, "c", "expected a,b,c", &col, &err) == NCP_ERR_INPUT && col == -1);
    CHECK(strstr(err.msg, "m.csv:1: the header has no column 'c' (expected a,b,c)") != NULL);
    ncp_csv_close(&r);
    CHECK(unlink(path) == 0);
    ncp_error_clear(&err);
    CHECK(ncp_csv_open(&r, path, "run it first", &err) == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, "cannot open ") && strstr(err.msg, "m.csv: ") &&
          strstr(err.msg, " (run it first)"));
}

/* ---- memory budget ---- */

static void test_membudget(void)
{
    ncp_error err;
    double b = 0.0;
    ncp_error_clear(&err);
    CHECK(ncp_mem_parse("8G", "--max-memory", &b, &err) == NCP_OK);
    CHECK(b == 8.0 * 1024 * 1024 * 1024);
    CHECK(ncp_mem_parse("512MiB", "--max-memory", &b, &err) == NCP_OK);
    CHECK(b == 512.0 * 1024 * 1024);
    CHECK(ncp_mem_parse("3000000000", "--max-memory", &b, &err) == NCP_OK);
    CHECK(b == 3e9);
    double phys = ncp_mem_physical();
    CHECK(phys > 0.0);
    CHECK(ncp_mem_parse("40%", "--max-memory", &b, &err) == NCP_OK);
    CHECK_REL(b, 0.4 * phys, 1e-12);
    CHECK_REL(ncp_mem_default_budget(), NCP_MEM_DEFAULT_FRACTION * phys, 1e-12);
    CHECK(ncp_mem_budget_or_default(123e6) == 123e6);
    const char *bad[] = {"", "x", "-1G", "8Q", "8Gx", "200%", "100", "nan", "inf"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ncp_error_clear(&err);
        CHECK(ncp_mem_parse(bad[i], "--max-memory", &b, &err) == NCP_ERR_INPUT);
        CHECK(strstr(err.msg, "--max-memory") != NULL);
    }
    ncp_error_clear(&err);
    CHECK(ncp_mem_check(1024.0 * 1024 * 1024, 1e9, "a matrix", &err) == NCP_OK);
    CHECK(ncp_mem_check(1024.0 * 1024 * 1024, 2e9, "dataset /problems/000001/blocks/type",
                        &err) == NCP_ERR_INPUT);
    CHECK(strstr(err.msg, "/problems/000001/blocks/type needs 1.86 GiB") &&
          strstr(err.msg, "budget of 1 GiB"));
    ncp_error_clear(&err);
    CHECK(ncp_mem_check(1e9, NAN, "x", &err) == NCP_ERR_INPUT);
    char buf[32];
    CHECK(strcmp(ncp_mem_format(800, buf, sizeof buf), "800 B") == 0);
    CHECK(strcmp(ncp_mem_format(1536.0 * 1024 * 1024, buf, sizeof buf), "1.5 GiB") == 0);
}

/* The watchdog's rule (bench/deadline.h) on synthetic clocks, D = 1000 ms: a spinning deaf
 * solver ends on CPU time whatever the load, a solver starved to 10 % of a core (load ~20 on
 * 2 cores) that heeds its budget is not ended before the wall backstop 10 D, a blocked one
 * ends once it has run D and made no progress for NCP_DEADLINE_IDLE_MS, and an unreadable CPU
 * clock falls back to wall time D. */
static void test_deadline(void)
{
    ncp_deadline d;
    ncp_deadline_start(&d, 1000.0, 0.0, 50.0); /* the thread had 50 ms of CPU before */
    CHECK(ncp_deadline_passed(&d, 600.0, 650.0) == NCP_DEADLINE_NOT);
    CHECK(ncp_deadline_passed(&d, 1000.5, 1050.5) == NCP_DEADLINE_CPU);

    ncp_deadline_start(&d, 1000.0, 0.0, 0.0);
    int early = 0;
    for (double t = 100.0; t <= 10000.0; t += 100.0)
        early += ncp_deadline_passed(&d, t, 0.1 * t) != NCP_DEADLINE_NOT;
    CHECK(early == 0);
    CHECK(ncp_deadline_passed(&d, 10000.5, 1000.0) == NCP_DEADLINE_WALL);

    ncp_deadline_start(&d, 1000.0, 0.0, 0.0); /* busy until 800 ms, then blocked */
    int why = NCP_DEADLINE_NOT;
    double at = 0.0;
    for (double t = 100.0; t <= 3000.0 && !why; t += 50.0) {
        why = ncp_deadline_passed(&d, t, fmin(t, 800.0) + 1e-5 * t); /* sleep(1): ~10 us/s */
        at = t;
    }
    CHECK(why == NCP_DEADLINE_IDLE);
    CHECK(at > 1800.0 && at <= 1850.0); /* idle 1 s after its last progress, at 800 ms */

    ncp_deadline_start(&d, 1000.0, 0.0, NAN);
    CHECK(ncp_deadline_passed(&d, 999.0, NAN) == NCP_DEADLINE_NOT);
    CHECK(ncp_deadline_passed(&d, 1001.0, NAN) == NCP_DEADLINE_WALL);
    CHECK(strcmp(ncp_deadline_reason(NCP_DEADLINE_IDLE), "no CPU progress") == 0);
}

int main(void)
{
    test_quantile();
    test_deadline();
    test_membudget();
    char dir[] = "/tmp/ncp_test_util_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/m.csv", dir);
    test_csv_good(path);
    test_csv_read(path);
    test_csv_bad(path);
    unlink(path);
    CHECK(rmdir(dir) == 0);
    return tcheck_exit("util");
}
