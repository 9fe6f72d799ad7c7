/* `ncpbench figures --paper ncpreport2025`: the NCP report 2025 (arXiv 2504.19771), its suite
 * and accuracy metrics, as a declared study (src/figures/ncpreport2025/). */
#ifndef NCP_FIG_NCPREPORT2025_H
#define NCP_FIG_NCPREPORT2025_H

#include "figures/figures.h"

int ncp_fig_ncpreport2025(const ncp_fig_opts *o, ncp_error *err);

#endif
