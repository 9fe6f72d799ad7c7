/* ISO metric threads as signed distance shapes: the bolt and the hex nut (sdf_thread.c). */
#ifndef NCP_SDF_THREAD_H
#define NCP_SDF_THREAD_H

#include "geometry/sdf.h"

/* Bolt of major diameter d, pitch P and threaded length `length` (metres), whose surface is
 * offset inwards by `clearance` >= 0. `spacing` > 0 is the surface sample spacing. */
int ncp_sdf_bolt_create(double d, double P, double length, double clearance, double spacing,
                        ncp_sdf **out, ncp_error *err);
/* Hex nut: internal thread of nominal diameter D and pitch P on the basic profile, hexagon of
 * width across flats `width_af` (flats normal to +-y and at +-60 degrees), height `height`. */
int ncp_sdf_nut_create(double D, double P, double height, double width_af, double spacing,
                       ncp_sdf **out, ncp_error *err);

#endif
