/* Contact lists and the contact frame (contact.h). */
#include <math.h>
#include <stdlib.h>

#include "core/spatial.h"
#include "geometry/contact.h"

void ncp_contact_list_free(ncp_contact_list *l)
{
    if (!l) return;
    free(l->c);
    l->c = NULL;
    l->n = l->cap = 0;
}

void ncp_contact_frame(const double n[3], double frame[9])
{
    /* The world axis least aligned with n: the projection is then far from zero, so t1 is well
     * defined. The choice switches only where two components of |n| tie, which is a fixed
     * rule, so the same geometry always gets the same frame. */
    int k = 0;
    for (int i = 1; i < 3; i++)
        if (fabs(n[i]) < fabs(n[k])) k = i;
    double t1[3] = {0, 0, 0}, t2[3];
    t1[k] = 1.0;
    ncp_v3_axpy(-n[k], n, t1); /* e_k - (e_k . n) n */
    ncp_v3_normalize(t1);
    ncp_v3_cross(n, t1, t2);
    memcpy(frame, n, 3 * sizeof(double));
    memcpy(frame + 3, t1, 3 * sizeof(double));
    memcpy(frame + 6, t2, 3 * sizeof(double));
}

/* ---- small geometric helpers ---- */
