/* realpath() is XSI (POSIX 2008 with the X/Open extension) */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "util/strdist.h"
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
                return ncp_error_set(err, NCP_ERR_INPUT, "%s exists and is not a directory "
                                     "(an output folder must be a directory)", buf);
            buf[i] = c;
        }
    }
    return NCP_OK;
}

/* The PID holding a flock on the file (dev, ino), from /proc/locks ("1: FLOCK ADVISORY WRITE
 * PID MAJ:MIN:INODE ..."); 0 when not found. */
static long flock_holder(dev_t dev, ino_t ino)
{
    FILE *f = fopen("/proc/locks", "r");
    if (!f) return 0;
    char line[512];
    long pid = 0;
    while (!pid && fgets(line, sizeof line, f)) {
        char kind[32];
        long p;
        unsigned maj, mnr;
        unsigned long long in;
        if (sscanf(line, "%*[^:]: %31s %*s %*s %ld %x:%x:%llu", kind, &p, &maj, &mnr, &in) == 5 &&
            !strcmp(kind, "FLOCK") && maj == major(dev) && mnr == minor(dev) &&
            in == (unsigned long long)ino)
            pid = p;
    }
    fclose(f);
    return pid;
}

int ncp_out_lock(const char *dir, int *fd, ncp_error *err)
{
    *fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*fd < 0) {
        if (errno == ENOENT) return NCP_OK;
        if (errno == ENOTDIR)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s exists and is not a directory (an "
                                 "output folder must be a directory)", dir);
        return ncp_error_set(err, NCP_ERR_IO, "cannot open %s: %s", dir, strerror(errno));
    }
    if (flock(*fd, LOCK_EX | LOCK_NB) == 0) return NCP_OK;
    int e = errno;
    struct stat st;
    long pid = e == EWOULDBLOCK && fstat(*fd, &st) == 0 ? flock_holder(st.st_dev, st.st_ino) : 0;
    close(*fd);
    *fd = -1;
    if (e != EWOULDBLOCK)
        return ncp_error_set(err, NCP_ERR_IO, "cannot lock %s: %s", dir, strerror(e));
    char who[48] = "another process";
    if (pid > 0) snprintf(who, sizeof who, "process %ld", pid);
    return ncp_error_set(err, NCP_ERR_INPUT, "%s is in use by another ncpbench run (%s holds "
                         "its lock): wait for it to end, or choose another --out", dir, who);
}

void ncp_out_unlock(int fd)
{
    if (fd >= 0) close(fd); /* closing drops the flock */
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

/* ---- the data directory (fsutil.h) ----
 * Computed once per process (pthread_once) and constant afterwards: the environment and the
 * executable's location do not change while it runs. NCP_BUILD_ROOT, NCP_SOURCE_ROOT,
 * NCP_DATADIR and NCP_BIN_TO_DATA (bindir -> datadir/ncpbench, relative; empty when the
 * configured directories are absolute and unrelated) come from ncp_config.h. */
typedef struct data_dir_state {
    char dir[4096];
    char origin[4400];
    int bad_env; /* $NCPBENCH_DATA set but lacking scenes/ or scripts/ */
} data_dir_state;

static data_dir_state data_state;
static pthread_once_t data_once = PTHREAD_ONCE_INIT;

static int has_data(const char *dir)
{
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/scenes", dir);
    snprintf(b, sizeof b, "%s/scripts", dir);
    return ncp_dir_exists(a) && ncp_dir_exists(b);
}

/* exe lies in the build folder and is not a staged install below it (DESTDIR=build/x puts the
 * program under .../bin/, where meson never builds one). */
static int in_build_tree(const char *exe)
{
    char root[4096];
    if (!realpath(NCP_BUILD_ROOT, root)) return 0;
    size_t n = strlen(root);
    if (strncmp(exe, root, n) != 0 || exe[n] != '/') return 0;
    const char *rest = exe + n + 1;
    return strncmp(rest, "bin/", 4) != 0 && !strstr(rest, "/bin/");
}

static void data_dir_init(void)
{
    data_dir_state *d = &data_state;
    const char *env = getenv("NCPBENCH_DATA");
    if (env && env[0]) {
        snprintf(d->dir, sizeof d->dir, "%s", env);
        snprintf(d->origin, sizeof d->origin, "from $NCPBENCH_DATA");
        d->bad_env = !has_data(env);
        return;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0 && (size_t)n < sizeof exe - 1) {
        exe[n] = '\0';
        if (in_build_tree(exe) && has_data(NCP_SOURCE_ROOT)) {
            snprintf(d->dir, sizeof d->dir, "%s", NCP_SOURCE_ROOT);
            snprintf(d->origin, sizeof d->origin,
                     "uninstalled build: %s is in the build folder %s, using its source tree", exe,
                     NCP_BUILD_ROOT);
            return;
        }
        char *slash = strrchr(exe, '/');
        if (slash && NCP_BIN_TO_DATA[0]) {
            char cand[4200], real[4096];
            snprintf(cand, sizeof cand, "%.*s/%s", (int)(slash - exe), exe, NCP_BIN_TO_DATA);
            if (realpath(cand, real) && has_data(real)) {
                snprintf(d->dir, sizeof d->dir, "%s", real);
                snprintf(d->origin, sizeof d->origin,
                         "installed: found relative to the executable %s", exe);
                return;
            }
        }
    }
    snprintf(d->dir, sizeof d->dir, "%s", NCP_DATADIR);
    snprintf(d->origin, sizeof d->origin, "installed: the data directory configured at build "
             "time%s", has_data(NCP_DATADIR) ? "" : " (missing: set NCPBENCH_DATA)");
}

static const data_dir_state *data_dir(void)
{
    pthread_once(&data_once, data_dir_init);
    return &data_state;
}

const char *ncp_data_dir(void) { return data_dir()->dir; }

const char *ncp_data_dir_origin(void) { return data_dir()->origin; }

int ncp_data_dir_check(ncp_error *err)
{
    const data_dir_state *d = data_dir();
    if (d->bad_env)
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "NCPBENCH_DATA=%s: expected a data directory holding scenes/ and "
                             "scripts/ (an installed PREFIX/share/ncpbench or the source tree); "
                             "fix or unset it", d->dir);
    return NCP_OK;
}

