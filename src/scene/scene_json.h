/* JSON readers of scene objects shared by the scene parser (scene.c) and the robot parser
 * (robot.c): orientations, materials and shapes. Messages name the file and the JSON path. */
#ifndef NCP_SCENE_JSON_H
#define NCP_SCENE_JSON_H

#include <cjson/cJSON.h>

#include "sim/world.h"
#include "util/json_util.h"


/* Optional "quat" [w, x, y, z], normalised (identity if absent; a zero quaternion is an error). */
int ncp_json_get_quat(const ncp_json_ctx *c, const cJSON *obj, const char *path, double q[4]);

/* Orientation: "quat" [w, x, y, z] (normalised here) or "axis" + "angle" (rad); identity if
 * neither is given. */
int ncp_scene_get_orientation(ncp_json_ctx *c, const cJSON *obj, const char *path, double q[4]);

/* path must name a regular file (or a link to one): a directory or a device is an input error
 * naming path and `what` ("scene file"), rather than a read error from fread. */
int ncp_scene_check_file(const char *path, const char *what, ncp_error *err);

/* Index of the material named `name` in the model, or -1. */
int ncp_scene_find_material(const ncp_model *m, const char *name);

/* One shape of body `body` at JSON path `path`. */
int ncp_scene_parse_shape(const cJSON *sh, const char *where, const char *path, ncp_model *m,
                          int body, ncp_shape_model *s, ncp_error *err);

#endif
