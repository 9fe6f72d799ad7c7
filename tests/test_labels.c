/* Hardness labels (bench/labels.h) against analytic answers:
 *   - one contact, W = diag(2, 0.5, 0.5): rank 3 of 3, cond 4, mu as given, no dofs;
 *   - the contact states at the hand-derived answers of testutil.c's one-contact cases (open,
 *     stick, slide each as derived there);
 *   - a rank-deficient W built by hand: one particle of mass 2 (n = 3) touched by two contacts
 *     with the same frame, W = 0.5 [I I; I I]: eigenvalues 1 (x3) and 0 (x3), rank 3 of 6, cond
 *     +inf, cond on the range 1, contact density 3 * 2 / 3 = 2; the same from the primal data
 *     (F^T F), from W alone (has_primal hidden) and by the estimate (rank bound n = 3);
 *   - a known cond by the estimate: W = diag of 5 distinct values 1..5 repeated (Lanczos finds
 *     the 5-dimensional invariant subspace: cond 5 exactly), and diag(1..90) (64 steps: the
 *     Ritz values bracket inside [1, 90], cond a lower bound within 1 % of 90);
 *   - random primal problems: the exact route from F^T F agrees with the one from W (and with W
 *     built column by column through A's blocks when n > eig_max >= m), and the
 *     estimate on a sparse pile (no dense W) gives lambda_max to 1e-8 and cond_range below the
 *     exact one (a lower bound, as documented);
 *   - the classes of the profile split. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/labels.h"
#include "core/la.h"
#include "tcheck.h"
#include "testutil.h"

static void check_one_contact(void)
{
    ncp_error err = {0};
    ncp_problem p;
    const double G[9] = {2, 0, 0, 0, 0.5, 0, 0, 0, 0.5}, vf[3] = {-1, 0, 0};
    CHECK_OK(tutil_one_contact(&p, G, vf, 0.3, &err), &err);
    ncp_labels L;
    CHECK_OK(ncp_labels_problem(&p, NULL, &L, &err), &err);
    CHECK(L.contacts == 1 && L.dofs == 0 && L.rows == 3);
    CHECK(isnan(L.contact_density));
    CHECK(L.rank == 3 && L.rank_exact && !strcmp(L.method, "eig"));
    CHECK_NEAR(L.rank_ratio, 1.0, 0.0);
    CHECK_NEAR(L.cond, 4.0, 1e-14);
    CHECK_NEAR(L.cond_range, 4.0, 1e-14);
    CHECK_NEAR(L.lambda_max, 2.0, 1e-15);
    CHECK_NEAR(L.lambda_min, 0.5, 1e-15);
    CHECK(L.mu_min == 0.3 && L.mu_max == 0.3);
    CHECK(L.stick == -1 && L.slide == -1 && L.open == -1 && L.solved_by == -1);
    CHECK(!strcmp(ncp_labels_class(&L, "rank"), "full rank"));
    CHECK(!strcmp(ncp_labels_class(&L, "cond"), "cond <= 1e8"));
    CHECK(!strcmp(ncp_labels_class(&L, "density"), "no dofs (dual only)"));
    CHECK(ncp_labels_class(&L, "colour") == NULL);
    ncp_problem_free(&p);
}

/* The contact state each hand-derived NCP answer has (testutil.c's derivations). */
static void state_case(const tutil_contact_case *k, ncp_problem *p, void *ctx)
{
    (void)ctx;
    ncp_error err = {0};
    ncp_labels L;
    CHECK_OK(ncp_labels_problem(p, NULL, &L, &err), &err);
    CHECK_OK(ncp_labels_answer(p, k->ncp, &L, &err), &err);
    /* open: lambda = 0 (ccp-graze's NCP answer too); the frictionless case slides (u_t = q_t) */
    int open = !strncmp(k->name, "open", 4) || !strcmp(k->name, "ccp-graze");
    int stick = !strncmp(k->name, "stick", 5);
    int slide = !strcmp(k->name, "slide") || !strcmp(k->name, "frictionless");
    CHECK(open + stick + slide == 1);
    if (!(L.open == open && L.stick == stick && L.slide == slide))
        fprintf(stderr, "case %s: open %d stick %d slide %d\n", k->name, L.open, L.stick,
                L.slide);
    CHECK(L.open == open && L.stick == stick && L.slide == slide);
}

/* One particle of mass 2 (A = 2 I, n = 3) and two contacts with the world frame at the same
 * point: J = [I; I] (6 x 3). */
