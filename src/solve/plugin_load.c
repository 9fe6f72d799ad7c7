/* Loading solver plugins (plugin_load.h). */
#include "solve/plugin_load.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ncp_plugins {
    ncp_solver_catalog cat;
    const ncp_solver_desc **solvers; /* base's, then the plugins' */
    const char **files;              /* per solver: the plugin file (owned by `paths`) or NULL */
    const char **names;              /* per solver: the plugin's name or NULL */
    void **handles;
    int nhandles;
    char **paths;                    /* the file of each handle, as given */
};

int ncp_plugin_name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n < 1 || n > 31) return 0;
    unsigned char c0 = (unsigned char)name[0];
    if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || (c0 >= '0' && c0 <= '9')))
        return 0;
    return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-") == n;
}

int ncp_plugins_split(const char *list, char *buf, size_t bufsize, const char **items, int cap)
{
    if (!list) return 0;
    size_t len = strlen(list);
    if (len >= bufsize) return -1;
    memcpy(buf, list, len + 1);
    int n = 0;
    for (char *s = buf; s && *s;) {
        char *colon = strchr(s, ':');
        if (colon) *colon = '\0';
        if (*s) {
            if (n >= cap) return -1;
            items[n++] = s;
        }
        s = colon ? colon + 1 : NULL;
    }
    return n;
}

const ncp_solver_catalog *ncp_plugins_catalog(const ncp_plugins *p) { return &p->cat; }

void ncp_plugins_free(ncp_plugins *p)
{
    if (!p) return;
    for (int i = p->nhandles - 1; i >= 0; i--) {
        if (p->handles[i]) dlclose(p->handles[i]);
        free(p->paths[i]);
    }
    free(p->handles);
    free(p->paths);
    free(p->solvers);
    free(p->files);
    free(p->names);
    free(p);
}

/* The index of the solver named `name` among p's first n, or -1. */
static int find_solver(const ncp_plugins *p, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(p->solvers[i]->name, name)) return i;
    return -1;
}

/* Checks one plugin's info against plugin.h's contract and appends its solvers. */
static int add_plugin(ncp_plugins *p, const char *path, const ncp_plugin_info *info, int *cap,
                      ncp_error *err)
{
    /* the version first: the rest of the struct is only read when its layout is ours */
    if (info->abi_version != NCP_PLUGIN_ABI_VERSION)
        return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s: built for ABI %d, this ncpbench has "
                             "ABI %d: rebuild the plugin against this ncpbench", path,
                             info->abi_version, NCP_PLUGIN_ABI_VERSION);
    const char *pname = info->name ? info->name : "(unnamed)";
    if (info->n_solvers < 1 || !info->solvers)
        return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s (%s): n_solvers is %d and solvers %s: "
                             "a plugin lists at least one solver descriptor", path, pname,
                             info->n_solvers, info->solvers ? "set" : "NULL");
    if (info->n_solvers > 4096)
        return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s (%s): n_solvers is %d, not a plausible "
                             "count (is the info initialised?)", path, pname, info->n_solvers);
    for (int k = 0; k < info->n_solvers; k++) {
        const ncp_solver_desc *d = info->solvers[k];
        if (!d)
            return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s (%s): solver descriptor %d of %d "
                                 "is NULL", path, pname, k, info->n_solvers);
        if (!d->name)
            return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s (%s): solver descriptor %d has "
                                 "no name (NULL)", path, pname, k);
        if (!ncp_plugin_name_ok(d->name))
            return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s (%s): solver name '%s' cannot be "
                                 "written in metrics.csv, the HDF5 outputs and file names: use "
                                 "1 to 31 characters of letters, digits, '_', '.', '+', '-', "
                                 "starting with a letter or digit", path, pname, d->name);
        if (ncp_catalog_set_word(d->name))
            return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s (%s): solver name '%s' is a "
                                 "word of --solvers (default, peers, all name sets of solvers): "
                                 "rename the plugin's solver", path, pname, d->name);
        if (!d->solve)
            return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s (%s): solver '%s' has no solve "
                                 "function (NULL)", path, pname, d->name);
        int np = 0;
        while (np <= NCP_PLUGIN_MAX_PARAMS && d->params && d->params[np].name) {
            size_t len = strlen(d->params[np].name);
            if (len == 0 || len >= sizeof(((ncp_param *)0)->name))
                return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s (%s): solver '%s': parameter "
                                     "%d's name is empty or longer than %zu characters", path,
                                     pname, d->name, np, sizeof(((ncp_param *)0)->name) - 1);
            np++;
        }
        if (np > NCP_PLUGIN_MAX_PARAMS)
            return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s (%s): solver '%s': its parameter "
                                 "list has no NULL-name terminator within %d entries (end the "
                                 "list with {NULL, 0, NULL}; at most %d parameters)", path, pname,
                                 d->name, NCP_PLUGIN_MAX_PARAMS + 1, NCP_PLUGIN_MAX_PARAMS);
        int n = p->cat.n, j = find_solver(p, n, d->name);
        if (j >= 0) {
            const char *other = p->files[j] ? p->files[j] : p->solvers[j]->file;
            return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s (%s): solver name '%s' exists "
                                 "already (%s %s): rename the plugin's solver", path, pname,
                                 d->name, p->files[j] ? "plugin" : "built in,",
                                 other ? other : "?");
        }
        if (n == *cap) {
            int nc = 2 * *cap;
            const ncp_solver_desc **s = realloc(p->solvers, (size_t)nc * sizeof *s);
            if (s) p->solvers = s;
            const char **f = s ? realloc(p->files, (size_t)nc * sizeof *f) : NULL;
            if (f) p->files = f;
            const char **nm = f ? realloc(p->names, (size_t)nc * sizeof *nm) : NULL;
            if (nm) p->names = nm;
            if (!nm) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory loading %s", path);
            *cap = nc;
        }
        p->solvers[n] = d;
        p->files[n] = path;
        p->names[n] = info->name;
        p->cat.n = n + 1;
    }
    return NCP_OK;
}

