/* `ncpbench figures --profiles`: Dolan–Moré performance profiles of every registered solver over
 * every captured problem of the shipped scenes (docs/design.md, "beyond the papers").
 *
 * Methodology (Acary, Brémond, Huber 2018 §5, their faf tool; Dolan & Moré 2002):
 *   - problems: fresh captures of every scene file (*.json) of the scenes directory, sorted
 *     (or of the scenes named by --scenes),
 *     each benchmarked with ncp_pipeline_run_scene into OUT/profiles/<scene>/ with its own
 *     benchmark budget (tolerance, iterations) and the stopping metric natural_map_rel_acary;
 *     `--quick` uses the scenes' quick captures;
 *   - measure: time to reach the tolerance = setup_ms + solve_ms of a run that converged (the
 *     harness stops at the tolerance); a run that did not converge (iteration or time budget,
 *     stalled, failed) counts as infinitely slow. A per-solve time limit plays the role of the
 *     paper's per-test-set limit: 1000 ms (20 ms with --quick, a CI smoke run; Acary et al. use
 *     10 to 400 s on larger sets); times are floored at 1e-6 ms (the clock's resolution) so that
 *     the ratios are defined;
 *   - ratio r_ps = t_ps / min_s t_ps, profile rho_s(tau) = fraction of problems with r_ps <= tau,
 *     tau from 1 to 100 on a log axis (201 log-spaced points; the curves are step functions);
 *     rho_s(1) is the share of problems where s is fastest, rho_s(100) the share it solves within
 *     100x the best time. A problem no solver solved counts against every solver.
 * CCP solvers (ncpbench list solvers) are measured on the same NCP metric: where sliding contacts
 * make the CCP's answer differ from the NCP's, they do not converge, by design of the metric.
 *
 * Outputs in OUT/profiles/: perf_profiles.dat (the profiles, one gnuplot index block per solver,
 * methodology and per-solver summary in its header), perf_profiles.{png,svg} (gnuplot,
 * scripts/perf_profiles.gp), results.md and results.json (the results table of bench/output.h
 * over every problem of every scene: success rate, shifted geometric means, rho(1), rho(10);
 * failures at the per-solve limit and at each scene's max_iter), and each scene's benchmark
 * output directory. The rows are read with ncp_results_read_csv, shared with the tables.
 *
 * `ncpbench solve` draws the same profiles over the problems of its collection
 * (ncp_fig_collection_profiles): the solvers of the run, the run's own budget, unsupported rows
 * (the problem lacks what the solver needs) counted as infinitely slow like failures, and a
 * per-solver table (profile.md, and "performance_profile" in summary.json): the share solved, the median
 * time over the problems it solved, rho(1) and rho(10).
 */
#include <errno.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench/labels.h"
#include "bench/output.h"
#include "figures/fig_util.h"
#include "figures/fig_profiles.h"
#include "figures/figures.h"
#include "util/safefile.h"
#include "util/fsutil.h"
#include "bench/pipeline.h"
#include "solvers/registry.h"

enum { PROF_NTAU = 201, PROF_MAX_SCENES = 256 };
#define PROF_TIME_FLOOR_MS 1e-6
#define PROF_LIMIT_FULL_MS 1000.0
#define PROF_LIMIT_QUICK_MS 20.0

/* Times of every solver on every problem (ncp_prof_times of the rows read into a results grid,
 * bench/output.h, which also gives the results table). */
typedef struct prof_table {
    int ns;                                 /* solvers (columns) */
    const char *solver[NCP_BENCH_MAX_SOLVERS];
    int np;
    double *t;          /* np x ns, row-major; INFINITY = not solved */
} prof_table;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --scenes a,b: those scene files, which must exist in the scenes directory. */
static int list_given(const char *csv, char **names, int cap, int *n, ncp_error *err)
{
    const char *dir = ncp_scenes_dir();
    *n = 0;
    for (const char *s = csv; *s;) {
        size_t len = strcspn(s, ",");
        char file[300], path[4400];
        if (len == 0 || len > 250)
            return ncp_error_set(err, NCP_ERR_INPUT, "--scenes: empty or too long name in '%s'",
                                 csv);
        snprintf(file, sizeof file, "%.*s.json", (int)len, s);
        int rc = ncp_path_join(path, sizeof path, dir, file, err);
        if (rc) return rc;
        if (!ncp_file_exists(path))
            return ncp_error_set(err, NCP_ERR_INPUT,
                                 "--scenes: no scene '%.*s' (%s does not exist; see `ncpbench list "
                                 "scenes`)",
                                 (int)len, s, path);
        if (*n >= cap) return ncp_error_set(err, NCP_ERR_INPUT, "--scenes: too many scenes");
        if (!(names[*n] = ncp_strdup(err, file))) return NCP_ERR_NOMEM;
        (*n)++;
        s += len;
        if (*s == ',') s++;
    }
    return NCP_OK;
}

