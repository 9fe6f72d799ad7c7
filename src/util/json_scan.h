/* Parsing a JSON input file within the memory budget (util/membudget.h). cJSON reports an
 * allocation that failed exactly as a syntax error (NULL and a position), and under
 * --max-memory (an address-space cap) its allocations can fail: a valid scene would then read
 * "malformed JSON". So the text is first scanned without allocating anything, by the grammar
 * cJSON 1.7 accepts: a malformed text is reported as malformed (with the position cJSON gives),
 * a valid one has its parsed tree's size predicted and checked against the budget before cJSON
 * runs, and a cJSON failure on a text the scan accepted can only be memory, reported as such. */
#ifndef NCP_JSON_SCAN_H
#define NCP_JSON_SCAN_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/ncp_error.h"

typedef struct ncp_json_scan {
    int ok;            /* 1: cJSON_ParseWithOpts(text, &end, 1) accepts the text */
    size_t error_at;   /* ok == 0: the byte offset cJSON reports the error at */
    size_t values;     /* the values (cJSON nodes: every number, string, literal, array, object) */
    double tree_bytes; /* heap the parsed tree takes: a node per value, a copy of every string
                          and key (glibc's chunk sizes) */
} ncp_json_scan;

/* Scans the NUL-terminated text (no allocation, no recursion). */
void ncp_json_scan_text(const char *text, ncp_json_scan *out);

/* Parses text, read from `where` (a file name, named first in every message), into *out
 * (caller deletes). `held` bytes already taken for the text (its buffers) count with the tree
 * against `budget` (<= 0: the default budget). NCP_ERR_INPUT:
 *   "WHERE: line L, column C: malformed JSON near "..." (expected a valid JSON document; ...)";
 *   "WHERE: its JSON text (S) and parsed tree (N values) need X, above the memory budget of B
 *    (raise it with --max-memory ...)" (predicted, before parsing; ncp_mem_check);
 *   the same from cJSON's failure on a text the scan accepted (ncp_mem_refuse). */
int ncp_json_parse_doc(const char *text, const char *where, double budget, double held,
                       cJSON **out, ncp_error *err);

#endif
