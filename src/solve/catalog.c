/* Solver catalogs (catalog.h). */
#include <string.h>

#include "solve/catalog.h"

int ncp_catalog_set_word(const char *name)
{
    return name && (!strcmp(name, "default") || !strcmp(name, "peers") || !strcmp(name, "all"));
}

int ncp_catalog_index(const ncp_solver_catalog *c, const char *name)
{
    if (!c || !name) return -1;
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->solvers[i]->name, name) == 0) return i;
    return -1;
}

const ncp_solver_desc *ncp_catalog_find(const ncp_solver_catalog *c, const char *name)
{
    int i = ncp_catalog_index(c, name);
    return i >= 0 ? c->solvers[i] : NULL;
}

const char *ncp_catalog_plugin_file(const ncp_solver_catalog *c, int i)
{
    return c && c->plugin_file && i >= 0 && i < c->n ? c->plugin_file[i] : NULL;
}

const char *ncp_catalog_plugin_name(const ncp_solver_catalog *c, int i)
{
    return c && c->plugin_name && i >= 0 && i < c->n ? c->plugin_name[i] : NULL;
}
