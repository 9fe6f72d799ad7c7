/* Hardness labels of a problem (labels.h). */
#include "bench/labels.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "bench/output.h"
#include "core/dop.h"
#include "core/la.h"
#include "metrics/metrics.h"
#include "solve/solver.h"
#include "store/h5util.h"
#include "util/clock.h"
#include "util/csv.h"
#include "util/fsutil.h"
#include "util/safefile.h"

static int has_dense_primal(const ncp_problem *p)
{
    return p->has_primal && p->A && p->nv > 0 && p->J.rowptr && p->J.m == p->m &&
           p->J.n == p->nv;
}

/* W as an operator (core/dop.h): a problem without D and with primal data through A's blocks
 * (the sparse route: never a dense D nor an m x n factor), else the operator's own choice. */
static int open_operator(const ncp_problem *p, ncp_dop *op, ncp_error *err)
{
    int route = NCP_DOP_AUTO;
    if (!p->has_dual && p->J.rowptr && p->nv > 0 &&
        ((p->has_sparse_primal && p->A_sparse.rowptr) || p->A))
        route = NCP_DOP_SPARSE;
    int rc = ncp_dop_init(op, p, route, err);
    if (rc && rc != NCP_ERR_NOMEM && route == NCP_DOP_SPARSE) {
        /* a block of A too large for a dense factor, or not SPD to working precision: the
         * operator's own choice */
        ncp_error_clear(err);
        rc = ncp_dop_init(op, p, NCP_DOP_AUTO, err);
    }
    return rc;
}

/* The eigenvalues of W exactly (labels.h "eig"), ascending, into *w (nw of them; the other
 * m - nw eigenvalues are known zeros: F^T F when W = F F^T has more rows than F columns).
 * *w NULL: too large for the exact route. */
static int spectrum_exact(const ncp_problem *p, int eig_max, double **w, int *nw,
                          ncp_error *err)
{
    *w = NULL;
    *nw = 0;
    const int m = p->m;
    double *G = NULL;
    int k = 0, rc = NCP_OK;
    if (has_dense_primal(p) && p->nv <= eig_max) {
        /* W = F F^T, F = J L^-T (m x n): the nonzero eigenvalues of W are those of the smaller
         * Gram matrix, F^T F (n x n) or F F^T (m x m) */
        ncp_dop op;
        if ((rc = ncp_dop_init(&op, p, NCP_DOP_LOWRANK, err))) return rc;
        const int r = op.rank;
        k = r < m ? r : m;
        G = ncp_malloc(err, (size_t)k * k, sizeof *G);
        if (!G) {
            ncp_dop_free(&op);
            return NCP_ERR_NOMEM;
        }
        if (r <= m) ncp_gemm(1, 0, r, r, m, 1.0, op.F, op.F, 0.0, G);
        else ncp_gemm(0, 1, m, m, r, 1.0, op.F, op.F, 0.0, G);
        ncp_dop_free(&op);
    } else if (m <= eig_max && has_dense_primal(p)) {
        /* a dense A of more than eig_max dofs (its Cholesky factor would cost O(n^3)): W column
         * by column through A's blocks, m products */
        ncp_dop op;
        if ((rc = open_operator(p, &op, err))) return rc;
        k = m;
        G = ncp_calloc(err, (size_t)m * m, sizeof *G);
        double *x = ncp_calloc(err, (size_t)m, sizeof *x);
        for (int j = 0; G && x && j < m; j++) {
            x[j] = 1.0;
            ncp_dop_apply(&op, 1.0, x, 0.0, G + (size_t)j * m);
            x[j] = 0.0;
        }
        int ok = G && x;
        free(x);
        ncp_dop_free(&op);
        if (!ok) {
            free(G);
            return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory labelling %s", p->name);
        }
        ncp_symmetrize(m, G);
    } else if (m <= eig_max) {
        ncp_problem view;
        double *owned = NULL;
        if ((rc = ncp_problem_dual_view(p, &view, &owned, err))) return rc;
        k = m;
        G = ncp_malloc(err, (size_t)m * m, sizeof *G);
        if (G) {
            memcpy(G, view.D, (size_t)m * m * sizeof *G);
            ncp_symmetrize(m, G); /* an FCLib W may not be symmetric: its symmetric part */
        }
        free(owned);
        if (!G) return NCP_ERR_NOMEM;
    } else {
        return NCP_OK;
    }
    double *ev = ncp_malloc(err, (size_t)(k > 0 ? k : 1), sizeof *ev);
    if (!ev) rc = NCP_ERR_NOMEM;
    if (!rc && k > 0) rc = ncp_sym_eig(k, G, ev, err);
    free(G);
    if (rc) {
        free(ev);
        return rc;
    }
    *w = ev;
    *nw = k;
    return NCP_OK;
}

