/* `ncpbench figures --paper lee2025`: Lee et al. 2025 §VII (Figs. 7, 9, 11, Tables II, III and
 * the tasks) as a declared study (src/figures/lee2025/, src/figures/study.h). */
#ifndef NCP_FIG_LEE2025_H
#define NCP_FIG_LEE2025_H

#include "figures/figures.h"

int ncp_fig_lee2025(const ncp_fig_opts *o, ncp_error *err);

#endif
