/* NCP report 2025 Alg. 5 (see splitting.h). */
#include "solvers/splitting.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/common.h"
#include "core/la.h"

void ncp_split_defaults(ncp_split_opts *o)
{
    memset(o, 0, sizeof *o);
    o->local = NCP_SPLIT_NB;
    o->nb.method = NCP_NB_EXACT;
    o->nb.bisect_tol = 1e-12;
    o->nb.bisect_max = 200;
    o->desaxce = 0;
    o->local_iter = 1;
    o->omega = 1.0;
    o->omega_min = 0.7;
    o->omega_decay = 0.99;
    o->stall_tol = 1e-15;
    o->es_tol = 0.0;
    o->inertia = 0.0;
}

static int documents(const ncp_solver_desc *d, const char *name)
{
    for (const ncp_param_doc *pd = d->params; pd && pd->name; pd++)
        if (strcmp(pd->name, name) == 0) return 1;
    return 0;
}

int ncp_split_params(const ncp_solver_desc *self, const ncp_params *ps, ncp_split_opts *o,
                     ncp_error *err)
{
    const ncp_params *p = ps;
    int rc = NCP_OK;
    const unsigned LO = NCP_PARAM_LO_OPEN, HI = NCP_PARAM_HI_OPEN;
    if (!rc && documents(self, "omega"))
        rc = ncp_solver_param_real(self, p, "omega", 0.0, 1.0, LO, &o->omega, err);
    if (!rc && documents(self, "omega_min"))
        rc = ncp_solver_param_real(self, p, "omega_min", 0.0, 1.0, LO, &o->omega_min, err);
    if (!rc && documents(self, "omega_decay"))
        rc = ncp_solver_param_real(self, p, "omega_decay", 0.0, 1.0, HI, &o->omega_decay, err);
    if (!rc && documents(self, "stall_tol"))
        rc = ncp_solver_param_real(self, p, "stall_tol", 0.0, INFINITY, 0, &o->stall_tol, err);
    if (!rc && documents(self, "local_iter"))
        rc = ncp_solver_param_int(self, p, "local_iter", 1, 1000000, &o->local_iter, err);
    if (!rc && documents(self, "tangent_max"))
        rc = ncp_solver_param_int(self, p, "tangent_max", 0, 1, &o->tangent_max, err);
    if (!rc && documents(self, "desaxce"))
        rc = ncp_solver_param_int(self, p, "desaxce", 0, 1, &o->desaxce, err);
    if (!rc && documents(self, "bisect_tol"))
        rc = ncp_solver_param_real(self, p, "bisect_tol", 0.0, 1.0, LO, &o->nb.bisect_tol, err);
    if (!rc && documents(self, "es_tol"))
        rc = ncp_solver_param_real(self, p, "es_tol", 0.0, INFINITY, LO, &o->es_tol, err);
    if (!rc && documents(self, "inertia"))
        rc = ncp_solver_param_real(self, p, "inertia", 0.0, INFINITY, 0, &o->inertia, err);
    if (!rc && documents(self, "sweep"))
        rc = ncp_solver_param_int(self, p, "sweep", NCP_GS_AUTO, NCP_GS_VELOCITY, &o->sweep,
                                  err);
    return rc;
}

/* The solve's work arrays and fixed data. */
typedef struct split_ws {
    const ncp_problem *p;
    const ncp_split_opts *o;
    double *step;           /* nblocks: ncp_block_steps (scalar rows); 0 = skip the block */
    ncp_local_contact *lc;  /* nblocks (only contact entries are used) */
    double *lambda, *u;
    ncp_gs_vel vel;         /* u = D lambda + v_f through the sweep (route o->sweep) */
} split_ws;

/* The local projector of the configuration. */
static void local_solve(const split_ws *w, const ncp_local_contact *lc, const double lam[3],
                        const double c[3], const double s[3], double out[3])
{
    switch (w->o->local) {
    case NCP_SPLIT_PCCP:
        ncp_local_pccp(lc, lam, c, s, out);
        break;
    case NCP_SPLIT_PNCP:
        ncp_local_pncp(lc, w->o->tangent_max, lam, c, s, out);
        break;
    default:
        ncp_local_nb(lc, &w->o->nb, lam, c, s, out);
        break;
    }
}

/* Alg. 5 lines 15-18 for one contact block. Returns max |change|. */
static double sweep_contact(split_ws *w, const ncp_block *b, const ncp_local_contact *lc,
                            double omega)
{
    double *lam = w->lambda + b->row, uk[3];
    const double *G = lc->G;
    double c[3], s[3] = {0.0, 0.0, 0.0}, nl[3], d[3];
    ncp_gs_vel_get(&w->vel, b->row, 3, uk);
    for (int i = 0; i < 3; i++) /* line 15: v_f,k^i, the velocity without this contact */
        c[i] = uk[i] - (G[i] * lam[0] + G[i + 3] * lam[1] + G[i + 6] * lam[2]);
    if (w->o->desaxce) s[0] = b->mu * hypot(uk[1], uk[2]); /* line 16: Gamma(u_k) */
    local_solve(w, lc, lam, c, s, nl);
    for (int it = 1; it < w->o->local_iter; it++) {
        if (w->o->desaxce) {
            double ul[3];
            for (int i = 0; i < 3; i++)
                ul[i] = G[i] * nl[0] + G[i + 3] * nl[1] + G[i + 6] * nl[2] + c[i];
            s[0] = b->mu * hypot(ul[1], ul[2]);
        }
        local_solve(w, lc, nl, c, s, nl);
    }
    double dmax = 0.0;
    for (int i = 0; i < 3; i++) {
        d[i] = omega * (nl[i] - lam[i]); /* line 18 (eq. 145) */
        lam[i] += d[i];
        dmax = fmax(dmax, fabs(d[i]));
    }
    ncp_gs_vel_add(&w->vel, b->row, 3, d);
    return dmax;
}

