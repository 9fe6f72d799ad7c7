/* A hand-written reference kernel of one velocity-form projected Gauss–Seidel sweep, the limit
 * ncpbench's pgs sweep is measured against (issue 27: "PGS sweep within 3x of the reference
 * kernel"). Plain C, no ncpbench code, no harness: J in CSR over 6-dof bodies, the bodies'
 * inverse mass blocks, and per contact the step of pgs (1 / lambda_max(D_kk)), the De Saxcé
 * correction and the projection onto the friction cone (solvers/pgs.c's update, omega = 1):
 *     u_k = J_k v + e_k                         (3 rows, CSR)
 *     lambda_k <- Pi_K(lambda_k - step_k (u_k + (mu |u_k,t|, 0, 0)))
 *     v += Y_k (lambda_k - lambda_k,old),  Y = M^{-1} J^T on the 6 dofs of each body row k touches
 * with v = M^{-1}(b + J^T lambda) kept current (Erleben 2007, ACM TOG 26(2), §4).
 * Contacts only (3 rows each, normal first); the caller passes the contact rows of J. */
#ifndef NCP_REF_PGS_KERNEL_H
#define NCP_REF_PGS_KERNEL_H

typedef struct ref_pgs {
    int nc, nv;                 /* contacts (3 nc rows), dofs (6 per body) */
    int *rowptr, *col;          /* J, CSR (copied) */
    double *val;
    int *yptr, *ycol;           /* Y = M^{-1} J^T by row of J: the touched bodies' dofs */
    double *yval;
    double *e, *mu, *step;      /* 3 nc, nc, nc */
    double *v, *lambda;         /* nv, 3 nc */
} ref_pgs;

/* Builds the kernel: J (3 nc x nv CSR, columns of body b at 6b .. 6b + 5), Minv (36 per body,
 * column-major inverse mass blocks), vfree = M^{-1} b (nv), e (3 nc), mu (nc). lambda = 0,
 * v = vfree. Returns 0, or -1 when out of memory. */
int ref_pgs_init(ref_pgs *k, int nc, int nv, const int *rowptr, const int *col,
                 const double *val, const double *Minv, const double *vfree, const double *e,
                 const double *mu);
/* One sweep over the contacts in order; returns the largest |change| of lambda. */
double ref_pgs_sweep(ref_pgs *k);
void ref_pgs_free(ref_pgs *k);

#endif
