/* Siconos .dat problem files (siconos_dat.h): read through libsiconos-numerics, trial readings
 * in a child process, then mapped as FCLib's forms are (fclib_io.c). */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/sparse_chol.h"
#include "store/fclib_io.h"
#include "store/h5util.h"
#include "store/siconos_dat.h"
#include "util/isolate.h"
#include "util/membudget.h"

#ifdef NCP_HAVE_SICONOS
#include <suitesparse/cs.h> /* the layout of Siconos's CSparseMatrix (cs_dl with SICONOS_INT64) */
#include <FrictionContactProblem.h>
#include <GlobalFrictionContactProblem.h>
#include <NumericsMatrix.h>
#endif

int ncp_siconos_dat_is(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcasecmp(path + n - 4, ".dat") == 0;
}

int ncp_siconos_dat_sniff(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char buf[256];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    long v[3];
    char *s = buf, *end;
    for (int k = 0; k < 3; k++) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
        if (!isdigit((unsigned char)*s)) return 0;
        v[k] = strtol(s, &end, 10);
        if (*end != ' ' && *end != '\t' && *end != '\r' && *end != '\n') return 0;
        s = end;
    }
    return (v[0] == 2 || v[0] == 3) && v[1] >= 1 && v[2] >= 0 && v[2] <= 2;
}

#ifdef NCP_HAVE_SICONOS

enum { DAT_LOCAL, DAT_GLOBAL };
static const char *const kind_name[2] = {"fc3d (local: W, q, mu)", "gfc3d (global: M, H, q, b, mu)"};

/* A NumericsMatrix (any storage) as our triplets: a dense one entry by entry, the others through
 * Siconos's own conversion (NM_triplet), the 64-bit indices checked into int. */
static int nm_triplets(const char *file, const char *what, NumericsMatrix *A, ncp_h5_triplets *T,
                       ncp_error *err)
{
    if (A && A->storageType == NM_DENSE && A->matrix0) {
        /* every nonzero as stored: NM_triplet drops a dense matrix's entries below machine
         * epsilon (NESpheres_10_1's W has 3e-17 off the diagonal) */
        size_t nz = 0, mn = (size_t)A->size0 * (size_t)A->size1;
        for (size_t k = 0; k < mn; k++) nz += A->matrix0[k] != 0.0;
        if (nz > INT_MAX)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s: %zu entries is too many", file, what, nz);
        T->m = A->size0;
        T->n = A->size1;
        T->nnz = (int)nz;
        T->row = ncp_malloc(err, nz ? nz : 1, sizeof(int));
        T->col = ncp_malloc(err, nz ? nz : 1, sizeof(int));
        T->val = ncp_malloc(err, nz ? nz : 1, sizeof(double));
        if (!T->row || !T->col || !T->val) return NCP_ERR_NOMEM;
        nz = 0;
        for (int j = 0; j < A->size1; j++) /* column-major */
            for (int i = 0; i < A->size0; i++) {
                double v = A->matrix0[i + (size_t)j * A->size0];
                if (v == 0.0) continue;
                T->row[nz] = i;
                T->col[nz] = j;
                T->val[nz++] = v;
            }
        return NCP_OK;
    }
    const cs_dl *C = A ? NM_triplet(A) : NULL;
    if (!C || C->nz < 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s: Siconos gave no triplet form of the matrix", file, what);
    if (C->m > INT_MAX || C->n > INT_MAX || C->nz > INT_MAX)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s: %ld x %ld with %ld entries is too large",
                             file, what, (long)C->m, (long)C->n, (long)C->nz);
    T->m = (int)C->m;
    T->n = (int)C->n;
    T->nnz = (int)C->nz;
    size_t k = C->nz > 0 ? (size_t)C->nz : 1;
    T->row = ncp_malloc(err, k, sizeof(int));
    T->col = ncp_malloc(err, k, sizeof(int));
    T->val = ncp_malloc(err, k, sizeof(double));
    if (!T->row || !T->col || !T->val) return NCP_ERR_NOMEM;
    for (long q = 0; q < (long)C->nz; q++) {
        if (C->i[q] < 0 || C->i[q] >= C->m || C->p[q] < 0 || C->p[q] >= C->n)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s: %s: entry %ld at (%ld, %ld) outside %ld x %ld",
                                 file, what, q, (long)C->i[q], (long)C->p[q], (long)C->m, (long)C->n);
        T->row[q] = (int)C->i[q];
        T->col[q] = (int)C->p[q];
        T->val[q] = C->x[q];
    }
    return NCP_OK;
}