/* The shipped scenes: *.json of the scenes directory, sorted. */
static int list_scenes(char **names, int cap, int *n, ncp_error *err)
{
    const char *dir = ncp_scenes_dir();
    DIR *d = opendir(dir);
    *n = 0;
    if (!d)
        return ncp_error_set(err, NCP_ERR_IO, "cannot open the scenes directory %s", dir);
    struct dirent *e;
    int rc = NCP_OK;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= 5 || strcmp(e->d_name + l - 5, ".json") != 0) continue;
        if (*n >= cap) {
            rc = ncp_error_set(err, NCP_ERR_INPUT, "more than %d scenes in %s", cap, dir);
            break;
        }
        if (!(names[*n] = ncp_strdup(err, e->d_name))) {
            rc = NCP_ERR_NOMEM;
            break;
        }
        (*n)++;
    }
    closedir(d);
    if (rc == NCP_OK) qsort(names, (size_t)*n, sizeof *names, cmp_str);
    return rc;
}

/* The profile's times from the grid: setup_ms + solve_ms of a converged row floored at the
 * clock's resolution, anything else (no row, unsupported, not converged) infinite. tb->solver
 * points into g. */
static int prof_from_grid(prof_table *tb, const ncp_results_grid *g, ncp_error *err)
{
    if (g->ns > NCP_BENCH_MAX_SOLVERS)
        return ncp_error_set(err, NCP_ERR_INPUT, "%d solvers in the results (at most %d)", g->ns,
                             NCP_BENCH_MAX_SOLVERS);
    free(tb->t);
    tb->np = g->np;
    tb->ns = g->ns;
    if (!(tb->t = ncp_malloc(err, (size_t)g->np * (size_t)g->ns + 1, sizeof *tb->t)))
        return NCP_ERR_NOMEM;
    for (int s = 0; s < g->ns; s++) tb->solver[s] = g->solver[s];
    for (size_t k = 0; k < (size_t)g->np * (size_t)g->ns; k++) {
        const ncp_results_cell *c = &g->cell[k];
        tb->t[k] = c->present && c->converged ? fmax(c->time_ms, PROF_TIME_FLOOR_MS) : INFINITY;
    }
    return NCP_OK;
}

/* dir/summary.json parsed into *root (NULL when it is not JSON; the caller deletes it), its
 * path in path. */
static int prof_read_summary(const char *dir, char *path, size_t cap, cJSON **root,
                             ncp_error *err)
{
    char *text = NULL;
    *root = NULL;
    int rc = ncp_path_join(path, cap, dir, "summary.json", err);
    if (!rc) rc = ncp_read_file(path, &text, NULL, err);
    if (rc) return rc;
    *root = cJSON_Parse(text);
    free(text);
    return NCP_OK;
}

/* The budget of a benchmark output: "budget" of dir/summary.json (tol, max_iter, time_ms). */
static int prof_budget(const char *dir, double *tol, int *max_iter, double *time_ms,
                       ncp_error *err)
{
    char path[4300];
    cJSON *root;
    int rc = prof_read_summary(dir, path, sizeof path, &root, err);
    if (rc) return rc;
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "budget");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "tol");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(b, "max_iter");
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(b, "time_ms");
    rc = cJSON_IsNumber(t) && cJSON_IsNumber(m) && (cJSON_IsNumber(ms) || cJSON_IsNull(ms))
             ? NCP_OK
             : ncp_error_set(err, NCP_ERR_INPUT,
                             "%s: no \"budget\" with tol, max_iter and time_ms (rewrite it with "
                             "ncpbench run/solve)", path);
    if (!rc) {
        *tol = t->valuedouble;
        *max_iter = m->valueint;
        *time_ms = cJSON_IsNumber(ms) ? ms->valuedouble : 0.0;
    }
    cJSON_Delete(root);
    return rc;
}

