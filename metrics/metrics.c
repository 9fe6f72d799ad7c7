/* Solver-independent metrics (docs/design.md), evaluated from lambda and the problem only.
 *
 * Every metric is built from u = D lambda + v_f, computed once per evaluation by the shared
 * Delassus operator (core/dop.h): D = F F^T with F = J L^{-T} when the problem's primal data make
 * that cheaper and its D verifiably equals J A^{-1} J^T (4 m nv flops instead of 2 m^2: the
 * harness evaluates after every iterate, and a monitor as costly as a Gauss–Seidel sweep would
 * double what a benchmark of m = 360, nv = 6 measures), else the dense D. Both routes give the
 * same u up to rounding (tests/test_metrics.c compares them), the v_f is the problem's own, and
 * every metric sees the same u. The header allows the primal route for al_residual; it is the
 * same vector. sap_momentum (Castro et al. 2023 eq. 32) is a statement about generalised momenta:
 * with primal data it also reads A's diagonal, b and J (J^T products, still no factorisation;
 * src/core/sap_model.c).
 *
 * The workspace borrows the problem (and its D and v_f): the problem must outlive it and must
 * not change between ncp_metrics_ws_create and ncp_metrics_eval.
 *
 * Non-finite iterates: if lambda (or the resulting u) holds a NaN or Inf, every metric is NaN
 * and the call still returns NCP_OK. A diverged solver is a result to report (the harness marks
 * the row failed), not an error of the metrics module. */
#include "metrics/metrics.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cone.h"
#include "core/dop.h"
#include "core/la.h"
#include "core/sap_model.h"

static const char *const metric_names[] = {
#define NCP_METRIC_NAME(name, doc) #name,
    NCP_METRIC_COLUMNS(NCP_METRIC_NAME)
#undef NCP_METRIC_NAME
};
static const char *const metric_docs[] = {
#define NCP_METRIC_DOC(name, doc) doc,
    NCP_METRIC_COLUMNS(NCP_METRIC_DOC)
#undef NCP_METRIC_DOC
};
#define NMETRICS NCP_NMETRICS

int ncp_metrics_count(void) { return NMETRICS; }

const char *ncp_metrics_name(int i) { return (i >= 0 && i < NMETRICS) ? metric_names[i] : NULL; }

const char *ncp_metrics_doc(int i) { return (i >= 0 && i < NMETRICS) ? metric_docs[i] : NULL; }

int ncp_metrics_index(const char *name)
{
    if (!name) return -1;
    for (int i = 0; i < NMETRICS; i++)
        if (strcmp(name, metric_names[i]) == 0) return i;
    return -1;
}

void ncp_metrics_values(const ncp_metrics *mt, double *out)
{
#define NCP_METRIC_VALUE(name, doc) out[NCP_METRIC_##name] = mt->name;
    NCP_METRIC_COLUMNS(NCP_METRIC_VALUE)
#undef NCP_METRIC_VALUE
}

double ncp_metrics_at(const ncp_metrics *mt, int i)
{
    double v[NCP_NMETRICS];
    if (i < 0 || i >= NCP_NMETRICS) return NAN;
    ncp_metrics_values(mt, v);
    return v[i];
}

struct ncp_metrics_ws {
    const ncp_problem *p; /* borrowed: must outlive the workspace */
    int m;
    const double *D;      /* p->D when the problem has it, else NULL (the operator serves) */
    const double *vf;     /* p->vf, or vf_own for a problem never completed */
    double *vf_own;
    double *u;            /* m: u = D lambda + v_f */
    double nvf;           /* ||v_f||_2 */
    ncp_dop op;           /* D: dense, low rank or sparse (core/dop.h) */
    double vf_absmax;     /* max |v_f_i| and, on the low-rank route, max_i sum_j |F_ij|: the */
    double f_rowabs;      /* stopping test's overflow bound (ncp_metrics_eval_stop) */
    ncp_sap_model sap;    /* Castro et al. 2023 model with the paper's beta, sigma (sap_* metrics) */
    double *uhat, *gamma; /* m: SAP's velocity u + shift and the model's impulse there */
};

