/* Mass matrix (composite rigid body algorithm), inverse dynamics (recursive Newton-Euler),
 * energy, and the integrators' step matrices (world.h).
 *
 * Spatial vectors are in world coordinates about the world origin (world.h): a motion vector
 * is (omega; v_O), a force vector (n_O; f). The spatial inertia of a body about the origin is
 * kept as 10 numbers, mass m, first moment h = m c and the rotational inertia about the origin
 * I_O = I_c - m [c]x^2, so that (Featherstone 2008, ch. 2, taken about the origin)
 *     I (omega; v) = (I_O omega + h x v;  m v - h x omega),
 * and composite inertias are plain sums of these numbers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/la.h"
#include "core/spatial.h"
#include "sim/world.h"
#include "sim/controllers.h"
#include "sim/dynamics.h"
#include "sim/kinematics.h"

typedef struct sp_inertia {
    double m, h[3], I[9]; /* I row-major, about the world origin */
} sp_inertia;

static void body_inertia(const ncp_world *w, int b, sp_inertia *out)
{
    const ncp_body_model *bd = &w->model->bodies[b];
    const double *c = w->pos + 3 * b, *Ic = w->inertia_w + 9 * b;
    double m = bd->mass, cc = ncp_v3_dot(c, c);
    out->m = m;
    ncp_v3_scale(c, m, out->h);
    /* I_O = I_c + m (|c|^2 I - c c^T)  (parallel axes) */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) out->I[3 * i + j] = Ic[3 * i + j] + m * ((i == j ? cc : 0.0) - c[i] * c[j]);
}

static void inertia_add(sp_inertia *a, const sp_inertia *b)
{
    a->m += b->m;
    for (int i = 0; i < 3; i++) a->h[i] += b->h[i];
    for (int i = 0; i < 9; i++) a->I[i] += b->I[i];
}

/* F = I V */
static void inertia_apply(const sp_inertia *in, const double V[6], double F[6])
{
    double hv[3], hw[3], Iw[3];
    ncp_m3_mulv(in->I, V, Iw);
    ncp_v3_cross(in->h, V + 3, hv);
    ncp_v3_cross(in->h, V, hw);
    for (int i = 0; i < 3; i++) {
        F[i] = Iw[i] + hv[i];
        F[3 + i] = in->m * V[3 + i] - hw[i];
    }
}

/* motion x motion: (w; v) x (w2; v2) = (w x w2; w x v2 + v x w2) */
static void cross_m(const double a[6], const double b[6], double out[6])
{
    double t1[3], t2[3], r[6];
    ncp_v3_cross(a, b, r);
    ncp_v3_cross(a, b + 3, t1);
    ncp_v3_cross(a + 3, b, t2);
    ncp_v3_add(t1, t2, r + 3);
    memcpy(out, r, sizeof r);
}

/* motion x* force: (w; v) x* (n; f) = (w x n + v x f; w x f) */
static void cross_f(const double a[6], const double F[6], double out[6])
{
    double t1[3], t2[3], r[6];
    ncp_v3_cross(a, F, t1);
    ncp_v3_cross(a + 3, F + 3, t2);
    ncp_v3_add(t1, t2, r);
    ncp_v3_cross(a, F + 3, r + 3);
    memcpy(out, r, sizeof r);
}

/* force . motion */
static double dot6(const double F[6], const double S[6])
{
    double s = 0.0;
    for (int i = 0; i < 6; i++) s += F[i] * S[i];
    return s;
}

/* Entry (r, c) of a step matrix (r, c dofs of one subsystem): dense nv x nv column-major, or
 * in its subsystem's packed n x n block. */
static size_t sm_index(const ncp_model *m, const ncp_stepmat *A, int r, int c)
{
    if (!A->packed) return (size_t)c * m->nv + r;
    int j = m->bodies[m->dof_body[c]].subsystem, d0 = m->sub_dof_start[j];
    return A->off[j] + (size_t)(c - d0) * m->sub_ndof[j] + (r - d0);
}

/* Subsystem j's diagonal block: its first entry and leading dimension. */
static double *sm_block(const ncp_model *m, const ncp_stepmat *A, int j, int *ld)
{
    int d0 = m->sub_dof_start[j];
    *ld = A->packed ? m->sub_ndof[j] : m->nv;
    return A->packed ? A->a + A->off[j] : A->a + (size_t)d0 * m->nv + d0;
}

