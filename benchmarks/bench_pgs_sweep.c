/* ncpbench's projected Gauss–Seidel sweep against the hand-written reference kernel
 * (ref_pgs_kernel.h), on the problems of ncpbench problems.h5 files whose mass matrix is block
 * diagonal in 6-dof bodies (the wrecking-ball family of scripts/make_tasora_test2.py, piles).
 *
 * Per problem, on its contact rows (the same sub-problem for both: the few bilateral rows of a
 * pendulum are left out): ncpbench's route (ncp_gs_vel_setup with the pgs default, NCP_GS_AUTO)
 * and its sweep ncp_pgs_sweep_vel (pgs's update, omega 1, local_iter 1), and the reference
 * kernel, each run for N sweeps from lambda = 0, three times; the median time per sweep on the
 * thread's CPU clock, their ratio, and the largest difference of the two lambdas after N sweeps
 * (the same iteration: rounding only). Setup (ncpbench: A's blocks, Y = A^{-1} J^T, D's diagonal
 * blocks, v_f; the kernel: the same from the 6x6 blocks) is timed apart. The problems are read as
 * stored (ncp_load_problems_raw): no D is formed, except with --dense: then D = J A^{-1} J^T of
 * the contact rows is built and the sweep through D's columns (pgs.sweep=2 without primal data,
 * the route every Gauss–Seidel solver took before the velocity form; 8 m^2 bytes) is timed too,
 * for min(N, 5) sweeps. With several problems the exponent k of time per sweep ~ contacts^k is
 * fitted (least squares on the logs) for each.
 *
 * Usage: bench_pgs_sweep [--sweeps N] [--dense] FILE.h5...
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/la.h"
#include "core/sparse_chol.h"
#include "ref_pgs_kernel.h"
#include "solvers/common.h"
#include "store/store.h"

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The contact rows of p as a problem of their own (views of p's arrays; blocks and J's row
 * pointers, rebased to start at 0, copied). */
static int contact_view(const ncp_problem *p, ncp_problem *q, ncp_block **blocks, int **rptr)
{
    int first = -1, nc = 0;
    for (int bi = 0; bi < p->nblocks; bi++)
        if (p->blocks[bi].type == NCP_CONTACT) {
            if (first < 0) first = bi;
            nc++;
        }
    if (nc == 0) return -1;
    for (int bi = first; bi < first + nc; bi++)
        if (bi >= p->nblocks || p->blocks[bi].type != NCP_CONTACT) return -1; /* not contiguous */
    const int r0 = p->blocks[first].row;
    *blocks = malloc((size_t)nc * sizeof(ncp_block));
    *rptr = malloc((3 * (size_t)nc + 1) * sizeof(int));
    if (!*blocks || !*rptr) return -1;
    const int base = p->J.rowptr[r0];
    for (int i = 0; i <= 3 * nc; i++) (*rptr)[i] = p->J.rowptr[r0 + i] - base;
    for (int c = 0; c < nc; c++) {
        (*blocks)[c] = p->blocks[first + c];
        (*blocks)[c].row -= r0;
    }
    *q = *p;
    q->blocks = *blocks;
    q->nblocks = nc;
    q->ncontacts = nc;
    q->m = 3 * nc;
    q->J.m = 3 * nc;
    q->J.rowptr = *rptr;
    q->J.col = p->J.col + base;
    q->J.val = p->J.val + base;
    q->J.nnz = (*rptr)[3 * nc];
    q->e = p->e + r0;
    q->has_dual = 0;
    q->D = q->vf = NULL;
    q->structure = NULL;
    return nc;
}

/* A's 6x6 diagonal blocks inverted (Minv, 36 per body) and v_free = A^{-1} b; -1 when A is not
 * block diagonal in 6-dof bodies. */
static int body_blocks(const ncp_problem *p, double *Minv, double *vfree)
{
    const int nv = p->nv, nb = nv / 6;
    if (nv % 6) return -1;
    double *M = calloc((size_t)36 * nb, sizeof(double));
    if (!M) return -1;
    int ok = 1;
    for (int i = 0; i < nv && ok; i++) {
        if (p->has_sparse_primal && p->A_sparse.rowptr) {
            for (int q = p->A_sparse.rowptr[i]; q < p->A_sparse.rowptr[i + 1] && ok; q++) {
                int j = p->A_sparse.col[q];
                if (j / 6 != i / 6) ok = p->A_sparse.val[q] == 0.0;
                else M[36 * (size_t)(i / 6) + i % 6 + 6 * (j % 6)] += p->A_sparse.val[q];
            }
        } else {
            for (int j = 0; j < nv && ok; j++) {
                double a = p->A[i + (size_t)j * nv];
                if (j / 6 != i / 6) ok = a == 0.0;
                else M[36 * (size_t)(i / 6) + i % 6 + 6 * (j % 6)] = a;
            }
        }
    }
    ncp_error err = {0};
    for (int b = 0; b < nb && ok; b++) {
        double *Mi = Minv + 36 * (size_t)b;
        memset(Mi, 0, 36 * sizeof(double));
        for (int a = 0; a < 6; a++) Mi[7 * a] = 1.0;
        ok = ncp_chol_factor(6, M + 36 * (size_t)b, &err) == NCP_OK &&
             ncp_chol_solve(6, M + 36 * (size_t)b, 6, Mi, &err) == NCP_OK;
        for (int a = 0; a < 6 && ok; a++) {
            double s = 0.0;
            for (int c = 0; c < 6; c++) s += Mi[a + 6 * c] * p->b[6 * b + c];
            vfree[6 * b + a] = s;
        }
    }
    free(M);
    return ok ? 0 : -1;
}