/* 1 when the rest of the file holds more than white space and one integer: Siconos's files end
 * with an integer after mu (0 or 1 in its test data) that its readers leave unread; anything
 * beyond it means the file is of the other kind (a global file read as local leaves H, q, b and
 * mu unread). */
static int trailing(FILE *f)
{
    long k;
    char rest[2];
    int got = fscanf(f, "%ld", &k);
    if (got == EOF) return 0;
    if (got != 1) return 1;
    return fscanf(f, " %1s", rest) == 1;
}

/* The last tokens of buf (n bytes; cut: its first token may be cut) are mu[0..nc-1], after a
 * closing integer when skip_int. */
static int tail_is_mu(char *buf, size_t n, int cut, const double *mu, int nc, int skip_int)
{
    char *end = buf + n;
    for (int k = nc - 1 + skip_int; k >= 0; k--) {
        while (end > buf && isspace((unsigned char)end[-1])) end--;
        char *b = end;
        while (b > buf && !isspace((unsigned char)b[-1])) b--;
        if (b == end || (b == buf && cut)) return 0; /* none left, or one the window cut */
        char save = *end, *e;
        *end = '\0';
        int is_int = strspn(b, "0123456789-+") == (size_t)(end - b);
        double v = strtod(b, &e);
        *end = save;
        if (k == nc) {
            if (!is_int) return 0;
        } else if (e != end || v != mu[k]) {
            return 0;
        }
        end = b;
    }
    return 1;
}

/* 1 when the file's last numbers (before an optional closing integer) are mu[0..nc-1]: what
 * Siconos's reader, which warns and goes on when a read fails, read last was really there; a
 * file cut short leaves mu unread. Called last: it moves the file position. */
static int mu_at_end(FILE *f, const double *mu, int nc)
{
    if (fseek(f, 0, SEEK_END) != 0) return 0;
    long size = ftell(f), want = 64L * ((long)nc + 2) + 256;
    long start = size > want ? size - want : 0;
    if (size < 0 || fseek(f, start, SEEK_SET) != 0) return 0;
    char *buf = malloc((size_t)(size - start) + 1);
    if (!buf) return 0;
    size_t n = fread(buf, 1, (size_t)(size - start), f);
    buf[n] = '\0';
    int ok = tail_is_mu(buf, n, start > 0, mu, nc, 1) || tail_is_mu(buf, n, start > 0, mu, nc, 0);
    free(buf);
    return ok;
}

static int set_blocks(ncp_problem *p, int nc, const double *mu, ncp_error *err)
{
    int rc = ncp_problem_alloc_blocks(p, nc, err);
    if (rc) return rc;
    for (int k = 0; k < nc; k++) {
        p->blocks[k].type = NCP_CONTACT;
        p->blocks[k].mu = mu[k];
        p->blocks[k].contact = k;
    }
    ncp_problem_layout(p);
    if (p->m != 3 * nc)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "layout gave m = %d, expected %d", p->m, 3 * nc);
    return NCP_OK;
}

static int take(double **dst, double *src, size_t n, ncp_error *err)
{
    free(*dst);
    *dst = ncp_malloc(err, n ? n : 1, sizeof(double));
    if (!*dst) return NCP_ERR_NOMEM;
    if (n) memcpy(*dst, src, n * sizeof(double));
    return NCP_OK;
}