/* Benchmarks one scene and reads its metrics.csv into the table. */
static int prof_scene(const ncp_fig_opts *o, const char *file, const char *out,
                      ncp_results_grid *g, double *tol, int *nprob, ncp_error *err)
{
    char path[4200], dir[4200], csv[4300], stem[64];
    int rc;
    if ((rc = ncp_path_join(path, sizeof path, ncp_scenes_dir(), file, err))) return rc;
    ncp_path_stem(file, stem, sizeof stem);
    if ((rc = ncp_path_join(dir, sizeof dir, out, stem, err))) return rc;
    ncp_pipeline_opts po;
    ncp_fig_pipeline_opts(o, dir, &po);
    po.solvers_csv = "all"; /* every registered solver, the peers too: a collection compares */
    po.budget.time_ms = o->quick ? PROF_LIMIT_QUICK_MS : PROF_LIMIT_FULL_MS;
    po.time_set = 1;
    po.traces = 0;
    printf("profiles: %s (%s capture, every solver)...\n", stem, o->quick ? "quick" : "full");
    fflush(stdout);
    int interrupted;
    rc = ncp_fig_run_scene(path, &po, &interrupted, err);
    if (rc) {
        ncp_error_prefix(err, "scene %s: ", file);
        return rc;
    }
    if (interrupted) return NCP_OK;
    int max_iter;
    double time_ms;
    if ((rc = ncp_path_join(csv, sizeof csv, dir, "metrics.csv", err)) ||
        (rc = prof_budget(dir, tol, &max_iter, &time_ms, err)))
        return rc;
    int np0 = g->np;
    rc = ncp_results_read_csv(g, csv, time_ms, max_iter, err);
    *nprob = g->np - np0;
    return rc;
}

/* perf_profiles.dat; `what` describes the problems and the measure (comment lines). */
static int prof_write(const char *path, const prof_table *tb, const double *r, const char *what,
                      ncp_error *err)
{
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) return err ? err->code : NCP_ERR_IO;
    fprintf(f,
            "# ncpbench performance profiles (Dolan & More 2002; Acary, Bremond, Huber 2018)\n"
            "%s"
            "# r = time / best time on the problem; rho(tau) = fraction of problems with\n"
            "# r <= tau, tau log-spaced from 1 to 100 (%d points).\n"
            "# summary: solver solved_fraction rho(1) rho(10) rho(100)\n",
            what, PROF_NTAU);
    for (int s = 0; s < tb->ns; s++)
        fprintf(f, "#   %-14s %.4f %.4f %.4f %.4f\n", tb->solver[s],
                ncp_perf_rho(tb->np, tb->ns, r, s, INFINITY),
                ncp_perf_rho(tb->np, tb->ns, r, s, 1.0), ncp_perf_rho(tb->np, tb->ns, r, s, 10.0),
                ncp_perf_rho(tb->np, tb->ns, r, s, 100.0));
    fprintf(f, "# One index block per solver (gnuplot: index i), in the order above.\n"
               "# columns: solver solver_index tau rho\n");
    for (int s = 0; s < tb->ns; s++) {
        if (s) fputs("\n\n", f);
        fprintf(f, "# solver: %s\n", tb->solver[s]);
        for (int i = 0; i < PROF_NTAU; i++) {
            double tau = pow(10.0, 2.0 * i / (PROF_NTAU - 1));
            if (i == PROF_NTAU - 1) tau = 100.0;
            fprintf(f, "%s %d %.10g %.10g\n", tb->solver[s], s, tau,
                    ncp_perf_rho(tb->np, tb->ns, r, s, tau));
        }
    }
    if (fclose(f) != 0) return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return NCP_OK;
}

/* The results table of the collection (bench/output.h): out/results.md and out/results.json.
 * tol NaN / max_iter 0: they differ between the scenes, listed in `budgets`. */
