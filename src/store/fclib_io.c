/* FCLib groups (writing them inside problems.h5 and as plain files) and our own FCLib reader.
 *
 * FCLib (fclib.h of libfclib 3) knows two forms, normal-first 3-blocks:
 *   local   u = W r + q (+ V l), with optional equality rows  V^T r + R l + s = 0,
 *   global  M v = H r + G l + f,  u = H^T v + w,  G^T v + b = 0.
 * Ours: A v = b + J^T lambda, u = J v + e, so M = A, f = b, H = J_c^T, w = e_c for the contact
 * rows and G = J_b^T, b_fclib = e_b for the bilateral rows (u_b = J_b v + e_b = 0 is exactly
 * G^T v + b = 0 with l = lambda_b, a free multiplier: docs/design.md BILATERAL). Locally W = D and
 * q = v_f.
 *
 * Reading a plain FCLib file puts the equality (bilateral) rows FIRST and the contacts after
 * them, in file order; this is a choice (FCLib keeps them in separate matrices), the same for
 * the local form with V/R and the global form with G, so both forms of one file give the same
 * row order. The local form's dual matrix is then
 *     D = [ R  V^T ]      v_f = [ s ]
 *         [ V  W   ],           [ q ]
 * (u_b = V^T r + R l + s, u_c = W r + V l + q).
 *
 * libfclib is never called here: its readers exit() on malformed files. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "ncp_config.h"
#include "store/fclib_io.h"
#include "store/h5util.h"

#define jp ncp_h5_path

static const char *math_info =
    "ncpbench export. Normal-first contact frames (n, t1, t2). Primal A v = b + J^T lambda, "
    "u = J v + e stored as M = A, f = b, H = J^T (contact rows), w = e (contact rows), "
    "G = J^T (bilateral rows), b = e (bilateral rows). Local W = J A^-1 J^T, q = J A^-1 b + e.";

static int write_info(const ncp_h5ctx *c, hid_t g, const char *gp, const ncp_problem *p,
                      const char *title)
{
    char ip[512], desc[1024];
    jp(ip, sizeof ip, gp, "info");
    snprintf(desc, sizeof desc, "ncpbench %s; scene %s, problem %s, step %d, case %d, seed %llu, driver %s",
             NCP_VERSION, p->scene ? p->scene : "", p->name ? p->name : "", p->step, p->case_index,
             (unsigned long long)p->seed, p->driver && p->driver[0] ? p->driver : "-");
    hid_t ig;
    int rc = ncp_h5_group(c, g, gp, "info", &ig);
    if (rc) return rc;
    rc = ncp_h5_write_string(c, ig, ip, "title", title);
    if (!rc) rc = ncp_h5_write_string(c, ig, ip, "description", desc);
    if (!rc) rc = ncp_h5_write_string(c, ig, ip, "math_info", math_info);
    H5Gclose(ig);
    return rc;
}

static int write_mu(const ncp_h5ctx *c, hid_t vg, const char *vp, const ncp_problem *p)
{
    double *mu = ncp_malloc(c->err, (size_t)p->ncontacts, sizeof(double));
    if (!mu) return NCP_ERR_NOMEM;
    int k = 0;
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].type == NCP_CONTACT && k < p->ncontacts) mu[k++] = p->blocks[b].mu;
    int rc = k == p->ncontacts ? ncp_h5_write_dvec(c, vg, vp, "mu", k, mu)
                               : ncp_error_set(c->err, NCP_ERR_INTERNAL, "ncontacts = %d but %d contact blocks", p->ncontacts, k);
    free(mu);
    return rc;
}

int ncp_fclib_write_local_group(const ncp_h5ctx *c, hid_t loc, const char *gpath,
                                const ncp_problem *p, const double *D, const double *vf,
                                const char *title)
{
    char lp[512], vp[512];
    jp(lp, sizeof lp, gpath, "fclib_local");
    jp(vp, sizeof vp, lp, "vectors");
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].type != NCP_CONTACT)
            return ncp_error_set(c->err, NCP_ERR_INTERNAL, "fclib_local asked for a problem with %s rows", ncp_block_type_name(p->blocks[b].type));
    int m = p->m, nnz = 0;
    int *cp = NULL, *ci = NULL;
    double *cx = NULL;
    hid_t g = -1, vg = -1;
    int rc = ncp_h5_csc_from_dense(m, m, D, &cp, &ci, &cx, &nnz, c->err);
    if (!rc) rc = ncp_h5_group(c, loc, gpath, "fclib_local", &g);
    /* same order as libfclib's fclib_write_local: spacedim, W, vectors, info */
    if (!rc) rc = ncp_h5_write_int1(c, g, lp, "spacedim", 3);
    if (!rc) {
        ncp_h5_sparse W = {-1, m, m, nnz, cp, ci, cx};
        rc = ncp_h5_write_sparse(c, g, lp, "W", &W);
    }
    if (!rc) rc = ncp_h5_group(c, g, lp, "vectors", &vg);
    if (!rc) rc = ncp_h5_write_dvec(c, vg, vp, "q", m, vf);
    if (!rc) rc = write_mu(c, vg, vp, p);
    if (!rc && title) rc = write_info(c, g, lp, p, title);
    if (vg >= 0) H5Gclose(vg);
    if (g >= 0) H5Gclose(g);
    free(cp);
    free(ci);
    free(cx);
    return rc;
}

