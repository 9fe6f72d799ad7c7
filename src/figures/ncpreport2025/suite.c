/* The NCP report 2025: the suite's tables and figures (the part "suite"), reduced from every
 * system's runs. Per solver x system: the median and 90th percentile (Hyndman-Fan type 7,
 * util/stats.h) over the system's problems of each §VII-D metric (NaN values skipped) and of
 * the solve time (setup + iterations, ms; an unsupported solve has none), with the runs and the
 * converged ones; the pooled block holds every sample of the suite. The report only says
 * "statistical measures computed over multiple samples" (§VII-D) and its speed metrics are cut
 * off: the median and p90 are ours. Outputs: accuracy.dat (one gnuplot index block per system),
 * table_<metric>.md, time_accuracy.dat (then the pooled block "all"), table_time_accuracy.md,
 * ncpreport2025_{accuracy,time_accuracy}.{png,svg} (scripts/ncpreport2025_*.gp). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures/fig_util.h"
#include "figures/ncpreport2025/ncpreport2025.h"
#include "util/fsutil.h"
#include "util/safefile.h"
#include "util/stats.h"

enum { NR_NMET = 4, NR_NCELL = NR_NSYS + 1 /* the pooled cell last */ };
static const char *const nr_metrics[NR_NMET] = {"penetration", "ncp_dual", "ncp_compl",
                                                "natural_map_inf"};
static const char *const nr_symbols[NR_NMET] = {"r_pen (eq. 173)", "r_dual (eq. 174)",
                                                "r_ncp (eq. 175)", "r_nat (eq. 176)"};

/* Median and p90 of each metric and of the time, runs and converged, of one solver on one
 * system (or pooled). */
typedef struct nr_cell {
    double med[NR_NMET], p90[NR_NMET], tmed, tp90;
    int runs, conv;
} nr_cell;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and p90 of the n values of x that are not NaN (x reordered). */
static void nr_stats(double *x, int n, double *med, double *p90)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(x[i])) x[k++] = x[i];
    qsort(x, (size_t)k, sizeof *x, cmp_double);
    *med = ncp_quantile_sorted(x, (size_t)k, 0.5);
    *p90 = ncp_quantile_sorted(x, (size_t)k, 0.9);
}

/* Value v of a solve: metric v, or the time (v = NR_NMET). */
static double nr_value(const ncp_study_result *r, int v)
{
    return v < NR_NMET ? ncp_study_final(r, nr_metrics[v]) : r->setup_ms + r->solve_ms;
}

/* The cells of solver s: one per system, then the pooled one; buf holds every solve. */
static void nr_cells(const ncp_study_ctx *c, int s, nr_cell *cells, double *buf)
{
    for (int k = 0; k < NR_NCELL; k++) {
        nr_cell *x = &cells[k];
        memset(x, 0, sizeof *x);
        for (int v = 0; v <= NR_NMET; v++) {
            int n = 0;
            for (int y = k < NR_NSYS ? k : 0; y < (k < NR_NSYS ? k + 1 : NR_NSYS); y++) {
                const ncp_study_solves *sv = ncp_study_get_all(c, nr_systems[y], nr_solvers[s]);
                for (int i = 0; sv && i < sv->n; i++) {
                    if (!sv->p[i].ran) continue;
                    buf[n++] = nr_value(&sv->p[i], v);
                    if (v == 0) {
                        x->runs++;
                        x->conv += sv->p[i].converged;
                    }
                }
            }
            if (v < NR_NMET) nr_stats(buf, n, &x->med[v], &x->p90[v]);
            else nr_stats(buf, n, &x->tmed, &x->tp90);
        }
    }
}

static int nr_problems(const ncp_study_ctx *c, int k)
{
    const ncp_study_capture_info *ci =
        ncp_study_part_capture(c, ncp_study_find_part(c->s, nr_systems[k]));
    return ci ? ci->nproblems : 0;
}

#define NR_BUDGET_TEXT "tol 1e-8 on natural_map_rel_acary, 1000 iterations, 1000 ms per solve"

/* accuracy.dat and time_accuracy.dat: one index block per system (time: then "all"). */
static int nr_write_dat(const ncp_study_ctx *c, const char *dir, const nr_cell *cells,
                        int time, ncp_error *err)
{
    char path[4400];
    FILE *f = ncp_safe_fopen_in(dir, time ? "time_accuracy.dat" : "accuracy.dat", path, sizeof path, err);
    if (!f) return err->code;
    fprintf(f, "# ncpbench, the NCP report 2025 §VII-D %s, configuration %s (%s), %s captures;\n"
            "# " NR_BUDGET_TEXT ". Median and 90th percentile over the system's problems\n"
            "# (NaN skipped); table1 = 1 for Table I's ten configurations. One index block per\n"
            "# system%s, one row per solver.\n# columns: solver solver_index table1 scene runs "
            "converged %s\n", time ? "time against accuracy" : "accuracy metrics (L_inf)",
            c->config->id, c->config->title, c->o->quick ? "quick" : "full",
            time ? ", then the pooled block (scene \"all\")" : "",
            time ? "time_med time_p90 nat_med nat_p90"
                 : "pen_med pen_p90 dual_med dual_p90 ncp_med ncp_p90 nat_med nat_p90");
    for (int k = 0; k < (time ? NR_NCELL : NR_NSYS); k++) {
        fprintf(f, "%s# scene: %s", k ? "\n\n" : "", k < NR_NSYS ? nr_systems[k] : "all");
        if (k < NR_NSYS) fprintf(f, " (%d problems)\n", nr_problems(c, k));
        else fputs(" (pooled over the suite)\n", f);
        for (int s = 0; s < NR_NSOLVERS; s++) {
            const nr_cell *x = &cells[s * NR_NCELL + k];
            fprintf(f, "%s %d %d %s %d %d", nr_solvers[s], s, nr_in_table1(nr_solvers[s]),
                    k < NR_NSYS ? nr_systems[k] : "all", x->runs, x->conv);
            if (time)
                fprintf(f, " %.6e %.6e %.6e %.6e", x->tmed, x->tp90, x->med[NR_NMET - 1],
                        x->p90[NR_NMET - 1]);
            for (int m = 0; !time && m < NR_NMET; m++)
                fprintf(f, " %.6e %.6e", x->med[m], x->p90[m]);
            fputc('\n', f);
        }
    }
    return ncp_safe_fclose(f, path, err);
}

