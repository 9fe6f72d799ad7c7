/* Status names of the solver interface (solver.h). */
#include <string.h>

#include "solve/solver.h"

const char *ncp_status_name(int status)
{
    switch (status) {
    case NCP_STATUS_CONVERGED: return "converged";
    case NCP_STATUS_MAX_ITER: return "max_iter";
    case NCP_STATUS_TIMEOUT: return "timeout";
    case NCP_STATUS_STALLED: return "stalled";
    case NCP_STATUS_FAILED: return "failed";
    case NCP_STATUS_STOPPED: return "stopped";
    case NCP_STATUS_UNSUPPORTED: return "unsupported";
    case NCP_STATUS_CRASHED: return "crashed";
    default: return "unknown";
    }
}

int ncp_status_from_name(const char *name)
{
    for (int s = NCP_STATUS_CONVERGED; name && s <= NCP_STATUS_LAST; s++)
        if (!strcmp(name, ncp_status_name(s))) return s;
    return -1;
}
