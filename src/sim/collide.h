/* Collision of the world: every contact of the world in its current pose. Broad phase: world
 * AABBs of finite shapes in a uniform grid (cells the median shape's size; a shape spanning
 * too many cells is tested against all), O(n log n) plus the pairs found for piles and walls of
 * similar bodies; planes are infinite and are paired with every finite shape of another,
 * moving body. Narrow phase: geometry/collision.h. */
#ifndef NCP_COLLIDE_H
#define NCP_COLLIDE_H

#include "geometry/contact.h"
#include "sim/world.h"

/* All contacts of the world in its current pose, in a deterministic order (by shape pair,
 * then by feature order of the narrow phase). The list is reused across calls. */
int ncp_collide(const ncp_world *w, ncp_contact_list *out, ncp_error *err);

/* The same without the pairs the model excludes (ncp_model_bodies_collide). */
int ncp_world_collide(const ncp_world *w, ncp_contact_list *out, ncp_error *err);

/* A bound on the contacts of the world in its current pose, for the memory prediction
 * (scene/scene.h): the broad phase's pairs with AABBs grown by `inflate` (m) beyond the
 * margin (a plane only with the shapes whose grown AABB reaches it), minus the pairs the
 * model excludes, times each pair's cap (1 with a sphere, 2 for a capsule on a capsule or a
 * plane, else 4; the SDF cap for contact-rich pairs). */
int ncp_world_contact_bound(const ncp_world *w, double inflate, long *npairs, long *ncontacts,
                            ncp_error *err);

#endif
