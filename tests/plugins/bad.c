/* Plugins that break one rule of solve/plugin.h each, for tests/test_plugin_load.sh: built once
 * per BAD_* macro (tests/meson.build). ncpbench must refuse each with exit 2 and a message naming
 * the file and the fault, before running anything. */
#include <stddef.h>

#include "solve/plugin.h"

#ifndef BAD_NULLSOLVE
static int solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    (void)in;
    (void)out;
    (void)run;
    (void)err;
    return 0;
}
#endif

#ifdef BAD_NOTERM
/* more than NCP_PLUGIN_MAX_PARAMS documented entries and no NULL-name terminator */
#define P(k) {"p" #k, 0.0, "x"}
static const ncp_param_doc params[] = {
    P(0),  P(1),  P(2),  P(3),  P(4),  P(5),  P(6),  P(7),  P(8),  P(9),  P(10), P(11),
    P(12), P(13), P(14), P(15), P(16), P(17), P(18), P(19), P(20), P(21), P(22), P(23),
    P(24), P(25), P(26), P(27), P(28), P(29), P(30), P(31), P(32), P(33), P(34), P(35)};
#else
static const ncp_param_doc params[] = {{NULL, 0.0, NULL}};
#endif

#if defined(BAD_NULLNAME)
#define NAME NULL
#elif defined(BAD_DUP_BUILTIN)
#define NAME "pgs"
#elif defined(BAD_DUP_PLUGIN)
#define NAME "plugin-pgs" /* tests/plugins/good.c's */
#elif defined(BAD_NAME)
#define NAME "bad,name"
#elif defined(BAD_SETWORD)
#define NAME "peers" /* a set word of --solvers (solve/catalog.h) */
#else
#define NAME "bad-plugin"
#endif

#ifdef BAD_NULLSOLVE
#define SOLVE NULL
#else
#define SOLVE solve
#endif

static const ncp_solver_desc desc = {
    .name = NAME, .source = "test", .summary = "test", .needs = NCP_NEEDS_DUAL,
    .file = "tests/plugins/bad.c", .params = params, .solve = SOLVE,
};

#ifdef BAD_NULLDESC
static const ncp_solver_desc *const solvers[] = {NULL, &desc}; /* the first one is NULL */
#else
static const ncp_solver_desc *const solvers[] = {&desc};
#endif

#ifdef BAD_ABI
#define ABI 7
#else
#define ABI NCP_PLUGIN_ABI_VERSION
#endif

#if defined(BAD_NOSOLVERS)
#define NSOLVERS 0
#elif defined(BAD_NULLDESC)
#define NSOLVERS 2
#else
#define NSOLVERS 1
#endif

static const ncp_plugin_info info = {ABI, "test-bad", NULL, NSOLVERS, solvers};

#if defined(BAD_NOENTRY)
NCP_PLUGIN_EXPORT const ncp_plugin_info *not_the_entry(void) { return &info; }
#elif defined(BAD_NULLENTRY)
NCP_PLUGIN_EXPORT const ncp_plugin_info *ncp_plugin_entry(void) { return NULL; }
const ncp_plugin_info *unused_info(void);
const ncp_plugin_info *unused_info(void) { return &info; }
#else
NCP_PLUGIN_EXPORT const ncp_plugin_info *ncp_plugin_entry(void) { return &info; }
#endif
