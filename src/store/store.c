/* problems.h5 (docs/design.md "HDF5 layout", store.h): writer, reader of our own layout and
 * the file-kind dispatch of ncp_load_problems (HDF5 helpers: h5util.h).
 *
 * Layout details that store.h leaves open, fixed here:
 *   - dense matrices (primal/A, dual/D) are 2-D datasets (rows, cols) holding the matrix itself
 *     as numpy/h5py show it (our memory is column-major; we transpose on write and read, which
 *     moves bits and never rounds);
 *   - primal/J is an FCLib CSR matrix group (nz = -2, p = row pointers, i = column indices);
 *     so is primal/A for a problem whose A is kept sparse (has_sparse_primal: the simulator's
 *     block route for many free bodies, sim/dynamics.h, or an FCLib global problem's M), where
 *     the reader tells the two forms apart by the object type (dataset: dense A);
 *   - blocks/contact (int) is stored beside blocks/{type,row,mu,k,c,phi} so that the block ->
 *     contact index survives a round trip; an absent blocks/contact numbers contacts in order;
 *   - contacts/point is (nc, 3), contacts/frame is (nc, 3, 3) with rows n, t1, t2,
 *     contacts/body is (nc, 2); contacts/stiffness and contacts/dissipation (nc) hold the
 *     compliant model's k and tau_d (problem.h; 0 = rigid / none), optional on reading (files
 *     written before they existed read as 0, the defaults);
 *   - structure/: sub_dof_start, sub_ndof [nsub]; body_subsystem, body_ndof [nbodies];
 *     body_M (nbodies, 6, 6) as the matrices themselves; body_Jb = the 6 x ndof blocks J_{b,j}
 *     concatenated, each in column-major order, body b at [body_Jb_offset[b],
 *     body_Jb_offset[b+1]); link_block, link_body [nlinks]; link_Jib = the (block rows) x 6
 *     blocks J_{i,b} concatenated column-major, with link_Jib_offset [nlinks + 1];
 *     dof_diag [nv] (the joint-space diagonal of A, structure.dof_diag), optional on reading
 *     (absent: zero);
 *   - guesses/: the state the problem starts from (problem.h guess_lambda, guess_v), in FCLib's
 *     /guesses layout (number_of_guesses = 1, group 1) with one difference: guesses/1/lambda
 *     holds all m rows in our row order (FCLib splits them into l and r; `export --fclib` does),
 *     guesses/1/v the nv velocities; either may be absent, and so may the group (files written
 *     before it existed: no guess);
 *   - /problems tracks link creation order, and problems are read back in that order;
 *   - datasets of at least NCP_H5_COMPRESS_MIN bytes are chunked and compressed (shuffle +
 *     deflate, h5util.h) when the HDF5 library can encode deflate; files written before that
 *     (contiguous, with dual/ beside primal/) read the same way.
 * dual/ is written only for a problem without primal data, or whose D / v_f are not bitwise
 * what ncp_problem_compute_dual gives from its primal data (checked when writing); otherwise
 * the reader rebuilds them with that function (ncp_problem_complete), bit for bit the
 * capture's on the same build. fclib_local / fclib_global are written only when asked
 * (ncp_store_set_fclib_groups) and only for problems with at least one contact (FCLib has no
 * meaning for an empty or bilateral-only problem); they are ignored on reading our own files
 * because our groups are complete. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "ncp_config.h"
#include "store/fclib_io.h"
#include "store/siconos_dat.h"
#include "store/h5util.h"
#include "store/store.h"
#include "util/isolate.h"
#include "util/membudget.h"

#define jpath ncp_h5_path

/* ======================================================================================== */
/* problems.h5 writer                                                                       */
/* ======================================================================================== */

struct ncp_store {
    hid_t file;
    hid_t problems;
    char *path;
    char *tmp;
    int fclib_groups; /* ncp_store_set_fclib_groups */
};

static char *tmp_name(const char *path, ncp_error *err)
{
    size_t n = strlen(path) + 48;
    char *t = ncp_malloc(err, n, 1);
    if (t) snprintf(t, n, "%s.tmp-%ld", path, (long)getpid());
    return t;
}

int ncp_store_create(const char *path, const char *scene_name, const char *scene_json,
                     uint64_t seed, ncp_store **out, ncp_error *err)
{
    ncp_h5_quiet();
    *out = NULL;
    ncp_store *st = ncp_calloc(err, 1, sizeof *st);
    if (!st) return NCP_ERR_NOMEM;
    st->file = st->problems = -1;
    st->path = ncp_strdup(err, path);
    st->tmp = tmp_name(path, err);
    if (!st->path || !st->tmp) {
        ncp_store_abort(st);
        return NCP_ERR_NOMEM;
    }
    ncp_h5ctx c = {.file = st->tmp, .err = err};
    st->file = ncp_h5_create_file_compressed(st->tmp);
    if (st->file < 0) {
        ncp_error_set(err, NCP_ERR_IO, "cannot create %s (does the directory exist and is it writable?)", st->tmp);
        ncp_store_abort(st);
        return NCP_ERR_IO;
    }
    hid_t meta = -1, gcpl = -1;
    int rc = ncp_h5_group(&c, st->file, "/", "meta", &meta);
    if (!rc) rc = ncp_h5_attr_str(&c, meta, "/meta", "ncpbench_version", NCP_VERSION);
    if (!rc) rc = ncp_h5_attr_str(&c, meta, "/meta", "scene", scene_json);
    if (!rc) rc = ncp_h5_attr_str(&c, meta, "/meta", "scene_name", scene_name);
    if (!rc) rc = ncp_h5_attr_u64(&c, meta, "/meta", "seed", seed);
    if (meta >= 0) H5Gclose(meta);
    if (!rc) {
        /* track creation order so problems load back in capture order whatever their names */
        gcpl = ncp_h5_untimed_plist(H5P_GROUP_CREATE);
        if (gcpl < 0 || H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0)
            rc = ncp_h5_werr(&c, "create group", "/", "problems");
    }
    if (!rc) {
        st->problems = ncp_h5_reserve(st->file, 0) < 0 ? -1 : H5Gcreate2(st->file, "problems", H5P_DEFAULT, gcpl, H5P_DEFAULT);
        if (st->problems < 0) rc = ncp_h5_werr(&c, "create group", "/", "problems");
    }
    if (gcpl >= 0) H5Pclose(gcpl);
    if (rc) {
        ncp_store_abort(st);
        return rc;
    }
    *out = st;
    return NCP_OK;
}

void ncp_store_set_fclib_groups(ncp_store *st, int on)
{
    if (st) st->fclib_groups = on != 0;
}

static int all_rows_are(const ncp_problem *p, int allow_bilateral)
{
    for (int k = 0; k < p->nblocks; k++) {
        int t = p->blocks[k].type;
        if (t != NCP_CONTACT && !(allow_bilateral && t == NCP_BILATERAL)) return 0;
    }
    return 1;
}

static int check_name(const char *what, const char *name, ncp_error *err)
{
    if (!name || !name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s name \"%s\" is not usable as an HDF5 group name (empty, '.', or contains '/')",
                             what, name ? name : "(null)");
    return NCP_OK;
}

/* Checks the structure against the problem so that nothing out of range is written (and the
 * reader applies the same checks). */
static int check_structure(const ncp_problem *p, const ncp_structure *s, ncp_error *err)
{
    const char *nm = p->name;
    if (s->nsub < 0 || s->nbodies < 0 || s->nlinks < 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure has negative counts", nm);
    for (int j = 0; j < s->nsub; j++)
        if (s->sub_dof_start[j] < 0 || s->sub_ndof[j] < 0 || s->sub_dof_start[j] + s->sub_ndof[j] > p->nv)
            return ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure subsystem %d has dofs [%d, %d+%d) outside [0, nv = %d)",
                                 nm, j, s->sub_dof_start[j], s->sub_dof_start[j], s->sub_ndof[j], p->nv);
    for (int b = 0; b < s->nbodies; b++) {
        const ncp_structure_body *B = &s->bodies[b];
        if (B->subsystem < 0 || B->subsystem >= s->nsub || B->ndof != s->sub_ndof[B->subsystem] ||
            (B->ndof > 0 && !B->Jb))
            return ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure body %d: subsystem %d / ndof %d inconsistent (or Jb missing)",
                                 nm, b, B->subsystem, B->ndof);
    }
    if (s->dof_diag && !ncp_all_finite(p->nv, s->dof_diag))
        return ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure dof_diag is not finite", nm);
    for (int l = 0; l < s->nlinks; l++) {
        const ncp_structure_link *L = &s->links[l];
        if (L->block < 0 || L->block >= p->nblocks || L->body < 0 || L->body >= s->nbodies || !L->Jib)
            return ncp_error_set(err, NCP_ERR_INPUT, "problem %s: structure link %d: block %d / body %d out of range (or Jib missing)",
                                 nm, l, L->block, L->body);
    }
    return NCP_OK;
}

