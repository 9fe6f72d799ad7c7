/* Capture: simulates a scene and hands every captured problem to a sink. A trajectory
 * captures the steps k = skip + i * every (steps without constraint rows are skipped); a
 * cases scene captures single-step cases (cases_capture.h). The simulation is driven by the
 * scene's driver solver under the harness (driver.h). */
#ifndef NCP_CAPTURE_H
#define NCP_CAPTURE_H

#include <stdint.h>

#include "core/problem.h"
#include "scene/scene.h"

/* Called once per captured problem; the callee may keep nothing from p after returning (the
 * capture frees it). Return non-zero (with err set) to abort. */
typedef int (*ncp_capture_fn)(void *ctx, const ncp_problem *p, ncp_error *err);

typedef struct ncp_capture_opts {
    uint64_t seed;
    int quick;                 /* use bench.quick_steps */
    int steps;                 /* > 0 overrides the number of captured steps */
    const char *driver;        /* NULL = bench.driver */
    const volatile int *interrupt;
} ncp_capture_opts;

/* Simulates the scene and calls fn for every captured problem (problem names "000000", ...,
 * provenance filled). An interrupt stops before the next step and returns NCP_OK: every
 * problem handed to fn is complete. */
int ncp_capture_scene(const ncp_scene *s, const ncp_capture_opts *o, ncp_capture_fn fn,
                      void *ctx, ncp_error *err);

#endif
