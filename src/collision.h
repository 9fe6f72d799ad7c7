/* Collision detection for primitive shapes (private to the simulation pipeline).
 *
 * Broad phase: world AABBs of finite shapes, sorted along x (sweep and prune); planes are
 * infinite and are paired with every finite shape. Narrow phase: closed-form or clipping
 * routines for every pair of {plane, sphere, capsule, box} except plane-plane.
 *
 * Conventions (problem.h, DESIGN.md §3): the normal points from shape/body 0 to shape/body 1;
 * dist is the signed distance phi (> 0 separated); the contact point is the midpoint between
 * the two closest (or deepest) surface points; the frame is (n, t1, t2), normal first, built
 * deterministically from n by ncp_contact_frame. Contacts are kept when phi < margin.
 */
#ifndef NCP_COLLISION_H
#define NCP_COLLISION_H

#include "world.h"

#define NCP_MAX_PAIR_CONTACTS 8 /* before reduction; at most 4 are returned per pair */

typedef struct ncp_contact {
    int shape[2];     /* shape indices (model), shape[0] belongs to body[0] */
    int body[2];      /* model body indices; body[0] is the static one when there is one */
    int feature;      /* which feature of the pair produced it (box corner, capsule end, clip
                         point, ...), for warm-start matching across steps */
    double dist;      /* signed distance phi */
    double point[3];  /* world */
    double frame[9];  /* rows n, t1, t2 (row-major) */
    double mu;        /* pair friction */
} ncp_contact;

typedef struct ncp_contact_list {
    int n, cap;
    ncp_contact *c;
} ncp_contact_list;

void ncp_contact_list_free(ncp_contact_list *l);

/* The deterministic tangent basis: t1 is the world axis least aligned with n (lowest index on
 * ties) made orthogonal to n, t2 = n x t1, so (n, t1, t2) is right-handed. */
void ncp_contact_frame(const double n[3], double frame[9]);

/* Narrow phase for one pair of posed shapes. Writes up to NCP_MAX_PAIR_CONTACTS entries into
 * `out` (shape/body fields and mu are left for the caller), with the normal from a to b.
 * Returns the number of contacts with dist < margin (0 for a plane-plane pair). */
int ncp_collide_geoms(const ncp_geom *a, const ncp_geom *b, double margin, ncp_contact *out);

/* All contacts of the world in its current pose, in a deterministic order (by shape pair,
 * then by feature order of the narrow phase). The list is reused across calls. */
int ncp_collide(const ncp_world *w, ncp_contact_list *out, ncp_error *err);

#endif