void ncp_metrics_ws_free(ncp_metrics_ws *ws)
{
    if (!ws) return;
    free(ws->vf_own);
    free(ws->u);
    ncp_dop_free(&ws->op);
    ncp_sap_model_free(&ws->sap);
    free(ws->uhat);
    free(ws->gamma);
    free(ws);
}

/* Checks what eval relies on, so that a malformed problem is an error here and never an
 * out-of-bounds read later. */
static int check_blocks(const ncp_problem *p, ncp_error *err)
{
    const char *name = p->name ? p->name : "(unnamed)";
    for (int b = 0; b < p->nblocks; b++) {
        const ncp_block *bk = &p->blocks[b];
        if (bk->type < NCP_BILATERAL || bk->type > NCP_SOFT)
            return ncp_error_set(err, NCP_ERR_INPUT,
                                 "metrics: problem %s block %d has unknown type %d", name, b,
                                 bk->type);
        int size = bk->type == NCP_CONTACT ? 3 : 1;
        if (bk->row < 0 || bk->row > p->m - size)
            return ncp_error_set(err, NCP_ERR_INPUT,
                                 "metrics: problem %s block %d (%s) has rows %d..%d outside "
                                 "0..%d",
                                 name, b, ncp_block_type_name(bk->type), bk->row,
                                 bk->row + size - 1, p->m - 1);
        if (bk->type == NCP_CONTACT && !(bk->mu >= 0.0 && isfinite(bk->mu)))
            return ncp_error_set(err, NCP_ERR_INPUT,
                                 "metrics: problem %s block %d: friction coefficient mu = %g "
                                 "must be finite and >= 0",
                                 name, b, bk->mu);
        /* The soft row's AL residual divides by 1 + c (see eval); c is a damping, so >= 0. */
        if (bk->type == NCP_SOFT &&
            !(bk->c >= 0.0 && isfinite(bk->c) && isfinite(bk->k) && isfinite(bk->phi)))
            return ncp_error_set(err, NCP_ERR_INPUT,
                                 "metrics: problem %s block %d (soft): need finite k, phi and "
                                 "damping c >= 0 (got k = %g, c = %g, phi = %g)",
                                 name, b, bk->k, bk->c, bk->phi);
    }
    return NCP_OK;
}

