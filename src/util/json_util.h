/* Strict validation of JSON input (scene files, robot model files): typed getters that check
 * type and range, unknown-key checks, and messages that read
 *     "<file>: <json.path>: <what is wrong> (expected ...)"
 * shared by every reader of JSON input (scene/scene.c, robot.c, cases.c, sdf_scene.c,
 * sim/motion.c), so that every input file is held to the same rules with the same wording. */
#ifndef NCP_JSON_UTIL_H
#define NCP_JSON_UTIL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/ncp_error.h"

/* Room for a JSON path ("robots[0].controller.waypoints[3].q"); longer paths (only with absurd
 * nesting) end in "...". */
#define NCP_JSON_PATH_MAX 256

/* Where the text came from (named first in every message) and the error sink. */
typedef struct ncp_json_ctx {
    const char *where;
    ncp_error *err;
} ncp_json_ctx;

/* Range of ncp_json_get_number. */
enum {
    NCP_JSON_FINITE,    /* any finite number */
    NCP_JSON_POSITIVE,  /* > 0 */
    NCP_JSON_NONNEG,    /* >= 0 */
    NCP_JSON_UNIT,      /* in [0, 1] */
    NCP_JSON_UNIT_OPEN, /* in [0, 1) */
};

/* Sets err to NCP_ERR_INPUT with "<where>: <path>: <message>"; returns NCP_ERR_INPUT. */
int ncp_json_fail(const ncp_json_ctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "must be <expected>, got <what v is>" at path. */
int ncp_json_expect(const ncp_json_ctx *c, const char *path, const cJSON *v, const char *expected);

/* What a JSON value is, for "got ..." ("nothing" for NULL, the number, "the string \"...\"", ...). */
const char *ncp_json_describe(const cJSON *v, char *buf, size_t n);

/* out (NCP_JSON_PATH_MAX chars) = path.key (key alone at the top level, path = ""). */
void ncp_json_key(char *out, const char *path, const char *key);
/* out (NCP_JSON_PATH_MAX chars) = path[i]. */
void ncp_json_index(char *out, const char *path, int i);

/* obj must be an object (at path; "(top level)" when path is "") whose keys are all in the
 * NULL-terminated `allowed`, each once. */
int ncp_json_check_keys(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                        const char *const *allowed);

/* The getters read member `key` of obj (at path; obj may be NULL: every member is absent).
 * Absent: an error "missing (expected ...)" if req, else *out = def. Present: the type and range
 * are checked; the message names path.key, what was expected and what was found. */

/* A number of range NCP_JSON_FINITE ... NCP_JSON_UNIT_OPEN. */
int ncp_json_get_number(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                        const char *key, int req, int range, double def, double *out);
/* ncp_json_get_number with the unit named in messages when not NULL: "must be a positive number
 * in metres, got -1". */
int ncp_json_get_quantity(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                          const char *key, int req, int range, const char *unit, double def,
                          double *out);
/* An integer in [lo, 1e9] ("must be an integer >= lo"). */
int ncp_json_get_int(const ncp_json_ctx *c, const cJSON *obj, const char *path, const char *key,
                     int req, int lo, int def, int *out);
/* An integer in [lo, hi] ("must be an integer in [lo, hi]"). */
int ncp_json_get_int_in(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                        const char *key, int req, int lo, int hi, int def, int *out);
/* true or false (always optional). */
int ncp_json_get_bool(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                      const char *key, int def, int *out);
/* A non-empty string shorter than cap (copied into out). */
int ncp_json_get_string(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                        const char *key, int req, const char *def, char *out, size_t cap);
/* An array of n finite numbers; def (n numbers) may be NULL when req. */
int ncp_json_get_vec(const ncp_json_ctx *c, const cJSON *obj, const char *path, const char *key,
                     int req, int n, const double *def, double *out);
/* A string from the NULL-terminated `names`; *out = its index. */
int ncp_json_get_enum(const ncp_json_ctx *c, const cJSON *obj, const char *path,
                      const char *key, int req, const char *const *names, int def, int *out);

/* out (cap chars) = the NULL-terminated names as "a, b, c" (truncated at cap), for "expected
 * one of: ..." in messages. */
void ncp_json_join_names(char *out, size_t cap, const char *const *names);

/* name (at path) must use only letters, digits, '-', '_' and '.' (it becomes a file or HDF5
 * name); `what` ("a robot name"), if not NULL, starts the message. */
int ncp_json_check_name(const ncp_json_ctx *c, const char *path, const char *name,
                        const char *what);

/* Reads v as an array of n numbers into out, without messages: -1 if v is not an array of n
 * elements, else the index of the first element that is not a finite number (out[0..index-1]
 * written), or n when all are. */
int ncp_json_numbers(const cJSON *v, int n, double *out);

/* Reads the JSON text file at path (NUL-terminated, caller frees *out). Messages name the path
 * and `what` ("scene file"): cannot open, larger than limit bytes, read error, a NUL byte. */
int ncp_json_read_text(const char *path, const char *what, size_t limit, char **out,
                       ncp_error *err);

#endif
