/* Constraint assembly: world state + rows + contacts -> ncp_problem (see assemble.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sim/assemble.h"
#include "core/spatial.h"
#include "sim/collide.h"
#include "geometry/contact.h"
#include "sim/constraints.h"
#include "sim/dynamics.h"
#include "sim/kinematics.h"

double ncp_contact_bias(const ncp_model *m, double phi)
{
    /* Separated (phi >= 0): u_n = J_n v + phi/h >= 0 lets the gap close exactly within the step
     * but not beyond (no impulse until then). Penetrating: push out at erp phi / h, i.e. remove
     * the fraction erp of the penetration per step, but never faster than max_recovery, so a
     * deep initial overlap does not launch bodies (Baumgarte-style stabilisation). */
    if (phi >= 0.0) return phi / m->h;
    return fmax(m->erp * phi / m->h, -m->max_recovery);
}

/* Compliance of a contact between the materials of its two shapes (problem.h, Castro et al. 2023 eq. 2;
 * 0 = rigid). The paper gives no combination rule; Drake's (multibody/plant/
 * contact_properties.cc): the surfaces are springs in series, k = k_a k_b / (k_a + k_b), a rigid
 * side dropping out, and the dissipation time scales add. */
static void contact_compliance(const ncp_model *m, const ncp_contact *c, double *k, double *tau)
{
    double ks[2] = {0.0, 0.0}, ts[2] = {0.0, 0.0};
    for (int s = 0; s < 2; s++) {
        int sh = c->shape[s];
        if (sh < 0 || sh >= m->nshapes) continue;
        int mat = m->shapes[sh].material;
        if (mat < 0 || mat >= m->nmaterials) continue;
        ks[s] = m->materials[mat].stiffness;
        ts[s] = m->materials[mat].dissipation;
    }
    *k = ks[0] > 0.0 && ks[1] > 0.0 ? ks[0] * ks[1] / (ks[0] + ks[1]) : ks[0] + ks[1];
    *tau = ts[0] + ts[1];
}

static const int type_order[4] = {NCP_BILATERAL, NCP_UNILATERAL, NCP_CONTACT, NCP_SOFT};

/* Jacobian row entries (sorted by column, duplicates merged, exact zeros dropped) of entry e's
 * row r. */
#define MAX_ROW_NNZ (2 * NCP_MAX_CHAIN_DOF)

static int entry_row(const ncp_world *w, const ncp_cons_entry *e, int r, int *cols, double *vals)
{
    int n = 0;
    for (int k = 0; k < 2; k++) {
        int dofs[NCP_MAX_CHAIN_DOF];
        double Jl[3 * NCP_MAX_CHAIN_DOF], Ja[3 * NCP_MAX_CHAIN_DOF];
        if (e->body[k] < 0) continue;
        int nd = ncp_world_body_jacobian(w, e->body[k], e->point[k], dofs, Jl, Ja);
        double s = k == 1 ? 1.0 : -1.0;
        for (int j = 0; j < nd; j++) {
            double v = 0.0;
            for (int i = 0; i < 3; i++) v += e->lin[r][i] * Jl[i * nd + j] + e->ang[r][i] * Ja[i * nd + j];
            /* insert sorted; merge where the two bodies share a dof (same tree) */
            int pos = 0;
            while (pos < n && cols[pos] < dofs[j]) pos++;
            if (pos < n && cols[pos] == dofs[j]) {
                vals[pos] += s * v;
                continue;
            }
            memmove(cols + pos + 1, cols + pos, (size_t)(n - pos) * sizeof(int));
            memmove(vals + pos + 1, vals + pos, (size_t)(n - pos) * sizeof(double));
            cols[pos] = dofs[j];
            vals[pos] = s * v;
            n++;
        }
    }
    /* two links of one tree share their common ancestors' columns, which cancel exactly in
     * relative rows (joint limits, closures): drop those zeros */
    int k = 0;
    for (int i = 0; i < n; i++)
        if (vals[i] != 0.0) {
            cols[k] = cols[i];
            vals[k++] = vals[i];
        }
    return k;
}

