/* Contact generation for signed distance shapes (sdf.h) against each other and against the
 * primitive shapes (plane, sphere, capsule, box).
 *
 * Method (Lee et al. 2025 §VII-A uses an SDF for the bolt and Frank-Wolfe on a triangulated nut; we
 * sample instead, both ways):
 *   1. Candidates. The precomputed surface samples of each finite, non-sphere shape (the SDF
 *      samples of sdf.h; boxes and capsules are sampled on the fly at the SDF's spacing) are
 *      culled to the other shape's bounding box grown by the margin, then evaluated in the
 *      other shape's signed distance. A sample x of shape a with phi_b(x) < margin is a
 *      candidate with gap phi_b(x), normal -grad phi_b / |grad phi_b| (from a towards b) and
 *      point x - phi_b(x)/2 grad phi_b/|grad phi_b| (midway between x and its closest point on
 *      b, to first order); and symmetrically for the samples of b in phi_a.
 *   2. Reduction. If there are more candidates than the pair's cap (the smaller max_contacts
 *      of its SDF shapes, 120 by default as in Lee et al. 2025 §VII-A), they are clustered by
 *      k-centre clustering (Gonzalez's farthest-point algorithm) in the 6-D feature
 *      (x, w n), w = 10 sample spacings, so that opposite thread flanks a few millimetres apart
 *      stay in different clusters; the first centre is the deepest candidate. Each cluster
 *      keeps its deepest member as it is (point, normal and gap of one real candidate, so the
 *      three stay consistent). Deterministic: ties go to the lower candidate index.
 *   3. Spheres against an SDF (particles in a bottle): the sphere's centre is evaluated in the
 *      SDF (exact closest point for an exact SDF), and the SDF samples within the margin of the
 *      sphere propose further contact directions (a particle in the corner of a bottle touches
 *      the wall and the bottom); directions closer than 25 degrees to a kept one are merged,
 *      and each kept one is refined to the locally closest surface point by alternating
 *      tangent-plane and surface projections. At most 4 contacts.
 *
 * Features (warm-start keys): side (0: sample of a, 1: of b, 2: sphere centre) << 24 | sample
 * index. */
#ifndef NCP_SDF_CONTACT_H
#define NCP_SDF_CONTACT_H

#include "geometry/contact.h"
#include "geometry/shape.h"
#include "util/ncp_error.h"

#define NCP_SDF_SPHERE_CONTACTS 4

/* Contacts between posed shapes a and b (at least one of type NCP_SHAPE_SDF), normal from a to
 * b, at most max_out of them (shape/body/mu fields left to the caller, as in
 * ncp_collide_geoms). Returns the count in *nout. */
int ncp_sdf_collide(const ncp_geom *a, const ncp_geom *b, double margin, int max_out,
                    ncp_contact *out, int *nout, ncp_error *err);

/* The cap on contacts for a pair (the smaller max_contacts of its SDF shapes; 4 for a sphere). */
int ncp_sdf_pair_cap(const ncp_geom *a, const ncp_geom *b);

/* World bounding box of a posed SDF shape. */
void ncp_sdf_geom_aabb(const ncp_geom *g, double lo[3], double hi[3]);

#endif