/* What both kinds share after Siconos's reader: a 3-D problem, a usable contact count, nothing
 * after the problem, and the file's last numbers are the nc friction coefficients read. */
static int check_header(const ncp_h5ctx *c, FILE *f, int kind, int dim, int nc, const double *mu)
{
    ncp_error *err = c->err;
    if (dim != 3)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: dimension = %d, but ncpbench handles 3-D contact problems only", c->file, dim);
    if (nc <= 0 || nc > INT_MAX / 3)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: numberOfContacts = %d", c->file, nc);
    if (trailing(f))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: text left after the %s problem", c->file, kind_name[kind]);
    if (!mu_at_end(f, mu, nc))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: the file does not end with the %d friction coefficients Siconos read as %s (cut short?)",
                             c->file, nc, kind_name[kind]);
    return NCP_OK;
}

static int read_local(const ncp_h5ctx *c, FILE *f, ncp_problem *p)
{
    ncp_error *err = c->err;
    FrictionContactProblem *fc = frictionContact_newFromFile(f);
    if (!fc || !fc->M || !fc->q || !fc->mu)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: Siconos could not read it as %s", c->file, kind_name[DAT_LOCAL]);
    int nc = fc->numberOfContacts, m = 3 * nc;
    int rc = check_header(c, f, DAT_LOCAL, fc->dimension, nc, fc->mu);
    ncp_h5_triplets W = {0};
    if (!rc && (fc->M->size0 != m || fc->M->size1 != m))
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: W is %d x %d, expected 3 x %d contacts = %d square",
                           c->file, fc->M->size0, fc->M->size1, nc, m);
    if (!rc) rc = ncp_h5_dense_ok(c, "", "W", m, m); /* D = W is dense */
    if (!rc) rc = nm_triplets(c->file, "W", fc->M, &W, err);
    if (!rc) rc = set_blocks(p, nc, fc->mu, err);
    if (!rc) {
        free(p->D);
        p->D = ncp_calloc(err, (size_t)m * m, sizeof(double));
        if (!p->D) rc = NCP_ERR_NOMEM;
    }
    if (!rc) {
        ncp_h5_triplets_to_dense(&W, 0, p->D, m, 0, 0);
        rc = take(&p->vf, fc->q, (size_t)m, err);
    }
    if (!rc) p->has_dual = 1;
    ncp_h5_triplets_free(&W);
    frictionContactProblem_free(fc);
    return rc;
}

static int read_global(const ncp_h5ctx *c, FILE *f, double sym_tol, ncp_problem *p)
{
    ncp_error *err = c->err;
    GlobalFrictionContactProblem *g = globalFrictionContact_newFromFile(f);
    if (!g || !g->M || !g->H || !g->q || !g->b || !g->mu)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: Siconos could not read it as %s", c->file, kind_name[DAT_GLOBAL]);
    int nc = g->numberOfContacts, m = 3 * nc, nv = g->M->size0;
    int rc = check_header(c, f, DAT_GLOBAL, g->dimension, nc, g->mu);
    ncp_h5_triplets M = {0}, H = {0};
    if (!rc && (nv <= 0 || g->M->size1 != nv))
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: M is %d x %d, expected a square matrix", c->file, nv, g->M->size1);
    else if (!rc && (g->H->size0 != nv || g->H->size1 != m))
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: H is %d x %d, expected n_dof x 3 n_contacts = %d x %d",
                           c->file, g->H->size0, g->H->size1, nv, m);
    if (!rc) rc = ncp_h5_dense_ok(c, "", "H", m, m); /* D = H^T M^-1 H will be dense */
    if (!rc) rc = nm_triplets(c->file, "M", g->M, &M, err);
    if (!rc) rc = nm_triplets(c->file, "H", g->H, &H, err);
    if (!rc) {
        const ncp_h5_triplets *T[1] = {&M};
        int tr[1] = {0}, r0[1] = {0};
        rc = ncp_h5_csr_from_triplets(nv, nv, 1, T, tr, r0, &p->A_sparse, err);
    }
    if (!rc) {
        char where[1100];
        snprintf(where, sizeof where, "%s: M", c->file);
        rc = ncp_mass_symmetric(&p->A_sparse, sym_tol, where, p, err);
    }
    if (!rc) {
        const ncp_h5_triplets *T[1] = {&H};
        int tr[1] = {1}, r0[1] = {0};
        rc = ncp_h5_csr_from_triplets(m, nv, 1, T, tr, r0, &p->J, err); /* J = H^T */
    }
    if (!rc) rc = set_blocks(p, nc, g->mu, err);
    if (!rc) rc = take(&p->b, g->q, (size_t)nv, err);
    if (!rc) rc = take(&p->e, g->b, (size_t)m, err);
    if (!rc) {
        p->nv = nv;
        p->has_sparse_primal = 1;
    }
    ncp_h5_triplets_free(&M);
    ncp_h5_triplets_free(&H);
    globalFrictionContact_free(g);
    return rc;
}

