/* Figure-set helpers (fig_util.h). */
#include "figures/fig_util.h"

#include <errno.h>
#include <string.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "bench/plot.h"
#include "scene/scene.h"
#include "solvers/registry.h"
#include "util/fsutil.h"
#include "util/safefile.h"

void ncp_fig_pipeline_opts(const ncp_fig_opts *o, const char *out_dir, ncp_pipeline_opts *po)
{
    ncp_pipeline_opts_default(po);
    po->seed = o->seed;
    po->quick = o->quick;
    po->jobs = o->jobs;
    po->figures = 0;
    po->progress = 0;
    po->quiet = 1;
    po->out_dir = out_dir;
    po->interrupt = o->interrupt;
    po->catalog = o->catalog;
    po->isolate = o->isolate;
}

int ncp_fig_run_scene(const char *scene, const ncp_pipeline_opts *po, int *interrupted,
                      ncp_error *err)
{
    *interrupted = 0;
    ncp_bench_summary *sum = ncp_calloc(err, 1, sizeof *sum); /* large: not on the stack */
    if (!sum) return NCP_ERR_NOMEM;
    int rc = ncp_pipeline_run_scene(scene, po, sum, NULL, 0, err);
    *interrupted = sum->interrupted;
    free(sum);
    return rc;
}

int ncp_fig_plot(const char *script, const char *dir, const char *title, const char *dat,
                 ncp_error *err)
{
    ncp_error perr = {0};
    int prc = ncp_plot_script(script, dir, title, &perr);
    if (prc == NCP_PLOT_SKIPPED) fprintf(stderr, "ncpbench: %s\n", perr.msg);
    else if (prc) return ncp_error_set(err, prc, "%s", perr.msg);
    printf("data: %s", dat);
    if (!prc) printf("; figures: %s.{png,svg} beside it", script);
    printf("\n");
    return NCP_OK;
}

/* ncp_perf_ratios and ncp_perf_rho: util/stats.c (the results tables of every run use them). */

int ncp_fig_scene_from_json(const cJSON *root, const char *path, ncp_scene **out,
                            ncp_error *err)
{
    char *text = root ? cJSON_PrintUnformatted(root) : NULL;
    if (!text) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory changing %s", path);
    int rc = ncp_scene_parse(text, path, ncp_registry_catalog(), out, err);
    free(text);
    return rc;
}
