/* `ncpbench describe FILE|DIR...`: the hardness labels of every problem (bench/labels.h) as a
 * table on stdout, and as CSV / JSON on request (help and options: app/options.c). Exit codes
 * as cli.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cmd_describe.h"
#include "bench/collection.h"
#include "bench/labels.h"
#include "bench/output.h"
#include "util/safefile.h"

int ncp_cli_describe(const ncp_describe_opts *o)
{
    const volatile int *interrupt = o->interrupt;
    const char *csv = o->csv, *json = o->json;
    int rc = 0;
    ncp_error err = {0};
    ncp_collection *coll = NULL;
    ncp_labels *all = NULL;
    int total = 0, cap = 0;
    if ((rc = ncp_collection_open(o->paths, o->npaths, &coll, &err))) goto fail;
    ncp_collection_set_budget(coll, o->max_memory);
    ncp_bench_source src;
    ncp_collection_source(coll, &src);
    ncp_labels_print(stdout, NULL);
    for (;;) {
        const ncp_problem *probs = NULL;
        int n = 0;
        if ((rc = src.next(src.ctx, &probs, &n, &err))) goto fail;
        if (n == 0) break;
        for (int i = 0; i < n; i++) {
            if (interrupt && *interrupt) {
                fprintf(stderr, "ncpbench describe: interrupted after %d problems\n", total);
                free(all);
                ncp_collection_free(coll);
                return NCP_EXIT_INTERRUPTED;
            }
            if ((rc = ncp_bench_grow(&all, &cap, total, sizeof *all, &err))) goto fail;
            if ((rc = ncp_labels_problem(&probs[i], &o->labels, &all[total], &err))) {
                ncp_error_prefix(&err, "%s: ", probs[i].name ? probs[i].name : "?");
                goto fail;
            }
            ncp_labels_print(stdout, &all[total++]);
        }
        fflush(stdout);
    }
    const char *file, *why;
    int nfailed = ncp_collection_nfailed(coll);
    for (int i = 0; ncp_collection_note(coll, i, 0, &file, NULL); i++)
        fprintf(stderr, "ncpbench describe: skipped %s (not a problem file)\n", file);
    for (int i = 0; ncp_collection_note(coll, i, 1, &file, &why); i++)
        fprintf(stderr, "ncpbench describe: %s failed to load, not described: %s\n", file, why);
    printf("%d problem%s described", total, total == 1 ? "" : "s");
    if (nfailed) printf("; %d file%s failed to load", nfailed, nfailed == 1 ? "" : "s");
    printf("\n");
    if (csv) {
        FILE *f = ncp_safe_fopen(csv, &err);
        if (!f) {
            rc = err.code;
            goto fail;
        }
        ncp_labels_csv_header(f);
        for (int i = 0; i < total; i++) ncp_labels_csv_row(f, &all[i]);
        if (fclose(f) != 0) {
            rc = ncp_error_set(&err, NCP_ERR_IO, "cannot write %s: %s", csv, strerror(errno));
            goto fail;
        }
    }
    if (json) {
        cJSON *arr = ncp_labels_json_array(all, total);
        if ((rc = ncp_out_write_json(json, arr, !arr, &err))) goto fail;
    }
    free(all);
    ncp_collection_free(coll);
    return nfailed ? NCP_EXIT_FILES_FAILED : 0;
fail:
    fprintf(stderr, "ncpbench describe: %s\n", err.msg);
    free(all);
    ncp_collection_free(coll);
    return rc == NCP_ERR_INPUT ? 2 : 3;
}
