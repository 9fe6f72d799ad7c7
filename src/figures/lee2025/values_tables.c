/* Lee et al. 2025: the values of the claims on Tables II and III (§VII-D), from the runs'
 * metrics (Table III: time and residual per step) and the AL family's notes (Table II: inner
 * steps, AL loops and failed inner solves per case). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figures/lee2025/lee2025.h"

static const char *const t2_labels[3] = {"CANAL", "TRDogleg", "DampedSN"};
static const char *const t3_labels[3] = {"SubADMM", "NoSub", "NoBody"};
static const double t2_paper_res[3] = {8.2231, 8.5693, 8.5644};
static const double t3_paper_res[3] = {4.8802, 4.8817, 4.8562};

static double nlog(double r) { return -log10(fmax(r, L25_LOG_FLOOR)); }

int l25_t2_col(const ncp_study_ctx *c, const char *part, const char *label, l25_t2col *q)
{
    memset(q, 0, sizeof *q);
    const ncp_study_solves *sv = ncp_study_get_all(c, part, label);
    double inner = 0, loops = 0, failed = 0, lg = 0;
    for (int i = 0; sv && i < sv->n; i++) {
        const ncp_study_result *r = &sv->p[i];
        int k, l, f, per[L25_AL_LOOPS], nper;
        if (!r->ran) continue;
        if (l25_al_note(r->note, &k, &l, &f, per, &nper)) return -1;
        inner += k;
        loops += l;
        failed += f;
        lg += nlog(ncp_study_final(r, "al_residual"));
        q->n++;
    }
    if (!q->n) return -1;
    q->inner = inner / q->n;
    q->fail_pct = loops > 0 ? 100 * failed / loops : 0.0;
    q->nlog = lg / q->n;
    return 0;
}

static int t2_cols(const ncp_study_ctx *c, ncp_study_claim_out *o, l25_t2col q[3])
{
    for (int s = 0; s < 3; s++) {
        char name[64];
        if (l25_t2_col(c, "table2", t2_labels[s], &q[s])) {
            o->not_run = 1;
            snprintf(o->ours, sizeof o->ours, "%s: no solve with the AL family's note",
                     t2_labels[s]);
            return -1;
        }
        snprintf(name, sizeof name, "%s mean inner steps per case", t2_labels[s]);
        ncp_study_input(o, NULL, name, q[s].inner);
        snprintf(name, sizeof name, "%s failed loops %%", t2_labels[s]);
        ncp_study_input(o, NULL, name, q[s].fail_pct);
        snprintf(name, sizeof name, "%s mean -log10 al_residual", t2_labels[s]);
        ncp_study_input(o, NULL, name, q[s].nlog);
    }
    return 0;
}

int l25_T2a(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    l25_t2col q[3];
    if (t2_cols(c, o, q)) return NCP_OK;
    o->v[0] = q[0].inner;
    o->v[1] = q[1].inner / q[0].inner;
    o->v[2] = q[2].inner / q[0].inner;
    snprintf(o->ours, sizeof o->ours, "%.2f / %.2f / %.2f inner steps per case over %d cases "
             "(TRDogleg %.2fx, DampedSN %.2fx CANAL's)", q[0].inner, q[1].inner, q[2].inner,
             q[0].n, o->v[1], o->v[2]);
    return NCP_OK;
}

int l25_T2b(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    l25_t2col q[3];
    if (t2_cols(c, o, q)) return NCP_OK;
    for (int s = 0; s < 3; s++) o->v[s] = q[s].fail_pct;
    snprintf(o->ours, sizeof o->ours, "%.2f / %.2f / %.2f %% of AL loops", q[0].fail_pct,
             q[1].fail_pct, q[2].fail_pct);
    return NCP_OK;
}

int l25_T2c(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    l25_t2col q[3];
    if (t2_cols(c, o, q)) return NCP_OK;
    double hi = -INFINITY, lo = INFINITY, dev = 0;
    for (int s = 0; s < 3; s++) {
        hi = fmax(hi, q[s].nlog);
        lo = fmin(lo, q[s].nlog);
        dev = fmax(dev, fabs(q[s].nlog - t2_paper_res[s]));
    }
    o->v[0] = q[0].nlog;
    o->v[1] = hi - lo;
    o->v[2] = dev;
    snprintf(o->ours, sizeof o->ours, "%.4f / %.4f / %.4f (spread %.3g, largest distance from "
             "the paper's %.3g)", q[0].nlog, q[1].nlog, q[2].nlog, hi - lo, dev);
    return NCP_OK;
}

int l25_t3_col(const ncp_study_ctx *c, const char *part, const char *label, double *ms,
               double *lg)
{
    const ncp_study_solves *sv = ncp_study_get_all(c, part, label);
    double t = 0, l = 0;
    int n = 0;
    for (int i = 0; sv && i < sv->n; i++) {
        if (!sv->p[i].ran) continue;
        t += sv->p[i].setup_ms + sv->p[i].solve_ms;
        l += nlog(ncp_study_final(&sv->p[i], "al_residual"));
        n++;
    }
    *ms = n ? t / n : NAN;
    *lg = n ? l / n : NAN;
    return n;
}

/* Table III's column s of one part, recorded as the claim's inputs; not run: o->not_run. */
static int t3_col(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *part, int s,
                  double *ms, double *lg)
{
    if (!l25_t3_col(c, part, t3_labels[s], ms, lg)) {
        o->not_run = 1;
        return -1;
    }
    char name[96];
    snprintf(name, sizeof name, "%s %s mean ms per step", part, t3_labels[s]);
    ncp_study_input(o, NULL, name, *ms);
    snprintf(name, sizeof name, "%s %s mean -log10 al_residual", part, t3_labels[s]);
    ncp_study_input(o, NULL, name, *lg);
    return 0;
}