static int prof_results(const char *out, const ncp_results_grid *g, double tol, int max_iter,
                        double time_ms, const char *budgets, const ncp_solver_catalog *cat,
                        ncp_error *err)
{
    char md[4300], js[4300];
    int rc;
    if ((rc = ncp_path_join(md, sizeof md, out, "results.md", err)) ||
        (rc = ncp_path_join(js, sizeof js, out, "results.json", err)))
        return rc;
    ncp_results_row *rows = ncp_calloc(err, (size_t)g->ns + 1, sizeof *rows);
    if (!rows) return NCP_ERR_NOMEM;
    size_t nl = strlen(budgets) + 100;
    char *note = ncp_malloc(err, nl, 1);
    if (!note) {
        free(rows);
        return NCP_ERR_NOMEM;
    }
    snprintf(note, nl, "Each scene's tolerance and iteration budget: %s.", budgets);
    ncp_results_conditions c = {tol, "natural_map_rel_acary", max_iter, time_ms, note, cat, NULL, NULL, 0};
    if (!(rc = ncp_results_compute(g, rows, err)) &&
        !(rc = ncp_results_markdown(md, "Results over the shipped scenes", g, rows, &c, err))) {
        cJSON *o = ncp_results_json(g, rows, &c);
        rc = ncp_out_write_json(js, o, !o, err);
        if (!rc) printf("results table: %s (and results.json)\n", md);
    }
    free(note);
    free(rows);
    return rc;
}

static double prof_median_solved(const prof_table *tb, int s, double *buf);

/* The profiles split by a hardness label (bench/labels.h ncp_labels_class; `figures --split-by`):
 * for each class of `split`, the profile over that class's problems alone (the ratios to the
 * best solver on each problem, as over all problems: a problem's ratios do not depend on the
 * other problems) in out/profiles-by-<split>/<k>/perf_profiles.{dat,png,svg}, and one table of
 * every class in out/profiles-by-<split>.md. classes[p]: the class of problem p of tb, NULL
 * when it has no labels ("unlabelled"). */