/* CSC of the transpose of the rows of J whose block type is `type` (columns in row order),
 * with the matching entries of e. */
static int rows_as_csc(const ncp_problem *p, int type, int *ncols, int **cp, int **ci,
                       double **cx, double **ev, ncp_error *err)
{
    int nr = 0;
    size_t nnz = 0;
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].type == type) {
            int r0 = p->blocks[b].row, sz = ncp_block_type_size(type);
            nr += sz;
            nnz += (size_t)(p->J.rowptr[r0 + sz] - p->J.rowptr[r0]);
        }
    *cp = ncp_malloc(err, (size_t)nr + 1, sizeof(int));
    *ci = ncp_malloc(err, nnz, sizeof(int));
    *cx = ncp_malloc(err, nnz, sizeof(double));
    *ev = ncp_malloc(err, (size_t)nr, sizeof(double));
    if (!*cp || !*ci || !*cx || !*ev) return NCP_ERR_NOMEM;
    int col = 0, k = 0;
    (*cp)[0] = 0;
    for (int b = 0; b < p->nblocks; b++) {
        if (p->blocks[b].type != type) continue;
        int r0 = p->blocks[b].row, sz = ncp_block_type_size(type);
        for (int r = r0; r < r0 + sz; r++) {
            for (int q = p->J.rowptr[r]; q < p->J.rowptr[r + 1]; q++) {
                (*ci)[k] = p->J.col[q];
                (*cx)[k] = p->J.val[q];
                k++;
            }
            (*ev)[col] = p->e[r];
            (*cp)[++col] = k;
        }
    }
    *ncols = nr;
    return NCP_OK;
}

/* CSC arrays of a CSR matrix (the same entries, by columns): M of a problem whose primal data
 * are sparse. */
static int csc_from_csr(const ncp_csr *S, int **cp, int **ci, double **cx, ncp_error *err)
{
    *cp = ncp_calloc(err, (size_t)S->n + 1, sizeof(int));
    *ci = ncp_malloc(err, (size_t)S->nnz, sizeof(int));
    *cx = ncp_malloc(err, (size_t)S->nnz, sizeof(double));
    if (!*cp || !*ci || !*cx) return NCP_ERR_NOMEM;
    for (int k = 0; k < S->nnz; k++) (*cp)[S->col[k] + 1]++;
    for (int j = 0; j < S->n; j++) (*cp)[j + 1] += (*cp)[j];
    for (int i = 0; i < S->m; i++) /* rows ascending: row indices sorted within a column */
        for (int k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) {
            int q = (*cp)[S->col[k]]++;
            (*ci)[q] = i;
            (*cx)[q] = S->val[k];
        }
    for (int j = S->n; j > 0; j--) (*cp)[j] = (*cp)[j - 1];
    (*cp)[0] = 0;
    return NCP_OK;
}

