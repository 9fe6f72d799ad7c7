/* `ncpbench figures --paper castro2023`: Castro, Permenter, Han, "An Unconstrained Convex
 * Formulation of Compliant Contact" (SAP), IEEE T-RO 2023, §VI-C (the clutter: Figs. 9, 11, 12,
 * 13), declared as a study (src/figures/study.h).
 *
 * Scenes: scenes/castro-clutter.json (80 cm box: a floor and four walls; the quick variant
 * captures 3 steps): 40 bodies, spheres (r 5 cm, 0.524 kg) and 10 cm boxes (1 kg) in 4 columns,
 * mu 1, h 10 ms, 10 s, every 5th of the 1000 steps captured (200 problems), sap driving the
 * trajectory (the scene's rel_tol 1e-5). Drop heights and spacing are ours (the scene's
 * description says which). Scaling (§VI-C1): scenes.c.
 *
 * Solvers: sap, stopped by its own test (eq. 26) or 100 Newton iterations; the convex CCP
 * solvers admm, apgd, pgs-ccp, admm-ccp at natural_map_rel_acary <= 1e-4 or 200 iterations (100
 * with --quick), each started as the harness does by default (v0 = the step's initial
 * velocity, impulses zero). They solve the rigid CCP relaxation of the captured step, not SAP's
 * regularised model (19). The paper's references, Gurobi and the geodesic IPM, solved SAP's
 * model: ours is a primal-dual interior-point method on model (19), cvxopt's coneqp
 * (scripts/ipm_sap.py, an outside program graded by ncpbench grade: self-timed, the CPU time of
 * its solve), the reference of the speedups (C7, C8, C16), of C3 and of Fig. 13's errors.
 *
 * Fig. 10 (§VI-C ¶3): sap on the walls clutter's steps 0, 5, ..., 60 with every iterate traced
 * (part fig10; e_m per iterate at step 60: newton.c). Simulations (study.h ncp_study_sim, sims.c): the slip sweep (§VI-C2, Figs.
 * 14-15: the clutter with and without walls, sap driving with sigma 1e-5 .. 1e-1 under the
 * scene's per-step budget, 10 s; slip.c) and the spring-cylinder (§VI-B, Figs. 6-7: sap driving
 * at rel_tol 1e-10, the theta integrator and the midpoint rule; cylinder.c).
 *
 * Configurations: "paper" (sap's settings as §IV-E, §V and §VI-C state them) first,
 * "defaults" (the solvers as registered) second; each has its own claims and count. */
#include "bench/bench.h"

#include "figures/castro2023/castro2023.h"
#include "figures/fig_castro2023.h"

const int c23_scale_n[C23_NSCALE] = {8, 16, 24, 32, 40, 80, 120, 160, 200};

#define W "castro-clutter-200.json"
#define NW "castro-clutter-nowalls-200.json"
#define SC(id, file, n) {id, file, NULL, 0, 0, 0, 0, NULL, c23_scale_scene, n}
static const ncp_study_capture c23_captures[] = {
    {"walls", "castro-clutter.json", NULL, 0, 0, 0, 0, NULL, NULL, 0},
    {"newton", "castro-clutter.json", NULL, 0, 0, 0, 0, NULL, c23_newton_scene, 0},
    SC("w008", W, 8), SC("w016", W, 16), SC("w024", W, 24), SC("w032", W, 32),
    SC("w040", W, 40), SC("w080", W, 80), SC("w120", W, 120), SC("w160", W, 160),
    SC("w200", W, 200),
    SC("n008", NW, 8), SC("n016", NW, 16), SC("n024", NW, 24), SC("n032", NW, 32),
    SC("n040", NW, 40), SC("n080", NW, 80), SC("n120", NW, 120), SC("n160", NW, 160),
    SC("n200", NW, 200),
};

/* sap: eq. 26 alone stops it (tol 0), 100 Newton iterations at most; the convex solvers:
 * natural_map_rel_acary <= 1e-4, 200 iterations (100 quick); the log sample of the traces. */
#define B_SAP {0.0, 100, 100, 0.0, NULL, 0, NCP_WARM_VELOCITY}
#define B_CCP {1e-4, 200, 100, 0.0, NULL, 0, NCP_WARM_VELOCITY}
/* Fig. 10: every iterate traced (the Newton curves). */
#define B_NEWTON {0.0, 100, 100, 0.0, NULL, 1, NCP_WARM_VELOCITY}
#define SP(cap, red) {cap "_sap", "Castro et al. 2023 Fig. 12, " cap ": sap and the IPM", cap, \
    B_SAP, red}, \
    {cap "_ccp", "Castro et al. 2023 Fig. 12, " cap ": the convex solvers", cap, B_CCP, NULL}
