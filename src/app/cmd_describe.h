/* `ncpbench describe FILE|DIR...` (cmd_describe.c): the hardness labels of every problem
 * (bench/labels.h), with the options read by cli.c from the option table (app/options.h);
 * returns the exit code (0, 2 bad input or usage, 3 I/O or internal failure, 6 some files of a
 * collection failed to load, 130 interrupted: *interrupt set between two problems, nothing
 * written; cli.h). */
#ifndef NCP_CMD_DESCRIBE_H
#define NCP_CMD_DESCRIBE_H

#include "bench/labels.h"

typedef struct ncp_describe_opts {
    const char *const *paths;
    int npaths;
    const char *csv, *json;  /* --csv, --json: NULL = not written */
    ncp_labels_opts labels;  /* --eig-max, --lanczos (0: the defaults) */
    double max_memory;       /* --max-memory (<= 0: the default) */
    const volatile int *interrupt;
} ncp_describe_opts;

int ncp_cli_describe(const ncp_describe_opts *o);

#endif
