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

#endif
