/* Misbehaving plugin solvers for tests/test_plugin_load.sh:
 *   plugin-crash: runs the built-in jacobi, except on the problem named by $NCP_TEST_CRASH_ON,
 *     where it dereferences NULL (SIGSEGV): --isolate must turn that solve alone into a row
 *     with status crashed;
 *   plugin-overflow: writes one double past out->lambda: the ASan build must report a
 *     heap-buffer-overflow;
 *   plugin-flaky: jacobi, from a start point that changes with every call (a count kept between
 *     solves, the fault it stands for): `--repeat N` must refuse its timings. */
#include <stdlib.h>
#include <string.h>

#include "solve/plugin.h"

extern const ncp_solver_desc ncp_solver_jacobi; /* solvers/jacobi.c, in the host */

static int crash_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    const char *on = getenv("NCP_TEST_CRASH_ON");
    if (on && in->prob->name && !strcmp(on, in->prob->name)) {
        volatile int *volatile nowhere = NULL;
        *nowhere = 1;
    }
    return ncp_solver_jacobi.solve(in, out, run, err);
}

static int overflow_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run,
                          ncp_error *err)
{
    (void)err;
    int m = in->prob->m;
    for (int i = 0; i <= m; i++) out->lambda[i] = 0.0; /* i == m: one past the end */
    ncp_run_setup_done(run);
    ncp_run_iterate(run, 1, out->lambda, NULL);
    out->iterations = 1;
    return 0;
}

static int flaky_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    static int calls; /* deliberately global: the state a solver must not keep */
    const int m = in->prob->m;
    double *l0 = calloc((size_t)m + 1, sizeof *l0);
    if (!l0) return NCP_ERR_NOMEM;
    for (int i = 0; i < m; i++) l0[i] = 1e-3 * (calls % 7);
    calls++;
    ncp_solve_in in2 = *in;
    in2.lambda0 = l0;
    int rc = ncp_solver_jacobi.solve(&in2, out, run, err);
    free(l0);
    return rc;
}

static const ncp_param_doc no_params[] = {{NULL, 0.0, NULL}};

static const ncp_solver_desc crash_desc = {
    .name = "plugin-crash", .source = "test plugin", .summary = "jacobi, or SIGSEGV on one problem",
    .needs = NCP_NEEDS_DUAL, .file = "tests/plugins/crash.c", .params = no_params,
    .solve = crash_solve,
};
static const ncp_solver_desc overflow_desc = {
    .name = "plugin-overflow", .source = "test plugin", .summary = "writes past out->lambda",
    .needs = NCP_NEEDS_DUAL, .file = "tests/plugins/crash.c", .params = no_params,
    .solve = overflow_solve,
};

static const ncp_solver_desc flaky_desc = {
    .name = "plugin-flaky", .source = "test plugin", .summary = "jacobi from a moving start",
    .needs = NCP_NEEDS_DUAL, .file = "tests/plugins/crash.c", .params = no_params,
    .solve = flaky_solve,
};

static const ncp_solver_desc *const solvers[] = {&crash_desc, &overflow_desc, &flaky_desc};

static const ncp_plugin_info info = {NCP_PLUGIN_ABI_VERSION, "test-crash", "1.0", 3, solvers};

NCP_PLUGIN_EXPORT const ncp_plugin_info *ncp_plugin_entry(void) { return &info; }
