/* Tasora et al. 2021 as a study (src/figures/study.h): the declaration (study.c), the claims
 * (claims.c, values_test1.c, values_test2.c) and the figures' reducer (curves.c). Internal to
 * this folder. */
#ifndef NCP_TASORA2021_H
#define NCP_TASORA2021_H

#include "figures/study.h"

#define T21_TOL 1e-10       /* TEST 1: natural_map_rel_acary, the "exact solution" */
#define T21_VIOL_LEVEL 1e-9 /* m/s: 1e-8 of h g, the velocity scale of TEST 1 */
#define T21_T2_TOL 1e-8     /* TEST 2: natural_map_rel_acary */

extern const ncp_study_claim t21_claims[];
extern const int t21_nclaims;

/* Iterations to the tolerance, or the part's budget + 1 when the run did not converge. */
double t21_cost(const ncp_study_ctx *c, const char *part, const ncp_study_result *r);
/* Violation of trace row k in m/s: TEST 1 max(0, -u_n) = penetration / h (phi = 0 at every
 * contact, which the capture checks); TEST 2 the ncp_dual metric. */
double t21_viol(const ncp_study_ctx *c, const char *part, const ncp_study_result *r, int k);
/* The first iteration from which the violation stays <= level to the end of the run, or the
 * budget + 1 when it never does (TEST 1 traces hold every iteration). */
double t21_viol_iter(const ncp_study_ctx *c, const char *part, const ncp_study_result *r,
                     double level);
/* "N" or "not in N (nat)" */
void t21_iters_text(const ncp_study_result *r, char *buf, size_t cap);

/* Claim reducers */
int t21_T1(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int t21_T2a(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int t21_T2b(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int t21_T3(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int t21_T4(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int t21_T5(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int t21_T6(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int t21_T7(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int t21_T8(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int t21_T9(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int t21_W1(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int t21_W3(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int t21_W4(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);

/* Part reducers: the iteration curves (.dat and figures); fig8 also time_per_step.dat. */
int t21_curves(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir,
               ncp_error *err);
int t21_fig8(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);

#endif
