/* Physical ranges of scene fields (ranges.h; documented in scenes/README.md, "Ranges"). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene/ranges.h"
#include "util/json_util.h"

#define ANY -INFINITY, INFINITY
#define LEN 1e4   /* positions, offsets: |x| <= 10 km */
#define SIZE 1e3  /* shape sizes <= 1 km */
#define DIR 1e3   /* direction vectors and quaternions (normalised after reading) */
#define ANG 1e4   /* angles, rad */
#define VEL 1e3   /* m/s */
#define AVEL 1e4  /* rad/s */
#define FRC 1e9   /* N, N m */
#define GAIN 1e9  /* gains, damping */
#define TIME 1e6  /* s */
#define MU 1e3    /* friction coefficient: the same bound as problem files (store) */

const ncp_scene_range ncp_scene_ranges[] = {
    /* top level */
    {"timestep", 0, 1, 1, "s", "the time step h"},
    {"duration", 0, TIME, 1, "s", "the simulated time"},
    {"steps", 1, 1e8, 0, "", "the number of simulated steps"},
    {"gravity", -1e3, 1e3, 0, "m/s^2", "gravity"},
    {"contact.margin", 0, 1, 0, "m", "the contact margin"},
    {"contact.erp", 0, 1, 0, "", "the error reduction parameter"},
    {"contact.max_recovery_velocity", 0, VEL, 0, "m/s", "the recovery velocity cap"},
    {"materials[].friction", 0, MU, 0, "", "a friction coefficient"},
    {"materials[].stiffness", 0, 1e12, 1, "N/m", "a contact stiffness"},
    {"materials[].dissipation", 0, 1e6, 0, "s/m", "a Hunt-Crossley dissipation"},
    {"material_pairs[].friction", 0, MU, 0, "", "a friction coefficient"},
    {"dynamics.theta", 0, 1, 0, "", "the integrator's theta"},
    {"dynamics.joint_erp", 0, 1, 0, "", "the joint error reduction parameter"},
    {"dynamics.limit_margin", 0, 10, 0, "m or rad", "the joint limit margin"},
    /* bodies */
    {"bodies[].position", -LEN, LEN, 0, "m", "a position"},
    {"bodies[].mass", 0, 1e9, 1, "kg", "a mass"},
    {"bodies[].density", 0, 1e5, 1, "kg/m^3", "a density"},
    {"bodies[].velocity", -VEL, VEL, 0, "m/s", "a velocity"},
    {"bodies[].angular_velocity", -AVEL, AVEL, 0, "rad/s", "an angular velocity"},
    {"bodies[].force", -FRC, FRC, 0, "N", "a force"},
    {"bodies[].torque", -FRC, FRC, 0, "N m", "a torque"},
    {"bodies[].motion.point", -LEN, LEN, 0, "m", "a point"},
    {"bodies[].motion.translation", -LEN, LEN, 0, "m", "a translation"},
    {"bodies[].motion.start", -TIME, TIME, 0, "s", "a time"},
    {"bodies[].motion.end", -TIME, TIME, 0, "s", "a time"},
    /* orientations and directions anywhere */
    {"**.quat", -DIR, DIR, 0, "", "a quaternion (normalised)"},
    {"**.axis", -DIR, DIR, 0, "", "a direction (normalised)"},
    {"**.angle", -ANG, ANG, 0, "rad", "an angle"},
    {"**.rpy", -ANG, ANG, 0, "rad", "roll, pitch, yaw angles"},
    /* shapes of bodies and links */
    {"**.shapes[].position", -LEN, LEN, 0, "m", "a position"},
    {"**.shapes[].normal", -DIR, DIR, 0, "", "a direction (normalised)"},
    {"**.shapes[].offset", -LEN, LEN, 0, "m", "a plane offset"},
    {"**.shapes[].radius", 1e-6, SIZE, 0, "m", "a radius"},
    {"**.shapes[].half_length", 0, SIZE, 0, "m", "a half length"},
    {"**.shapes[].half_extents", 1e-6, SIZE, 0, "m", "a half extent"},
    /* the SDF grid has (size/spacing)^3 cells: 0.1 mm keeps a shipped bolt under 2 GB */
    {"**.shapes[].spacing", 1e-4, 1, 0, "m", "an SDF grid spacing"},
    {"**.shapes[].max_contacts", 1, 1e5, 0, "", "a contact cap"},
    {"**.shapes[].diameter", 1e-6, SIZE, 0, "m", "a diameter"},
    {"**.shapes[].pitch", 1e-6, SIZE, 0, "m", "a thread pitch"},
    {"**.shapes[].length", 1e-6, SIZE, 0, "m", "a length"},
    {"**.shapes[].height", 1e-6, SIZE, 0, "m", "a height"},
    {"**.shapes[].width_across_flats", 1e-6, SIZE, 0, "m", "a width across flats"},
    {"**.shapes[].clearance", 0, 1, 0, "m", "a clearance"},
    {"**.shapes[].padding", 0, 1, 0, "m", "a padding"},
    {"**.shapes[].profile", -SIZE, SIZE, 0, "m", "a profile point"},
    /* robots and their links (inline or in a model file) */
    {"robots[].position", -LEN, LEN, 0, "m", "a position"},
    {"robots[].velocity", -VEL, VEL, 0, "m/s", "a velocity"},
    {"robots[].angular_velocity", -AVEL, AVEL, 0, "rad/s", "an angular velocity"},
    {"robots[].q0.*", -LEN, LEN, 0, "rad or m", "a joint position"},
    {"**.links[].mass", 0, 1e9, 1, "kg", "a mass"},
    {"**.links[].density", 0, 1e5, 1, "kg/m^3", "a density"},
    {"**.links[].inertial.mass", 0, 1e9, 1, "kg", "a mass"},
    {"**.links[].inertial.com", -LEN, LEN, 0, "m", "a centre of mass"},
    {"**.links[].inertial.inertia", -1e9, 1e9, 0, "kg m^2", "an inertia entry"},
    {"**.links[].joint.origin", -LEN, LEN, 0, "m", "a joint origin"},
    {"**.links[].joint.limits", -LEN, LEN, 0, "rad or m", "a joint limit"},
    {"**.links[].joint.damping", 0, GAIN, 0, "N m s/rad or N s/m", "a joint damping"},
    {"**.links[].joint.armature", 0, GAIN, 0, "kg m^2 or kg", "a joint armature"},
    {"robots[].controller.kp", 0, GAIN, 0, "N m/rad or N/m", "a stiffness gain"},
    {"robots[].controller.kd", 0, GAIN, 0, "N m s/rad or N s/m", "a damping gain"},
    {"robots[].controller.waypoints[].time", 0, TIME, 0, "s", "a time"},
    {"robots[].controller.waypoints[].q", -LEN, LEN, 0, "rad or m", "a joint position"},
    {"robots[].controller.gripper.open", -LEN, LEN, 0, "m or rad", "a gripper position"},
    {"robots[].controller.gripper.closed", -LEN, LEN, 0, "m or rad", "a gripper position"},
    {"robots[].controller.gripper.kp", 0, GAIN, 0, "N/m or N m/rad", "a stiffness gain"},
    {"robots[].controller.gripper.kd", 0, GAIN, 0, "N s/m or N m s/rad", "a damping gain"},
    {"robots[].controller.gripper.time", 0, TIME, 1, "s", "a closing time"},
    {"robots[].controller.gripper.commands[].time", 0, TIME, 0, "s", "a time"},
    /* constraints of the scene and loops of robots */
    {"constraints[].anchor", -LEN, LEN, 0, "m", "an anchor"},
    {"constraints[].anchors", -LEN, LEN, 0, "m", "an anchor"},
    {"constraints[].stiffness", 0, 1e12, 0, "N/m", "a spring stiffness"},
    {"constraints[].damping", 0, GAIN, 0, "N s/m", "a spring damping"},
    {"constraints[].rest_length", 0, LEN, 0, "m", "a rest length"},
    {"**.loops[].anchor", -LEN, LEN, 0, "m", "an anchor"},
    {"**.loops[].anchors", -LEN, LEN, 0, "m", "an anchor"},
    {"**.loops[].stiffness", 0, 1e12, 0, "N/m", "a spring stiffness"},
    {"**.loops[].damping", 0, GAIN, 0, "N s/m", "a spring damping"},
    {"**.loops[].rest_length", 0, LEN, 0, "m", "a rest length"},
    /* wrenches */
    {"wrenches[].start", 0, TIME, 0, "s", "a time"},
    {"wrenches[].end", 0, TIME, 0, "s", "a time"},
    {"wrenches[].force", -FRC, FRC, 0, "N", "a force"},
    {"wrenches[].torque", -FRC, FRC, 0, "N m", "a torque"},
    /* benchmark */
    {"benchmark.steps", 1, 1e6, 0, "", "a number of captured steps"},
    {"benchmark.quick_steps", 1, 1e6, 0, "", "a number of captured steps"},
    {"benchmark.skip", 0, 1e8, 0, "", "a number of steps"},
    {"benchmark.every", 1, 1e8, 0, "", "a step interval"},
    {"**.tol", 0, 1, 0, "", "a tolerance"},
    {"**.max_iter", 1, 1e9, 0, "", "an iteration cap"},
    {"**.budget_ms", 0, 1e9, 0, "ms", "a time budget"},
    {"benchmark.params.*.*", ANY, 0, "", "a solver parameter (checked by the solver)"},
    {"benchmark.cases.configurations", 1, 1e6, 0, "", "a number of configurations"},
    {"benchmark.cases.wrenches", 1, 1e6, 0, "", "a number of wrenches"},
    {"benchmark.cases.settle_steps", 0, 1e6, 0, "", "a number of steps"},
    {"benchmark.cases.position_noise", 0, 10, 0, "m", "a position noise"},
    {"benchmark.cases.rotation_noise", 0, 10, 0, "rad", "a rotation noise"},
    {"benchmark.cases.force", 0, 1e6, 0, "m |g|", "a force scale"},
    {"benchmark.cases.torque", 0, 1e6, 0, "m |g| r_g", "a torque scale"},
    {"benchmark.cases.screw.point", -LEN, LEN, 0, "m", "a point"},
    {"benchmark.cases.screw.lead", -SIZE, SIZE, 0, "m", "a screw lead"},
    /* task */
    {"task.step_budget_ms", 0, 1e9, 1, "ms", "a time budget"},
    {"task.criteria[].min", -LEN, LEN, 0, "m", "a displacement bound"},
    {"task.criteria[].max", -LEN, LEN, 0, "m or m/s", "a bound"},
    {"task.criteria[].target", -LEN, LEN, 0, "m", "a target position"},
    {"task.criteria[].tolerance", 0, LEN, 0, "m", "a tolerance"},
    {"task.criteria[].max_angle", 0, 4, 0, "rad", "an angle"},
    {"task.criteria[].fraction", 0, 1, 0, "", "a fraction"},
    {"task.criteria[].world", -DIR, DIR, 0, "", "a direction (normalised)"},
    {NULL, 0, 0, 0, NULL, NULL}};