int ncp_fclib_write_global_group(const ncp_h5ctx *c, hid_t loc, const char *gpath,
                                 const ncp_problem *p, const char *title)
{
    char gp[512], vp[512];
    jp(gp, sizeof gp, gpath, "fclib_global");
    jp(vp, sizeof vp, gp, "vectors");
    int nbil = 0;
    for (int b = 0; b < p->nblocks; b++) {
        int t = p->blocks[b].type;
        if (t == NCP_BILATERAL) nbil++;
        else if (t != NCP_CONTACT)
            return ncp_error_set(c->err, NCP_ERR_INTERNAL, "fclib_global asked for a problem with %s rows", ncp_block_type_name(t));
    }
    int nv = p->nv, mnz = 0, mc = 0, mb = 0;
    int *Mp = NULL, *Mi = NULL, *Hp = NULL, *Hi = NULL, *Gp = NULL, *Gi = NULL;
    double *Mx = NULL, *Hx = NULL, *Gx = NULL, *w = NULL, *bb = NULL;
    hid_t g = -1, vg = -1;
    int rc = p->has_primal ? ncp_h5_csc_from_dense(nv, nv, p->A, &Mp, &Mi, &Mx, &mnz, c->err)
                           : csc_from_csr(&p->A_sparse, &Mp, &Mi, &Mx, c->err);
    if (!rc && !p->has_primal) mnz = p->A_sparse.nnz;
    if (!rc) rc = rows_as_csc(p, NCP_CONTACT, &mc, &Hp, &Hi, &Hx, &w, c->err);
    if (!rc && nbil) rc = rows_as_csc(p, NCP_BILATERAL, &mb, &Gp, &Gi, &Gx, &bb, c->err);
    if (!rc) rc = ncp_h5_group(c, loc, gpath, "fclib_global", &g);
    /* same order as libfclib's fclib_write_global: spacedim, M, H, G, vectors, info */
    if (!rc) rc = ncp_h5_write_int1(c, g, gp, "spacedim", 3);
    if (!rc) {
        ncp_h5_sparse M = {-1, nv, nv, mnz, Mp, Mi, Mx};
        rc = ncp_h5_write_sparse(c, g, gp, "M", &M);
    }
    if (!rc) {
        ncp_h5_sparse H = {-1, nv, mc, Hp[mc], Hp, Hi, Hx};
        rc = ncp_h5_write_sparse(c, g, gp, "H", &H);
    }
    if (!rc && nbil) {
        ncp_h5_sparse G = {-1, nv, mb, Gp[mb], Gp, Gi, Gx};
        rc = ncp_h5_write_sparse(c, g, gp, "G", &G);
    }
    if (!rc) rc = ncp_h5_group(c, g, gp, "vectors", &vg);
    if (!rc) rc = ncp_h5_write_dvec(c, vg, vp, "f", nv, p->b);
    if (!rc) rc = ncp_h5_write_dvec(c, vg, vp, "w", mc, w);
    if (!rc) rc = write_mu(c, vg, vp, p);
    if (!rc && nbil) rc = ncp_h5_write_dvec(c, vg, vp, "b", mb, bb);
    if (!rc && title) rc = write_info(c, g, gp, p, title);
    if (vg >= 0) H5Gclose(vg);
    if (g >= 0) H5Gclose(g);
    free(Mp);
    free(Mi);
    free(Mx);
    free(Hp);
    free(Hi);
    free(Hx);
    free(Gp);
    free(Gi);
    free(Gx);
    free(w);
    free(bb);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* reading                                                                                  */
/* ---------------------------------------------------------------------------------------- */

typedef struct fc_local {
    int nl, mc;     /* equality rows (R is nl x nl), contact rows */
    double *D, *vf; /* (nl + mc)^2 column-major, nl + mc */
    double *mu;     /* mc / 3 */
} fc_local;

typedef struct fc_global {
    int nv, nl, mc;
    ncp_csr M;              /* nv x nv, kept sparse */
    ncp_csr J;              /* rows [G^T; H^T] */
    double *f, *e, *mu;     /* e = [b; w] */
} fc_global;

static int read_spacedim(const ncp_h5ctx *c, hid_t g, const char *gp)
{
    int sd = 0;
    int rc = ncp_h5_read_int1(c, g, gp, "spacedim", &sd);
    if (!rc && sd != 3)
        rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/spacedim: spacedim = %d, but ncpbench handles 3-D contact problems only",
                           c->file, gp, sd);
    return rc;
}

static int read_mu(const ncp_h5ctx *c, hid_t vg, const char *vp, int nc, double **mu)
{
    /* the range of ncp_problem_validate, checked here to name the dataset */
    int rc = ncp_h5_read_dvec(c, vg, vp, "mu", nc, mu, NULL);
    for (int k = 0; !rc && k < nc; k++)
        if ((*mu)[k] < 0)
            rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/mu: friction coefficient mu[%d] = %g is negative",
                               c->file, vp, k, (*mu)[k]);
        else if ((*mu)[k] > NCP_MU_MAX)
            rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/mu: friction coefficient mu[%d] = %g is above %g (core/problem.h NCP_MU_MAX)",
                               c->file, vp, k, (*mu)[k], NCP_MU_MAX);
    return rc;
}

/* Records which reading of a triplet matrix was used (the provenance of the problem). */
static int note_triplets(ncp_problem *p, const ncp_h5ctx *c, const char *gp, const char *name,
                         const ncp_h5_triplets *T)
{
    if (T->reading == NCP_H5_TRIPLET_I_ROWS)
        return ncp_problem_note(p, c->err, "%s/%s: triplets read with i = rows, p = columns (CSparse, Siconos)%s", gp,
                                name, T->both_fit && T->m != T->n ? "; p = rows would also be in range" : "");
    if (T->reading == NCP_H5_TRIPLET_P_ROWS)
        return ncp_problem_note(p, c->err, "%s/%s: triplets read with p = rows, i = columns (the fclib.h comment; "
                                "i = rows would put indices outside %d x %d)", gp, name, T->m, T->n);
    return NCP_OK;
}

