/* The solver registry (DESIGN.md §5): a constant table of descriptors, in the order
 * `ncpbench list` shows them. No mutable state. */
#include <string.h>

#include "registry.h"

static const ncp_solver_desc *const registry[] = {
    &ncp_solver_pgs,
    &ncp_solver_nsn_nm,
};

enum { REGISTRY_COUNT = (int)(sizeof registry / sizeof registry[0]) };

int ncp_solver_count(void) { return REGISTRY_COUNT; }

const ncp_solver_desc *ncp_solver_at(int i)
{
    return (i >= 0 && i < REGISTRY_COUNT) ? registry[i] : NULL;
}

const ncp_solver_desc *ncp_solver_find(const char *name)
{
    if (!name) return NULL;
    for (int i = 0; i < REGISTRY_COUNT; i++)
        if (strcmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}
