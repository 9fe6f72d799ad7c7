/* The claims of a study (study.h): each claim's reducer gives its values and records its
 * inputs (claim_inputs.csv), the declared rule gives the verdict; claims.md for the reader,
 * claims.csv (values, thresholds, verdict) for the checker's comparison. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figures/fig_util.h"
#include "figures/study.h"
#include "util/fsutil.h"
#include "util/safefile.h"

const char *ncp_study_verdict_name(int verdict)
{
    static const char *const names[] = {"yes", "partly", "no", "not testable", "not run"};
    return verdict >= 0 && verdict <= NCP_VERDICT_NOT_RUN ? names[verdict] : "?";
}

/* All n conditions hold (none: false, a tier without conditions is no tier). */
static int study_conds(const ncp_study_cond *cs, int n, const double *v)
{
    if (n <= 0) return 0;
    for (int i = 0; i < n && i < NCP_STUDY_MAX_CONDS; i++) {
        if (cs[i].value < 0 || cs[i].value >= NCP_STUDY_MAX_VALUES) return 0;
        double x = v[cs[i].value];
        if (isnan(x)) return 0;
        if (!isnan(cs[i].lo) && !(x >= cs[i].lo)) return 0;
        if (!isnan(cs[i].hi) && !(x <= cs[i].hi)) return 0;
    }
    return 1;
}

int ncp_study_verdict(const ncp_study_claim *k, const double *v)
{
    if (k->not_testable) return NCP_VERDICT_NOT_TESTABLE;
    if (study_conds(k->yes, k->nyes, v)) return NCP_VERDICT_YES;
    if (study_conds(k->partly, k->npartly, v)) return NCP_VERDICT_PARTLY;
    return NCP_VERDICT_NO;
}

/* "v0:lo:hi;v1:lo:hi" (nan: no bound), compared with the checker's own copy of the rule. */
static void study_conds_csv(FILE *f, const ncp_study_cond *cs, int n)
{
    for (int i = 0; i < n && i < NCP_STUDY_MAX_CONDS; i++)
        fprintf(f, "%sv%d:%.17g:%.17g", i ? ";" : "", cs[i].value, cs[i].lo, cs[i].hi);
}

static int study_open(const ncp_study_ctx *c, const char *name, FILE **f, char *path,
                      size_t cap, ncp_error *err)
{
    int rc = ncp_path_join(path, cap, c->dir, name, err);
    if (rc) return rc;
    *f = ncp_safe_fopen(path, err);
    return *f ? NCP_OK : err->code;
}

static int study_close(FILE *f, const char *path, int rc, ncp_error *err)
{
    if (!f) return rc;
    if (fclose(f) != 0 && !rc) return ncp_error_set(err, NCP_ERR_IO, "cannot write %s", path);
    return rc;
}

static void study_claims_head(const ncp_study_ctx *c, FILE *md)
{
    const ncp_study_config *cf = c->config;
    fprintf(md, "### %s: claims against ncpbench, configuration \"%s\"\n\n%s\n\nCommand: `%s`. "
            "Configuration `%s`: %s Parameters over the solvers' defaults:", c->s->title,
            cf->title, c->s->setup, c->cmd, cf->id, cf->why);
    if (cf->nsolvers == 0) fputs(" none", md);
    for (int i = 0; i < cf->nsolvers; i++) {
        fprintf(md, "%s `%s`", i ? ";" : "", cf->solvers[i].solver);
        const ncp_study_param *p = cf->solvers[i].params;
        for (int k = 0; k < NCP_STUDY_MAX_PARAMS && p[k].name; k++)
            fprintf(md, " %s = %g", p[k].name, p[k].value);
        fprintf(md, " (%s)", cf->solvers[i].source);
    }
    fputs(". Raw results: `runs.csv`, each run folder's `metrics.csv` and `traces.csv`; the "
          "claims' inputs: `claim_inputs.csv`; values and verdicts: `claims.csv`; the run's "
          "stamp (commit, dates, machine, load, BLAS, -j, quick or full): `../stamp.txt`.\n\n"
          "| id | where | paper's words | quantity | ours | verdict | rule |\n"
          "|---|---|---|---|---|---|---|\n", md);
}

int ncp_study_write_claims(const ncp_study_ctx *c, int counts[5], ncp_error *err)
{
    char pmd[4400], pcsv[4400], pin[4400];
    FILE *md = NULL, *csv = NULL, *in = NULL;
    int rc;
    if ((rc = study_open(c, "claims.md", &md, pmd, sizeof pmd, err)) ||
        (rc = study_open(c, "claims.csv", &csv, pcsv, sizeof pcsv, err)) ||
        (rc = study_open(c, "claim_inputs.csv", &in, pin, sizeof pin, err)))
        goto done;
    study_claims_head(c, md);
    fputs("config,claim,v0,v1,v2,verdict,yes,partly\n", csv);
    fputs("config,claim,input,value\n", in);
    printf("\n%s, configuration %s: claims\n", c->s->title, c->config->id);
    for (int i = 0; i < c->s->nclaims && !rc; i++) {
        const ncp_study_claim *k = &c->s->claims[i];
        ncp_study_claim_out out;
        memset(&out, 0, sizeof out);
        for (int j = 0; j < NCP_STUDY_MAX_VALUES; j++) out.v[j] = NAN;
        out.inputs = in;
        out.config = c->config->id;
        out.claim = k->id;
        if (!k->not_testable && !ncp_study_part_selected(c->o, k->part)) {
            out.not_run = 1; /* its part is not among --parts */
            snprintf(out.ours, sizeof out.ours, "part %s not run (--parts)", k->part);
        } else if (!k->not_testable && (rc = k->value(c, &out, err))) {
            break;
        }
        int v = out.not_run && !k->not_testable ? NCP_VERDICT_NOT_RUN
                : out.not_testable                  ? NCP_VERDICT_NOT_TESTABLE
                                                    : ncp_study_verdict(k, out.v);
        counts[v]++;
        fprintf(md, "| %s | %s | \"%s\" | %s | %s | %s | %s |\n", k->id, k->where, k->words,
                k->quantity, k->not_testable ? k->not_testable : out.ours,
                ncp_study_verdict_name(v), k->rule);
        fprintf(csv, "%s,%s,%.17g,%.17g,%.17g,%s,", c->config->id, k->id, out.v[0], out.v[1],
                out.v[2], ncp_study_verdict_name(v));
        study_conds_csv(csv, k->yes, k->nyes);
        fputc(',', csv);
        study_conds_csv(csv, k->partly, k->npartly);
        fputc('\n', csv);
        printf("  %-4s %-22s %s\n       ours: %s -> %s\n", k->id, k->where, k->words,
               k->not_testable ? k->not_testable : out.ours, ncp_study_verdict_name(v));
    }
    fprintf(md, "\nCount (this configuration alone): %d reproduced, %d partly, %d not "
            "reproduced, %d not testable, %d not run.\n", counts[0], counts[1], counts[2],
            counts[3], counts[4]);
done:
    rc = study_close(in, pin, rc, err);
    rc = study_close(csv, pcsv, rc, err);
    rc = study_close(md, pmd, rc, err);
    if (!rc) printf("claims: %s\n", pmd);
    return rc;
}
