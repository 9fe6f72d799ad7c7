/* Castro et al. 2023: the figures' data and plots. Fig. 9: per captured step, sap's Newton
 * iterations and every solver's time (setup + solve; scripts/castro2023_fig9.gp); Fig. 12 (with
 * Fig. 11's contacts): per N, the speedup of sap against the interior-point solver of model (19)
 * and against the fastest convex solver (scripts/castro2023_fig12.gp, one configuration, walls
 * or no walls, per part); Fig. 13: per N, the mean e_m and e_mu of sap and that solver, the
 * means C4, C17 and C18 take (scripts/castro2023_fig13.gp, fig.md). Reducers of the study's
 * parts (study.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figures/castro2023/castro2023.h"
#include "figures/fig_util.h"
#include "util/fsutil.h"
#include "util/safefile.h"

static const char *const c23_fig_solvers[] = {"sap", C23_IPM, "admm", "apgd", "pgs-ccp",
                                              "admm-ccp"};
enum { C23_NFIG = 6 };

int c23_fig9(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    char path[4400];
    FILE *f = ncp_safe_fopen_in(dir, "castro2023_fig9.dat", path, sizeof path, err);
    if (!f) return err->code;
    const ncp_study_solves *sv[C23_NFIG];
    for (int s = 0; s < C23_NFIG; s++)
        sv[s] = ncp_study_get_all(c, s > 1 ? "fig9_ccp" : "fig9_sap", c23_fig_solvers[s]);
    fprintf(f, "# ncpbench, %s; configuration %s (%s)\n# per captured step (problem k of the "
            "capture): sap's Newton iterations, then each solver's time per step (setup + "
            "solve, ms; " C23_IPM ": self-timed; nan: not run)\n# columns: k sap_iterations sap_ms "
            C23_IPM "_ms admm_ms apgd_ms pgs-ccp_ms admm-ccp_ms\n", p->title, c->config->id, c->config->title);
    int n = sv[0] ? sv[0]->n : 0;
    for (int k = 0; k < n; k++) {
        fprintf(f, "%d %d", k, sv[0]->p[k].iterations);
        for (int s = 0; s < C23_NFIG; s++) {
            const ncp_study_result *r = sv[s] && k < sv[s]->n ? &sv[s]->p[k] : NULL;
            fprintf(f, " %.6g", r && r->ran ? r->setup_ms + r->solve_ms : NAN);
        }
        fputc('\n', f);
    }
    char title[300];
    snprintf(title, sizeof title, "%s; configuration %s", p->title, c->config->id);
    int rc = ncp_safe_fclose(f, path, err);
    return rc ? rc : ncp_fig_plot("castro2023_fig9", dir, title, path, err);
}

int c23_fig12(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    char path[4400];
    FILE *f = ncp_safe_fopen_in(dir, "castro2023_fig12.dat", path, sizeof path, err);
    if (!f) return err->code;
    int walls = p->id[0] == 'w';
    ncp_study_claim_out o = {{0}, "", 0, NULL, NULL, NULL, 0}; /* no input table here */
    fprintf(f, "# ncpbench, Castro et al. 2023 Figs. 11-12, %s; configuration %s (%s)\n"
            "# per N (nan: not run): contacts of the first kept step, sap's mean Newton "
            "iterations and time per step (ms), the interior-point solver's (self-timed) and "
            "sap's speedup against it, the fastest convex solver's time and sap's speedup "
            "against it\n"
            "# columns: N contacts sap_iterations sap_ms " C23_IPM "_ms speedup "
            "fastest_convex_ms speedup_convex\n",
            walls ? "walls" : "no walls", c->config->id, c->config->title);
    for (int k = 0; k < C23_NSCALE; k++) {
        char sp[32];
        c23_part_id(sp, sizeof sp, walls, c23_scale_n[k], 1);
        const ncp_study_solves *sv = ncp_study_get_all(c, sp, "sap");
        const ncp_study_capture_info *ci =
            ncp_study_part_capture(c, ncp_study_find_part(c->s, sp));
        double it = 0, ts = c23_mean_ms(c, &o, sp, "sap"), s = c23_speedup(c, &o, walls, k);
        double sc = c23_speedup_ccp(c, &o, walls, k);
        for (int i = 0; sv && i < sv->n; i++) it += sv->p[i].iterations;
        fprintf(f, "%d %.0f %.4g %.6g %.6g %.6g %.6g %.6g\n", c23_bodies(c, k),
                ci ? (double)ci->ncontacts : NAN, sv && sv->n ? it / sv->n : NAN, ts, s * ts, s,
                sc * ts, sc);
    }
    char title[200];
    snprintf(title, sizeof title, "Castro et al. 2023 Figs. 11-12, %s; configuration %s",
             walls ? "walls" : "no walls", c->config->id);
    int rc = ncp_safe_fclose(f, path, err);
    return rc ? rc : ncp_fig_plot("castro2023_fig12", dir, title, path, err);
}

