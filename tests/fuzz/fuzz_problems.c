/* Fuzz target: the problems.h5 reader (store/store.h ncp_load_problems, the function `ncpbench
 * solve` calls) on arbitrary bytes. HDF5 opens files by name, so each input is written to one
 * temporary file per process (on /dev/shm when it exists: no disk traffic) and read back; the
 * FCLib branch of the same reader has its own target (fuzz_fclib.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz_problems.h"
#include "store/store.h"

static char tmp_path[256]; /* this process's input file, removed at exit */

static void remove_tmp(void)
{
    if (tmp_path[0]) unlink(tmp_path);
}

static int write_input(const uint8_t *data, size_t size)
{
    if (!tmp_path[0]) {
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        snprintf(tmp_path, sizeof tmp_path, "%s/ncp-fuzz-XXXXXX", dir && dir[0] ? dir : "/tmp");
        int fd = mkstemp(tmp_path);
        if (fd < 0) {
            fprintf(stderr, "fuzz_problems: cannot create %s: %s\n", tmp_path, strerror(errno));
            abort();
        }
        close(fd);
        atexit(remove_tmp);
    }
    FILE *f = fopen(tmp_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "fuzz_problems: cannot write %s\n", tmp_path);
        abort();
    }
    return 0;
}

/* The read in the child of ncp_fuzz_hdf5_crashes: 0 read, 1 refused. */
static int read_in_child(void *path)
{
    ncp_problem *ps = NULL;
    int n = 0;
    ncp_error err = {0};
    int rc = ncp_load_problems_budget(path, NCP_FUZZ_BUDGET, &ps, &n, &err);
    if (rc == NCP_OK) ncp_problems_free(ps, n);
    return rc != NCP_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    write_input(data, size);
    if (ncp_fuzz_hdf5_crashes(read_in_child, tmp_path)) return 0; /* libhdf5's own fault */
    ncp_problem *ps = NULL;
    int n = 0;
    ncp_error err = {0};
    if (ncp_load_problems_budget(tmp_path, NCP_FUZZ_BUDGET, &ps, &n, &err) == NCP_OK) {
        ncp_fuzz_check_problems(ps, n, "problems.h5");
        ncp_problems_free(ps, n);
    } else if (ps || n || !err.msg[0]) {
        ncp_fuzz_fail("problems.h5", "refused without a message, or returned problems");
    }
    return 0;
}