static int write_structure(const ncp_h5ctx *c, hid_t pg, const char *pp, const ncp_problem *p)
{
    const ncp_structure *s = p->structure;
    char sp[512];
    jpath(sp, sizeof sp, pp, "structure");
    int nb = s->nbodies, nl = s->nlinks;
    size_t njb = 0, nji = 0;
    for (int b = 0; b < nb; b++) njb += 6 * (size_t)s->bodies[b].ndof;
    for (int l = 0; l < nl; l++) nji += 6 * (size_t)ncp_block_type_size(p->blocks[s->links[l].block].type);
    if (njb > INT_MAX || nji > INT_MAX)
        return ncp_error_set(c->err, NCP_ERR_INPUT, "problem %s: structure too large", p->name);
    int *ib = ncp_malloc(c->err, (size_t)nb + 1, sizeof(int) * 3);
    int *il = ncp_malloc(c->err, (size_t)nl + 1, sizeof(int) * 3);
    double *M = ncp_malloc(c->err, (size_t)nb * 36, sizeof(double));
    double *Jb = ncp_malloc(c->err, njb, sizeof(double));
    double *Ji = ncp_malloc(c->err, nji, sizeof(double));
    hid_t g = -1;
    int rc = (!ib || !il || !M || !Jb || !Ji) ? NCP_ERR_NOMEM : NCP_OK;
    if (!rc) {
        int *bsub = ib, *bndof = ib + nb + 1, *boff = ib + 2 * (nb + 1);
        int *lblk = il, *lbody = il + nl + 1, *loff = il + 2 * (nl + 1);
        boff[0] = 0;
        for (int b = 0; b < nb; b++) {
            const ncp_structure_body *B = &s->bodies[b];
            bsub[b] = B->subsystem;
            bndof[b] = B->ndof;
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) M[36 * (size_t)b + 6 * i + j] = B->M[i + 6 * j];
            if (B->ndof > 0) memcpy(Jb + boff[b], B->Jb, 6 * (size_t)B->ndof * sizeof(double));
            boff[b + 1] = boff[b] + 6 * B->ndof;
        }
        loff[0] = 0;
        for (int l = 0; l < nl; l++) {
            const ncp_structure_link *L = &s->links[l];
            int sz = 6 * ncp_block_type_size(p->blocks[L->block].type);
            lblk[l] = L->block;
            lbody[l] = L->body;
            memcpy(Ji + loff[l], L->Jib, (size_t)sz * sizeof(double));
            loff[l + 1] = loff[l] + sz;
        }
        hsize_t dM[3] = {(hsize_t)nb, 6, 6};
        rc = ncp_h5_group(c, pg, pp, "structure", &g);
        if (!rc) rc = ncp_h5_attr_int(c, g, sp, "nsub", s->nsub);
        if (!rc) rc = ncp_h5_attr_int(c, g, sp, "nbodies", nb);
        if (!rc) rc = ncp_h5_attr_int(c, g, sp, "nlinks", nl);
        if (!rc) rc = ncp_h5_write_ivec(c, g, sp, "sub_dof_start", s->nsub, s->sub_dof_start);
        if (!rc) rc = ncp_h5_write_ivec(c, g, sp, "sub_ndof", s->nsub, s->sub_ndof);
        if (!rc) rc = ncp_h5_write_ivec(c, g, sp, "body_subsystem", nb, bsub);
        if (!rc) rc = ncp_h5_write_ivec(c, g, sp, "body_ndof", nb, bndof);
        if (!rc) rc = ncp_h5_write_darr(c, g, sp, "body_M", 3, dM, M);
        if (!rc) rc = ncp_h5_write_dvec(c, g, sp, "body_Jb", (int)njb, Jb);
        if (!rc) rc = ncp_h5_write_ivec(c, g, sp, "body_Jb_offset", nb + 1, boff);
        if (!rc) rc = ncp_h5_write_ivec(c, g, sp, "link_block", nl, lblk);
        if (!rc) rc = ncp_h5_write_ivec(c, g, sp, "link_body", nl, lbody);
        if (!rc) rc = ncp_h5_write_dvec(c, g, sp, "link_Jib", (int)nji, Ji);
        if (!rc) rc = ncp_h5_write_ivec(c, g, sp, "link_Jib_offset", nl + 1, loff);
        if (!rc && s->dof_diag) rc = ncp_h5_write_dvec(c, g, sp, "dof_diag", p->nv, s->dof_diag);
    }
    if (g >= 0) H5Gclose(g);
    free(ib);
    free(il);
    free(M);
    free(Jb);
    free(Ji);
    return rc;
}

static int write_guess(const ncp_h5ctx *c, hid_t pg, const char *pp, const ncp_problem *p)
{
    char gp[512], g1p[512];
    jpath(gp, sizeof gp, pp, "guesses");
    jpath(g1p, sizeof g1p, gp, "1");
    hid_t g = -1, g1 = -1;
    int rc = ncp_h5_group(c, pg, pp, "guesses", &g);
    if (!rc) rc = ncp_h5_write_int1(c, g, gp, "number_of_guesses", 1);
    if (!rc) rc = ncp_h5_group(c, g, gp, "1", &g1);
    if (!rc && p->guess_lambda && p->m > 0)
        rc = ncp_h5_write_dvec(c, g1, g1p, "lambda", p->m, p->guess_lambda);
    if (!rc && p->guess_v && p->nv > 0) rc = ncp_h5_write_dvec(c, g1, g1p, "v", p->nv, p->guess_v);
    if (g1 >= 0) H5Gclose(g1);
    if (g >= 0) H5Gclose(g);
    return rc;
}

static int read_guess(const ncp_h5ctx *c, hid_t pg, const char *pp, int m, int nv, ncp_problem *p)
{
    char gp[512], g1p[512];
    jpath(gp, sizeof gp, pp, "guesses");
    jpath(g1p, sizeof g1p, gp, "1");
    hid_t g = -1, g1 = -1;
    int count = 1, rc = ncp_h5_open_group(c, pg, pp, "guesses", &g);
    if (!rc && ncp_h5_exists(g, "number_of_guesses"))
        rc = ncp_h5_read_int1(c, g, gp, "number_of_guesses", &count);
    if (!rc && count < 0) rc = ncp_h5_rerr(c, gp, "number_of_guesses", "is %d (negative)", count);
    if (!rc && count > 0) rc = ncp_h5_open_group(c, g, gp, "1", &g1);
    if (!rc && count > 0 && m > 0 && ncp_h5_exists(g1, "lambda"))
        rc = ncp_h5_read_dvec(c, g1, g1p, "lambda", m, &p->guess_lambda, NULL);
    if (!rc && count > 0 && nv > 0 && ncp_h5_exists(g1, "v"))
        rc = ncp_h5_read_dvec(c, g1, g1p, "v", nv, &p->guess_v, NULL);
    if (g1 >= 0) H5Gclose(g1);
    if (g >= 0) H5Gclose(g);
    return rc;
}

