#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "ncp_config.h"

int ncp_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int ncp_dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int ncp_mkdir_p(const char *path, ncp_error *err)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return ncp_error_set(err, NCP_ERR_INPUT, "output directory path '%s' is empty or too long",
                             path);
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return ncp_error_set(err, NCP_ERR_IO, "cannot create directory %s: %s", buf,
                                     strerror(errno));
            if (!ncp_dir_exists(buf))
                return ncp_error_set(err, NCP_ERR_IO, "%s exists and is not a directory", buf);
            buf[i] = c;
        }
    }
    return NCP_OK;
}

int ncp_read_file(const char *path, char **text, size_t *len, ncp_error *err)
{
    *text = NULL;
    if (ncp_dir_exists(path))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s is a directory, expected a file", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return ncp_error_set(err, NCP_ERR_INPUT, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = ncp_malloc(err, cap, 1);
    if (!buf) {
        fclose(f);
        return NCP_ERR_NOMEM;
    }
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory reading %s", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return ncp_error_set(err, NCP_ERR_IO, "error reading %s", path);
    }
    buf[n] = '\0';
    *text = buf;
    if (len) *len = n;
    return NCP_OK;
}

int ncp_write_file_atomic(const char *path, const char *text, ncp_error *err)
{
    char tmp[4200];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= sizeof tmp)
        return ncp_error_set(err, NCP_ERR_INPUT, "path too long: %s", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    size_t n = strlen(text);
    int bad = fwrite(text, 1, n, f) != n;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(e));
    }
    return NCP_OK;
}

int ncp_path_join(char *out, size_t cap, const char *dir, const char *name, ncp_error *err)
{
    size_t ld = strlen(dir);
    int slash = ld > 0 && dir[ld - 1] != '/';
    if ((size_t)snprintf(out, cap, "%s%s%s", dir, slash ? "/" : "", name) >= cap)
        return ncp_error_set(err, NCP_ERR_INPUT, "path too long: %s/%s", dir, name);
    return NCP_OK;
}

void ncp_path_stem(const char *path, char *out, size_t cap)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    const char *dot = strrchr(b, '.');
    if (dot && dot != b) n = (size_t)(dot - b);
    if (n >= cap) n = cap - 1;
    memcpy(out, b, n);
    out[n] = '\0';
}

const char *ncp_scripts_dir(void)
{
    /* Prefer the source tree the binary was built from (developers, CI), then the installed
     * data directory. */
    if (ncp_dir_exists(NCP_SOURCE_ROOT "/scripts")) return NCP_SOURCE_ROOT "/scripts";
    return NCP_DATADIR "/scripts";
}

const char *ncp_scenes_dir(void)
{
    if (ncp_dir_exists(NCP_SOURCE_ROOT "/scenes")) return NCP_SOURCE_ROOT "/scenes";
    return NCP_DATADIR "/scenes";
}
