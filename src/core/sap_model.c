/* The compliant contact model of Castro et al. 2023 (see sap_model.h). */
#include "core/sap_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/la.h"

static const double SAP_PI = 3.14159265358979323846; /* M_PI is not in strict C11 */

void ncp_sap_model_free(ncp_sap_model *sm)
{
    if (!sm) return;
    free(sm->R);
    free(sm->shift);
    free(sm->work);
    memset(sm, 0, sizeof *sm);
}

static int build_rows(const ncp_problem *p, const double *dd, double beta, double sigma,
                      ncp_sap_model *sm, ncp_error *err);

/* Floor for an effective inverse mass w: a row or contact whose diagonal block of D is zero does
 * not move under its own impulse (J_i = 0); R = 0 would divide by zero, so such rows get
 * 1e-14 x the largest diagonal entry of D (1 if D = 0), as solvers/common.c treats them. dd: the
 * diagonal blocks of D, 9 entries per block (a k x k block in its first k^2). */
static double w_floor(const ncp_problem *p, const double *dd)
{
    double dmax = 0.0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        int k = ncp_block_type_size(p->blocks[bi].type);
        for (int i = 0; i < k; i++) dmax = fmax(dmax, dd[9 * (size_t)bi + i + (size_t)i * k]);
    }
    return dmax > 0.0 ? 1e-14 * dmax : 1.0;
}

int ncp_sap_model_build(const ncp_problem *p, const ncp_dop *op, double beta, double sigma,
                        ncp_sap_model *sm, ncp_error *err)
{
    memset(sm, 0, sizeof *sm);
    int m = p->m;
    const char *name = p->name ? p->name : "?";
    if (!(beta > 0.0) || !(sigma > 0.0))
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "SAP model: beta = %g and sigma = %g must be > 0", beta, sigma);
    if (m > 0 && (!op || op->m != m))
        return ncp_error_set(err, NCP_ERR_INTERNAL, "SAP model: problem '%s' has no Delassus "
                             "operator", name);
    size_t nw = (size_t)(p->nv > m ? p->nv : m);
    sm->m = m;
    sm->R = ncp_calloc(err, (size_t)m, sizeof(double));
    sm->shift = ncp_calloc(err, (size_t)m, sizeof(double));
    sm->work = ncp_calloc(err, 2 * nw, sizeof(double));
    /* the diagonal blocks of D, by the operator (core/dop.h: no dense D needed) */
    double *dd = ncp_malloc(err, 9 * (size_t)(p->nblocks > 0 ? p->nblocks : 1), sizeof(double));
    if (!sm->R || !sm->shift || !sm->work || !dd) {
        free(dd);
        ncp_sap_model_free(sm);
        return NCP_ERR_NOMEM;
    }
    if (m == 0) {
        free(dd);
        return NCP_OK;
    }
    for (int bi = 0; bi < p->nblocks; bi++)
        ncp_dop_diag_block(op, p->blocks[bi].row, ncp_block_type_size(p->blocks[bi].type),
                           dd + 9 * (size_t)bi);
    int rc = build_rows(p, dd, beta, sigma, sm, err);
    free(dd);
    if (rc) ncp_sap_model_free(sm);
    return rc;
}

/* R and shift from the diagonal blocks dd (w_floor's layout). */
static int build_rows(const ncp_problem *p, const double *dd, double beta, double sigma,
                      ncp_sap_model *sm, ncp_error *err)
{
    const char *name = p->name ? p->name : "?";
    const double wmin = w_floor(p, dd);
    const double rigid = beta * beta / (4.0 * SAP_PI * SAP_PI); /* eq. 29, near-rigid branch */
    const double h = p->h;
    /* The geometry-based stabilisation needs phi0, h and our own e (to undo it); e is primal
     * data, with A dense or kept sparse (the capture's block route). */
    const int geom = p->contacts && h > 0.0 && (p->has_primal || p->has_sparse_primal) && p->e;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        int r = b->row;
        double *R = sm->R + r;
        switch (b->type) {
        case NCP_BILATERAL:
        case NCP_UNILATERAL:
            R[0] = rigid * fmax(dd[9 * (size_t)bi], wmin);
            break;
        case NCP_SOFT:
            break; /* its own law, no regularisation */
        case NCP_CONTACT: {
            /* w = ||W_ii||_F / 3 = RMS of the 9 entries (eqs. 29-30). */
            double f2 = 0.0;
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++) {
                    double x = dd[9 * (size_t)bi + i + 3 * (size_t)j];
                    f2 += x * x;
                }
            double w = fmax(sqrt(f2) / 3.0, wmin);
            double k = INFINITY, tau = 0.0;
            const ncp_contact_info *ci = NULL;
            if (p->contacts && b->contact >= 0 && b->contact < p->ncontacts)
                ci = &p->contacts[b->contact];
            if (ci) {
                if (isnan(ci->stiffness) || ci->stiffness < 0.0)
                    return ncp_error_set(err, NCP_ERR_INPUT,
                                         "problem '%s': contacts/stiffness[%d] = %g must be > 0 "
                                         "(N/m), or 0 (rigid)",
                                         name, b->contact, ci->stiffness);
                if (!(ci->dissipation >= 0.0) || !isfinite(ci->dissipation))
                    return ncp_error_set(err, NCP_ERR_INPUT,
                                         "problem '%s': contacts/dissipation[%d] = %g must be a "
                                         "finite number >= 0 (s)",
                                         name, b->contact, ci->dissipation);
                if (ci->stiffness > 0.0) k = ci->stiffness;
                tau = ci->dissipation;
            }
            double Rn = rigid * w;
            if (h > 0.0 && isfinite(k)) Rn = fmax(Rn, 1.0 / (h * k * (h + tau))); /* eq. 29 */
            R[0] = Rn;
            R[1] = R[2] = sigma * w; /* eq. 30 */
            if (geom && ci && isfinite(ci->gap)) {
                /* v_hat_n = -phi0 / (h + tau_d) (§V-A); u_hat = J v - v_hat = u - e - v_hat */
                sm->shift[r] = ci->gap / (h + tau) - p->e[r];
                sm->shift[r + 1] = -p->e[r + 1];
                sm->shift[r + 2] = -p->e[r + 2];
            }
            break;
        }
        default:
            return ncp_error_set(err, NCP_ERR_INPUT, "problem '%s': block %d has unknown type %d",
                                 name, bi, b->type);
        }
    }
    return NCP_OK;
}