static int write_problem(const ncp_h5ctx *c, hid_t pg, const char *pp, const ncp_problem *p,
                         int fclib_groups)
{
    int m = p->m, nb = p->nblocks, nc = p->ncontacts;
    int fclib = fclib_groups && nc > 0; /* FCLib has no meaning without a contact */
    char sub[512];
    hid_t g = -1;
    int rc = NCP_OK;
    rc = ncp_h5_attr_int(c, pg, pp, "nv", p->nv);
    if (!rc) rc = ncp_h5_attr_int(c, pg, pp, "m", m);
    if (!rc) rc = ncp_h5_attr_int(c, pg, pp, "nblocks", nb);
    if (!rc) rc = ncp_h5_attr_int(c, pg, pp, "ncontacts", nc);
    if (!rc) rc = ncp_h5_attr_double(c, pg, pp, "h", p->h);
    if (!rc) rc = ncp_h5_attr_str(c, pg, pp, "scene", p->scene);
    if (!rc) rc = ncp_h5_attr_int(c, pg, pp, "step", p->step);
    if (!rc) rc = ncp_h5_attr_int(c, pg, pp, "case_index", p->case_index);
    if (!rc) rc = ncp_h5_attr_u64(c, pg, pp, "seed", p->seed);
    if (!rc) rc = ncp_h5_attr_str(c, pg, pp, "driver", p->driver);
    if (rc) return rc;

    /* blocks/ */
    int *iv = ncp_malloc(c->err, (size_t)nb, 3 * sizeof(int));
    double *dv = ncp_malloc(c->err, (size_t)nb, 4 * sizeof(double));
    if (!iv || !dv) rc = NCP_ERR_NOMEM;
    if (!rc) {
        int *type = iv, *row = iv + nb, *con = iv + 2 * nb;
        double *mu = dv, *k = dv + nb, *cc = dv + 2 * nb, *phi = dv + 3 * nb;
        for (int b = 0; b < nb; b++) {
            type[b] = p->blocks[b].type;
            row[b] = p->blocks[b].row;
            con[b] = p->blocks[b].contact;
            mu[b] = p->blocks[b].mu;
            k[b] = p->blocks[b].k;
            cc[b] = p->blocks[b].c;
            phi[b] = p->blocks[b].phi;
        }
        jpath(sub, sizeof sub, pp, "blocks");
        rc = ncp_h5_group(c, pg, pp, "blocks", &g);
        if (!rc) rc = ncp_h5_write_ivec(c, g, sub, "type", nb, type);
        if (!rc) rc = ncp_h5_write_ivec(c, g, sub, "row", nb, row);
        if (!rc) rc = ncp_h5_write_ivec(c, g, sub, "contact", nb, con);
        if (!rc) rc = ncp_h5_write_dvec(c, g, sub, "mu", nb, mu);
        if (!rc) rc = ncp_h5_write_dvec(c, g, sub, "k", nb, k);
        if (!rc) rc = ncp_h5_write_dvec(c, g, sub, "c", nb, cc);
        if (!rc) rc = ncp_h5_write_dvec(c, g, sub, "phi", nb, phi);
        if (g >= 0) H5Gclose(g);
        g = -1;
    }
    free(iv);
    free(dv);
    if (rc) return rc;

    if (p->has_primal || p->has_sparse_primal) {
        jpath(sub, sizeof sub, pp, "primal");
        ncp_h5_sparse J = {-2, p->J.m, p->J.n, p->J.nnz, p->J.rowptr, p->J.col, p->J.val};
        ncp_h5_sparse As = {-2, p->A_sparse.m, p->A_sparse.n, p->A_sparse.nnz, p->A_sparse.rowptr,
                            p->A_sparse.col, p->A_sparse.val};
        rc = ncp_h5_group(c, pg, pp, "primal", &g);
        if (!rc && p->has_primal) rc = ncp_h5_write_dmat(c, g, sub, "A", p->nv, p->nv, p->A);
        else if (!rc) rc = ncp_h5_write_sparse(c, g, sub, "A", &As); /* sparse: J's CSR layout */
        if (!rc) rc = ncp_h5_write_dvec(c, g, sub, "b", p->nv, p->b);
        if (!rc) rc = ncp_h5_write_dvec(c, g, sub, "e", m, p->e);
        if (!rc) rc = ncp_h5_write_sparse(c, g, sub, "J", &J);
        if (g >= 0) H5Gclose(g);
        g = -1;
        if (rc) return rc;
    }

    /* dual/ only when the primal data do not define D and v_f: a problem without primal data,
     * or one whose D or v_f differ in any bit from what ncp_problem_compute_dual (the function
     * the capture and the reader use) gives from its primal data. The reader recomputes them
     * from primal/ with that function, so a reloaded D is bitwise the captured one. */
    const double *D = p->has_dual ? p->D : NULL, *vf = p->has_dual ? p->vf : NULL;
    double *Dp = NULL, *vfp = NULL;
    const int primal = p->has_primal || p->has_sparse_primal;
    int write_dual = p->has_dual && !primal;
    /* a D to compare with what the primal data give, or FCLib's local group (W) to write: the
     * one from the primal data (a problem that keeps none builds nothing else here) */
    if (primal && (p->has_dual || (fclib && all_rows_are(p, 0)))) {
        const size_t mm = (size_t)m * m;
        Dp = ncp_malloc(c->err, mm > 0 ? mm : 1, sizeof(double));
        vfp = ncp_malloc(c->err, m > 0 ? m : 1, sizeof(double));
        rc = Dp && vfp ? ncp_problem_derive(p, Dp, vfp, c->err) : NCP_ERR_NOMEM;
        if (rc && rc != NCP_ERR_NOMEM && p->has_dual) { /* A not factorisable: keep D */
            ncp_error_clear(c->err);
            rc = NCP_OK;
            write_dual = 1;
        } else if (!rc && p->has_dual) {
            write_dual = memcmp(Dp, p->D, (size_t)m * m * sizeof(double)) != 0 ||
                         memcmp(vfp, p->vf, (size_t)m * sizeof(double)) != 0;
        } else if (!rc) {
            D = Dp;
            vf = vfp;
        }
    }
    if (!rc && write_dual) {
        jpath(sub, sizeof sub, pp, "dual");
        rc = ncp_h5_group(c, pg, pp, "dual", &g);
        if (!rc) rc = ncp_h5_write_dmat(c, g, sub, "D", m, m, p->D);
        if (!rc) rc = ncp_h5_write_dvec(c, g, sub, "vf", m, p->vf);
        if (g >= 0) H5Gclose(g);
        g = -1;
    }

    if (!rc && nc > 0 && p->contacts) {
        double *gap = ncp_malloc(c->err, (size_t)nc, sizeof(double));
        double *pt = ncp_malloc(c->err, (size_t)nc, 3 * sizeof(double));
        double *fr = ncp_malloc(c->err, (size_t)nc, 9 * sizeof(double));
        int *body = ncp_malloc(c->err, (size_t)nc, 2 * sizeof(int));
        double *stiff = ncp_malloc(c->err, (size_t)nc, sizeof(double));
        double *diss = ncp_malloc(c->err, (size_t)nc, sizeof(double));
        if (!gap || !pt || !fr || !body || !stiff || !diss) rc = NCP_ERR_NOMEM;
        for (int k = 0; !rc && k < nc; k++) {
            const ncp_contact_info *ci = &p->contacts[k];
            gap[k] = ci->gap;
            stiff[k] = isinf(ci->stiffness) ? 0.0 : ci->stiffness; /* both mean rigid */
            diss[k] = ci->dissipation;
            memcpy(pt + 3 * k, ci->point, sizeof ci->point);
            memcpy(fr + 9 * k, ci->frame, sizeof ci->frame); /* row-major rows n, t1, t2 */
            body[2 * k] = ci->body[0];
            body[2 * k + 1] = ci->body[1];
        }
        hsize_t d2[2] = {(hsize_t)nc, 3}, d3[3] = {(hsize_t)nc, 3, 3}, db[2] = {(hsize_t)nc, 2};
        jpath(sub, sizeof sub, pp, "contacts");
        if (!rc) rc = ncp_h5_group(c, pg, pp, "contacts", &g);
        if (!rc) rc = ncp_h5_write_dvec(c, g, sub, "gap", nc, gap);
        if (!rc) rc = ncp_h5_write_darr(c, g, sub, "point", 2, d2, pt);
        if (!rc) rc = ncp_h5_write_darr(c, g, sub, "frame", 3, d3, fr);
        if (!rc) rc = ncp_h5_write_iarr(c, g, sub, "body", 2, db, body);
        if (!rc) rc = ncp_h5_write_dvec(c, g, sub, "stiffness", nc, stiff);
        if (!rc) rc = ncp_h5_write_dvec(c, g, sub, "dissipation", nc, diss);
        if (g >= 0) H5Gclose(g);
        g = -1;
        free(stiff);
        free(diss);
        free(gap);
        free(pt);
        free(fr);
        free(body);
    }
    if (!rc && p->structure) rc = write_structure(c, pg, pp, p);
    if (!rc && (p->guess_lambda || p->guess_v)) rc = write_guess(c, pg, pp, p);
    if (!rc && fclib && all_rows_are(p, 0) && D)
        rc = ncp_fclib_write_local_group(c, pg, pp, p, D, vf, NULL);
    if (!rc && fclib && (p->has_primal || p->has_sparse_primal) && all_rows_are(p, 1))
        rc = ncp_fclib_write_global_group(c, pg, pp, p, NULL);
    free(Dp);
    free(vfp);
    return rc;
}