/* Opens one file and appends its solvers (the handle is kept in p either way). */
static int load_one(ncp_plugins *p, const char *given, int *cap, ncp_error *err)
{
    /* a name without '/' would make dlopen search the library path, not open the file */
    size_t len = strlen(given);
    int dot = strchr(given, '/') == NULL;
    char *path = malloc(len + 3);
    if (!path) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory loading %s", given);
    snprintf(path, len + 3, "%s%s", dot ? "./" : "", given);
    dlerror();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        int rc = ncp_error_set(err, NCP_ERR_INPUT, "plugin %s: cannot load it as a shared "
                               "library: %s", given, why ? why : "dlopen failed");
        free(path);
        return rc;
    }
    for (int i = 0; i < p->nhandles; i++) {
        if (p->handles[i] == h) { /* the same file given twice (--plugin and the variable) */
            dlclose(h);
            free(path);
            return NCP_OK;
        }
    }
    p->handles[p->nhandles] = h;
    p->paths[p->nhandles] = path;
    p->nhandles++;
    memmove(path, path + (dot ? 2 : 0), len + 1); /* messages and lists name it as given */
    dlerror();
    /* POSIX: a function pointer read through an object pointer (dlsym's documented idiom) */
    void *sym = dlsym(h, NCP_PLUGIN_ENTRY_NAME);
    ncp_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    if (!sym)
        return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s: no entry point: it does not export "
                             "%s (define `NCP_PLUGIN_EXPORT const ncp_plugin_info *%s(void)`, "
                             "solve/plugin.h)", path, NCP_PLUGIN_ENTRY_NAME,
                             NCP_PLUGIN_ENTRY_NAME);
    const ncp_plugin_info *info = entry();
    if (!info)
        return ncp_error_set(err, NCP_ERR_INPUT, "plugin %s: its entry point %s returned NULL "
                             "(it must return its ncp_plugin_info)", path, NCP_PLUGIN_ENTRY_NAME);
    return add_plugin(p, path, info, cap, err);
}

int ncp_plugins_load(const char *const *paths, int npaths, const ncp_solver_catalog *base,
                     ncp_plugins **out, ncp_error *err)
{
    *out = NULL;
    ncp_plugins *p = ncp_calloc(err, 1, sizeof *p);
    if (!p) return NCP_ERR_NOMEM;
    int cap = (base ? base->n : 0) + 16;
    p->solvers = ncp_calloc(err, (size_t)cap, sizeof *p->solvers);
    p->files = ncp_calloc(err, (size_t)cap, sizeof *p->files);
    p->names = ncp_calloc(err, (size_t)cap, sizeof *p->names);
    p->handles = ncp_calloc(err, (size_t)(npaths > 0 ? npaths : 1), sizeof *p->handles);
    p->paths = ncp_calloc(err, (size_t)(npaths > 0 ? npaths : 1), sizeof *p->paths);
    if (!p->solvers || !p->files || !p->names || !p->handles || !p->paths) {
        ncp_plugins_free(p);
        return NCP_ERR_NOMEM;
    }
    for (int i = 0; base && i < base->n; i++) {
        p->solvers[i] = base->solvers[i];
        p->files[i] = ncp_catalog_plugin_file(base, i);
        p->names[i] = ncp_catalog_plugin_name(base, i);
    }
    p->cat.n = base ? base->n : 0;
    p->cat.solvers = p->solvers;
    int rc = NCP_OK;
    for (int i = 0; i < npaths && !rc; i++) rc = load_one(p, paths[i], &cap, err);
    if (rc) {
        ncp_plugins_free(p);
        return rc;
    }
    p->cat.solvers = p->solvers; /* the arrays may have moved */
    p->cat.plugin_file = p->files;
    p->cat.plugin_name = p->names;
    *out = p;
    return NCP_OK;
}