/* Reads path as one kind, checked and completed. */
static int read_kind(const char *path, const char *name, int kind, double budget, double sym_tol,
                     ncp_problem *p, ncp_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) return ncp_error_set(err, NCP_ERR_INPUT, "cannot open %s", path);
    ncp_h5ctx c = {.file = path, .err = err, .budget = budget};
    int rc = kind == DAT_LOCAL ? read_local(&c, f, p) : read_global(&c, f, sym_tol, p);
    fclose(f);
    if (!rc) {
        p->name = ncp_strdup(err, name);
        p->scene = ncp_strdup(err, path);
        p->driver = ncp_strdup(err, "");
        if (!p->name || !p->scene || !p->driver) rc = NCP_ERR_NOMEM;
        p->step = -1;
        p->case_index = -1;
    }
    if (!rc) rc = ncp_problem_note(p, err, "read as Siconos %s by libsiconos-numerics", kind_name[kind]);
    if (!rc) rc = ncp_problem_validate(p, path, err); /* before M is factorised */
    if (!rc && !p->has_dual) {
        rc = ncp_problem_compute_dual_sparse(p, NULL, err);
        if (rc == NCP_ERR_NUMERIC) rc = err->code = NCP_ERR_INPUT; /* M not SPD: the file is wrong */
        if (rc) ncp_error_prefix(err, "%s: M: ", path);
    }
    if (!rc) {
        rc = ncp_problem_complete(p, 0, err); /* a local problem stays dual-only */
        if (rc) ncp_error_prefix(err, "%s: ", path);
    }
    if (!rc) rc = ncp_problem_validate(p, path, err);
    return rc;
}

/* Plain data (util/isolate.h ncp_isolated_run_data: copied to the child, which the spawner
 * makes when the run has one) */
typedef struct trial_ctx {
    int kind;
    double budget, sym_tol;
    char path[]; /* NUL-terminated */
} trial_ctx;

static int trial_read(void *ctx, ncp_error *err)
{
    const trial_ctx *t = ctx;
    ncp_problem p;
    ncp_problem_init(&p);
    int rc = read_kind(t->path, "trial", t->kind, t->budget, t->sym_tol, &p, err);
    ncp_problem_free(&p);
    return rc;
}

/* Room for Siconos's own copies of the matrices beside ours. */
#define NCP_DAT_SLACK (256.0 * 1048576.0)

/* Both kinds begin with the dimension, the contact count and their first matrix (W or M) as
 * Siconos writes a NumericsMatrix: storage, rows, columns. Stored dense (storage 0), Siconos
 * allocates rows x columns doubles for it, unchecked (a failed allocation crashes it): refused
 * here first when the budget cannot hold them. */