int ncp_metrics_ws_create(const ncp_problem *p, ncp_metrics_ws **wsp, ncp_error *err)
{
    if (!wsp) return ncp_error_set(err, NCP_ERR_INTERNAL, "metrics: NULL workspace pointer");
    *wsp = NULL;
    if (!p) return ncp_error_set(err, NCP_ERR_INTERNAL, "metrics: NULL problem");
    if (p->m < 0 || p->nblocks < 0 || (p->nblocks > 0 && !p->blocks))
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "metrics: problem %s has an invalid block layout (m = %d, "
                             "nblocks = %d)",
                             p->name ? p->name : "(unnamed)", p->m, p->nblocks);
    int rc = check_blocks(p, err);
    if (rc) return rc;
    if (p->m > 0 && !p->has_dual && !p->has_primal && !p->has_sparse_primal)
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "metrics: problem %s has neither dual (D, v_f) nor primal "
                             "(A, b, J, e) data",
                             p->name ? p->name : "(unnamed)");

    ncp_metrics_ws *ws = ncp_calloc(err, 1, sizeof *ws);
    if (!ws) return NCP_ERR_NOMEM;
    ws->p = p;
    ws->m = p->m;
    size_t m = (size_t)p->m;
    ws->u = ncp_calloc(err, m, sizeof(double));
    if (!ws->u) {
        ncp_metrics_ws_free(ws);
        return NCP_ERR_NOMEM;
    }
    if (p->m > 0 && p->has_dual && (!p->D || !p->vf)) {
        ncp_metrics_ws_free(ws);
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "metrics: problem %s claims dual data but D or v_f is missing",
                             p->name ? p->name : "(unnamed)");
    }
    if (p->m > 0 && !p->has_dual &&
        (!p->J.rowptr || p->J.m != p->m || p->J.n != p->nv ||
         (p->has_primal ? !p->A : !p->A_sparse.rowptr))) {
        ncp_metrics_ws_free(ws);
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "metrics: problem %s: primal data inconsistent (A %s, J is "
                             "%d x %d, expected %d x %d)",
                             p->name ? p->name : "(unnamed)",
                             p->A || p->A_sparse.rowptr ? "present" : "missing", p->J.m, p->J.n,
                             p->m, p->nv);
    }
    /* D when the problem has it (dual-only, or a solve's view with the D it built), else
     * nothing: u = D lambda + v_f goes through the operator's primal route (core/dop.h) */
    ws->D = p->has_dual ? p->D : NULL;
    ws->vf = p->vf;
    if (p->m > 0 && !ws->vf) { /* a problem never completed: v_f from its primal data */
        if (!(ws->vf_own = ncp_malloc(err, m, sizeof(double)))) {
            ncp_metrics_ws_free(ws);
            return NCP_ERR_NOMEM;
        }
        if ((rc = ncp_problem_derive(p, NULL, ws->vf_own, err))) {
            ncp_error_prefix(err, "metrics: ");
            ncp_metrics_ws_free(ws);
            return rc;
        }
        ws->vf = ws->vf_own;
    }
    ws->nvf = ncp_norm2(p->m, ws->vf);
    if (p->m > 0) {
        if ((rc = ncp_dop_init(&ws->op, p, NCP_DOP_AUTO, err))) {
            ncp_error_prefix(err, "metrics: ");
            ncp_metrics_ws_free(ws);
            return rc;
        }
        ws->vf_absmax = ncp_norminf(p->m, ws->vf);
        if (ws->op.rank > 0) ws->f_rowabs = ncp_dop_row_absmax(&ws->op);
    }
    ws->uhat = ncp_calloc(err, m, sizeof(double));
    ws->gamma = ncp_calloc(err, m, sizeof(double));
    if (!ws->uhat || !ws->gamma) {
        ncp_metrics_ws_free(ws);
        return NCP_ERR_NOMEM;
    }
    rc = ncp_sap_model_build(p, &ws->op, NCP_SAP_BETA, NCP_SAP_SIGMA, &ws->sap, err);
    if (rc) {
        ncp_error_prefix(err, "metrics (sap_momentum): ");
        ncp_metrics_ws_free(ws);
        return rc;
    }
    *wsp = ws;
    return NCP_OK;
}

static void fill_nan(ncp_metrics *out)
{
#define NCP_METRIC_NAN(name, doc) out->name = NAN;
    NCP_METRIC_COLUMNS(NCP_METRIC_NAN)
#undef NCP_METRIC_NAN
}

/* Normalised residual: num / den with 0/0 = 0 and x/0 = x (the absolute value). A zero norm
 * means there is no scale to normalise by, so the absolute value is the honest report. */
static double rel(double num, double den) { return den > 0.0 ? num / den : num; }

/* fmax with glibc's result in every case (x86-64 s_fmax.S: maxsd returns y when x and y compare
 * equal, so fmax(-0.0, +0.0) is +0.0 and fmax(+0.0, -0.0) is -0.0; a NaN argument gives the
 * other; compared with libm's fmax bit for bit on every pair of +-0, NaN, +-Inf and finite
 * values), inline: GCC leaves fmax as a libm call, 3 million calls in a boltnut run's full
 * evaluations (every stored trace row). */
static inline double fmax_(double x, double y) { return x > y || y != y ? x : y; }

static double max3abs(const double a[3])
{
    return fmax_(fabs(a[0]), fmax_(fabs(a[1]), fabs(a[2])));
}

/* The natural-map rows of one block added to *nm2 (sum of squares) and *nminf, row by row: the
 * one code of the natural map for ncp_metrics_eval and ncp_metrics_eval_stop, so that both give
 * the same bits. uh (contact blocks: u + Gamma(u), may be NULL) is returned for the other
 * contact metrics. Conventions in the header. */
