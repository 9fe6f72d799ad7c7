/* Constraint assembly: world state + contacts -> ncp_problem (see assemble.h). */
#include <stdlib.h>
#include <string.h>

#include "assemble.h"
#include "spatial.h"

double ncp_contact_bias(const ncp_model *m, double phi)
{
    /* Separated (phi >= 0): u_n = J_n v + phi/h >= 0 lets the gap close exactly within the step
     * but not beyond (no impulse until then). Penetrating: push out at erp phi / h, i.e. remove
     * the fraction erp of the penetration per step, but never faster than max_recovery, so a
     * deep initial overlap does not launch bodies (Baumgarte-style stabilisation). */
    if (phi >= 0.0) return phi / m->h;
    return fmax(m->erp * phi / m->h, -m->max_recovery);
}

/* One constraint block before layout: what every producer (contacts now; joints, limits and
 * springs later) hands to the assembler. Rows are r = lin_r . (v_p(body1) - v_p(body0)) +
 * ang_r . (omega(body1) - omega(body0)) at the world point `point`. */
typedef struct cons_entry {
    int type;            /* ncp_block_type */
    int body[2];         /* model bodies; body[1] gets +J, body[0] gets -J */
    double point[3];
    double lin[3][3];    /* per row (up to 3) */
    double ang[3][3];
    double e[3];
    double mu;
    int contact;         /* index into the contact list, CONTACT only */
} cons_entry;

static const int type_order[4] = {NCP_BILATERAL, NCP_UNILATERAL, NCP_CONTACT, NCP_SOFT};

/* Jacobian row entries (sorted by column, duplicates merged) of entry e's row r. */
#define MAX_ROW_NNZ (2 * NCP_BODY_NDOF)

