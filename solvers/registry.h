/* The solver descriptors the registry lists (solvers/registry.c). Each solver file defines one
 * of these; add a line here and one in registry.c's table to register a new solver. */
#ifndef NCP_REGISTRY_H
#define NCP_REGISTRY_H

#include "solver.h"

extern const ncp_solver_desc ncp_solver_pgs;    /* solvers/pgs.c */
extern const ncp_solver_desc ncp_solver_nsn_nm; /* solvers/nsn_nm.c */

#endif
