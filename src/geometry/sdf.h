/* Signed distance geometry for contact-rich shapes (Lee et al. 2025 §VII-A/B/C and Appendix B):
 * a threaded M48 bolt and its hex nut (ISO 68-1 basic profile, helical), and revolved-profile
 * dishes and bottles. Each shape gives the value f and the gradient of its signed distance
 * function (f > 0 outside, docs/design.md), a surface sample set for contact generation
 * (sdf_contact.h), a bounding box and its mass properties.
 *
 * Frames. A shape is built in its GEOMETRY frame (bolt: axis z, threaded from z = 0 to
 * z = length; nut: axis z, centred, z in [-height/2, height/2]; revolved: axis z, profile
 * point O at the origin). Everything public here is expressed in the SHAPE frame, whose origin
 * is the shape's centroid (uniform density) and whose axes are the geometry axes:
 * x_geometry = x_shape + centroid. The scene loader (sdf_scene.c) moves the shape's position
 * by the centroid, so a scene places the geometry origin and the mass properties of a dynamic
 * body come out right without any change to the rigid-body code.
 *
 * Exactness (what the tests check):
 *   - revolved: exact (the revolution of an exact 2-D distance; App. B eq. 45);
 *   - thread: f = g / lambda_c, g the exact distance in the meridional half-plane to the
 *     helically swept ISO profile. Its zero set is exactly the
 *     thread surface; |grad f| <= 1 wherever r >= r_c = d1/2 - P (within one pitch of every
 *     thread point), and on the surface 1/lambda_c <= |grad f| <= 1 with lambda_c =
 *     sqrt(1 + k^2/r_c^2) (k = lead/2pi): 0.9988 for M48 x 5. Near the axis (r < k, more than
 *     20 mm inside the solid or the bore) the helical phase term can exceed 1; no contact query
 *     reaches there.
 *   - hex prism: exact (extruded exact hexagon).
 */
#ifndef NCP_SDF_H
#define NCP_SDF_H

#include "util/ncp_error.h"

typedef enum ncp_sdf_kind {
    NCP_SDF_BOLT = 0,
    NCP_SDF_NUT = 1,
    NCP_SDF_REVOLVED = 2
} ncp_sdf_kind;

#define NCP_SDF_MAX_PROFILE 8        /* points of a revolved profile polyline */
#define NCP_SDF_DEFAULT_MAX_CONTACTS 120 /* per pair; Lee et al. 2025 §VII-A */

/* ISO 68-1 thread. */
typedef struct ncp_thread_geom {
    double d;         /* major diameter (bolt crest / nut root) */
    double P;         /* pitch = lead (single start) */
    double d1;        /* basic minor diameter d - 5H/4 (bolt root flat / nut crest) */
    double k;         /* lead / (2 pi), length per radian */
    double length;    /* bolt: threaded length; nut: height m */
    double clearance; /* bolt: inward normal offset of the whole surface (fit allowance) */
    double width_af;  /* nut: width across flats of the hexagon */
    double lambda_c;  /* sqrt(1 + k^2 / r_c^2), r_c = d1/2 - P */
} ncp_thread_geom;

struct ncp_sdf;

/* What a kind of shape supplies (sdf_thread.c, sdf_revolved.c): its creators set it, and
 * sdf.c reaches the kind only through it, so the generic code depends on no kind. */
typedef struct ncp_sdf_ops {
    /* geometry-frame evaluation: signed distance and (if grad != NULL) its gradient */
    double (*eval)(const struct ncp_sdf *s, const double x[3], double grad[3]);
    /* geometry-frame mass properties (volume, centroid, unit-density inertia about the
     * centroid) and bounding box */
    int (*mass)(struct ncp_sdf *s, ncp_error *err);
    /* candidate surface points (geometry frame), appended through ncp_sdf_push_sample */
    int (*sample)(struct ncp_sdf *s, ncp_error *err);
} ncp_sdf_ops;

typedef struct ncp_sdf {
    int kind;                 /* ncp_sdf_kind */
    const ncp_sdf_ops *ops;   /* the kind's geometry */
    char label[16];           /* "bolt", "nut", "bowl", "plate", "pot", "bottle", "revolved" */
    ncp_thread_geom th;       /* bolt, nut */
    int npts;                 /* revolved: profile points (r, z), pts[0] on the axis */
    double pts[2 * NCP_SDF_MAX_PROFILE];
    double pad;               /* revolved: padding d of eq. 45 (half the wall thickness) */
    double centroid[3];       /* geometry-frame position of the shape-frame origin */
    double lo[3], hi[3];      /* bounding box, shape frame */
    double volume;            /* m^3 */
    double inertia1[9];       /* inertia of unit density about the centroid, shape axes */
    double spacing;           /* surface sample spacing, m */
    int max_contacts;         /* cap on contacts per pair involving this shape */
    int nsamples;
    double *samples;          /* 3 x nsamples surface points, shape frame, sorted by z */
} ncp_sdf;

/* ---- queries (shape frame) ---- */

/* Signed distance at x; writes the gradient if grad is non-NULL. */
double ncp_sdf_eval(const ncp_sdf *s, const double x[3], double grad[3]);
/* Volume (m^3) and inertia of mass `mass` about the centroid, shape axes (row-major). */
double ncp_sdf_volume(const ncp_sdf *s);
void ncp_sdf_inertia(const ncp_sdf *s, double mass, double I[9]);
/* Index range [*i0, *i1) of the samples with zlo <= z <= zhi (samples are sorted by z). */
void ncp_sdf_sample_range(const ncp_sdf *s, double zlo, double zhi, int *i0, int *i1);

void ncp_sdf_free(ncp_sdf *s);

/* ---- for the kinds' creators (sdf_thread.c, sdf_revolved.c) ---- */

int ncp_sdf_push_sample(ncp_sdf *s, int *cap, double x, double y, double z, ncp_error *err);
/* Finishes construction through s->ops: mass, sampling, then projects the candidates onto
 * f = 0, drops those that do not land on the surface, shifts them to the shape frame and sorts
 * them. */
int ncp_sdf_finish(ncp_sdf *s, ncp_error *err);

#endif
