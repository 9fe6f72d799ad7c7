/* A contact point between two shapes and lists of them (the narrow phase's output). The
 * normal points from shape/body 0 to shape/body 1; dist is the signed distance phi (> 0
 * separated); the frame is (n, t1, t2), normal first. */
#ifndef NCP_CONTACT_H
#define NCP_CONTACT_H

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

#endif
