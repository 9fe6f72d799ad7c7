/* The Delassus operator's routes (core/dop.h) timed per model flop on this machine: the constants
 * behind ncp_dop_init's route choice. For random problems of growing size it times one product
 * y = D x on the dense route (2 m^2 flops) against the low-rank route (4 m r) and the sparse route
 * (4 nnz(J) + 2 entries of A's block factors), on the thread's CPU clock (repeated until 0.1 s),
 * and prints ns per model flop of each. Usage: bench_dop (no arguments); results/REPORT.md
 * ("Route costs") states the numbers and how dop.c uses them. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/dop.h"
#include "core/sparse_chol.h"
#include "testutil.h"

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* CPU ns of one product with op (repeated until 0.1 s). */
static double time_apply(ncp_dop *op, int m)
{
    double *x = malloc((size_t)m * sizeof(double)), *y = calloc((size_t)m, sizeof(double));
    if (!x || !y) {
        free(x);
        free(y);
        return -1.0;
    }
    for (int i = 0; i < m; i++) x[i] = (i % 7) - 3.0;
    double t = 0.0;
    long reps = 1;
    for (;; reps *= 2) {
        double t0 = cpu_ns();
        for (long r = 0; r < reps; r++) ncp_dop_apply(op, 1.0, x, 0.0, y);
        t = cpu_ns() - t0;
        if (t > 1e8 || reps > (1L << 24)) break;
    }
    free(x);
    free(y);
    return t / (double)reps;
}

static int row(const char *kind, const ncp_problem *p, int route, double flops_route)
{
    ncp_error err = {0};
    ncp_dop d, r;
    if (ncp_dop_init(&d, p, NCP_DOP_DENSE, &err) || ncp_dop_init(&r, p, route, &err)) {
        fprintf(stderr, "bench_dop: %s\n", err.msg);
        return 1;
    }
    if (route == NCP_DOP_SPARSE)
        flops_route = 4.0 * p->J.nnz + 2.0 * (double)ncp_sparse_chol_dense_entries(r.chol);
    double fd = 2.0 * (double)p->m * p->m, td = time_apply(&d, p->m), tr = time_apply(&r, p->m);
    printf("%-8s %6d %5d %10.3g %10.3g %12.0f %12.0f %8.3f %8.3f\n", kind, p->m, p->nv,
           flops_route, fd, tr, td, tr / flops_route, td / fd);
    ncp_dop_free(&d);
    ncp_dop_free(&r);
    return 0;
}

int main(void)
{
    ncp_error err = {0};
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("# route       m    nv  flops_rte  flops_dns       ns_rte       ns_dns ns/f_rte "
           "ns/f_dns\n");
    static const int ncs[] = {60, 150, 400, 1000}, nvs[] = {6, 24, 60, 120};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            ncp_problem p;
            if (tutil_random_problem(&p, 7, nvs[b], ncs[a], 0, 0, 0, &err)) {
                fprintf(stderr, "bench_dop: %s\n", err.msg);
                return 3;
            }
            int rc = row("lowrank", &p, NCP_DOP_LOWRANK, 4.0 * p.m * (double)p.nv);
            ncp_problem_free(&p);
            if (rc) return 3;
        }
    static const int nbodies[] = {10, 40, 160}, per_body[] = {2, 7};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++) {
            ncp_problem p;
            if (tutil_sparse_bodies_problem(&p, 9, nbodies[a], nbodies[a] * per_body[b], &err)) {
                fprintf(stderr, "bench_dop: %s\n", err.msg);
                return 3;
            }
            int rc = row("sparse", &p, NCP_DOP_SPARSE, 0.0);
            ncp_problem_free(&p);
            if (rc) return 3;
        }
    return 0;
}
