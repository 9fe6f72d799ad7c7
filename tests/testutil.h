/* Shared test fixtures: random but seeded problems with known structure. */
#ifndef NCP_TESTUTIL_H
#define NCP_TESTUTIL_H

#include <stdint.h>

#include "problem.h"

/* Deterministic RNG (splitmix64) for tests. */
typedef struct { uint64_t s; } trng;
double trng_uniform(trng *r);            /* [0, 1) */
double trng_normal(trng *r);             /* N(0, 1) */

/* A random primal problem: nv dofs, nc contacts plus nbil bilateral, nuni unilateral and nsoft
 * soft rows; A = SPD (well conditioned), J random dense, b and e random so that some contacts
 * are open, some stick and some slide. Dual data computed. */
int tutil_random_problem(ncp_problem *p, uint64_t seed, int nv, int nc, int nbil, int nuni,
                         int nsoft, ncp_error *err);

#endif