int ncp_sap_project(double mu, double Rn, double Rt, const double y[3], double g[3],
                    double dg[9])
{
    const double yn = y[0], yr = hypot(y[1], y[2]);
    if (dg) memset(dg, 0, 9 * sizeof(double));
    /* R_I: y in F (y_n >= 0 is explicit so that mu = 0 needs no special case). */
    if (yn >= 0.0 && yr <= mu * yn) {
        if (g != y) memcpy(g, y, 3 * sizeof(double));
        if (dg) dg[0] = dg[4] = dg[8] = 1.0;
        return NCP_SAP_STICK;
    }
    const double muh = mu * Rt / Rn;      /* mu_hat = mu R_t / R_n */
    const double mut2 = mu * mu * Rt / Rn; /* mu_tilde^2 */
    /* R_III: interior of the polar cone (strict, the boundary belongs to R_II, App. D). Here
     * y_r > 0 whenever we reach R_II: y_r = 0 is in R_I (y_n >= 0) or R_III (y_n < 0). */
    if (yn < -muh * yr) {
        g[0] = g[1] = g[2] = 0.0;
        return NCP_SAP_OPEN;
    }
    const double f = 1.0 / (1.0 + mut2);
    const double t1 = y[1] / yr, t2 = y[2] / yr;
    const double gn = f * (yn + muh * yr); /* eq. 27, sliding */
    g[0] = gn;
    g[1] = mu * gn * t1;
    g[2] = mu * gn * t2;
    if (dg) {
        /* d gamma_n/dy = f (1, mu_hat t); d gamma_t/dy_n = mu f t;
         * d gamma_t/dy_t = mu (f mu_hat t t^T + gamma_n/y_r (I - t t^T)) (App. D, d t/dy_t =
         * P_perp / y_r). */
        const double t[2] = {t1, t2}, s = gn / yr;
        dg[0] = f;
        for (int j = 0; j < 2; j++) {
            dg[0 + 3 * (j + 1)] = f * muh * t[j];
            dg[(j + 1) + 0] = mu * f * t[j];
            for (int i = 0; i < 2; i++)
                dg[(i + 1) + 3 * (j + 1)] =
                    mu * (f * muh * t[i] * t[j] + s * ((i == j ? 1.0 : 0.0) - t[i] * t[j]));
        }
    }
    return NCP_SAP_SLIDE;
}

double ncp_sap_block(const ncp_problem *p, const ncp_sap_model *sm, int bi, const double *uhat,
                     double *gamma, double *G)
{
    const ncp_block *b = &p->blocks[bi];
    const double *R = sm->R + b->row;
    switch (b->type) {
    case NCP_BILATERAL: /* gamma = y = -u_hat/R (free impulse) */
        gamma[0] = -uhat[0] / R[0];
        if (G) G[0] = 1.0 / R[0];
        return 0.5 * R[0] * gamma[0] * gamma[0];
    case NCP_UNILATERAL: { /* gamma = max(0, y); y = 0 is in the cone: stick's G (App. D) */
        double y = -uhat[0] / R[0];
        gamma[0] = fmax(0.0, y);
        if (G) G[0] = y >= 0.0 ? 1.0 / R[0] : 0.0;
        return 0.5 * R[0] * gamma[0] * gamma[0];
    }
    case NCP_SOFT: /* lambda = -k phi - c u: l = 1/2 c u^2 + k phi u */
        gamma[0] = -(b->c * uhat[0] + b->k * b->phi);
        if (G) G[0] = b->c;
        return 0.5 * b->c * uhat[0] * uhat[0] + b->k * b->phi * uhat[0];
    case NCP_CONTACT: {
        const double Rn = R[0], Rt = R[1];
        double y[3] = {-uhat[0] / Rn, -uhat[1] / Rt, -uhat[2] / Rt}, dg[9];
        ncp_sap_project(b->mu, Rn, Rt, y, gamma, G ? dg : NULL);
        if (G) {
            /* G = -dgamma/du_hat = dgamma/dy R^{-1} (App. D-B); symmetric analytically, the
             * average removes round-off so that H stays exactly symmetric. */
            const double Ri[3] = {1.0 / Rn, 1.0 / Rt, 1.0 / Rt};
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++) G[i + 3 * j] = dg[i + 3 * j] * Ri[j];
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < j; i++) {
                    double a = 0.5 * (G[i + 3 * j] + G[j + 3 * i]);
                    G[i + 3 * j] = G[j + 3 * i] = a;
                }
        }
        return 0.5 * (Rn * gamma[0] * gamma[0] + Rt * (gamma[1] * gamma[1] + gamma[2] * gamma[2]));
    }
    default:
        if (G) G[0] = 0.0;
        gamma[0] = 0.0;
        return 0.0;
    }
}