static int read_local(const ncp_h5ctx *c, hid_t file, fc_local *L, ncp_problem *p)
{
    const char *lp = "/fclib_local", *vp = "/fclib_local/vectors";
    hid_t g = -1, vg = -1;
    ncp_h5_triplets W = {0}, V = {0}, R = {0};
    double *q = NULL, *s = NULL;
    int rc = ncp_h5_open_group(c, file, "/", "fclib_local", &g);
    if (!rc) rc = read_spacedim(c, g, lp);
    if (!rc) rc = ncp_h5_read_sparse(c, g, lp, "W", &W);
    if (!rc && W.m != W.n)
        rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/W: is %d x %d, expected a square matrix", c->file, lp, W.m, W.n);
    if (!rc && W.m == 0)
        rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/W: is empty (0 x 0): no contacts", c->file, lp);
    if (!rc && W.m % 3)
        rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/W: has m = %d rows, not a multiple of spacedim = 3", c->file, lp, W.m);
    int hasV = !rc && ncp_h5_exists(g, "V"), hasR = !rc && ncp_h5_exists(g, "R");
    if (!rc && hasV != hasR)
        rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/%s: missing group (V and R go together)", c->file, lp, hasV ? "R" : "V");
    if (!rc) rc = ncp_h5_dense_ok(c, lp, "W", W.m, W.m);
    int mc = W.m, nl = 0;
    if (!rc && hasV) {
        rc = ncp_h5_read_sparse(c, g, lp, "R", &R);
        if (!rc && R.m != R.n)
            rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/R: is %d x %d, expected a square matrix", c->file, lp, R.m, R.n);
        nl = R.m;
        if (!rc) rc = ncp_h5_read_sparse(c, g, lp, "V", &V);
        if (!rc && (V.m != mc || V.n != nl))
            rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/V: is %d x %d, expected W rows x R rows = %d x %d",
                               c->file, lp, V.m, V.n, mc, nl);
    }
    if (!rc) rc = ncp_h5_open_group(c, g, lp, "vectors", &vg);
    if (!rc) rc = ncp_h5_read_dvec(c, vg, vp, "q", mc, &q, NULL);
    if (!rc) rc = read_mu(c, vg, vp, mc / 3, &L->mu);
    if (!rc && hasV) rc = ncp_h5_read_dvec(c, vg, vp, "s", nl, &s, NULL);
    int m = (long)nl + mc > INT_MAX ? INT_MAX : nl + mc; /* a huge m is refused just below */
    if (!rc) rc = ncp_h5_dense_ok(c, lp, "R", m, m);
    if (!rc) rc = note_triplets(p, c, lp, "W", &W);
    if (!rc && hasV) rc = note_triplets(p, c, lp, "V", &V);
    if (!rc && hasV) rc = note_triplets(p, c, lp, "R", &R);
    if (!rc) {
        L->D = ncp_calloc(c->err, (size_t)m * m, sizeof(double));
        L->vf = ncp_malloc(c->err, (size_t)m, sizeof(double));
        if (!L->D || !L->vf) rc = NCP_ERR_NOMEM;
    }
    if (!rc) {
        ncp_h5_triplets_to_dense(&W, 0, L->D, m, nl, nl);
        if (hasV) {
            ncp_h5_triplets_to_dense(&R, 0, L->D, m, 0, 0);
            ncp_h5_triplets_to_dense(&V, 1, L->D, m, 0, nl);
            ncp_h5_triplets_to_dense(&V, 0, L->D, m, nl, 0);
            memcpy(L->vf, s, (size_t)nl * sizeof(double));
        }
        memcpy(L->vf + nl, q, (size_t)mc * sizeof(double));
        L->nl = nl;
        L->mc = mc;
    }
    ncp_h5_triplets_free(&W);
    ncp_h5_triplets_free(&V);
    ncp_h5_triplets_free(&R);
    free(q);
    free(s);
    if (vg >= 0) H5Gclose(vg);
    if (g >= 0) H5Gclose(g);
    return rc;
}