/* data_dir()/sub, built once per process like the data directory itself. */
typedef struct data_subdirs {
    char scripts[4200], scenes[4200];
} data_subdirs;

static data_subdirs subdirs_state;
static pthread_once_t subdirs_once = PTHREAD_ONCE_INIT;

static void subdirs_init(void)
{
    snprintf(subdirs_state.scripts, sizeof subdirs_state.scripts, "%s/scripts", ncp_data_dir());
    snprintf(subdirs_state.scenes, sizeof subdirs_state.scenes, "%s/scenes", ncp_data_dir());
}

const char *ncp_scripts_dir(void)
{
    pthread_once(&subdirs_once, subdirs_init);
    return subdirs_state.scripts;
}

const char *ncp_scenes_dir(void)
{
    pthread_once(&subdirs_once, subdirs_init);
    return subdirs_state.scenes;
}

/* Adds the *.json names of dir (prefixed "sub/" when sub is not NULL) to names[*n..cap). */
static void collect_json(const char *dir, const char *sub, char **names, int *n, int cap)
{
    char path[4200];
    if (sub) snprintf(path, sizeof path, "%s/%s", dir, sub);
    else snprintf(path, sizeof path, "%s", dir);
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) && *n < cap) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) {
            char name[600];
            if (sub) snprintf(name, sizeof name, "%s/%s", sub, e->d_name);
            else snprintf(name, sizeof name, "%s", e->d_name);
            names[*n] = strdup(name);
            if (names[*n]) (*n)++;
        }
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int ncp_scene_names(char **names, int cap)
{
    const char *dir = ncp_scenes_dir();
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    collect_json(dir, NULL, names, &n, cap);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "robots")) continue;
        char path[4200];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) collect_json(dir, e->d_name, names, &n, cap);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    return n;
}

/* " (did you mean NAME?)" for a scene argument close to a shipped scene's name, else "". */
static void scene_suggestion(const char *arg, char *out, size_t cap)
{
    out[0] = '\0';
    char *names[512];
    int n = ncp_scene_names(names, 512);
    if (n <= 0) return;
    char want[600];
    const char *a = strncmp(arg, "scenes/", 7) ? arg : arg + 7;
    snprintf(want, sizeof want, "%s", a);
    size_t l = strlen(want);
    if (l > 5 && !strcmp(want + l - 5, ".json")) want[l - 5] = '\0';
    for (int i = 0; i < n; i++) names[i][strlen(names[i]) - 5] = '\0'; /* without .json */
    const char *near = ncp_closest_name(want, (const char *const *)names, n);
    if (near) snprintf(out, cap, " (did you mean %s?)", near);
    for (int i = 0; i < n; i++) free(names[i]);
}

int ncp_find_scene(const char *arg, const char *base_dir, char *out, size_t cap, ncp_error *err)
{
    struct stat st;
    char cand[4200], tried[2048] = "";
    size_t used = 0;
#define TRY(path, as_given)                                                                    \
    do {                                                                                       \
        if (stat((path), &st) == 0 && ((as_given) || S_ISREG(st.st_mode))) {                  \
            if ((size_t)snprintf(out, cap, "%s", (path)) >= cap)                               \
                return ncp_error_set(err, NCP_ERR_INPUT, "scene path too long: %s", (path));   \
            return NCP_OK;                                                                     \
        }                                                                                      \
        if (used < sizeof tried)                                                               \
            used += (size_t)snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "", \
                                     (path));                                                  \
    } while (0)
    if (!arg[0]) return ncp_error_set(err, NCP_ERR_INPUT, "empty scene name");
    if (base_dir && base_dir[0] && arg[0] != '/') {
        snprintf(cand, sizeof cand, "%s/%s", base_dir, arg);
        TRY(cand, 1);
    }
    TRY(arg, 1);
    if (arg[0] != '/') {
        const char *b = strrchr(arg, '/');
        int has_ext = strchr(b ? b + 1 : arg, '.') != NULL;
        const char *dd = ncp_data_dir();
        static const char *const sub[2] = {"/scenes/", "/"};
        for (int k = 0; k < 2; k++) {
            snprintf(cand, sizeof cand, "%s%s%s", dd, sub[k], arg);
            TRY(cand, 0);
            if (!has_ext) {
                snprintf(cand, sizeof cand, "%s%s%s.json", dd, sub[k], arg);
                TRY(cand, 0);
            }
        }
    }
#undef TRY
    char near[700];
    scene_suggestion(arg, near, sizeof near);
    return ncp_error_set(err, NCP_ERR_INPUT,
                         "cannot find scene '%s'%s (tried %s; data directory %s, %s; "
                         "`ncpbench list scenes` lists the shipped ones)",
                         arg, near, tried, ncp_data_dir(), ncp_data_dir_origin());
}
