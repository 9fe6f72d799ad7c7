#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tcheck.h"
#include "testutil.h"

int tcheck_failures = 0;
int tcheck_checks = 0;

int tcheck_exit(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, tcheck_checks, tcheck_failures);
    return tcheck_failures ? 1 : 0;
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double trng_uniform(trng *r) { return (double)(splitmix64(&r->s) >> 11) * 0x1.0p-53; }

double trng_normal(trng *r)
{
    double u1 = trng_uniform(r), u2 = trng_uniform(r);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

int tutil_random_problem(ncp_problem *p, uint64_t seed, int nv, int nc, int nbil, int nuni,
                         int nsoft, ncp_error *err)
{
    trng r = {seed};
    ncp_problem_init(p);
    int nb = nc + nbil + nuni + nsoft;
    if (ncp_problem_alloc_blocks(p, nb, err)) return err->code;
    int k = 0;
    for (int i = 0; i < nbil; i++) p->blocks[k++].type = NCP_BILATERAL;
    for (int i = 0; i < nuni; i++) p->blocks[k++].type = NCP_UNILATERAL;
    for (int i = 0; i < nc; i++) {
        p->blocks[k].type = NCP_CONTACT;
        p->blocks[k].mu = 0.2 + 0.8 * trng_uniform(&r);
        k++;
    }
    for (int i = 0; i < nsoft; i++) {
        p->blocks[k].type = NCP_SOFT;
        p->blocks[k].k = 0.5 + trng_uniform(&r);
        p->blocks[k].c = 0.1 + trng_uniform(&r);
        p->blocks[k].phi = trng_normal(&r) * 0.1;
        k++;
    }
    ncp_problem_layout(p);
    int m = p->m;
    p->nv = nv;
    p->h = 0.01;
    p->A = ncp_calloc(err, (size_t)nv * nv, sizeof(double));
    p->b = ncp_calloc(err, nv, sizeof(double));
    p->e = ncp_calloc(err, m, sizeof(double));
    double *Jd = ncp_calloc(err, (size_t)m * nv, sizeof(double));
    double *G = ncp_calloc(err, (size_t)nv * nv, sizeof(double));
    if (!p->A || !p->b || !p->e || !Jd || !G) {
        free(Jd);
        free(G);
        return NCP_ERR_NOMEM;
    }
    for (int i = 0; i < nv * nv; i++) G[i] = trng_normal(&r);
    /* A = G G^T / nv + I : SPD with eigenvalues in about [1, 5] */
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < nv; j++) {
            double s = 0.0;
            for (int l = 0; l < nv; l++) s += G[i + l * nv] * G[j + l * nv];
            p->A[i + j * nv] = s / nv + (i == j ? 1.0 : 0.0);
        }
    for (int i = 0; i < m * nv; i++) Jd[i] = trng_normal(&r);
    for (int i = 0; i < nv; i++) p->b[i] = trng_normal(&r);
    for (int i = 0; i < m; i++) p->e[i] = 0.5 * trng_normal(&r);
    int rc = ncp_csr_from_dense(&p->J, m, nv, Jd, 0.0, err);
    free(Jd);
    free(G);
    if (rc) return rc;
    p->has_primal = 1;
    p->ncontacts = nc;
    p->contacts = ncp_calloc(err, nc ? nc : 1, sizeof(ncp_contact_info));
    if (!p->contacts) return NCP_ERR_NOMEM;
    for (int i = 0; i < nc; i++) {
        p->contacts[i].gap = 0.01 * trng_normal(&r);
        p->contacts[i].body[0] = -1;
        p->contacts[i].body[1] = i;
        p->contacts[i].frame[0] = 1.0;
        p->contacts[i].frame[4] = 1.0;
        p->contacts[i].frame[8] = 1.0;
    }
    p->name = ncp_strdup(err, "random");
    p->scene = ncp_strdup(err, "test");
    p->driver = ncp_strdup(err, "");
    if (!p->name || !p->scene || !p->driver) return NCP_ERR_NOMEM;
    p->step = -1;
    p->case_index = -1;
    p->seed = seed;
    return ncp_problem_compute_dual(p, err);
}