/* y = W x, W's symmetric part when the problem's D is not symmetric. */
static void apply_sym(ncp_dop *op, const ncp_problem *p, const double *x, double *y)
{
    if (p->has_dual && p->D && !p->dual_symmetric) {
        ncp_gemv(0, p->m, p->m, 0.5, p->D, x, 0.0, y);
        ncp_gemv(1, p->m, p->m, 0.5, p->D, x, 1.0, y);
    } else {
        ncp_dop_apply(op, 1.0, x, 0.0, y);
    }
}

/* Extreme Ritz values of k steps of Lanczos with full reorthogonalisation on W (labels.h
 * "estimate"), ascending, into theta (*nk of them: fewer when an invariant subspace is found).
 * The start vector is fixed (a deterministic pseudo-random one), so the labels repeat. */
static int lanczos(const ncp_problem *p, int k, double *theta, int *nk, ncp_error *err)
{
    const int m = p->m;
    if (k > m) k = m;
    ncp_dop op;
    int rc = open_operator(p, &op, err);
    if (rc) return rc;
    double *V = ncp_malloc(err, (size_t)m * (k + 1), sizeof *V);
    double *wv = ncp_malloc(err, (size_t)m, sizeof *wv);
    double *T = ncp_calloc(err, (size_t)k * k, sizeof *T);
    double *al = ncp_malloc(err, (size_t)k, sizeof *al), *be = ncp_calloc(err, (size_t)k + 1, sizeof *be);
    if (!V || !wv || !T || !al || !be) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < m; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        V[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
    double nrm = ncp_norm2(m, V);
    ncp_scal(m, 1.0 / nrm, V);
    int j = 0;
    double scale = 0.0;
    for (; j < k; j++) {
        double *q = V + (size_t)j * m;
        apply_sym(&op, p, q, wv);
        al[j] = ncp_dot(m, q, wv);
        ncp_axpy(m, -al[j], q, wv);
        if (j > 0) ncp_axpy(m, -be[j], q - m, wv);
        /* full reorthogonalisation, twice (Parlett's "twice is enough") */
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i <= j; i++)
                ncp_axpy(m, -ncp_dot(m, V + (size_t)i * m, wv), V + (size_t)i * m, wv);
        double b = ncp_norm2(m, wv);
        scale = fmax(scale, fabs(al[j]) + b);
        be[j + 1] = b;
        if (!(b > 1e-13 * scale) || j + 1 == k) {
            j++;
            break;
        }
        ncp_copy(m, wv, V + (size_t)(j + 1) * m);
        ncp_scal(m, 1.0 / b, V + (size_t)(j + 1) * m);
    }
    *nk = j;
    for (int i = 0; i < j; i++) {
        T[i + (size_t)i * j] = al[i];
        if (i + 1 < j) T[i + 1 + (size_t)i * j] = T[i + (size_t)(i + 1) * j] = be[i + 1];
    }
    rc = ncp_sym_eig(j, T, theta, err);
done:
    free(V);
    free(wv);
    free(T);
    free(al);
    free(be);
    ncp_dop_free(&op);
    return rc;
}

/* Rows of W that are structurally zero: rows of J without a nonzero (a problem with primal
 * data), else rows of D with a zero diagonal (W positive semi-definite: its whole row is 0). */
static int zero_rows(const ncp_problem *p)
{
    int z = 0;
    if (p->J.rowptr && p->J.m == p->m) {
        for (int i = 0; i < p->m; i++) {
            int nz = 0;
            for (int k = p->J.rowptr[i]; k < p->J.rowptr[i + 1] && !nz; k++)
                nz = p->J.val[k] != 0.0;
            z += !nz;
        }
    } else if (p->has_dual && p->D) {
        for (int i = 0; i < p->m; i++) z += p->D[i + (size_t)i * p->m] == 0.0;
    }
    return z;
}

static void labels_clear(ncp_labels *L)
{
    memset(L, 0, sizeof *L);
    L->contact_density = L->rank_ratio = L->lambda_max = L->lambda_min = NAN;
    L->cond = L->cond_range = L->mu_min = L->mu_max = L->answer_metric = NAN;
    L->stick = L->slide = L->open = L->solved_by = L->nsolvers = -1;
}