static void block_natural_map(const ncp_block *bk, const double *lambda, const double *u,
                              double *nm2, double *nminf, double uh[3])
{
    const int r = bk->row;
    double F[3], t[3], x[3], g[3];
    int n = 1;
    switch (bk->type) {
    case NCP_BILATERAL: F[0] = u[r]; break;
    case NCP_UNILATERAL: F[0] = fmin(lambda[r], u[r]); break;
    case NCP_SOFT: F[0] = lambda[r] + bk->k * bk->phi + bk->c * u[r]; break;
    case NCP_CONTACT: {
        /* NCP report 2025 eq. 163: F = lambda - Pi_K(lambda - (u + Gamma(u))) */
        const double *l = lambda + r;
        double *h = uh ? uh : g;
        ncp_desaxce(bk->mu, u + r, h);
        for (int j = 0; j < 3; j++) x[j] = l[j] - h[j];
        ncp_cone_project(bk->mu, x, t);
        for (int j = 0; j < 3; j++) F[j] = l[j] - t[j];
        n = 3;
        break;
    }
    default: return;
    }
    /* F is finite here (the callers check lambda and u first), so a plain comparison replaces
     * fmax, which GCC leaves as a libm call (a tenth of the stopping test's instructions) */
    for (int j = 0; j < n; j++) {
        *nm2 += F[j] * F[j];
        const double a = fabs(F[j]);
        if (a > *nminf) *nminf = a;
    }
}

/* Contact blocks with lambda_n > NCP_ACTIVE_REL max_k lambda_n,k (header); lambda finite. */
static double active_contacts(const ncp_problem *p, const double *lambda)
{
    double top = 0.0;
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].type == NCP_CONTACT) top = fmax_(top, lambda[p->blocks[b].row]);
    int n = 0;
    if (top > 0.0)
        for (int b = 0; b < p->nblocks; b++)
            if (p->blocks[b].type == NCP_CONTACT && lambda[p->blocks[b].row] > NCP_ACTIVE_REL * top) n++;
    return n;
}

/* Sum of squares of the box-friction LCP's natural map over the blocks (metrics.h,
 * boxlcp_residual): w = u, lambda_j in [lo, hi], w_j >= 0 at lo, <= 0 at hi, = 0 between; the
 * friction rows' bounds -+mu |lambda_n| follow the block's normal impulse (ODE's findex). */
static double boxlcp_sq(const ncp_problem *p, const double *lambda, const double *u)
{
    double s = 0.0, nm2 = 0.0, nminf = 0.0;
    for (int b = 0; b < p->nblocks; b++) {
        const ncp_block *bk = &p->blocks[b];
        if (bk->type != NCP_CONTACT) {
            block_natural_map(bk, lambda, u, &nm2, &nminf, NULL);
            continue;
        }
        const double *l = lambda + bk->row, *v = u + bk->row;
        const double f = fmin(l[0], v[0]), bound = bk->mu * fabs(l[0]);
        s += f * f;
        for (int j = 1; j < 3; j++) {
            const double t = fmin(bound, fmax_(-bound, l[j] - v[j])), g = l[j] - t;
            s += g * g;
        }
    }
    return s + nm2;
}

/* u = D lambda + v_f into ws->u; 0 when lambda or u is not finite. */
static int compute_u(ncp_metrics_ws *ws, const double *lambda)
{
    const int m = ws->m;
    ncp_copy(m, ws->vf, ws->u);
    /* lambda = 0 (a solve stopped before its first iterate, a zero start): u = v_f, without the
     * O(m^2) product of the dense route (D 0 = 0 exactly for the finite D of a valid problem) */
    if (ncp_all_zero(m, lambda)) return 1;
    if (ws->op.rank > 0) {
        /* the product's bits by t = F^T lambda, then u += F t (dop.h); finite t proves lambda
         * finite, and the overflow bound of ncp_metrics_eval_stop proves u finite: the two
         * passes over lambda and u are needed only when t is not finite or the bound fails */
        double tmax = ncp_dop_begin_rows(&ws->op, lambda);
        int tfin = ncp_all_finite(ws->op.rank, ws->op.t);
        if (!tfin && !ncp_all_finite(m, lambda)) return 0;
        ncp_dop_end_rows(&ws->op, ws->u);
        if (tfin && ws->vf_absmax + ws->f_rowabs * tmax <= 0.5 * DBL_MAX) return 1;
        return ncp_all_finite(m, ws->u);
    }
    if (!ncp_all_finite(m, lambda)) return 0;
    ncp_dop_apply(&ws->op, 1.0, lambda, 1.0, ws->u);
    return ncp_all_finite(m, ws->u);
}