size_t ncp_stepmat_count(const ncp_model *m, int packed)
{
    if (!packed) return (size_t)m->nv * (size_t)m->nv;
    size_t n = 0;
    for (int j = 0; j < m->nsub; j++) n += (size_t)m->sub_ndof[j] * (size_t)m->sub_ndof[j];
    return n;
}

int ncp_model_block_mass(const ncp_model *m)
{
    return m->nv > (m->block_mass_ndof > 0 ? m->block_mass_ndof : NCP_BLOCK_MASS_NDOF);
}

int ncp_stepmat_alloc(const ncp_model *m, int packed, ncp_stepmat *A, ncp_error *err)
{
    memset(A, 0, sizeof *A);
    A->packed = packed;
    if (packed) {
        A->off = ncp_malloc(err, (size_t)m->nsub + 1, sizeof(size_t));
        if (!A->off) return NCP_ERR_NOMEM;
        A->off[0] = 0;
        for (int j = 0; j < m->nsub; j++)
            A->off[j + 1] = A->off[j] + (size_t)m->sub_ndof[j] * (size_t)m->sub_ndof[j];
    }
    size_t n = ncp_stepmat_count(m, packed);
    A->a = ncp_malloc(err, n ? n : 1, sizeof(double));
    if (!A->a) {
        ncp_stepmat_free(A);
        return NCP_ERR_NOMEM;
    }
    return NCP_OK;
}

void ncp_stepmat_free(ncp_stepmat *A)
{
    free(A->a);
    free(A->off);
    A->a = NULL;
    A->off = NULL;
}

/* y = A x (beta = 0) for a step matrix: one product per block when packed. */
static void sm_gemv(const ncp_model *m, const ncp_stepmat *A, const double *x, double *y)
{
    if (!A->packed) {
        ncp_gemv(0, m->nv, m->nv, 1.0, A->a, x, 0.0, y);
        return;
    }
    for (int j = 0; j < m->nsub; j++) {
        int d0 = m->sub_dof_start[j], n = m->sub_ndof[j];
        ncp_gemv(0, n, n, 1.0, A->a + A->off[j], x + d0, 0.0, y + d0);
    }
}

static int mass_matrix(const ncp_world *w, ncp_stepmat *A, ncp_error *err)
{
    /* Composite rigid body algorithm (Featherstone 2008, Table 6.2) in one frame: the composite
     * inertia of the subtree of body i, applied to a column S_k of i's joint, is the force F
     * transmitted through that joint; M[l][k] = S_l . F for the dofs l of i and of every
     * ancestor (no transforms: all quantities are in world coordinates). A body and its
     * ancestors share a subsystem, so every entry falls in a diagonal block. */
    const ncp_model *m = w->model;
    int nb = m->nbodies;
    double *M = A->a;
    memset(M, 0, ncp_stepmat_count(m, A->packed) * sizeof(double));
    sp_inertia *Ic = ncp_malloc(err, (size_t)nb, sizeof *Ic);
    if (!Ic) return NCP_ERR_NOMEM;
    for (int b = 0; b < nb; b++) body_inertia(w, b, &Ic[b]);
    for (int b = nb - 1; b >= 0; b--)
        if (m->bodies[b].parent >= 0) inertia_add(&Ic[m->bodies[b].parent], &Ic[b]);
    for (int b = 0; b < nb; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        for (int k = 0; k < bd->ndof; k++) {
            int dk = bd->dof + k;
            double F[6];
            inertia_apply(&Ic[b], w->S + 6 * (size_t)dk, F);
            for (int a = b; a >= 0; a = m->bodies[a].parent) {
                const ncp_body_model *ba = &m->bodies[a];
                for (int l = 0; l < ba->ndof; l++) {
                    int dl = ba->dof + l;
                    double v = dot6(F, w->S + 6 * (size_t)dl);
                    M[sm_index(m, A, dl, dk)] = v;
                    M[sm_index(m, A, dk, dl)] = v;
                }
            }
        }
        for (int k = 0; k < bd->ndof; k++) M[sm_index(m, A, bd->dof + k, bd->dof + k)] += bd->armature;
    }
    free(Ic);
    return NCP_OK;
}

int ncp_world_mass_matrix(const ncp_world *w, double *M, ncp_error *err)
{
    ncp_stepmat A = {0, M, NULL};
    return mass_matrix(w, &A, err);
}