int ncp_labels_problem(const ncp_problem *p, const ncp_labels_opts *opts, ncp_labels *L,
                       ncp_error *err)
{
    double t0 = ncp_now_ms();
    labels_clear(L);
    snprintf(L->problem, sizeof L->problem, "%s", p->name ? p->name : "");
    int eig_max = opts && opts->eig_max > 0 ? opts->eig_max : NCP_LABELS_EIG_MAX;
    int steps = opts && opts->lanczos > 0 ? opts->lanczos : NCP_LABELS_LANCZOS;
    const int m = p->m;
    L->contacts = p->ncontacts;
    L->dofs = p->nv;
    L->rows = m;
    if (p->nv > 0) L->contact_density = 3.0 * p->ncontacts / p->nv;
    for (int b = 0; b < p->nblocks; b++) {
        if (p->blocks[b].type != NCP_CONTACT) continue;
        double mu = p->blocks[b].mu;
        if (isnan(L->mu_min) || mu < L->mu_min) L->mu_min = mu;
        if (isnan(L->mu_max) || mu > L->mu_max) L->mu_max = mu;
    }
    if (m == 0) {
        snprintf(L->method, sizeof L->method, "none");
        L->ms = ncp_now_ms() - t0;
        return NCP_OK;
    }
    double *w = NULL;
    int nw = 0;
    int rc = spectrum_exact(p, eig_max, &w, &nw, err);
    if (rc) return rc;
    if (w) {
        /* numerical rank as numpy.linalg.matrix_rank of W: eigenvalues above m eps lambda_max */
        double lmax = nw > 0 ? fmax(w[nw - 1], 0.0) : 0.0;
        double tol = lmax * m * DBL_EPSILON;
        int rank = 0;
        double lpos = NAN;
        for (int i = nw - 1; i >= 0; i--)
            if (w[i] > tol) {
                rank++;
                lpos = w[i];
            }
        snprintf(L->method, sizeof L->method, "eig");
        L->rank = rank;
        L->rank_exact = 1;
        L->lambda_max = lmax;
        L->lambda_min = nw == m ? w[0] : 0.0; /* the rest are the known zeros */
        L->cond = rank < m || !(lmax > 0.0) ? INFINITY : lmax / L->lambda_min;
        L->cond_range = rank > 0 ? lmax / lpos : NAN;
        free(w);
    } else {
        int k = steps < m ? steps : m;
        double *theta = ncp_malloc(err, (size_t)k, sizeof *theta);
        if (!theta) return NCP_ERR_NOMEM;
        int nk = 0;
        if ((rc = lanczos(p, k, theta, &nk, err))) {
            free(theta);
            return rc;
        }
        int bound = m - zero_rows(p);
        if (p->nv > 0 && p->nv < bound) bound = p->nv;
        double lmax = nk > 0 ? fmax(theta[nk - 1], 0.0) : 0.0;
        double tol = lmax * m * DBL_EPSILON, lpos = NAN;
        for (int i = nk - 1; i >= 0; i--)
            if (theta[i] > tol) lpos = theta[i];
        snprintf(L->method, sizeof L->method, "estimate");
        L->rank = bound;
        L->rank_exact = 0;
        L->lambda_max = lmax;
        L->lambda_min = bound < m ? 0.0 : theta[0];
        L->cond = bound < m || !(theta[0] > 0.0) ? INFINITY : lmax / theta[0];
        L->cond_range = lmax / lpos;
        free(theta);
    }
    L->rank_ratio = (double)L->rank / m;
    L->ms = ncp_now_ms() - t0;
    return NCP_OK;
}

int ncp_labels_answer(const ncp_problem *p, const double *lambda, ncp_labels *L, ncp_error *err)
{
    if (!p->vf)
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s has no v_f (not completed)",
                             p->name ? p->name : "?");
    ncp_metrics_ws *ws = NULL;
    int rc = ncp_metrics_ws_create(p, &ws, err);
    if (rc) return rc;
    double *u = ncp_malloc(err, (size_t)(p->m > 0 ? p->m : 1), sizeof *u);
    if (!u) {
        ncp_metrics_ws_free(ws);
        return NCP_ERR_NOMEM;
    }
    ncp_metrics_velocity(ws, lambda, u);
    ncp_metrics_ws_free(ws);
    double lnmax = 0.0, vscale = 0.0;
    for (int i = 0; i < p->m; i++) vscale = fmax(vscale, fmax(fabs(p->vf[i]), fabs(u[i])));
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].type == NCP_CONTACT) lnmax = fmax(lnmax, lambda[p->blocks[b].row]);
    L->stick = L->slide = L->open = 0;
    for (int b = 0; b < p->nblocks; b++) {
        if (p->blocks[b].type != NCP_CONTACT) continue;
        int r = p->blocks[b].row;
        if (!(lambda[r] > NCP_ACTIVE_REL * lnmax)) {
            L->open++;
            continue;
        }
        double ut = hypot(u[r + 1], u[r + 2]);
        if (ut > NCP_LABELS_SLIP_REL * vscale) L->slide++;
        else L->stick++;
    }
    free(u);
    return NCP_OK;
}