/* The global form, M kept sparse (an FCLib global problem may have 10^4 DOFs or more). */
static int read_global(const ncp_h5ctx *c, hid_t file, fc_global *G, ncp_problem *p)
{
    const char *gp = "/fclib_global", *vp = "/fclib_global/vectors";
    hid_t g = -1, vg = -1;
    ncp_h5_triplets M = {0}, H = {0}, Gm = {0};
    double *w = NULL, *b = NULL;
    int rc = ncp_h5_open_group(c, file, "/", "fclib_global", &g);
    if (!rc) rc = read_spacedim(c, g, gp);
    if (!rc) rc = ncp_h5_read_sparse(c, g, gp, "M", &M);
    if (!rc && M.m != M.n)
        rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/M: is %d x %d, expected a square matrix", c->file, gp, M.m, M.n);
    if (!rc && M.m == 0)
        rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/M: is empty (0 x 0)", c->file, gp);
    int nv = M.m;
    if (!rc) rc = ncp_h5_read_sparse(c, g, gp, "H", &H);
    if (!rc && H.m != nv)
        rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/H: has %d rows, but M is %d x %d (H is n_dof x 3 n_contacts)",
                           c->file, gp, H.m, nv, nv);
    if (!rc && H.n == 0)
        rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/H: has no columns: no contacts", c->file, gp);
    if (!rc && H.n % 3)
        rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/H: has n = %d columns, not a multiple of spacedim = 3", c->file, gp, H.n);
    int hasG = !rc && ncp_h5_exists(g, "G");
    if (!rc && hasG) {
        rc = ncp_h5_read_sparse(c, g, gp, "G", &Gm);
        if (!rc && Gm.m != nv)
            rc = ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s/G: has %d rows, but M is %d x %d", c->file, gp, Gm.m, nv, nv);
    }
    int mc = H.n, nl = hasG ? Gm.n : 0;
    int m = (long)nl + mc > INT_MAX ? INT_MAX : nl + mc; /* a huge m is refused just below */
    /* D = J M^-1 J^T will be m x m dense (M itself stays sparse) */
    if (!rc) rc = ncp_h5_dense_ok(c, gp, hasG ? "G" : "H", m, m);
    /* the vectors hold as many entries as the matrices declare rows and columns: checked
     * against the datasets before anything of the declared sizes is allocated */
    if (!rc) rc = ncp_h5_open_group(c, g, gp, "vectors", &vg);
    if (!rc) rc = ncp_h5_read_dvec(c, vg, vp, "f", nv, &G->f, NULL);
    if (!rc) rc = ncp_h5_read_dvec(c, vg, vp, "w", mc, &w, NULL);
    if (!rc) rc = read_mu(c, vg, vp, mc / 3, &G->mu);
    if (!rc && hasG) rc = ncp_h5_read_dvec(c, vg, vp, "b", nl, &b, NULL);
    if (!rc) rc = note_triplets(p, c, gp, "M", &M);
    if (!rc) rc = note_triplets(p, c, gp, "H", &H);
    if (!rc && hasG) rc = note_triplets(p, c, gp, "G", &Gm);
    if (!rc) {
        const ncp_h5_triplets *T[1] = {&M};
        int tr[1] = {0}, r0[1] = {0};
        rc = ncp_h5_csr_from_triplets(nv, nv, 1, T, tr, r0, &G->M, c->err);
    }
    if (!rc) {
        char where[1100];
        snprintf(where, sizeof where, "%s: %s/M", c->file, gp);
        rc = ncp_mass_symmetric(&G->M, c->sym_tol, where, p, c->err);
    }
    if (!rc) {
        G->e = ncp_malloc(c->err, (size_t)m, sizeof(double));
        if (!G->e) rc = NCP_ERR_NOMEM;
    }
    if (!rc) {
        if (nl) memcpy(G->e, b, (size_t)nl * sizeof(double));
        memcpy(G->e + nl, w, (size_t)mc * sizeof(double));
        /* J = [G^T; H^T]: bilateral rows first, then the contact rows */
        const ncp_h5_triplets *T[2] = {&Gm, &H};
        int tr[2] = {1, 1}, r0[2] = {0, nl};
        rc = ncp_h5_csr_from_triplets(m, nv, 2, T, tr, r0, &G->J, c->err);
    }
    G->nv = nv;
    G->nl = nl;
    G->mc = mc;
    ncp_h5_triplets_free(&M);
    ncp_h5_triplets_free(&H);
    ncp_h5_triplets_free(&Gm);
    free(w);
    free(b);
    if (vg >= 0) H5Gclose(vg);
    if (g >= 0) H5Gclose(g);
    return rc;
}

/* info/title and info/description: of fclib_local, of fclib_global, or of the root's /info,
 * the first found ("" when none). */
static int read_info(const ncp_h5ctx *c, hid_t file, int hasL, int hasG, ncp_problem *p)
{
    const char *groups[3] = {hasL ? "/fclib_local/info" : NULL, hasG ? "/fclib_global/info" : NULL, "/info"};
    const char *names[2] = {"title", "description"};
    char **dst[2] = {&p->title, &p->description};
    int rc = NCP_OK;
    for (int k = 0; !rc && k < 3; k++) {
        if (!groups[k] || !ncp_h5_exists(file, groups[k])) continue;
        hid_t g = H5Gopen2(file, groups[k], H5P_DEFAULT);
        if (g < 0) {
            rc = ncp_h5_rerr(c, groups[k], "", "is not a readable group");
            break;
        }
        for (int j = 0; !rc && j < 2; j++)
            if (!*dst[j] && ncp_h5_exists(g, names[j])) rc = ncp_h5_read_string(c, g, groups[k], names[j], dst[j]);
        H5Gclose(g);
    }
    for (int j = 0; !rc && j < 2; j++)
        if (!*dst[j] && !(*dst[j] = ncp_strdup(c->err, ""))) rc = NCP_ERR_NOMEM;
    return rc;
}

