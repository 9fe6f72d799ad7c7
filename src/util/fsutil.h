/* Small file-system helpers for the CLI and the outputs. */
#ifndef NCP_FSUTIL_H
#define NCP_FSUTIL_H

#include <stddef.h>

#include "util/ncp_error.h"

/* mkdir -p; error names the path. */
int ncp_mkdir_p(const char *path, ncp_error *err);

/* One run per output folder (docs/design.md §5.7): an advisory lock (flock, LOCK_EX, on the
 * folder itself, so that --fresh's new journal keeps it) held by the run until its end. The
 * kernel drops it when the process ends however it ends: a dead run's lock is taken over.
 * *fd = the held descriptor (close it, or ncp_out_unlock), -1 when `dir` does not exist yet
 * (lock it once created). NCP_ERR_INPUT naming the holder's PID (from /proc/locks) when
 * another process holds it. */
int ncp_out_lock(const char *dir, int *fd, ncp_error *err);
void ncp_out_unlock(int fd);
int ncp_file_exists(const char *path);
int ncp_dir_exists(const char *path);
/* Reads a whole file (NUL-terminated); *len gets its size. */
int ncp_read_file(const char *path, char **text, size_t *len, ncp_error *err);
/* Writes text to path atomically (path.tmp-<pid>, then rename). */
int ncp_write_file_atomic(const char *path, const char *text, ncp_error *err);
/* out = dir + "/" + name (truncation is an error). */
int ncp_path_join(char *out, size_t cap, const char *dir, const char *name, ncp_error *err);
/* Base name without directory and without extension ("scenes/incline.json" -> "incline"). */
void ncp_path_stem(const char *path, char *out, size_t cap);
/* The data directory: scenes/ (robots, tasks), scripts/ (the gnuplot scripts the program runs)
 * and results/baselines/. Looked up once per process, in this order:
 *   1. $NCPBENCH_DATA, if set (it must hold scenes/ and scripts/: ncp_data_dir_check fails
 *      otherwise, naming it);
 *   2. the source tree, when the running executable (/proc/self/exe) lies inside the meson
 *      build folder it was built in (an uninstalled build: developers, the test suite);
 *   3. PREFIX/share/ncpbench found relative to the executable (PREFIX/bin/ncpbench), so that
 *      a relocated or DESTDIR-staged prefix works;
 *   4. the data directory configured at build time (prefix/datadir/ncpbench).
 * The result never changes within a process. */
const char *ncp_data_dir(void);
/* Why ncp_data_dir() is what it is, in words ("$NCPBENCH_DATA", "uninstalled build ...",
 * "installed ..."), for `ncpbench version`. */
const char *ncp_data_dir_origin(void);
/* NCP_ERR_INPUT if $NCPBENCH_DATA is set but lacks scenes/ or scripts/ (message names it). */
int ncp_data_dir_check(ncp_error *err);
/* ncp_data_dir()/scripts and ncp_data_dir()/scenes. */
const char *ncp_scripts_dir(void);
const char *ncp_scenes_dir(void);
/* Resolves a scene argument into out. A path that exists is used as given (relative to
 * base_dir first when base_dir is non-NULL, then to the working directory); otherwise a
 * relative name is looked up in the data directory as scenes/NAME, NAME (for paths such as
 * "scenes/x.json" recorded in baselines), each also with ".json" appended when NAME has no
 * extension: `run boltnut`, `run tasks/dish-stack`. NCP_ERR_INPUT naming every place tried
 * when nothing matches. */
int ncp_find_scene(const char *arg, const char *base_dir, char *out, size_t cap, ncp_error *err);

/* The shipped scenes: the *.json names of ncp_scenes_dir() and of one level of its folders
 * ("tasks/dish-stack.json"; robots/ holds robot models, not scenes), sorted, at most cap, each
 * malloc'd (the caller frees them); -1 when the directory cannot be opened. */
int ncp_scene_names(char **names, int cap);

#endif
