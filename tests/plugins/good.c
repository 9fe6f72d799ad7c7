/* A well-formed plugin for tests/test_plugin_load.sh: one solver, "plugin-pgs", whose solve is
 * the built-in pgs's own function, resolved from the ncpbench executable that loads it (it
 * exports its symbols). Run under the same harness with the same defaults, its rows must
 * equal pgs's metric for metric: the test's check that a plugin solver is graded exactly as a
 * built-in one. */
#include "solve/plugin.h"

extern const ncp_solver_desc ncp_solver_pgs; /* solvers/pgs.c, in the host */

static int wrapped_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    return ncp_solver_pgs.solve(in, out, run, err);
}

static const ncp_param_doc no_params[] = {{NULL, 0.0, NULL}};

static const ncp_solver_desc plugin_pgs = {
    .name = "plugin-pgs",
    .source = "test plugin: the built-in pgs's solve (Lee et al. 2025 §VII baseline)",
    .summary = "pgs called through the plugin ABI",
    .needs = NCP_NEEDS_DUAL,
    .ccp = 0,
    .file = "tests/plugins/good.c",
    .params = no_params,
    .solve = wrapped_solve,
    .takes_v0 = 0,
};

static const ncp_solver_desc *const solvers[] = {&plugin_pgs};

static const ncp_plugin_info info = {NCP_PLUGIN_ABI_VERSION, "test-good", "1.0", 1, solvers};

NCP_PLUGIN_EXPORT const ncp_plugin_info *ncp_plugin_entry(void) { return &info; }