/* The first warm start of /guesses (FCLib: /guesses/number_of_guesses and groups 1, 2, ...
 * holding r, u, and v for global problems, l with equality rows): lambda = [l; r], v. */
static int read_guess(const ncp_h5ctx *c, hid_t file, int nl, int mc, int nv, ncp_problem *p)
{
    if (!ncp_h5_exists(file, "guesses")) return NCP_OK;
    const char *gp = "/guesses/1";
    hid_t g = -1, g1 = -1;
    int count = 1, rc = ncp_h5_open_group(c, file, "/", "guesses", &g);
    if (!rc && ncp_h5_exists(g, "number_of_guesses"))
        rc = ncp_h5_read_int1(c, g, "/guesses", "number_of_guesses", &count);
    if (!rc && count < 0)
        rc = ncp_h5_rerr(c, "/guesses", "number_of_guesses", "is %d (negative)", count);
    if (!rc && count > 0) rc = ncp_h5_open_group(c, g, "/guesses", "1", &g1);
    double *r = NULL, *l = NULL;
    if (!rc && count > 0) rc = ncp_h5_read_dvec(c, g1, gp, "r", mc, &r, NULL);
    if (!rc && count > 0 && nl > 0 && ncp_h5_exists(g1, "l")) rc = ncp_h5_read_dvec(c, g1, gp, "l", nl, &l, NULL);
    if (!rc && count > 0 && nv > 0 && ncp_h5_exists(g1, "v")) rc = ncp_h5_read_dvec(c, g1, gp, "v", nv, &p->guess_v, NULL);
    if (!rc && count > 0) {
        p->guess_lambda = ncp_calloc(c->err, (size_t)nl + mc, sizeof(double));
        if (!p->guess_lambda) rc = NCP_ERR_NOMEM;
    }
    if (!rc && count > 0) {
        if (l) memcpy(p->guess_lambda, l, (size_t)nl * sizeof(double)); /* absent l: zero */
        memcpy(p->guess_lambda + nl, r, (size_t)mc * sizeof(double));
    }
    free(r);
    free(l);
    if (g1 >= 0) H5Gclose(g1);
    if (g >= 0) H5Gclose(g);
    return rc;
}

static void replace(double **dst, double **src)
{
    free(*dst);
    *dst = *src;
    *src = NULL;
}

static void take_csr(ncp_csr *dst, ncp_csr *src)
{
    ncp_csr_free(dst);
    *dst = *src;
    memset(src, 0, sizeof *src);
}

int ncp_mass_symmetric(ncp_csr *M, double tol, const char *where, ncp_problem *p, ncp_error *err)
{
    /* the primal form needs a symmetric M (its lower triangle is what gets factorised) */
    int i = 0, j = 0;
    double asym = ncp_csr_max_asymmetry(M, &i, &j), big = ncp_norminf(M->nnz, M->val);
    if (asym <= NCP_DUAL_SYMMETRY_TOL * big) return NCP_OK;
    double rel = ncp_csr_asymmetry_rel(M);
    if (tol <= 0) tol = NCP_SYM_TOL_DEFAULT;
    if (rel > tol)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: is not symmetric: |M - M^T|_F / |M|_F = %.3g, above --sym-tol %g "
                             "(|M[%d,%d] - M[%d,%d]| = %g with max |M| = %g); ncpbench needs a symmetric "
                             "positive definite M", where, rel, tol, i, j, j, i, asym, big);
    int rc = ncp_csr_symmetric_part(M, err);
    if (!rc) rc = ncp_problem_note(p, err, "%s read as its symmetric part (M + M^T)/2: |M - M^T|_F / |M|_F = %.3g "
                                   "(largest |M[%d,%d] - M[%d,%d]| = %g), within --sym-tol %g", where, rel, i, j, j, i, asym, tol);
    return rc;
}

int ncp_fclib_finish(const ncp_h5ctx *c, ncp_problem *p)
{
    int rc = ncp_problem_validate(p, c->file, c->err); /* before M is factorised */
    if (!rc && !p->has_dual) {
        rc = ncp_problem_compute_vf(p, c->err); /* v_f only: D is built on demand */
        if (rc == NCP_ERR_NUMERIC) rc = c->err->code = NCP_ERR_INPUT; /* M not SPD: the file is wrong */
        if (rc) ncp_error_prefix(c->err, "%s: /fclib_global/M: ", c->file);
    }
    if (!rc) {
        rc = ncp_problem_complete(p, 0, c->err); /* a local problem stays dual-only */
        if (rc) ncp_error_prefix(c->err, "%s: ", c->file);
    }
    if (!rc) rc = ncp_problem_validate(p, c->file, c->err);
    return rc;
}

