/* The multibody parts of a scene file (robots, robot model files, constraints, wrenches, the
 * integrator; schema in scenes/README.md "Robots" and following). Private to scene.c and
 * robot.c. */
#ifndef NCP_ROBOT_H
#define NCP_ROBOT_H

#include <cjson/cJSON.h>

#include "sim/world.h"

/* Parses the top-level "dynamics", "robots", "constraints" and "wrenches" of a scene whose
 * materials and bodies are already in m (ncp_model_finalize done), appends the robots' links
 * as bodies, rebuilds the trees and resolves anchors. `where` names the scene file; robot model
 * paths are relative to its directory; a model file is parsed within the memory budget `budget`
 * (bytes, <= 0: the default; util/json_scan.h). Messages read "<file>: <json.path>: <what is
 * wrong>". */
int ncp_scene_parse_multibody(const cJSON *root, const char *where, double budget, ncp_model *m,
                              ncp_error *err);

#endif