static int fill_structure(const ncp_world *w, const ncp_cons_entry *ent, int ne, const double *diag,
                          double mscale, ncp_problem *p, ncp_error *err)
{
    const ncp_model *m = w->model;
    ncp_structure *st = ncp_calloc(err, 1, sizeof *st);
    if (!st) return NCP_ERR_NOMEM;
    p->structure = st;
    int nd = m->ndynamic, nv = m->nv;
    int *sbody = ncp_malloc(err, (size_t)m->nbodies, sizeof(int)); /* model body -> structure body */
    st->nsub = m->nsub;
    st->sub_dof_start = ncp_malloc(err, (size_t)m->nsub, sizeof(int));
    st->sub_ndof = ncp_malloc(err, (size_t)m->nsub, sizeof(int));
    st->bodies = ncp_calloc(err, (size_t)nd, sizeof(ncp_structure_body));
    st->dof_diag = ncp_calloc(err, (size_t)nv, sizeof(double));
    int nl = 0;
    for (int i = 0; i < ne; i++)
        for (int k = 0; k < 2; k++)
            if (ent[i].body[k] >= 0 && m->bodies[ent[i].body[k]].dynamic) nl++;
    st->links = ncp_calloc(err, (size_t)nl, sizeof(ncp_structure_link));
    if (!sbody || !st->sub_dof_start || !st->sub_ndof || !st->bodies || !st->dof_diag || !st->links) {
        free(sbody);
        return NCP_ERR_NOMEM;
    }
    if (m->nsub) memcpy(st->sub_dof_start, m->sub_dof_start, (size_t)m->nsub * sizeof(int));
    if (m->nsub) memcpy(st->sub_ndof, m->sub_ndof, (size_t)m->nsub * sizeof(int));
    if (diag && nv) memcpy(st->dof_diag, diag, (size_t)nv * sizeof(double));
    int j = 0;
    for (int b = 0; b < m->nbodies; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        sbody[b] = -1;
        if (!bd->dynamic) continue;
        sbody[b] = j;
        ncp_structure_body *sb = &st->bodies[j];
        int sub = bd->subsystem, d0 = m->sub_dof_start[sub], n = m->sub_ndof[sub];
        sb->subsystem = sub;
        sb->ndof = n;
        for (int i = 0; i < 3; i++) {
            sb->M[i * 6 + i] = mscale * bd->mass;
            for (int c = 0; c < 3; c++) sb->M[(3 + c) * 6 + 3 + i] = mscale * w->inertia_w[9 * b + 3 * i + c];
        }
        sb->Jb = ncp_calloc(err, 6 * (size_t)n, sizeof(double));
        if (!sb->Jb) {
            free(sbody);
            return NCP_ERR_NOMEM;
        }
        int dofs[NCP_MAX_CHAIN_DOF];
        double Jl[3 * NCP_MAX_CHAIN_DOF], Ja[3 * NCP_MAX_CHAIN_DOF];
        int nc = ncp_world_body_jacobian(w, b, w->pos + 3 * b, dofs, Jl, Ja);
        for (int c = 0; c < nc; c++) /* column-major 6 x n: rows v_c, then omega */
            for (int r = 0; r < 3; r++) {
                sb->Jb[(size_t)(dofs[c] - d0) * 6 + r] = Jl[r * nc + c];
                sb->Jb[(size_t)(dofs[c] - d0) * 6 + 3 + r] = Ja[r * nc + c];
            }
        j++;
    }
    st->nbodies = j;
    int l = 0;
    for (int i = 0; i < ne; i++) {
        const ncp_cons_entry *e = &ent[i];
        int rows = ncp_block_type_size(e->type);
        for (int k = 0; k < 2; k++) {
            int b = e->body[k];
            if (b < 0 || !m->bodies[b].dynamic) continue;
            ncp_structure_link *lk = &st->links[l++];
            lk->block = i;
            lk->body = sbody[b];
            lk->Jib = ncp_calloc(err, 6 * (size_t)rows, sizeof(double));
            if (!lk->Jib) {
                free(sbody);
                return NCP_ERR_NOMEM;
            }
            /* row r: s (lin_r^T [I, -[p - c]x] + [0, ang_r^T]); lin^T (-[d]x w) = (d x lin) . w */
            double d[3], s = k == 1 ? 1.0 : -1.0;
            ncp_v3_sub(e->point[k], w->pos + 3 * b, d);
            for (int r = 0; r < rows; r++) {
                double dxl[3];
                ncp_v3_cross(d, e->lin[r], dxl);
                for (int a = 0; a < 3; a++) {
                    lk->Jib[a * rows + r] = s * e->lin[r][a];               /* column-major rows x 6 */
                    lk->Jib[(3 + a) * rows + r] = s * (dxl[a] + e->ang[r][a]);
                }
            }
        }
    }
    st->nlinks = l;
    free(sbody);
    return NCP_OK;
}

/* The block route's primal A (dynamics.h): the packed subsystem blocks as a block-diagonal CSR,
 * every entry of a block kept (zeros too), columns sorted. */
