/* `ncpbench figures`: regenerates the papers' figures and tables and the Dolan–Moré performance
 * profiles from fresh captures (docs/design.md). Each figure set lives in its own file and is
 * listed in the table in figures.c. */
#ifndef NCP_FIGURES_H
#define NCP_FIGURES_H

#include <stdio.h>

#include "scene/scene.h"
#include "solve/catalog.h"
#include "util/ncp_error.h"

/* Options every figure set receives. */
typedef struct ncp_fig_opts {
    const char *out_dir;   /* default results/figures; each set writes into out_dir/<set id>/ */
    int quick;             /* small sizes (CI) */
    int jobs;
    unsigned long long seed;
    const volatile int *interrupt;
    const char *scenes;    /* --scenes a,b: restrict the sets that sweep every shipped scene
                              (profiles) to these scene names; NULL = all */
    const char *parts;     /* --parts a,b: run only these parts of a paper's study (its part
                              ids, study.h); NULL = all */
    /* the solvers "every solver" means (profiles): the registry and the --plugin solvers;
     * NULL = the registry */
    const ncp_solver_catalog *catalog;
    int isolate; /* --isolate / --no-isolate: NCP_ISOLATE_* (bench/bench.h) for the sets that
                    solve through the pipeline (ncp_fig_pipeline_opts: the studies of
                    src/figures/study.h, profiles); 0 = the default, plugins isolated */
    /* --split-by LABEL: the profiles also split by a hardness label (bench/labels.h
     * ncp_labels_class); NULL = not split */
    const char *split_by;
} ncp_fig_opts;

/* Figure sets: one file and header each (fig_profiles.h, fig_tasora2021.h, ...), listed in
 * figures.c's table. */

/* The figure sets' ids and one-line descriptions (`ncpbench figures --help`). */
void ncp_figures_list(FILE *f);

/* Runs the sets named in want[0..nwant) (every set when all), in the table's order, with the
 * options o (read by the CLI, app/options.h); returns the process exit code (app/cli.h). */
int ncp_figures_run(const ncp_fig_opts *o, const char *const *want, int nwant, int all);

#endif
