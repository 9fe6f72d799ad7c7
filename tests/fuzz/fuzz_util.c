/* Helpers shared by the fuzz targets (fuzz.h). */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

void ncp_fuzz_fail(const char *what, const char *msg)
{
    fprintf(stderr, "fuzz invariant broken: %s: %s\n", what, msg ? msg : "");
    abort();
}
