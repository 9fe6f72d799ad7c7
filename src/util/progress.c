#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/progress.h"

void ncp_progress_begin(ncp_progress *pg, const char *label, int total, int allow)
{
    memset(pg, 0, sizeof *pg);
    pg->enabled = allow && isatty(STDERR_FILENO);
    pg->total = total;
    pg->start_ms = ncp_now_ms();
    snprintf(pg->label, sizeof pg->label, "%s", label);
}

void ncp_progress_update(ncp_progress *pg, int done, const char *what)
{
    pg->done = done;
    if (!pg->enabled) return;
    double now = ncp_now_ms();
    /* nothing for the first second; then at most 10 redraws per second */
    if (now - pg->start_ms < 1000.0 || (pg->drawn && now - pg->last_ms < 100.0 && done < pg->total))
        return;
    pg->last_ms = now;
    int width = 30, filled = pg->total > 0 ? (int)((long)width * done / pg->total) : width;
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    double el = (now - pg->start_ms) / 1000.0;
    double eta = done > 0 ? el * (pg->total - done) / done : 0.0;
    fprintf(stderr, "\r%-10s [%s] %d/%d  %.0fs elapsed, ~%.0fs left  %-24.24s", pg->label, bar, done,
            pg->total, el, eta, what ? what : "");
    fflush(stderr);
    pg->drawn = 1;
}

void ncp_progress_end(ncp_progress *pg)
{
    if (pg->enabled && pg->drawn) {
        fprintf(stderr, "\r%*s\r", 110, "");
        fflush(stderr);
    }
    pg->drawn = 0;
}
