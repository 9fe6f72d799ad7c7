/* Single-step case generation (Lee et al. 2025 §VII-A1, §VII-B1; docs/design.md): at N configurations
 * of the scene, capture the step's problem under M random external wrenches each, N x M cases.
 *
 * Configuration i (0-based) starts from the scene's initial state; then
 *   1. screw placement (optional): the screw body is turned by angle a_i about the screw axis
 *      (through `point`, direction `axis`) and moved by lead * a_i / 2 pi along it, with
 *      a_i = lo + (i + U) (hi - lo) / N (one stratified uniform draw per configuration), so a
 *      nut stays on the thread;
 *   2. noise: each listed body's centre of mass moves by a uniform draw in the ball of radius
 *      position_noise and its orientation turns by a uniform angle in [0, rotation_noise]
 *      about a uniformly random axis;
 *   3. settle: settle_steps steps are simulated with the scene's driver (contacts form);
 *   4. capture: the next step's problem is assembled once, and case j (0 <= j < M) adds to b
 *      the impulse h J_b^T (F; tau) of a wrench on every listed body, F and tau independent,
 *      each with a uniform direction on the sphere and magnitude uniform in [0, force m |g|]
 *      and [0, torque m |g| r_g] (r_g = sqrt(trace(I) / 2m), the body's radius of gyration).
 *      D does not change; v_f is recomputed. Every case carries the settled state as its
 *      guess (problem.h; sim/step.c): guess_v = the velocity after settling, guess_lambda =
 *      the last settle step's impulses matched to the case's rows (zeros with no settle step).
 * Case k = i M + j is problem "%06d" k with case_index k. Every random number comes from one
 * splitmix64 stream seeded by (seed, configuration), so the same seed gives the same cases.
 */
#ifndef NCP_CASES_CAPTURE_H
#define NCP_CASES_CAPTURE_H

#include "capture/capture.h"
#include "capture/driver.h"
#include "scene/scene.h"

/* Captures the cases (the first `ncases` of N x M in order), each configuration settled by the
 * driver d, and hands each case to fn. */
int ncp_cases_capture(const ncp_scene *s, const ncp_cases_cfg *cfg, const ncp_capture_opts *o,
                      const ncp_driver *d, int ncases, ncp_capture_fn fn, void *ctx,
                      ncp_error *err);

/* Adds the impulse h J_b^T (force; torque) of a wrench at body b's centre of mass to p->b and
 * recomputes v_f (exposed for tests). */
int ncp_cases_apply_wrench(const ncp_world *w, int body, const double force[3],
                           const double torque[3], ncp_problem *p, ncp_error *err);

#endif