static int packed_to_csr(const ncp_model *m, const ncp_stepmat *A, ncp_csr *out, ncp_error *err)
{
    size_t nnz = ncp_stepmat_count(m, 1);
    if (nnz > (size_t)INT_MAX)
        return ncp_error_set(err, NCP_ERR_INPUT, "the mass matrix's subsystem blocks hold %zu "
                             "entries, more than a CSR index can address", nnz);
    int rc = ncp_csr_alloc(out, m->nv, m->nv, (int)nnz, err);
    if (rc) return rc;
    int pos = 0;
    out->rowptr[0] = 0;
    for (int j = 0; j < m->nsub; j++) {
        int d0 = m->sub_dof_start[j], n = m->sub_ndof[j];
        const double *Aj = A->a + A->off[j];
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++) {
                out->col[pos] = d0 + c;
                out->val[pos++] = Aj[(size_t)c * n + r];
            }
            out->rowptr[d0 + r + 1] = pos;
        }
    }
    return NCP_OK;
}

int ncp_assemble_rows(const ncp_world *w, const ncp_stepmat *A, const double *b, const double *diag,
                      double mscale, const ncp_cons_entry *rows, int nrows, const ncp_contact *con,
                      int nc, ncp_problem *p, int *keys, ncp_error *err)
{
    const ncp_model *m = w->model;
    ncp_problem_init(p);
    /* The ordered constraint list: the world's rows, then one CONTACT entry per contact;
     * blocks are laid out by type (bilateral, unilateral, contact, soft), keeping each
     * producer's order within a type. */
    int ne = nrows + nc;
    ncp_cons_entry *raw = ncp_calloc(err, (size_t)ne, sizeof(ncp_cons_entry));
    ncp_cons_entry *ent = ncp_calloc(err, (size_t)ne, sizeof(ncp_cons_entry));
    if (!raw || !ent) {
        free(raw);
        free(ent);
        return NCP_ERR_NOMEM;
    }
    if (nrows) memcpy(raw, rows, (size_t)nrows * sizeof *raw);
    for (int i = 0; i < nc; i++) {
        ncp_cons_entry *e = &raw[nrows + i];
        e->type = NCP_CONTACT;
        e->body[0] = con[i].body[0];
        e->body[1] = con[i].body[1];
        ncp_v3_copy(con[i].point, e->point[0]);
        ncp_v3_copy(con[i].point, e->point[1]);
        for (int r = 0; r < 3; r++) ncp_v3_copy(con[i].frame + 3 * r, e->lin[r]);
        e->e[0] = ncp_contact_bias(m, con[i].dist);
        for (int s = 0; s < 2; s++) { /* a moving static body's surface velocity (motion.h) */
            int bb = con[i].body[s];
            if (bb < 0 || !m->bodies[bb].motion.active) continue;
            double vk[3];
            ncp_motion_velocity(&m->bodies[bb].motion, w->time, con[i].point, vk);
            for (int r = 0; r < 3; r++) e->e[r] += (s == 1 ? 1.0 : -1.0) * ncp_v3_dot(con[i].frame + 3 * r, vk);
        }
        e->mu = con[i].mu;
        e->contact = i;
        e->key[0] = 0;
        e->key[1] = con[i].shape[0];
        e->key[2] = con[i].shape[1];
        e->key[3] = con[i].feature;
    }
    int k = 0;
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < ne; i++)
            if (raw[i].type == type_order[t]) ent[k++] = raw[i];
    free(raw);

    int rc = ncp_problem_alloc_blocks(p, ne, err);
    if (rc) goto fail;
    for (int i = 0; i < ne; i++) {
        ncp_block *bk = &p->blocks[i];
        bk->type = ent[i].type;
        bk->mu = ent[i].type == NCP_CONTACT ? ent[i].mu : 0.0;
        if (ent[i].type == NCP_SOFT) {
            bk->k = ent[i].k;
            bk->c = ent[i].c;
            bk->phi = ent[i].phi;
        }
        if (keys) memcpy(keys + 4 * i, ent[i].key, 4 * sizeof(int));
    }
    ncp_problem_layout(p);
    int nv = m->nv, nrow = p->m;
    p->nv = nv;
    p->h = m->h;
    p->contacts = ncp_calloc(err, (size_t)p->ncontacts, sizeof(ncp_contact_info));
    if (!A->packed) p->A = ncp_malloc(err, (size_t)nv * nv, sizeof(double));
    p->b = ncp_malloc(err, (size_t)nv, sizeof(double));
    p->e = ncp_calloc(err, (size_t)nrow, sizeof(double));
    if (!p->contacts || (!A->packed && !p->A) || !p->b || !p->e) {
        rc = NCP_ERR_NOMEM;
        goto fail;
    }
    if (A->packed && (rc = packed_to_csr(m, A, &p->A_sparse, err))) goto fail;
    if (nv) {
        if (!A->packed) memcpy(p->A, A->a, (size_t)nv * nv * sizeof(double));
        memcpy(p->b, b, (size_t)nv * sizeof(double));
    }

    /* J: count, then fill (CSR, rows = constraints) */
    int cols[MAX_ROW_NNZ], nnz = 0;
    double vals[MAX_ROW_NNZ];
    for (int i = 0; i < ne; i++)
        for (int r = 0; r < ncp_block_type_size(ent[i].type); r++) nnz += entry_row(w, &ent[i], r, cols, vals);
    rc = ncp_csr_alloc(&p->J, nrow, nv, nnz, err);
    if (rc) goto fail;
    int pos = 0;
    p->J.rowptr[0] = 0;
    for (int i = 0; i < ne; i++) {
        const ncp_cons_entry *e = &ent[i];
        int row0 = p->blocks[i].row;
        for (int r = 0; r < ncp_block_type_size(e->type); r++) {
            int n = entry_row(w, e, r, cols, vals);
            memcpy(p->J.col + pos, cols, (size_t)n * sizeof(int));
            memcpy(p->J.val + pos, vals, (size_t)n * sizeof(double));
            pos += n;
            p->J.rowptr[row0 + r + 1] = pos;
            p->e[row0 + r] = e->e[r];
        }
        if (e->type == NCP_CONTACT) {
            const ncp_contact *c = &con[e->contact];
            ncp_contact_info *ci = &p->contacts[p->blocks[i].contact];
            ci->gap = c->dist;
            ncp_v3_copy(c->point, ci->point);
            memcpy(ci->frame, c->frame, sizeof ci->frame);
            for (int s = 0; s < 2; s++) ci->body[s] = m->bodies[c->body[s]].dynamic ? c->body[s] : -1;
            contact_compliance(m, c, &ci->stiffness, &ci->dissipation);
        }
    }
    /* block route: A stays block-diagonal CSR (v_f and, on demand, D block by block:
     * ncp_sparse_chol_delassus) */
    p->has_primal = !A->packed;
    p->has_sparse_primal = A->packed;
    rc = fill_structure(w, ent, ne, diag, mscale, p, err);
    if (rc) goto fail;
    free(ent);
    ent = NULL;
    /* v_f only: D = J A^-1 J^T is derived data, built on demand (core/problem.h) */
    rc = ncp_problem_compute_vf(p, err);
    p->dual_symmetric = 1;
    if (rc) ncp_problem_free(p);
    return rc;
