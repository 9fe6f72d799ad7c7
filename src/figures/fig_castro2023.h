/* `ncpbench figures --paper castro2023`: Castro et al. 2023 (SAP) §VI-B and §VI-C as a declared
 * study (src/figures/castro2023/, src/figures/study.h). */
#ifndef NCP_FIG_CASTRO2023_H
#define NCP_FIG_CASTRO2023_H

#include "figures/figures.h"

int ncp_fig_castro2023(const ncp_fig_opts *o, ncp_error *err);

#endif
