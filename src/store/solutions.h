/* solutions.h5: the answers of every solver on every problem (solutions.c). */
#ifndef NCP_SOLUTIONS_H
#define NCP_SOLUTIONS_H

#include "util/ncp_error.h"


/* solutions.h5: /solutions/<solver>/<problem>/{r, u, v, v_solver} with attrs iterations,
 * converged, status (solutions.c). v (nv; 0: none) is A^{-1}(b + J^T r), v_solver (nsv; 0: none)
 * the solver's own velocity. */
typedef struct ncp_solutions ncp_solutions;
int ncp_solutions_create(const char *path, ncp_solutions **out, ncp_error *err);
int ncp_solutions_write(ncp_solutions *s, const char *solver, const char *problem, int m,
                        const double *r, const double *u, int nv, const double *v, int nsv,
                        const double *solver_v, int iterations,
                        int converged, const char *status, ncp_error *err);
int ncp_solutions_close(ncp_solutions *s, ncp_error *err);
/* Flushing after every write (the default) keeps what an interrupted writer finished readable;
 * a writer whose results are kept elsewhere (bench/journal.h) turns it off for speed. */
void ncp_solutions_set_flush(ncp_solutions *s, int on);

#endif