/* ---- output ---- */

static const char *const COLS[] = {
    "problem", "contacts", "dofs", "rows", "contact_density", "rank", "rank_ratio", "rank_exact",
    "lambda_max", "lambda_min", "cond", "cond_range", "mu_min", "mu_max", "method", "stick",
    "slide", "open", "answer_of", "answer_metric", "solved_by", "nsolvers", "ms"};
enum { NCOLS = (int)(sizeof COLS / sizeof COLS[0]) };

void ncp_labels_csv_header(FILE *f)
{
    for (int i = 0; i < NCOLS; i++) fprintf(f, "%s%s", i ? "," : "", COLS[i]);
    fputc('\n', f);
}

static void csv_num(FILE *f, double x)
{
    if (isnan(x)) fputs(",nan", f);
    else if (isinf(x)) fputs(x > 0 ? ",inf" : ",-inf", f);
    else fprintf(f, ",%.17g", x);
}

static void csv_count(FILE *f, int n)
{
    if (n < 0) fputc(',', f);
    else fprintf(f, ",%d", n);
}

void ncp_labels_csv_row(FILE *f, const ncp_labels *L)
{
    ncp_out_field(f, L->problem);
    fprintf(f, ",%d,%d,%d", L->contacts, L->dofs, L->rows);
    csv_num(f, L->contact_density);
    fprintf(f, ",%d", L->rank);
    csv_num(f, L->rank_ratio);
    fprintf(f, ",%d", L->rank_exact);
    csv_num(f, L->lambda_max);
    csv_num(f, L->lambda_min);
    csv_num(f, L->cond);
    csv_num(f, L->cond_range);
    csv_num(f, L->mu_min);
    csv_num(f, L->mu_max);
    fprintf(f, ",%s", L->method);
    csv_count(f, L->stick);
    csv_count(f, L->slide);
    csv_count(f, L->open);
    fputc(',', f);
    ncp_out_field(f, L->answer_of);
    csv_num(f, L->answer_metric);
    csv_count(f, L->solved_by);
    csv_count(f, L->nsolvers);
    csv_num(f, L->ms);
    fputc('\n', f);
}

/* A JSON number, null for NaN; +-inf as the strings "inf" / "-inf" (JSON has no infinity).
 * Written with %.17g, as bench/output.c writes summary.json (cJSON's own printing keeps 15
 * digits), so that a number reads back as the same double. */
static cJSON *jnum(double x)
{
    if (isnan(x)) return cJSON_CreateNull();
    if (isinf(x)) return cJSON_CreateString(x > 0 ? "inf" : "-inf");
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", x);
    return cJSON_CreateRaw(buf);
}

static cJSON *jcount(int n) { return n < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(n); }

cJSON *ncp_labels_json(const ncp_labels *L)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON *items[NCOLS] = {
        cJSON_CreateString(L->problem), jcount(L->contacts), jcount(L->dofs), jcount(L->rows),
        jnum(L->contact_density), jcount(L->rank), jnum(L->rank_ratio),
        cJSON_CreateBool(L->rank_exact), jnum(L->lambda_max), jnum(L->lambda_min), jnum(L->cond),
        jnum(L->cond_range), jnum(L->mu_min), jnum(L->mu_max), cJSON_CreateString(L->method),
        jcount(L->stick), jcount(L->slide), jcount(L->open),
        L->answer_of[0] ? cJSON_CreateString(L->answer_of) : cJSON_CreateNull(),
        jnum(L->answer_metric), jcount(L->solved_by), jcount(L->nsolvers), jnum(L->ms)};
    int bad = 0;
    for (int i = 0; i < NCOLS; i++) {
        if (!items[i] || !cJSON_AddItemToObject(o, COLS[i], items[i])) {
            cJSON_Delete(items[i]);
            bad = 1;
        }
    }
    if (bad) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static void print_g(FILE *f, int width, double x)
{
    if (isnan(x)) fprintf(f, " %*s", width, "-");
    else fprintf(f, " %*.3g", width, x);
}

static void print_count(FILE *f, int width, int n)
{
    if (n < 0) fprintf(f, " %*s", width, "-");
    else fprintf(f, " %*d", width, n);
}