/* fig.md beside Fig. 13: what the figure shows and where it differs from the paper's. */
static int c23_fig13_note(const char *dir, int walls, ncp_error *err)
{
    char path[4400];
    FILE *f = ncp_safe_fopen_in(dir, "fig.md", path, sizeof path, err);
    if (!f) return err->code;
    fprintf(f, "Figure `castro2023_fig13.{png,svg}` (scripts/castro2023_fig13.gp, from "
            "`castro2023_fig13.dat`; drawn when gnuplot is installed): Castro et al. 2023 Fig. 13 "
            "for the clutter %s, per N the mean over the solved steps of e_m (eq. 32, top) and "
            "e_mu (eq. 33, bottom), the values C4, C17 and C18 reduce. Unlike the paper: its "
            "two references, Gurobi and the geodesic IPM, are one here, cvxopt's coneqp on SAP's "
            "model (19) (scripts/ipm_sap.py); the means are over the last 10 steps of each N's "
            "10 s (the paper's: over every time step; --quick: 3 steps of 8 bodies at every N); "
            "e_m is the sap_momentum metric at v(lambda) for both solvers (docs/metrics.md), not "
            "at SAP's own iterate; sap's e_mu, which the paper leaves out as zero to machine "
            "precision, is drawn where it is positive (the log axis has no zero; the data file "
            "keeps it); the paper sets walls (left) and no walls (right) side by side, here "
            "each is its part's figure (`w200_sap/`, `n200_sap/`).\n",
            walls ? "with walls" : "without walls");
    return ncp_safe_fclose(f, path, err);
}

int c23_fig13(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    char path[4400];
    int walls = p->id[0] == 'w';
    ncp_study_claim_out o = {{0}, "", 0, NULL, NULL, NULL, 0}; /* no input table here */
    double sm[2][C23_NSCALE], im[2][C23_NSCALE], iu[2][C23_NSCALE], su[2][C23_NSCALE];
    c23_scale_means(c, &o, "sap", "sap_momentum", sm); /* C4, C17 */
    c23_scale_means(c, &o, C23_IPM, "sap_momentum", im); /* C17 */
    c23_scale_means(c, &o, C23_IPM, "sap_compl", iu); /* C18 */
    c23_scale_means(c, &o, "sap", "sap_compl", su);
    FILE *f = ncp_safe_fopen_in(dir, "castro2023_fig13.dat", path, sizeof path, err);
    if (!f) return err->code;
    fprintf(f, "# ncpbench, Castro et al. 2023 Fig. 13, %s; configuration %s (%s)\n"
            "# per N: the mean over the solved steps of e_m (eq. 32, sap_momentum at v(lambda)) "
            "and e_mu (eq. 33, sap_compl) of sap and of the interior-point solver of model (19) "
            "(nan: not run)\n# columns: N sap_e_m " C23_IPM "_e_m " C23_IPM "_e_mu sap_e_mu\n",
            walls ? "walls" : "no walls", c->config->id, c->config->title);
    for (int k = 0; k < C23_NSCALE; k++)
        fprintf(f, "%d %.12g %.12g %.12g %.12g\n", c23_bodies(c, k), sm[walls][k],
                im[walls][k], iu[walls][k], su[walls][k]);
    int rc = ncp_safe_fclose(f, path, err);
    if (rc || (rc = c23_fig13_note(dir, walls, err))) return rc;
    char title[200];
    snprintf(title, sizeof title, "Castro et al. 2023 Fig. 13, %s; configuration %s (fig.md: "
             "what differs from the paper)", walls ? "walls" : "no walls", c->config->id);
    return ncp_fig_plot("castro2023_fig13", dir, title, path, err);
}

int c23_scaling(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    int rc = c23_fig12(c, p, dir, err);
    return rc ? rc : c23_fig13(c, p, dir, err);
}
