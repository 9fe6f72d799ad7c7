/* A set of solver descriptors to look names up in: the registry's (solvers/registry.h), or any
 * other list a caller assembles. Lower layers (scene parsing) take a catalog instead of
 * linking the solvers. */
#ifndef NCP_CATALOG_H
#define NCP_CATALOG_H

#include "solve/solver.h"

typedef struct ncp_solver_catalog {
    int n;
    const ncp_solver_desc *const *solvers;
} ncp_solver_catalog;

/* The solver named `name`, or NULL. */
const ncp_solver_desc *ncp_catalog_find(const ncp_solver_catalog *c, const char *name);

#endif