static void velocity_product(const ncp_world *w, int b, const double *Vp, const double *v, double c[6])
{
    const ncp_body_model *bd = &w->model->bodies[b];
    memset(c, 0, 6 * sizeof(double));
    const double *vb = bd->ndof ? v + bd->dof : NULL;
    switch (bd->joint) {
    case NCP_JOINT_REVOLUTE:
    case NCP_JOINT_PRISMATIC: {
        double sq[6];
        const double *S = w->S + 6 * (size_t)bd->dof;
        for (int i = 0; i < 6; i++) sq[i] = S[i] * vb[0];
        cross_m(Vp, sq, c);
        break;
    }
    case NCP_JOINT_SPHERICAL: {
        const double *o = w->janchor + 3 * b;
        double od[3];
        ncp_v3_cross(Vp, o, od);
        ncp_v3_add(Vp + 3, od, od); /* velocity of the parent point at o */
        ncp_v3_cross(od, vb, c + 3);
        break;
    }
    case NCP_JOINT_FREE: ncp_v3_cross(vb, vb + 3, c + 3); break;
    default: break;
    }
}

int ncp_world_rnea(const ncp_world *w, const double *v, const double *qdd, int gravity,
                   double *tau, ncp_error *err)
{
    /* Recursive Newton-Euler (Featherstone 2008, Table 5.1) in world coordinates; gravity as a
     * fictitious upward acceleration of the base, a_0 = (0; -g). */
    const ncp_model *m = w->model;
    int nb = m->nbodies;
    double *V = ncp_malloc(err, (size_t)nb * 18, sizeof(double));
    if (!V) return NCP_ERR_NOMEM;
    double *Acc = V + 6 * (size_t)nb, *F = V + 12 * (size_t)nb;
    for (int b = 0; b < nb; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        double *Vb = V + 6 * b, *Ab = Acc + 6 * b, c[6];
        static const double zero6[6] = {0, 0, 0, 0, 0, 0};
        double a0[6] = {0, 0, 0, 0, 0, 0};
        if (gravity) ncp_v3_scale(m->gravity, -1.0, a0 + 3);
        const double *Vp = bd->parent >= 0 ? V + 6 * bd->parent : zero6;
        const double *Ap = bd->parent >= 0 ? Acc + 6 * bd->parent : a0;
        velocity_product(w, b, Vp, v, c);
        for (int i = 0; i < 6; i++) {
            Vb[i] = Vp[i];
            Ab[i] = Ap[i] + c[i];
        }
        for (int k = 0; k < bd->ndof; k++) {
            const double *S = w->S + 6 * (size_t)(bd->dof + k);
            double qd = v[bd->dof + k], qa = qdd ? qdd[bd->dof + k] : 0.0;
            for (int i = 0; i < 6; i++) {
                Vb[i] += S[i] * qd;
                Ab[i] += S[i] * qa;
            }
        }
        sp_inertia I;
        double IV[6], IA[6], vxIV[6];
        body_inertia(w, b, &I);
        inertia_apply(&I, Vb, IV);
        inertia_apply(&I, Ab, IA);
        cross_f(Vb, IV, vxIV);
        for (int i = 0; i < 6; i++) F[6 * b + i] = IA[i] + vxIV[i];
    }
    for (int b = nb - 1; b >= 0; b--) {
        const ncp_body_model *bd = &m->bodies[b];
        for (int k = 0; k < bd->ndof; k++) {
            int d = bd->dof + k;
            tau[d] = dot6(F + 6 * b, w->S + 6 * (size_t)d) + bd->armature * (qdd ? qdd[d] : 0.0);
        }
        if (bd->parent >= 0)
            for (int i = 0; i < 6; i++) F[6 * bd->parent + i] += F[6 * b + i];
    }
    free(V);
    return NCP_OK;
}

