/* The stamp of a study's run (study.h): OUT/<study>/stamp.txt, one "key: value" per line, the
 * one place that says what was measured (the binary's commit), when, on what machine, under
 * which load and BLAS, and how (-j, quick or full, seed, command). study.md embeds it and
 * claims.md points to it; scripts/study_pages.py stamps the results pages from it and the
 * checkers (tests/study_check.py check_stamp) verify that it is there and well formed.
 *
 * A study resumes what its journals hold when rerun into the same folder (study.c keeps a
 * folder whose declaration is unchanged, whatever the binary), so a stamp that finds an earlier
 * one lists it as "earlier:": solves may come from that run. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "figures/study.h"
#include "util/fsutil.h"
#include "util/machine.h"

#define STAMP_CAP 8192

static void stamp_now(char *out, size_t cap)
{
    time_t t = time(NULL);
    struct tm tm;
    if (t == (time_t)-1 || !gmtime_r(&t, &tm) ||
        !strftime(out, cap, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(out, cap, "unknown");
}

static void stamp_load(char *out, size_t cap)
{
    double l[3];
    if (ncp_load_average(l)) snprintf(out, cap, "%.2f %.2f %.2f", l[0], l[1], l[2]);
    else snprintf(out, cap, "unknown");
}

/* The value of "key: " in stamp text (up to the line's end) into out; 0 when absent. */
static int stamp_value(const char *text, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, key, kl) && p[kl] == ':' && p[kl + 1] == ' ') {
            const char *v = p + kl + 2;
            snprintf(out, cap, "%.*s", (int)strcspn(v, "\n"), v);
            return 1;
        }
    return 0;
}

static int stamp_path(const char *top, char *path, size_t cap, ncp_error *err)
{
    return ncp_path_join(path, cap, top, "stamp.txt", err);
}

/* Appends whole lines to buf (a STAMP_CAP buffer); what does not fit is left out whole, so
 * the stamp never ends in a cut line. */
static void stamp_add(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void stamp_add(char *buf, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + used, STAMP_CAP - used, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= STAMP_CAP - used) buf[used] = '\0';
}

/* The earlier stamp old as one "earlier:" line, after its own earlier lines. */
static void stamp_earlier(char *buf, const char *old)
{
    char commit[256], started[256], ended[256];
    for (const char *p = old; *p;) {
        size_t n = strcspn(p, "\n");
        if (!strncmp(p, "earlier: ", 9)) stamp_add(buf, "%.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    if (!stamp_value(old, "commit", commit, sizeof commit)) snprintf(commit, sizeof commit, "?");
    if (!stamp_value(old, "started", started, sizeof started))
        snprintf(started, sizeof started, "?");
    int done = stamp_value(old, "ended", ended, sizeof ended);
    stamp_add(buf, "earlier: started %s at %s, %s%s (its solves are kept where the declaration "
              "is unchanged)\n", started, commit, done ? "ended " : "interrupted",
              done ? ended : "");
}

int ncp_study_stamp_begin(const char *top, const char *cmd, const ncp_fig_opts *o,
                          ncp_error *err)
{
    char path[4400], now[64], load[96], cpu[256];
    int rc = stamp_path(top, path, sizeof path, err);
    if (rc) return rc;
    char *buf = ncp_calloc(err, STAMP_CAP, 1), *old = NULL;
    if (!buf) return NCP_ERR_NOMEM;
    stamp_now(now, sizeof now);
    stamp_load(load, sizeof load);
    ncp_cpu_model(cpu, sizeof cpu);
    const char *threads = getenv("OPENBLAS_NUM_THREADS");
    stamp_add(buf, "commit: %s\nstarted: %s\nmachine: %s, %d cores\nload at start: %s\n",
              ncp_build_commit(), now, cpu, ncp_cpu_cores(), load);
    stamp_add(buf, "blas: %s, OPENBLAS_NUM_THREADS=%s\njobs: %d\nsize: %s\nseed: %llu\n",
              NCP_BLAS_BACKEND, threads ? threads : "unset", o->jobs,
              o->quick ? "quick" : "full", o->seed);
    stamp_add(buf, "command: %s\nrecorded: by the run\n", cmd);
    size_t olen = 0;
    ncp_error e = {0};
    if (ncp_file_exists(path) && !ncp_read_file(path, &old, &olen, &e)) stamp_earlier(buf, old);
    free(old);
    rc = ncp_write_file_atomic(path, buf, err);
    free(buf);
    return rc;
}

int ncp_study_stamp_end(const char *top, ncp_error *err)
{
    char path[4400], now[64], load[96];
    char *text = NULL;
    size_t len = 0;
    int rc = stamp_path(top, path, sizeof path, err);
    if (rc || (rc = ncp_read_file(path, &text, &len, err))) return rc;
    stamp_now(now, sizeof now);
    stamp_load(load, sizeof load);
    size_t cap = len + 256;
    char *buf = ncp_calloc(err, cap, 1);
    if (!buf) {
        free(text);
        return NCP_ERR_NOMEM;
    }
    snprintf(buf, cap, "%sended: %s\nload at end: %s\n", text, now, load);
    free(text);
    rc = ncp_write_file_atomic(path, buf, err);
    free(buf);
    return rc;
}

int ncp_study_stamp_embed(FILE *f, const char *top, ncp_error *err)
{
    char path[4400];
    char *text = NULL;
    size_t len = 0;
    int rc = stamp_path(top, path, sizeof path, err);
    if (rc || (rc = ncp_read_file(path, &text, &len, err))) return rc;
    fputs("Stamp (`stamp.txt`: the binary's commit, the dates, the machine, the load, the BLAS, "
          "-j, quick or full):\n\n", f);
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "    %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    fputc('\n', f);
    free(text);
    return NCP_OK;
}