static int prof_split(const char *out, const prof_table *tb, const char *const *classes,
                      const char *split, int figures, ncp_error *err)
{
    const char *names[16];
    int nc = 0, rc = NCP_OK;
    for (int p = 0; p < tb->np; p++) {
        const char *c = classes[p] ? classes[p] : "unlabelled";
        int k = 0;
        while (k < nc && strcmp(names[k], c)) k++;
        if (k == nc && nc < 16) names[nc++] = c;
    }
    char base[4300], md[4300], sub[4400], dat[4500], leaf[300];
    snprintf(leaf, sizeof leaf, "profiles-by-%s", split);
    if ((rc = ncp_path_join(base, sizeof base, out, leaf, err))) return rc;
    snprintf(leaf, sizeof leaf, "profiles-by-%s.md", split);
    if ((rc = ncp_path_join(md, sizeof md, out, leaf, err))) return rc;
    prof_table sb = *tb;
    sb.t = ncp_malloc(err, (size_t)tb->np * (size_t)tb->ns + 1, sizeof *sb.t);
    double *r = ncp_malloc(err, (size_t)tb->np * (size_t)tb->ns + 1, sizeof *r);
    double *buf = ncp_malloc(err, (size_t)tb->np + 1, sizeof *buf);
    FILE *f = NULL;
    if (!sb.t || !r || !buf) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    if ((rc = ncp_mkdir_p(base, err))) goto done;
    if (!(f = ncp_safe_fopen(md, err))) {
        rc = err->code;
        goto done;
    }
    fprintf(f, "# Performance profiles split by %s\n\nEach class's profile over its own problems "
               "(the classes: bench/labels.h, labels.csv of each run; time to tolerance as in "
               "profile.md, failures infinite). Figures: profiles-by-%s/<k>/perf_profiles.png.\n",
            split, split);
    printf("Profiles split by %s:\n", split);
    for (int k = 0; k < nc; k++) {
        sb.np = 0;
        for (int p = 0; p < tb->np; p++) {
            const char *c = classes[p] ? classes[p] : "unlabelled";
            if (strcmp(c, names[k])) continue;
            memcpy(sb.t + (size_t)sb.np * tb->ns, tb->t + (size_t)p * tb->ns,
                   (size_t)tb->ns * sizeof *sb.t);
            sb.np++;
        }
        snprintf(leaf, sizeof leaf, "%d", k + 1);
        if ((rc = ncp_path_join(sub, sizeof sub, base, leaf, err)) ||
            (rc = ncp_path_join(dat, sizeof dat, sub, "perf_profiles.dat", err)) ||
            (rc = ncp_mkdir_p(sub, err)) || (rc = ncp_perf_ratios(sb.np, sb.ns, sb.t, r, err)))
            goto done;
        char what[400];
        snprintf(what, sizeof what, "# problems: the %d problems whose %s is '%s' "
                 "(bench/labels.h)\n# measure: setup_ms + solve_ms of a converged row; not "
                 "converged or unsupported = infinite.\n", sb.np, split, names[k]);
        if ((rc = prof_write(dat, &sb, r, what, err))) goto done;
        fprintf(f, "\n## %s: %d problems (profiles-by-%s/%d)\n\n| solver | solved | median time "
                   "(ms) | rho(1) | rho(10) |\n|---|---:|---:|---:|---:|\n", names[k], sb.np,
                split, k + 1);
        printf("  %s (%d problems): profiles-by-%s/%d\n", names[k], sb.np, split, k + 1);
        for (int s = 0; s < sb.ns; s++) {
            double med = prof_median_solved(&sb, s, buf);
            fprintf(f, "| %s | %.4f | ", sb.solver[s], ncp_perf_rho(sb.np, sb.ns, r, s, INFINITY));
            if (isnan(med)) fputs("-", f);
            else fprintf(f, "%.6g", med);
            fprintf(f, " | %.4f | %.4f |\n", ncp_perf_rho(sb.np, sb.ns, r, s, 1.0),
                    ncp_perf_rho(sb.np, sb.ns, r, s, 10.0));
        }
        if (figures) {
            char title[300];
            snprintf(title, sizeof title, "Performance profiles: %s %s (%d problems)", split,
                     names[k], sb.np);
            if ((rc = ncp_fig_plot("perf_profiles", sub, title, dat, err))) goto done;
        }
    }
    FILE *g = f;
    f = NULL;
    if (fclose(g) != 0)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", md, strerror(errno));
    else printf("split table: %s\n", md);
done:
    if (f) fclose(f);
    free(sb.t);
    free(r);
    free(buf);
    return rc;
}

/* The classes of the problems g->problem[np0..g->np) of the run in dir (its labels.csv) into
 * (*cls)[np0..g->np), *cls grown to g->np entries. */
static int prof_classes(const char *dir, const char *split, const ncp_results_grid *g, int np0,
                        const char ***cls, ncp_error *err)
{
    const char **grown = realloc(*cls, sizeof *grown * (size_t)(g->np + 1));
    if (!grown) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory splitting profiles");
    *cls = grown;
    const char **part = NULL;
    int rc = ncp_labels_read_classes(dir, split, g->problem + np0, g->np - np0, &part, err);
    if (rc) return rc;
    for (int p = np0; p < g->np; p++) grown[p] = part[p - np0];
    free(part);
    return NCP_OK;
}

int ncp_fig_collection_profiles_split(const char *dir, const char *split, int figures,
                                      ncp_error *err)
{
    char csv[4300];
    prof_table tb = {0};
    ncp_results_grid g = {0};
    const char **cls = NULL;
    int rc = ncp_path_join(csv, sizeof csv, dir, "metrics.csv", err);
    if (!rc) rc = ncp_results_read_csv(&g, csv, 0.0, 0, err);
    if (!rc) rc = prof_from_grid(&tb, &g, err);
    if (!rc) rc = prof_classes(dir, split, &g, 0, &cls, err);
    if (!rc) rc = prof_split(dir, &tb, cls, split, figures, err);
    free(cls);
    free(tb.t);
    ncp_results_grid_free(&g);
    return rc;
}

