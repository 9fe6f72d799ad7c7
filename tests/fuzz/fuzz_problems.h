/* Shared by the problems.h5 and FCLib targets (check_problems.c). */
#ifndef NCP_FUZZ_PROBLEMS_H
#define NCP_FUZZ_PROBLEMS_H

#include "core/problem.h"

/* Aborts (ncp_fuzz_fail) unless every problem of a successful read is consistent. */
void ncp_fuzz_check_problems(const ncp_problem *ps, int n, const char *what);

#endif
