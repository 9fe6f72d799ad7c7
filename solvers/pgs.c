/* pgs — projected Gauss–Seidel on the NCP with the De Saxcé term.
 *
 * Source: seed 000 §VII, the paper's "universal baseline" (dual, Delassus-based, "handles the
 * NCP without model relaxation"); the paper gives no details, so the sweep follows seed 004
 * Alg. 5 (projective splitting / block Gauss–Seidel, eqs. 143-145) in the block order of the
 * assembly (bilateral, unilateral, contact, soft = seed 004's joints -> limits -> contacts),
 * with the per-contact step of seed 004 Alg. 2 plus the De Saxcé estimate of Alg. 5 line 16:
 *     u_k     = v_f,k + sum_m D_km lambda_m          (current, Gauss–Seidel)
 *     lambda_k <- Pi_K( lambda_k - omega r_k (u_k + Gamma(u_k)) ),   r_k = 1 / lambda_max(D_kk)
 * Fixed points of this map are exactly the solutions of K* ∋ u + Gamma(u) ⊥ lambda ∈ K (any
 * r_k > 0), so it targets the NCP, not the CCP relaxation.
 *
 * Block updates (the exact 1-D Gauss–Seidel solves, seed 004 Alg. 5 lines 5 and 10):
 *   bilateral  lambda <- lambda - omega u / D_rr
 *   unilateral lambda <- max(0, lambda - omega u / D_rr)
 *   soft       lambda* = (-k phi - c u_o) / (1 + c D_rr), u_o = u - D_rr lambda (the row's law
 *              lambda = -k phi - c u solved with its own diagonal);
 *              lambda <- lambda + omega (lambda* - lambda)
 *   contact    as above; `local_iter` > 1 repeats the local step with the local velocity updated
 *              through D_kk and Gamma re-estimated (the "-DS" successive approximation), before
 *              the coupling to the other rows is updated once.
 * Step choice r_k = 1/lambda_max(D_kk) = 1/L, the classical projected-gradient step for the local
 * convexified problem min 1/2 l^T D_kk l + l^T (u_k + Gamma) over K (Gamma frozen): it decreases
 * that objective monotonically for any omega in (0, 2). Seed 004 Alg. 2's 3/trace(D_kk) is the
 * inverse of the MEAN eigenvalue and exceeds 2/L (no decrease guaranteed) when D_kk is
 * anisotropic, which contact blocks often are (normal and tangential masses differ).
 * Over-relaxation: omega multiplies the step INSIDE the projection (projected SOR, Cryer 1971)
 * rather than blending after it as in seed 004 eq. 145: for omega > 1 the blend can leave K
 * (e.g. a negative normal impulse), the in-projection form keeps every iterate feasible; both
 * are plain Gauss–Seidel for omega = 1.
 * Rows whose diagonal is (numerically) zero do not influence their own velocity; Gauss–Seidel has
 * no information for them, so their lambda is left as it is.
 *
 * Cost: u = D lambda + v_f is kept up to date incrementally (one column axpy per updated row),
 * so a sweep costs O(m^2).
 *
 * Parameters (defaults): omega 1, local_iter 1, stall_tol 1e-15 (stop with STALLED when a sweep
 * changes lambda by <= stall_tol * max(1, ||lambda||_inf) in the max norm).
 * Needs: dual (D, v_f). Warm start: in->lambda0.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cone.h"
#include "la.h"
#include "registry.h"
#include "solver.h"

static const ncp_param_doc pgs_params[] = {
    {"omega", 1.0,
     "over-relaxation factor in (0, 2), applied inside the projection (1 = Gauss-Seidel)"},
    {"local_iter", 1.0,
     "projected steps per contact per sweep (integer >= 1), Gamma re-estimated each step"},
    {"stall_tol", 1e-15,
     "stop (STALLED) when a sweep changes lambda by <= stall_tol * max(1, |lambda|_inf)"},
    {NULL, 0.0, NULL},
};

/* Value of a documented parameter: the default comes from the table above, the one place it is
 * written. */
static double pgs_param(const ncp_params *ps, const char *name)
{
    for (const ncp_param_doc *d = pgs_params; d->name; d++)
        if (strcmp(d->name, name) == 0) return ncp_params_get(ps, name, d->def);
    return NAN; /* not documented: every validation below rejects NaN */
}

