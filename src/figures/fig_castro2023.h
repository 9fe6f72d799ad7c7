/* `ncpbench figures --paper castro2023`: Castro et al. 2023 (SAP) §VI-C, the clutter
 * experiments (fig_castro2023.c). */
#ifndef NCP_FIG_CASTRO2023_H
#define NCP_FIG_CASTRO2023_H

#include "figures/figures.h"

int ncp_fig_castro2023(const ncp_fig_opts *o, ncp_error *err);

#endif
