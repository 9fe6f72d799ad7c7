/* ncpbench's public header for solver plugins (docs/plugins.md): #include <ncpbench/ncpbench.h>
 * with the flags of `pkg-config --cflags ncpbench`.
 *
 * What a plugin may use:
 *   - the solver interface (solve/solver.h): ncp_solver_desc, ncp_solve_in/out, ncp_budget,
 *     ncp_params, the NCP_STATUS_ and NCP_NEEDS_ values, and the run context calls
 *     ncp_run_setup_done / ncp_run_iterate / ncp_run_elapsed_ms, which the ncpbench executable
 *     that loads the plugin provides (they are not in libncpbench);
 *   - the plugin entry point and ABI version (solve/plugin.h);
 *   - parameter lookup (solve/params.h), the problem (core/problem.h), cone projections
 *     (core/cone.h), dense linear algebra and CSR matrices (core/la.h), the Delassus operator
 *     (core/dop.h), errors and checked allocation (util/ncp_error.h): all in libncpbench
 *     (pkg-config --libs ncpbench) and equally exported by the executable.
 * Anything else in ncpbench's source tree (solvers/common.h, the harness, the metrics) is not
 * part of the ABI and may change without notice.
 */
#ifndef NCPBENCH_H
#define NCPBENCH_H

#include "solve/plugin.h"
#include "solve/params.h"
#include "core/cone.h"
#include "core/la.h"
#include "core/dop.h"
#include "core/problem.h"

#endif