int ncp_fclib_read_file(const ncp_h5ctx *c, hid_t file, const char *name, ncp_problem *p)
{
    fc_local L = {0};
    fc_global G = {0};
    int hasL = ncp_h5_exists(file, "fclib_local"), hasG = ncp_h5_exists(file, "fclib_global");
    int rc = NCP_OK;
    if (hasG) rc = read_global(c, file, &G, p);
    if (!rc && hasL) rc = read_local(c, file, &L, p);
    int nl = hasG ? G.nl : L.nl, mc = hasG ? G.mc : L.mc;
    if (!rc && hasG && hasL) {
        /* both forms of one problem (what ncpbench exports): the primal data comes from
         * fclib_global and the dual data from fclib_local, so they must agree on the rows */
        if (L.nl != G.nl || L.mc != G.mc)
            rc = ncp_error_set(c->err, NCP_ERR_INPUT,
                               "%s: /fclib_local and /fclib_global describe different problems (%d equality + %d contact rows vs %d + %d)",
                               c->file, L.nl, L.mc, G.nl, G.mc);
        for (int k = 0; !rc && k < mc / 3; k++)
            if (L.mu[k] != G.mu[k])
                rc = ncp_error_set(c->err, NCP_ERR_INPUT,
                                   "%s: /fclib_local/vectors/mu[%d] = %g differs from /fclib_global/vectors/mu[%d] = %g",
                                   c->file, k, L.mu[k], k, G.mu[k]);
    }
    if (!rc) rc = ncp_problem_alloc_blocks(p, nl + mc / 3, c->err);
    if (!rc) {
        const double *mu = hasG ? G.mu : L.mu;
        for (int b = 0; b < nl; b++) p->blocks[b].type = NCP_BILATERAL;
        for (int k = 0; k < mc / 3; k++) {
            p->blocks[nl + k].type = NCP_CONTACT;
            p->blocks[nl + k].mu = mu[k];
        }
        ncp_problem_layout(p);
        for (int b = 0; b < p->nblocks; b++) p->blocks[b].contact = b < nl ? -1 : b - nl;
        if (p->m != nl + mc)
            rc = ncp_error_set(c->err, NCP_ERR_INTERNAL, "layout gave m = %d, expected %d", p->m, nl + mc);
    }
    if (!rc && hasG) {
        /* M stays sparse: has_sparse_primal, and no dense A (problem.h) */
        p->nv = G.nv;
        take_csr(&p->A_sparse, &G.M);
        take_csr(&p->J, &G.J);
        replace(&p->b, &G.f);
        replace(&p->e, &G.e);
        p->has_sparse_primal = 1;
    }
    if (!rc && hasL) {
        replace(&p->D, &L.D);
        replace(&p->vf, &L.vf);
        p->has_dual = 1;
    }
    if (!rc) {
        p->name = ncp_strdup(c->err, name);
        p->scene = ncp_strdup(c->err, c->file);
        p->driver = ncp_strdup(c->err, "");
        if (!p->name || !p->scene || !p->driver) rc = NCP_ERR_NOMEM;
        p->step = -1;
        p->case_index = -1;
        p->seed = 0;
        p->h = 0.0;
    }
    if (!rc) rc = read_info(c, file, hasL, hasG, p);
    if (!rc) rc = read_guess(c, file, nl, mc, hasG ? G.nv : 0, p);
    if (!rc && !c->raw) rc = ncp_fclib_finish(c, p);
    free(L.D);
    free(L.vf);
    free(L.mu);
    ncp_csr_free(&G.M);
    ncp_csr_free(&G.J);
    free(G.f);
    free(G.e);
    free(G.mu);
    return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* export                                                                                   */
/* ---------------------------------------------------------------------------------------- */

/* /guesses (FCLib layout: number_of_guesses, group 1 with v for a global problem, l for the
 * equality rows, u and r for the contact rows, each in row order) from the problem's guess: a
 * missing guess_lambda writes r = l = 0; u = D lambda + v_f is the local velocity of the guessed
 * impulses (FCLib's readers require it). */
static int write_guess(const ncp_h5ctx *c, hid_t f, const ncp_problem *p, int primal)
{
    int m = p->m, nl = 0, mc = 0;
    double *lam = ncp_calloc(c->err, (size_t)m, sizeof(double));
    double *u = ncp_malloc(c->err, (size_t)m, sizeof(double));
    double *l = ncp_malloc(c->err, (size_t)m, sizeof(double));
    double *r = ncp_malloc(c->err, (size_t)m, sizeof(double));
    double *uc = ncp_malloc(c->err, (size_t)m, sizeof(double));
    hid_t g = -1, g1 = -1;
    int rc = (!lam || !u || !l || !r || !uc) ? NCP_ERR_NOMEM : NCP_OK;
    if (!rc && p->guess_lambda) ncp_copy(m, p->guess_lambda, lam);
    if (!rc) rc = ncp_problem_velocity(p, lam, u, c->err);
    for (int b = 0; !rc && b < p->nblocks; b++) {
        const ncp_block *bk = &p->blocks[b];
        for (int k = 0; k < ncp_block_type_size(bk->type); k++) {
            if (bk->type == NCP_CONTACT) {
                r[mc] = lam[bk->row + k];
                uc[mc++] = u[bk->row + k];
            } else {
                l[nl++] = lam[bk->row + k]; /* bilateral: export allows no other kind */
            }
        }
    }
    if (!rc) rc = ncp_h5_group(c, f, "/", "guesses", &g);
    if (!rc) rc = ncp_h5_write_int1(c, g, "/guesses", "number_of_guesses", 1);
    if (!rc) rc = ncp_h5_group(c, g, "/guesses", "1", &g1);
    if (!rc && primal && p->guess_v && p->nv > 0)
        rc = ncp_h5_write_dvec(c, g1, "/guesses/1", "v", p->nv, p->guess_v);
    if (!rc && nl > 0) rc = ncp_h5_write_dvec(c, g1, "/guesses/1", "l", nl, l);
    if (!rc) rc = ncp_h5_write_dvec(c, g1, "/guesses/1", "u", mc, uc);
    if (!rc) rc = ncp_h5_write_dvec(c, g1, "/guesses/1", "r", mc, r);
    if (g1 >= 0) H5Gclose(g1);
    if (g >= 0) H5Gclose(g);
    free(lam);
    free(u);
    free(l);
    free(r);
    free(uc);
    return rc;
}

int ncp_fclib_export(const ncp_problem *p, const char *path, ncp_error *err)
{
    ncp_h5_quiet();
    const char *nm = p->name ? p->name : "(unnamed)";
    int allc = 1;
    for (int b = 0; b < p->nblocks; b++) {
        int t = p->blocks[b].type;
        if (t == NCP_UNILATERAL || t == NCP_SOFT)
            return ncp_error_set(err, NCP_ERR_INPUT,
                                 "problem %s: block %d has %s rows, which FCLib cannot express (it holds contact rows, and bilateral rows in fclib_global/G); %s not written",
                                 nm, b, ncp_block_type_name(t), path);
        if (t != NCP_CONTACT) allc = 0;
    }
    if (p->ncontacts == 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s has no contact rows, and an FCLib problem needs at least one contact; %s not written", nm, path);
    int primal = p->has_primal || p->has_sparse_primal;
    if (!allc && !primal)
        return ncp_error_set(err, NCP_ERR_INPUT,
                             "problem %s has bilateral rows but no primal data: only fclib_global/G can hold them; %s not written", nm, path);
    if (!primal && !p->has_dual)
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s has neither primal nor dual data; %s not written", nm, path);
    char where[600];
    snprintf(where, sizeof where, "problem %s (exporting to %s)", nm, path);
    int rc = ncp_problem_validate(p, where, err);
    if (rc) return rc;

    const double *D = p->D, *vf = p->vf;
    double *Dtmp = NULL, *vftmp = NULL;
    if (allc && !p->has_dual) {
        Dtmp = ncp_malloc(err, (size_t)p->m * p->m, sizeof(double));
        vftmp = ncp_malloc(err, (size_t)p->m, sizeof(double));
        if (!Dtmp || !vftmp) rc = NCP_ERR_NOMEM;
        if (!rc) rc = ncp_problem_derive(p, Dtmp, vftmp, err); /* W = D, dense or sparse A */
        D = Dtmp;
        vf = vftmp;
    }
    size_t tl = strlen(path) + 48;
    char *tmp = rc ? NULL : ncp_malloc(err, tl, 1);
    if (!rc && !tmp) rc = NCP_ERR_NOMEM;
    hid_t f = -1;
    if (!rc) {
        snprintf(tmp, tl, "%s.tmp-%ld", path, (long)getpid());
        f = ncp_h5_create_file(tmp);
        if (f < 0) rc = ncp_error_set(err, NCP_ERR_IO, "cannot create %s (does the directory exist and is it writable?)", tmp);
    }
    if (!rc) {
        ncp_h5ctx c = {.file = tmp, .err = err};
        char title[512];
        snprintf(title, sizeof title, "ncpbench scene %s problem %s", p->scene && p->scene[0] ? p->scene : "-", nm);
        if (allc) rc = ncp_fclib_write_local_group(&c, f, "/", p, D, vf, title);
        if (!rc && primal) rc = ncp_fclib_write_global_group(&c, f, "/", p, title);
        if (!rc && (p->guess_lambda || (primal && p->guess_v))) rc = write_guess(&c, f, p, primal);
    }
    if (f >= 0 && ncp_h5_close_file(f, rc != NCP_OK) < 0 && !rc)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot finish writing %s (disk full?); %s not written", tmp, path);
    if (!rc && rename(tmp, path) != 0)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (rc && f >= 0) remove(tmp);
    free(tmp);
    free(Dtmp);
    free(vftmp);
    return rc;
}