void ncp_metrics_velocity(ncp_metrics_ws *ws, const double *lambda, double *u)
{
    const int m = ws->m;
    ncp_copy(m, ws->vf, u);
    if (ncp_all_zero(m, lambda)) return;
    if (ws->D && !ws->op.chol) ncp_dense_madd(m, m, ws->D, lambda, u);
    else ncp_dop_apply(&ws->op, 1.0, lambda, 1.0, u);
}

/* The natural-map columns from their sums (same formulas in both evaluations). */
static double natural_map_column(const ncp_metrics_ws *ws, int idx, double nm2, double nminf,
                                 const double *lambda)
{
    double nm = sqrt(nm2);
    switch (idx) {
    case NCP_METRIC_natural_map_abs: return nm;
    case NCP_METRIC_natural_map_inf: return nminf;
    case NCP_METRIC_natural_map_rel_acary: return rel(nm, ws->nvf);
    case NCP_METRIC_natural_map_rel_siconos:
        return rel(nm, fmax(ws->nvf, fmax(ncp_norm2(ws->m, lambda), ncp_norm2(ws->m, ws->u))));
    case NCP_METRIC_natural_map_rel_fclib: return nm / (1.0 + sqrt(ws->nvf)); /* sic: FCLib */
    default: return NAN;
    }
}

static int eval_stop_rows(ncp_metrics_ws *ws, const double *lambda, int idx, double bound,
                          int lazy, double *value);

int ncp_metrics_eval_stop(ncp_metrics_ws *ws, const double *lambda, int idx, double bound,
                          double *value, ncp_error *err)
{
    if (!ws || !value || (!lambda && ws->m > 0))
        return ncp_error_set(err, NCP_ERR_INTERNAL, "metrics: NULL argument to "
                             "ncp_metrics_eval_stop");
    if (idx < NCP_METRIC_natural_map_abs || idx > NCP_METRIC_natural_map_rel_fclib) {
        ncp_metrics all;
        int rc = ncp_metrics_eval(ws, lambda, &all, err);
        *value = rc ? NAN : ncp_metrics_at(&all, idx);
        return rc;
    }
    if (ws->m == 0) {
        *value = 0.0;
        return NCP_OK;
    }
    /* early end (header): checked every second block, where a column costs a sqrt and a
     * division (every eighth before: the stopping test's instructions -19 % on boltnut, most
     * iterates being far from the tolerance) */
    const int early = idx != NCP_METRIC_natural_map_rel_siconos && bound < INFINITY;
    /* On the low-rank route the rows of u are then computed block by block (ncp_dop_row: the
     * bits of the whole product), once t = F^T lambda is known: an iterate far from the
     * tolerance costs t and a few blocks. u is finite whenever lambda and t are and no row can
     * overflow: |u_i| <= max |v_f| + row_absmax max |t_j| (bounds computed at setup), so the
     * early end never hides the non-finite u that makes the value NaN. */
    const int lazy = early && ws->op.rank > 0;
    if (lazy) {
        /* t = F^T lambda first: finite t proves lambda finite (a non-finite lambda_i makes
         * every t_j, a sum over i in order, Inf or NaN: F_ij lambda_i is one of them, and
         * adding finite terms, or Inf to Inf, never gives back a finite sum), which spares the
         * pass over lambda; a non-finite t (also an overflow) checks lambda itself */
        double tmax = ncp_dop_begin_rows(&ws->op, lambda);
        if (!ncp_all_finite(ws->op.rank, ws->op.t) && !ncp_all_finite(ws->m, lambda)) {
            *value = NAN;
            return NCP_OK;
        }
        if (!(ws->vf_absmax + ws->f_rowabs * tmax <= 0.5 * DBL_MAX)) {
            if (!compute_u(ws, lambda)) { /* a row may overflow: the whole product decides */
                *value = NAN;
                return NCP_OK;
            }
            return eval_stop_rows(ws, lambda, idx, bound, 0, value);
        }
        return eval_stop_rows(ws, lambda, idx, bound, 1, value);
    }
    if (!compute_u(ws, lambda)) {
        *value = NAN;
        return NCP_OK;
    }
    return eval_stop_rows(ws, lambda, idx, early ? bound : INFINITY, 0, value);
}

