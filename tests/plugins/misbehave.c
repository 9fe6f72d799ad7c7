/* Plugin solvers that do not end as they should, for tests/test_faults.sh (the watchdog and
 * plugin exits, docs/design.md §5.7.1). Each runs the built-in jacobi, except on the problem
 * named by $NCP_TEST_BAD_ON, where:
 *   plugin-spin: loops forever without reporting an iterate (burns CPU, never sees the stop);
 *   plugin-sleep: sleeps forever (a solver blocked on I/O or a lock burns no CPU);
 *   plugin-deaf: reports iterates forever and ignores the harness's stop request;
 *   plugin-exit: calls exit(0) in the middle of its solve. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solve/plugin.h"

extern const ncp_solver_desc ncp_solver_jacobi; /* solvers/jacobi.c, in the host */

static int bad_here(const ncp_solve_in *in)
{
    const char *on = getenv("NCP_TEST_BAD_ON");
    return on && in->prob->name && !strcmp(on, in->prob->name);
}

static int spin_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    if (bad_here(in)) {
        volatile unsigned long k = 0;
        for (;;) k++;
    }
    return ncp_solver_jacobi.solve(in, out, run, err);
}

static int sleep_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    while (bad_here(in)) sleep(1);
    return ncp_solver_jacobi.solve(in, out, run, err);
}

static int deaf_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    if (bad_here(in)) {
        ncp_run_setup_done(run);
        for (int it = 1;; it++) (void)ncp_run_iterate(run, it, out->lambda, NULL);
    }
    return ncp_solver_jacobi.solve(in, out, run, err);
}

static int exit_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    if (bad_here(in)) exit(0);
    return ncp_solver_jacobi.solve(in, out, run, err);
}

static const ncp_param_doc no_params[] = {{NULL, 0.0, NULL}};

#define BAD_DESC(var, nm, what, fn)                                                          \
    static const ncp_solver_desc var = {                                                     \
        .name = nm, .source = "test plugin", .summary = "jacobi, or " what " on one problem", \
        .needs = NCP_NEEDS_DUAL, .file = "tests/plugins/misbehave.c", .params = no_params,    \
        .solve = fn,                                                                         \
    }
BAD_DESC(spin_desc, "plugin-spin", "an endless loop", spin_solve);
BAD_DESC(sleep_desc, "plugin-sleep", "an endless sleep", sleep_solve);
BAD_DESC(deaf_desc, "plugin-deaf", "iterates past the stop request", deaf_solve);
BAD_DESC(exit_desc, "plugin-exit", "exit(0)", exit_solve);

static const ncp_solver_desc *const solvers[] = {&spin_desc, &sleep_desc, &deaf_desc, &exit_desc};

static const ncp_plugin_info info = {NCP_PLUGIN_ABI_VERSION, "test-misbehave", "1.0", 4, solvers};

NCP_PLUGIN_EXPORT const ncp_plugin_info *ncp_plugin_entry(void) { return &info; }