void ncp_labels_print(FILE *f, const ncp_labels *L)
{
    if (!L) {
        fprintf(f, "%-40s %8s %7s %7s %7s %7s %6s %9s %9s %11s %6s %6s %8s %5s %5s %5s %9s\n",
                "problem", "contacts", "dofs", "rows", "3nc/n", "rank", "ratio", "cond",
                "cond.rng", "method", "mu.min", "mu.max", "ms", "stick", "slide", "open",
                "solved");
        return;
    }
    fprintf(f, "%-40s %8d %7d %7d", L->problem, L->contacts, L->dofs, L->rows);
    print_g(f, 7, L->contact_density);
    fprintf(f, " %s%6d", L->rank_exact ? " " : "<", L->rank);
    print_g(f, 6, L->rank_ratio);
    /* an estimate's cond values are lower bounds: '>' */
    for (int k = 0; k < 2; k++) {
        double c = k ? L->cond_range : L->cond;
        if (!L->rank_exact && isfinite(c)) fprintf(f, " >%8.3g", c);
        else print_g(f, 9, c);
    }
    fprintf(f, " %11s", L->method);
    print_g(f, 6, L->mu_min);
    print_g(f, 6, L->mu_max);
    print_g(f, 8, L->ms);
    print_count(f, 5, L->stick);
    print_count(f, 5, L->slide);
    print_count(f, 5, L->open);
    if (L->solved_by < 0) fprintf(f, " %9s\n", "-");
    else fprintf(f, " %4d of %2d\n", L->solved_by, L->nsolvers);
}

const char *ncp_labels_class(const ncp_labels *L, const char *split)
{
    if ((!strcmp(split, "rank") || !strcmp(split, "cond")) && !strcmp(L->method, "failed"))
        return "no spectrum";
    if (!strcmp(split, "rank"))
        return L->rank < L->rows ? "rank-deficient" : "full rank";
    if (!strcmp(split, "density"))
        return isnan(L->contact_density) ? "no dofs (dual only)"
               : L->contact_density <= 1.0 ? "3nc/n <= 1" : "3nc/n > 1";
    if (!strcmp(split, "cond")) return L->cond <= 1e8 ? "cond <= 1e8" : "cond > 1e8";
    if (!strcmp(split, "mu"))
        return isnan(L->mu_max) ? "no contacts" : L->mu_max <= 0.5 ? "mu <= 0.5" : "mu > 0.5";
    if (!strcmp(split, "size")) return L->rows <= 300 ? "m <= 300" : "m > 300";
    return NULL;
}

/* ---- the labels of a run ---- */

typedef struct best_row {
    char *problem;
    char solver[64];
    double metric;
    int solved, rows;
    double *lam; /* live run (ncp_labels_run_begin_live): the best answer so far, m entries;
                    NULL when that row has none */
    int m;
} best_row;

struct ncp_labels_run {
    char dir[4096];
    best_row *best;
    int nbest, capbest, last;
    hid_t sol; /* OUT/solutions.h5, < 0: absent */
    ncp_labels *L;
    int n, cap;
    int answers_missing;
    int live; /* rows from ncp_labels_run_row, answers kept in best_row.lam */
};

static best_row *find_best(ncp_labels_run *r, const char *problem)
{
    if (r->last >= 0 && r->last < r->nbest && !strcmp(r->best[r->last].problem, problem))
        return &r->best[r->last];
    for (int i = 0; i < r->nbest; i++)
        if (!strcmp(r->best[i].problem, problem)) {
            r->last = i;
            return &r->best[i];
        }
    return NULL;
}

/* One row of the run (metrics.csv's, or a live run's): its problem's best answer so far is the
 * first row of the lowest stopping metric v among those with an answer; lam (m entries, may be
 * NULL) is kept with it in a live run. */
static int add_row(ncp_labels_run *r, const char *problem, const char *solver, const char *status,
                   int converged, double v, const double *lam, int m, ncp_error *err)
{
    best_row *b = find_best(r, problem);
    if (!b) {
        if (r->nbest == r->capbest) {
            int cap = r->capbest ? 2 * r->capbest : 64;
            best_row *nb = realloc(r->best, (size_t)cap * sizeof *nb);
            if (!nb) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory labelling %s",
                                          problem);
            r->best = nb;
            r->capbest = cap;
        }
        b = &r->best[r->nbest];
        memset(b, 0, sizeof *b);
        b->metric = NAN;
        if (!(b->problem = strdup(problem)))
            return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory labelling %s", problem);
        r->last = r->nbest++;
    }
    b->rows++;
    b->solved += converged != 0;
    /* an answer: any row but unsupported (no answer) or crashed (its child died) */
    int answer = strcmp(status, "unsupported") && strcmp(status, "crashed") && isfinite(v);
    if (answer && (isnan(b->metric) || v < b->metric)) {
        b->metric = v;
        snprintf(b->solver, sizeof b->solver, "%s", solver);
        if (r->live) {
            free(b->lam);
            b->lam = NULL;
            b->m = 0;
            if (lam && m > 0) {
                if (!(b->lam = ncp_malloc(err, (size_t)m, sizeof *b->lam))) return NCP_ERR_NOMEM;
                memcpy(b->lam, lam, (size_t)m * sizeof *b->lam);
                b->m = m;
            }
        }
    }
    return NCP_OK;
}

