/* Narrow phase: closed-form or clipping routines for every pair of {plane, sphere, capsule,
 * box} except plane-plane, and the signed distance shapes through sdf_contact.h. The broad
 * phase over a world is sim/collide.h.
 *
 * Conventions (core/problem.h, docs/design.md): the normal points from shape/body 0 to shape/body 1;
 * dist is the signed distance phi (> 0 separated); the contact point is the midpoint between
 * the two closest (or deepest) surface points; the frame is (n, t1, t2), normal first, built
 * deterministically from n by ncp_contact_frame. Contacts are kept when phi < margin.
 */
#ifndef NCP_COLLISION_H
#define NCP_COLLISION_H

#include "geometry/contact.h"
#include "geometry/shape.h"

/* Narrow phase for one pair of posed shapes. Writes up to NCP_MAX_PAIR_CONTACTS entries into
 * `out` (shape/body fields and mu are left for the caller), with the normal from a to b.
 * Returns the number of contacts with dist < margin (0 for a plane-plane pair). */
int ncp_collide_geoms(const ncp_geom *a, const ncp_geom *b, double margin, ncp_contact *out);

#endif
