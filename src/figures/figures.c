/* `ncpbench figures` (figures.h): a table of figure sets, each a function in its own file
 * (fig_*.c) that captures what it needs, runs the solvers, writes data files and gnuplot
 * figures into the output directory and prints the paper's claim beside our number. Its
 * options are read by the CLI's one parser (app/options.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "figures/fig_castro2023.h"
#include "figures/fig_lee2025.h"
#include "figures/fig_ncpreport2025.h"
#include "figures/fig_profiles.h"
#include "figures/fig_tasora2021.h"
#include "figures/figures.h"
#include "util/ncp_error.h"
#include "util/strdist.h"

typedef struct ncp_fig_set {
    const char *id;        /* the paper's key (docs/references.md) or "profiles" */
    const char *what;      /* one line for --help */
    int (*run)(const ncp_fig_opts *o, ncp_error *err);
} ncp_fig_set;

/* Figure sets register here (one line each). */
static const ncp_fig_set fig_sets[] = {
    {"profiles", "Dolan-More performance profiles: every solver on every shipped scene's captures",
     ncp_fig_profiles},
    {"tasora2021", "Tasora et al. 2021 TEST 1 (Figs. 2-6: ADMM n_s, FADMM rho, Jacobi, P-SPG-FB) and TEST 2 (the wrecking ball, Fig. 8)",
     ncp_fig_tasora2021},
    {"lee2025", "Lee et al. 2025 §VII as a study: Figs. 7, 9, 11 (CANAL, SubADMM, PGS), Tables II, III (the AL and ADMM ablations), the three tasks (§VII-A2, B2, C)",
     ncp_fig_lee2025},
    {"ncpreport2025", "NCP report 2025 §VII as a study: Table I's solvers (and ours) on its suite (Table II), the accuracy metrics of §VII-D, time against accuracy",
     ncp_fig_ncpreport2025},
    {"castro2023", "Castro et al. 2023 (SAP) §VI-B, §VI-C as a study (Figs. 6-7, 9-15: the spring-cylinder, sap against an IPM and the convex solvers, scaling to 200 bodies, the slip sweep)",
     ncp_fig_castro2023},
    {NULL, NULL, NULL},
};

void ncp_figures_list(FILE *f)
{
    fprintf(f, "\nFigure sets:\n");
    int n = 0;
    for (const ncp_fig_set *s = fig_sets; s->id; s++, n++)
        fprintf(f, "  %-14s %s\n", s->id, s->what);
    if (n == 0) fprintf(f, "  (none registered)\n");
}

int ncp_figures_run(const ncp_fig_opts *o, const char *const *want, int nwant, int all)
{
    const volatile int *interrupt = o->interrupt;
    if (!all && nwant == 0) {
        fprintf(stderr, "ncpbench figures: name a figure set: --paper KEY, --profiles or --all "
                        "(see `ncpbench figures --help`)\n");
        return 2;
    }
    for (int k = 0; k < nwant; k++) {
        int found = 0;
        const char *ids[32];
        int nids = 0;
        for (const ncp_fig_set *s = fig_sets; s->id; s++) {
            found |= !strcmp(s->id, want[k]);
            if (nids < 32) ids[nids++] = s->id;
        }
        if (!found) {
            const char *near = ncp_closest_name(want[k], ids, nids);
            fprintf(stderr, "ncpbench figures: unknown figure set '%s'%s%s%s\n", want[k],
                    near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
            ncp_figures_list(stderr);
            return 2;
        }
    }
    for (const ncp_fig_set *s = fig_sets; s->id; s++) {
        int sel = all;
        for (int k = 0; k < nwant; k++) sel |= !strcmp(s->id, want[k]);
        if (!sel) continue;
        ncp_error err = {0};
        if (s->run(o, &err)) {
            fprintf(stderr, "ncpbench figures %s: %s\n", s->id, err.msg);
            return err.code == NCP_ERR_INPUT ? 2 : 3;
        }
        if (interrupt && *interrupt) return 130;
    }
    return 0;
}
