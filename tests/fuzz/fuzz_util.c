/* Helpers shared by the fuzz targets (fuzz.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "util/isolate.h"

void ncp_fuzz_fail(const char *what, const char *msg)
{
    fprintf(stderr, "fuzz invariant broken: %s: %s\n", what, msg ? msg : "");
    abort();
}

/* The sanitizer runtime's hook for a finished report (asan_interface.h); weak, so that the
 * plain builds' replay drivers link without it. */
void __asan_set_error_report_callback(void (*cb)(const char *)) __attribute__((weak));

/* The exit code of a child whose sanitizer report shows a crash inside libhdf5. */
#define HDF5_OWN_EXIT 97

/* A frame of the sanitizer runtime or the C library (memcpy, malloc and their interceptors):
 * not where the fault was decided. A frame line reads "    #3 0xADDR in FUNCTION LOCATION". */
static int runtime_frame(const char *s, size_t n)
{
    static const char *const where[] = {"__interceptor_", "__asan", "__sanitizer", "libc.so",
                                        "sysdeps/", "compiler-rt"};
    static const char *const libc[] = {"malloc", "calloc", "realloc", "free", "memcpy",
                                       "memmove", "memset", "memcmp", "strlen", "strcmp",
                                       "strncmp", "strcpy", "strncpy", "strdup"};
    for (size_t k = 0; k < sizeof where / sizeof *where; k++) {
        size_t m = strlen(where[k]);
        for (size_t i = 0; i + m <= n; i++)
            if (!memcmp(s + i, where[k], m)) return 1;
    }
    const char *f = NULL;
    for (size_t i = 0; i + 4 <= n && !f; i++)
        if (!memcmp(s + i, " in ", 4)) f = s + i + 4;
    if (!f) return 0;
    size_t fl = 0;
    while (f + fl < s + n && f[fl] != ' ') fl++;
    for (size_t k = 0; k < sizeof libc / sizeof *libc; k++)
        if (strlen(libc[k]) == fl && !memcmp(f, libc[k], fl)) return 1;
    return 0;
}

/* Whether the first frame that is not the runtime's, of the stack trace starting at or after
 * *at, is libhdf5's; *at moves past that stack. -1 when there is no such stack. */
static int stack_in_hdf5(const char **at)
{
    const char *p = strstr(*at, "    #0 ");
    if (!p) return -1;
    int verdict = -1;
    while (p && !strncmp(p, "    #", 5)) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (verdict < 0 && !runtime_frame(p, n)) {
            verdict = 0;
            for (size_t i = 0; i + 7 <= n; i++)
                if (!memcmp(p + i, "libhdf5", 7)) verdict = 1;
        }
        p = e ? e + 1 : NULL;
    }
    *at = p ? p : *at + strlen(*at);
    return verdict;
}

/* A report of a fault that libhdf5 decided on its own: the faulting access is libhdf5's, and
 * the memory it touched, when the report names an allocation, was allocated by libhdf5 too.
 * A buffer of ours that libhdf5 overran (a wrong size passed to it) stays a finding, and so
 * does an allocation refused for its size: the budget and the in-process read handle those
 * (allocator_may_return_null, -malloc_limit_mb; scripts/fuzz.sh). */
int ncp_fuzz_hdf5_own_report(const char *report)
{
    static const char *const sizes[] = {"allocation-size-too-big", "out-of-memory",
                                        "calloc-overflow", "requested allocation size"};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        if (strstr(report, sizes[k])) return 0;
    const char *at = report;
    if (stack_in_hdf5(&at) != 1) return 0;
    const char *alloc = strstr(at, "allocated by thread");
    if (!alloc) return 1;
    return stack_in_hdf5(&alloc) == 1;
}

static pid_t fuzz_parent;

static void on_report(const char *report)
{
    /* in the parent every report stays a finding */
    if (getpid() != fuzz_parent && ncp_fuzz_hdf5_own_report(report)) _exit(HDF5_OWN_EXIT);
}

typedef struct child_job {
    int (*fn)(void *);
    void *ctx;
} child_job;

static int run_child(void *ctx, ncp_error *err)
{
    (void)err;
    const child_job *job = ctx;
    /* the child's reports are not the run's findings: a fault of ours happens again in the
     * parent, which prints it */
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);
    return job->fn(job->ctx) ? 2 : 0;
}

int ncp_fuzz_hdf5_crashes(int (*fn)(void *), void *ctx)
{
    if (!__asan_set_error_report_callback) return 0;
    if (!fuzz_parent) {
        fuzz_parent = getpid();
        __asan_set_error_report_callback(on_report);
    }
    child_job job = {fn, ctx};
    int code = -1;
    ncp_error child, err;
    ncp_error_clear(&child);
    ncp_error_clear(&err);
    if (ncp_isolated_run(run_child, &job, "fuzz input", 0.0, &code, &child, &err)) return 0;
    return code == HDF5_OWN_EXIT;
}
