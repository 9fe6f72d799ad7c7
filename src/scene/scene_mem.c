/* Predicted peak memory of a scene's simulation and its refusal above the budget (scene.h,
 * ncp_scene_memory; scenes/README.md, "Memory"). */
#include <stdio.h>
#include <stdlib.h>

#include "core/problem.h"
#include "scene/scene.h"
#include "sim/collide.h"
#include "sim/constraints.h"
#include "sim/dynamics.h"
#include "util/membudget.h"

int ncp_scene_memory(const ncp_scene *s, ncp_scene_mem *out, ncp_error *err)
{
    return ncp_scene_memory_driven(s, NULL, out, err);
}

int ncp_scene_memory_driven(const ncp_scene *s, const ncp_solver_desc *driver, ncp_scene_mem *out,
                            ncp_error *err)
{
    if (!driver && ncp_scene_catalog(s))
        driver = ncp_catalog_find(ncp_scene_catalog(s), ncp_scene_bench(s)->driver);
    const ncp_model *m = ncp_scene_model(s);
    ncp_scene_mem r = {0};
    r.nbodies = m->ndynamic;
    r.nv = m->nv;
    /* the dense step arrays do not depend on the contacts: refuse before posing the world
     * when they alone are above any sensible size (the world's own arrays are O(n_dof)) */
    double nv = (double)m->nv;
    /* above NCP_BLOCK_MASS_NDOF the step keeps A, its factor and the problem's A per subsystem
     * (sim/dynamics.h): sum n_j^2 instead of n_dof^2 each */
    const int block = ncp_model_block_mass(m);
    r.dof_bytes = 8.0 * 3.0 * (double)ncp_stepmat_count(m, block);
    int maxsub = 0;
    for (int j = 0; j < m->nsub; j++) maxsub = m->sub_ndof[j] > maxsub ? m->sub_ndof[j] : maxsub;
    ncp_world *w = NULL;
    int rc = ncp_world_create(m, &w, err);
    if (!rc) rc = ncp_world_contact_bound(w, 0.0, &r.pairs, &r.contacts, err);
    ncp_cons_entry *rows = NULL;
    int nrows = 0;
    if (!rc) rc = ncp_world_rows(w, &rows, &nrows, err);
    if (!rc) {
        r.rows = 3 * r.contacts;
        for (int i = 0; i < nrows; i++) r.rows += ncp_block_type_size(rows[i].type);
    }
    free(rows);
    ncp_world_free(w);
    if (rc) return rc;
    double mr = (double)r.rows, per = block ? 2.0 * maxsub : nv;
    if (per > nv) per = nv;
    /* J's CSR (8 + 4 bytes an entry) and the row vectors (e, v_f, a solver's few) */
    r.row_bytes = 12.0 * per * mr + 64.0 * mr;
    /* only a driver that needs the dense D builds it (per solve): D and X = A^{-1} J^T,
     * n_dof x m dense or on the block route one block's columns at a time (sparse_chol.h) */
    r.dense_dual = driver && (driver->needs & NCP_NEEDS_DUAL);
    r.dual_bytes = r.dense_dual ? 8.0 * ((block ? (double)maxsub : nv) * mr + mr * mr) : 0.0;
    /* glibc's heap keeps what a step frees below its mmap threshold (which rises to the size
     * of a freed block, up to 32 MiB), so the resident size can exceed the live arrays by the
     * largest of them, up to that threshold */
    double dofsq = r.dof_bytes / 24.0, rowsq = r.dense_dual ? mr * mr : per * mr;
    double largest = 8.0 * (dofsq > rowsq ? dofsq : rowsq);
    r.heap_slack = largest < NCP_SCENE_MEM_SLACK_MAX ? largest : NCP_SCENE_MEM_SLACK_MAX;
    r.total = r.dof_bytes + r.row_bytes + r.dual_bytes + r.heap_slack + NCP_SCENE_MEM_BASE;
    *out = r;
    return NCP_OK;
}

int ncp_scene_check_memory(const ncp_scene *s, ncp_error *err)
{
    return ncp_scene_check_memory_driven(s, NULL, err);
}

int ncp_scene_check_memory_driven(const ncp_scene *s, const ncp_solver_desc *driver,
                                  ncp_error *err)
{
    ncp_scene_mem r;
    int rc = ncp_scene_memory_driven(s, driver, &r, err);
    if (rc) return rc;
    char a[32], b[32], c[32], dual[96], what[600];
    if (r.dense_dual)
        snprintf(dual, sizeof dual, "m^2 Delassus data %s", ncp_mem_format(r.dual_bytes, c, sizeof c));
    else
        snprintf(dual, sizeof dual, "no m^2 Delassus data");
    snprintf(what, sizeof what, "scene %s: %d dynamic bodies, %d dof, up to %ld constraint rows "
             "(%ld contacts of %ld shape pairs at the start; %s step matrices %s, "
             "rows %s, %s): the simulation", ncp_scene_where(s), r.nbodies, r.nv, r.rows,
             r.contacts, r.pairs, ncp_model_block_mass(ncp_scene_model(s)) ? "per-subsystem" : "dense n_dof^2",
             ncp_mem_format(r.dof_bytes, a, sizeof a),
             ncp_mem_format(r.row_bytes, b, sizeof b), dual);
    return ncp_mem_check(ncp_scene_max_memory(s), r.total, what, err);
}
