/* `ncpbench figures`: Lee et al. 2025 §VII. `--paper lee2025`: Figs. 7, 9 and Tables II, III as a
 * declared study (src/figures/lee2025/). `--paper lee2025-rig`: the simulations the study layer
 * does not run yet, Fig. 11's pouring sweep and the three tasks (fig_lee2025.c). */
#ifndef NCP_FIG_LEE2025_H
#define NCP_FIG_LEE2025_H

#include "figures/figures.h"

int ncp_fig_lee2025(const ncp_fig_opts *o, ncp_error *err);
int ncp_fig_lee2025_rig(const ncp_fig_opts *o, ncp_error *err);

#endif
