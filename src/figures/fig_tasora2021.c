/* `ncpbench figures --paper tasora2021`: Tasora et al. 2021 (Tasora, Mangoni, Benatti, Garziera 2021) style
 * residual versus iteration on the odd-mass-ratio sphere stack, for ADMM, FADMM, projected
 * Jacobi and APGD, with PGS as the reference.
 *
 * Tasora et al. 2021's TEST 1 is a stack of 20 spheres with a 10,000 kg one in the middle (§8.1; radii,
 * mu, h not given); ours is scenes/sphere-stack.json, three spheres of 1, 100 and 10,000 kg from
 * the bottom up (mass ratio 1e4), resting: every contact is active and sticking, as in TEST 1.A,
 * so the CCP that ADMM/FADMM/APGD solve and the NCP coincide and one metric serves all solvers.
 * Captures: the scene's trajectory (quick: its quick steps) into OUT/tasora2021/sphere-stack/, each
 * solver with tolerance 1e-10 on natural_map_rel_acary and 1000 iterations (300 with --quick).
 * Curve: per solver and iteration k, the median and quartiles over the problems of the metric
 * natural_map_rel_acary of iterate k; a run that stopped earlier (converged) keeps its last value,
 * so every point is over all problems. The paper plots its own ADMM residuals (primal ||gamma -
 * z||, dual rho ||z - z_prev||) and a "penetrating residual velocity"; we plot the common,
 * solver-independent natural map (its Figs. 3-6 are not reproducible number for number).
 * Solvers named by the paper that are not registered when the figure runs are listed as missing
 * in the output and in the data file.
 *
 * Outputs in OUT/tasora2021/: tasora2021_residual_iter.dat (one gnuplot index block per solver),
 * tasora2021_residual_iter.{png,svg} (scripts/tasora2021_residual_iter.gp), and the benchmark directory.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures/fig_util.h"
#include "figures/fig_tasora2021.h"
#include "figures/figures.h"
#include "util/fsutil.h"
#include "bench/pipeline.h"
#include "solvers/registry.h"
#include "store/traces.h"

/* The paper's solvers and our reference, in plotting order. */
static const char *const fig002_want[] = {"admm", "fadmm", "jacobi", "apgd", "pgs"};
enum { FIG002_NWANT = 5 };
#define FIG002_TOL 1e-10

typedef struct f2_row {
    int solver, problem, iter;
    double value;
} f2_row;

typedef struct f2_data {
    const char *names[FIG002_NWANT]; /* registered solvers of fig002_want, in order */
    int ns;
    f2_row *rows;
    size_t n, cap;
    int np;
    /* from metrics.csv: per solver, converged count and the iterations of converged runs */
    int conv[FIG002_NWANT], runs[FIG002_NWANT];
    double *conv_iters[FIG002_NWANT];
} f2_data;

static int f2_solver(const f2_data *d, const char *name)
{
    for (int s = 0; s < d->ns; s++)
        if (strcmp(d->names[s], name) == 0) return s;
    return -1;
}

static int f2_int(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < 0 || v > 100000000) return -1;
    *out = (int)v;
    return 0;
}

/* The traces (traces.h5, or traces.csv of older runs; store/traces.h): iteration and
 * natural_map_rel_acary of each row. */
static int f2_trace_block(void *ctx, const ncp_trace_block *b, ncp_error *err)
{
    f2_data *d = ctx;
    int s = f2_solver(d, b->solver), p, c = -1;
    for (int k = NCP_TRACE_FIXED; k < b->ncols; k++)
        if (!strcmp(b->cols[k], "natural_map_rel_acary")) c = k;
    if (s < 0 || c < 0 || f2_int(b->problem, &p))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: unexpected trace (solver %s, problem %s%s)",
                             b->file, b->solver, b->problem,
                             c < 0 ? ", no column natural_map_rel_acary" : "");
    for (int i = 0; i < b->nrows; i++) {
        const double *r = b->data + (size_t)i * (size_t)b->ncols;
        if (d->n == d->cap) {
            size_t cap = d->cap ? 2 * d->cap : 4096;
            f2_row *rows = realloc(d->rows, cap * sizeof *rows);
            if (!rows) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s", b->file);
            d->rows = rows;
            d->cap = cap;
        }
        d->rows[d->n++] = (f2_row){s, p, (int)r[0], r[c]};
    }
    if (p + 1 > d->np) d->np = p + 1;
    return NCP_OK;
}

