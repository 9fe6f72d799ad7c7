/* The benchmark.cases section of a scene: single-step cases (how they are generated:
 * capture/cases_capture.h). */
#ifndef NCP_CASES_H
#define NCP_CASES_H

#include <cjson/cJSON.h>

#include "sim/world.h"

#define NCP_CASES_MAX_BODIES 16

typedef struct ncp_cases_cfg {
    int configurations;       /* N >= 1 */
    int wrenches;             /* M >= 1 */
    int settle_steps;         /* >= 0 */
    int screw_body;           /* -1: no screw placement */
    double screw_axis[3];     /* unit */
    double screw_point[3];
    double screw_lead;        /* m per turn (positive: right hand) */
    double screw_angle[2];    /* rad, lo <= hi */
    double position_noise;    /* m */
    double rotation_noise;    /* rad */
    int nbodies;              /* bodies that get noise and wrenches (free root bodies) */
    int bodies[NCP_CASES_MAX_BODIES];
    double force;             /* max force, in body weights */
    double torque;            /* max torque, in body weight x radius of gyration */
} ncp_cases_cfg;

/* Parses benchmark.cases (obj may be NULL: all defaults; defaults need a dynamic body). */
int ncp_cases_parse(const cJSON *obj, const char *where, const ncp_model *m, ncp_cases_cfg *cfg,
                    ncp_error *err);

#endif
