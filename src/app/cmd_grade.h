/* `ncpbench grade` (cmd_grade.c): grades answers with the options o (read by cli.c from the
 * option table, app/options.h); returns the exit code (0, 2 bad input or usage, 3 I/O or
 * internal failure; cli.h). */
#ifndef NCP_CMD_GRADE_H
#define NCP_CMD_GRADE_H

#include "bench/grade.h"

int ncp_cli_grade(const ncp_grade_opts *o);

#endif
