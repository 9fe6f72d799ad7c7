/* `ncpbench figures --paper ncpreport2025`: NCP report 2025's solver-agnostic accuracy metrics (§VII-D, eqs.
 * 173-176, all L_inf) of every registered solver on the NCP report 2025's whole suite (Table II).
 *
 * Protocol (the paper's §VIII is cut off: no tolerance, N_max or time limit survives):
 * each scene (box-on-plane, boxes-fixed, nunchuk, fourbar-fixed, fourbar-free, arm7d,
 * quadruped, and the stand-ins for its six proprietary systems, ncpreport-{bdx, lima, misha,
 * walker, gazelle, ironman}: Table II's dimensions, not the figures' geometry,
 * scripts/make_standins.py; `--quick`: their quick captures) is captured fresh and every registered solver runs on
 * every captured problem with tol 1e-8 on natural_map_rel_acary, at most 1000 iterations and a
 * per-solve time cap of 1000 ms (20 ms with --quick), as `figures --profiles`. The paper's ten
 * configurations (Table I) are marked; the other registered solvers are measured as well.
 * Aggregation: the paper only says "statistical measures over multiple samples" (§VII-D); we
 * report the median and the 90th percentile (Hyndman-Fan type 7) over each scene's problems.
 * The paper's sample categories (§VII-C) need ranks and densities we do not capture per problem;
 * the scene stands in for the category (each primitive isolates one kind of ill-conditioning).
 *
 * Metric columns of metrics.csv (metrics/metrics.h): penetration (r_pen, eq. 173: ours is the
 * contact part only, max(0, -(phi + h u_n)); joint residuals are not in the captured problem),
 * ncp_dual (r_dual, eq. 174), ncp_compl (r_ncp, eq. 175), natural_map_inf (r_nat, eq. 176). All are
 * evaluated with the NCP definitions for CCP solvers too (§VII-D: that makes them comparable).
 *
 * Aggregate view (§VII-D: "statistical measures computed over multiple samples"; the speed
 * metrics that follow are cut off): time against accuracy per solver, the median and p90 of the
 * solve time (setup + iterations, ms) beside the median and p90 of r_nat, per system and pooled
 * over every sample of the suite.
 *
 * Outputs in OUT/ncpreport2025/: accuracy.dat (one gnuplot index block per scene, one row per solver),
 * table_<metric>.md (median / p90 per solver x scene),
 * ncpreport2025_accuracy.{png,svg} (scripts/ncpreport2025_accuracy.gp),
 * time_accuracy.dat (one block per scene, then the pooled block), table_time_accuracy.md,
 * ncpreport2025_time_accuracy.{png,svg} (scripts/ncpreport2025_time_accuracy.gp)
 * and each scene's benchmark directory.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures/fig_util.h"
#include "figures/fig_ncpreport2025.h"
#include "figures/figures.h"
#include "util/safefile.h"
#include "util/fsutil.h"
#include "bench/pipeline.h"
#include "solvers/registry.h"

#define F4_TOL 1e-8
#define F4_MAX_ITER 1000
#define F4_LIMIT_FULL_MS 1000.0
#define F4_LIMIT_QUICK_MS 20.0
enum { F4_NSCENES = 13, F4_NMET = 4 };

/* Table II's order; the last six are our stand-ins for the proprietary systems. */
static const char *const f4_scenes[F4_NSCENES] = {
    "box-on-plane",     "boxes-fixed",      "nunchuk",           "fourbar-fixed",
    "fourbar-free",     "arm7d",            "quadruped",         "ncpreport-bdx",
    "ncpreport-lima",   "ncpreport-misha",  "ncpreport-walker",  "ncpreport-gazelle",
    "ncpreport-ironman"};
static const char *const f4_metrics[F4_NMET] = {"penetration", "ncp_dual", "ncp_compl",
                                                "natural_map_inf"};
static const char *const f4_symbols[F4_NMET] = {"r_pen (eq. 173)", "r_dual (eq. 174)",
                                                "r_ncp (eq. 175)", "r_nat (eq. 176)"};
