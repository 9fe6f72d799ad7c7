/* `ncpbench figures --paper castro2023`: Castro et al. 2023 (SAP) §VI-C as a declared study
 * (src/figures/castro2023/, src/figures/study.h); `--paper castro2023-rig`: the earlier rig
 * (fig_castro2023.c, its own capture and harness loops), kept for the parts the study does not
 * port yet (Fig. 10's Newton curves, Figs. 14-15's slip sweep, §VI-B's spring-cylinder). */
#ifndef NCP_FIG_CASTRO2023_H
#define NCP_FIG_CASTRO2023_H

#include "figures/figures.h"

int ncp_fig_castro2023(const ncp_fig_opts *o, ncp_error *err);
int ncp_fig_castro2023_rig(const ncp_fig_opts *o, ncp_error *err);

#endif