int ncp_store_append(ncp_store *st, const ncp_problem *p, ncp_error *err)
{
    ncp_h5_quiet();
    if (!st || st->problems < 0)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "ncp_store_append on a closed store");
    int rc = check_name("problem", p->name, err);
    if (rc) return rc;
    char where[600];
    snprintf(where, sizeof where, "problem %s (writing %s)", p->name, st->path);
    rc = ncp_problem_validate(p, where, err);
    if (!rc && !p->has_primal && !p->has_sparse_primal && !p->has_dual)
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: has neither primal nor dual data", where);
    if (!rc && p->structure) rc = check_structure(p, p->structure, err);
    if (rc) return rc;
    if (ncp_h5_exists(st->problems, p->name))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: a problem named %s is already stored", where, p->name);
    ncp_h5ctx c = {.file = st->tmp, .err = err};
    char pp[512];
    jpath(pp, sizeof pp, "/problems", p->name);
    hid_t g;
    rc = ncp_h5_group(&c, st->problems, "/problems", p->name, &g);
    if (rc) return rc;
    rc = write_problem(&c, g, pp, p, st->fclib_groups);
    H5Gclose(g);
    /* a failed append leaves no half-written group behind */
    if (rc) H5Ldelete(st->problems, p->name, H5P_DEFAULT);
    return rc;
}

static void store_free(ncp_store *st)
{
    free(st->path);
    free(st->tmp);
    free(st);
}

int ncp_store_close(ncp_store *st, ncp_error *err)
{
    ncp_h5_quiet();
    if (!st) return NCP_OK;
    int rc = NCP_OK;
    if (st->problems >= 0 && H5Gclose(st->problems) < 0) rc = NCP_ERR_IO;
    if (ncp_h5_close_file(st->file, rc != NCP_OK) < 0) rc = NCP_ERR_IO;
    st->file = -1;
    if (rc) {
        ncp_error_set(err, NCP_ERR_IO, "cannot finish writing %s (disk full?); %s not written", st->tmp, st->path);
        remove(st->tmp);
    } else if (rename(st->tmp, st->path) != 0) {
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot rename %s to %s: %s", st->tmp, st->path, strerror(errno));
        remove(st->tmp);
    }
    store_free(st);
    return rc;
}

void ncp_store_abort(ncp_store *st)
{
    ncp_h5_quiet();
    if (!st) return;
    if (st->problems >= 0) H5Gclose(st->problems);
    ncp_h5_close_file(st->file, 1);
    if (st->tmp) remove(st->tmp);
    store_free(st);
}

/* ======================================================================================== */
/* problems.h5 reader                                                                       */
/* ======================================================================================== */

static int read_structure(const ncp_h5ctx *c, hid_t pg, const char *pp, ncp_problem *p)
{
    char sp[512];
    jpath(sp, sizeof sp, pp, "structure");
    hid_t g;
    int rc = ncp_h5_open_group(c, pg, pp, "structure", &g);
    if (rc) return rc;
    int nsub = 0, nb = 0, nl = 0, n;
    int *bsub = NULL, *bndof = NULL, *boff = NULL, *lblk = NULL, *lbody = NULL, *loff = NULL;
    double *M = NULL, *Jb = NULL, *Ji = NULL;
    ncp_structure *s = NULL;
    rc = ncp_h5_read_attr_int(c, g, sp, "nsub", &nsub);
    if (!rc) rc = ncp_h5_read_attr_int(c, g, sp, "nbodies", &nb);
    if (!rc) rc = ncp_h5_read_attr_int(c, g, sp, "nlinks", &nl);
    if (!rc && (nsub < 0 || nb < 0 || nl < 0))
        rc = ncp_h5_rerr(c, sp, "", "negative counts nsub = %d, nbodies = %d, nlinks = %d", nsub, nb, nl);
    if (!rc) {
        s = ncp_calloc(c->err, 1, sizeof *s);
        if (!s) rc = NCP_ERR_NOMEM;
    }
    if (!rc) rc = ncp_h5_read_ivec(c, g, sp, "sub_dof_start", nsub, &s->sub_dof_start, NULL);
    if (!rc) rc = ncp_h5_read_ivec(c, g, sp, "sub_ndof", nsub, &s->sub_ndof, NULL);
    if (!rc) s->nsub = nsub;
    for (int j = 0; !rc && j < nsub; j++)
        if (s->sub_dof_start[j] < 0 || s->sub_ndof[j] < 0 || s->sub_dof_start[j] > p->nv - s->sub_ndof[j])
            rc = ncp_h5_rerr(c, sp, "sub_dof_start", "subsystem %d has dofs [%d, %d+%d) outside [0, nv = %d)",
                      j, s->sub_dof_start[j], s->sub_dof_start[j], s->sub_ndof[j], p->nv);
    if (!rc) rc = ncp_h5_read_ivec(c, g, sp, "body_subsystem", nb, &bsub, NULL);
    if (!rc) rc = ncp_h5_read_ivec(c, g, sp, "body_ndof", nb, &bndof, NULL);
    if (!rc) rc = ncp_h5_read_ivec(c, g, sp, "body_Jb_offset", (long)nb + 1, &boff, NULL);
    if (!rc) rc = ncp_h5_budget(c, sp, "body_M", "the bodies' mass matrices", (double)nb * 36 * sizeof(double));
    if (!rc) {
        M = ncp_malloc(c->err, (size_t)nb * 36, sizeof(double));
        if (!M) rc = NCP_ERR_NOMEM;
    }
    hsize_t dM[3] = {(hsize_t)nb, 6, 6};
    if (!rc) rc = ncp_h5_read_darr(c, g, sp, "body_M", 3, dM, M);
    if (!rc) rc = ncp_h5_read_dvec(c, g, sp, "body_Jb", -1, &Jb, &n);
    for (int b = 0; !rc && b < nb; b++) {
        if (bsub[b] < 0 || bsub[b] >= nsub)
            rc = ncp_h5_rerr(c, sp, "body_subsystem", "body %d: subsystem %d out of range [0, %d)", b, bsub[b], nsub);
        else if (bndof[b] != s->sub_ndof[bsub[b]])
            rc = ncp_h5_rerr(c, sp, "body_ndof", "body %d: ndof %d differs from its subsystem's %d", b, bndof[b], s->sub_ndof[bsub[b]]);
    }
    if (!rc && boff[0] != 0) rc = ncp_h5_rerr(c, sp, "body_Jb_offset", "offset[0] = %d, expected 0", boff[0]);
    for (int b = 0; !rc && b < nb; b++)
        if ((long)boff[b + 1] - boff[b] != 6L * bndof[b])
            rc = ncp_h5_rerr(c, sp, "body_Jb_offset", "body %d: block has %ld entries, expected 6 x ndof = %d", b, (long)boff[b + 1] - boff[b], 6 * bndof[b]);
    if (!rc && boff[nb] != n) rc = ncp_h5_rerr(c, sp, "body_Jb", "has %d entries, offsets say %d", n, boff[nb]);
    if (!rc) {
        s->bodies = ncp_calloc(c->err, (size_t)nb, sizeof *s->bodies);
        if (!s->bodies) rc = NCP_ERR_NOMEM;
    }
    for (int b = 0; !rc && b < nb; b++) {
        ncp_structure_body *B = &s->bodies[b];
        B->subsystem = bsub[b];
        B->ndof = bndof[b];
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) B->M[i + 6 * j] = M[36 * (size_t)b + 6 * i + j];
        B->Jb = ncp_malloc(c->err, 6 * (size_t)B->ndof, sizeof(double));
        if (!B->Jb) rc = NCP_ERR_NOMEM;
        else if (B->ndof > 0) memcpy(B->Jb, Jb + boff[b], 6 * (size_t)B->ndof * sizeof(double));
        s->nbodies = b + 1;
    }
    if (!rc) rc = ncp_h5_read_ivec(c, g, sp, "link_block", nl, &lblk, NULL);
    if (!rc) rc = ncp_h5_read_ivec(c, g, sp, "link_body", nl, &lbody, NULL);
    if (!rc) rc = ncp_h5_read_ivec(c, g, sp, "link_Jib_offset", (long)nl + 1, &loff, NULL);
    if (!rc) rc = ncp_h5_read_dvec(c, g, sp, "link_Jib", -1, &Ji, &n);
    for (int l = 0; !rc && l < nl; l++) {
        if (lblk[l] < 0 || lblk[l] >= p->nblocks)
            rc = ncp_h5_rerr(c, sp, "link_block", "link %d: block %d out of range [0, %d)", l, lblk[l], p->nblocks);
        else if (lbody[l] < 0 || lbody[l] >= nb)
            rc = ncp_h5_rerr(c, sp, "link_body", "link %d: body %d out of range [0, %d)", l, lbody[l], nb);
    }
    if (!rc && loff[0] != 0) rc = ncp_h5_rerr(c, sp, "link_Jib_offset", "offset[0] = %d, expected 0", loff[0]);
    for (int l = 0; !rc && l < nl; l++) {
        int want = 6 * ncp_block_type_size(p->blocks[lblk[l]].type);
        if ((long)loff[l + 1] - loff[l] != want)
            rc = ncp_h5_rerr(c, sp, "link_Jib_offset", "link %d: block has %ld entries, expected %d", l, (long)loff[l + 1] - loff[l], want);
    }
    if (!rc && loff[nl] != n) rc = ncp_h5_rerr(c, sp, "link_Jib", "has %d entries, offsets say %d", n, loff[nl]);
    if (!rc) {
        s->links = ncp_calloc(c->err, (size_t)nl, sizeof *s->links);
        if (!s->links) rc = NCP_ERR_NOMEM;
    }
    for (int l = 0; !rc && l < nl; l++) {
        ncp_structure_link *L = &s->links[l];
        int sz = loff[l + 1] - loff[l];
        L->block = lblk[l];
        L->body = lbody[l];
        L->Jib = ncp_malloc(c->err, (size_t)sz, sizeof(double));
        if (!L->Jib) rc = NCP_ERR_NOMEM;
        else memcpy(L->Jib, Ji + loff[l], (size_t)sz * sizeof(double));
        s->nlinks = l + 1;
    }
    if (!rc && ncp_h5_exists(g, "dof_diag")) {
        rc = ncp_h5_read_dvec(c, g, sp, "dof_diag", p->nv, &s->dof_diag, NULL);
        if (!rc && !ncp_all_finite(p->nv, s->dof_diag)) rc = ncp_h5_rerr(c, sp, "dof_diag", "has non-finite entries");
    }
    H5Gclose(g);
    free(bsub);
    free(bndof);
    free(boff);
    free(lblk);
    free(lbody);
    free(loff);
    free(M);
    free(Jb);
    free(Ji);
    if (s) {
        if (rc) ncp_structure_free(s);
        else p->structure = s;
    }
    return rc;
}