/* NCP report 2025 Table I: the ten configurations the paper benchmarks. */
static const char *const f4_paper10[] = {"pgs-ccp", "pgs-ncp",     "nbgs",        "raisim",
                                         "raisim-ds", "raisim-ds-es", "admm-ccp", "admm-ncp-fp",
                                         "admm-ncp-la", "admm-ncp-sa", NULL};

static int f4_in_paper(const char *name)
{
    for (int i = 0; f4_paper10[i]; i++)
        if (!strcmp(f4_paper10[i], name)) return 1;
    return 0;
}

/* Values of one solver on the scene being read. */
typedef struct f4_vals {
    double *v[F4_NMET];
    int n[F4_NMET]; /* finite values kept (NaN = metric undefined, skipped) */
    double *t;      /* solve time, setup included (ms), every run */
    int cap, runs, conv;
} f4_vals;

/* Per solver x scene: median and p90 of each metric and of the solve time, runs, converged. */
typedef struct f4_cell {
    double med[F4_NMET], p90[F4_NMET];
    double tmed, tp90;
    int runs, conv;
} f4_cell;

/* Per solver, pooled over every sample of the suite: solve times and r_nat values. */
typedef struct f4_pool {
    double *t, *nat;
    int nt, nnat, cap_t, cap_nat, runs, conv;
} f4_pool;

typedef struct f4_read {
    int ns;
    f4_vals *vals; /* ns */
} f4_read;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* metrics.csv row: problem, solver, converged, setup_ms, solve_ms, then the four metrics. */
static int f4_row(void *ctx, const char *const *f, const char *path, long line, ncp_error *err)
{
    f4_read *rd = ctx;
    const ncp_solver_desc *d = ncp_solver_find(f[1]);
    int s = -1;
    for (int i = 0; d && i < rd->ns; i++)
        if (ncp_solver_at(i) == d) s = i;
    if (s < 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: solver '%s' is not registered", path,
                             line, f[1]);
    f4_vals *v = &rd->vals[s];
    if (v->runs == v->cap) {
        int cap = v->cap ? 2 * v->cap : 64;
        for (int m = 0; m <= F4_NMET; m++) {
            double **slot = m < F4_NMET ? &v->v[m] : &v->t;
            double *p = realloc(*slot, (size_t)cap * sizeof(double));
            if (!p)
                return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s", path);
            *slot = p;
        }
        v->cap = cap;
    }
    char *end;
    long conv = strtol(f[2], &end, 10);
    if (*end)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: converged '%s' is not a number", path,
                             line, f[2]);
    double ms[2];
    for (int i = 0; i < 2; i++) {
        ms[i] = strtod(f[3 + i], &end);
        if (*end || end == f[3 + i])
            return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: %s '%s' is not a number", path, line,
                                 i ? "solve_ms" : "setup_ms", f[3 + i]);
    }
    /* an unsupported run has no time (NaN): it counts as a run, not as a time */
    v->t[v->runs] = ms[0] + ms[1];
    for (int m = 0; m < F4_NMET; m++) {
        double x = strtod(f[5 + m], &end);
        if (*end || end == f[5 + m])
            return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: %s '%s' is not a number", path, line,
                                 f4_metrics[m], f[5 + m]);
        if (!isnan(x)) v->v[m][v->n[m]++] = x;
    }
    v->runs++;
    v->conv += conv == 1;
    return NCP_OK;
}

/* Benchmarks scene k with every solver and fills cells[s * F4_NSCENES + k]. */
/* Appends the n values of x that are not NaN to *dst (capacity *cap, count *len). */
static int f4_append(double **dst, int *len, int *cap, const double *x, int n, ncp_error *err)
{
    if (*len + n > *cap) {
        int c = *cap ? *cap : 256;
        while (c < *len + n) c *= 2;
        double *p = realloc(*dst, (size_t)c * sizeof(double));
        if (!p) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory pooling the suite's samples");
        *dst = p;
        *cap = c;
    }
    for (int i = 0; i < n; i++)
        if (!isnan(x[i])) (*dst)[(*len)++] = x[i];
    return NCP_OK;
}

