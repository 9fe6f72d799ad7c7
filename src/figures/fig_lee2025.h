/* `ncpbench figures`: Lee et al. 2025 §VII, Fig. 7, 9, 11, Tables II, III and the claims table
 * (fig_lee2025.c). */
#ifndef NCP_FIG_LEE2025_H
#define NCP_FIG_LEE2025_H

#include "figures/figures.h"

int ncp_fig_lee2025(const ncp_fig_opts *o, ncp_error *err);

#endif