static int f2_metrics_row(void *ctx, const char *const *f, const char *path, long line,
                          ncp_error *err)
{
    f2_data *d = ctx;
    int s = f2_solver(d, f[1]), it, conv;
    if (s < 0 || f2_int(f[2], &it) || f2_int(f[3], &conv))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: unexpected row (%s, %s, %s)", path,
                             line, f[1], f[2], f[3]);
    if (conv) d->conv_iters[s][d->conv[s]++] = it;
    d->runs[s]++;
    return NCP_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Writes the per-iteration quartiles of solver s (hold-last over problems); med20 and medlast
 * get the median at iteration 20 and at the last iteration. */
static int f2_block(FILE *f, f2_data *d, int s, double *med20, double *medlast, int *kmax_out,
                    ncp_error *err)
{
    int kmax = 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->rows[i].solver == s && d->rows[i].iter > kmax) kmax = d->rows[i].iter;
    *kmax_out = kmax;
    *med20 = *medlast = NAN;
    fprintf(f, "# solver: %s\n", d->names[s]);
    if (kmax == 0 || d->np == 0) return NCP_OK;
    size_t np = (size_t)d->np, nk = (size_t)kmax;
    double *v = ncp_malloc(err, np * nk, sizeof(double));
    double *col = ncp_malloc(err, np, sizeof(double));
    if (!v || !col) {
        free(v);
        free(col);
        return NCP_ERR_NOMEM;
    }
    for (size_t i = 0; i < np * nk; i++) v[i] = NAN;
    for (size_t i = 0; i < d->n; i++) {
        const f2_row *r = &d->rows[i];
        if (r->solver == s && r->iter >= 1) v[(size_t)r->problem * nk + (size_t)(r->iter - 1)] = r->value;
    }
    for (size_t p = 0; p < np; p++) /* a stopped run keeps its last value */
        for (size_t k = 1; k < nk; k++)
            if (isnan(v[p * nk + k])) v[p * nk + k] = v[p * nk + k - 1];
    for (size_t k = 0; k < nk; k++) {
        int n = 0;
        for (size_t p = 0; p < np; p++)
            if (!isnan(v[p * nk + k])) col[n++] = v[p * nk + k];
        qsort(col, (size_t)n, sizeof *col, cmp_double);
        double med = ncp_quantile_sorted(col, n, 0.5);
        fprintf(f, "%s %d %zu %.10g %.10g %.10g %d\n", d->names[s], s, k + 1, med,
                ncp_quantile_sorted(col, n, 0.25), ncp_quantile_sorted(col, n, 0.75), n);
        if (k + 1 == 20) *med20 = med;
        if (k + 1 == nk) *medlast = med;
    }
    free(v);
    free(col);
    return NCP_OK;
}

/* The paper's claim for each solver (Tasora et al. 2021 §8.1). */
static const char *f2_claim(const char *name)
{
    if (!strcmp(name, "admm"))
        return "TEST 1.A (Fig. 3): ADMM with the balanced adaptive step reaches the exact solution "
               "in < 20 iterations";
    if (!strcmp(name, "fadmm"))
        return "TEST 1.B (Fig. 4): FADMM efficient even with a fixed non-optimal rho; TEST 1.A "
               "(Fig. 6): sensitive to rho, rho = 0.05 slow";
    if (!strcmp(name, "jacobi"))
        return "Figs. 2, 8: projected Jacobi 'has a very bad convergence rate', far behind ADMM";
    if (!strcmp(name, "apgd"))
        return "cited (ref. 17: Nesterov APGD) but not plotted; first-order methods 'offer "
               "superior convergence with respect to fixed point iterations' (§1)";
    return "reference (not plotted by the paper): fixed-point iterations 'might stall soon' with "
           "odd mass ratios (§1)";
}

