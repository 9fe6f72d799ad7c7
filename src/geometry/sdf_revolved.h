/* Revolved profiles as signed distance shapes: dishes and the bottle (sdf_revolved.c). */
#ifndef NCP_SDF_REVOLVED_H
#define NCP_SDF_REVOLVED_H

#include "geometry/sdf.h"

/* Revolved profile (Lee et al. 2025 App. B eq. 45, generalised from O-A-B to a polyline): rz holds
 * npts >= 2 points (r, z), the first on the axis (r = 0), the others with r >= 0;
 * f2(p) = min_i dist(p, segment_i) - pad, revolved about z. */
int ncp_sdf_revolved_create(const char *label, const double *rz, int npts, double pad,
                            double spacing, ncp_sdf **out, ncp_error *err);
/* Default App. B parameters of the named dish ("bowl", "plate", "pot", "bottle"): fills rz
 * (room for NCP_SDF_MAX_PROFILE points), *npts and *pad. Returns 0, or -1 for an unknown name. */
int ncp_sdf_dish_preset(const char *kind, double *rz, int *npts, double *pad);

#endif
