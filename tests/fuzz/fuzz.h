/* Fuzz targets (docs/fuzzing.md): each target file defines the
 * libFuzzer entry point below; replay.c runs the same function over files, so every build
 * (GCC, ASan) replays the committed regressions and the seed corpus as ordinary tests, and a
 * -Dfuzz=true build (clang) links the same file with libFuzzer. An entry point returns 0 for
 * every input, accepted or refused: only a crash, a sanitizer report, a leak or an abort on a
 * broken invariant is a finding. */
#ifndef NCP_FUZZ_H
#define NCP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The memory budget the HDF5 targets read under (bytes; util/membudget.h, --max-memory):
 * below libFuzzer's -malloc_limit_mb in scripts/fuzz.sh, so that an allocation the budget
 * should have refused is reported as a finding. */
#define NCP_FUZZ_BUDGET (512.0 * 1024 * 1024)

/* Aborts with a message: an invariant that a successful read promises does not hold. */
void ncp_fuzz_fail(const char *what, const char *msg) __attribute__((noreturn));

/* libhdf5 1.10 (Debian 12) faults inside itself on some damaged metadata, before any check of
 * ours can look; the program reads every input file in a child process first and refuses such
 * a file with exit 2 (util/isolate.h; tests/test_hdf5_crashes.sh runs the known ones). The HDF5
 * targets do the same: ncp_fuzz_hdf5_crashes runs fn(ctx) in a forked child and returns 1 when
 * the child's sanitizer report shows a fault of libhdf5's own (ncp_fuzz_hdf5_own_report), and
 * the target skips the input; otherwise 0, and the target reads it in-process, where every
 * fault, ours or one libhdf5 makes in memory of ours, is a finding with its report. Without a
 * sanitizer (the plain builds' replays) there is no report to tell by: always 0. */
int ncp_fuzz_hdf5_crashes(int (*fn)(void *), void *ctx);
/* Whether a sanitizer report (its full text) shows a fault of libhdf5's own: the first frame
 * of the faulting access that is not the sanitizer's or the C library's is libhdf5's, and so
 * is that of the allocation the access touched when the report names one. */
int ncp_fuzz_hdf5_own_report(const char *report);

#endif
