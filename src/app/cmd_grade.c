/* `ncpbench grade PROBLEMS ANSWERS.h5`: answers computed elsewhere, graded (bench/grade.h,
 * docs/answers.md). Exit codes as cli.h: 0, 2 bad input or usage, 3 I/O or internal failure. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cmd_grade.h"
#include "bench/grade.h"
#include "metrics/metrics.h"
#include "util/membudget.h"

static const char HELP[] =
    "Usage: ncpbench grade PROBLEMS ANSWERS.h5 [options]\n\n"
    "Grades answers computed by any program (lambda per problem, optionally v, the program's\n"
    "own time and iterations, and iterate traces with the program's own times) with the same\n"
    "metrics as a registered solver's answer. PROBLEMS: an ncpbench problems.h5 or a plain\n"
    "FCLib file. ANSWERS.h5: one group /answers/<problem> per problem (format:\n"
    "docs/answers.md; examples/python/simple_solver.py writes one). Outputs as `ncpbench\n"
    "solve` writes them (metrics.csv, summary.json, solutions.h5, traces.h5 when traces are\n"
    "given, figures and index page), every row, trace and the summary marked self-timed:\n"
    "times are the program's own, not measured by ncpbench, so they compare with ncpbench's\n"
    "timings only as far as the program's clock does. A problem without an answer is a row\n"
    "with status failed and note \"no answer\" (--strict: exit 2 instead).\n\n"
    "Options:\n"
    "  --out DIR           output directory (default results/grade-<name>; its earlier\n"
    "                      results are replaced)\n"
    "  --tol X|high|low    converged = stop metric <= X (default 1e-8; high 1e-8, low 1e-4)\n"
    "  --stop-metric NAME  the metric compared with --tol (default natural_map_rel_acary;\n"
    "                      `ncpbench list metrics`)\n"
    "  --name NAME         the solver's name in the outputs (default: the answers file's\n"
    "                      attribute `solver`, else its file name without extension)\n"
    "  --strict            a problem without an answer is an error (exit 2)\n"
    "  --no-figures        no figures nor index page\n"
    "  --max-memory SIZE   memory budget of the readers (e.g. 8G, 512M, 40%)\n\n"
    "Exit codes: 0 graded (whether or not the answers converge), 2 bad input (not an HDF5\n"
    "file, wrong sizes, NaN or Inf, an answer for a problem PROBLEMS does not hold; the\n"
    "message names the problem and the dataset), 3 I/O or internal failure.\n";

static int usage(const char *fmt, const char *a)
{
    fprintf(stderr, "ncpbench grade: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n(see `ncpbench grade --help`)\n");
    return 2;
}

int ncp_cli_grade(int argc, char **argv)
{
    ncp_grade_opts o;
    ncp_grade_opts_default(&o);
    const char *pos[2];
    int npos = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = !strcmp(a, "--out") || !strcmp(a, "--tol") || !strcmp(a, "--stop-metric") ||
                    !strcmp(a, "--name") || !strcmp(a, "--max-memory");
        if (takes && !v) return usage("%s needs a value", a);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(HELP, stdout);
            return 0;
        } else if (!strcmp(a, "--out")) {
            o.out_dir = v;
        } else if (!strcmp(a, "--name")) {
            o.name = v;
        } else if (!strcmp(a, "--tol")) {
            /* the presets of `run` and `solve` (cli.c) */
            if (!strcmp(v, "high")) {
                o.tol = 1e-8;
            } else if (!strcmp(v, "low")) {
                o.tol = 1e-4;
            } else {
                char *end;
                errno = 0;
                o.tol = strtod(v, &end);
                if (errno || end == v || *end || !(o.tol >= 0.0) || isinf(o.tol))
                    return usage("--tol: expected a number >= 0, 'high' (1e-8) or 'low' "
                                 "(1e-4), got '%s'", v);
            }
        } else if (!strcmp(a, "--stop-metric")) {
            if ((o.stop_metric = ncp_metrics_index(v)) < 0)
                return usage("--stop-metric: unknown metric '%s' (`ncpbench list metrics`)", v);
        } else if (!strcmp(a, "--max-memory")) {
            ncp_error me = {0};
            if (ncp_mem_parse(v, "--max-memory", &o.max_memory, &me))
                return usage("%s", me.msg);
        } else if (!strcmp(a, "--strict")) {
            o.strict = 1;
            continue;
        } else if (!strcmp(a, "--no-figures")) {
            o.figures = 0;
            continue;
        } else if (a[0] == '-' && a[1]) {
            return usage("unknown option '%s'", a);
        } else {
            if (npos == 2) return usage("unexpected argument '%s' (expected PROBLEMS ANSWERS.h5)", a);
            pos[npos++] = a;
            continue;
        }
        i++; /* the option's value */
    }
    if (npos != 2) return usage("expected PROBLEMS ANSWERS.h5%s", "");
    o.problems = pos[0];
    o.answers = pos[1];
    ncp_grade_report rep;
    ncp_error err = {0};
    char note[600];
    int rc = ncp_grade_run(&o, &rep, note, sizeof note, &err);
    if (rc) {
        fprintf(stderr, "ncpbench grade: %s\n", err.msg);
        return rc == NCP_ERR_INPUT ? 2 : 3;
    }
    if (note[0]) fprintf(stderr, "ncpbench grade: %s\n", note);
    printf("graded %s: %d of %d problems answered, %d converged (%s <= %g), %d with traces; "
           "self-timed; outputs in %s\n", rep.name, rep.answered, rep.problems, rep.converged,
           ncp_metrics_name(o.stop_metric), o.tol, rep.traces, rep.out_dir);
    return 0;
}