int ncp_fig_profiles(const ncp_fig_opts *o, ncp_error *err)
{
    char out[4200], dat[4300];
    char *files[PROF_MAX_SCENES];
    int nfiles = 0, rc;
    prof_table tb = {0};
    ncp_results_grid g = {0};
    double *r = NULL;
    char *scenes = NULL, *budgets = NULL;
    double tol0 = NAN;
    int same_tol = 1, same_iter = 1, iter0 = 0;
    const char **cls = NULL; /* --split-by: each problem's class */
    if ((rc = ncp_path_join(out, sizeof out, o->out_dir, "profiles", err)) ||
        (rc = ncp_path_join(dat, sizeof dat, out, "perf_profiles.dat", err)) ||
        (rc = o->scenes ? list_given(o->scenes, files, PROF_MAX_SCENES, &nfiles, err)
                        : list_scenes(files, PROF_MAX_SCENES, &nfiles, err)))
        goto done;
    if (nfiles == 0) {
        rc = ncp_error_set(err, NCP_ERR_INPUT, "no scenes in %s", ncp_scenes_dir());
        goto done;
    }
    if ((rc = ncp_mkdir_p(out, err))) goto done;
    size_t slen = 1;
    for (int i = 0; i < nfiles; i++) slen += strlen(files[i]) + 2;
    size_t blen = slen + 64 * (size_t)nfiles;
    if (!(scenes = ncp_calloc(err, slen, 1)) || !(budgets = ncp_calloc(err, blen, 1))) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    for (int i = 0; i < nfiles; i++) {
        int np = 0;
        double tol = NAN;
        if ((rc = prof_scene(o, files[i], out, &g, &tol, &np, err))) goto done;
        if (o->interrupt && *o->interrupt) goto done; /* the CLI reports the interruption */
        char stem[64], sdir[4300];
        ncp_path_stem(files[i], stem, sizeof stem);
        if (o->split_by && ((rc = ncp_path_join(sdir, sizeof sdir, out, stem, err)) ||
                            (rc = prof_classes(sdir, o->split_by, &g, g.np - np, &cls, err))))
            goto done;
        snprintf(scenes + strlen(scenes), slen - strlen(scenes), "%s%s(%d)", i ? ", " : "", stem,
                 np);
        int it = g.np > 0 ? g.fail_iter[g.np - 1] : 0;
        if (i == 0) {
            tol0 = tol;
            iter0 = it;
        }
        same_tol &= tol == tol0;
        same_iter &= it == iter0;
        snprintf(budgets + strlen(budgets), blen - strlen(budgets), "%s%s %g, %d iterations",
                 i ? "; " : "", stem, tol, it);
    }
    if ((rc = prof_from_grid(&tb, &g, err))) goto done;
    if (!(r = ncp_malloc(err, (size_t)tb.np * (size_t)tb.ns + 1, sizeof(double)))) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    size_t wl = strlen(scenes) + 600;
    char *what = ncp_malloc(err, wl, 1);
    if (!what) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    snprintf(what, wl,
             "# problems: %d captured problems (%s captures) of the scenes: %s\n"
             "# measure: setup_ms + solve_ms to reach each scene's tolerance on\n"
             "# natural_map_rel_acary; not converged (budget, %g ms per-solve limit, stall,\n"
             "# failure) = infinite.\n",
             tb.np, o->quick ? "quick" : "full", scenes,
             o->quick ? PROF_LIMIT_QUICK_MS : PROF_LIMIT_FULL_MS);
    rc = ncp_perf_ratios(tb.np, tb.ns, tb.t, r, err);
    if (!rc) rc = prof_write(dat, &tb, r, what, err);
    free(what);
    if (rc) goto done;

    printf("\nPerformance profiles over %d problems (%s): %s\n", tb.np, o->quick ? "quick" : "full",
           scenes);
    printf("%-14s %8s %8s %8s %8s\n", "solver", "solved", "rho(1)", "rho(10)", "rho(100)");
    for (int s = 0; s < tb.ns; s++)
        printf("%-14s %8.3f %8.3f %8.3f %8.3f\n", tb.solver[s],
               ncp_perf_rho(tb.np, tb.ns, r, s, INFINITY), ncp_perf_rho(tb.np, tb.ns, r, s, 1.0),
               ncp_perf_rho(tb.np, tb.ns, r, s, 10.0), ncp_perf_rho(tb.np, tb.ns, r, s, 100.0));
    printf("(rho(1): share of problems where the solver is fastest; rho(100): solved within 100x "
           "the best time; no published claim to compare with: beyond the papers, docs/design.md)\n");
    char title[300];
    snprintf(title, sizeof title, "Performance profiles: %d problems from %d scenes (%s)", tb.np,
             nfiles, o->quick ? "quick" : "full");
    if ((rc = prof_results(out, &g, same_tol ? tol0 : NAN, same_iter ? iter0 : 0,
                           o->quick ? PROF_LIMIT_QUICK_MS : PROF_LIMIT_FULL_MS, budgets,
                           o->catalog, err)))
        goto done;
    rc = ncp_fig_plot("perf_profiles", out, title, dat, err);
    if (!rc && o->split_by) rc = prof_split(out, &tb, cls, o->split_by, 1, err);
done:
    free(cls);
    for (int i = 0; i < nfiles; i++) free(files[i]);
    ncp_results_grid_free(&g);
    free(budgets);
    free(tb.t);
    free(r);
    free(scenes);
    return rc;
}

