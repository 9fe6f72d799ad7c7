/* Tasora et al. 2021: the figures' data (one gnuplot index block per run: label, iteration,
 * natural_map_rel_acary, violation in m/s) and plots (scripts/tasora2021_iter.gp), and TEST 2's
 * time per step. Reducers of the study's parts (study.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "figures/fig_util.h"
#include "figures/tasora2021/tasora2021.h"
#include "solve/solver.h"
#include "util/fsutil.h"
#include "util/safefile.h"

int t21_curves(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    char dat[4400];
    int rc = ncp_path_join(dat, sizeof dat, dir, "tasora2021_iter.dat", err);
    if (rc) return rc;
    FILE *f = ncp_safe_fopen(dat, err);
    if (!f) return err->code;
    int test2 = !strcmp(p->capture, "test2");
    fprintf(f, "# ncpbench, %s; configuration %s (%s)\n# capture %s, cold start, tol %g on "
            "natural_map_rel_acary, max_iter %d%s\n# violation: %s\n"
            "# One index block per run (gnuplot: index i); a run that converged ends there.\n"
            "# columns: label iteration natural_map_rel_acary violation_m_per_s\n",
            p->title, c->config->id, c->config->title, p->capture, p->budget.tol,
            ncp_study_max_iter(c, p), test2 ? "; iterates sampled (1..20, then ~20 a decade, "
            "and the last)" : "",
            test2 ? "ncp_dual (NCP report 2025 eq. 174, L_inf): the distance of u + Gamma(u) "
                    "from K*, max(0, -u_n) for a normal row alone"
                  : "max over contacts of max(0, -u_n) = penetration / h (phi = 0)");
    int nb = 0;
    for (int i = 0; i < c->s->nruns; i++) {
        const ncp_study_result *r = ncp_study_get(c, p->id, c->s->runs[i].label);
        if (strcmp(c->s->runs[i].part, p->id) || !r->ran || r->ntrace == 0) continue;
        if (nb++) fputs("\n\n", f);
        for (int k = 0; k < r->ntrace; k++) {
            double it = r->trace[(size_t)k * (size_t)ncp_study_trace_cols()];
            if (it < 1) continue;
            fprintf(f, "%s %d %.10g %.10g\n", c->s->runs[i].label, (int)it,
                    ncp_study_trace_at(r, k, "natural_map_rel_acary"), t21_viol(c, p->id, r, k));
        }
    }
    if ((rc = ncp_safe_fclose(f, dat, err))) return rc;
    return nb ? ncp_fig_plot("tasora2021_iter", dir, p->title, dat, err) : NCP_OK;
}

int t21_fig8(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    int rc = t21_curves(c, p, dir, err);
    char path[4400];
    if (rc || (rc = ncp_path_join(path, sizeof path, dir, "time_per_step.dat", err))) return rc;
    const ncp_study_capture_info *ci = ncp_study_part_capture(c, p);
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) return err->code;
    fprintf(f, "# ncpbench, Tasora et al. 2021 TEST 2, step %d (%d contacts, m = %d, n_v = %d): "
            "time per step per solver (setup + solve, ms; the harness's monitoring excluded)\n"
            "# columns: label solver status iterations setup_ms solve_ms total_ms "
            "final_natural_map final_violation_m_per_s\n", ci->step, ci->ncontacts, ci->m, ci->nv);
    for (int i = 0; i < c->s->nruns; i++) {
        const ncp_study_result *r = ncp_study_get(c, p->id, c->s->runs[i].label);
        if (strcmp(c->s->runs[i].part, p->id) || !r->ran) continue;
        fprintf(f, "%s %s %s %d %.3f %.3f %.3f %.6g %.6g\n", c->s->runs[i].label,
                c->s->runs[i].solver, ncp_status_name(r->status), r->iterations, r->setup_ms,
                r->solve_ms, r->setup_ms + r->solve_ms,
                ncp_study_final(r, "natural_map_rel_acary"), ncp_study_final(r, "ncp_dual"));
    }
    return ncp_safe_fclose(f, path, err);
}
