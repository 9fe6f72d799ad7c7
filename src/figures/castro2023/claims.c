/* Castro et al. 2023: the claims, each with the paper's words and where they are (section and
 * paragraph, counted from the section's heading, figure captions and equations skipped; the
 * arXiv text has no page numbers), the quantity we measure and the rule, fixed before the run.
 * Thresholds the paper does not give are ours and say so. The values are computed in values.c;
 * the independent checker (tests/check_study_castro2023.py) holds its own copy of these rules
 * and fails when claims.csv states other thresholds.
 *
 * Changes against the earlier rules (results/REPORT.md, "Castro et al. 2023 (SAP)"), made in
 * this rewrite after the earlier results had been seen: C1 and C2 on the scene with walls
 * alone (Fig. 9's caption: "with walls"), C1 two-sided around the paper's 3; C3 "not testable"
 * (the paper compares SAP's time with the geodesic IPM's and Gurobi's on SAP's model; the
 * convex CCP solvers on the rigid relaxation are another problem); C4 on Fig. 13's quantity,
 * the mean e_m over the steps of each scaling point, evaluated by the sap_momentum metric at
 * v(lambda) (the earlier rig evaluated it at sap's own v); C7 and C16 two-sided around the
 * paper's factors 25, 50 and 10; C8 tests the crossover (faster up to 40 bodies, slower beyond
 * 80), not only the endpoints; "beyond 80" read as N > 80.
 *
 * Changes for an interior-point solver of SAP's model (19) (cvxopt's coneqp, scripts/ipm_sap.py),
 * fixed before the study's run with it (results/REPORT.md says what had been seen): C3 testable
 * against it (time per step within a factor 2, ours; more iterations for sap in the transient);
 * C7, C8 and C16 measure the speedup against it instead of the fastest convex CCP solver, with
 * the same bands; C17 and C18 are Fig. 13's e_m and e_mu of the paper's Gurobi, now measured for
 * the IPM (bands ours).
 *
 * C9-C15 ported from the earlier rig (fig_castro2023.c, removed) onto the study's sims and
 * traces, their rules reviewed against the paper's text before the study's run with them (the
 * rig's results had been seen, results/REPORT.md): C9 on the slope alone, the estimate's ratio
 * dropped (\"follows the slope\"); C10 on the mean iterations over every step (\"throughout
 * the simulation\", the rig: the last 20 steps) and a line in ln sigma (the rig: a monotone
 * rise); C12 at the last step (\"in the final configuration\", the rig: the mean over 20
 * steps) in both scenes; C13 two-sided around the paper's 0.16 %; C15 over both scenes (the
 * rig: without walls). C11 on e_m per iterate from the traces at the paper's step 60 (the rig: e_m at
 * sap's own v, at the step with the most iterations of the first half); its linear start
 * bounded above by 1 (a plateau is not linear convergence) after the first --quick run showed
 * e_m at v(lambda) flat at 1.00 for 13 of step 60's 17 iterations. */
#include <math.h>

#include "figures/castro2023/castro2023.h"

#define NB NAN         /* no bound */
#define ABOVE1 1.000001 /* "> 1" for ratios of times */
#define BELOW1 0.999999
#define BELOW0 -1e-12   /* "< 0" for slopes */
#define NONE {{0, 0, 0}}