static int t3_cols(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *part,
                   double ms[3], double lg[3])
{
    for (int s = 0; s < 3; s++)
        if (t3_col(c, o, part, s, &ms[s], &lg[s])) return -1;
    return 0;
}

int l25_T3a(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double ms[3], lg[3];
    if (t3_cols(c, o, "table3_8", ms, lg)) return NCP_OK;
    o->v[0] = ms[1] / ms[0];
    o->v[1] = ms[2] / ms[0];
    snprintf(o->ours, sizeof o->ours, "%.4g / %.4g / %.4g ms per step (No Sub %.3gx, No Body "
             "%.3gx)", ms[0], ms[1], ms[2], o->v[0], o->v[1]);
    return NCP_OK;
}

int l25_T3b(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double ms[3], lg[3];
    if (t3_cols(c, o, "table3_8", ms, lg)) return NCP_OK;
    double hi = -INFINITY, lo = INFINITY, dev = 0;
    for (int s = 0; s < 3; s++) {
        hi = fmax(hi, lg[s]);
        lo = fmin(lo, lg[s]);
        dev = fmax(dev, fabs(lg[s] - t3_paper_res[s]));
    }
    o->v[0] = hi - lo;
    o->v[1] = dev;
    snprintf(o->ours, sizeof o->ours, "%.4f / %.4f / %.4f (spread %.3g, largest distance from "
             "the paper's %.3g)", lg[0], lg[1], lg[2], hi - lo, dev);
    return NCP_OK;
}

int l25_T3c(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    double m8[3], l8[3], m27[3], l27[3];
    if (t3_cols(c, o, "table3_8", m8, l8) || t3_cols(c, o, "table3_27", m27, l27))
        return NCP_OK;
    o->v[0] = m27[1] / m27[0];
    o->v[1] = o->v[0] - m8[1] / m8[0];
    snprintf(o->ours, sizeof o->ours, "No Sub / SubADMM %.3gx with 27 robots (%.3gx with 8); No "
             "Body / SubADMM %.3gx with 27", o->v[0], m8[1] / m8[0], m27[2] / m27[0]);
    return NCP_OK;
}
