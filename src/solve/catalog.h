/* A set of solver descriptors to look names up in: the registry's (solvers/registry.h), the
 * registry's plus loaded plugins' (solve/plugin_load.h), or any other list a caller assembles.
 * Lower layers (scene parsing) take a catalog instead of linking the solvers; the commands that
 * run solvers (run, solve, list) take the CLI's catalog, so plugin solvers are found exactly
 * where built-in ones are. */
#ifndef NCP_CATALOG_H
#define NCP_CATALOG_H

#include "solve/solver.h"

typedef struct ncp_solver_catalog {
    int n;
    const ncp_solver_desc *const *solvers;
    /* Per solver, where it came from: the plugin's file and name (plugin.h), NULL for a
     * built-in solver. The arrays themselves may be NULL (a catalog of built-ins only). */
    const char *const *plugin_file;
    const char *const *plugin_name;
} ncp_solver_catalog;

/* Words of --solvers and of a scene's solver list that name a set, not a solver: "default"
 * (what a run without a list runs: every solver but the peers, i.e. ncpbench's own solvers and
 * the loaded plugins' ones), "peers" (the cross-check adaptors of other libraries, Siconos's
 * fc3d solvers when built with -Dsiconos) and "all" (both). No solver may take these names. */
int ncp_catalog_set_word(const char *name);

/* The solver named `name`, or NULL. */
const ncp_solver_desc *ncp_catalog_find(const ncp_solver_catalog *c, const char *name);

/* The solver name of c closest to a misspelled `name` ("did you mean", util/strdist.h), or
 * NULL when none is close. */
const char *ncp_catalog_closest(const ncp_solver_catalog *c, const char *name);

/* Index of the solver named `name`, or -1. */
int ncp_catalog_index(const ncp_solver_catalog *c, const char *name);
/* Index of the solver a solver or variant name is of ("pgs@omega=1.3": pgs's), or -1. */
int ncp_catalog_base_index(const ncp_solver_catalog *c, const char *name);

/* Solver variants: "BASE@NAME=VALUE[@NAME=VALUE...]" in --solvers and a scene's solver list,
 * e.g. pgs@omega=1.3 (docs/design.md §5, "solver variants"). A variant is its base solver run
 * with parameters of its own, as a row of its own named as written: the name keys metrics.csv,
 * the journal, solutions.h5 and traces.h5 groups, and baselines. Its parameters are applied over
 * those --param and a scene's benchmark.params give the base solver (the variant's win). */
#define NCP_SOLVER_NAME_MAX 32
typedef struct ncp_solver_variant {
    ncp_solver_desc desc;            /* the base solver's, with name = the variant's name */
    char name[NCP_SOLVER_NAME_MAX];
    const ncp_solver_desc *base;
    ncp_params params;               /* its own parameters */
} ncp_solver_variant;

/* Whether name names a variant (has an '@'). */
int ncp_is_variant_name(const char *name);
/* Parses spec into *v against c. NCP_ERR_INPUT naming what is wrong: an unknown base solver or
 * parameter (with the closest name), a value that is not a finite number, a parameter given
 * twice, a name of NCP_SOLVER_NAME_MAX characters or more. Parameter values are range-checked
 * where --param's are, by the solver when it starts. */
int ncp_catalog_variant(const ncp_solver_catalog *c, const char *spec, ncp_solver_variant *v,
                        ncp_error *err);
/* Whether a and b are the same solver with the same parameter values (in any order). */
int ncp_variant_same(const ncp_solver_variant *a, const ncp_solver_variant *b);

/* The plugin file / plugin name of solver i; NULL for a built-in solver or a bad index. */
const char *ncp_catalog_plugin_file(const ncp_solver_catalog *c, int i);
const char *ncp_catalog_plugin_name(const ncp_solver_catalog *c, int i);

#endif
