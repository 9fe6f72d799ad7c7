/* The step's block route for many free bodies (sim/dynamics.h NCP_BLOCK_MASS_NDOF, issue 13):
 * 130 boxes (780 dof, above the threshold), 110 on the ground and 20 stacked on others, so that
 * contacts couple bodies. The same scene is run again with the dense route forced
 * (ncp_model.block_mass_ndof), which is the independent computation the block route must
 * reproduce: the problem's A (exactly), D and v_f (to 1e-12 relative), the step's velocities
 * (to 1e-12); then the block problem's round trip through problems.h5 (A_sparse exactly, D and
 * v_f bit for bit: the store recomputes them with the same function), a dual solver solving it
 * and a primal-dense solver reporting it unsupported. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/la.h"
#include "core/problem.h"
#include "scene/scene.h"
#include "sim/assemble.h"
#include "sim/dynamics.h"
#include "sim/step.h"
#include "sim/world.h"
#include "solve/harness.h"
#include "solvers/registry.h"
#include "store/store.h"
#include "tcheck.h"
#include "testutil.h"

enum { NGROUND = 110, NSTACK = 20, SIDE = 11 };

static ncp_scene *make_scene(void)
{
    size_t cap = 256 * (NGROUND + NSTACK) + 1024, n = 0;
    char *js = malloc(cap);
    if (!js) return NULL;
    n += (size_t)snprintf(js + n, cap - n, "{\"name\":\"blockmass\",\"timestep\":0.01,\"steps\":1,"
                          "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]}");
    for (int i = 0; i < NGROUND + NSTACK; i++) {
        int k = i < NGROUND ? i : (i - NGROUND) * 5; /* stacked boxes sit on every 5th box */
        double x = 0.25 * (k % SIDE), y = 0.25 * (k / SIDE), z = i < NGROUND ? 0.099 : 0.297;
        /* a small turn of the stacked boxes gives their frames and inertias off-axis terms */
        n += (size_t)snprintf(js + n, cap - n, ",{\"name\":\"b%d\",\"type\":\"dynamic\",\"mass\":%g,"
                              "\"position\":[%.17g,%.17g,%.17g],\"velocity\":[0.1,%g,-0.2],"
                              "\"shapes\":[{\"type\":\"box\",\"half_extents\":[0.1,0.1,0.1]}]}",
                              i, 1.0 + 0.01 * i, x + (i >= NGROUND ? 0.03 : 0.0), y, z,
                              0.01 * (i % 7));
    }
    snprintf(js + n, cap - n, "]}");
    ncp_error err = {0};
    ncp_scene *s = NULL;
    CHECK_OK(ncp_scene_parse(js, "blockmass.json", NULL, &s, &err), &err);
    free(js);
    return s;
}

/* the relative difference of the two computations (testutil.h) */
static double rel_diff(size_t n, const double *a, const double *b)
{
    return tutil_reldiff(n, a, b, 0.0);
}

static void set_block_threshold(ncp_scene *s, int ndof)
{
    /* the test's switch between the routes: the model is the scene's, not shared */
    ((ncp_model *)ncp_scene_model(s))->block_mass_ndof = ndof;
}

/* A fixed impulse independent of D (1 N s along every contact normal), so that the two routes'
 * velocities differ only by their arithmetic; v for a dense A by a dense Cholesky, none for
 * the block route (the step computes it, step.h). */
static int fixed_solve(void *ctx, const ncp_problem *p, const double *lambda0,
                       ncp_step_solve_out *out, ncp_error *err)
{
    (void)ctx;
    (void)lambda0;
    ncp_zero(p->m, out->lambda);
    for (int i = 0; i < p->nblocks; i++)
        if (p->blocks[i].type == NCP_CONTACT) out->lambda[p->blocks[i].row] = 0.01;
    if (p->has_sparse_primal) return NCP_OK;
    int n = p->nv;
    double *L = malloc((size_t)n * n * sizeof *L);
    if (!L) return ncp_error_set(err, NCP_ERR_NOMEM, "test: out of memory");
    memcpy(L, p->A, (size_t)n * n * sizeof *L);
    memcpy(out->v, p->b, (size_t)n * sizeof *out->v);
    ncp_csr_gemv_t(&p->J, 1.0, out->lambda, 1.0, out->v);
    int rc = ncp_chol_factor(n, L, err);
    if (!rc) rc = ncp_chol_solve(n, L, 1, out->v, err);
    free(L);
    return rc;
}

