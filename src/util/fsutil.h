/* Small file-system helpers for the CLI and the outputs. */
#ifndef NCP_FSUTIL_H
#define NCP_FSUTIL_H

#include <stddef.h>

#include "util/ncp_error.h"

/* mkdir -p; error names the path. */
int ncp_mkdir_p(const char *path, ncp_error *err);
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
/* Directory of the gnuplot scripts and scenes: the source tree when run from a build, else the
 * installed data directory. Returns NCP_SOURCE_ROOT/scripts if it exists. */
const char *ncp_scripts_dir(void);
const char *ncp_scenes_dir(void);

#endif
