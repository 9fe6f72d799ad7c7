/* `ncpbench grade` (cmd_grade.c): argv holds the words after "grade"; returns the exit code
 * (0, 2 bad input or usage, 3 I/O or internal failure; cli.h). */
#ifndef NCP_CMD_GRADE_H
#define NCP_CMD_GRADE_H

int ncp_cli_grade(int argc, char **argv);

#endif