static int read_blocks(const ncp_h5ctx *c, hid_t pg, const char *pp, int m_attr, int nc_attr,
                       ncp_problem *p)
{
    char bp[512];
    jpath(bp, sizeof bp, pp, "blocks");
    hid_t g;
    int rc = ncp_h5_open_group(c, pg, pp, "blocks", &g);
    if (rc) return rc;
    int nb = 0;
    int *type = NULL, *row = NULL, *con = NULL;
    double *mu = NULL, *k = NULL, *cc = NULL, *phi = NULL;
    rc = ncp_h5_read_ivec(c, g, bp, "type", -1, &type, &nb);
    if (!rc) rc = ncp_h5_read_ivec(c, g, bp, "row", nb, &row, NULL);
    if (!rc && ncp_h5_exists(g, "contact")) rc = ncp_h5_read_ivec(c, g, bp, "contact", nb, &con, NULL);
    if (!rc) rc = ncp_h5_read_dvec(c, g, bp, "mu", nb, &mu, NULL);
    if (!rc) rc = ncp_h5_read_dvec(c, g, bp, "k", nb, &k, NULL);
    if (!rc) rc = ncp_h5_read_dvec(c, g, bp, "c", nb, &cc, NULL);
    if (!rc) rc = ncp_h5_read_dvec(c, g, bp, "phi", nb, &phi, NULL);
    /* mu: the range of ncp_problem_validate, checked here to name the dataset */
    for (int b = 0; !rc && b < nb; b++) {
        if (type[b] < NCP_BILATERAL || type[b] > NCP_SOFT)
            rc = ncp_h5_rerr(c, bp, "type", "type[%d] = %d is not a block type (0 bilateral, 1 unilateral, 2 contact, 3 soft)", b, type[b]);
        else if (type[b] == NCP_CONTACT && mu[b] < 0)
            rc = ncp_h5_rerr(c, bp, "mu", "friction coefficient mu[%d] = %g is negative", b, mu[b]);
        else if (type[b] == NCP_CONTACT && mu[b] > NCP_MU_MAX)
            rc = ncp_h5_rerr(c, bp, "mu", "friction coefficient mu[%d] = %g is above %g (core/problem.h NCP_MU_MAX)", b, mu[b], NCP_MU_MAX);
    }
    if (!rc) rc = ncp_problem_alloc_blocks(p, nb, c->err);
    if (!rc) {
        for (int b = 0; b < nb; b++) {
            p->blocks[b].type = type[b];
            p->blocks[b].mu = mu[b];
            p->blocks[b].k = k[b];
            p->blocks[b].c = cc[b];
            p->blocks[b].phi = phi[b];
        }
        ncp_problem_layout(p);
        int ci = 0;
        for (int b = 0; !rc && b < nb; b++) {
            if (row[b] != p->blocks[b].row)
                rc = ncp_h5_rerr(c, bp, "row", "row[%d] = %d, but the block sizes before it put it at %d", b, row[b], p->blocks[b].row);
            int want = type[b] == NCP_CONTACT ? ci++ : -1;
            p->blocks[b].contact = con ? con[b] : want;
            if (!rc && con && (type[b] == NCP_CONTACT ? (con[b] < 0 || con[b] >= nc_attr) : con[b] != -1))
                rc = ncp_h5_rerr(c, bp, "contact", "contact[%d] = %d is not a valid contact index", b, con[b]);
        }
    }
    if (!rc && p->m != m_attr)
        rc = ncp_h5_rerr(c, pp, "blocks", "blocks have %d rows, but the group's attribute m = %d", p->m, m_attr);
    if (!rc && p->ncontacts != nc_attr)
        rc = ncp_h5_rerr(c, pp, "blocks", "blocks have %d contacts, but the group's attribute ncontacts = %d", p->ncontacts, nc_attr);
    H5Gclose(g);
    free(type);
    free(row);
    free(con);
    free(mu);
    free(k);
    free(cc);
    free(phi);
    return rc;
}