#define MAX_COMPS 48

/* Splits s at '.' into (start, length) pairs; -1 when there are too many components. */
static int split(const char *s, const char *start[MAX_COMPS], size_t len[MAX_COMPS])
{
    int n = 0;
    while (*s) {
        if (n == MAX_COMPS) return -1;
        const char *e = strchr(s, '.');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        start[n] = s;
        len[n++] = l;
        s += l + (e ? 1 : 0);
    }
    return n;
}

static int matches(const char *pattern, const char *norm)
{
    const char *ps[MAX_COMPS], *ns[MAX_COMPS];
    size_t pl[MAX_COMPS], nl[MAX_COMPS];
    int np = split(pattern, ps, pl), nn = split(norm, ns, nl);
    if (np < 1 || nn < 1) return 0;
    int any_prefix = pl[0] == 2 && memcmp(ps[0], "**", 2) == 0;
    int first = any_prefix ? 1 : 0, count = np - first;
    if (any_prefix ? nn < count : nn != count) return 0;
    for (int k = 0; k < count; k++) {
        const char *p = ps[first + k], *s = ns[nn - count + k];
        size_t lp = pl[first + k], ls = nl[nn - count + k];
        if (lp == 1 && p[0] == '*') continue;
        if (lp != ls || memcmp(p, s, lp) != 0) return 0;
    }
    return 1;
}