/* table_<metric>.md (m < NR_NMET) or table_time_accuracy.md (m = NR_NMET). */
static int nr_write_md(const ncp_study_ctx *c, const char *dir, const nr_cell *cells, int m,
                       ncp_error *err)
{
    char name[64], path[4400];
    snprintf(name, sizeof name, "table_%s.md", m < NR_NMET ? nr_metrics[m] : "time_accuracy");
    FILE *f = ncp_safe_fopen_in(dir, name, path, sizeof path, err);
    if (!f) return err->code;
    if (m < NR_NMET)
        fprintf(f, "The NCP report 2025 %s, column `%s`: median / 90th percentile per solver x "
                "system", nr_symbols[m], nr_metrics[m]);
    else
        fputs("The NCP report 2025 aggregate view, time against accuracy per solver: pooled "
              "over every sample of the 13 systems, the solve time (setup + iterations, ms) and "
              "r_nat (eq. 176) median / 90th percentile, then per system the median time (ms) / "
              "median r_nat", f);
    fprintf(f, " (configuration %s, %s captures; " NR_BUDGET_TEXT "). `*` = one of Table I's "
            "ten configurations. conv = converged solves / solves over the suite.\n\n| solver "
            "| conv |%s", c->config->id, c->o->quick ? "quick" : "full",
            m < NR_NMET ? "" : " time ms (median / p90) | r_nat (median / p90) |");
    for (int k = 0; k < NR_NSYS; k++) fprintf(f, " %s (%d) |", nr_systems[k], nr_problems(c, k));
    fputs(m < NR_NMET ? "\n|---|---|" : "\n|---|---|---|---|", f);
    for (int k = 0; k < NR_NSYS; k++) fputs("---|", f);
    fputc('\n', f);
    for (int s = 0; s < NR_NSOLVERS; s++) {
        const nr_cell *all = &cells[s * NR_NCELL + NR_NSYS];
        if (!all->runs) continue; /* a solver this build lacks: no row */
        fprintf(f, "| %s%s | %d/%d |", nr_solvers[s], nr_in_table1(nr_solvers[s]) ? " *" : "",
                all->conv, all->runs);
        if (m == NR_NMET)
            fprintf(f, " %.2g / %.2g | %.1e / %.1e |", all->tmed, all->tp90,
                    all->med[NR_NMET - 1], all->p90[NR_NMET - 1]);
        for (int k = 0; k < NR_NSYS; k++) {
            const nr_cell *x = &cells[s * NR_NCELL + k];
            if (m < NR_NMET) fprintf(f, " %.1e / %.1e |", x->med[m], x->p90[m]);
            else fprintf(f, " %.2g / %.1e |", x->tmed, x->med[NR_NMET - 1]);
        }
        fputc('\n', f);
    }
    return ncp_safe_fclose(f, path, err);
}

int nr_suite(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    (void)p;
    int total = 0, rc = NCP_OK;
    for (int s = 0; s < NR_NSOLVERS; s++) { /* the most solves of one solver: the pooled cell */
        int n = 0;
        for (int k = 0; k < NR_NSYS; k++) {
            const ncp_study_solves *sv = ncp_study_get_all(c, nr_systems[k], nr_solvers[s]);
            n += sv ? sv->n : 0;
        }
        if (n > total) total = n;
    }
    nr_cell *cells = ncp_calloc(err, (size_t)NR_NSOLVERS * NR_NCELL, sizeof *cells);
    double *buf = ncp_calloc(err, (size_t)(total > 0 ? total : 1), sizeof *buf);
    if (!cells || !buf) {
        free(cells);
        free(buf);
        return NCP_ERR_NOMEM;
    }
    for (int s = 0; s < NR_NSOLVERS; s++) nr_cells(c, s, &cells[s * NR_NCELL], buf);
    if (!rc) rc = nr_write_dat(c, dir, cells, 0, err);
    if (!rc) rc = nr_write_dat(c, dir, cells, 1, err);
    for (int m = 0; m <= NR_NMET && !rc; m++) rc = nr_write_md(c, dir, cells, m, err);
    free(cells);
    free(buf);
    char title[300], dat[4400];
    const char *plots[2][2] = {{"ncpreport2025_accuracy", "accuracy.dat"},
                               {"ncpreport2025_time_accuracy", "time_accuracy.dat"}};
    for (int i = 0; i < 2 && !rc; i++) {
        snprintf(title, sizeof title, "The NCP report 2025: %s per solver, 13 systems (%s, %s)",
                 i ? "median solve time against median r_nat" : "accuracy metrics (L_inf), median",
                 c->config->id, c->o->quick ? "quick" : "full");
        if (!(rc = ncp_path_join(dat, sizeof dat, dir, plots[i][1], err)))
            rc = ncp_fig_plot(plots[i][0], dir, title, dat, err);
    }
    return rc;
}
