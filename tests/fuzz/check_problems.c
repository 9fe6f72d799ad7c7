/* The invariants a successful read promises (fuzz.h): every problem passes the validation the
 * solvers rely on, and its velocity map u = D lambda + v_f (or the primal form) can be
 * evaluated, which reads every entry of the arrays the sizes declare (ASan checks the bounds). */
#include <stdlib.h>

#include "fuzz.h"
#include "fuzz_problems.h"

void ncp_fuzz_check_problems(const ncp_problem *ps, int n, const char *what)
{
    for (int k = 0; k < n; k++) {
        const ncp_problem *p = &ps[k];
        ncp_error err = {0};
        if (ncp_problem_validate(p, what, &err)) ncp_fuzz_fail(what, err.msg);
        if (!p->has_dual && !p->has_primal && !p->has_sparse_primal)
            ncp_fuzz_fail(what, "problem read without dual or primal data");
        if (p->m <= 0) continue;
        double *lambda = calloc((size_t)p->m, sizeof *lambda), *u = calloc((size_t)p->m, sizeof *u);
        if (lambda && u && ncp_problem_velocity(p, lambda, u, &err) == NCP_ERR_INTERNAL)
            ncp_fuzz_fail(what, err.msg);
        free(lambda);
        free(u);
    }
}
