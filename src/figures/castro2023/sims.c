/* Castro et al. 2023: the study's simulations (study.h ncp_study_sim). The slip sweep (§VI-C2,
 * Figs. 14-15): the clutter with and without walls, sap driving with its sigma, the slip speed
 * of the loaded contacts and (over the last steps) the condition number of SAP's Hessian per
 * step. The spring-cylinder (§VI-B, Figs. 6-7): the scene at a time step and an integrator, the
 * cylinder's coordinate and its spring and contact energies per step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/dop.h"
#include "core/la.h"
#include "core/sap_model.h"
#include "figures/fig_util.h"
#include "figures/castro2023/castro2023.h"
#include "scene/scene.h"
#include "sim/world.h"
#include "solvers/registry.h"

/* ---- the slip sweep ---- */

int c23_slip_scene(const ncp_study_sim *sm, const ncp_fig_opts *o, const char *path,
                   struct ncp_scene **out, ncp_error *err)
{
    char sfx[48];
    snprintf(sfx, sizeof sfx, "-sigma%g%s", sm->arg, o->quick ? "-8" : "");
    return c23_scene_variant(path, o->quick ? C23_QUICK_N : 0, sm->arg, -1, 0, 0, 0, sfx, out,
                             err);
}

/* The 2-norm condition number of SAP's Hessian H = A + J^T G(v) J at v (the Hessian of eq. 24;
 * G per block from the model, ncp_sap_eval, at u_hat = J v + e + shift), assembled densely from
 * a dense copy of J, independently of sap's own assembly; its extreme eigenvalues by LAPACK
 * dsyev (ncp_sym_eig). NaN without dense primal data or v. */
static int c23_hessian_cond(const ncp_problem *p, const double *v, double sigma, double *cond,
                            ncp_error *err)
{
    *cond = NAN;
    if (!v || p->nv <= 0 || !p->has_primal) return NCP_OK;
    const int m = p->m, nv = p->nv;
    ncp_sap_model sm;
    ncp_dop op;
    memset(&sm, 0, sizeof sm);
    int rc = ncp_dop_init(&op, p, p->has_dual ? NCP_DOP_DENSE : NCP_DOP_LOWRANK, err);
    if (rc) return rc;
    if ((rc = ncp_sap_model_build(p, &op, NCP_SAP_BETA, sigma, &sm, err))) {
        ncp_dop_free(&op);
        return rc;
    }
    size_t mn = (size_t)m * nv + 1;
    double *H = ncp_malloc(err, (size_t)nv * nv, sizeof(double));
    double *Jd = ncp_malloc(err, mn, sizeof(double)), *GJ = ncp_calloc(err, mn, sizeof(double));
    double *uh = ncp_malloc(err, 2 * (size_t)m + 1, sizeof(double));
    double *G9 = ncp_malloc(err, 9 * (size_t)p->nblocks + 1, sizeof(double));
    double *ev = ncp_malloc(err, (size_t)nv, sizeof(double));
    if (!H || !Jd || !GJ || !uh || !G9 || !ev) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    memcpy(H, p->A, (size_t)nv * nv * sizeof(double));
    ncp_csr_to_dense(&p->J, Jd);
    ncp_csr_gemv(&p->J, 1.0, v, 0.0, uh);
    for (int r = 0; r < m; r++) uh[r] += p->e[r] + sm.shift[r];
    ncp_sap_eval(p, &sm, uh, uh + m, G9);
    for (int b = 0; b < p->nblocks; b++) { /* GJ = blockdiag(G_b) J */
        int r = p->blocks[b].row, s = ncp_block_type_size(p->blocks[b].type);
        const double *G = G9 + 9 * (size_t)b;
        for (int c = 0; c < nv; c++)
            for (int i = 0; i < s; i++) {
                double x = 0;
                for (int j = 0; j < s; j++) x += G[i + s * j] * Jd[r + j + (size_t)c * m];
                GJ[r + i + (size_t)c * m] = x;
            }
    }
    if (m > 0) ncp_gemm(1, 0, nv, nv, m, 1.0, Jd, GJ, 1.0, H); /* H = A + J^T (G J) */
    ncp_symmetrize(nv, H);
    if ((rc = ncp_sym_eig(nv, H, ev, err))) goto done;
    *cond = ev[0] > 0 ? ev[nv - 1] / ev[0] : INFINITY;
done:
    free(H);
    free(Jd);
    free(GJ);
    free(uh);
    free(G9);
    free(ev);
    ncp_sap_model_free(&sm);
    ncp_dop_free(&op);
    return rc;
}

/* After each solve: the mean slip speed |u_t| (u = J v + e at the driver's v) and mu over the
 * loaded contacts (lambda_n > 1e-3 of the largest: the active_contacts rule) and their count;
 * at the last step also the Hessian's condition number at that v (Fig. 15: "in the final
 * configuration"). */