static int read_contacts(const ncp_h5ctx *c, hid_t pg, const char *pp, ncp_problem *p)
{
    char cp[512];
    jpath(cp, sizeof cp, pp, "contacts");
    hid_t g;
    int rc = ncp_h5_open_group(c, pg, pp, "contacts", &g);
    if (rc) return rc;
    int nc = p->ncontacts;
    double *gap = NULL, *stiff = NULL, *diss = NULL, *pt = NULL, *fr = NULL;
    int *body = NULL;
    ncp_contact_info *ci = NULL;
    /* gap first: it proves that the file holds nc contacts before nc of everything is
     * allocated (h5util.h, bounded memory) */
    rc = ncp_h5_read_dvec(c, g, cp, "gap", nc, &gap, NULL);
    if (!rc) rc = ncp_h5_budget(c, pp, "contacts", "the contacts", (double)nc * (sizeof *ci + 14 * sizeof(double)));
    if (!rc) {
        pt = ncp_malloc(c->err, (size_t)nc, 3 * sizeof(double));
        fr = ncp_malloc(c->err, (size_t)nc, 9 * sizeof(double));
        body = ncp_malloc(c->err, (size_t)nc, 2 * sizeof(int));
        ci = ncp_calloc(c->err, (size_t)nc, sizeof *ci);
        if (!pt || !fr || !body || !ci) rc = NCP_ERR_NOMEM;
    }
    hsize_t d2[2] = {(hsize_t)nc, 3}, d3[3] = {(hsize_t)nc, 3, 3}, db[2] = {(hsize_t)nc, 2};
    if (!rc) rc = ncp_h5_read_darr(c, g, cp, "point", 2, d2, pt);
    if (!rc) rc = ncp_h5_read_darr(c, g, cp, "frame", 3, d3, fr);
    if (!rc) rc = ncp_h5_read_iarr(c, g, cp, "body", 2, db, body);
    if (!rc && ncp_h5_exists(g, "stiffness"))
        rc = ncp_h5_read_dvec(c, g, cp, "stiffness", nc, &stiff, NULL);
    if (!rc && ncp_h5_exists(g, "dissipation"))
        rc = ncp_h5_read_dvec(c, g, cp, "dissipation", nc, &diss, NULL);
    for (int k = 0; !rc && stiff && k < nc; k++)
        if (stiff[k] < 0.0)
            rc = ncp_h5_rerr(c, cp, "stiffness", "entry %d is %g (expected >= 0 N/m, 0 = rigid)", k,
                      stiff[k]);
    for (int k = 0; !rc && diss && k < nc; k++)
        if (diss[k] < 0.0)
            rc = ncp_h5_rerr(c, cp, "dissipation", "entry %d is %g (expected >= 0 s)", k, diss[k]);
    for (int k = 0; !rc && k < nc; k++) {
        ci[k].gap = gap[k];
        ci[k].stiffness = stiff ? stiff[k] : 0.0;
        ci[k].dissipation = diss ? diss[k] : 0.0;
        memcpy(ci[k].point, pt + 3 * k, sizeof ci[k].point);
        memcpy(ci[k].frame, fr + 9 * k, sizeof ci[k].frame);
        ci[k].body[0] = body[2 * k];
        ci[k].body[1] = body[2 * k + 1];
    }
    H5Gclose(g);
    free(gap);
    free(stiff);
    free(diss);
    free(pt);
    free(fr);
    free(body);
    if (rc) {
        free(ci);
    } else {
        free(p->contacts);
        p->contacts = ci;
    }
    return rc;
}

/* Replaces *dst (freeing what was there, in case ncp_problem_alloc_blocks allocated it). */
static void take(double **dst, double *src)
{
    free(*dst);
    *dst = src;
}

/* primal/A: a 2-D dataset (dense A), or an FCLib CSR matrix group (A kept sparse:
 * has_sparse_primal, the simulator's block route). */
static int primal_a_is_sparse(const ncp_h5ctx *c, hid_t g, const char *gpath, int *sparse)
{
    *sparse = 0;
    if (!ncp_h5_exists(g, "A")) return ncp_h5_rerr(c, gpath, "A", "is missing");
    hid_t o = H5Oopen(g, "A", H5P_DEFAULT);
    if (o < 0) return ncp_h5_rerr(c, gpath, "A", "cannot be opened");
    *sparse = H5Iget_type(o) == H5I_GROUP;
    H5Oclose(o);
    return NCP_OK;
}

/* An FCLib sparse matrix group as a rows x cols CSR. */
static int read_csr(const ncp_h5ctx *c, hid_t g, const char *gpath, const char *name, int rows,
                    int cols, ncp_csr *out)
{
    ncp_h5_triplets T = {0};
    int rc = ncp_h5_read_sparse(c, g, gpath, name, &T);
    if (!rc && (T.m != rows || T.n != cols))
        rc = ncp_h5_rerr(c, gpath, name, "is %d x %d, expected %d x %d", T.m, T.n, rows, cols);
    if (!rc) {
        const ncp_h5_triplets *L[1] = {&T};
        int tr[1] = {0}, r0[1] = {0};
        ncp_csr_free(out);
        rc = ncp_h5_csr_from_triplets(rows, cols, 1, L, tr, r0, out, c->err);
    }
    ncp_h5_triplets_free(&T);
    return rc;
}

static int finish_ours(const ncp_h5ctx *c, const char *pp, ncp_problem *p);

static int read_ours_problem(const ncp_h5ctx *c, hid_t problems, const char *name, ncp_problem *p)
{
    char pp[512];
    jpath(pp, sizeof pp, "/problems", name);
    hid_t pg, g = -1;
    int rc = ncp_h5_open_group(c, problems, "/problems", name, &pg);
    if (rc) return rc;
    int nv = 0, m = 0, nc = 0;
    p->name = ncp_strdup(c->err, name);
    if (!p->name) rc = NCP_ERR_NOMEM;
    if (!rc) rc = ncp_h5_read_attr_int(c, pg, pp, "nv", &nv);
    if (!rc) rc = ncp_h5_read_attr_int(c, pg, pp, "m", &m);
    if (!rc) rc = ncp_h5_read_attr_int(c, pg, pp, "ncontacts", &nc);
    if (!rc && (nv < 0 || m < 0 || nc < 0))
        rc = ncp_h5_rerr(c, pp, "", "negative size attribute (nv = %d, m = %d, ncontacts = %d)", nv, m, nc);
    if (!rc) rc = ncp_h5_read_attr_double(c, pg, pp, "h", &p->h);
    if (!rc) rc = ncp_h5_read_attr_str(c, pg, pp, "scene", &p->scene);
    if (!rc) rc = ncp_h5_read_attr_int(c, pg, pp, "step", &p->step);
    if (!rc) rc = ncp_h5_read_attr_int(c, pg, pp, "case_index", &p->case_index);
    if (!rc) rc = ncp_h5_read_attr_u64(c, pg, pp, "seed", &p->seed);
    if (!rc) rc = ncp_h5_read_attr_str(c, pg, pp, "driver", &p->driver);
    if (!rc) rc = read_blocks(c, pg, pp, m, nc, p);
    if (rc) goto done;

    char sub[512];
    if (ncp_h5_exists(pg, "primal")) {
        jpath(sub, sizeof sub, pp, "primal");
        p->nv = nv;
        double *v = NULL;
        int sparse_a = 0;
        rc = ncp_h5_open_group(c, pg, pp, "primal", &g);
        if (!rc) rc = primal_a_is_sparse(c, g, sub, &sparse_a);
        if (!rc && !sparse_a) rc = ncp_h5_read_dmat(c, g, sub, "A", nv, nv, &v);
        if (!rc && !sparse_a) take(&p->A, v);
        if (!rc && sparse_a) rc = read_csr(c, g, sub, "A", nv, nv, &p->A_sparse);
        if (!rc) rc = ncp_h5_read_dvec(c, g, sub, "b", nv, &v, NULL);
        if (!rc) take(&p->b, v);
        if (!rc) rc = ncp_h5_read_dvec(c, g, sub, "e", m, &v, NULL);
        if (!rc) take(&p->e, v);
        if (!rc) rc = read_csr(c, g, sub, "J", m, nv, &p->J);
        if (g >= 0) H5Gclose(g);
        g = -1;
        if (rc) goto done;
        p->has_primal = !sparse_a;
        p->has_sparse_primal = sparse_a;
    }
    if (ncp_h5_exists(pg, "dual")) {
        jpath(sub, sizeof sub, pp, "dual");
        double *v = NULL;
        rc = ncp_h5_open_group(c, pg, pp, "dual", &g);
        if (!rc) rc = ncp_h5_read_dmat(c, g, sub, "D", m, m, &v);
        if (!rc) take(&p->D, v);
        if (!rc) rc = ncp_h5_read_dvec(c, g, sub, "vf", m, &v, NULL);
        if (!rc) take(&p->vf, v);
        if (g >= 0) H5Gclose(g);
        g = -1;
        if (rc) goto done;
        p->has_dual = 1;
    }
    if (ncp_h5_exists(pg, "contacts")) rc = read_contacts(c, pg, pp, p);
    if (!rc && ncp_h5_exists(pg, "structure")) {
        if (!p->has_primal && !p->has_sparse_primal)
            rc = ncp_h5_rerr(c, pp, "structure", "structure without primal/ data");
        else
            rc = read_structure(c, pg, pp, p);
    }
    if (!rc && ncp_h5_exists(pg, "guesses"))
        rc = read_guess(c, pg, pp, m, (p->has_primal || p->has_sparse_primal) ? nv : 0, p);
    if (rc) goto done;
    if (!p->has_primal && !p->has_sparse_primal && !p->has_dual) {
        rc = ncp_h5_rerr(c, pp, "", "has neither a primal/ nor a dual/ group");
        goto done;
    }
    if (!c->raw) rc = finish_ours(c, pp, p);
done:
    H5Gclose(pg);
    return rc;
}