/* A row of metrics.csv: problem, solver, status, converged, the stopping metric. */
static int read_row(void *ctx, const char *const *f, const char *path, long line, ncp_error *err)
{
    double conv = 0.0, v = NAN;
    if (ncp_csv_number(f[3], &conv) || ncp_csv_number(f[4], &v))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: converged or the stopping metric is "
                             "not a number", path, line);
    return add_row(ctx, f[0], f[1], f[2], conv != 0.0, v, NULL, 0, err);
}

int ncp_labels_run_begin_live(const char *out_dir, ncp_labels_run **out, ncp_error *err)
{
    *out = NULL;
    ncp_labels_run *r = ncp_calloc(err, 1, sizeof *r);
    if (!r) return NCP_ERR_NOMEM;
    r->sol = -1;
    r->last = -1;
    r->live = 1;
    snprintf(r->dir, sizeof r->dir, "%s", out_dir);
    *out = r;
    return NCP_OK;
}

int ncp_labels_run_row(ncp_labels_run *r, const char *problem, const char *solver, int status,
                       int converged, double metric, const double *lambda, int m, ncp_error *err)
{
    return add_row(r, problem, solver, ncp_status_name(status), converged, metric, lambda, m, err);
}

int ncp_labels_run_begin(const char *out_dir, const char *stop_metric, ncp_labels_run **out,
                         ncp_error *err)
{
    *out = NULL;
    ncp_labels_run *r = ncp_calloc(err, 1, sizeof *r);
    if (!r) return NCP_ERR_NOMEM;
    r->sol = -1;
    r->last = -1;
    snprintf(r->dir, sizeof r->dir, "%s", out_dir);
    char path[4300];
    const char *names[5] = {"problem", "solver", "status", "converged", stop_metric};
    int rc = ncp_path_join(path, sizeof path, out_dir, "metrics.csv", err);
    if (!rc) rc = ncp_csv_read(path, names, 5, read_row, r, err);
    if (!rc && !(rc = ncp_path_join(path, sizeof path, out_dir, "solutions.h5", err))) {
        ncp_h5_quiet();
        r->sol = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT); /* absent: no answers */
    }
    if (rc) {
        ncp_labels_run_free(r);
        return rc;
    }
    *out = r;
    return NCP_OK;
}

/* L's contact states at the best answer lam of b (freed here). */
static int labels_answer_of(const ncp_problem *p, const best_row *b, double *lam, ncp_labels *L,
                            ncp_error *err)
{
    double t0 = ncp_now_ms();
    int rc = ncp_labels_answer(p, lam, L, err);
    free(lam);
    L->ms += ncp_now_ms() - t0;
    if (rc) return rc;
    snprintf(L->answer_of, sizeof L->answer_of, "%s", b->solver);
    L->answer_metric = b->metric;
    return NCP_OK;
}

int ncp_labels_run_add(ncp_labels_run *r, const ncp_problem *p, ncp_error *err)
{
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        ncp_labels *nl = realloc(r->L, (size_t)cap * sizeof *nl);
        if (!nl) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory labelling %s", p->name);
        r->L = nl;
        r->cap = cap;
    }
    ncp_labels *L = &r->L[r->n];
    int rc = ncp_labels_problem(p, NULL, L, err);
    if (rc == NCP_ERR_NOMEM) return rc;
    if (rc) {
        /* a problem the solvers ran on but whose W cannot be formed here (A not positive
         * definite to working precision): its counts, no spectrum, and the run's outputs stand */
        fprintf(stderr, "ncpbench: labels of %s: no rank or cond (%s)\n", L->problem, err->msg);
        ncp_error_clear(err);
        L->rank = 0;
        L->rank_ratio = NAN;
        snprintf(L->method, sizeof L->method, "failed");
    }
    r->n++;
    best_row *b = p->name ? find_best(r, p->name) : NULL;
    if (!b) return NCP_OK;
    L->solved_by = b->solved;
    L->nsolvers = b->rows;
    if (r->live) { /* the answer kept from the rows (one problem, one labelling: freed) */
        double *lam = b->lam;
        int lm = b->m;
        b->lam = NULL;
        b->m = 0;
        if (!b->solver[0]) return NCP_OK;
        if (!lam || lm != p->m) {
            r->answers_missing++;
            free(lam);
            return NCP_OK;
        }
        return labels_answer_of(p, b, lam, L, err);
    }
    if (!b->solver[0] || r->sol < 0) return NCP_OK;
    char gpath[512];
    snprintf(gpath, sizeof gpath, "/solutions/%s/%s", b->solver, p->name);
    ncp_error e = {0};
    ncp_h5ctx c = {.file = "solutions.h5", .err = &e};
    double *lam = NULL;
    int n = 0;
    hid_t g = H5Lexists(r->sol, "/solutions", H5P_DEFAULT) > 0 ? H5Gopen2(r->sol, gpath, H5P_DEFAULT)
                                                             : -1;
    int bad = g < 0 || ncp_h5_read_dvec(&c, g, gpath, "r", p->m, &lam, &n);
    if (g >= 0) H5Gclose(g);
    if (bad) {
        r->answers_missing++; /* the answer is not stored: the counts stay unknown */
        free(lam);
        return NCP_OK;
    }
    return labels_answer_of(p, b, lam, L, err);
}