static int c23_slip_solved(const ncp_study_sim *sm, int step, int n, const ncp_problem *p,
                           const double *lambda, const double *v, double *row, ncp_error *err)
{
    if (!v) return NCP_OK;
    double *u = ncp_malloc(err, (size_t)p->m + 1, sizeof(double)), lmax = 0, slip = 0, mu = 0;
    if (!u) return NCP_ERR_NOMEM;
    ncp_csr_gemv(&p->J, 1.0, v, 0.0, u);
    for (int r = 0; r < p->m; r++) u[r] += p->e[r];
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].type == NCP_CONTACT && lambda[p->blocks[b].row] > lmax)
            lmax = lambda[p->blocks[b].row];
    int loaded = 0;
    for (int b = 0; b < p->nblocks; b++) {
        int r0 = p->blocks[b].row;
        if (p->blocks[b].type != NCP_CONTACT || !(lambda[r0] > 1e-3 * lmax)) continue;
        slip += hypot(u[r0 + 1], u[r0 + 2]);
        mu += p->blocks[b].mu;
        loaded++;
    }
    free(u);
    row[0] = loaded ? slip / loaded : NAN;
    row[1] = loaded;
    row[2] = loaded ? mu / loaded : NAN;
    if (step < n - 1) return NCP_OK;
    return c23_hessian_cond(p, v, sm->arg, &row[3], err);
}

const ncp_study_observer c23_slip_observer = {
    {"slip", "loaded", "mu", "cond", NULL}, NULL, c23_slip_solved};

/* ---- the spring-cylinder ---- */

/* The scene with integrator sm->variant, step sm->arg and n steps (its capture schedule
 * dropped: the sim captures nothing). */
static int c23_cyl_variant(const ncp_study_sim *sm, const char *path, int n, ncp_scene **out,
                           ncp_error *err)
{
    ncp_scene *base = NULL;
    cJSON *root = NULL, *dyn = NULL;
    char name[96];
    int rc = ncp_scene_load(path, ncp_registry_catalog(), &base, err);
    if (rc) return rc;
    root = cJSON_Parse(ncp_scene_text(base));
    cJSON *bench = root ? cJSON_GetObjectItemCaseSensitive(root, "benchmark") : NULL;
    dyn = cJSON_CreateObject();
    int ok = root && cJSON_IsObject(bench) && dyn && sm->variant &&
             cJSON_AddStringToObject(dyn, "integrator", sm->variant) != NULL;
    if (ok) {
        static const char *const drop[] = {"every", "steps", "quick_steps", "skip"};
        for (int i = 0; i < 4; i++) cJSON_DeleteItemFromObjectCaseSensitive(bench, drop[i]);
        cJSON_DeleteItemFromObjectCaseSensitive(root, "duration");
        cJSON_DeleteItemFromObjectCaseSensitive(root, "dynamics");
        snprintf(name, sizeof name, "castro-spring-cylinder-%s-h%g", sm->variant, sm->arg);
        ok &= cJSON_ReplaceItemInObjectCaseSensitive(root, "timestep",
                                                     cJSON_CreateNumber(sm->arg));
        ok &= cJSON_ReplaceItemInObjectCaseSensitive(root, "name", cJSON_CreateString(name));
        ok &= cJSON_AddNumberToObject(root, "steps", n) != NULL;
        ok &= cJSON_AddItemToObject(root, "dynamics", dyn);
        if (ok) dyn = NULL;
    }
    if (!ok)
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s: cannot change its timestep, steps and "
                           "integrator (expected a benchmark object)", path);
    else
        rc = ncp_fig_scene_from_json(root, path, out, err);
    cJSON_Delete(dyn);
    cJSON_Delete(root);
    ncp_scene_free(base);
    return rc;
}

int c23_cyl_energy_scene(const ncp_study_sim *sm, const ncp_fig_opts *o, const char *path,
                         struct ncp_scene **out, ncp_error *err)
{
    (void)o;
    return c23_cyl_variant(sm, path, (int)ceil(C23_CYL_PERIODS * C23_CYL_PERIOD / sm->arg), out,
                           err);
}

int c23_cyl_order_scene(const ncp_study_sim *sm, const ncp_fig_opts *o, const char *path,
                        struct ncp_scene **out, ncp_error *err)
{
    double T = o->quick ? C23_CYL_T_QUICK : C23_CYL_T;
    return c23_cyl_variant(sm, path, (int)lround(T / sm->arg), out, err);
}

/* At each step's start: the x joint's coordinate (the cylinder's centre, m), the spring's
 * energy 1/2 k_s x^2 (k_s the x joint's kp) and the line contact's 1/2 K d^2 (K: the two
 * contacts of the capsule's material, d = R - z the penetration of the floor). */
static int c23_cyl_state(const ncp_study_sim *sm, int step, int n, const struct ncp_world *w,
                         double *row, ncp_error *err)
{
    (void)sm, (void)step, (void)n;
    const ncp_model *m = w->model;
    int bx = ncp_world_find_body(w, "cyl/slider_x"), bw = ncp_world_find_body(w, "cyl/wheel");
    if (bx < 0 || bw < 0 || m->bodies[bx].qpos < 0 || m->nrobots != 1 ||
        m->robots[0].ctrl.njoints != 1 || m->robots[0].ctrl.joints[0] != bx ||
        m->bodies[bw].nshapes != 1 || m->shapes[m->bodies[bw].shape0].type != NCP_SHAPE_CAPSULE)
        return ncp_error_set(err, NCP_ERR_INPUT, "castro-spring-cylinder.json: expected robot "
                             "cyl with links slider_x (controlled) and wheel (one capsule)");
    const ncp_shape_model *s = &m->shapes[m->bodies[bw].shape0];
    double x = w->q[m->bodies[bx].qpos], d = s->radius - w->pos[3 * bw + 2];
    row[0] = x;
    row[1] = 0.5 * m->robots[0].ctrl.kp[0] * x * x;
    row[2] = 0.5 * 2 * m->materials[s->material].stiffness * d * d;
    return NCP_OK;
}

const ncp_study_observer c23_cyl_observer = {{"x", "spring", "contact", NULL}, c23_cyl_state,
                                             NULL};
