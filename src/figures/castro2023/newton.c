/* Castro et al. 2023 §VI-C ¶3, Fig. 10: sap's convergence per Newton iteration from the traces
 * of part fig10 (every iterate traced, trace_every 1) on capture "newton" (the walls clutter's
 * steps 0, 5, ..., 60: c23_newton_scene): at the paper's step 60, its last problem, e_m per
 * iterate (the trace's sap_momentum, eq. 32 at v(lambda)). The paper plots SAP's cost l_p (eq. 24), which is
 * not a metric of the pipeline (metrics/): e_m per iterate shows the same linear-then-quadratic
 * convergence and the checker recomputes it from traces.csv. Claim C11. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "figures/castro2023/castro2023.h"
#include "figures/fig_util.h"
#include "util/safefile.h"

/* The paper's step 60: the capture's last problem. */
static int c23_transient(const ncp_study_solves *sv) { return sv->n - 1; }

int c23_C11(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    const ncp_study_solves *sv = ncp_study_get_all(c, "fig10", "sap");
    if (!sv || sv->n == 0 || !sv->p[c23_transient(sv)].ran) {
        o->not_run = 1;
        return NCP_OK;
    }
    const ncp_study_result *r = &sv->p[c23_transient(sv)];
    int m = r->ntrace - 1, h = m / 2;
    double ratio[512];
    for (int k = 0; k <= m; k++) {
        char name[96];
        snprintf(name, sizeof name, "%s e_m at trace row %d", r->problem, k);
        ncp_study_input(o, r, name, ncp_study_trace_at(r, k, "sap_momentum"));
    }
    for (int j = 0; j < h && j < 512; j++)
        ratio[j] = ncp_study_trace_at(r, j + 1, "sap_momentum") /
                   ncp_study_trace_at(r, j, "sap_momentum");
    o->v[0] = m >= 1 ? ncp_study_trace_at(r, m, "sap_momentum") /
                           ncp_study_trace_at(r, m - 1, "sap_momentum")
                     : NAN;
    o->v[1] = h > 0 ? ncp_median(ratio, h < 512 ? h : 512) : NAN;
    o->v[2] = ncp_study_input(o, r, "transient step iterations", r->iterations);
    snprintf(o->ours, sizeof o->ours, "transient problem %s (%d Newton iterations): e_m ratio of "
             "the last iteration %.2e, median ratio over the first half %.3g", r->problem,
             r->iterations, o->v[0], o->v[1]);
    return NCP_OK;
}

int c23_fig10(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    char path[4400];
    const ncp_study_solves *sv = ncp_study_get_all(c, "fig10", "sap");
    FILE *f = ncp_safe_fopen_in(dir, "castro2023_newton.dat", path, sizeof path, err);
    if (!f) return err->code;
    fprintf(f, "# ncpbench, %s; configuration %s (%s)\n# sap at step 60 of the walls clutter "
            "(the capture's last problem): e_m (eq. 32 at v(lambda), the trace's sap_momentum) "
            "per Newton iteration (every iterate traced)\n# columns: label newton_iteration "
            "e_m\n", p->title, c->config->id, c->config->title);
    const ncp_study_result *r = sv && sv->n ? &sv->p[c23_transient(sv)] : NULL;
    for (int k = 0; r && r->ran && k < r->ntrace; k++)
        fprintf(f, "step_60 %.0f %.6g\n", r->trace[(size_t)k * (size_t)ncp_study_trace_cols()],
                ncp_study_trace_at(r, k, "sap_momentum"));
    int rc = ncp_safe_fclose(f, path, err);
    return rc ? rc : ncp_fig_plot("castro2023_newton", dir, p->title, path, err);
}