const ncp_study_claim c23_claims[] = {
    {"C1", "fig9_sap", "§VI-C ¶2, Fig. 9 (40 bodies, walls)",
     "As the system reaches a steady state, however, SAP warm starts very effectively, "
     "performing only about 3 iterations per time step",
     "sap's mean Newton iterations per step over the last fifth of the 200 captured steps",
     {"mean iterations, last fifth", NULL, NULL}, 3.0,
     "yes: 2 <= mean <= 4 (the paper's 3, \"about\": +-1, ours); partly: 1.5 <= mean <= 6 "
     "(within a factor 2, ours); no: otherwise",
     1, {{0, 2, 4}}, 1, {{0, 1.5, 6}}, NULL, c23_C1},
    {"C2", "fig9_sap", "§VI-C ¶2, Fig. 9 (40 bodies, walls)",
     "We observe that SAP needs to perform a larger number of iterations during the very "
     "energetic initial transient",
     "sap's mean Newton iterations over the first fifth of the captured steps over the mean "
     "over the last fifth",
     {"first fifth / last fifth", NULL, NULL}, NAN,
     "yes: ratio > 1 (the paper gives no number); no: otherwise (no partly tier)",
     1, {{0, ABOVE1, NB}}, 0, NONE, NULL, c23_C2},
    {"C3", "fig9_sap", "§VI-C ¶2, Fig. 9",
     "Even though SAP necessities a larger number of iterations to converge than Geodesic IPM "
     "during this initial transient, the wall-clock time per time step is very similar",
     "sap's mean time per step over the 200 steps over the IPM's (cvxopt's coneqp on model 19, "
     "a primal-dual IPM, not the geodesic IPM; self-timed), and sap's mean iterations over the "
     "first fifth of the steps over the IPM's",
     {"time ratio sap / IPM", "iteration ratio, first fifth", NULL}, NAN,
     "yes: 0.5 <= time ratio <= 2 (\"very similar\": within a factor 2, ours) and iteration "
     "ratio > 1; partly: 0.5 <= time ratio <= 2; no: otherwise",
     2, {{0, 0.5, 2}, {1, ABOVE1, NB}}, 1, {{0, 0.5, 2}}, NULL, c23_C3},
    {"C4", "w200_sap", "§VI-C1 ¶6, Fig. 13",
     "SAP's momentum error is below 10^-5 as expected since this is the value used for the "
     "termination condition",
     "the mean over each scaling point's steps of sap's e_m (eq. 32, the sap_momentum metric "
     "at v(lambda)), the largest over N and both scenes",
     {"max over N of mean e_m", NULL, NULL}, 1e-5,
     "yes: <= 1e-5 (the paper's bound; a bound, not a value); partly: <= 1e-4 (a decade, "
     "ours); no: otherwise",
     1, {{0, NB, 1e-5}}, 1, {{0, NB, 1e-4}}, NULL, c23_C4},
    {"C5", "w200_sap", "§VI-C1 ¶5, Fig. 13",
     "Since SAP satisfies the complementarity slackness exactly, e_mu is not shown. We have "
     "verified this to be true within machine precision for all simulated cases",
     "the largest e_mu (eq. 33, the sap_compl metric) of sap's answers, Fig. 9's steps and "
     "every scaling point",
     {"max e_mu", NULL, NULL}, 0.0,
     "yes: <= 1e-10 (machine precision, relative to l_p: 1e6 eps, ours); no: otherwise (no "
     "partly tier)",
     1, {{0, NB, 1e-10}}, 0, NONE, NULL, c23_C5},
    {"C6", "n200_sap", "§VI-C1 ¶1, Fig. 11",
     "We observe a larger number of contacts for the configuration without walls since in "
     "this configuration many of the boxes spread over the ground",
     "contacts of the first kept step (10 steps before the end of the 10 s) per N, without "
     "walls against with walls",
     {"fraction of N with more contacts without walls", NULL, NULL}, NAN,
     "yes: more contacts without walls at every N; partly: at more than half of them (ours); "
     "no: otherwise",
     1, {{0, 1, 1}}, 1, {{0, 0.500001, 1}}, NULL, c23_C6},
    {"C7", "w200_sap", "§VI-C1 ¶3, Fig. 12",
     "For problems with less than about 40 bodies, SAP outperforms Gurobi significantly by up "
     "to a factor of 25 in the case with walls and up to a factor of 50 with no walls",
     "speedup of sap at N <= 40 against the IPM on model (19) (mean time per step: sap's setup "
     "+ solve, the IPM's self-timed solve; our substitute for Gurobi: cvxopt's coneqp)",
     {"max speedup walls", "max speedup no walls", "min speedup, both"}, 25.0,
     "yes: the maxima within a factor 3 of the paper's 25 and 50 (ours) and sap faster at "
     "every N <= 40; partly: sap faster at every N <= 40; no: otherwise",
     3, {{0, 25.0 / 3, 75}, {1, 50.0 / 3, 150}, {2, ABOVE1, NB}}, 1, {{2, ABOVE1, NB}}, NULL,
     c23_C7},
    {"C8", "w200_sap", "§VI-C1 ¶3, Fig. 12",
     "In general, we observe two regimes. For problems with less than about 40 bodies, SAP "
     "outperforms Gurobi significantly ... Beyond 80 bodies, Gurobi outperforms both SAP and "
     "Geodesic IPM in the case with walls",
     "with walls, speedup of sap against the IPM on model (19): its smallest at N <= 40, its "
     "largest at N > 80, and the speedup at the largest N over that at the smallest",
     {"min speedup N <= 40", "max speedup N > 80", "speedup(200) / speedup(8)"}, NAN,
     "yes: the crossover: sap faster at every N <= 40 and slower at every N > 80; partly: the "
     "speedup falls from the smallest N to the largest (ratio < 1) without that crossover; no: "
     "otherwise",
     2, {{0, ABOVE1, NB}, {1, 0, BELOW1}}, 1, {{2, 0, BELOW1}}, NULL, c23_C8},
    {"C16", "n200_sap", "§VI-C1 ¶3, Fig. 12",
     "but SAP is about 10 times faster for the case with no walls",
     "without walls, speedup of sap against the IPM on model (19) at N > 80 (\"Beyond 80 "
     "bodies\")",
     {"min speedup N > 80", "max speedup N > 80", NULL}, 10.0,
     "yes: every speedup within a factor 3 of the paper's 10 (ours); partly: sap faster at "
     "every N > 80; no: otherwise",
     2, {{0, 10.0 / 3, 30}, {1, 10.0 / 3, 30}}, 1, {{0, ABOVE1, NB}}, NULL, c23_C16},
    {"C17", "w200_sap", "§VI-C1 ¶6, Fig. 13",
     "Gurobi ... is the solver with the largest error in the momentum equations",
     "the IPM's mean e_m (eq. 32, sap_momentum at v(lambda)) against sap's, per scaling point "
     "(both scenes): the fraction of points where the IPM's is larger",
     {"fraction of N with IPM e_m > sap e_m", NULL, NULL}, NAN,
     "yes: at every point; partly: at more than half of them (ours); no: otherwise",
     1, {{0, 1, 1}}, 1, {{0, 0.500001, 1}}, NULL, c23_C17},
    {"C18", "w200_sap", "§VI-C1 ¶6, Fig. 13",
     "Gurobi does a good job at satisfying the complementarity slackness",
     "the IPM's mean e_mu (eq. 33, sap_compl) per scaling point, the largest over N and both "
     "scenes",
     {"max over N of mean e_mu", NULL, NULL}, NAN,
     "yes: <= 1e-5 (the level the paper gives the geodesic IPM's termination, \"below 10^-5\"; "
     "ours for this claim); partly: <= 1e-3 (ours); no: otherwise",
     1, {{0, NB, 1e-5}}, 1, {{0, NB, 1e-3}}, NULL, c23_C18},
    {"C9", "slip", "§VI-C2 ¶1, Fig. 14 (walls)",
     "In the case with walls where stiction helps to hold the steady state static "
     "configuration, we see that the mean slip velocity closely follows the slope of the slip "
     "estimate",
     "with walls: the log-log slope of the mean slip speed of the loaded contacts at the last "
     "step (10 s) against sigma, 1e-5 .. 1e-1 (the estimate sigma mu h g, eq. 31, has slope 1)",
     {"log-log slope of slip against sigma", NULL, NULL}, 1.0,
     "yes: 0.7 <= slope <= 1.3 (the estimate's 1 +- 0.3, ours); partly: 0.4 <= slope <= 1.6 "
     "(+- 0.6, ours); no: otherwise",
     1, {{0, 0.7, 1.3}}, 1, {{0, 0.4, 1.6}}, NULL, c23_C9},
    {"C10", "slip", "§VI-C2 ¶2, Fig. 15",
     "the mean number of Newton iterations is roughly proportional to ln(sigma)",
     "sap's mean Newton iterations over the steps of each sim against ln sigma (1e-5 .. 1e-1): "
     "r^2 of the least-squares line, with walls and without",
     {"r^2 walls", "r^2 no walls", NULL}, NAN,
     "yes: r^2 >= 0.81 in both scenes (|r| >= 0.9: \"roughly proportional\", ours); partly: "
     "r^2 >= 0.5 in both (ours); no: otherwise (constant iterations: no line, no)",
     2, {{0, 0.81, NB}, {1, 0.81, NB}}, 2, {{0, 0.5, NB}, {1, 0.5, NB}}, NULL, c23_C10},
    {"C11", "fig10", "§VI-C ¶3, Fig. 10",
     "At step 60 during the initial transient for which SAP requires 21 iterations to converge, "
     "we observe that the algorithm reaches quadratic convergence after an initial linear "
     "convergence transient",
     "at step 60 of the walls clutter (captured with steps 0, 5, .., 55 before it), "
     "e_m per iterate (the trace's sap_momentum; the paper plots the cost l_p, not a metric "
     "here): the ratio of the last iteration and the median ratio over the first half",
     {"e_m ratio, last iteration", "median e_m ratio, first half", "iterations"}, NAN,
     "yes: last ratio <= 1e-2 (quadratic tail, ours), 0.1 <= median ratio over the first half "
     "< 1 (a linear start: a steady reduction, not a plateau; ours) and >= 4 iterations; "
     "partly: the quadratic tail with >= 4 iterations; no: otherwise",
     3, {{0, NB, 1e-2}, {1, 0.1, BELOW1}, {2, 4, NB}}, 2, {{0, NB, 1e-2}, {2, 4, NB}}, NULL,
     c23_C11},
    {"C12", "slip", "§VI-C2 ¶2, Fig. 15",
     "We see that the condition number scales as sigma^-1",
     "the log-log slope of the 2-norm condition number of SAP's Hessian H = A + J^T G J at the "
     "last step (rebuilt from the model at sap's v, dsyev) against sigma, with walls and "
     "without",
     {"slope walls", "slope no walls", NULL}, -1.0,
     "yes: both slopes in [-1.3, -0.7] (the paper's -1 +- 0.3, ours); partly: both negative; "
     "no: otherwise",
     2, {{0, -1.3, -0.7}, {1, -1.3, -0.7}}, 2, {{0, NB, BELOW0}, {1, NB, BELOW0}}, NULL,
     c23_C12},
    {"C13", "cylinder", "§VI-B ¶4, Fig. 6 (spring-cylinder, mu = 1)",
     "The midpoint rule does not conserve energy exactly but it does significantly better, with "
     "a peak-to-peak variation of only 0.16%",
     "the spring-cylinder's energy over 10 periods at h 0.02 s: the midpoint rule's peak-to-peak "
     "variation (% of E0) and its ratio to the theta integrator's (implicit Euler; the "
     "symplectic Euler needs an explicit spring, which the scene format lacks)",
     {"midpoint peak-to-peak (%)", "midpoint / implicit Euler", NULL}, 0.16,
     "yes: 0.16/3 <= peak-to-peak <= 0.48 % (the paper's 0.16 % within a factor 3, ours) and "
     "the ratio <= 0.1 (\"significantly better\": a tenth, ours); partly: the ratio <= 0.1; no: "
     "otherwise",
     2, {{0, 0.16 / 3, 0.48}, {1, NB, 0.1}}, 1, {{1, NB, 0.1}}, NULL, c23_C13},
    {"C14", "cylinder", "§VI-B ¶5, Fig. 7 (spring-cylinder, mu = 1)",
     "We see that even with frictional contact, the two-stage approach with the midpoint rule "
     "achieves second order accuracy. Both the implicit Euler and the symplectic Euler scheme "
     "are first order",
     "the log-log slope of the position error e_q (over 5 s, --quick 1 s, against the midpoint "
     "rule at h 0.000625 / 8) over the three smallest of h = 0.02 .. 0.000625 s: midpoint and "
     "theta (implicit Euler)",
     {"slope midpoint", "slope implicit Euler", NULL}, 2.0,
     "yes: midpoint's slope in [1.7, 2.3] and implicit Euler's in [0.7, 1.3] (the orders 2 and "
     "1 +- 0.3, ours); partly: midpoint's alone; no: otherwise",
     2, {{0, 1.7, 2.3}, {1, 0.7, 1.3}}, 1, {{0, 1.7, 2.3}}, NULL, c23_C14},
    {"C15", "slip", "§VI-C2 ¶1, Fig. 14",
     "We see that the mean slip velocity remains below the estimated slip as expected in a "
     "static configuration with objects in stiction",
     "the mean slip speed of the loaded contacts at the last step against sigma mu h g (eq. 31) "
     "at every sigma, both scenes (the sentence precedes the paper's split into walls and no "
     "walls)",
     {"fraction of points with slip < estimate", NULL, NULL}, NAN,
     "yes: below at every point; partly: at more than half of them (ours); no: otherwise",
     1, {{0, 1, 1}}, 1, {{0, 0.500001, 1}}, NULL, c23_C15},
};

const int c23_nclaims = (int)(sizeof c23_claims / sizeof c23_claims[0]);
