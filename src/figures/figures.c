/* `ncpbench figures` (figures.h): a table of figure sets, each a function in its own file
 * (fig_*.c) that captures what it needs, runs the solvers, writes data files and gnuplot
 * figures into the output directory and prints the paper's claim beside our number. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures/fig_castro2023.h"
#include "figures/fig_lee2025.h"
#include "figures/fig_ncpreport2025.h"
#include "figures/fig_profiles.h"
#include "figures/fig_tasora2021.h"
#include "figures/figures.h"
#include "solve/plugin_load.h"
#include "solvers/registry.h"
#include "util/fsutil.h"
#include "util/ncp_error.h"

#define NCP_FIG_MAX_PLUGINS 64

typedef struct ncp_fig_set {
    const char *id;        /* the paper's key (docs/references.md) or "profiles" */
    const char *what;      /* one line for --help */
    int (*run)(const ncp_fig_opts *o, ncp_error *err);
    int takes_params;      /* honours --param (ncp_fig_opts.params) */
} ncp_fig_set;

/* Figure sets register here (one line each). */
static const ncp_fig_set fig_sets[] = {
    {"profiles", "Dolan-More performance profiles: every solver on every shipped scene's captures",
     ncp_fig_profiles, 0},
    {"tasora2021", "Tasora et al. 2021 TEST 1 (Figs. 2-6: ADMM n_s, FADMM rho, Jacobi, P-SPG-FB) and TEST 2 (the wrecking ball, Fig. 8)",
     ncp_fig_tasora2021, 0},
    {"lee2025", "Lee et al. 2025 §VII: Fig. 7, 9, 11, Tables II, III (CANAL, SubADMM, PGS, ablations)",
     ncp_fig_lee2025, 1},
    {"ncpreport2025", "NCP report 2025 §VII-D: accuracy metrics (r_pen, r_dual, r_ncp, r_nat) over its suite scenes",
     ncp_fig_ncpreport2025, 0},
    {"castro2023", "Castro et al. 2023 (SAP) §VI-C clutter (Figs. 9-15: sap against the convex solvers, scaling, slip) and §VI-B spring-cylinder (Figs. 6-7)",
     ncp_fig_castro2023, 0},
    {NULL, NULL, NULL, 0},
};

static void usage(FILE *f)
{
    fprintf(f, "Usage: ncpbench figures [--paper KEY]... [--profiles] [--all] [--out DIR] [--quick]\n"
               "                        [--seed N] [-j N] [--scenes A,B] [--parts A,B]\n"
               "                        [--plugin FILE.so]... [--param SOLVER.NAME=VALUE]...\n\n"
               "Regenerates figures and tables from fresh captures into --out (default\n"
               "results/figures). Figure sets:\n");
    int n = 0;
    for (const ncp_fig_set *s = fig_sets; s->id; s++, n++)
        fprintf(f, "  %-14s %s\n", s->id, s->what);
    if (n == 0) fprintf(f, "  (none registered)\n");
    fprintf(f, "--scenes A,B restricts the profiles to those shipped scenes (names without .json).\n"
               "--parts A,B runs only those parts of a paper's set (lee2025: fig7, fig9, fig11,\n"
               "table2, table3, tasks; table2 also runs fig9, whose captures it reads); the\n"
               "claims table then holds only their claims.\n"
               "--plugin FILE.so (repeatable; also $%s, colon-separated) adds a plugin's\n"
               "solvers to \"every solver\" of the profiles (docs/plugins.md).\n"
               "--param SOLVER.NAME=VALUE (repeatable) sets a solver parameter for every solve\n"
               "of that solver in the set, on top of the set's own (lee2025 only; its outputs\n"
               "list them), e.g. the paper's settings: scripts/bench_lee2025.sh --paper.\n",
            NCP_PLUGINS_ENV);
}

/* The --plugin files and $NCPBENCH_PLUGINS's, loaded on top of the registry (as the CLI does
 * for run and solve); *pl stays NULL when there are none. */
static int load_plugins(const char **paths, int n, char *envbuf, size_t envsize,
                        ncp_plugins **pl, ncp_error *err)
{
    const char *env = getenv(NCP_PLUGINS_ENV);
    if (env && *env) {
        int k = ncp_plugins_split(env, envbuf, envsize, paths + n, NCP_FIG_MAX_PLUGINS - n);
        if (k < 0)
            return ncp_error_set(err, NCP_ERR_INPUT, "$%s is too long or names too many files "
                                 "(with --plugin, at most %d)", NCP_PLUGINS_ENV,
                                 NCP_FIG_MAX_PLUGINS);
        n += k;
    }
    if (n == 0) return NCP_OK;
    return ncp_plugins_load(paths, n, ncp_registry_catalog(), pl, err);
}

static int figures_main(int argc, char **argv, const volatile int *interrupt,
                        ncp_plugins **pl);

