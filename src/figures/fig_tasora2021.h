/* `ncpbench figures`: Tasora et al. 2021 TEST 1 (Figs. 2-6) and TEST 2, the wrecking ball (Fig. 8),
 * with their claims: a declared study (src/figures/tasora2021/, src/figures/study.h). */
#ifndef NCP_FIG_TASORA2021_H
#define NCP_FIG_TASORA2021_H

#include "figures/figures.h"

int ncp_fig_tasora2021(const ncp_fig_opts *o, ncp_error *err);

#endif