static int f4_scene(const ncp_fig_opts *o, const char *out, int k, int ns, f4_cell *cells,
                    f4_pool *pool, int *nprob, int *interrupted, ncp_error *err)
{
    char file[80], path[4200], dir[4200], csv[4300];
    int rc;
    snprintf(file, sizeof file, "%s.json", f4_scenes[k]);
    if ((rc = ncp_path_join(path, sizeof path, ncp_scenes_dir(), file, err)) ||
        (rc = ncp_path_join(dir, sizeof dir, out, f4_scenes[k], err)) ||
        (rc = ncp_path_join(csv, sizeof csv, dir, "metrics.csv", err)))
        return rc;
    ncp_pipeline_opts po;
    ncp_fig_pipeline_opts(o, dir, &po);
    po.solvers_csv = ""; /* every registered solver */
    po.budget.tol = F4_TOL;
    po.tol_set = 1;
    po.budget.max_iter = F4_MAX_ITER;
    po.max_iter_set = 1;
    po.budget.time_ms = o->quick ? F4_LIMIT_QUICK_MS : F4_LIMIT_FULL_MS;
    po.time_set = 1;
    po.stop_metric = "natural_map_rel_acary";
    po.traces = 0;
    printf("figure 004: %s (%s capture, every solver)...\n", f4_scenes[k],
           o->quick ? "quick" : "full");
    fflush(stdout);
    if ((rc = ncp_fig_run_scene(path, &po, interrupted, err))) {
        ncp_error_prefix(err, "scene %s: ", file);
        return rc;
    }
    if (*interrupted) return NCP_OK;
    static const char *const cols[5 + F4_NMET] = {
        "problem",     "solver",   "converged", "setup_ms",       "solve_ms",
        "penetration", "ncp_dual", "ncp_compl", "natural_map_inf"};
    f4_read rd = {ns, NULL};
    if (!(rd.vals = ncp_calloc(err, (size_t)ns, sizeof *rd.vals))) return NCP_ERR_NOMEM;
    rc = ncp_csv_read(csv, cols, 5 + F4_NMET, f4_row, &rd, err);
    *nprob = 0;
    for (int s = 0; s < ns; s++) {
        f4_vals *v = &rd.vals[s];
        f4_cell *c = &cells[s * F4_NSCENES + k];
        f4_pool *pl = &pool[s];
        if (v->runs > *nprob) *nprob = v->runs;
        c->runs = v->runs;
        c->conv = v->conv;
        pl->runs += v->runs;
        pl->conv += v->conv;
        if (!rc)
            rc = f4_append(&pl->nat, &pl->nnat, &pl->cap_nat, v->v[F4_NMET - 1], v->n[F4_NMET - 1],
                           err);
        for (int m = 0; m < F4_NMET; m++) {
            if (v->n[m]) qsort(v->v[m], (size_t)v->n[m], sizeof(double), cmp_double);
            c->med[m] = ncp_quantile_sorted(v->v[m], v->n[m], 0.5);
            c->p90[m] = ncp_quantile_sorted(v->v[m], v->n[m], 0.9);
            free(v->v[m]);
        }
        /* times: the finite ones (unsupported runs have none), sorted in place */
        int nt = 0;
        for (int i = 0; i < v->runs; i++)
            if (!isnan(v->t[i])) v->t[nt++] = v->t[i];
        if (!rc) rc = f4_append(&pl->t, &pl->nt, &pl->cap_t, v->t, nt, err);
        if (nt) qsort(v->t, (size_t)nt, sizeof(double), cmp_double);
        c->tmed = ncp_quantile_sorted(v->t, nt, 0.5);
        c->tp90 = ncp_quantile_sorted(v->t, nt, 0.9);
        free(v->t);
    }
    free(rd.vals);
    return rc;
}

