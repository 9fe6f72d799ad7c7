/* Lee et al. 2025: what the simulations record per step (the observer) and what the claims
 * read from a sim's raw results: Fig. 11's per-step means (l25_simstat_of) and a task's outcome
 * recomputed from steps.csv and task.json's measured values (l25_task_of), not from its flags. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/problem.h"
#include "figures/lee2025/lee2025.h"
#include "sim/world.h"

const int l25_pour_n[L25_NPOUR] = {9, 18, 27, 36, 45};
const char *const l25_sim_label[L25_NSIMSOLV] = {"CANAL", "SubADMM", "PGS"};

const char *l25_pour_part(int k)
{
    return k == 0 ? "fig11_canal" : "fig11";
}

static int l25_obs_state(const ncp_study_sim *sm, int step, int n, const ncp_world *w,
                         double *row, ncp_error *err)
{
    (void)sm, (void)step, (void)n, (void)err;
    row[0] = w->model->nv;
    return NCP_OK;
}

static int l25_obs_solved(const ncp_study_sim *sm, int step, int n, const ncp_problem *p,
                          const double *lambda, const double *v, double *row, ncp_error *err)
{
    (void)sm, (void)step, (void)n, (void)v, (void)err;
    double lmax = 0;
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].type == NCP_CONTACT) lmax = fmax(lmax, lambda[p->blocks[b].row]);
    row[1] = lmax;
    return NCP_OK;
}

const ncp_study_observer l25_sim_observer = {{"dof", "impulse_max", NULL}, l25_obs_state,
                                             l25_obs_solved};

int l25_simstat_of(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *part,
                   const char *label, l25_simstat *q, ncp_error *err)
{
    const ncp_study_simres *r = ncp_study_get_sim(c, part, label);
    memset(q, 0, sizeof *q);
    q->dof = q->ms = q->ms_med = q->res = q->res_geo = q->iters = q->contacts = NAN;
    if (!r) return ncp_error_set(err, NCP_ERR_INPUT, "lee2025: no sim %s/%s", part, label);
    if (!r->ran) {
        if (o) o->not_run = 1;
        return NCP_OK;
    }
    double *ms = ncp_malloc(err, (size_t)r->nrows + 1, sizeof *ms);
    if (!ms) return NCP_ERR_NOMEM;
    double sms = 0, sres = 0, slog = 0, sit = 0, scon = 0;
    q->ran = 1;
    q->dof = ncp_study_sim_at(r, 0, "dof");
    for (int k = 0; k < r->nrows; k++) {
        double res = ncp_study_sim_at(r, k, "al_residual");
        if (!(ncp_study_sim_at(r, k, "rows") > 0) || !isfinite(res)) continue;
        ms[q->n] = ncp_study_sim_at(r, k, "solve_ms");
        sms += ms[q->n++];
        sres += res;
        slog += log10(fmax(res, L25_LOG_FLOOR));
        sit += ncp_study_sim_at(r, k, "iterations");
        scon += ncp_study_sim_at(r, k, "contacts");
    }
    if (q->n) {
        q->ms = sms / q->n;
        q->res = sres / q->n;
        q->res_geo = pow(10.0, slog / q->n);
        q->iters = sit / q->n;
        q->contacts = scon / q->n;
        q->ms_med = l25_median(ms, q->n);
    }
    free(ms);
    if (o) {
        char name[160];
        snprintf(name, sizeof name, "%s/%s dof", part, label);
        ncp_study_input(o, NULL, name, q->dof);
        snprintf(name, sizeof name, "%s/%s mean ms", part, label);
        ncp_study_input(o, NULL, name, q->ms);
        snprintf(name, sizeof name, "%s/%s mean al_residual", part, label);
        ncp_study_input(o, NULL, name, q->res);
    }
    return NCP_OK;
}

void l25_task_of(const ncp_study_simres *r, l25_taskres *q)
{
    memset(q, 0, sizeof *q);
    q->penetration = q->impulse_max = NAN;
    if (!r || !r->ran) return;
    q->ran = 1;
    q->nsteps = r->nrows;
    q->planned = r->steps_planned;
    q->completed = r->nrows == r->steps_planned && r->nrows > 0;
    double pen = 0, imp = 0;
    for (int k = 0; k < r->nrows; k++) {
        pen = fmax(pen, ncp_study_sim_at(r, k, "penetration"));
        imp = fmax(imp, ncp_study_sim_at(r, k, "impulse_max"));
    }
    for (int i = 0; i < r->ncrit; i++)
        if (!strcmp(r->crit[i].type, "penetration")) pen = fmax(pen, r->crit[i].value);
    q->penetration = pen;
    q->impulse_max = imp;
    q->success = q->completed;
    for (int i = 0; i < r->ncrit; i++) {
        const ncp_study_simcrit *k = &r->crit[i];
        double x = !strcmp(k->type, "penetration") ? pen : k->value;
        q->success &= x >= k->lo && x <= k->hi; /* NaN: not met */
    }
}