typedef struct row {
    int nc;
    double ncp_us, ref_us, dense_us;
} row;

/* Least-squares slope of log(y) against log(x). */
static double slope(int n, const row *r, int ref)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        double x = log((double)r[i].nc);
        double y = log(ref == 1 ? r[i].ref_us : ref == 2 ? r[i].dense_us : r[i].ncp_us);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* Median time per sweep through the dense D of q's contact rows (pgs.sweep=2 on a view without
 * primal data), from lambda = 0; NAN when D cannot be built. */
static double dense_sweep_us(const ncp_problem *q, const double *step, int sweeps)
{
    const int m = q->m;
    ncp_error err = {0};
    ncp_sparse_chol *F = NULL;
    ncp_csr Ad = {0};
    const ncp_csr *A = &q->A_sparse;
    double *D = malloc((size_t)m * m * sizeof(double)), *vf = malloc((size_t)m * sizeof(double));
    double *u = calloc((size_t)m, sizeof(double)), *lambda = calloc((size_t)m, sizeof(double));
    double t[3] = {NAN, NAN, NAN};
    int ok = D && vf && u && lambda;
    if (ok && !(q->has_sparse_primal && q->A_sparse.rowptr)) {
        ok = ncp_csr_from_dense(&Ad, q->nv, q->nv, q->A, 0.0, &err) == NCP_OK;
        A = &Ad;
    }
    ok = ok && ncp_sparse_chol_factor(A, NULL, &F, &err) == NCP_OK &&
         ncp_sparse_chol_delassus(F, q->b, &q->J, q->e, D, vf, &err) == NCP_OK;
    ncp_problem d = *q; /* D alone: the Delassus route, D's columns */
    d.has_primal = d.has_sparse_primal = 0;
    d.D = D;
    d.vf = vf;
    d.has_dual = 1;
    d.dop_route = 0;
    for (int rep = 0; ok && rep < 3; rep++) {
        ncp_gs_vel g;
        if (ncp_gs_vel_setup(&g, &d, NCP_GS_DELASSUS, u, &err)) {
            ok = 0;
            break;
        }
        ncp_zero(m, lambda);
        ncp_gs_vel_start(&g, lambda);
        double t0 = cpu_ms();
        for (int k = 0; k < sweeps; k++) ncp_pgs_sweep_vel(&d, &g, step, 1.0, 1, lambda);
        t[rep] = 1e3 * (cpu_ms() - t0) / sweeps;
        ncp_gs_vel_free(&g);
    }
    if (!ok) fprintf(stderr, "%s: the dense D: %s\n", q->name, err.msg);
    ncp_sparse_chol_free(F);
    ncp_csr_free(&Ad);
    free(D);
    free(vf);
    free(u);
    free(lambda);
    qsort(t, 3, sizeof(double), cmp_double);
    return ok ? t[1] : NAN;
}