static int f4_write_dat(const char *path, int ns, const f4_cell *cells, const int *nprob,
                        int quick, double limit_ms, ncp_error *err)
{
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) return err ? err->code : NCP_ERR_IO;
    fprintf(f,
            "# ncpbench figure 004: NCP report 2025 §VII-D accuracy metrics (L_inf, NCP definitions for\n"
            "# every solver) per solver x scene, %s captures; tol %g on natural_map_rel_acary,\n"
            "# max_iter %d, %g ms per-solve limit. Median and 90th percentile over the scene's\n"
            "# problems (NaN values skipped). paper10 = 1 for the paper's ten configurations.\n"
            "# One index block per scene (gnuplot: index i), one row per solver, registry order.\n"
            "# columns: solver solver_index paper10 scene problems converged "
            "pen_med pen_p90 dual_med dual_p90 ncp_med ncp_p90 nat_med nat_p90\n",
            quick ? "quick" : "full", F4_TOL, F4_MAX_ITER, limit_ms);
    for (int k = 0; k < F4_NSCENES; k++) {
        if (k) fputs("\n\n", f);
        fprintf(f, "# scene: %s (%d problems)\n", f4_scenes[k], nprob[k]);
        for (int s = 0; s < ns; s++) {
            const f4_cell *c = &cells[s * F4_NSCENES + k];
            const char *name = ncp_solver_at(s)->name;
            fprintf(f, "%s %d %d %s %d %d", name, s, f4_in_paper(name), f4_scenes[k], c->runs,
                    c->conv);
            for (int m = 0; m < F4_NMET; m++) fprintf(f, " %.6e %.6e", c->med[m], c->p90[m]);
            fputc('\n', f);
        }
    }
    if (fclose(f) != 0) return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return NCP_OK;
}

static int f4_write_md(const char *out, int m, int ns, const f4_cell *cells, const int *nprob,
                       int quick, double limit_ms, ncp_error *err)
{
    char file[64], path[4300];
    snprintf(file, sizeof file, "table_%s.md", f4_metrics[m]);
    int rc = ncp_path_join(path, sizeof path, out, file, err);
    if (rc) return rc;
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) return err ? err->code : NCP_ERR_IO;
    fprintf(f,
            "The NCP report 2025 %s, column `%s`: median / 90th percentile per solver x scene (%s captures;\n"
            "tol %g on natural_map_rel_acary, %d iterations, %g ms per solve). `*` = one of the\n"
            "paper's ten configurations (Table I). conv = converged runs / runs, over all scenes.\n\n"
            "| solver | conv |",
            f4_symbols[m], f4_metrics[m], quick ? "quick" : "full", F4_TOL, F4_MAX_ITER, limit_ms);
    for (int k = 0; k < F4_NSCENES; k++) fprintf(f, " %s (%d) |", f4_scenes[k], nprob[k]);
    fputs("\n|---|---|", f);
    for (int k = 0; k < F4_NSCENES; k++) fputs("---|", f);
    fputc('\n', f);
    for (int s = 0; s < ns; s++) {
        const char *name = ncp_solver_at(s)->name;
        int runs = 0, conv = 0;
        for (int k = 0; k < F4_NSCENES; k++) {
            runs += cells[s * F4_NSCENES + k].runs;
            conv += cells[s * F4_NSCENES + k].conv;
        }
        if (!runs) continue; /* registered but not run (the Siconos peers): no row */
        fprintf(f, "| %s%s | %d/%d |", name, f4_in_paper(name) ? " *" : "", conv, runs);
        for (int k = 0; k < F4_NSCENES; k++) {
            const f4_cell *c = &cells[s * F4_NSCENES + k];
            fprintf(f, " %.1e / %.1e |", c->med[m], c->p90[m]);
        }
        fputc('\n', f);
    }
    if (fclose(f) != 0) return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return NCP_OK;
}