const ncp_scene_range *ncp_scene_range_find(const char *norm)
{
    /* an element of a numeric array (or of an array of arrays) is its array's field */
    char key[NCP_JSON_PATH_MAX];
    snprintf(key, sizeof key, "%s", norm);
    size_t l = strlen(key);
    while (l >= 2 && key[l - 2] == '[' && key[l - 1] == ']') key[l -= 2] = '\0';
    for (const ncp_scene_range *r = ncp_scene_ranges; r->pattern; r++)
        if (matches(r->pattern, key)) return r;
    return NULL;
}

typedef struct walk_ctx {
    ncp_json_ctx c;
    int mode;
} walk_ctx;

static int walk(const walk_ctx *w, const cJSON *v, const char *path, const char *norm)
{
    char p[NCP_JSON_PATH_MAX], q[NCP_JSON_PATH_MAX];
    if (cJSON_IsNumber(v)) {
        const ncp_scene_range *r = ncp_scene_range_find(norm);
        if (!r) return w->mode == NCP_RANGES_STRICT ? ncp_json_fail(&w->c, path, "no documented range for this field") : NCP_OK;
        double x = v->valuedouble;
        if (isinf(r->lo) && isinf(r->hi)) return NCP_OK;
        if ((r->lo_open ? x > r->lo : x >= r->lo) && x <= r->hi) return NCP_OK;
        if (w->mode == NCP_RANGES_SHAPES_EARLY &&
            (strncmp(r->pattern, "**.shapes[].", 12) != 0 || (r->lo >= 0.0 && x <= 0.0)))
            return NCP_OK;
        return ncp_json_fail(&w->c, path, "%g is outside %c%g, %g]%s%s (expected %s%s%s)", x,
                             r->lo_open ? '(' : '[', r->lo, r->hi, r->unit[0] ? " " : "", r->unit,
                             r->what, r->unit[0] ? " in " : "", r->unit);
    }
    int i = 0;
    if (cJSON_IsArray(v)) {
        snprintf(q, sizeof q, "%s[]", norm);
        for (const cJSON *it = v->child; it; it = it->next, i++) {
            ncp_json_index(p, path, i);
            int rc = walk(w, it, p, q);
            if (rc) return rc;
        }
    } else if (cJSON_IsObject(v)) {
        for (const cJSON *it = v->child; it; it = it->next) {
            if (!it->string) continue;
            ncp_json_key(p, path, it->string);
            ncp_json_key(q, norm, it->string);
            int rc = walk(w, it, p, q);
            if (rc) return rc;
        }
    }
    return NCP_OK;
}

int ncp_scene_check_ranges(const cJSON *root, const char *where, const char *prefix, int mode,
                           ncp_error *err)
{
    walk_ctx w = {{where, err}, mode};
    return walk(&w, root, "", prefix ? prefix : "");
}
