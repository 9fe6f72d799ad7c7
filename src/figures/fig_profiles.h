/* `ncpbench figures`: Dolan-More performance profiles over every shipped scene (fig_profiles.c). */
#ifndef NCP_FIG_PROFILES_H
#define NCP_FIG_PROFILES_H

#include "figures/figures.h"

int ncp_fig_profiles(const ncp_fig_opts *o, ncp_error *err);

#endif