/* Pooled statistics of solver s: median / p90 of the solve time and of r_nat (sorts in place). */
static void f4_pooled(f4_pool *pl, double *tmed, double *tp90, double *nmed, double *np90)
{
    if (pl->nt) qsort(pl->t, (size_t)pl->nt, sizeof(double), cmp_double);
    if (pl->nnat) qsort(pl->nat, (size_t)pl->nnat, sizeof(double), cmp_double);
    *tmed = ncp_quantile_sorted(pl->t, (size_t)pl->nt, 0.5);
    *tp90 = ncp_quantile_sorted(pl->t, (size_t)pl->nt, 0.9);
    *nmed = ncp_quantile_sorted(pl->nat, (size_t)pl->nnat, 0.5);
    *np90 = ncp_quantile_sorted(pl->nat, (size_t)pl->nnat, 0.9);
}

/* time_accuracy.dat: one index block per scene, then the pooled block ("all"), one row per
 * solver; and table_time_accuracy.md (pooled, then median time / median r_nat per system). */
static int f4_write_time(const char *out, int ns, const f4_cell *cells, f4_pool *pool,
                         const int *nprob, int quick, double limit_ms, ncp_error *err)
{
    char path[4300];
    int rc = ncp_path_join(path, sizeof path, out, "time_accuracy.dat", err);
    if (rc) return rc;
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) return err ? err->code : NCP_ERR_IO;
    fprintf(f,
            "# ncpbench figure 004: time against accuracy per solver (NCP report 2025 §VII-D aggregate\n"
            "# view: statistics over many samples per system), %s captures; tol %g on\n"
            "# natural_map_rel_acary, max_iter %d, %g ms per-solve limit. time = setup + solve (ms);\n"
            "# nat = r_nat (eq. 176, natural_map_inf). Median and 90th percentile over the system's\n"
            "# problems (NaN skipped). One index block per scene, then the pooled block (scene \"all\":\n"
            "# every sample of the suite), one row per solver, registry order.\n"
            "# columns: solver solver_index paper10 scene runs converged time_med time_p90 nat_med nat_p90\n",
            quick ? "quick" : "full", F4_TOL, F4_MAX_ITER, limit_ms);
    for (int k = 0; k < F4_NSCENES; k++) {
        if (k) fputs("\n\n", f);
        fprintf(f, "# scene: %s (%d problems)\n", f4_scenes[k], nprob[k]);
        for (int s = 0; s < ns; s++) {
            const f4_cell *c = &cells[s * F4_NSCENES + k];
            const char *name = ncp_solver_at(s)->name;
            fprintf(f, "%s %d %d %s %d %d %.6e %.6e %.6e %.6e\n", name, s, f4_in_paper(name),
                    f4_scenes[k], c->runs, c->conv, c->tmed, c->tp90, c->med[F4_NMET - 1],
                    c->p90[F4_NMET - 1]);
        }
    }
    fputs("\n\n# scene: all (pooled over the suite)\n", f);
    double *pm = ncp_calloc(err, (size_t)ns * 4, sizeof *pm);
    if (!pm) {
        fclose(f);
        return NCP_ERR_NOMEM;
    }
    for (int s = 0; s < ns; s++) {
        const char *name = ncp_solver_at(s)->name;
        double *q = &pm[4 * s];
        f4_pooled(&pool[s], &q[0], &q[1], &q[2], &q[3]);
        fprintf(f, "%s %d %d all %d %d %.6e %.6e %.6e %.6e\n", name, s, f4_in_paper(name),
                pool[s].runs, pool[s].conv, q[0], q[1], q[2], q[3]);
    }
    if (fclose(f) != 0) {
        free(pm);
        return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    }
    if ((rc = ncp_path_join(path, sizeof path, out, "table_time_accuracy.md", err))) {
        free(pm);
        return rc;
    }
    if (!(f = ncp_safe_fopen(path, err))) {
        free(pm);
        return err ? err->code : NCP_ERR_IO;
    }
    fprintf(f,
            "The NCP report 2025 aggregate view, time against accuracy per solver (%s captures; tol %g on\n"
            "natural_map_rel_acary, %d iterations, %g ms per solve). Pooled over every sample of the\n"
            "13 systems: solve time (setup + iterations, ms) and r_nat (eq. 176) median / 90th\n"
            "percentile; then per system: median time (ms) / median r_nat. `*` = one of the paper's ten\n"
            "configurations (Table I). conv = converged runs / runs.\n\n"
            "| solver | conv | time ms (median / p90) | r_nat (median / p90) |",
            quick ? "quick" : "full", F4_TOL, F4_MAX_ITER, limit_ms);
    for (int k = 0; k < F4_NSCENES; k++) fprintf(f, " %s (%d) |", f4_scenes[k], nprob[k]);
    fputs("\n|---|---|---|---|", f);
    for (int k = 0; k < F4_NSCENES; k++) fputs("---|", f);
    fputc('\n', f);
    for (int s = 0; s < ns; s++) {
        const char *name = ncp_solver_at(s)->name;
        const double *q = &pm[4 * s];
        if (!pool[s].runs) continue; /* registered but not run (the Siconos peers): no row */
        fprintf(f, "| %s%s | %d/%d | %.2g / %.2g | %.1e / %.1e |", name,
                f4_in_paper(name) ? " *" : "", pool[s].conv, pool[s].runs, q[0], q[1], q[2], q[3]);
        for (int k = 0; k < F4_NSCENES; k++) {
            const f4_cell *c = &cells[s * F4_NSCENES + k];
            fprintf(f, " %.2g / %.1e |", c->tmed, c->med[F4_NMET - 1]);
        }
        fputc('\n', f);
    }
    free(pm);
    if (fclose(f) != 0) return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return NCP_OK;
}