/* The part of reading one of our problems after the data (group pp): derived data within the
 * budget, checks. */
static int finish_ours(const ncp_h5ctx *c, const char *pp, ncp_problem *p)
{
    int m = p->m, nv = p->nv, rc;
    /* what completing it allocates: D = J A^-1 J^T (m x m) with the factor of A (nv x nv) and
     * A^-1 J^T (nv x m), or, dual-only, a primal form from D's eigendecomposition (3 m x m) */
    /* what completing it allocates: v_f = J A^-1 b + e with the factor of A (nv x nv, or
     * A_sparse's blocks), never D (built on demand, core/problem.h); or, dual-only, a primal
     * form from D's eigendecomposition (3 m x m) */
    double need = p->has_dual ? 0.0 : 8.0 * ((double)nv * nv + 2.0 * nv + m);
    if (p->has_sparse_primal && !p->has_dual)
        need = 8.0 * ((double)p->A_sparse.nnz + 2.0 * nv + m);
    else if (!p->has_primal && !p->has_sparse_primal)
        need = 8.0 * 3.0 * (double)m * m;
    rc = ncp_h5_budget(c, pp, "", p->has_dual ? "its primal form from D" : "v_f = J A^-1 b + e",
                       need);
    if (rc) return rc;
    /* the values checked before anything is computed from them (J's indices above all) */
    char where[700];
    snprintf(where, sizeof where, "%s:%s", c->file, pp);
    if ((rc = ncp_problem_validate(p, where, c->err))) return rc;
    rc = ncp_problem_complete(p, 1, c->err); /* also sets dual_symmetric from D */
    if (rc) ncp_error_prefix(c->err, "%s: %s: ", c->file, pp);
    return rc;
}

/* Problem names of /problems in creation order (by name when the order was not tracked). */
static int list_problems(const ncp_h5ctx *c, hid_t g, char ***names, int *n)
{
    *names = NULL;
    *n = 0;
    H5G_info_t info;
    if (H5Gget_info(g, &info) < 0) return ncp_h5_rerr(c, "/", "problems", "cannot list the group");
    if (info.nlinks > (hsize_t)INT_MAX) return ncp_h5_rerr(c, "/", "problems", "too many problems");
    H5_index_t idx = H5_INDEX_NAME;
    hid_t gcpl = H5Gget_create_plist(g);
    unsigned flags = 0;
    if (gcpl >= 0 && H5Pget_link_creation_order(gcpl, &flags) >= 0 && (flags & H5P_CRT_ORDER_TRACKED))
        idx = H5_INDEX_CRT_ORDER;
    if (gcpl >= 0) H5Pclose(gcpl);
    int cnt = (int)info.nlinks, rc = NCP_OK;
    char **nm = ncp_calloc(c->err, (size_t)cnt, sizeof(char *));
    if (!nm) return NCP_ERR_NOMEM;
    for (int k = 0; !rc && k < cnt; k++) {
        ssize_t len = H5Lget_name_by_idx(g, ".", idx, H5_ITER_INC, (hsize_t)k, NULL, 0, H5P_DEFAULT);
        if (len < 0) {
            rc = ncp_h5_rerr(c, "/", "problems", "cannot read the name of entry %d", k);
            break;
        }
        nm[k] = ncp_malloc(c->err, (size_t)len + 1, 1);
        if (!nm[k]) rc = NCP_ERR_NOMEM;
        else if (H5Lget_name_by_idx(g, ".", idx, H5_ITER_INC, (hsize_t)k, nm[k], (size_t)len + 1, H5P_DEFAULT) < 0)
            rc = ncp_h5_rerr(c, "/", "problems", "cannot read the name of entry %d", k);
    }
    if (rc) {
        for (int k = 0; k < cnt; k++) free(nm[k]);
        free(nm);
        return rc;
    }
    *names = nm;
    *n = cnt;
    return NCP_OK;
}

static int load_ours(const ncp_h5ctx *c, hid_t file, ncp_problem **probs, int *n)
{
    hid_t g;
    int rc = ncp_h5_open_group(c, file, "/", "problems", &g);
    if (rc) return rc;
    char **names = NULL;
    int cnt = 0;
    rc = list_problems(c, g, &names, &cnt);
    ncp_problem *ps = NULL;
    if (!rc) {
        ps = ncp_calloc(c->err, (size_t)cnt, sizeof *ps);
        if (!ps) rc = NCP_ERR_NOMEM;
    }
    int done = 0;
    for (int k = 0; !rc && k < cnt; k++) {
        ncp_problem_init(&ps[k]);
        done = k + 1;
        rc = read_ours_problem(c, g, names[k], &ps[k]);
    }
    for (int k = 0; k < cnt && names; k++) free(names[k]);
    free(names);
    H5Gclose(g);
    if (rc) {
        if (ps) ncp_problems_free(ps, done);
        return rc;
    }
    *probs = ps;
    *n = cnt;
    return NCP_OK;
}

/* Problem name of a plain FCLib file: its base name without the extension. */
static char *fclib_problem_name(const char *path, ncp_error *err)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    char *s = ncp_strdup(err, *b ? b : "fclib");
    if (!s) return NULL;
    char *dot = strrchr(s, '.');
    if (dot && dot != s) *dot = '\0';
    return s;
}

/* A file that is neither ours nor a 3-D FCLib problem: the error names what its root holds,
 * and FCLib's rolling-friction groups (fclib_local_rolling, fclib_global_rolling) get their own
 * message. */
static int unknown_file(const ncp_h5ctx *c, hid_t f)
{
    char seen[400] = "", nm[256], low[256];
    size_t used = 0;
    int cut = 0;
    H5G_info_t info;
    hsize_t nlinks = H5Gget_info(f, &info) >= 0 ? info.nlinks : 0;
    for (hsize_t k = 0; k < nlinks; k++) {
        if (H5Lget_name_by_idx(f, ".", H5_INDEX_NAME, H5_ITER_INC, k, nm, sizeof nm, H5P_DEFAULT) < 0) break;
        size_t len = strlen(nm);
        for (size_t i = 0; i <= len; i++) low[i] = (char)tolower((unsigned char)nm[i]);
        if (strstr(low, "rolling"))
            return ncp_error_set(c->err, NCP_ERR_INPUT,
                                 "%s: rolling friction (5-D cones) is not supported (group /%s); ncpbench reads the 3-D problems of /fclib_local and /fclib_global",
                                 c->file, nm);
        if (!cut && used + len + 8 < sizeof seen) {
            used += (size_t)snprintf(seen + used, sizeof seen - used, "%s/%s", used ? ", " : "", nm);
        } else if (!cut) {
            used += (size_t)snprintf(seen + used, sizeof seen - used, "%s...", used ? ", " : "");
            cut = 1;
        }
    }
    return ncp_error_set(c->err, NCP_ERR_INPUT,
                         "%s: no /problems, /fclib_local or /fclib_global group (the root group holds %s): neither an ncpbench problems file nor an FCLib problem",
                         c->file, used ? seen : "nothing");
}

/* Plain data (util/isolate.h ncp_isolated_run_data: copied to the child) */
typedef struct probe_ctx {
    double budget, sym_tol;
    char path[]; /* NUL-terminated */
} probe_ctx;

static int load_file(const char *path, double budget, double sym_tol, int raw,
                     ncp_problem **probs, int *n, int *fclib, ncp_error *err);

/* The child of ncp_load_problems_isolated: the whole file read as stored, the result thrown
 * away. What the parent derives afterwards is our code and needs no child. */