int ncp_fig_tasora2021(const ncp_fig_opts *o, ncp_error *err)
{
    f2_data d;
    memset(&d, 0, sizeof d);
    char out[4200], bdir[4300], scene[4200], path[4400], dat[4400];
    char csv[FIG002_NWANT * 16] = "", missing[FIG002_NWANT * 16] = "";
    int rc;
    for (int i = 0; i < FIG002_NWANT; i++) {
        if (ncp_solver_find(fig002_want[i])) {
            d.names[d.ns++] = fig002_want[i];
            snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "%s%s", d.ns > 1 ? "," : "",
                     fig002_want[i]);
        } else {
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s",
                     missing[0] ? ", " : "", fig002_want[i]);
        }
    }
    if (d.ns == 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "figure 002: none of its solvers is registered");
    if ((rc = ncp_path_join(out, sizeof out, o->out_dir, "tasora2021", err)) ||
        (rc = ncp_path_join(bdir, sizeof bdir, out, "sphere-stack", err)) ||
        (rc = ncp_path_join(scene, sizeof scene, ncp_scenes_dir(), "sphere-stack.json", err)) ||
        (rc = ncp_path_join(dat, sizeof dat, out, "tasora2021_residual_iter.dat", err)) ||
        (rc = ncp_mkdir_p(out, err)))
        return rc;

    ncp_pipeline_opts po;
    ncp_fig_pipeline_opts(o, bdir, &po);
    po.solvers_csv = csv;
    po.budget.tol = FIG002_TOL;
    po.tol_set = 1;
    po.budget.max_iter = o->quick ? 300 : 1000;
    po.max_iter_set = 1;
    po.traces = 1;
    po.trace_every = 1; /* the medians are per iteration: every iterate is needed */
    printf("figure 002: sphere-stack (%s capture) with %s%s%s\n", o->quick ? "quick" : "full",
           csv, missing[0] ? "; not registered: " : "", missing);
    fflush(stdout);
    int interrupted;
    rc = ncp_fig_run_scene(scene, &po, &interrupted, err);
    if (rc || interrupted) return rc;

    FILE *f = NULL;
    static const char *const mcols[4] = {"problem", "solver", "iterations", "converged"};
    if ((rc = ncp_traces_read_dir(bdir, f2_trace_block, &d, err))) goto done;
    for (int s = 0; s < d.ns; s++)
        if (!(d.conv_iters[s] = ncp_calloc(err, (size_t)d.np + 1, sizeof(double)))) {
            rc = NCP_ERR_NOMEM;
            goto done;
        }
    if ((rc = ncp_path_join(path, sizeof path, bdir, "metrics.csv", err)) ||
        (rc = ncp_csv_read(path, mcols, 4, f2_metrics_row, &d, err)))
        goto done;

    if (!(f = fopen(dat, "w"))) {
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot create %s", dat);
        goto done;
    }
    fprintf(f,
            "# ncpbench figure 002 (Tasora et al. 2021 style): natural_map_rel_acary versus iteration on\n"
            "# scenes/sphere-stack.json (masses 1, 100, 10000 kg), %d problems (%s capture),\n"
            "# tol %g, max_iter %d. Per iteration: median, 25th and 75th percentiles over all\n"
            "# problems (a run that stopped keeps its last value).\n"
            "# solvers not registered when this ran: %s\n"
            "# One index block per solver (gnuplot: index i).\n"
            "# columns: solver solver_index iteration median q25 q75 n\n",
            d.np, o->quick ? "quick" : "full", FIG002_TOL, po.budget.max_iter,
            missing[0] ? missing : "none");
    printf("\nTasora et al. 2021 versus ncpbench on the sphere stack (%d problems; natural_map_rel_acary, "
           "tol %g, at most %d iterations):\n",
           d.np, FIG002_TOL, po.budget.max_iter);
    fprintf(f, "# claims (Tasora et al. 2021 §8.1) beside our numbers:\n");
    for (int s = 0; s < d.ns; s++) {
        double m20, mlast;
        int kmax;
        if (s) fputs("\n\n", f);
        if ((rc = f2_block(f, &d, s, &m20, &mlast, &kmax, err))) goto done;
        qsort(d.conv_iters[s], (size_t)d.conv[s], sizeof(double), cmp_double);
        printf("  %-7s paper: %s\n", d.names[s], f2_claim(d.names[s]));
        fprintf(f, "#   %s, paper: %s\n", d.names[s], f2_claim(d.names[s]));
        char itx[64] = "none converged";
        if (d.conv[s])
            snprintf(itx, sizeof itx, "median %.0f iterations to tol",
                     ncp_quantile_sorted(d.conv_iters[s], d.conv[s], 0.5));
        printf("          ours:  converged %d/%d (%s); median residual at iteration 20: %.2e, "
               "at iteration %d: %.2e\n",
               d.conv[s], d.runs[s], itx, m20, kmax, mlast);
        fprintf(f, "#   %s, ours: converged %d/%d (%s); median residual at iteration 20: %.2e, "
                   "at iteration %d: %.2e\n",
                d.names[s], d.conv[s], d.runs[s], itx, m20, kmax, mlast);
    }
    if (missing[0])
        printf("  not registered when this figure ran (no curve): %s\n", missing);
    if (fclose(f) != 0) {
        f = NULL;
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s", dat);
        goto done;
    }
    f = NULL;
    char title[300];
    snprintf(title, sizeof title, "Tasora et al. 2021 style: sphere stack 1/100/10000 kg, %d problems (%s)%s%s",
             d.np, o->quick ? "quick" : "full", missing[0] ? "; missing: " : "", missing);
    rc = ncp_fig_plot("tasora2021_residual_iter", out, title, dat, err);
done:
    if (f) fclose(f);
    free(d.rows);
    for (int s = 0; s < FIG002_NWANT; s++) free(d.conv_iters[s]);
    return rc;
}