/* Largest median of metric m over the scenes for solver `name` (NaN if not registered). */
static double f4_worst(int ns, const f4_cell *cells, const char *name, int m)
{
    double w = NAN;
    for (int s = 0; s < ns; s++) {
        if (strcmp(ncp_solver_at(s)->name, name)) continue;
        for (int k = 0; k < F4_NSCENES; k++) {
            double x = cells[s * F4_NSCENES + k].med[m];
            if (!isnan(x) && (isnan(w) || x > w)) w = x;
        }
    }
    return w;
}

static void f4_claims(int ns, const f4_cell *cells)
{
    printf("\nThe NCP report 2025's claims (its §VIII-IX are cut off: no published numbers) beside ours\n"
           "(worst scene median, L_inf):\n");
    printf("  paper: CCP relaxations (no De Saxce term) leave nonzero normal velocities, so they\n"
           "         violate the NCP (§IV).\n");
    for (int i = 0; i < 2; i++) {
        const char *n = i ? "admm-ccp" : "pgs-ccp";
        printf("  ours:  %-12s r_ncp %.2e, r_nat %.2e\n", n, f4_worst(ns, cells, n, 2),
               f4_worst(ns, cells, n, 3));
    }
    printf("  paper: ADMM-NCP with fixed rho = 1 works well across all problems (§VI-F).\n");
    printf("  ours:  %-12s r_dual %.2e, r_ncp %.2e, r_nat %.2e\n", "admm-ncp-fp",
           f4_worst(ns, cells, "admm-ncp-fp", 1), f4_worst(ns, cells, "admm-ncp-fp", 2),
           f4_worst(ns, cells, "admm-ncp-fp", 3));
    printf("  paper: RaiSim/Preclik's QCP violates maximal dissipation under strong normal/\n"
           "         tangent coupling; the De Saxce variants target the NCP (§IV).\n");
    static const char *const qcp[4] = {"nbgs", "raisim", "raisim-ds", "raisim-ds-es"};
    for (int i = 0; i < 4; i++)
        printf("  ours:  %-12s r_ncp %.2e, r_nat %.2e\n", qcp[i], f4_worst(ns, cells, qcp[i], 2),
               f4_worst(ns, cells, qcp[i], 3));
}

