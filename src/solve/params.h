/* Named solver parameters: lookup with defaults and validated setting (params.c). */
#ifndef NCP_PARAMS_H
#define NCP_PARAMS_H

#include "solve/solver.h"

/* Value of `name`, or `def` if not given. */
double ncp_params_get(const ncp_params *ps, const char *name, double def);
int ncp_params_set(ncp_params *ps, const char *name, double value, ncp_error *err);
/* Sets every parameter of src in dst (src's values win). Errors as ncp_params_set. */
int ncp_params_merge(ncp_params *dst, const ncp_params *src, ncp_error *err);

#endif