static const ncp_study_part c23_parts[] = {
    {"fig9_sap", "Castro et al. 2023 Fig. 9: clutter, 40 bodies, walls: sap and the IPM", "walls",
     B_SAP, c23_fig9},
    {"fig9_ccp", "Castro et al. 2023 Fig. 9: clutter, 40 bodies, walls: the convex solvers",
     "walls", B_CCP, NULL},
    SP("w008", NULL), SP("w016", NULL), SP("w024", NULL), SP("w032", NULL), SP("w040", NULL),
    SP("w080", NULL), SP("w120", NULL), SP("w160", NULL), SP("w200", c23_scaling),
    SP("n008", NULL), SP("n016", NULL), SP("n024", NULL), SP("n032", NULL), SP("n040", NULL),
    SP("n080", NULL), SP("n120", NULL), SP("n160", NULL), SP("n200", c23_scaling),
    {"fig10", "Castro et al. 2023 Fig. 10: sap's e_m per Newton iteration (clutter, walls)",
     "newton", B_NEWTON, c23_fig10},
    /* sims alone (no capture); their budget is the scene's (the sims' scene_budget) */
    {"slip", "Castro et al. 2023 Figs. 14-15: slip velocity, Newton iterations and the "
     "Hessian's condition number against sigma", NULL, B_SAP, c23_fig14},
    {"cylinder", "Castro et al. 2023 Figs. 6-7: spring-cylinder energy and position error", NULL,
     B_SAP, c23_fig6},
};

/* The IPM: model (19) by cvxopt's coneqp (scripts/ipm_sap.py: relative gap and residuals <=
 * 1e-8, Gurobi's default BarConvTol; CPU time of the solve, self-timed), graded in sap's part. */
#define IPM_PROGRAM "scripts/ipm_sap.py"
#define P0 {{NULL, 0}}
#define SPARSE {{"sparse", 1}, {NULL, 0}}
#define CCP(part) {part, "admm", "admm", P0, NULL}, {part, "apgd", "apgd", P0, NULL}, \
    {part, "pgs-ccp", "pgs-ccp", P0, NULL}, {part, "admm-ccp", "admm-ccp", P0, NULL}
#define IPM(part) {part, C23_IPM, C23_IPM, P0, IPM_PROGRAM}
#define RN(cap) {cap "_sap", "sap", "sap", SPARSE, NULL}, IPM(cap "_sap"), CCP(cap "_ccp")
static const ncp_study_run c23_runs[] = {
    {"fig9_sap", "sap", "sap", P0, NULL}, IPM("fig9_sap"), CCP("fig9_ccp"),
    RN("w008"), RN("w016"), RN("w024"), RN("w032"), RN("w040"),
    RN("w080"), RN("w120"), RN("w160"), RN("w200"),
    RN("n008"), RN("n016"), RN("n024"), RN("n032"), RN("n040"),
    RN("n080"), RN("n120"), RN("n160"), RN("n200"),
    {"fig10", "sap", "sap", P0, NULL},
};

/* The slip sweep: sap drives each sim with its sigma (its own parameter, over the
 * configuration's sigma 1e-3) under the scene's per-step budget, the scene's 10 s (--quick:
 * 60 steps of 8 bodies). The cylinder: sap at the scene's rel_tol 1e-10 in both configurations
 * (its error below the integrator's: the paper's clutter epsilon_r is not the cylinder's). */
#define SL(w, file, s) {"slip", w "_" #s, file, NULL, c23_slip_scene, s, NULL, "sap", \
    {{"sigma", s}}, 1, 0, C23_SLIP_STEPS_QUICK, &c23_slip_observer}
#define SLIPS(w, file) SL(w, file, 1e-05), SL(w, file, 0.0001), SL(w, file, 0.001), \
    SL(w, file, 0.01), SL(w, file, 0.1)
#define CYL "castro-spring-cylinder.json"
#define RT {{"rel_tol", 1e-10}}
#define CE(in) {"cylinder", "energy_" in, CYL, NULL, c23_cyl_energy_scene, C23_CYL_H, in, "sap", \
    RT, 1, 0, 0, &c23_cyl_observer}
#define CO(in, j, h) {"cylinder", in "_" #j, CYL, NULL, c23_cyl_order_scene, h, in, "sap", RT, 1, \
    0, 0, &c23_cyl_observer}
#define COS(in) CO(in, 1, 0.02), CO(in, 2, 0.01), CO(in, 3, 0.005), CO(in, 4, 0.0025), \
    CO(in, 5, 0.00125), CO(in, 6, 0.000625)
static const ncp_study_sim c23_sims[] = {
    SLIPS("walls", "castro-clutter.json"), SLIPS("nowalls", "castro-clutter-nowalls.json"),
    CE("theta"), CE("midpoint"),
    {"cylinder", "ref", CYL, NULL, c23_cyl_order_scene, 0.000625 / C23_CYL_REF, "midpoint", "sap",
     RT, 1, 0, 0, &c23_cyl_observer},
    COS("theta"), COS("midpoint"),
};

