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
};

enum { REGISTRY_COUNT = (int)(sizeof registry / sizeof registry[0]) };

static const ncp_solver_catalog catalog = {REGISTRY_COUNT, registry};

const ncp_solver_catalog *ncp_registry_catalog(void) { return &catalog; }

int ncp_solver_count(void) { return REGISTRY_COUNT; }

const ncp_solver_desc *ncp_solver_at(int i)
{
    return (i >= 0 && i < REGISTRY_COUNT) ? registry[i] : NULL;
}

const ncp_solver_desc *ncp_solver_find(const char *name) { return ncp_catalog_find(&catalog, name); }