static int check_first_matrix(const char *path, double budget, ncp_error *err)
{
    FILE *f = fopen(path, "r");
    long v[5];
    int got = 0;
    if (f) {
        while (got < 5 && fscanf(f, "%ld", &v[got]) == 1) got++;
        fclose(f);
    }
    if (got < 5 || v[2] != 0 || v[3] <= 0 || v[4] <= 0) return NCP_OK; /* the readers judge it */
    char what[1200];
    snprintf(what, sizeof what, "%s: its first matrix (W or M, %ld x %ld, stored dense), as "
             "Siconos numerics reads it,", path, v[3], v[4]);
    return ncp_mem_check(budget, 8.0 * (double)v[3] * (double)v[4], what, err);
}

int ncp_siconos_dat_read(const char *path, const char *name, double budget, double sym_tol,
                         ncp_problem *p, ncp_error *err)
{
    ncp_error why[2];
    memset(why, 0, sizeof why);
    int rc0 = check_first_matrix(path, budget, err);
    if (rc0) return rc0;
    const size_t len = strlen(path) + 1, bytes = sizeof(trial_ctx) + len;
    trial_ctx *t = ncp_malloc(err, 1, bytes);
    if (!t) return NCP_ERR_NOMEM;
    t->budget = budget;
    t->sym_tol = sym_tol;
    memcpy(t->path, path, len);
    int kind = -1;
    for (int k = DAT_LOCAL; k <= DAT_GLOBAL && kind < 0; k++) {
        t->kind = k;
        int code = 0;
        ncp_error child;
        memset(&child, 0, sizeof child);
        int rc = ncp_isolated_run_data(trial_read, t, bytes, path,
                                       ncp_mem_budget_or_default(budget) + NCP_DAT_SLACK, &code,
                                       &child, &why[k]);
        if (rc) continue; /* killed by a signal: why[k] says so */
        if (code == 0 || code == -1) kind = k; /* -1: no child could be made, read here */
        else if (code == NCP_ISOLATED_SANITIZER) ncp_isolated_crash(path, &why[k]);
        else ncp_error_set(&why[k], code, "%s", child.msg[0] ? child.msg : "reading failed");
    }
    free(t);
    /* our own allocation failed in a trial: under --max-memory's cap, the budget's refusal */
    for (int k = DAT_LOCAL; k <= DAT_GLOBAL && kind < 0; k++)
        if (why[k].code == NCP_ERR_NOMEM && ncp_mem_address_limit() > 0.0) {
            char what[1100];
            snprintf(what, sizeof what, "reading %s as %s", path, kind_name[k]);
            return ncp_mem_refuse(budget, what, why[k].msg, err);
        }
    /* Siconos does not check its allocations: under a cap, a crash may be the budget's */
    char bb[32];
    if (kind < 0 && ncp_mem_address_limit() > 0.0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: not a problem Siconos numerics can read "
                             "within the memory budget of %s (read as %s: %s; read as %s: %s); "
                             "Siconos does not check its allocations, so a crash can also mean "
                             "the budget is too small: raise it with --max-memory to tell",
                             path, ncp_mem_format(ncp_mem_budget_or_default(budget), bb, sizeof bb),
                             kind_name[DAT_LOCAL], why[DAT_LOCAL].msg, kind_name[DAT_GLOBAL],
                             why[DAT_GLOBAL].msg);
    if (kind < 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: not a problem Siconos numerics can read (read as %s: %s; read as %s: %s)",
                             path, kind_name[DAT_LOCAL], why[DAT_LOCAL].msg, kind_name[DAT_GLOBAL], why[DAT_GLOBAL].msg);
    return read_kind(path, name, kind, budget, sym_tol, p, err);
}

#else

int ncp_siconos_dat_read(const char *path, const char *name, double budget, double sym_tol,
                         ncp_problem *p, ncp_error *err)
{
    (void)name;
    (void)budget;
    (void)sym_tol;
    (void)p;
    return ncp_error_set(err, NCP_ERR_INPUT, "%s: a Siconos .dat problem, which ncpbench reads through Siconos numerics: "
                         "this build has none (rebuild with -Dsiconos=enabled after apt-get install libsiconos-numerics-dev)",
                         path);
}

#endif