/* The paper's stated settings of sap; the convex solvers are not in the paper (their defaults
 * in both configurations). */
static const ncp_study_solver_params c23_paper_solvers[] = {
    {"sap", {{"rel_tol", 1e-5}, {"abs_tol", 1e-16}, {"sigma", 1e-3}, {"beta", 1.0}},
     "§VI-C1 ¶6 (Fig. 13) \"SAP's momentum error is below 10^-5 as expected since this is the "
     "value used for the termination condition\" (epsilon_r); §IV-E \"epsilon_a = 10^-16\"; §V "
     "\"In all of our simulations, we use sigma = 10^-3\"; §V \"Taking beta = 1.0\" (the "
     "near-rigid regime, eq. 29)"},
};

static const ncp_study_config c23_configs[] = {
    {"paper", "the paper's stated settings",
     "sap's epsilon_r = 1e-5, epsilon_a = 1e-16, sigma = 1e-3, beta = 1 as the paper states "
     "them; the trajectory is driven by sap with the scene's rel_tol 1e-5 in both "
     "configurations (the captures are shared).",
     c23_paper_solvers, 1},
    {"defaults", "our defaults",
     "the solvers as registered: sap's epsilon_r = 1e-6 (ours), the rest as the paper.", NULL, 0},
};

static const ncp_study c23_study = {
    "castro2023", "Castro et al. 2023 (SAP)",
    "Castro, Permenter, Han, IEEE Transactions on Robotics 39(2) 2023",
    "§VI-C clutter: `scenes/castro-clutter.json` (40 bodies with walls, h 10 ms, 10 s, every 5th "
    "of the 1000 steps: 200 problems; 3 with --quick) for Fig. 9; scaling (Figs. 11-13): "
    "`castro-clutter-200.json` / `castro-clutter-nowalls-200.json` truncated to N = 8 .. 200 "
    "bodies, 10 s simulated, the last 10 steps solved (--quick: N = 8 at every point, 0.6 s, "
    "3 steps). sap stops by eq. 26 (at most 100 Newton iterations), the convex CCP solvers "
    "(admm, apgd, pgs-ccp, admm-ccp) at natural_map_rel_acary <= 1e-4 or 200 iterations; v0 = "
    "the step's initial velocity. The speedups and Fig. 13's errors are against an interior-point "
    "solver of SAP's model (19), cvxopt's coneqp (scripts/ipm_sap.py: relative gap and residuals "
    "<= 1e-8; self-timed, the CPU time of its solve without the model's set-up, as the paper's "
    "Gurobi times), not against Gurobi; the convex CCP solvers' speedups are in Fig. 12's .dat. "
    "Fig. 10: sap on the walls clutter's steps 0, 5, ..., 60 (also with --quick) with every "
    "iterate traced, e_m (eq. 32 at v(lambda)) per iterate at step 60 (the paper plots the "
    "cost, not a metric here). Slip sweep (Figs. 14-15): sims of the clutter with and without walls, sap "
    "driving with sigma 1e-5 .. 1e-1, 10 s (--quick: 8 bodies, 0.6 s): slip of the loaded "
    "contacts and the Hessian's condition number at the last step, mean Newton iterations over "
    "the steps. Spring-cylinder (§VI-B, Figs. 6-7, `scenes/castro-spring-cylinder.json`): sims "
    "with sap at rel_tol 1e-10, energy over 10 periods at h 0.02 s (theta: implicit Euler; "
    "midpoint), e_q over 5 s (--quick: 1 s) against the midpoint rule at h 0.000625 / 8. Data: "
    "`fig9_sap/`, `w200_sap/`, `n200_sap/`, `fig10/`, `slip/`, `cylinder/` (`.dat`); the sims' "
    "`steps.csv` in `slip-*/`, `cylinder-*/`.",
    c23_captures, (int)(sizeof c23_captures / sizeof c23_captures[0]),
    c23_parts, (int)(sizeof c23_parts / sizeof c23_parts[0]),
    c23_runs, (int)(sizeof c23_runs / sizeof c23_runs[0]),
    c23_configs, (int)(sizeof c23_configs / sizeof c23_configs[0]),
    c23_claims, 0, /* set below: c23_nclaims is not a constant expression */
    c23_sims, (int)(sizeof c23_sims / sizeof c23_sims[0])
};

int ncp_fig_castro2023(const ncp_fig_opts *o, ncp_error *err)
{
    ncp_study s = c23_study;
    s.nclaims = c23_nclaims;
    return ncp_study_reproduce(&s, o, err);
}