static int entry_row(const ncp_world *w, const cons_entry *e, int r, int *cols, double *vals)
{
    int n = 0;
    for (int k = 0; k < 2; k++) {
        int dofs[NCP_BODY_NDOF];
        double Jl[3 * NCP_BODY_NDOF], Ja[3 * NCP_BODY_NDOF];
        if (e->body[k] < 0) continue;
        int nd = ncp_world_body_jacobian(w, e->body[k], e->point, dofs, Jl, Ja);
        double s = k == 1 ? 1.0 : -1.0;
        for (int j = 0; j < nd; j++) {
            double v = 0.0;
            for (int i = 0; i < 3; i++) v += e->lin[r][i] * Jl[i * nd + j] + e->ang[r][i] * Ja[i * nd + j];
            /* insert sorted; merge if the two bodies share a dof (articulated worlds) */
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
    return n;
}

static int fill_structure(const ncp_world *w, const cons_entry *ent, int ne, ncp_problem *p,
                          ncp_error *err)
{
    /* One subsystem per dynamic body (problem.h). Body coordinates are the body's own dofs:
     * spatial velocity (v_com, omega), linear first, COM-centred with world-aligned axes, so
     * J_{b,j} = I_6, M_b = blkdiag(m I_3, R I R^T) and A_j = J_{b,j}^T M_b J_{b,j}; a contact's
     * J_{i,b} = +-F [I_3, -[p - c_b]x] (seed 000 App. A eq. 44 with COM-based coordinates). */
    const ncp_model *m = w->model;
    ncp_structure *st = ncp_calloc(err, 1, sizeof *st);
    if (!st) return NCP_ERR_NOMEM;
    p->structure = st;
    int nd = m->ndynamic;
    st->nsub = nd;
    st->nbodies = nd;
    st->sub_dof_start = ncp_calloc(err, (size_t)nd, sizeof(int));
    st->sub_ndof = ncp_calloc(err, (size_t)nd, sizeof(int));
    st->bodies = ncp_calloc(err, (size_t)nd, sizeof(ncp_structure_body));
    int nl = 0;
    for (int i = 0; i < ne; i++)
        for (int k = 0; k < 2; k++)
            if (ent[i].body[k] >= 0 && m->bodies[ent[i].body[k]].dynamic) nl++;
    st->links = ncp_calloc(err, (size_t)nl, sizeof(ncp_structure_link));
    if (!st->sub_dof_start || !st->sub_ndof || !st->bodies || !st->links) return NCP_ERR_NOMEM;
    int j = 0;
    for (int b = 0; b < m->nbodies; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        if (!bd->dynamic) continue;
        ncp_structure_body *sb = &st->bodies[j];
        st->sub_dof_start[j] = bd->dof;
        st->sub_ndof[j] = NCP_BODY_NDOF;
        sb->subsystem = j;
        sb->ndof = NCP_BODY_NDOF;
        for (int i = 0; i < 3; i++) {
            sb->M[i * 6 + i] = bd->mass;
            for (int c = 0; c < 3; c++) sb->M[(3 + c) * 6 + 3 + i] = w->inertia_w[9 * b + 3 * i + c];
        }
        sb->Jb = ncp_calloc(err, 36, sizeof(double));
        if (!sb->Jb) return NCP_ERR_NOMEM;
        for (int i = 0; i < 6; i++) sb->Jb[i * 6 + i] = 1.0;
        j++;
    }
    int l = 0;
    for (int i = 0; i < ne; i++) {
        const cons_entry *e = &ent[i];
        int rows = ncp_block_type_size(e->type);
        for (int k = 0; k < 2; k++) {
            int b = e->body[k];
            if (b < 0 || !m->bodies[b].dynamic) continue;
            ncp_structure_link *lk = &st->links[l++];
            lk->block = i;
            lk->body = m->bodies[b].dof / NCP_BODY_NDOF; /* dynamic bodies in order */
            lk->Jib = ncp_calloc(err, 6 * (size_t)rows, sizeof(double));
            if (!lk->Jib) return NCP_ERR_NOMEM;
            int dofs[NCP_BODY_NDOF];
            double Jl[3 * NCP_BODY_NDOF], Ja[3 * NCP_BODY_NDOF];
            int ndof = ncp_world_body_jacobian(w, b, e->point, dofs, Jl, Ja);
            double s = k == 1 ? 1.0 : -1.0;
            for (int r = 0; r < rows; r++)
                for (int c = 0; c < ndof; c++) {
                    double v = 0.0;
                    for (int a = 0; a < 3; a++) v += e->lin[r][a] * Jl[a * ndof + c] + e->ang[r][a] * Ja[a * ndof + c];
                    lk->Jib[c * rows + r] = s * v; /* column-major rows x 6 */
                }
        }
    }
    st->nlinks = l;
    return NCP_OK;
}

int ncp_assemble(const ncp_world *w, const ncp_contact *con, int nc, ncp_problem *p,
                 ncp_error *err)
{
    const ncp_model *m = w->model;
    ncp_problem_init(p);
    /* The ordered constraint list. Producers append in any order; blocks are laid out by type
     * (bilateral, unilateral, contact, soft), keeping each producer's order within a type. */
    int ne = nc;
    cons_entry *raw = ncp_calloc(err, (size_t)ne, sizeof(cons_entry));
    cons_entry *ent = ncp_calloc(err, (size_t)ne, sizeof(cons_entry));
    if (!raw || !ent) {
        free(raw);
        free(ent);
        return NCP_ERR_NOMEM;
    }
    for (int i = 0; i < nc; i++) {
        cons_entry *e = &raw[i];
        e->type = NCP_CONTACT;
        e->body[0] = con[i].body[0];
        e->body[1] = con[i].body[1];
        ncp_v3_copy(con[i].point, e->point);
        for (int r = 0; r < 3; r++) ncp_v3_copy(con[i].frame + 3 * r, e->lin[r]);
        e->e[0] = ncp_contact_bias(m, con[i].dist);
        e->mu = con[i].mu;
        e->contact = i;
    }
    int k = 0;
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < ne; i++)
            if (raw[i].type == type_order[t]) ent[k++] = raw[i];
    free(raw);

    int rc = ncp_problem_alloc_blocks(p, ne, err);
    if (rc) goto fail;
    for (int i = 0; i < ne; i++) {
        p->blocks[i].type = ent[i].type;
        p->blocks[i].mu = ent[i].type == NCP_CONTACT ? ent[i].mu : 0.0;
    }
    ncp_problem_layout(p);
    int nv = m->nv, rows = p->m;
    p->nv = nv;
    p->h = m->h;
    p->contacts = ncp_calloc(err, (size_t)p->ncontacts, sizeof(ncp_contact_info));
    p->A = ncp_calloc(err, (size_t)nv * nv, sizeof(double));
    p->b = ncp_calloc(err, (size_t)nv, sizeof(double));
    p->e = ncp_calloc(err, (size_t)rows, sizeof(double));
    if (!p->contacts || !p->A || !p->b || !p->e) {
        rc = NCP_ERR_NOMEM;
        goto fail;
    }
    ncp_world_dynamics(w, p->A, p->b);

    /* J: count, then fill (CSR, rows = constraints) */
    int cols[MAX_ROW_NNZ], nnz = 0;
    double vals[MAX_ROW_NNZ];
    for (int i = 0; i < ne; i++)
        for (int r = 0; r < ncp_block_type_size(ent[i].type); r++) nnz += entry_row(w, &ent[i], r, cols, vals);
    rc = ncp_csr_alloc(&p->J, rows, nv, nnz, err);
    if (rc) goto fail;
    int pos = 0;
    p->J.rowptr[0] = 0;
    for (int i = 0; i < ne; i++) {
        const cons_entry *e = &ent[i];
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
        }
    }
    p->has_primal = 1;
    rc = fill_structure(w, ent, ne, p, err);
    if (rc) goto fail;
    free(ent);
    ent = NULL;
    rc = ncp_problem_compute_dual(p, err);
    if (rc) ncp_problem_free(p);
    return rc;
fail:
    free(ent);
    ncp_problem_free(p);
    return rc ? rc : NCP_ERR_NOMEM;
}
