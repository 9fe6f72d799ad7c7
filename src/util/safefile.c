/* Output files created without following links (safefile.h). */
#define _GNU_SOURCE
#include "util/safefile.h"
#include "util/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A name for a temporary of path: path.tmp-<pid>-<64 random bits>. */
static char *tmp_name(const char *path, ncp_error *err)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
        r = ((uint64_t)(uintptr_t)&r << 17) ^ (uint64_t)clock() ^ ((uint64_t)getpid() << 40);
    size_t n = strlen(path) + 64;
    char *t = ncp_malloc(err, n, 1);
    if (t) snprintf(t, n, "%s.tmp-%ld-%016llx", path, (long)getpid(), (unsigned long long)r);
    return t;
}

/* A fresh temporary for path, opened O_EXCL|O_NOFOLLOW: -1 (err set) or its descriptor. */
static int open_tmp(const char *path, char **tmp, ncp_error *err)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        if (!(*tmp = tmp_name(path, err))) return -1;
        int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) return fd;
        int e = errno;
        free(*tmp);
        *tmp = NULL;
        if (e != EEXIST) {
            ncp_error_set(err, NCP_ERR_IO, "cannot create %s: %s", path, strerror(e));
            return -1;
        }
    }
    ncp_error_set(err, NCP_ERR_IO, "cannot create %s: no free temporary name", path);
    return -1;
}

int ncp_safe_create(const char *path, ncp_safe_file *sf, ncp_error *err)
{
    memset(sf, 0, sizeof *sf);
    if (!(sf->path = ncp_strdup(err, path))) return NCP_ERR_NOMEM;
    int fd = open_tmp(path, &sf->tmp, err);
    if (fd < 0) {
        ncp_safe_abort(sf);
        return err ? err->code : NCP_ERR_IO;
    }
    if (!(sf->f = fdopen(fd, "w"))) {
        close(fd);
        ncp_safe_abort(sf);
        return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory opening %s", path);
    }
    return NCP_OK;
}

void ncp_safe_abort(ncp_safe_file *sf)
{
    if (sf->f) fclose(sf->f);
    if (sf->tmp) unlink(sf->tmp);
    free(sf->tmp);
    free(sf->path);
    memset(sf, 0, sizeof *sf);
}

int ncp_safe_commit(ncp_safe_file *sf, ncp_error *err)
{
    int e = 0;
    if (fflush(sf->f) != 0 || ferror(sf->f)) e = errno ? errno : EIO;
    if (!e && fsync(fileno(sf->f)) != 0) e = errno;
    int c = fclose(sf->f);
    sf->f = NULL;
    if (!e && c != 0) e = errno;
    if (!e && rename(sf->tmp, sf->path) != 0) e = errno;
    if (e) {
        int rc = ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", sf->path, strerror(e));
        ncp_safe_abort(sf);
        return rc;
    }
    free(sf->tmp);
    free(sf->path);
    memset(sf, 0, sizeof *sf);
    return NCP_OK;
}

int ncp_safe_write_text(const char *path, const char *text, ncp_error *err)
{
    ncp_safe_file sf;
    int rc = ncp_safe_create(path, &sf, err);
    if (rc) return rc;
    fputs(text, sf.f);
    return ncp_safe_commit(&sf, err);
}

/* ncp_safe_fopen's stream: its temporary, where it goes, the first write error. */
typedef struct cookie {
    int fd;
    int failed;
    char *tmp, *path;
} cookie;

static ssize_t ck_write(void *c_, const char *buf, size_t n)
{
    cookie *c = c_;
    size_t put = 0;
    while (put < n) {
        ssize_t w = write(c->fd, buf + put, n - put);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            c->failed = w < 0 ? errno : ENOSPC;
            errno = c->failed;
            return put ? (ssize_t)put : -1;
        }
        put += (size_t)w;
    }
    return (ssize_t)n;
}

