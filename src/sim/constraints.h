/* Constraint rows of the world itself: joint limits, loop closures, welds and springs
 * (constraints.c), and the entry every row producer hands to the assembler (assemble.h). */
#ifndef NCP_CONSTRAINTS_H
#define NCP_CONSTRAINTS_H

#include "sim/world.h"

/* One constraint block before layout: what every producer (contacts, joint limits, closures,
 * welds, springs) hands to the assembler. */
typedef struct ncp_cons_entry {
    int type;            /* ncp_block_type */
    int body[2];         /* model bodies (-1 = world); body[1] gets +J, body[0] gets -J */
    double point[2][3];  /* world point of each body where the row acts */
    double lin[3][3];    /* per row (1, or 3 for contacts) */
    double ang[3][3];
    double e[3];
    double mu;           /* CONTACT */
    double k, c, phi;    /* SOFT (problem.h) */
    int contact;         /* CONTACT: index into the contact list, else -1 */
    int key[4];          /* identity across steps, for warm starts (step.c) */
} ncp_cons_entry;

/* The world's own rows at its current state (constraints.c): joint limits within the limit
 * margin (UNILATERAL), loop closures and welds (BILATERAL) and springs (SOFT). *out is
 * (re)allocated; *n receives the count. */
int ncp_world_rows(const ncp_world *w, ncp_cons_entry **out, int *n, ncp_error *err);

#endif