int ncp_fig_ncpreport2025(const ncp_fig_opts *o, ncp_error *err)
{
    char out[4200], dat[4300];
    int rc, ns = ncp_solver_count(), nprob[F4_NSCENES] = {0};
    double limit = o->quick ? F4_LIMIT_QUICK_MS : F4_LIMIT_FULL_MS;
    if (ns <= 0) return ncp_error_set(err, NCP_ERR_INPUT, "figure 004: no solver is registered");
    f4_cell *cells = ncp_calloc(err, (size_t)ns * F4_NSCENES, sizeof *cells);
    if (!cells) return NCP_ERR_NOMEM;
    f4_pool *pool = ncp_calloc(err, (size_t)ns, sizeof *pool);
    if (!pool) {
        free(cells);
        return NCP_ERR_NOMEM;
    }
    if ((rc = ncp_path_join(out, sizeof out, o->out_dir, "ncpreport2025", err)) ||
        (rc = ncp_path_join(dat, sizeof dat, out, "accuracy.dat", err)) ||
        (rc = ncp_mkdir_p(out, err)))
        goto done;
    for (int k = 0; k < F4_NSCENES; k++) {
        int interrupted = 0;
        if ((rc = f4_scene(o, out, k, ns, cells, pool, &nprob[k], &interrupted, err))) goto done;
        if (interrupted || (o->interrupt && *o->interrupt)) goto done; /* the CLI reports it */
    }
    if ((rc = f4_write_dat(dat, ns, cells, nprob, o->quick, limit, err))) goto done;
    if ((rc = f4_write_time(out, ns, cells, pool, nprob, o->quick, limit, err))) goto done;
    for (int m = 0; m < F4_NMET; m++)
        if ((rc = f4_write_md(out, m, ns, cells, nprob, o->quick, limit, err))) goto done;
    printf("\nThe NCP report 2025 accuracy metrics, median over each scene's problems (%s captures; "
           "tables with p90 in %s/table_*.md):\n%-14s", o->quick ? "quick" : "full", out, "solver");
    for (int m = 0; m < F4_NMET; m++) printf(" %-16s", f4_metrics[m]);
    printf("  (worst scene)\n");
    for (int s = 0; s < ns; s++) {
        const char *name = ncp_solver_at(s)->name;
        if (!pool[s].runs) continue; /* registered but not run (the Siconos peers) */
        printf("%-12s%s", name, f4_in_paper(name) ? " *" : "  ");
        for (int m = 0; m < F4_NMET; m++) printf(" %-16.2e", f4_worst(ns, cells, name, m));
        putchar('\n');
    }
    f4_claims(ns, cells);
    char title[300];
    snprintf(title, sizeof title,
             "The NCP report 2025 accuracy metrics (L_inf), median per solver, %d suite systems (%s)",
             F4_NSCENES, o->quick ? "quick" : "full");
    if ((rc = ncp_fig_plot("ncpreport2025_accuracy", out, title, dat, err))) goto done;
    printf("\nTime against accuracy, pooled over the suite's samples (median solve ms, median r_nat;\n"
           "per system in %s/table_time_accuracy.md):\n", out);
    for (int s = 0; s < ns; s++) {
        const char *name = ncp_solver_at(s)->name;
        double tm, tp, nm, np;
        if (!pool[s].runs) continue;
        f4_pooled(&pool[s], &tm, &tp, &nm, &np); /* sorted already: idempotent */
        printf("%-12s%s %10.3g ms %12.2e  (%d/%d converged)\n", name, f4_in_paper(name) ? " *" : "  ",
               tm, nm, pool[s].conv, pool[s].runs);
    }
    snprintf(title, sizeof title,
             "The NCP report 2025: median solve time against median r_nat per solver, %d systems (%s)",
             F4_NSCENES, o->quick ? "quick" : "full");
    if ((rc = ncp_path_join(dat, sizeof dat, out, "time_accuracy.dat", err))) goto done;
    rc = ncp_fig_plot("ncpreport2025_time_accuracy", out, title, dat, err);
done:
    for (int s = 0; s < ns; s++) {
        free(pool[s].t);
        free(pool[s].nat);
    }
    free(pool);
    free(cells);
    return rc;
}
