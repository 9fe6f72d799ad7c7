/* Solver catalogs (catalog.h). */
#include <string.h>

#include "solve/catalog.h"
#include "util/strdist.h"

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

const char *ncp_catalog_closest(const ncp_solver_catalog *c, const char *name)
{
    const char *best = NULL;
    /* the catalog is short: compare with each name through a one-element list */
    int bestd = 1 << 30;
    for (int i = 0; i < c->n; i++) {
        const char *one[1] = {c->solvers[i]->name};
        const char *near = ncp_closest_name(name, one, 1);
        int d = near ? ncp_edit_distance(name, near) : bestd;
        if (near && d < bestd) {
            bestd = d;
            best = near;
        }
    }
    return best;
}
