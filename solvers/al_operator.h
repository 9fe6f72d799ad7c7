/* The per-block operator T of Lee et al. 2025's augmented Lagrangian (eqs. 14-17 for the
 * strict operator, eqs. 21-23 for the proximal one): the piece the AL solvers (al_common.c,
 * canal.c) and SubADMM's closed-form lambda update (subadmm_core.c) share, and which tests
 * check directly. */
#ifndef NCP_AL_OPERATOR_H
#define NCP_AL_OPERATOR_H

#include "core/problem.h"

/* Per-block operator at x (block rows of x): out = T(x); G = dT/dx if non-NULL (9 entries,
 * column-major, scalar blocks fill G[0]); returns psi(x) when want_psi (the potential with
 * grad psi = T/beta, canal only). prox selects the proximal contact operator. */
double ncp_al_block_T(const ncp_block *b, int prox, double beta, const double *x, double *out,
                      double *G, int want_psi);

#endif