fail:
    free(ent);
    ncp_problem_free(p);
    return rc ? rc : NCP_ERR_NOMEM;
}

int ncp_assemble(const ncp_world *w, const ncp_contact *con, int nc, ncp_problem *p,
                 ncp_error *err)
{
    const ncp_model *m = w->model;
    int nv = m->nv, nrows = 0;
    double mscale = 1.0;
    ncp_cons_entry *rows = NULL;
    ncp_stepmat A = {0, NULL, NULL};
    double *b = ncp_malloc(err, 2 * (size_t)nv, sizeof(double));
    int rc = !b ? NCP_ERR_NOMEM : ncp_stepmat_alloc(m, ncp_model_block_mass(m), &A, err);
    if (!rc) rc = ncp_world_step_matrices_sm(w, &A, b, b + nv, &mscale, err);
    if (!rc) rc = ncp_world_rows(w, &rows, &nrows, err);
    if (!rc) rc = ncp_assemble_rows(w, &A, b, b + nv, mscale, rows, nrows, con, nc, p, NULL, err);
    else ncp_problem_init(p);
    ncp_stepmat_free(&A);
    free(b);
    free(rows);
    return rc;
}

int ncp_model_initial_problem(const ncp_model *m, ncp_problem *p, ncp_error *err)
{
    ncp_world *w = NULL;
    ncp_contact_list cl = {0, 0, NULL};
    int rc = ncp_world_create(m, &w, err);
    if (!rc) rc = ncp_world_collide(w, &cl, err);
    if (!rc) rc = ncp_assemble(w, cl.c, cl.n, p, err);
    else ncp_problem_init(p);
    ncp_contact_list_free(&cl);
    ncp_world_free(w);
    return rc;
}