int ncp_figures_cli(int argc, char **argv, const volatile int *interrupt)
{
    ncp_plugins *pl = NULL;
    int rc = figures_main(argc, argv, interrupt, &pl);
    ncp_plugins_free(pl); /* after every solve: descriptors live in the plugins */
    return rc;
}

static int figures_main(int argc, char **argv, const volatile int *interrupt, ncp_plugins **pl)
{
    ncp_solver_params_entry params[NCP_MAX_BENCH_SOLVERS];
    ncp_fig_opts o = {"results/figures", 0, 1, 1, interrupt, NULL, NULL, NULL, params, 0, 0};
    const char *want[16];
    const char *plugins[NCP_FIG_MAX_PLUGINS];
    char envbuf[8192];
    int nwant = 0, all = 0, nplugins = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if ((!strcmp(a, "--paper") || !strcmp(a, "--out") || !strcmp(a, "--seed") ||
                    !strcmp(a, "-j") || !strcmp(a, "--scenes") || !strcmp(a, "--parts") ||
                    !strcmp(a, "--plugin") || !strcmp(a, "--param")) &&
                   i + 1 >= argc) {
            fprintf(stderr, "ncpbench figures: option %s needs a value\n", a);
            return 2;
        } else if (!strcmp(a, "--paper")) {
            if (nwant < 16) want[nwant++] = argv[++i];
        } else if (!strcmp(a, "--profiles")) {
            if (nwant < 16) want[nwant++] = "profiles";
        } else if (!strcmp(a, "--all")) {
            all = 1;
        } else if (!strcmp(a, "--out")) {
            o.out_dir = argv[++i];
        } else if (!strcmp(a, "--quick")) {
            o.quick = 1;
        } else if (!strcmp(a, "--scenes")) {
            o.scenes = argv[++i];
        } else if (!strcmp(a, "--parts")) {
            o.parts = argv[++i];
        } else if (!strcmp(a, "--plugin")) {
            if (nplugins >= NCP_FIG_MAX_PLUGINS) {
                fprintf(stderr, "ncpbench figures: too many --plugin files (at most %d)\n",
                        NCP_FIG_MAX_PLUGINS);
                return 2;
            }
            plugins[nplugins++] = argv[++i];
        } else if (!strcmp(a, "--param")) {
            ncp_error e = {0};
            if (ncp_solver_params_add(params, &o.nparams, NCP_MAX_BENCH_SOLVERS, argv[++i], &e)) {
                fprintf(stderr, "ncpbench figures: %s\n", e.msg);
                return 2;
            }
        } else if (!strcmp(a, "--seed")) {
            char *end;
            o.seed = strtoull(argv[++i], &end, 10);
            if (*end || argv[i][0] == '-') {
                fprintf(stderr, "ncpbench figures: --seed: expected a non-negative integer\n");
                return 2;
            }
        } else if (!strcmp(a, "-j")) {
            o.jobs = atoi(argv[++i]);
            if (o.jobs < 1 || o.jobs > 64) {
                fprintf(stderr, "ncpbench figures: -j: expected an integer in 1..64\n");
                return 2;
            }
        } else {
            fprintf(stderr, "ncpbench figures: unknown option '%s'\n\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!all && nwant == 0) {
        usage(stderr);
        return 2;
    }
    for (int k = 0; k < nwant; k++) {
        int found = 0;
        for (const ncp_fig_set *s = fig_sets; s->id; s++) found |= !strcmp(s->id, want[k]);
        if (!found) {
            fprintf(stderr, "ncpbench figures: unknown figure set '%s'\n\n", want[k]);
            usage(stderr);
            return 2;
        }
    }
    for (const ncp_fig_set *s = fig_sets; s->id && o.nparams > 0; s++) {
        int sel = all;
        for (int k = 0; k < nwant; k++) sel |= !strcmp(s->id, want[k]);
        if (sel && !s->takes_params) {
            fprintf(stderr, "ncpbench figures: --param is taken by the lee2025 set only, not by "
                            "'%s' (run that set without --param)\n", s->id);
            return 2;
        }
    }
    ncp_error perr = {0};
    if (load_plugins(plugins, nplugins, envbuf, sizeof envbuf, pl, &perr)) {
        fprintf(stderr, "ncpbench figures: %s\n", perr.msg);
        return perr.code == NCP_ERR_INPUT ? 2 : 3;
    }
    if (*pl) o.catalog = ncp_plugins_catalog(*pl);
    for (const ncp_fig_set *s = fig_sets; s->id; s++) {
        int sel = all;
        for (int k = 0; k < nwant; k++) sel |= !strcmp(s->id, want[k]);
        if (!sel) continue;
        ncp_error err = {0};
        if (s->run(&o, &err)) {
            fprintf(stderr, "ncpbench figures %s: %s\n", s->id, err.msg);
            return err.code == NCP_ERR_INPUT ? 2 : 3;
        }
        if (interrupt && *interrupt) return 130;
    }
    return 0;
}