cJSON *ncp_labels_json_array(const ncp_labels *L, int n)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < n; i++) {
        cJSON *o = ncp_labels_json(&L[i]);
        if (!o || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

/* The text of dir/name into *text (path: its path), *text NULL when there is no such file. */
static int read_output(const char *dir, const char *name, char *path, size_t cap, char **text,
                       ncp_error *err)
{
    *text = NULL;
    int rc = ncp_path_join(path, cap, dir, name, err);
    if (rc || access(path, F_OK) != 0) return rc;
    return ncp_read_file(path, text, NULL, err);
}

/* dir/summary.json with "problem_labels" (rewritten atomically); none: nothing. */
static int add_to_summary(const ncp_labels_run *r, ncp_error *err)
{
    char path[4300];
    char *text = NULL;
    int rc = read_output(r->dir, "summary.json", path, sizeof path, &text, err);
    if (rc || !text) return rc;
    /* spliced in before the closing brace: parsing and printing the whole file again with
     * cJSON would print every other number with 15 digits instead of the 17 it was written with
     * (bench/output.c) */
    char *end = strrchr(text, '}');
    if (end && !strstr(text, "\"problem_labels\"")) {
        cJSON *arr = ncp_labels_json_array(r->L, r->n);
        char *a = arr ? cJSON_Print(arr) : NULL;
        cJSON_Delete(arr);
        if (!a) {
            free(text);
            return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory writing %s", path);
        }
        *end = '\0';
        while (end > text && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t')) *--end = '\0';
        FILE *f = ncp_safe_fopen(path, err);
        if (f) fprintf(f, "%s,\n\t\"problem_labels\":\t%s\n}\n", text, a);
        free(a);
        free(text);
        if (!f) return err->code;
        if (fclose(f) != 0)
            return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        return NCP_OK;
    }
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: not the JSON object the benchmark wrote",
                             path);
    }
    cJSON *arr = ncp_labels_json_array(r->L, r->n);
    cJSON_DeleteItemFromObjectCaseSensitive(root, "problem_labels");
    int bad = !arr || !cJSON_AddItemToObject(root, "problem_labels", arr);
    if (bad) cJSON_Delete(arr);
    return ncp_out_write_json(path, root, bad, err);
}

/* The "Problems" section of dir/results.md (appended to the table bench/output.c wrote). */
static int add_to_results(const ncp_labels_run *r, ncp_error *err)
{
    char path[4300];
    char *text = NULL;
    int rc = read_output(r->dir, "results.md", path, sizeof path, &text, err);
    if (rc || !text) return rc;
    /* a rerun's section replaced, not repeated */
    char *old = strstr(text, "\n## Problems (hardness labels)");
    if (old) *old = '\0';
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) {
        free(text);
        return err->code;
    }
    fputs(text, f);
    free(text);
    fputs("\n## Problems (hardness labels)\n\n"
          "Acary, Brémond, Huber 2018's characteristics (docs/design.md §5.7.2; all columns in "
          "labels.csv and summary.json \"problem_labels\"): 3nc/n contact density, rank and cond "
          "of W (\"<\": an upper bound and lower bounds, method estimate), contact states at the "
          "best answer of the run (its solver), solved = converged rows of all rows.\n\n"
          "| problem | contacts | dofs | 3nc/n | rank / m | cond(W) | cond on range | mu | "
          "stick / slide / open | best answer | solved |\n"
          "|---|---:|---:|---:|---:|---:|---:|---|---|---|---:|\n", f);
    for (int i = 0; i < r->n; i++) {
        const ncp_labels *L = &r->L[i];
        fprintf(f, "| %s | %d | %d | ", L->problem, L->contacts, L->dofs);
        if (isnan(L->contact_density)) fputs("-", f);
        else fprintf(f, "%.3g", L->contact_density);
        fprintf(f, " | %s%d / %d | ", L->rank_exact ? "" : "<= ", L->rank, L->rows);
        fprintf(f, L->rank_exact ? "%.3g" : ">= %.3g", L->cond);
        fprintf(f, L->rank_exact ? " | %.3g | " : " | >= %.3g | ", L->cond_range);
        if (isnan(L->mu_min)) fputs("-", f);
        else if (L->mu_min == L->mu_max) fprintf(f, "%.3g", L->mu_min);
        else fprintf(f, "%.3g-%.3g", L->mu_min, L->mu_max);
        if (L->stick >= 0)
            fprintf(f, " | %d / %d / %d | %s (%.2g)", L->stick, L->slide, L->open, L->answer_of,
                    L->answer_metric);
        else fputs(" | - | -", f);
        if (L->solved_by >= 0) fprintf(f, " | %d of %d |\n", L->solved_by, L->nsolvers);
        else fputs(" | - |\n", f);
    }
    if (fclose(f) != 0)
        return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return NCP_OK;
}

