/* The reference velocity-form PGS sweep (ref_pgs_kernel.h). */
#include "ref_pgs_kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ref_pgs_free(ref_pgs *k)
{
    free(k->rowptr);
    free(k->col);
    free(k->val);
    free(k->yptr);
    free(k->ycol);
    free(k->yval);
    free(k->e);
    free(k->mu);
    free(k->step);
    free(k->v);
    free(k->lambda);
    memset(k, 0, sizeof *k);
}

/* Largest eigenvalue of a symmetric positive semi-definite 3x3 matrix by power iteration. */
static double lmax3(const double G[9])
{
    double x[3] = {1.0, 0.7, 0.4}, lam = 0.0;
    for (int it = 0; it < 500; it++) {
        double y[3];
        for (int i = 0; i < 3; i++) y[i] = G[i] * x[0] + G[i + 3] * x[1] + G[i + 6] * x[2];
        double n = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
        if (!(n > 0.0)) return 0.0;
        double rq = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
        for (int i = 0; i < 3; i++) x[i] = y[i] / n;
        if (it > 0 && fabs(rq - lam) <= 1e-15 * rq) return rq;
        lam = rq;
    }
    return lam;
}

int ref_pgs_init(ref_pgs *k, int nc, int nv, const int *rowptr, const int *col,
                 const double *val, const double *Minv, const double *vfree, const double *e,
                 const double *mu)
{
    memset(k, 0, sizeof *k);
    const int m = 3 * nc, nnz = rowptr[m];
    k->nc = nc;
    k->nv = nv;
    k->rowptr = malloc(((size_t)m + 1) * sizeof(int));
    k->col = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int));
    k->val = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(double));
    k->yptr = malloc(((size_t)m + 1) * sizeof(int));
    k->e = malloc((size_t)(m > 0 ? m : 1) * sizeof(double));
    k->mu = malloc((size_t)(nc > 0 ? nc : 1) * sizeof(double));
    k->step = malloc((size_t)(nc > 0 ? nc : 1) * sizeof(double));
    k->v = malloc((size_t)(nv > 0 ? nv : 1) * sizeof(double));
    k->lambda = calloc((size_t)(m > 0 ? m : 1), sizeof(double));
    double *w = calloc((size_t)(nv > 0 ? nv : 1), sizeof(double));
    if (!k->rowptr || !k->col || !k->val || !k->yptr || !k->e || !k->mu || !k->step || !k->v ||
        !k->lambda || !w) {
        free(w);
        ref_pgs_free(k);
        return -1;
    }
    memcpy(k->rowptr, rowptr, ((size_t)m + 1) * sizeof(int));
    memcpy(k->col, col, (size_t)nnz * sizeof(int));
    memcpy(k->val, val, (size_t)nnz * sizeof(double));
    memcpy(k->e, e, (size_t)m * sizeof(double));
    memcpy(k->mu, mu, (size_t)nc * sizeof(double));
    memcpy(k->v, vfree, (size_t)nv * sizeof(double));
    /* Y's pattern: 6 entries per body a row touches (a row's columns are sorted, so a body's
     * columns are adjacent) */
    k->yptr[0] = 0;
    for (int i = 0; i < m; i++) {
        int nb = 0, last = -1;
        for (int q = rowptr[i]; q < rowptr[i + 1]; q++)
            if (col[q] / 6 != last) {
                last = col[q] / 6;
                nb++;
            }
        k->yptr[i + 1] = k->yptr[i] + 6 * nb;
    }
    int ny = k->yptr[m] > 0 ? k->yptr[m] : 1;
    k->ycol = malloc((size_t)ny * sizeof(int));
    k->yval = malloc((size_t)ny * sizeof(double));
    if (!k->ycol || !k->yval) {
        free(w);
        ref_pgs_free(k);
        return -1;
    }
    for (int i = 0; i < m; i++) { /* Y_i on body b = Minv_b J_{i,b}^T */
        int o = k->yptr[i];
        for (int q = rowptr[i]; q < rowptr[i + 1];) {
            int b = col[q] / 6;
            double jb[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
            for (; q < rowptr[i + 1] && col[q] / 6 == b; q++) jb[col[q] - 6 * b] = val[q];
            const double *Mi = Minv + 36 * (size_t)b;
            for (int a = 0; a < 6; a++) {
                double s = 0.0;
                for (int c = 0; c < 6; c++) s += Mi[a + 6 * c] * jb[c];
                k->ycol[o] = 6 * b + a;
                k->yval[o++] = s;
            }
        }
    }
    for (int c = 0; c < nc; c++) { /* D_cc = J_c Y_c, step 1 / lambda_max */
        double G[9];
        for (int b = 0; b < 3; b++) {
            const int r = 3 * c + b;
            for (int q = k->yptr[r]; q < k->yptr[r + 1]; q++) w[k->ycol[q]] = k->yval[q];
            for (int a = 0; a < 3; a++) {
                double s = 0.0;
                for (int q = rowptr[3 * c + a]; q < rowptr[3 * c + a + 1]; q++)
                    s += val[q] * w[col[q]];
                G[a + 3 * b] = s;
            }
            for (int q = k->yptr[r]; q < k->yptr[r + 1]; q++) w[k->ycol[q]] = 0.0;
        }
        for (int b = 0; b < 3; b++)
            for (int a = 0; a < b; a++)
                G[a + 3 * b] = G[b + 3 * a] = 0.5 * (G[a + 3 * b] + G[b + 3 * a]);
        double l = lmax3(G);
        k->step[c] = l > 0.0 ? 1.0 / l : 0.0;
    }
    free(w);
    return 0;
}

double ref_pgs_sweep(ref_pgs *k)
{
    const int *rp = k->rowptr, *cl = k->col, *yp = k->yptr, *yc = k->ycol;
    const double *jv = k->val, *yv = k->yval;
    double *v = k->v, dmax = 0.0;
    for (int c = 0; c < k->nc; c++) {
        if (k->step[c] == 0.0) continue;
        const int r = 3 * c;
        double u[3];
        for (int a = 0; a < 3; a++) {
            double s = k->e[r + a];
            for (int q = rp[r + a]; q < rp[r + a + 1]; q++) s += jv[q] * v[cl[q]];
            u[a] = s;
        }
        const double mu = k->mu[c], h = k->step[c];
        double *lam = k->lambda + r;
        const double x0 = lam[0] - h * (u[0] + mu * sqrt(u[1] * u[1] + u[2] * u[2]));
        const double x1 = lam[1] - h * u[1], x2 = lam[2] - h * u[2];
        double n = x0, t1 = x1, t2 = x2; /* projection onto {|t| <= mu n} */
        const double s = sqrt(x1 * x1 + x2 * x2);
        if (x0 >= 0.0 && s <= mu * x0) {
        } else if (mu * s <= -x0) {
            n = t1 = t2 = 0.0;
        } else {
            n = (x0 + mu * s) / (1.0 + mu * mu);
            const double f = mu * n / s;
            t1 = f * x1;
            t2 = f * x2;
        }
        const double dl[3] = {n - lam[0], t1 - lam[1], t2 - lam[2]};
        lam[0] = n;
        lam[1] = t1;
        lam[2] = t2;
        for (int a = 0; a < 3; a++) {
            dmax = fmax(dmax, fabs(dl[a]));
            if (dl[a] == 0.0) continue;
            for (int q = yp[r + a]; q < yp[r + a + 1]; q++) v[yc[q]] += yv[q] * dl[a];
        }
    }
    return dmax;
}
