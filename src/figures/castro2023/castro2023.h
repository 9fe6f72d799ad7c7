/* Castro, Permenter, Han 2023 (SAP) as a study (src/figures/study.h): the declaration
 * (study.c), the scaling scenes (scenes.c), the claims (claims.c), their values (values.c) and
 * the figures' data (figures.c). Internal to this folder. */
#ifndef NCP_CASTRO2023_H
#define NCP_CASTRO2023_H

#include "figures/study.h"

/* The scaling body counts (Fig. 12's axis, 4 columns of N/4); --quick: 8 bodies at every one. */
enum { C23_NSCALE = 9 };
extern const int c23_scale_n[C23_NSCALE];
#define C23_SMALL_N 40 /* "less than about 40 bodies" (§VI-C1 ¶3) */
#define C23_BIG_N 80   /* "Beyond 80 bodies" (§VI-C1 ¶3) */
#define C23_QUICK_N 8

extern const ncp_study_claim c23_claims[];
extern const int c23_nclaims;

/* The scene at path changed for a part: the first nbody dynamic bodies (0: all), sap.sigma (0:
 * the scene's) and sap.sparse (< 0: the scene's), the capture steps skip + i every, i < steps
 * (every 0: the scene's) with the duration just long enough, the name + suffix. */
int c23_scene_variant(const char *path, int nbody, double sigma, int sparse, int skip,
                      int every, int steps, const char *suffix, struct ncp_scene **out,
                      ncp_error *err);
/* The scaling capture of N bodies (cp->arg; 8 with --quick), with walls or not (cp->scene),
 * the last 10 of the paper's 10 s (--quick: 3 of 0.6 s), sap's Newton matrix sparse. */
int c23_scale_scene(const ncp_study_capture *cp, const ncp_fig_opts *o, const char *path,
                    struct ncp_scene **out, ncp_error *err);

/* Fig. 10's capture: the walls clutter's steps 0, 5, ..., 60 (the paper's step 60 last), with
 * and without --quick. */
int c23_newton_scene(const ncp_study_capture *cp, const ncp_fig_opts *o, const char *path,
                     struct ncp_scene **out, ncp_error *err);

/* Part ids: "w008_sap" / "n120_ccp" (walls or not, N, sap or the convex solvers). */
void c23_part_id(char *buf, size_t cap, int walls, int n, int sap);
/* Bodies of scaling point k in this run (8 with --quick). */
int c23_bodies(const ncp_study_ctx *c, int k);
/* Mean time per step (setup + solve, ms) of a run over its capture's problems; NAN when it did
 * not run. Records each solve's time as an input. */
double c23_mean_ms(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *part,
                   const char *label);
/* The interior-point solver of SAP's model (19): scripts/ipm_sap.py (cvxopt's coneqp), graded
 * under this name in sap's parts (Castro et al. 2023 compare with Gurobi on model 19). */
#define C23_IPM "coneqp"
/* Speedup of sap at scaling point k: the IPM's mean time per step over sap's (the paper's
 * Fig. 12: "the ratio of the wall-clock time spent by a solver to the wall-clock time reported
 * by Gurobi", inverted to read as sap's speedup). */
double c23_speedup(const ncp_study_ctx *c, ncp_study_claim_out *o, int walls, int k);
/* The same against the fastest convex CCP solver (the rigid relaxation; Fig. 12's .dat). */
double c23_speedup_ccp(const ncp_study_ctx *c, ncp_study_claim_out *o, int walls, int k);
/* Mean of metrics column col over each scaling point's steps, of run label in sap's parts:
 * out[walls][k] (NAN where it did not run, which marks o not run). Fig. 13's e_m and e_mu
 * (sap_momentum, sap_compl): C4, C17, C18 and the figure's .dat (figures.c). */
void c23_scale_means(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *label,
                     const char *col, double out[2][C23_NSCALE]);

/* ---- simulations (sims.c) ---- */

/* The slip sweep (§VI-C2, Figs. 14-15): sigma 1e-5 .. 1e-1, walls and no walls, 40 bodies, the
 * scene's 10 s (--quick: 8 bodies, 0.6 s); the mean Newton iterations over every step ("the
 * mean number of Newton iterations throughout the simulation"), the slip and the Hessian's
 * condition number at the last step (the steady state, "the final configuration"). */
enum { C23_NSIG = 5, C23_SLIP_STEPS_QUICK = 60 };
extern const double c23_sigma[C23_NSIG];
#define C23_G 9.81
/* The sim's scene: the clutter with sap's sigma = sm->arg (8 bodies with --quick). */
int c23_slip_scene(const ncp_study_sim *sm, const ncp_fig_opts *o, const char *path,
                   struct ncp_scene **out, ncp_error *err);
/* Per step: slip, loaded, mu (after each solve); cond at the last step. */
extern const ncp_study_observer c23_slip_observer;
/* Label of slip point (walls, k): "walls_1e-05" / "nowalls_1e-05" (labels of c23_sims). */
void c23_slip_label(char *buf, size_t cap, int walls, int k);

/* The spring-cylinder (§VI-B, Figs. 6-7): energy over C23_CYL_PERIODS periods at h = 0.02 s
 * for the theta integrator (implicit Euler) and the midpoint rule; the position error e_q over
 * T (5 s, quick 1 s) against the midpoint rule at the smallest h / C23_CYL_REF, at C23_NDT
 * steps h, the slopes fitted over the C23_CYL_NFIT smallest. */
#define C23_CYL_PERIOD 0.544 /* 2 pi sqrt(m_eff / k_s) = 2 pi sqrt(0.75 / 100), the scene's */
#define C23_CYL_PERIODS 10
#define C23_CYL_H 0.02
#define C23_CYL_T 5.0
#define C23_CYL_T_QUICK 1.0
#define C23_CYL_REF 8
enum { C23_NDT = 6, C23_CYL_NFIT = 3 };
extern const double c23_cyl_dt[C23_NDT];
int c23_cyl_energy_scene(const ncp_study_sim *sm, const ncp_fig_opts *o, const char *path,
                         struct ncp_scene **out, ncp_error *err);
int c23_cyl_order_scene(const ncp_study_sim *sm, const ncp_fig_opts *o, const char *path,
                        struct ncp_scene **out, ncp_error *err);
/* Per step: x, spring, contact (energies, J). */
extern const ncp_study_observer c23_cyl_observer;


/* Claim reducers */
int c23_C1(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C2(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C3(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C4(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C5(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C6(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C7(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C8(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C16(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C17(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C18(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C9(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C10(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C11(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C12(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C13(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C14(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int c23_C15(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);

/* Part reducers: Fig. 9 (per step iterations and time) and Fig. 12 (speedup per N). */
int c23_fig9(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);
int c23_fig12(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);
/* Fig. 13 (per N, the mean e_m and e_mu of sap and the IPM; fig.md: what differs from the
 * paper's). Figs. 11-13 together: the reducer of parts w200_sap and n200_sap. */
int c23_fig13(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);
int c23_scaling(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);
/* Fig. 10 (e_m per Newton iteration), Figs. 14-15 (the slip sweep), Figs. 6-7 (the cylinder). */
int c23_fig10(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);
int c23_fig14(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);
int c23_fig6(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);
/* "%s" data file dir/name opened for writing (NULL, err set, on failure) and closed. */

#endif
