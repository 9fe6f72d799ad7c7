/* Scene-file support for signed distance shapes (implemented in sdf_scene.c; used by
 * scene.c). */
#ifndef NCP_SDF_SCENE_H
#define NCP_SDF_SCENE_H

#include <cjson/cJSON.h>

#include "sim/world.h"

/* Every key an {"type": "sdf"} shape may have (NULL-terminated), for scene.c's key check. */
extern const char *const ncp_sdf_shape_keys[];

/* Builds s->sdf from the shape object `sh` (kind and its parameters; the common keys type,
 * position, orientation and material are scene.c's) and moves s->pos by the rotated centroid,
 * so that `position` places the geometry origin (sdf.h). `where` and `path` name the file and
 * the JSON path in messages. */
int ncp_sdf_shape_parse(const cJSON *sh, const char *where, const char *path, ncp_shape_model *s,
                        ncp_error *err);

#endif