double ncp_sap_eval(const ncp_problem *p, const ncp_sap_model *sm, const double *uhat,
                    double *gamma, double *G9)
{
    double l = 0.0;
    for (int bi = 0; bi < p->nblocks; bi++) {
        int r = p->blocks[bi].row;
        l += ncp_sap_block(p, sm, bi, uhat + r, gamma + r, G9 ? G9 + 9 * (size_t)bi : NULL);
    }
    return l;
}

/* sqrt(x^T D x), clamped at 0 (D is PSD; round-off may give a tiny negative). */
static double dnorm(int m, const double *D, const double *x, double *Dx)
{
    ncp_gemv(0, m, m, 1.0, D, x, 0.0, Dx);
    return sqrt(fmax(0.0, ncp_dot(m, x, Dx)));
}

void ncp_sap_momentum_parts(const ncp_problem *p, ncp_sap_model *sm, const double *lambda,
                            const double *gamma, double *num, double *den)
{
    int m = p->m;
    /* the primal form, dense A or A kept sparse (the same eq. 32 for the same mechanics, however
     * A is stored; only its diagonal is read) */
    const int dense_a = p->has_primal && p->A;
    const int sparse_a = !dense_a && p->has_sparse_primal && p->A_sparse.rowptr &&
                         p->A_sparse.m == p->nv;
    if ((dense_a || sparse_a) && p->b && p->J.rowptr) {
        int nv = p->nv;
        double *jl = sm->work, *jg = sm->work + nv;
        ncp_csr_gemv_t(&p->J, 1.0, lambda, 0.0, jl); /* J^T lambda */
        ncp_csr_gemv_t(&p->J, 1.0, gamma, 0.0, jg);  /* j_c = J^T gamma */
        double g2 = 0.0, p2 = 0.0, c2 = 0.0, l2 = 0.0;
        for (int i = 0; i < nv; i++) {
            double a = dense_a ? p->A[i + (size_t)i * nv] : ncp_csr_diag(&p->A_sparse, i);
            double ds2 = a > 0.0 ? 1.0 / a : 1.0; /* A is SPD: a > 0; guard anyway */
            double g = jl[i] - jg[i], pm = p->b[i] + jl[i];
            g2 += ds2 * g * g;
            p2 += ds2 * pm * pm;
            c2 += ds2 * jg[i] * jg[i];
            l2 += ds2 * jl[i] * jl[i];
        }
        *num = sqrt(g2);
        *den = sqrt(fmax(p2, fmax(c2, l2)));
        return;
    }
    double *x = sm->work, *Dx = sm->work + m;
    double ng = dnorm(m, p->D, gamma, Dx);
    if (ncp_all_zero(m, lambda)) {
        /* x = -gamma: the same norm, bit for bit; ||lambda||_D = 0 (two O(m^2) products saved) */
        *num = ng;
        *den = fmax(0.0, ng);
        return;
    }
    for (int i = 0; i < m; i++) x[i] = lambda[i] - gamma[i];
    *num = dnorm(m, p->D, x, Dx);
    double nl = dnorm(m, p->D, lambda, Dx); /* = ||p|| = ||J^T lambda|| in the form A = I */
    *den = fmax(nl, ng);
}

double ncp_sap_compl(const ncp_problem *p, const ncp_sap_model *sm, const double *lambda,
                     const double *u, const double *vf)
{
    int m = p->m, nc = 0;
    double s = 0.0, lq = 0.0;
    for (int i = 0; i < m; i++) lq += lambda[i] * (u[i] - vf[i] + sm->R[i] * lambda[i]);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        if (b->type != NCP_CONTACT) continue;
        nc++;
        double d = 0.0;
        for (int j = 0; j < 3; j++) {
            int r = b->row + j;
            d += (u[r] + sm->shift[r] + sm->R[r] * lambda[r]) * lambda[r];
        }
        s += fabs(d);
    }
    if (nc == 0) return 0.0;
    double lp = 0.5 * lq; /* 1/2 lambda^T (D + R) lambda; D lambda = u - v_f */
    double num = s / nc;
    return lp > 0.0 ? num / lp : num; /* as metrics.c's rel(): no scale -> the absolute value */
}