int ncp_labels_run_end(ncp_labels_run *r, ncp_error *err)
{
    if (r->answers_missing)
        fprintf(stderr, "ncpbench: labels: the best answer of %d problem%s is not in "
                "solutions.h5: no contact states for %s\n", r->answers_missing,
                r->answers_missing == 1 ? "" : "s", r->answers_missing == 1 ? "it" : "them");
    char path[4300];
    int rc = ncp_path_join(path, sizeof path, r->dir, "labels.csv", err);
    if (rc) return rc;
    FILE *f = ncp_safe_fopen(path, err);
    if (!f) return err->code;
    ncp_labels_csv_header(f);
    for (int i = 0; i < r->n; i++) ncp_labels_csv_row(f, &r->L[i]);
    if (fclose(f) != 0)
        return ncp_error_set(err, NCP_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    if ((rc = add_to_summary(r, err))) return rc;
    return add_to_results(r, err);
}

void ncp_labels_run_free(ncp_labels_run *r)
{
    if (!r) return;
    for (int i = 0; i < r->nbest; i++) {
        free(r->best[i].problem);
        free(r->best[i].lam);
    }
    free(r->best);
    if (r->sol >= 0) H5Fclose(r->sol);
    free(r->L);
    free(r);
}

/* ---- labels.csv read back ---- */

typedef struct class_ctx {
    const char *split;
    char *const *names;
    int n;
    const char **classes;
} class_ctx;

static int class_row(void *ctx, const char *const *f, const char *path, long line,
                     ncp_error *err)
{
    class_ctx *c = ctx;
    ncp_labels L;
    labels_clear(&L);
    double rows, rank, dens, cond, mu;
    snprintf(L.method, sizeof L.method, "%s", f[6]);
    if (ncp_csv_number(f[1], &rows) || ncp_csv_number(f[2], &rank) ||
        ncp_csv_number(f[3], &dens) || ncp_csv_number(f[4], &cond) || ncp_csv_number(f[5], &mu))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: rows, rank, contact_density, cond or "
                             "mu_max is not a number", path, line);
    L.rows = (int)rows;
    L.rank = (int)rank;
    L.contact_density = dens;
    L.cond = cond;
    L.mu_max = mu;
    const char *cls = ncp_labels_class(&L, c->split);
    for (int i = 0; i < c->n; i++)
        if (c->names[i] && !strcmp(c->names[i], f[0])) c->classes[i] = cls;
    return NCP_OK;
}

int ncp_labels_read_classes(const char *out_dir, const char *split, char *const *names, int n,
                            const char ***classes, ncp_error *err)
{
    *classes = NULL;
    ncp_labels probe;
    labels_clear(&probe);
    if (!ncp_labels_class(&probe, split))
        return ncp_error_set(err, NCP_ERR_INPUT, "--split-by: unknown label '%s' (known: %s)",
                             split, NCP_LABELS_SPLITS);
    class_ctx c = {split, names, n, ncp_calloc(err, (size_t)(n > 0 ? n : 1), sizeof(char *))};
    if (!c.classes) return NCP_ERR_NOMEM;
    char path[4300];
    const char *cols[7] = {"problem", "rows", "rank", "contact_density", "cond", "mu_max",
                           "method"};
    int rc = ncp_path_join(path, sizeof path, out_dir, "labels.csv", err);
    if (!rc) rc = ncp_csv_read(path, cols, 7, class_row, &c, err);
    if (rc) {
        free(c.classes);
        return rc;
    }
    *classes = c.classes;
    return NCP_OK;
}