static int ck_close(void *c_)
{
    cookie *c = c_;
    int e = c->failed;
    if (!e && fsync(c->fd) != 0) e = errno;
    if (close(c->fd) != 0 && !e) e = errno;
    if (!e && rename(c->tmp, c->path) != 0) e = errno;
    if (e) unlink(c->tmp);
    free(c->tmp);
    free(c->path);
    free(c);
    errno = e;
    return e ? -1 : 0;
}

FILE *ncp_safe_fopen(const char *path, ncp_error *err)
{
    cookie *c = ncp_calloc(err, 1, sizeof *c);
    if (!c) return NULL;
    c->fd = -1;
    if ((c->path = ncp_strdup(err, path))) c->fd = open_tmp(path, &c->tmp, err);
    cookie_io_functions_t io = {NULL, ck_write, NULL, ck_close};
    FILE *f = c->fd >= 0 ? fopencookie(c, "w", io) : NULL;
    if (!f) {
        if (c->fd >= 0) {
            close(c->fd);
            unlink(c->tmp);
            ncp_error_set(err, NCP_ERR_NOMEM, "out of memory opening %s", path);
        }
        free(c->tmp);
        free(c->path);
        free(c);
    }
    return f;
}

FILE *ncp_safe_fappend(const char *path, ncp_error *err)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct stat st;
    FILE *f = NULL;
    /* a second hard link could be a file outside the folder planted here */
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1)
        f = fdopen(fd, "a");
    if (!f) {
        ncp_error_set(err, NCP_ERR_IO, "cannot append to %s: %s", path,
                      fd < 0 ? strerror(errno) : "not a regular file of its own (a link?)");
        if (fd >= 0) close(fd);
    }
    return f;
}

int ncp_safe_reserve(const char *path, char **tmp, ncp_error *err)
{
    int fd = open_tmp(path, tmp, err);
    if (fd < 0) return err ? err->code : NCP_ERR_IO;
    close(fd);
    return NCP_OK;
}

int ncp_safe_rename(const char *tmp, const char *path, ncp_error *err)
{
    int e = 0, fd = open(tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) e = errno;
    if (fd >= 0) close(fd);
    if (!e && rename(tmp, path) != 0) e = errno;
    if (e) {
        unlink(tmp);
        return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(e));
    }
    return NCP_OK;
}

int ncp_safe_open_rw(const char *path, int create, ncp_error *err)
{
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0), 0644);
    if (fd < 0) {
        ncp_error_set(err, NCP_ERR_IO, "cannot open %s: %s%s", path, strerror(errno),
                      errno == ELOOP ? " (a symbolic link: refused, remove it)" : "");
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        ncp_error_set(err, NCP_ERR_IO, "%s is not a regular file: remove it", path);
        return -1;
    }
    return fd;
}

/* The pid of a temporary's name (".tmp-<pid>" at its end or before "-"), 0 when none. */
static long tmp_pid(const char *name)
{
    const char *s = strstr(name, ".tmp-"), *last = NULL;
    for (; s; s = strstr(s + 1, ".tmp-")) last = s;
    if (!last) return 0;
    char *end;
    long pid = strtol(last + 5, &end, 10);
    return end != last + 5 && (*end == '\0' || *end == '-') && pid > 0 ? pid : 0;
}

int ncp_safe_clean_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0, dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = tmp_pid(e->d_name);
        if (pid <= 0 || (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) continue;
        if (unlinkat(dfd, e->d_name, 0) == 0) n++;
    }
    closedir(d);
    return n;
}

FILE *ncp_safe_fopen_in(const char *dir, const char *name, char *path, size_t cap,
                        ncp_error *err)
{
    if (ncp_path_join(path, cap, dir, name, err)) return NULL;
    return ncp_safe_fopen(path, err);
}

int ncp_safe_fclose(FILE *f, const char *path, ncp_error *err)
{
    if (fclose(f) != 0)
        return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return NCP_OK;
}