static void assemble_at_start(ncp_scene *s, ncp_problem *p)
{
    ncp_error err = {0};
    CHECK_OK(ncp_model_initial_problem(ncp_scene_model(s), p, &err), &err);
}

int main(void)
{
    ncp_error err = {0};
    ncp_scene *s = make_scene();
    if (!s) return tcheck_exit("blockmass");
    const ncp_model *m = ncp_scene_model(s);
    CHECK(m->nv == 6 * (NGROUND + NSTACK));
    CHECK(m->nv > NCP_BLOCK_MASS_NDOF && ncp_model_block_mass(m));

    /* 0. the memory prediction counts the 6 x 6 blocks, not n_dof^2 (scene_mem.c) */
    ncp_scene_mem mem;
    CHECK_OK(ncp_scene_memory(s, &mem, &err), &err);
    CHECK(mem.dof_bytes == 8.0 * 3.0 * 36.0 * (NGROUND + NSTACK));
    CHECK(mem.rows >= 3 * 4 * (NGROUND + NSTACK)); /* every box touches the ground or a box */

    /* 1. the captured problem: block route against the dense route */
    ncp_problem pb, pd;
    set_block_threshold(s, 0);
    assemble_at_start(s, &pb);
    set_block_threshold(s, INT_MAX);
    CHECK(!ncp_model_block_mass(m));
    CHECK_OK(ncp_scene_memory(s, &mem, &err), &err);
    CHECK(mem.dof_bytes == 8.0 * 3.0 * (double)m->nv * m->nv);
    assemble_at_start(s, &pd);
    CHECK(pb.has_sparse_primal && !pb.has_primal && !pb.A && !pb.has_dual && pb.vf);
    CHECK(pd.has_primal && !pd.has_sparse_primal && !pd.has_dual && pd.vf);
    /* D on demand, for the comparison of the two routes below */
    CHECK_OK(ncp_problem_need_dual(&pb, &err), &err);
    CHECK_OK(ncp_problem_need_dual(&pd, &err), &err);
    CHECK(pb.m == pd.m && pb.nv == pd.nv && pb.m > 3 * NGROUND);
    printf("blockmass: nv = %d, m = %d, A_sparse nnz = %d\n", pb.nv, pb.m, pb.A_sparse.nnz);
    if (pb.m == pd.m && pb.nv == pd.nv && pb.has_sparse_primal) {
        int nv = pb.nv;
        CHECK(pb.A_sparse.nnz == 36 * nv / 6); /* one full 6 x 6 block per free body */
        double *Ad = calloc((size_t)nv * nv, sizeof *Ad);
        CHECK(Ad != NULL);
        if (Ad) {
            ncp_csr_to_dense(&pb.A_sparse, Ad);
            CHECK(memcmp(Ad, pd.A, (size_t)nv * nv * sizeof *Ad) == 0);
            free(Ad);
        }
        CHECK(memcmp(pb.b, pd.b, (size_t)nv * sizeof *pb.b) == 0);
        CHECK(memcmp(pb.e, pd.e, (size_t)pb.m * sizeof *pb.e) == 0);
        CHECK(pb.J.nnz == pd.J.nnz && memcmp(pb.J.val, pd.J.val, (size_t)pb.J.nnz * sizeof(double)) == 0);
        double dD = rel_diff((size_t)pb.m * pb.m, pb.D, pd.D), dv = rel_diff((size_t)pb.m, pb.vf, pd.vf);
        printf("blockmass: D rel. diff %.3g, v_f rel. diff %.3g\n", dD, dv);
        CHECK(dD <= 1e-12);
        CHECK(dv <= 1e-12);
    }

    /* 2. one step by each route from the same state, the same impulses; both integrators
     * (the midpoint rule iterates with the block factor and mass matrix, dynamics.c) */
    ncp_step_opts o = {.driver = "fixed", .solve = fixed_solve, .solve_ctx = NULL, .warm_start = 0};
    for (int integ = 0; integ < 2; integ++) {
        ((ncp_model *)m)->integrator = integ ? NCP_INTEGRATOR_MIDPOINT : NCP_INTEGRATOR_THETA;
        ncp_world *wb = NULL, *wd = NULL;
        set_block_threshold(s, 0);
        CHECK_OK(ncp_world_create(m, &wb, &err), &err);
        ncp_step_info ib, id;
        CHECK_OK(ncp_world_step(wb, &o, NULL, NULL, &ib, &err), &err);
        set_block_threshold(s, INT_MAX);
        CHECK_OK(ncp_world_create(m, &wd, &err), &err);
        CHECK_OK(ncp_world_step(wd, &o, NULL, NULL, &id, &err), &err);
        if (wb && wd) {
            CHECK(ib.nrows == id.nrows && ib.nrows > 0);
            double dv = rel_diff((size_t)m->nv, wb->v, wd->v), dq = rel_diff((size_t)m->nq, wb->q, wd->q);
            printf("blockmass: %s step: velocities rel. diff %.3g, positions %.3g\n",
                   integ ? "midpoint" : "theta", dv, dq);
            CHECK(dv <= 1e-12);
            CHECK(dq <= 1e-12);
            CHECK(wb->v[0] != 0.0); /* the state moved: the comparison is not of zeros */
        }
        ncp_world_free(wb);
        ncp_world_free(wd);
    }
    ((ncp_model *)m)->integrator = NCP_INTEGRATOR_THETA;

    /* 3. problems.h5 round trip of the block problem, then solves */
    char path[] = "/tmp/ncp_blockmass_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    ncp_store *st = NULL;
    pb.name = strdup("000000");
    pb.scene = strdup("blockmass");
    pb.driver = strdup("");
    CHECK_OK(ncp_store_create(path, "blockmass", "{}", 1, &st, &err), &err);
    if (st) {
        /* as captured: sparse primal data, v_f, no D (built on demand) */
        ncp_problem pz;
        CHECK_OK(ncp_problem_copy(&pz, &pb, &err), &err);
        CHECK(ncp_problem_drop_dual(&pz) == 1 && !pz.has_dual && !pz.has_primal);
        CHECK_OK(ncp_store_append(st, &pz, &err), &err);
        ncp_problem_free(&pz);
        CHECK_OK(ncp_store_close(st, &err), &err);
    }
    ncp_problem *rd = NULL;
    int nr = 0;
    CHECK_OK(ncp_load_problems(path, &rd, &nr, &err), &err);
    CHECK(nr == 1);
    if (nr == 1) {
        const ncp_problem *q = &rd[0];
        CHECK(q->has_sparse_primal && !q->has_primal && !q->A && !q->has_dual && q->structure);
        CHECK(q->A_sparse.nnz == pb.A_sparse.nnz);
        if (q->A_sparse.nnz == pb.A_sparse.nnz) {
            CHECK(memcmp(q->A_sparse.rowptr, pb.A_sparse.rowptr, (size_t)(pb.nv + 1) * sizeof(int)) == 0);
            CHECK(memcmp(q->A_sparse.col, pb.A_sparse.col, (size_t)pb.A_sparse.nnz * sizeof(int)) == 0);
            CHECK(memcmp(q->A_sparse.val, pb.A_sparse.val, (size_t)pb.A_sparse.nnz * sizeof(double)) == 0);
        }
        ncp_problem qd; /* the D a consumer builds on demand: the capture's, bit for bit */
        double *own = NULL;
        CHECK_OK(ncp_problem_dual_view(q, &qd, &own, &err), &err);
        CHECK(own && memcmp(qd.D, pb.D, (size_t)pb.m * pb.m * sizeof(double)) == 0);
        free(own);
        CHECK(memcmp(q->vf, pb.vf, (size_t)pb.m * sizeof(double)) == 0);

        /* a dual solver solves it; a primal-dense one is unsupported (sparse A) */
        ncp_harness_opts ho;
        ncp_harness_opts_default(&ho);
        ho.unsupported_ok = 1;
        ncp_result res;
        const ncp_solver_desc *pgs = ncp_solver_find("pgs"), *pr = ncp_solver_find("admm-nosub");
        CHECK(pgs && pr);
        if (pgs) {
            CHECK_OK(ncp_harness_solve(pgs, q, NULL, NULL, NULL, &ho, &res, &err), &err);
            CHECK(res.status != NCP_STATUS_UNSUPPORTED && res.status != NCP_STATUS_FAILED && res.lambda);
            ncp_result_free(&res);
        }
        if (pr) {
            CHECK_OK(ncp_harness_solve(pr, q, NULL, NULL, NULL, &ho, &res, &err), &err);
            CHECK(res.status == NCP_STATUS_UNSUPPORTED && res.unsupported == NCP_UNSUP_SPARSE);
            ncp_result_free(&res);
        }
    }
    ncp_problems_free(rd, nr);
    unlink(path);
    ncp_problem_free(&pb);
    ncp_problem_free(&pd);
    ncp_scene_free(s);
    return tcheck_exit("blockmass");
}
