/* Physical ranges of the numeric fields of scene and robot model files (scenes/README.md,
 * "Ranges"). The typed getters of the parsers check types and signs; this table bounds every
 * number, so that a position of 1e9 m or a friction of 1e308 is refused with the file and the
 * JSON path ("x.json: bodies[3].position[0]: 1e+09 is outside [-10000, 10000] m ...") instead
 * of reaching the factorisation of the step. The bounds are generous: about two orders of
 * magnitude beyond anything the shipped scenes use, inside what double precision and the
 * simulator's tolerances handle. */
#ifndef NCP_SCENE_RANGES_H
#define NCP_SCENE_RANGES_H

#include <cjson/cJSON.h>

#include "util/ncp_error.h"

typedef struct ncp_scene_range {
    /* Path pattern: components separated by '.', an array level written "[]" (an element of a
     * numeric array is its array's path: bodies[].position covers bodies[3].position[0]); a
     * component "*" matches any one key; a leading "**." matches any prefix. */
    const char *pattern;
    double lo, hi;  /* -INFINITY, INFINITY: checked elsewhere (solver parameters) */
    int lo_open;    /* 1: lo itself is excluded, (lo, hi] */
    const char *unit;
    const char *what;
} ncp_scene_range;

/* The table (terminated by a NULL pattern), first match wins. */
extern const ncp_scene_range ncp_scene_ranges[];

/* The entry for the normalised path `norm` ("bodies[].shapes[].radius"), or NULL. */
const ncp_scene_range *ncp_scene_range_find(const char *norm);

/* What ncp_scene_check_ranges checks. */
enum {
    /* every number an entry covers (a number no entry covers is left to the parser, which
     * rejects unknown keys): after the parser's own checks (types, signs, its bounds, in its
     * words: "must be a positive number, got -2"), before the scene is simulated */
    NCP_RANGES_ALL = 0,
    /* the same, and a number no entry covers is an error too (tests: every field has one) */
    NCP_RANGES_STRICT = 1,
    /* before the parser: only the shapes' fields (an SDF shape is sampled while it is parsed:
     * a spacing of 1e-5 m would take minutes and gigabytes first), and no value <= 0 of a
     * field whose range starts at or above 0 (sign errors stay the parser's) */
    NCP_RANGES_SHAPES_EARLY = 2,
};

/* Checks the numbers of the JSON tree `root` against the table (mode above). `where` names
 * the file, `prefix` the normalised path of root ("" for a scene, "robots[]" for a robot model
 * file, whose links are the scene's robots[].links[]). NCP_ERR_INPUT naming the file, the JSON
 * path, the value and the range. */
int ncp_scene_check_ranges(const cJSON *root, const char *where, const char *prefix, int mode,
                           ncp_error *err);

#endif