static double sweep(split_ws *w, double omega)
{
    const ncp_problem *p = w->p;
    double dmax = 0.0;
    ncp_gs_vel_begin(&w->vel);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        double d = 0.0;
        if (b->type == NCP_CONTACT) {
            if (w->lc[bi].active) d = sweep_contact(w, b, &w->lc[bi], omega);
        } else if (w->step[bi] > 0.0) {
            d = ncp_pgs_scalar(&w->vel, b, w->step[bi], omega, w->lambda);
        }
        dmax = fmax(dmax, d);
    }
    ncp_gs_vel_end(&w->vel);
    return dmax;
}

/* f(lambda) = 1/2 lambda^T D lambda + lambda^T v_f = 1/2 lambda^T (u + v_f) (eq. 17a). */
static double objective(const split_ws *w)
{
    double f = 0.0;
    for (int i = 0; i < w->p->m; i++) f += w->lambda[i] * (w->u[i] + w->vel.vf[i]);
    return 0.5 * f;
}

/* I_total of eq. 160: the option, else tr(A), else m (A = I of the dual-only conversion,
 * docs/design.md). */
static double total_inertia(const ncp_problem *p, const ncp_split_opts *o)
{
    if (o->inertia > 0.0) return o->inertia;
    if (p->has_primal && p->A && p->nv > 0) {
        double t = 0.0;
        for (int i = 0; i < p->nv; i++) t += p->A[i + (size_t)i * p->nv];
        if (t > 0.0) return t;
    }
    return p->m > 0 ? (double)p->m : 1.0;
}

static void iterate(split_ws *w, const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run)
{
    const ncp_problem *p = w->p;
    const ncp_split_opts *o = w->o;
    int m = p->m;
    if (in->lambda0) ncp_copy(m, in->lambda0, w->lambda);
    ncp_gs_vel_start(&w->vel, w->lambda); /* u = D lambda0 + v_f */
    double inertia = total_inertia(p, o);
    double f_old = objective(w);
    double omega = o->omega;

    int status = -1, k = 0;
    if (ncp_run_setup_done(run) == 0) {
        for (k = 1;; k++) {
            double dmax = sweep(w, omega);
            int stalled = dmax <= o->stall_tol * fmax(1.0, ncp_norminf(m, w->lambda));
            if (o->es_tol > 0.0) {
                double f = objective(w);
                if (fabs(f - f_old) / inertia <= o->es_tol) stalled = 1; /* eq. 160 */
                f_old = f;
            }
            if (ncp_solver_iter_end(run, k, m, w->lambda, stalled, &status)) break;
            omega = o->omega_min + o->omega_decay * (omega - o->omega_min); /* line 25 */
        }
    }
    ncp_solver_finish(out, m, w->lambda, k, status);
}

int ncp_split_solve(const ncp_solver_desc *self, const ncp_split_opts *o, const ncp_solve_in *in,
                    ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    const ncp_problem *p = in->prob;
    int m = p->m, rc;
    split_ws w = {.p = p, .o = o};
    w.step = ncp_calloc(err, (size_t)p->nblocks, sizeof(double));
    w.lc = ncp_calloc(err, (size_t)p->nblocks, sizeof(ncp_local_contact));
    w.lambda = ncp_calloc(err, (size_t)m, sizeof(double));
    w.u = ncp_calloc(err, (size_t)m, sizeof(double));
    if (!w.step || !w.lc || !w.lambda || !w.u) {
        rc = NCP_ERR_NOMEM;
        goto done;
    }
    if ((rc = ncp_gs_vel_setup(&w.vel, p, o->sweep, w.u, err)) ||
        (rc = ncp_block_steps_diag(p, w.vel.dblk, w.step, NULL, err)))
        goto fail;
    /* the same negligibility threshold as ncp_block_steps */
    double dmin = 1e-14 * ncp_gs_diag_max(p, w.vel.dblk);
    for (int bi = 0; bi < p->nblocks; bi++) {
        const ncp_block *b = &p->blocks[bi];
        if (b->type != NCP_CONTACT) continue;
        rc = ncp_local_contact_init(&w.lc[bi], w.vel.dblk + 9 * (size_t)bi, 3, 0, b->mu, dmin,
                                    err);
        if (rc) {
            ncp_error_prefix(err, "contact block at row %d: ", b->row);
            goto fail;
        }
    }
    ncp_note_gs(run, &w.vel);
    iterate(&w, in, out, run);
    goto done;
fail:
    ncp_error_prefix(err, "%s: ", self->name);
done:
    ncp_gs_vel_free(&w.vel);
    free(w.step);
    free(w.lc);
    free(w.lambda);
    free(w.u);
    return rc;
}

int ncp_split_run(const ncp_solver_desc *self, int local, int nb_method, int desaxce,
                  const ncp_solve_in *in, ncp_solve_out *out, ncp_run *run, ncp_error *err)
{
    ncp_split_opts o;
    ncp_split_defaults(&o);
    o.local = local;
    o.nb.method = nb_method;
    o.desaxce = desaxce;
    int rc = ncp_split_params(self, in->params, &o, err);
    if (rc) return rc;
    return ncp_split_solve(self, &o, in, out, run, err);
}