/* Median of the floored times of the problems solver s solved (NaN when none). */
static double prof_median_solved(const prof_table *tb, int s, double *buf)
{
    int k = 0;
    for (int p = 0; p < tb->np; p++) {
        double t = tb->t[(size_t)p * tb->ns + s];
        if (isfinite(t)) buf[k++] = t;
    }
    return ncp_median(buf, k);
}

/* Adds "performance_profile" to dir/summary.json (rewritten atomically). */
static int prof_summary(const char *dir, const prof_table *tb, const double *r, double *buf,
                        ncp_error *err)
{
    char path[4300];
    cJSON *root;
    int rc = prof_read_summary(dir, path, sizeof path, &root, err);
    if (rc) return rc;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: not the JSON object the benchmark wrote",
                             path);
    }
    cJSON *pr = cJSON_CreateObject(), *arr = cJSON_CreateArray();
    int bad = !pr || !arr;
    if (!bad) {
        cJSON_AddItemToObject(pr, "problems", cJSON_CreateNumber(tb->np));
        cJSON_AddItemToObject(pr, "measure",
                              cJSON_CreateString("setup_ms + solve_ms of converged rows (floored "
                                                 "at 1e-6 ms); not converged or unsupported = "
                                                 "infinite; Dolan & More 2002"));
        cJSON_AddItemToObject(pr, "solvers", arr);
        for (int s = 0; s < tb->ns; s++) {
            cJSON *o = cJSON_CreateObject();
            double med = prof_median_solved(tb, s, buf);
            if (!o || !cJSON_AddItemToArray(arr, o)) {
                cJSON_Delete(o);
                bad = 1;
                break;
            }
            cJSON_AddItemToObject(o, "solver", cJSON_CreateString(tb->solver[s]));
            cJSON_AddItemToObject(o, "solved", cJSON_CreateNumber(ncp_perf_rho(tb->np, tb->ns, r, s, INFINITY)));
            cJSON_AddItemToObject(o, "median_time_ms",
                                  isnan(med) ? cJSON_CreateNull() : cJSON_CreateNumber(med));
            cJSON_AddItemToObject(o, "rho_1", cJSON_CreateNumber(ncp_perf_rho(tb->np, tb->ns, r, s, 1.0)));
            cJSON_AddItemToObject(o, "rho_10", cJSON_CreateNumber(ncp_perf_rho(tb->np, tb->ns, r, s, 10.0)));
        }
        /* its own key: "profile" is where the run's time went (bench/output.c), which a
         * collection run keeps beside this */
        cJSON_DeleteItemFromObjectCaseSensitive(root, "performance_profile");
        if (!bad && !cJSON_AddItemToObject(root, "performance_profile", pr)) bad = 1;
        else if (!bad) pr = NULL;
    } else {
        cJSON_Delete(arr);
    }
    cJSON_Delete(pr);
    return ncp_out_write_json(path, root, bad, err);
}

