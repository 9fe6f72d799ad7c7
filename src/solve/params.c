/* Named solver parameters and status names (solver.h). */
#include <string.h>

#include "solve/solver.h"
#include "solve/params.h"


double ncp_params_get(const ncp_params *ps, const char *name, double def)
{
    if (!ps) return def;
    for (int i = 0; i < ps->n; i++)
        if (strcmp(ps->items[i].name, name) == 0) return ps->items[i].value;
    return def;
}

int ncp_params_set(ncp_params *ps, const char *name, double value, ncp_error *err)
{
    if (strlen(name) >= sizeof ps->items[0].name)
        return ncp_error_set(err, NCP_ERR_INPUT, "parameter name '%s' is too long (max %zu chars)",
                             name, sizeof ps->items[0].name - 1);
    for (int i = 0; i < ps->n; i++)
        if (strcmp(ps->items[i].name, name) == 0) {
            ps->items[i].value = value;
            return NCP_OK;
        }
    if (ps->n >= (int)(sizeof ps->items / sizeof ps->items[0]))
        return ncp_error_set(err, NCP_ERR_INPUT, "too many solver parameters (max %zu)",
                             sizeof ps->items / sizeof ps->items[0]);
    strcpy(ps->items[ps->n].name, name);
    ps->items[ps->n].value = value;
    ps->n++;
    return NCP_OK;
}

int ncp_params_merge(ncp_params *dst, const ncp_params *src, ncp_error *err)
{
    for (int i = 0; i < src->n; i++) {
        int rc = ncp_params_set(dst, src->items[i].name, src->items[i].value, err);
        if (rc) return rc;
    }
    return NCP_OK;
}