static void particle_two_contacts(ncp_problem *p, ncp_error *err)
{
    ncp_problem_init(p);
    CHECK_OK(ncp_problem_alloc_blocks(p, 2, err), err);
    for (int b = 0; b < 2; b++) {
        p->blocks[b].type = NCP_CONTACT;
        p->blocks[b].mu = b ? 0.8 : 0.2;
    }
    ncp_problem_layout(p);
    p->nv = 3;
    p->A = calloc(9, sizeof(double));
    p->b = calloc(3, sizeof(double));
    for (int i = 0; i < 3; i++) p->A[i + 3 * i] = 2.0;
    p->b[0] = -1.0;
    double Jd[18] = {0};
    for (int i = 0; i < 6; i++) Jd[i + 6 * (i % 3)] = 1.0;
    CHECK_OK(ncp_csr_from_dense(&p->J, 6, 3, Jd, 0.0, err), err);
    p->name = strdup("particle");
    p->has_primal = 1;
    CHECK_OK(ncp_problem_complete(p, 0, err), err);
}

static void check_rank_deficient(void)
{
    ncp_error err = {0};
    ncp_problem p;
    particle_two_contacts(&p, &err);
    ncp_labels L;
    CHECK_OK(ncp_labels_problem(&p, NULL, &L, &err), &err);
    CHECK(L.contacts == 2 && L.dofs == 3 && L.rows == 6);
    CHECK_NEAR(L.contact_density, 2.0, 0.0);
    CHECK(L.rank == 3 && L.rank_exact);
    CHECK_NEAR(L.rank_ratio, 0.5, 0.0);
    CHECK(isinf(L.cond) && L.cond > 0);
    CHECK_NEAR(L.cond_range, 1.0, 1e-14);
    CHECK_NEAR(L.lambda_max, 1.0, 1e-14);
    CHECK(L.lambda_min == 0.0);
    CHECK(L.mu_min == 0.2 && L.mu_max == 0.8);
    CHECK(!strcmp(ncp_labels_class(&L, "rank"), "rank-deficient"));
    CHECK(!strcmp(ncp_labels_class(&L, "density"), "3nc/n > 1"));
    CHECK(!strcmp(ncp_labels_class(&L, "mu"), "mu > 0.5"));

    /* the same W alone: eigenvalues of the dense 6 x 6 W */
    ncp_problem q;
    CHECK_OK(ncp_problem_copy(&q, &p, &err), &err);
    CHECK_OK(ncp_problem_need_dual(&q, &err), &err);
    q.has_primal = 0;
    q.dop_route = 0;
    ncp_labels Lw;
    CHECK_OK(ncp_labels_problem(&q, NULL, &Lw, &err), &err);
    CHECK(Lw.rank == 3 && Lw.rank_exact && isinf(Lw.cond));
    CHECK_NEAR(Lw.cond_range, 1.0, 1e-14);
    CHECK_NEAR(Lw.lambda_max, 1.0, 1e-14);
    q.has_primal = 1;
    ncp_problem_free(&q);

    /* the estimate: rank bounded by n = 3 < m (surely singular), lambda_max by Lanczos */
    ncp_labels_opts lo = {1, 0};
    ncp_labels Le;
    CHECK_OK(ncp_labels_problem(&p, &lo, &Le, &err), &err);
    CHECK(!strcmp(Le.method, "estimate") && !Le.rank_exact && Le.rank == 3);
    CHECK(isinf(Le.cond));
    CHECK_NEAR(Le.lambda_max, 1.0, 1e-12);

    /* contact states at an answer: lambda_n of the first contact only, b pushes the particle
     * along -n... here u = W lambda + v_f with both contacts sticking or open by construction */
    double lam[6] = {0.5, 0.0, 0.0, 0.0, 0.0, 0.0};
    CHECK_OK(ncp_labels_answer(&p, lam, &Le, &err), &err);
    CHECK(Le.open == 1 && Le.stick + Le.slide == 1);
    ncp_problem_free(&p);
}

/* A dual-only W = diag(w) of m = 3 nc rows. */
static void diag_problem(ncp_problem *p, int nc, const double *w)
{
    ncp_error err = {0};
    CHECK_OK(tutil_dual_problem(p, nc, NULL, &err), &err);
    for (int i = 0; i < p->m; i++) p->D[i + (size_t)i * p->m] = w[i];
    for (int b = 0; b < nc; b++) p->blocks[b].mu = 0.5;
    p->dual_symmetric = 1;
}

