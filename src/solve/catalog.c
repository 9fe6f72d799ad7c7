/* Solver catalogs and solver variants (catalog.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solve/catalog.h"
#include "solve/params.h"
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

int ncp_catalog_base_index(const ncp_solver_catalog *c, const char *name)
{
    if (!c || !name) return -1;
    size_t n = strcspn(name, "@");
    for (int i = 0; i < c->n; i++)
        if (strlen(c->solvers[i]->name) == n && !strncmp(c->solvers[i]->name, name, n)) return i;
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

int ncp_is_variant_name(const char *name) { return name && strchr(name, '@') != NULL; }

int ncp_catalog_variant(const ncp_solver_catalog *c, const char *spec, ncp_solver_variant *v,
                        ncp_error *err)
{
    memset(v, 0, sizeof *v);
    if (strlen(spec) >= sizeof v->name)
        return ncp_error_set(err, NCP_ERR_INPUT, "solver variant '%s': too long (at most %d "
                             "characters: the name keys the outputs' rows and groups)", spec,
                             NCP_SOLVER_NAME_MAX - 1);
    snprintf(v->name, sizeof v->name, "%s", spec);
    char base[NCP_SOLVER_NAME_MAX];
    size_t bl = strcspn(spec, "@");
    memcpy(base, spec, bl);
    base[bl] = '\0';
    if (!(v->base = ncp_catalog_find(c, base))) {
        const char *near = ncp_catalog_closest(c, base);
        return ncp_error_set(err, NCP_ERR_INPUT, "solver variant '%s': unknown solver '%s'%s%s%s "
                             "(see `ncpbench list solvers`)", spec, base,
                             near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
    }
    const char *s = spec + bl;
    if (!s[0] || !s[1])
        return ncp_error_set(err, NCP_ERR_INPUT, "solver variant '%s': expected "
                             "SOLVER@NAME=VALUE[@NAME=VALUE...]", spec);
    while (*s == '@') {
        s++;
        size_t len = strcspn(s, "@");
        char item[NCP_SOLVER_NAME_MAX];
        memcpy(item, s, len);
        item[len] = '\0';
        s += len;
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1])
            return ncp_error_set(err, NCP_ERR_INPUT, "solver variant '%s': expected NAME=VALUE, "
                                 "got '%s' (SOLVER@NAME=VALUE[@NAME=VALUE...])", spec, item);
        *eq = '\0';
        const char *pnames[64];
        int np = 0, ok = 0;
        for (const ncp_param_doc *pd = v->base->params; pd && pd->name; pd++) {
            ok |= !strcmp(pd->name, item);
            if (np < 64) pnames[np++] = pd->name;
        }
        if (!ok) {
            const char *near = ncp_closest_name(item, pnames, np);
            return ncp_error_set(err, NCP_ERR_INPUT, "solver variant '%s': solver '%s' has no "
                                 "parameter '%s'%s%s%s (see `ncpbench list solvers`)", spec, base,
                                 item, near ? " (did you mean " : "", near ? near : "",
                                 near ? "?)" : "");
        }
        char *end;
        errno = 0;
        double x = strtod(eq + 1, &end);
        if (errno || end == eq + 1 || *end || !isfinite(x))
            return ncp_error_set(err, NCP_ERR_INPUT, "solver variant '%s': '%s' is not a finite "
                                 "number", spec, eq + 1);
        for (int i = 0; i < v->params.n; i++)
            if (!strcmp(v->params.items[i].name, item))
                return ncp_error_set(err, NCP_ERR_INPUT, "solver variant '%s': parameter '%s' "
                                     "given twice", spec, item);
        int rc = ncp_params_set(&v->params, item, x, err);
        if (rc) return rc;
    }
    v->desc = *v->base;
    v->desc.name = v->name;
    return NCP_OK;
}

int ncp_variant_same(const ncp_solver_variant *a, const ncp_solver_variant *b)
{
    if (a->base != b->base || a->params.n != b->params.n) return 0;
    for (int i = 0; i < a->params.n; i++) {
        double x = ncp_params_get(&b->params, a->params.items[i].name, NAN);
        if (!(x == a->params.items[i].value)) return 0;
    }
    return 1;
}
