/* Solver catalogs (catalog.h). */
#include <string.h>

#include "solve/catalog.h"

const ncp_solver_desc *ncp_catalog_find(const ncp_solver_catalog *c, const char *name)
{
    if (!c || !name) return NULL;
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->solvers[i]->name, name) == 0) return c->solvers[i];
    return NULL;
}