static void check_known_cond(void)
{
    ncp_error err = {0};
    ncp_problem p;
    double w[90];
    for (int i = 0; i < 90; i++) w[i] = 1.0 + (i * 7) % 5;
    diag_problem(&p, 30, w);
    ncp_labels_opts lo = {10, 0}; /* 90 > 10: the estimate */
    ncp_labels L;
    CHECK_OK(ncp_labels_problem(&p, &lo, &L, &err), &err);
    CHECK(!strcmp(L.method, "estimate") && L.rank == 90 && !L.rank_exact);
    CHECK_NEAR(L.cond, 5.0, 1e-10);
    CHECK_NEAR(L.lambda_max, 5.0, 1e-10);
    /* the exact route says the same */
    ncp_labels Lx;
    CHECK_OK(ncp_labels_problem(&p, NULL, &Lx, &err), &err);
    CHECK(!strcmp(Lx.method, "eig") && Lx.rank == 90 && Lx.rank_exact);
    CHECK_NEAR(Lx.cond, 5.0, 1e-13);
    ncp_problem_free(&p);

    for (int i = 0; i < 90; i++) w[i] = 1.0 + i;
    diag_problem(&p, 30, w);
    CHECK_OK(ncp_labels_problem(&p, &lo, &L, &err), &err);
    CHECK(L.cond <= 90.0 * (1.0 + 1e-12) && L.cond >= 0.99 * 90.0);
    CHECK(L.lambda_max <= 90.0 * (1.0 + 1e-12) && L.lambda_max >= 90.0 * (1.0 - 1e-6));
    /* a zero row (a contact W does not move): the rank bound drops below m, cond +inf */
    p.D[0] = 0.0;
    CHECK_OK(ncp_labels_problem(&p, &lo, &L, &err), &err);
    CHECK(L.rank == 89 && isinf(L.cond));
    ncp_problem_free(&p);
}

static void check_random(void)
{
    ncp_error err = {0};
    for (int k = 0; k < 4; k++) {
        ncp_problem p;
        /* n = 10 < m = 24: rank n; n = 30 > m: full rank */
        int nv = k % 2 ? 30 : 10;
        CHECK_OK(tutil_random_problem(&p, 4100 + k, nv, 8, 0, 0, 0, &err), &err);
        ncp_labels Lp, Lw;
        CHECK_OK(ncp_labels_problem(&p, NULL, &Lp, &err), &err);
        ncp_problem q;
        CHECK_OK(ncp_problem_copy(&q, &p, &err), &err);
        CHECK_OK(ncp_problem_need_dual(&q, &err), &err);
        q.has_primal = 0;
        q.dop_route = 0;
        CHECK_OK(ncp_labels_problem(&q, NULL, &Lw, &err), &err);
        q.has_primal = 1;
        CHECK(Lp.rank == (nv < 24 ? nv : 24) && Lw.rank == Lp.rank);
        if (nv > 24) {
            /* a dense A of more dofs than eig_max (25 < 30) and m = 24 <= 25: W column by
             * column through A's blocks, exact too */
            ncp_labels_opts lo = {25, 0};
            ncp_labels Lc;
            CHECK_OK(ncp_labels_problem(&p, &lo, &Lc, &err), &err);
            CHECK(!strcmp(Lc.method, "eig") && Lc.rank == Lp.rank);
            CHECK_REL(Lc.lambda_max, Lp.lambda_max, 1e-10);
            CHECK_REL(Lc.cond, Lp.cond, 1e-6);
        }
        CHECK_REL(Lp.lambda_max, Lw.lambda_max, 1e-10);
        CHECK_REL(Lp.cond_range, Lw.cond_range, 1e-6);
        if (nv > 24) CHECK_REL(Lp.cond, Lw.cond, 1e-6);
        else CHECK(isinf(Lp.cond) && isinf(Lw.cond));
        ncp_problem_free(&q);
        ncp_problem_free(&p);
    }
    /* a sparse pile: the estimate through J A^-1 J^T (no dense W) against the exact route */
    ncp_problem p;
    CHECK_OK(tutil_sparse_bodies_problem(&p, 4200, 12, 40, &err), &err);
    ncp_labels Lx, Le;
    ncp_labels_opts lo = {50, 0};
    CHECK_OK(ncp_labels_problem(&p, NULL, &Lx, &err), &err);
    CHECK_OK(ncp_labels_problem(&p, &lo, &Le, &err), &err);
    CHECK(!strcmp(Lx.method, "eig") && !strcmp(Le.method, "estimate"));
    CHECK(Le.rank >= Lx.rank); /* an upper bound */
    CHECK_REL(Le.lambda_max, Lx.lambda_max, 1e-8);
    CHECK(Le.cond_range <= Lx.cond_range * (1.0 + 1e-10)); /* a lower bound */
    ncp_problem_free(&p);
}

int main(void)
{
    check_one_contact();
    tutil_for_contact_cases(state_case, NULL);
    check_rank_deficient();
    check_known_cond();
    check_random();
    return tcheck_exit("labels");
}