int ncp_world_energy(const ncp_world *w, double *kinetic, double *potential, ncp_error *err)
{
    const ncp_model *m = w->model;
    double ke = 0.0, pe = 0.0;
    double *tw = ncp_malloc(err, (size_t)m->nbodies * 6, sizeof(double));
    if (!tw) return NCP_ERR_NOMEM;
    ncp_world_body_twists(w, w->v, tw);
    for (int b = 0; b < m->nbodies; b++) {
        const ncp_body_model *bd = &m->bodies[b];
        const double *c = w->pos + 3 * b, *om = tw + 6 * b;
        double vc[3], Iw[3];
        ncp_v3_cross(om, c, vc);
        ncp_v3_add(tw + 6 * b + 3, vc, vc); /* v_c = v_O + omega x c */
        ncp_m3_mulv(w->inertia_w + 9 * b, om, Iw);
        ke += 0.5 * bd->mass * ncp_v3_dot(vc, vc) + 0.5 * ncp_v3_dot(om, Iw);
        pe -= bd->mass * ncp_v3_dot(m->gravity, c);
        for (int k = 0; k < bd->ndof; k++) ke += 0.5 * bd->armature * w->v[bd->dof + k] * w->v[bd->dof + k];
    }
    free(tw);
    *kinetic = ke;
    *potential = pe;
    return NCP_OK;
}

/* Cholesky factor of every subsystem's diagonal block of A, into the same blocks of L (same
 * layout as A). */
static int factor_blocks(const ncp_model *m, const ncp_stepmat *A, ncp_stepmat *L, ncp_error *err)
{
    for (int j = 0; j < m->nsub; j++) {
        int d0 = m->sub_dof_start[j], n = m->sub_ndof[j], lda, ldl;
        const double *Aj = sm_block(m, A, j, &lda);
        double *Lj = sm_block(m, L, j, &ldl);
        /* factorise a packed n x n copy (ld = n), then put it in L's block */
        double *tmp = malloc((size_t)n * n * sizeof(double));
        if (!tmp) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory factoring the mass matrix");
        for (int c = 0; c < n; c++) memcpy(tmp + (size_t)c * n, Aj + (size_t)c * lda, (size_t)n * sizeof(double));
        int rc = ncp_chol_factor(n, tmp, err);
        if (!rc)
            for (int c = 0; c < n; c++) memcpy(Lj + (size_t)c * ldl, tmp + (size_t)c * n, (size_t)n * sizeof(double));
        free(tmp);
        if (rc) return ncp_error_prefix(err, "mass matrix of subsystem %d (dofs %d..%d): ", j, d0, d0 + n - 1);
    }
    return NCP_OK;
}

static int solve_blocks(const ncp_model *m, const ncp_stepmat *L, const double *y, double *x,
                        ncp_error *err)
{
    int nv = m->nv;
    if (x != y) memcpy(x, y, (size_t)nv * sizeof(double));
    for (int j = 0; j < m->nsub; j++) {
        int d0 = m->sub_dof_start[j], n = m->sub_ndof[j], ld;
        const double *Lj = sm_block(m, L, j, &ld);
        if (L->packed) { /* already a packed n x n factor */
            int rc = ncp_chol_solve(n, Lj, 1, x + d0, err);
            if (rc) return rc;
            continue;
        }
        double *tmp = malloc((size_t)n * n * sizeof(double));
        if (!tmp) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory solving with the mass matrix");
        for (int c = 0; c < n; c++) memcpy(tmp + (size_t)c * n, Lj + (size_t)c * ld, (size_t)n * sizeof(double));
        int rc = ncp_chol_solve(n, tmp, 1, x + d0, err);
        free(tmp);
        if (rc) return rc;
    }
    return NCP_OK;
}

int ncp_world_solve_sm(const ncp_world *w, const ncp_stepmat *A, const double *y, double *x,
                       ncp_error *err)
{
    const ncp_model *m = w->model;
    ncp_stepmat L;
    int rc = ncp_stepmat_alloc(m, A->packed, &L, err);
    if (!rc) rc = factor_blocks(m, A, &L, err);
    if (!rc) rc = solve_blocks(m, &L, y, x, err);
    ncp_stepmat_free(&L);
    return rc;
}

int ncp_world_solve(const ncp_world *w, const double *A, const double *y, double *x, ncp_error *err)
{
    ncp_stepmat As = {0, (double *)A, NULL};
    return ncp_world_solve_sm(w, &As, y, x, err);
}

/* The scratch of the midpoint iteration: a copy of the world moved to the midpoint. */
static int midpoint_world(const ncp_world *w, ncp_world **out, ncp_error *err)
{
    int rc = ncp_world_create(w->model, out, err);
    if (rc) return rc;
    (*out)->time = w->time;
    (*out)->step = w->step;
    return NCP_OK;
}