static int probe_read(void *ctx, ncp_error *err)
{
    const probe_ctx *pc = ctx;
    ncp_problem *ps = NULL;
    int k = 0;
    int fclib = 0, rc = load_file(pc->path, pc->budget, pc->sym_tol, 1, &ps, &k, &fclib, err);
    if (!rc) ncp_problems_free(ps, k);
    return rc;
}

static int probe_file(const char *path, double budget, double sym_tol, ncp_error *err);

int ncp_load_problems_isolated(const char *path, double budget, ncp_problem **probs, int *n,
                               ncp_error *err)
{
    return ncp_load_problems_isolated_tol(path, budget, 0.0, probs, n, err);
}

int ncp_load_problems_isolated_tol(const char *path, double budget, double sym_tol,
                                   ncp_problem **probs, int *n, ncp_error *err)
{
    *probs = NULL;
    *n = 0;
    int rc = probe_file(path, budget, sym_tol, err);
    int fclib = 0;
    return rc ? rc : load_file(path, budget, sym_tol, 0, probs, n, &fclib, err);
}

int ncp_load_problems_isolated_raw(const char *path, double budget, double sym_tol,
                                   ncp_problem **probs, ncp_problem_origin **origin, int *n,
                                   ncp_error *err)
{
    *probs = NULL;
    *origin = NULL;
    *n = 0;
    int rc = probe_file(path, budget, sym_tol, err);
    return rc ? rc : ncp_load_problems_raw(path, budget, sym_tol, probs, origin, n, err);
}

/* The read in a child (ncp_load_problems_isolated). */
static int probe_file(const char *path, double budget, double sym_tol, ncp_error *err)
{
    const size_t len = strlen(path) + 1, bytes = sizeof(probe_ctx) + len;
    probe_ctx *pc = ncp_malloc(err, 1, bytes);
    if (!pc) return NCP_ERR_NOMEM;
    pc->budget = budget;
    pc->sym_tol = sym_tol;
    memcpy(pc->path, path, len);
    /* the reader's codes are 0 and 2..6 (util/ncp_error.h) */
    int rc = ncp_isolated_read(probe_read, pc, bytes, path, budget, err);
    free(pc);
    return rc;
}

int ncp_load_problems(const char *path, ncp_problem **probs, int *n, ncp_error *err)
{
    return ncp_load_problems_budget(path, 0.0, probs, n, err);
}

int ncp_load_problems_budget(const char *path, double budget, ncp_problem **probs, int *n,
                             ncp_error *err)
{
    int fclib = 0;
    return load_file(path, budget, 0.0, 0, probs, n, &fclib, err);
}

int ncp_load_problems_raw(const char *path, double budget, double sym_tol, ncp_problem **probs,
                          ncp_problem_origin **origin, int *n, ncp_error *err)
{
    *origin = NULL;
    int fclib = 0;
    int rc = load_file(path, budget, sym_tol, 1, probs, n, &fclib, err);
    if (rc) return rc;
    ncp_problem_origin *o = ncp_calloc(err, (size_t)(*n > 0 ? *n : 1), sizeof *o);
    if (!o) {
        ncp_problems_free(*probs, *n);
        *probs = NULL;
        *n = 0;
        return NCP_ERR_NOMEM;
    }
    for (int k = 0; k < *n; k++) {
        o[k].fclib = fclib;
        /* the names are still the groups' own: nothing renamed them yet */
        if (!fclib) jpath(o[k].group, sizeof o[k].group, "/problems", (*probs)[k].name);
    }
    *origin = o;
    return NCP_OK;
}

int ncp_problem_finish(ncp_problem *p, const char *path, const ncp_problem_origin *origin,
                       double budget, ncp_error *err)
{
    ncp_h5ctx c = {.file = path, .err = err, .budget = budget};
    return origin->fclib ? ncp_fclib_finish(&c, p) : finish_ours(&c, origin->group, p);
}

void ncp_problem_keep_free(ncp_problem_keep *keep)
{
    free(keep->note);
    memset(keep, 0, sizeof *keep);
}

int ncp_problem_finish_keep(ncp_problem *p, const char *path, const ncp_problem_origin *origin,
                            double budget, ncp_problem_keep *keep, ncp_error *err)
{
    ncp_problem_keep_free(keep);
    if (!p->has_dual) { /* D and v_f are derived below: what release drops and restores */
        if (p->provenance_note && !(keep->note = ncp_strdup(err, p->provenance_note)))
            return NCP_ERR_NOMEM;
        keep->dual_symmetric = p->dual_symmetric;
        keep->derived = 1;
    }
    int rc = ncp_problem_finish(p, path, origin, budget, err);
    if (rc) ncp_problem_keep_free(keep);
    return rc;
}

int ncp_problem_release(ncp_problem *p, ncp_problem_keep *keep)
{
    if (!keep->derived) return 0;
    free(p->D);
    free(p->vf);
    p->D = p->vf = NULL;
    p->has_dual = 0;
    p->dual_symmetric = keep->dual_symmetric;
    p->dop_route = 0; /* as read: decided again by the next finish */
    free(p->provenance_note);
    p->provenance_note = keep->note;
    keep->note = NULL;
    keep->derived = 0;
    return 1;
}

/* The one problem of a Siconos .dat file (siconos_dat.h), named as a plain FCLib file's; it is
 * finished as an FCLib problem (*fclib = 1). */
static int load_dat(const char *path, double budget, double sym_tol, ncp_problem **probs, int *n,
                    int *fclib, ncp_error *err)
{
    *fclib = 1;
    ncp_problem *p = ncp_calloc(err, 1, sizeof *p);
    char *name = fclib_problem_name(path, err);
    int rc = (p && name) ? NCP_OK : NCP_ERR_NOMEM;
    if (!rc) {
        ncp_problem_init(p);
        rc = ncp_siconos_dat_read(path, name, budget, sym_tol, p, err);
        if (rc) {
            ncp_problems_free(p, 1);
            p = NULL;
        }
    }
    free(name);
    if (rc) {
        free(p);
        return rc;
    }
    *probs = p;
    *n = 1;
    return NCP_OK;
}

/* raw: the problems as stored (ncp_load_problems_raw); *fclib = 1 for a plain FCLib file. */
static int load_file(const char *path, double budget, double sym_tol, int raw,
                     ncp_problem **probs, int *n, int *fclib, ncp_error *err)
{
    ncp_h5_quiet();
    *probs = NULL;
    *n = 0;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "cannot open %s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s is not a regular file", path);
    if (ncp_siconos_dat_is(path)) /* read whole (raw or not): finishing it again changes nothing */
        return load_dat(path, budget, sym_tol, probs, n, fclib, err);
    if (H5Fis_hdf5(path) <= 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s is not an HDF5 file (or is truncated)", path);
    /* STRONG close: closing the file also closes anything an error path might have left */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
        if (fapl >= 0) H5Pclose(fapl);
        return ncp_error_set(err, NCP_ERR_INTERNAL, "HDF5 property list creation failed");
    }
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (f < 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s is not an HDF5 file (or is truncated)", path);
    ncp_h5ctx c = {.file = path, .err = err, .budget = budget, .raw = raw, .sym_tol = sym_tol};
    int rc;
    if (ncp_h5_exists(f, "problems")) {
        rc = load_ours(&c, f, probs, n);
    } else if (ncp_h5_exists(f, "fclib_global") || ncp_h5_exists(f, "fclib_local")) {
        *fclib = 1;
        ncp_problem *p = ncp_calloc(err, 1, sizeof *p);
        char *name = fclib_problem_name(path, err);
        rc = (p && name) ? NCP_OK : NCP_ERR_NOMEM;
        if (!rc) {
            ncp_problem_init(p);
            rc = ncp_fclib_read_file(&c, f, name, p);
            if (rc) {
                ncp_problems_free(p, 1);
            } else {
                *probs = p;
                *n = 1;
            }
        } else {
            free(p);
        }
        free(name);
    } else {
        rc = unknown_file(&c, f);
    }
    H5Fclose(f);
    return rc;
}

void ncp_problems_free(ncp_problem *probs, int n)
{
    if (!probs) return;
    for (int k = 0; k < n; k++) ncp_problem_free(&probs[k]);
    free(probs);
}
