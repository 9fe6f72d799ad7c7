/* Trajectory capture and the dispatch to cases (capture.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "capture/cases_capture.h"
#include "capture/driver.h"
#include "sim/step.h"

typedef struct capture_ctx {
    const ncp_scene *scene;
    const ncp_capture_opts *opts;
    const char *driver;
    ncp_capture_fn fn;
    void *user;
    int captured;
} capture_ctx;

static int capture_hook(void *vctx, ncp_problem *p, ncp_error *err)
{
    capture_ctx *c = vctx;
    char name[32];
    snprintf(name, sizeof name, "%06d", c->captured);
    free(p->name);
    free(p->scene);
    p->name = ncp_strdup(err, name);
    p->scene = ncp_strdup(err, ncp_scene_name(c->scene));
    if (!p->name || !p->scene) return NCP_ERR_NOMEM;
    p->seed = c->opts->seed;
    p->case_index = -1;
    int rc = c->fn(c->user, p, err);
    if (rc) return rc;
    c->captured++;
    return NCP_OK;
}

int ncp_capture_scene(const ncp_scene *s, const ncp_capture_opts *o, ncp_capture_fn fn,
                      void *ctx, ncp_error *err)
{
    const ncp_bench_cfg *bc = ncp_scene_bench(s);
    ncp_driver drv;
    int rc = ncp_driver_for_scene(s, o->driver, o->interrupt, &drv, err);
    if (rc) return rc;
    int ncap = o->steps > 0 ? o->steps : (o->quick ? bc->quick_steps : bc->steps);
    /* the predicted peak memory against the budget, before the first allocation it sizes */
    if ((rc = ncp_scene_check_memory_driven(s, drv.solver, err))) return rc;
    if (strcmp(bc->capture, "cases") == 0) /* single-step cases */
        return ncp_cases_capture(s, ncp_scene_cases(s), o, &drv, ncap, fn, ctx, err);
    if (strcmp(bc->capture, "trajectory") != 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "scene %s: capture \"%s\" is not supported",
                             ncp_scene_name(s), bc->capture);
    ncp_world *w = NULL;
    rc = ncp_world_create(ncp_scene_model(s), &w, err);
    if (rc) return rc;
    ncp_step_opts so;
    ncp_driver_step_opts(&drv, 1, &so);
    capture_ctx cc = {s, o, drv.solver->name, fn, ctx, 0};
    /* Candidate steps are k = skip + i * every, i < ncap; a candidate without constraint rows
     * has no problem and is skipped (names stay consecutive over the captured problems). The
     * seed only enters the provenance: the trajectory draws no random numbers.
     * An interrupt stops before the next step (or abandons the step whose driver solve it cut
     * short) and returns NCP_OK: every problem handed to fn is complete, and the caller, who
     * raised the flag, knows the run is partial. */
    long last = (long)bc->skip + (long)(ncap - 1) * bc->every;
    for (long k = 0; k <= last && !rc; k++) {
        if (o->interrupt && *o->interrupt) break;
        int cand = k >= bc->skip && (k - bc->skip) % bc->every == 0;
        ncp_step_info info;
        rc = ncp_world_step(w, &so, cand ? capture_hook : NULL, &cc, &info, err);
        if (!rc && info.interrupted) break;
    }
    if (rc) ncp_error_prefix(err, "scene %s: ", ncp_scene_name(s));
    ncp_world_free(w);
    return rc;
}
