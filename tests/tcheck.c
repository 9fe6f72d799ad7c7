/* The counters and exit code of tcheck.h. */
#include <stdio.h>

#include "tcheck.h"

int tcheck_failures = 0;
int tcheck_checks = 0;

int tcheck_exit(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, tcheck_checks, tcheck_failures);
    return tcheck_failures ? 1 : 0;
}
