/* The plugin ABI: how a solver built outside ncpbench enters it (docs/design.md, "Plugins").
 *
 * A plugin is a shared library (built with shared_module / -shared) that exports ONE function,
 * named by NCP_PLUGIN_ENTRY_NAME:
 *
 *     NCP_PLUGIN_EXPORT const ncp_plugin_info *ncp_plugin_entry(void);
 *
 * It returns a pointer to a static ncp_plugin_info whose FIRST member is the ABI version the
 * plugin was compiled against (NCP_PLUGIN_ABI_VERSION of the headers it saw). ncpbench reads that
 * int before anything else and refuses a plugin built for another version, naming both, so the
 * rest of the struct is only read when its layout is the one this ncpbench knows.
 *
 * The solvers a plugin lists use the one solver interface of solve/solver.h exactly as the
 * built-in ones (the files of solvers/) do: same ncp_solver_desc, same run context calls
 * (ncp_run_setup_done, ncp_run_iterate, ncp_run_elapsed_ms, ncp_run_note), graded by the same harness and
 * metrics. The run context calls are resolved from the ncpbench executable that loads the plugin
 * (it exports them); the helpers (cone projections, dense/sparse operators, parameters) come from
 * libncpbench (pkg-config ncpbench) or, equally, from the executable.
 *
 * NCP_PLUGIN_ABI_VERSION changes whenever the layout or meaning of anything in the installed
 * headers changes (ncp_problem, ncp_block, ncp_csr, ncp_solver_desc, ncp_solve_in/out, ncp_params,
 * ncp_budget, ncp_error, the NCP_NEEDS_ and NCP_STATUS_ values, a helper's signature): a plugin
 * built against another version would read the structs wrongly, so it is refused rather than run.
 */
#ifndef NCP_PLUGIN_H
#define NCP_PLUGIN_H

#include "solve/solver.h"

#define NCP_PLUGIN_ABI_VERSION 3

/* The symbol ncpbench looks up with dlsym. */
#define NCP_PLUGIN_ENTRY_NAME "ncp_plugin_entry"

#if defined(__GNUC__) || defined(__clang__)
#define NCP_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define NCP_PLUGIN_EXPORT
#endif

typedef struct ncp_plugin_info {
    int abi_version;        /* NCP_PLUGIN_ABI_VERSION; MUST stay the first member */
    const char *name;       /* the plugin's name, for `ncpbench list` (e.g. "pjacobi-example") */
    const char *version;    /* the plugin's own version string, may be NULL */
    int n_solvers;          /* >= 1 */
    const ncp_solver_desc *const *solvers; /* n_solvers descriptors; each desc->params is
                                              terminated by an entry whose name is NULL, within
                                              NCP_PLUGIN_MAX_PARAMS entries */
} ncp_plugin_info;

/* The most documented parameters a plugin solver may have (the capacity of ncp_params): the host
 * stops looking for the NULL-name terminator there and refuses the plugin. */
#define NCP_PLUGIN_MAX_PARAMS 32

typedef const ncp_plugin_info *(*ncp_plugin_entry_fn)(void);

#endif