/* profile.md: the per-solver table. */
static int prof_markdown(const char *path, const prof_table *tb, const double *r, double *buf,
                         ncp_error *err)
{
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) return err ? err->code : NCP_ERR_IO;
    fprintf(f, "# Performance profile over %d problems\n\n"
               "Time to tolerance = setup_ms + solve_ms of a converged row; a row that did not "
               "converge or is unsupported counts as infinitely slow. Solved: share of the "
               "problems solved; median time: over the problems the solver solved; rho(tau): "
               "share of the problems solved within tau times the fastest solver's time "
               "(Dolan & More 2002). Data: metrics.csv; curves: perf_profiles.dat.\n\n"
               "| solver | solved | median time (ms) | rho(1) | rho(10) |\n"
               "|---|---:|---:|---:|---:|\n", tb->np);
    for (int s = 0; s < tb->ns; s++) {
        double med = prof_median_solved(tb, s, buf);
        fprintf(f, "| %s | %.4f | ", tb->solver[s], ncp_perf_rho(tb->np, tb->ns, r, s, INFINITY));
        if (isnan(med)) fputs("-", f);
        else fprintf(f, "%.6g", med);
        fprintf(f, " | %.4f | %.4f |\n", ncp_perf_rho(tb->np, tb->ns, r, s, 1.0),
                ncp_perf_rho(tb->np, tb->ns, r, s, 10.0));
    }
    if (fclose(f) != 0) return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return NCP_OK;
}

int ncp_fig_collection_profiles(const char *dir, int figures, int quiet, ncp_error *err)
{
    char csv[4300], dat[4300], md[4300];
    prof_table tb = {0};
    ncp_results_grid g = {0};
    double *r = NULL, *buf = NULL;
    int rc;
    if ((rc = ncp_path_join(csv, sizeof csv, dir, "metrics.csv", err)) ||
        (rc = ncp_path_join(dat, sizeof dat, dir, "perf_profiles.dat", err)) ||
        (rc = ncp_path_join(md, sizeof md, dir, "profile.md", err)))
        return rc;
    /* the solvers of the run, in the order of their first row; the budget does not enter the
     * profile */
    if ((rc = ncp_results_read_csv(&g, csv, 0.0, 0, err)) || (rc = prof_from_grid(&tb, &g, err)))
        goto done;
    if (!(r = ncp_malloc(err, (size_t)tb.np * (size_t)tb.ns + 1, sizeof(double))) ||
        !(buf = ncp_malloc(err, (size_t)tb.np + 1, sizeof(double)))) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    char what[600];
    snprintf(what, sizeof what,
             "# problems: the %d problems of %s/metrics.csv (ncpbench solve)\n"
             "# measure: setup_ms + solve_ms of a converged row (the run's budget and stopping\n"
             "# metric, summary.json); not converged or unsupported = infinite.\n",
             tb.np, dir);
    if ((rc = ncp_perf_ratios(tb.np, tb.ns, tb.t, r, err)) ||
        (rc = prof_write(dat, &tb, r, what, err)) ||
        (rc = prof_markdown(md, &tb, r, buf, err)) || (rc = prof_summary(dir, &tb, r, buf, err)))
        goto done;
    if (!quiet) {
        printf("Performance profile over %d problems (%s):\n", tb.np, md);
        printf("%-14s %8s %14s %8s %8s\n", "solver", "solved", "med.time(ms)", "rho(1)",
               "rho(10)");
        for (int s = 0; s < tb.ns; s++) {
            double med = prof_median_solved(&tb, s, buf);
            char mt[32] = "-";
            if (!isnan(med)) snprintf(mt, sizeof mt, "%.6g", med);
            printf("%-14s %8.3f %14s %8.3f %8.3f\n", tb.solver[s],
                   ncp_perf_rho(tb.np, tb.ns, r, s, INFINITY), mt,
                   ncp_perf_rho(tb.np, tb.ns, r, s, 1.0), ncp_perf_rho(tb.np, tb.ns, r, s, 10.0));
        }
    }
    if (figures) {
        char title[300];
        snprintf(title, sizeof title, "Performance profiles: %d problems", tb.np);
        rc = ncp_fig_plot("perf_profiles", dir, title, dat, err);
    }
done:
    ncp_results_grid_free(&g);
    free(tb.t);
    free(r);
    free(buf);
    return rc;
}