typedef struct pgs_ws {
    int m;
    double *lambda; /* m */
    double *u;      /* m: D lambda + v_f, updated incrementally */
    double *step;   /* per block: 1/D_rr (scalar rows) or 1/lambda_max(D_kk) (contacts); 0 = skip */
} pgs_ws;

static void pgs_ws_free(pgs_ws *w)
{
    free(w->lambda);
    free(w->u);
    free(w->step);
}

/* u += D(:, r..r+n-1) * dl (D symmetric column-major, columns contiguous). */
static void pgs_update_u(int m, const double *D, int r, int n, const double *dl, double *u)
{
    for (int j = 0; j < n; j++)
        if (dl[j] != 0.0) ncp_axpy(m, dl[j], D + (size_t)(r + j) * m, u);
}

/* Largest eigenvalue of the 3x3 diagonal block of D at row r (symmetrised copy). */
static int pgs_block_max_eig(int m, const double *D, int r, double *lmax, ncp_error *err)
{
    double B[9], ev[3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            B[i + 3 * j] =
                0.5 * (D[(r + i) + (size_t)(r + j) * m] + D[(r + j) + (size_t)(r + i) * m]);
    int rc = ncp_sym_eig(3, B, ev, err);
    *lmax = ev[2];
    return rc;
}

/* One contact block: local projected steps, then the coupling update. Returns max |delta|. */
static double pgs_contact(const ncp_problem *p, const ncp_block *b, double step, double omega,
                          int local_iter, pgs_ws *w)
{
    int m = p->m, row = b->row;
    double *lam = w->lambda + row;
    const double *Dk = p->D + row + (size_t)row * m; /* D_kk(i, j) = Dk[i + j m] */
    double ul[3], old[3], z[3], x[3], dl[3];
    for (int i = 0; i < 3; i++) {
        ul[i] = w->u[row + i];
        old[i] = lam[i];
    }
    for (int it = 0; it < local_iter; it++) {
        double prev[3] = {lam[0], lam[1], lam[2]};
        ncp_desaxce(b->mu, ul, z); /* z = u + Gamma(u), seed 004 Alg. 5 line 16 */
        for (int i = 0; i < 3; i++) x[i] = lam[i] - omega * step * z[i];
        ncp_cone_project(b->mu, x, lam);
        /* local velocity follows lambda through D_kk only (other rows are frozen) */
        for (int i = 0; i < 3; i++) dl[i] = lam[i] - prev[i];
        for (int i = 0; i < 3; i++)
            ul[i] += Dk[i] * dl[0] + Dk[i + (size_t)m] * dl[1] + Dk[i + 2 * (size_t)m] * dl[2];
        if (dl[0] == 0.0 && dl[1] == 0.0 && dl[2] == 0.0) break;
    }
    double dmax = 0.0;
    for (int i = 0; i < 3; i++) {
        dl[i] = lam[i] - old[i];
        dmax = fmax(dmax, fabs(dl[i]));
    }
    /* the exact coupling update (also refreshes u_k itself, overwriting the local estimate) */
    pgs_update_u(m, p->D, row, 3, dl, w->u);
    return dmax;
}

/* One scalar block. Returns |delta|. */
static double pgs_scalar(const ncp_problem *p, const ncp_block *b, double invd, double omega,
                         pgs_ws *w)
{
    int r = b->row;
    double lam = w->lambda[r], u = w->u[r], nl = lam;
    switch (b->type) {
    case NCP_BILATERAL:
        nl = lam - omega * u * invd;
        break;
    case NCP_UNILATERAL:
        nl = fmax(0.0, lam - omega * u * invd);
        break;
    case NCP_SOFT: {
        /* lambda = -k phi - c (u_o + D_rr lambda)  =>  lambda = (-k phi - c u_o)/(1 + c D_rr) */
        double drr = 1.0 / invd;
        double uo = u - drr * lam;
        double ls = (-b->k * b->phi - b->c * uo) / (1.0 + b->c * drr);
        nl = lam + omega * (ls - lam);
        break;
    }
    default:
        break;
    }
    double dl = nl - lam;
    w->lambda[r] = nl;
    pgs_update_u(p->m, p->D, r, 1, &dl, w->u);
    return fabs(dl);
}

static int pgs_solve(const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    const ncp_problem *p = in->prob;
    double omega = pgs_param(in->params, "omega");
    double local_d = pgs_param(in->params, "local_iter");
    double stall_tol = pgs_param(in->params, "stall_tol");
    if (!(omega > 0.0 && omega < 2.0))
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "pgs: parameter omega = %g must lie in (0, 2)", omega);
    if (!(local_d >= 1.0 && local_d <= 1e6 && local_d == floor(local_d)))
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "pgs: parameter local_iter = %g must be an integer in [1, 1e6]",
                             local_d);
    if (!(stall_tol >= 0.0 && isfinite(stall_tol)))
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "pgs: parameter stall_tol = %g must be finite and >= 0", stall_tol);
    if (!p->has_dual || !p->D || !p->vf)
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "pgs: problem '%s' has no dual data (D, v_f)",
                             p->name ? p->name : "?");
    int local_iter = (int)local_d;
    int m = p->m;

    pgs_ws w = {m, NULL, NULL, NULL};
    w.lambda = ncp_calloc(err, (size_t)m, sizeof(double));
    w.u = ncp_calloc(err, (size_t)m, sizeof(double));
    w.step = ncp_calloc(err, (size_t)(p->nblocks), sizeof(double));
    if (!w.lambda || !w.u || !w.step) {
        pgs_ws_free(&w);
        return NCP_ERR_NOMEM;
    }

    /* Steps; a diagonal below 1e-14 of the largest is treated as zero (no self-influence). */
    double dscale = 0.0;
    for (int i = 0; i < m; i++) dscale = fmax(dscale, p->D[i + (size_t)i * m]);
    double dmin = 1e-14 * dscale;
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        double d;
        if (b->type == NCP_CONTACT) {
            int rc = pgs_block_max_eig(m, p->D, b->row, &d, err);
            if (rc) {
                pgs_ws_free(&w);
                return ncp_error_prefix(err, "pgs: contact block at row %d: ", b->row);
            }
        } else {
            d = p->D[b->row + (size_t)b->row * m];
        }
        w.step[bi] = (d > dmin && d > 0.0) ? 1.0 / d : 0.0;
    }

    if (in->lambda0) ncp_copy(m, in->lambda0, w.lambda);
    ncp_copy(m, p->vf, w.u);
    ncp_gemv(0, m, m, 1.0, p->D, w.lambda, 1.0, w.u); /* u = D lambda0 + v_f */

    int status = -1, k = 0;
    if (ncp_run_setup_done(run) == 0) {
        for (k = 1;; k++) {
            double dmax = 0.0;
            for (int bi = 0; bi < p->nblocks; bi++) {
                const ncp_block *b = &p->blocks[bi];
                if (w.step[bi] == 0.0) continue;
                double d = (b->type == NCP_CONTACT)
                               ? pgs_contact(p, b, w.step[bi], omega, local_iter, &w)
                               : pgs_scalar(p, b, w.step[bi], omega, &w);
                dmax = fmax(dmax, d);
            }
            if (!ncp_all_finite(m, w.lambda)) {
                status = NCP_STATUS_FAILED;
                break;
            }
            if (ncp_run_iterate(run, k, w.lambda, NULL)) break;
            if (dmax <= stall_tol * fmax(1.0, ncp_norminf(m, w.lambda))) {
                status = NCP_STATUS_STALLED;
                break;
            }
        }
    }
    ncp_copy(m, w.lambda, out->lambda);
    out->has_v = 0;
    out->iterations = k;
    if (status >= 0) out->status = status;
    pgs_ws_free(&w);
    return NCP_OK;
}

const ncp_solver_desc ncp_solver_pgs = {
    .name = "pgs",
    .source = "seed 000 §VII baseline; seed 004 Alg. 5 (eqs. 143-145) with Alg. 2 + De Saxcé",
    .summary = "projected Gauss-Seidel on the NCP (De Saxcé-corrected per-contact cone step)",
    .needs = NCP_NEEDS_DUAL,
    .ccp = 0,
    .file = "solvers/pgs.c",
    .params = pgs_params,
    .solve = pgs_solve,
};