/* The natural map of the stopping test over the blocks, ending early above `bound` (header);
 * lazy: the rows of ws->u are computed here, block by block, from ws->op.t. */
static int eval_stop_rows(ncp_metrics_ws *ws, const double *lambda, int idx, double bound,
                          int lazy, double *value)
{
    double nm2 = 0.0, nminf = 0.0;
    const int early = bound < INFINITY;
    const int nb = ws->p->nblocks;
    for (int b = 0; b < nb; b++) {
        const ncp_block *bk = &ws->p->blocks[b];
        if (lazy) {
            const int k = ncp_block_type_size(bk->type);
            for (int i = bk->row; i < bk->row + k; i++) ws->u[i] = ncp_dop_row(&ws->op, i, ws->vf[i]);
        }
        block_natural_map(bk, lambda, ws->u, &nm2, &nminf, NULL);
        if (early && (b & 1) == 1 && b + 1 < nb) {
            double partial = natural_map_column(ws, idx, nm2, nminf, lambda);
            if (partial > bound) {
                *value = partial;
                return NCP_OK;
            }
        }
    }
    *value = natural_map_column(ws, idx, nm2, nminf, lambda);
    return NCP_OK;
}

int ncp_metrics_eval(ncp_metrics_ws *ws, const double *lambda, ncp_metrics *out, ncp_error *err)
{
    if (!ws || !out || (!lambda && ws->m > 0))
        return ncp_error_set(err, NCP_ERR_INTERNAL, "metrics: NULL argument to ncp_metrics_eval");
    const ncp_problem *p = ws->p;
    const int m = ws->m;
    double *u = ws->u;
    memset(out, 0, sizeof *out);
    if (m == 0) return NCP_OK; /* no constraint: every residual is exactly 0 */

    /* u = D lambda + v_f (docs/design.md), by the cheaper route of the operator. */
    if (!compute_u(ws, lambda)) {
        fill_nan(out);
        return NCP_OK;
    }

    double al_c2 = 0.0, al_o2 = 0.0; /* sums of squares: AL residual, contact / other rows */
    double nm2 = 0.0, nminf = 0.0;   /* natural map */
    double rp = 0.0, rd = 0.0, rc = 0.0, pen = 0.0;
    int ncontacts = 0;
    const int have_geom = p->contacts != NULL;

    for (int b = 0; b < p->nblocks; b++) {
        const ncp_block *bk = &p->blocks[b];
        const int r = bk->row;
        switch (bk->type) {
        case NCP_BILATERAL: {
            /* lambda free, u = 0: T = identity, so lambda - T(lambda - u) = u; K* = {0}. */
            double F = u[r];
            al_o2 += F * F;
            block_natural_map(bk, lambda, u, &nm2, &nminf, NULL);
            rd = fmax_(rd, fabs(F));
            break;
        }
        case NCP_UNILATERAL: {
            /* 0 <= lambda _|_ u >= 0: T = max(0, .) (Lee et al. 2025 eq. 14 with beta = 1), so
             * lambda - max(0, lambda - u) = min(lambda, u) for both the AL and natural map. */
            double l = lambda[r], v = u[r];
            double F = fmin(l, v);
            al_o2 += F * F;
            block_natural_map(bk, lambda, u, &nm2, &nminf, NULL);
            rp = fmax_(rp, fmax_(0.0, -l));
            rd = fmax_(rd, fmax_(0.0, -v));
            rc = fmax_(rc, fabs(l * v));
            break;
        }
        case NCP_SOFT: {
            /* Law lambda = -k phi - c u (problem.h). Lee et al. 2025 eq. 15 in our names (its J v is
             * our u, its e the spring error phi, its b our c), beta = 1 and multiplier
             * u_AL = -lambda: T = -(c (u - lambda) + k phi) / (c + 1), hence
             * lambda - T = (lambda + k phi + c u) / (1 + c) = F / (1 + c). */
            double F = lambda[r] + bk->k * bk->phi + bk->c * u[r];
            double a = F / (1.0 + bk->c);
            al_o2 += a * a;
            block_natural_map(bk, lambda, u, &nm2, &nminf, NULL);
            rd = fmax_(rd, fabs(F));
            break;
        }
        case NCP_CONTACT: {
            const double mu = bk->mu;
            const double *l = lambda + r, *v = u + r;
            double x[3], t[3], uh[3];
            ncontacts++;

            /* AL residual, Lee et al. 2025 §VII: z_i = J_i v - lambda_i + T(-J_i v + lambda_i - e_i),
             * so J_i v - z_i = lambda_i - T(lambda_i - (J_i v + e_i)) with T the strict
             * operator (eq. 17). Sign of e: eqs. 13-18 give lambda*_i = -beta J_i v - u_i -
             * beta e_i with the contact condition on J_i v + e_i >= 0 (eq. 5); with beta = 1
             * and u_i = -lambda_i this is lambda_i - (J_i v + e_i), i.e. e enters with a plus
             * exactly as in our u = J v + e. So the argument is lambda_i - u_i. */
            for (int j = 0; j < 3; j++) x[j] = l[j] - v[j];
            ncp_cone_project_strict(mu, x, t);
            for (int j = 0; j < 3; j++) {
                double a = l[j] - t[j];
                al_c2 += a * a;
            }

            /* natural map (and uh = u + Gamma(u)) */
            block_natural_map(bk, lambda, u, &nm2, &nminf, uh);

            /* The NCP report 2025 eqs. 156-158 with v = u + Gamma(u) (NCP form, eqs. 174-175). */
            ncp_cone_project(mu, l, t);
            for (int j = 0; j < 3; j++) x[j] = l[j] - t[j];
            rp = fmax_(rp, max3abs(x));
            ncp_cone_project_dual(mu, uh, t);
            for (int j = 0; j < 3; j++) x[j] = uh[j] - t[j];
            rd = fmax_(rd, max3abs(x));
            rc = fmax_(rc, fabs(l[0] * uh[0] + l[1] * uh[1] + l[2] * uh[2]));

            /* Penetration after the step, linearised: phi + h u_n (docs/design.md). */
            if (have_geom && bk->contact >= 0 && bk->contact < p->ncontacts) {
                double after = p->contacts[bk->contact].gap + p->h * v[0];
                pen = fmax_(pen, -after);
            }
            break;
        }
        default:
            break; /* unreachable: ws_create rejected unknown types */
        }
    }

    out->al_residual = ncontacts > 0 ? sqrt(al_c2) / ncontacts : 0.0;
    out->al_residual_other = sqrt(al_o2);
    out->natural_map_abs = natural_map_column(ws, NCP_METRIC_natural_map_abs, nm2, nminf, lambda);
    out->natural_map_inf = natural_map_column(ws, NCP_METRIC_natural_map_inf, nm2, nminf, lambda);
    out->natural_map_rel_acary =
        natural_map_column(ws, NCP_METRIC_natural_map_rel_acary, nm2, nminf, lambda);
    out->natural_map_rel_siconos =
        natural_map_column(ws, NCP_METRIC_natural_map_rel_siconos, nm2, nminf, lambda);
    out->natural_map_rel_fclib =
        natural_map_column(ws, NCP_METRIC_natural_map_rel_fclib, nm2, nminf, lambda);
    out->ncp_primal = rp;
    out->ncp_dual = rd;
    out->ncp_compl = rc;
    out->penetration = pen; /* starts at 0: max(0, .) */

    /* Castro et al. 2023 eqs. 32-33 (sap_model.h): gamma = the compliant model's impulse at the velocity
     * lambda produces; both are 0 when lambda is that impulse and (eq. 33) complementary. */
    for (int i = 0; i < m; i++) ws->uhat[i] = u[i] + ws->sap.shift[i];
    ncp_sap_eval(p, &ws->sap, ws->uhat, ws->gamma, NULL);
    double snum, sden;
    ncp_sap_momentum_parts(p, &ws->sap, lambda, ws->gamma, &snum, &sden);
    out->sap_momentum = rel(snum, sden);
    out->sap_compl = ncp_sap_compl(p, &ws->sap, lambda, u, ws->vf);
    out->active_contacts = active_contacts(p, lambda);
    out->boxlcp_residual = rel(sqrt(boxlcp_sq(p, lambda, u)), ws->nvf);
    return NCP_OK;
}
