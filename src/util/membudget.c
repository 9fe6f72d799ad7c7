/* Memory budget (membudget.h). */
#include "util/membudget.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

double ncp_mem_physical(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psz <= 0) return 0.0;
    return (double)pages * (double)psz;
}

double ncp_mem_process_size(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f) return 0.0;
    int ok = fscanf(f, "%lu", &pages) == 1;
    fclose(f);
    long psz = sysconf(_SC_PAGESIZE);
    return ok && psz > 0 ? (double)pages * (double)psz : 0.0;
}

int ncp_mem_limit_address_space(double limit)
{
#ifdef NCP_MEM_NO_ADDRESS_LIMIT
    (void)limit;
    return 0;
#else
    struct rlimit rl;
    if (!(limit > 0.0) || limit >= 9.0e18 || getrlimit(RLIMIT_AS, &rl) != 0) return 0;
    rlim_t lim = (rlim_t)limit;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < lim) lim = rl.rlim_max;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < lim) lim = rl.rlim_cur; /* never raised */
    rl.rlim_cur = rl.rlim_max = lim;
    return setrlimit(RLIMIT_AS, &rl) == 0;
#endif
}

void ncp_mem_cap_process(double budget)
{
    double now = ncp_mem_process_size();
    if (now > 0.0) (void)ncp_mem_limit_address_space(now + ncp_mem_budget_or_default(budget));
}

double ncp_mem_default_budget(void)
{
    double phys = ncp_mem_physical();
    if (phys <= 0.0) return 16.0 * 1024.0 * 1024.0 * 1024.0;
    return NCP_MEM_DEFAULT_FRACTION * phys;
}

double ncp_mem_budget_or_default(double bytes)
{
    return bytes > 0.0 ? bytes : ncp_mem_default_budget();
}

const char *ncp_mem_format(double bytes, char *buf, size_t size)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int k = 0;
    double v = bytes;
    while (fabs(v) >= 1024.0 && k < 6) {
        v /= 1024.0;
        k++;
    }
    if (k == 0) snprintf(buf, size, "%.0f B", v);
    else snprintf(buf, size, "%.3g %s", v, unit[k]);
    return buf;
}

int ncp_mem_parse(const char *text, const char *what, double *bytes, ncp_error *err)
{
    if (!text || !*text)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: empty value (give bytes, e.g. 8G, 512M, or a percentage of physical memory, e.g. 40%%)", what);
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || !isfinite(v) || v <= 0.0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: '%s' is not a positive size (e.g. 8G, 512M, 40%%)", what, text);
    double mult = 1.0;
    if (*end == '%') {
        double phys = ncp_mem_physical();
        if (phys <= 0.0)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: '%s' is a percentage, but the physical memory of this machine is unknown; give bytes (e.g. 8G)", what, text);
        if (v > 100.0)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: '%s' is above 100%% of the physical memory", what, text);
        mult = phys / 100.0;
        end++;
    } else if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mult = 1024.0; break;
        case 'M': mult = 1024.0 * 1024.0; break;
        case 'G': mult = 1024.0 * 1024.0 * 1024.0; break;
        case 'T': mult = 1024.0 * 1024.0 * 1024.0 * 1024.0; break;
        case 'B': mult = 1.0; break;
        default:
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: unknown unit in '%s' (use K, M, G, T or %%)", what, text);
        }
        if (toupper((unsigned char)*end) != 'B') {
            end++;
            if (*end == 'i' || *end == 'I') end++;
            if (*end == 'b' || *end == 'B') end++;
        } else {
            end++;
        }
    }
    if (*end)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: trailing text in '%s' (e.g. 8G, 512M, 40%%)", what, text);
    double b = v * mult;
    if (b < 1024.0 * 1024.0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: '%s' is below 1 MiB, too small to run anything", what, text);
    *bytes = b;
    return NCP_OK;
}

int ncp_mem_check(double budget, double request, const char *what, ncp_error *err)
{
    double b = ncp_mem_budget_or_default(budget);
    if (!(request <= b)) { /* NaN requests are refused too */
        char rb[32], bb[32];
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "%s needs %s, above the memory budget of %s (raise it with --max-memory, e.g. --max-memory 80%%)",
                             what, ncp_mem_format(request, rb, sizeof rb),
                             ncp_mem_format(b, bb, sizeof bb));
    }
    return NCP_OK;
}

double ncp_mem_address_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 0.0;
    return (double)rl.rlim_cur;
}

int ncp_mem_refuse(double budget, const char *what, const char *detail, ncp_error *err)
{
    const double b = ncp_mem_budget_or_default(budget), limit = ncp_mem_address_limit();
    char bb[32], w[600], d[600]; /* what or detail may be err's own message */
    snprintf(w, sizeof w, "%s", what);
    snprintf(d, sizeof d, "%s", detail);
    what = w;
    detail = d;
    ncp_error_clear(err);
    if (limit <= 0.0)
        return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory: %s (%s)", what, detail);
    if (limit < b) /* ncp_mem_cap_process sets the size at start + the budget: not ours */
        return ncp_error_set(err, NCP_ERR_NOMEM, "%s needs more memory than the address-space "
                             "limit of %s allows (%s; ulimit -v)", what,
                             ncp_mem_format(limit, bb, sizeof bb), detail);
    return ncp_error_set(err, NCP_ERR_INPUT, "%s needs more than the memory budget of %s allows "
                         "(%s; raise it with --max-memory, e.g. --max-memory 80%%)", what,
                         ncp_mem_format(b, bb, sizeof bb), detail);
}