int ncp_world_step_matrices(const ncp_world *w, double *A, double *b, double *diag,
                            double *mscale, ncp_error *err)
{
    ncp_stepmat As = {0, A, NULL};
    return ncp_world_step_matrices_sm(w, &As, b, diag, mscale, err);
}

int ncp_world_step_matrices_sm(const ncp_world *w, ncp_stepmat *As, double *b, double *diag,
                               double *mscale, ncp_error *err)
{
    const ncp_model *m = w->model;
    int nv = m->nv;
    double h = m->h;
    if (nv == 0) {
        if (mscale) *mscale = 1.0;
        return NCP_OK;
    }
    double *buf = ncp_calloc(err, 8 * (size_t)nv, sizeof(double));
    if (!buf) return NCP_ERR_NOMEM;
    double *tau = buf, *kp = buf + nv, *kd = buf + 2 * (size_t)nv, *qref = buf + 3 * (size_t)nv;
    double *bias = buf + 4 * (size_t)nv, *lin = buf + 5 * (size_t)nv, *r = buf + 6 * (size_t)nv;
    double *mdv = buf + 7 * (size_t)nv;
    /* explicit generalised forces: actuation (targets at the end of the step), wrenches */
    double t1 = w->time + h;
    /* gravity compensation g(q_k): the torques of zero velocity and acceleration, by RNEA */
    double *g = NULL;
    int rc = NCP_OK;
    if (ncp_model_gravity_comp(w->model)) {
        g = ncp_calloc(err, 2 * (size_t)nv, sizeof(double));
        rc = g ? ncp_world_rnea(w, g + nv, NULL, 1, g, err) : NCP_ERR_NOMEM;
    }
    if (!rc) rc = ncp_world_actuation(w, t1, g, tau, kp, kd, qref, err);
    free(g);
    ncp_world_external_forces(w, w->time, tau);
    if (rc) {
        free(buf);
        return rc;
    }
    int midpoint = m->integrator == NCP_INTEGRATOR_MIDPOINT;
    /* s scales M; cq is d(q used by the spring)/d(v) / h: the implicit gains see the position at
     * the end of the step (theta: q_k + h v_hat) or at the midpoint (q_k + h/2 (v_k + v)/2) */
    double s = midpoint ? 1.0 : 1.0 / (1.0 - m->theta);
    double cd = midpoint ? 0.5 : 1.0, cq = midpoint ? 0.25 : 1.0;
    if ((rc = mass_matrix(w, As, err))) {
        free(buf);
        return rc;
    }
    double *A = As->a;
    size_t na = ncp_stepmat_count(m, As->packed);
    for (size_t k = 0; k < na; k++) A[k] *= s;
    for (int k = 0; k < nv; k++) {
        const ncp_body_model *bd = &m->bodies[m->dof_body[k]];
        /* linear joint-space terms: damping and the controller's gains, implicit */
        lin[k] = cd * h * (bd->damping + kd[k]) + cq * h * h * kp[k];
        A[sm_index(m, As, k, k)] += lin[k];
        if (diag) diag[k] = s * bd->armature + lin[k];
    }
    if (mscale) *mscale = s;
    if (!midpoint) {
        /* b = s M v_k + h (tau + Kp (qref - q_k) - bias(q_k, v_k)); A v_hat = b reproduces
         * M (v_{k+1} - v_k) = h (tau + Kp (qref - q_k - h v_hat) - Kd v_hat - D v_hat - bias) */
        if ((rc = ncp_world_rnea(w, w->v, NULL, 1, bias, err))) {
            free(buf);
            return rc;
        }
        for (int k = 0; k < nv; k++) {
            double f = tau[k] - bias[k];
            const ncp_body_model *bd = &m->bodies[m->dof_body[k]];
            if (kp[k] != 0.0) f += kp[k] * (qref[k] - w->q[bd->qpos + (k - bd->dof)]);
            r[k] = f;
        }
        sm_gemv(m, As, w->v, b);
        for (int k = 0; k < nv; k++) b[k] += h * r[k] - lin[k] * w->v[k];
        free(buf);
        return NCP_OK;
    }
    /* Midpoint (Castro et al. 2023 eqs. 7, 11, 14 with theta = theta_vq = 1/2): find the free end velocity
     * v* with r(v) = M(q_m)(v - v_k) - h (tau + Kp (qref - q_m) - (Kd + D) vbar - bias(q_m, vbar))
     * = 0, vbar = (v_k + v)/2, q_m = q_k (+) (h/2) vbar, by chord iterations v <- v - A^{-1} r(v)
     * (A = dr/dv up to the configuration dependence of M and the bias). Then b = A v*. */
    ncp_stepmat L = {0, NULL, NULL}, M2 = {0, NULL, NULL};
    double *vs = ncp_malloc(err, 2 * (size_t)nv, sizeof(double));
    ncp_world *wm = NULL;
    rc = vs ? ncp_stepmat_alloc(m, As->packed, &L, err) : NCP_ERR_NOMEM;
    if (!rc) rc = ncp_stepmat_alloc(m, As->packed, &M2, err);
    if (!rc) rc = midpoint_world(w, &wm, err);
    if (!rc) rc = factor_blocks(m, As, &L, err);
    double *vbar = vs ? vs + nv : NULL;
    if (!rc) memcpy(vs, w->v, (size_t)nv * sizeof(double));
    int converged = 0;
    for (int it = 0; !rc && it < 50 && !converged; it++) {
        for (int k = 0; k < nv; k++) vbar[k] = 0.5 * (w->v[k] + vs[k]);
        ncp_world_advance_q(w, w->q, vbar, 0.5 * h, wm->q);
        ncp_world_kinematics(wm);
        if ((rc = mass_matrix(wm, &M2, err))) break;
        if ((rc = ncp_world_rnea(wm, vbar, NULL, 1, bias, err))) break;
        for (int k = 0; k < nv; k++) r[k] = vs[k] - w->v[k];
        sm_gemv(m, &M2, r, mdv); /* M(q_m)(v - v_k) */
        for (int k = 0; k < nv; k++) {
            const ncp_body_model *bd = &m->bodies[m->dof_body[k]];
            double f = tau[k] - bias[k] - (bd->damping + kd[k]) * vbar[k];
            if (kp[k] != 0.0) f += kp[k] * (qref[k] - wm->q[bd->qpos + (k - bd->dof)]);
            r[k] = mdv[k] - h * f;
        }
        rc = solve_blocks(m, &L, r, r, err);
        if (rc) break;
        double dmax = 0.0, vmax = 0.0;
        for (int k = 0; k < nv; k++) {
            vs[k] -= r[k];
            dmax = fmax(dmax, fabs(r[k]));
            vmax = fmax(vmax, fabs(vs[k]));
        }
        if (!isfinite(dmax)) break;
        converged = dmax <= 1e-13 * (1.0 + vmax);
    }
    if (!rc && !converged)
        rc = ncp_error_set(err, NCP_ERR_NUMERIC, "step %d (t = %g s): the implicit midpoint iteration "
                           "did not converge in 50 chord steps; use a smaller timestep or the theta "
                           "integrator", w->step, w->time);
    if (!rc) sm_gemv(m, As, vs, b);
    ncp_world_free(wm);
    ncp_stepmat_free(&L);
    ncp_stepmat_free(&M2);
    free(vs);
    free(buf);
    return rc;
}

void ncp_world_integrate(ncp_world *w, const double *v_solved)
{
    const ncp_model *m = w->model;
    int nv = m->nv;
    if (m->integrator == NCP_INTEGRATOR_MIDPOINT) {
        /* v_solved = v_{k+1}; positions move with the mean velocity (Castro et al. 2023 eq. 11) */
        for (int k = 0; k < nv; k++) {
            double vk = w->v[k];
            w->v[k] = 0.5 * (vk + v_solved[k]);
        }
        ncp_world_advance_q(w, w->q, w->v, m->h, w->q);
        if (nv) memcpy(w->v, v_solved, (size_t)nv * sizeof(double));
    } else {
        /* v_solved = v_hat moves the positions (Lee et al. 2025 eq. 2);
         * v_{k+1} = (v_hat - theta v_k) / (1 - theta) */
        ncp_world_advance_q(w, w->q, v_solved, m->h, w->q);
        for (int k = 0; k < nv; k++) w->v[k] = (v_solved[k] - m->theta * w->v[k]) / (1.0 - m->theta);
    }
    w->step++;
    w->time = w->step * m->h; /* not accumulated, so long runs do not drift */
    ncp_world_kinematics(w);
}