static int bench_problem(const ncp_problem *p, int sweeps, int dense, row *out)
{
    ncp_problem q;
    ncp_block *blocks = NULL;
    int *rptr = NULL;
    int nc = contact_view(p, &q, &blocks, &rptr);
    if (nc <= 0) {
        printf("%-26s skipped: no contiguous contact rows\n", p->name);
        free(blocks);
        free(rptr);
        return -1;
    }
    const int m = q.m, nv = p->nv;
    double *Minv = malloc((size_t)36 * (nv / 6 + 1) * sizeof(double));
    double *vfree = malloc((size_t)(nv + 1) * sizeof(double));
    double *mu = malloc((size_t)nc * sizeof(double));
    double *u = calloc((size_t)m, sizeof(double)), *lambda = calloc((size_t)m, sizeof(double));
    double *step = calloc((size_t)nc, sizeof(double));
    int rc = -1;
    if (!Minv || !vfree || !mu || !u || !lambda || !step) goto done;
    if (body_blocks(p, Minv, vfree)) {
        printf("%-26s skipped: A is not block diagonal in 6-dof bodies\n", p->name);
        goto done;
    }
    for (int c = 0; c < nc; c++) mu[c] = q.blocks[c].mu;
    double t_ncp[3], t_ref[3], s_ncp = 0.0, s_ref = 0.0, diff = 0.0, lmax = 0.0;
    size_t nnzy = 0;
    int route = -1;
    for (int rep = 0; rep < 3; rep++) {
        ncp_error err = {0};
        ncp_gs_vel g;
        double t0 = cpu_ms();
        if (ncp_gs_vel_setup(&g, &q, NCP_GS_AUTO, u, &err) ||
            ncp_block_steps_diag(&q, g.dblk, step, NULL, &err)) {
            fprintf(stderr, "%s: %s\n", p->name, err.msg);
            ncp_gs_vel_free(&g);
            goto done;
        }
        ncp_zero(m, lambda);
        ncp_gs_vel_start(&g, lambda);
        double t1 = cpu_ms();
        for (int k = 0; k < sweeps; k++) ncp_pgs_sweep_vel(&q, &g, step, 1.0, 1, lambda);
        double t2 = cpu_ms();
        route = g.route;
        nnzy = g.route == NCP_GS_VELOCITY ? g.Y.ptr[m] : 0;
        ncp_gs_vel_free(&g);
        ref_pgs k;
        double t3 = cpu_ms();
        if (ref_pgs_init(&k, nc, nv, q.J.rowptr, q.J.col, q.J.val, Minv, vfree, q.e, mu)) {
            fprintf(stderr, "%s: out of memory\n", p->name);
            goto done;
        }
        double t4 = cpu_ms();
        for (int s = 0; s < sweeps; s++) ref_pgs_sweep(&k);
        double t5 = cpu_ms();
        t_ncp[rep] = 1e3 * (t2 - t1) / sweeps;
        t_ref[rep] = 1e3 * (t5 - t4) / sweeps;
        s_ncp = t1 - t0;
        s_ref = t4 - t3;
        diff = 0.0;
        lmax = 0.0;
        for (int i = 0; i < m; i++) {
            diff = fmax(diff, fabs(k.lambda[i] - lambda[i]));
            lmax = fmax(lmax, fabs(lambda[i]));
        }
        ref_pgs_free(&k);
    }
    qsort(t_ncp, 3, sizeof(double), cmp_double);
    qsort(t_ref, 3, sizeof(double), cmp_double);
    double t_dense = dense ? dense_sweep_us(&q, step, sweeps < 5 ? sweeps : 5) : NAN;
    printf("%-12s %-8s %6d %7d %7d %9zu %5s %10.1f %10.1f %6.2f %8.1f %8.1f %9.2e %8.1f %8.1f",
           p->scene ? p->scene : "?", p->name, nc, m, q.J.nnz, nnzy,
           route == NCP_GS_VELOCITY ? "vel" : "D", t_ncp[1], t_ref[1], t_ncp[1] / t_ref[1],
           1e3 * t_ncp[1] / nc, 1e3 * t_ref[1] / nc, diff / fmax(1.0, lmax), s_ncp, s_ref);
    if (dense) printf(" %12.1f", t_dense);
    printf("\n");
    out->nc = nc;
    out->ncp_us = t_ncp[1];
    out->ref_us = t_ref[1];
    out->dense_us = t_dense;
    rc = 0;
done:
    free(blocks);
    free(Minv);
    free(vfree);
    free(mu);
    free(u);
    free(lambda);
    free(step);
    free(rptr);
    return rc;
}

int main(int argc, char **argv)
{
    int sweeps = 50, nrows = 0, cap = 0, dense = 0;
    row *rows = NULL;
    for (int a = 1; a < argc; a++) dense |= strcmp(argv[a], "--dense") == 0;
    printf("%-12s %-8s %6s %7s %7s %9s %5s %10s %10s %6s %8s %8s %9s %8s %8s%s\n", "scene",
           "problem", "nc", "m", "nnz(J)", "nnz(Y)", "route", "ncp us", "ref us", "ratio",
           "ncp ns/c", "ref ns/c", "|dlambda|", "setup ms", "ref ms", dense ? "  dense-D us" : "");
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--sweeps") == 0 && a + 1 < argc) {
            sweeps = atoi(argv[++a]);
            if (sweeps < 1) sweeps = 1;
            continue;
        }
        if (strcmp(argv[a], "--dense") == 0) continue;
        ncp_problem *probs = NULL;
        ncp_problem_origin *origin = NULL;
        int n = 0;
        ncp_error err = {0};
        if (ncp_load_problems_raw(argv[a], 0.0, 0.0, &probs, &origin, &n, &err)) {
            fprintf(stderr, "%s: %s\n", argv[a], err.msg);
            return 2;
        }
        for (int i = 0; i < n; i++) {
            if (nrows == cap) {
                cap = cap ? 2 * cap : 16;
                row *r = realloc(rows, (size_t)cap * sizeof(row));
                if (!r) return 3;
                rows = r;
            }
            if (bench_problem(&probs[i], sweeps, dense, &rows[nrows]) == 0) nrows++;
        }
        ncp_problems_free(probs, n);
        free(origin);
    }
    if (nrows >= 2) {
        printf("time per sweep ~ contacts^k over %d problems: ncpbench k = %.3f, reference k = "
               "%.3f", nrows, slope(nrows, rows, 0), slope(nrows, rows, 1));
        if (dense) printf(", dense D k = %.3f", slope(nrows, rows, 2));
        printf("\n");
    }
    free(rows);
    return 0;
}
