/* Tasora et al. 2021 TEST 2 (the wrecking ball): the values of claims W1, W3, W4 from the runs'
 * final metrics (claims.c has the rules). */
#include <math.h>
#include <stdio.h>

#include "figures/tasora2021/tasora2021.h"
#include "solve/solver.h"

/* Final violation (ncp_dual) and natural map of `a` over those of `b`, into v[0], v[1]. */
static int t21_ratio(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *a,
                     const char *b)
{
    const ncp_study_result *ra = ncp_study_get(c, "fig8", a), *rb = ncp_study_get(c, "fig8", b);
    const ncp_study_result *r[2] = {ra, rb};
    const char *lab[2] = {a, b};
    double viol[2], nat[2];
    char name[128];
    for (int i = 0; i < 2; i++) {
        snprintf(name, sizeof name, "fig8/%s final violation", lab[i]);
        viol[i] = ncp_study_input(o, r[i], name, ncp_study_final(r[i], "ncp_dual"));
        snprintf(name, sizeof name, "fig8/%s final natural map", lab[i]);
        nat[i] = ncp_study_input(o, r[i], name, ncp_study_final(r[i], "natural_map_rel_acary"));
    }
    o->v[0] = viol[0] / viol[1];
    o->v[1] = nat[0] / nat[1];
    snprintf(o->ours, sizeof o->ours, "after %d and %d iterations: violation %.3g against %.3g "
             "m/s, natural map %.3g against %.3g", ra && ra->ran ? ra->iterations : 0,
             rb && rb->ran ? rb->iterations : 0, viol[0], viol[1], nat[0], nat[1]);
    return NCP_OK;
}

int t21_W1(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    return t21_ratio(c, o, "P-ADMM", "Jacobi");
}

int t21_W3(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    return t21_ratio(c, o, "P-ADMM", "ADMM");
}

int t21_W4(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    const ncp_study_result *r = ncp_study_get(c, "fig8", "P-ADMM");
    const ncp_study_capture_info *ci =
        ncp_study_part_capture(c, ncp_study_find_part(c->s, "fig8"));
    double nat = ncp_study_input(o, r, "fig8/P-ADMM final natural map",
                                 ncp_study_final(r, "natural_map_rel_acary"));
    o->v[0] = log10(nat / T21_T2_TOL);
    snprintf(o->ours, sizeof o->ours, "%d contacts, m = %d: P-ADMM %s after %d iterations, "
             "natural map %.3g", ci->ncontacts, ci->m,
             r && r->ran ? ncp_status_name(r->status) : "not run", r && r->ran ? r->iterations : 0,
             nat);
    return NCP_OK;
}
