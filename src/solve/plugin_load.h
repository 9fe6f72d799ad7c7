/* Loading solver plugins (solve/plugin.h) and the catalog they join (solve/catalog.h).
 *
 * The loaded plugins are an object the caller owns (the CLI, for one command) and passes down
 * as its catalog: no global registry of plugins. Each file is opened with
 * dlopen(RTLD_NOW | RTLD_LOCAL) (every undefined symbol resolved now, so a plugin missing a
 * helper is refused at load, not in the middle of a solve; its own symbols stay private, so two
 * plugins may define the same static helper names). Every check of plugin.h's contract is made
 * before any of its solvers is used; a plugin that fails one is refused with NCP_ERR_INPUT and a
 * message naming the file and what is wrong (the CLI exits 2).
 *
 * The handles stay open until ncp_plugins_free: descriptors and their strings live in them. */
#ifndef NCP_PLUGIN_LOAD_H
#define NCP_PLUGIN_LOAD_H

#include "solve/catalog.h"
#include "solve/plugin.h"
#include "util/ncp_error.h"

/* The environment variable with more plugin paths (colon-separated), loaded after --plugin's. */
#define NCP_PLUGINS_ENV "NCPBENCH_PLUGINS"

typedef struct ncp_plugins ncp_plugins;

/* Loads every path (in order) on top of `base` (the registry's catalog): *out's catalog is
 * base's solvers followed by the plugins' solvers. Refused: a file dlopen cannot open (its
 * dlerror text), no NCP_PLUGIN_ENTRY_NAME, an entry that returns NULL, another ABI version
 * (naming both), n_solvers < 1, a NULL descriptor / name / solve, a name that base or an earlier
 * plugin has (naming both files), a name the outputs cannot hold (ncp_plugin_name_ok), a
 * parameter list without its NULL-name terminator within NCP_PLUGIN_MAX_PARAMS entries.
 * npaths == 0 gives a catalog equal to base. On error *out is NULL. */
int ncp_plugins_load(const char *const *paths, int npaths, const ncp_solver_catalog *base,
                     ncp_plugins **out, ncp_error *err);

/* Splits a colon-separated list (NCPBENCH_PLUGINS; empty items skipped) into at most cap
 * pointers into buf (a copy of list of bufsize bytes). Returns the count, or -1 when the list
 * does not fit. */
int ncp_plugins_split(const char *list, char *buf, size_t bufsize, const char **items, int cap);

/* The merged catalog (valid until ncp_plugins_free). */
const ncp_solver_catalog *ncp_plugins_catalog(const ncp_plugins *p);

void ncp_plugins_free(ncp_plugins *p);

/* Whether a solver name can be written everywhere a name goes: a CSV cell without quoting, an
 * HDF5 group name, a file name of the figures, a --param key. 1..31 characters of
 * [A-Za-z0-9_.+-], starting with a letter or digit. */
int ncp_plugin_name_ok(const char *name);

#endif
