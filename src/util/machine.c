#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ncp_commit.h"
#include "util/machine.h"

void ncp_cpu_model(char *out, size_t cap)
{
    snprintf(out, cap, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t') colon++;
                size_t n = strcspn(colon, "\n");
                snprintf(out, cap, "%.*s", (int)n, colon);
            }
            break;
        }
    fclose(f);
}

int ncp_cpu_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < 1 << 20 ? (int)n : 0;
}

int ncp_load_average(double out[3])
{
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return 0;
    int ok = fscanf(f, "%lf %lf %lf", &out[0], &out[1], &out[2]) == 3;
    fclose(f);
    return ok;
}

const char *ncp_build_commit(void) { return NCP_COMMIT; }
