/* The solver registry (docs/design.md, "Solver interface"): a constant table of descriptors, in
 * the order `ncpbench list` shows them. No mutable state. */
#include <string.h>

#include "solvers/registry.h"

static const ncp_solver_desc *const registry[] = {
    &ncp_solver_pgs,
    &ncp_solver_nsn_nm,
    &ncp_solver_canal,
    &ncp_solver_al_trdogleg,
    &ncp_solver_al_dampedsn,
    &ncp_solver_pgs_decoupled,
    &ncp_solver_admm_ccp,
    &ncp_solver_admm_ncp_fp,
    &ncp_solver_admm_ncp_la,
    &ncp_solver_admm_ncp_sa,
    &ncp_solver_admm,
    &ncp_solver_fadmm,
    &ncp_solver_jacobi,
    &ncp_solver_apgd,
    &ncp_solver_spg,
    &ncp_solver_nsn_fb,
    &ncp_solver_sap,
    &ncp_solver_pgs_ccp,
    &ncp_solver_pgs_ncp,
    &ncp_solver_nbgs,
    &ncp_solver_raisim,
    &ncp_solver_raisim_ds,
    &ncp_solver_raisim_ds_es,
    &ncp_solver_subadmm,
    &ncp_solver_admm_nosub,
    &ncp_solver_admm_nobody,
#ifdef NCP_HAVE_SICONOS
    &ncp_solver_siconos_nsgs,
    &ncp_solver_siconos_nsn_ac,
    &ncp_solver_siconos_nsn_fb,
    &ncp_solver_siconos_nsn_nm,
    &ncp_solver_siconos_prox,
    &ncp_solver_siconos_admm,
    &ncp_solver_siconos_vi_eg,
#endif
#ifdef NCP_HAVE_BULLET
    &ncp_solver_bullet_pgs,
    &ncp_solver_bullet_dantzig,
    &ncp_solver_bullet_lemke,
#endif
#ifdef NCP_HAVE_DART
    &ncp_solver_dart_pgs,
    &ncp_solver_dart_dantzig,
    &ncp_solver_ode_dantzig,
#endif
};

enum { REGISTRY_COUNT = (int)(sizeof registry / sizeof registry[0]) };

static const ncp_solver_catalog catalog = {REGISTRY_COUNT, registry, NULL, NULL};

const ncp_solver_catalog *ncp_registry_catalog(void) { return &catalog; }

int ncp_solver_count(void) { return REGISTRY_COUNT; }

const ncp_solver_desc *ncp_solver_at(int i)
{
    return (i >= 0 && i < REGISTRY_COUNT) ? registry[i] : NULL;
}

const ncp_solver_desc *ncp_solver_find(const char *name) { return ncp_catalog_find(&catalog, name); }

/* Families: by method, except the variants that Lee et al. 2025 built for their comparisons
 * (ablations of their subsystem ADMM and of CANAL's inner solver, and their PGS baseline), which
 * are drawn together so the paper's ablation reads as one panel. */
static const char *const families[] = {
    "Gauss-Seidel / Jacobi sweeps", "ADMM", "Newton & augmented Lagrangian", "CCP solvers",
    "Lee et al. 2025 variants", "peers (Siconos)", "peers (Bullet)", "peers (DART/ODE)",
};
enum { NFAMILIES = (int)(sizeof families / sizeof families[0]) };

static const struct {
    const char *solver;
    int family; /* index into families */
} family_of[] = {
    {"pgs", 0}, {"pgs-ncp", 0}, {"nbgs", 0}, {"jacobi", 0}, {"raisim", 0}, {"raisim-ds", 0},
    {"raisim-ds-es", 0},
    {"admm", 1}, {"fadmm", 1}, {"admm-ncp-fp", 1}, {"admm-ncp-la", 1}, {"admm-ncp-sa", 1},
    {"subadmm", 1},
    {"nsn-nm", 2}, {"nsn-fb", 2}, {"canal", 2},
    {"admm-ccp", 3}, {"pgs-ccp", 3}, {"apgd", 3}, {"spg", 3}, {"sap", 3},
    {"al-trdogleg", 4}, {"al-dampedsn", 4}, {"pgs-decoupled", 4}, {"admm-nosub", 4},
    {"admm-nobody", 4},
    {"siconos-nsgs", 5}, {"siconos-nsn-ac", 5}, {"siconos-nsn-fb", 5}, {"siconos-nsn-nm", 5},
    {"siconos-prox", 5}, {"siconos-admm", 5}, {"siconos-vi-eg", 5},
    {"bullet-pgs", 6}, {"bullet-dantzig", 6}, {"bullet-lemke", 6},
    {"dart-pgs", 7}, {"dart-dantzig", 7}, {"ode-dantzig", 7},
};

int ncp_registry_family_count(void) { return NFAMILIES; }

const char *ncp_registry_family_at(int i) { return i >= 0 && i < NFAMILIES ? families[i] : NULL; }

/* families[PEER_FAMILY] and every family after it are peers; from ENGINE_FAMILY on, the engine
 * peers (box-friction LCP solvers) */
enum { PEER_FAMILY = 5, ENGINE_FAMILY = 6 };

int ncp_registry_is_peer(const char *solver_name)
{
    const char *f = ncp_registry_family(solver_name);
    for (int i = PEER_FAMILY; f && i < NFAMILIES; i++)
        if (f == families[i]) return 1;
    return 0;
}

const char *ncp_registry_model(const char *solver_name)
{
    const char *f = ncp_registry_family(solver_name);
    for (int i = ENGINE_FAMILY; f && i < NFAMILIES; i++)
        if (f == families[i]) return "box-friction LCP (friction rows boxed by mu |lambda_n|)";
    return NULL;
}

const char *ncp_registry_family(const char *solver_name)
{
    /* a variant (pgs@omega=1.3, solve/catalog.h) is of its base solver's family */
    size_t n = solver_name ? strcspn(solver_name, "@") : 0;
    for (size_t i = 0; solver_name && i < sizeof family_of / sizeof family_of[0]; i++)
        if (strlen(family_of[i].solver) == n && !strncmp(family_of[i].solver, solver_name, n))
            return families[family_of[i].family];
    return NULL;
}
