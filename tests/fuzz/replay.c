/* Plain replay driver (fuzz.h): runs every file named on the command line, and every file under
 * every directory named (recursively, sorted; dot files skipped), through the target's
 * LLVMFuzzerTestOneInput. Built in every build, so the committed crash regressions
 * (tests/fuzz/regressions/<target>/) and the seed corpus run as ordinary tests under GCC and
 * the sanitizers; a regression that crashes again fails its test. Exits 1 when there is no
 * input at all (a test that replays nothing checks nothing). */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "util/fsutil.h"

typedef struct file_list {
    char **paths;
    int n, cap;
} file_list;

static file_list found; /* nftw has no user pointer */

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    const char *base = path + ftw->base;
    if (type != FTW_F || base[0] == '.') return 0; /* .gitkeep and the like */
    if (found.n == found.cap) {
        int cap = found.cap ? 2 * found.cap : 64;
        char **p = realloc(found.paths, (size_t)cap * sizeof *p);
        if (!p) return -1;
        found.paths = p;
        found.cap = cap;
    }
    if (!(found.paths[found.n] = strdup(path))) return -1;
    found.n++;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_file(const char *path)
{
    char *buf = NULL;
    size_t n = 0;
    ncp_error err = {0};
    if (ncp_read_file(path, &buf, &n, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        if (nftw(argv[i], collect, 16, FTW_PHYS) == -1) {
            fprintf(stderr, "cannot list %s\n", argv[i]);
            return 1;
        }
    }
    qsort(found.paths, (size_t)found.n, sizeof *found.paths, cmp_str);
    int bad = 0;
    for (int i = 0; i < found.n; i++) {
        bad |= run_file(found.paths[i]) != 0;
        free(found.paths[i]);
    }
    free(found.paths);
    printf("replayed %d input%s without a crash\n", found.n, found.n == 1 ? "" : "s");
    if (found.n == 0) fprintf(stderr, "no inputs: nothing was replayed\n");
    return bad || found.n == 0;
}
