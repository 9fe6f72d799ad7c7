/* The solver descriptors the registry lists (solvers/registry.c). Each solver file defines one
 * of these; add a line here and one in registry.c's table to register a new solver. */
#ifndef NCP_REGISTRY_H
#define NCP_REGISTRY_H

#include "solve/catalog.h"
#include "solve/solver.h"

extern const ncp_solver_desc ncp_solver_pgs;    /* solvers/pgs.c */
extern const ncp_solver_desc ncp_solver_nsn_nm; /* solvers/nsn_nm.c */
extern const ncp_solver_desc ncp_solver_canal;       /* solvers/canal.c (Lee et al. 2025 Alg. 1) */
extern const ncp_solver_desc ncp_solver_al_trdogleg; /* solvers/al_trdogleg.c (Lee et al. 2025) */
extern const ncp_solver_desc ncp_solver_al_dampedsn; /* solvers/al_dampedsn.c (Lee et al. 2025) */
/* solvers/pgs_decoupled.c (Lee et al. 2025's PGS baseline) */
extern const ncp_solver_desc ncp_solver_pgs_decoupled;
extern const ncp_solver_desc ncp_solver_admm_ccp;    /* solvers/admm_ccp.c (NCP report 2025) */
extern const ncp_solver_desc ncp_solver_admm_ncp_fp; /* solvers/admm_ncp_fp.c (NCP report 2025) */
extern const ncp_solver_desc ncp_solver_admm_ncp_la; /* solvers/admm_ncp_la.c (NCP report 2025) */
extern const ncp_solver_desc ncp_solver_admm_ncp_sa; /* solvers/admm_ncp_sa.c (NCP report 2025) */
extern const ncp_solver_desc ncp_solver_admm;  /* solvers/admm.c (Tasora et al. 2021) */
extern const ncp_solver_desc ncp_solver_fadmm; /* solvers/fadmm.c (Tasora et al. 2021) */
extern const ncp_solver_desc ncp_solver_jacobi; /* solvers/jacobi.c (projected block Jacobi) */
extern const ncp_solver_desc ncp_solver_apgd;   /* solvers/apgd.c (Mazhar et al. 2015) */
extern const ncp_solver_desc ncp_solver_spg;    /* solvers/spg.c (Birgin et al. 2000 SPG2) */
extern const ncp_solver_desc ncp_solver_nsn_fb; /* solvers/nsn_fb.c (Siconos NSN_FB) */
extern const ncp_solver_desc ncp_solver_sap;    /* solvers/sap.c (Castro et al. 2023 SAP) */
extern const ncp_solver_desc ncp_solver_pgs_ccp;      /* solvers/pgs_ccp.c (NCP report 2025) */
extern const ncp_solver_desc ncp_solver_pgs_ncp;      /* solvers/pgs_ncp.c (NCP report 2025) */
extern const ncp_solver_desc ncp_solver_nbgs;         /* solvers/nbgs.c (NCP report 2025) */
extern const ncp_solver_desc ncp_solver_raisim;       /* solvers/raisim.c (NCP report 2025) */
extern const ncp_solver_desc ncp_solver_raisim_ds;    /* solvers/raisim_ds.c (NCP report 2025) */
extern const ncp_solver_desc ncp_solver_raisim_ds_es; /* solvers/raisim_ds_es.c (NCP report 2025) */
extern const ncp_solver_desc ncp_solver_subadmm;      /* solvers/subadmm.c (Lee et al. 2025) */
extern const ncp_solver_desc ncp_solver_admm_nosub;   /* solvers/admm_nosub.c (Lee et al. 2025) */
extern const ncp_solver_desc ncp_solver_admm_nobody;  /* solvers/admm_nobody.c (Lee et al. 2025) */
#ifdef NCP_HAVE_SICONOS
/* solvers/siconos.c: Siconos numerics 4.4's fc3d solvers (Acary, Brémond, Huber 2018), peers */
extern const ncp_solver_desc ncp_solver_siconos_nsgs;
extern const ncp_solver_desc ncp_solver_siconos_nsn_ac;
extern const ncp_solver_desc ncp_solver_siconos_nsn_fb;
extern const ncp_solver_desc ncp_solver_siconos_nsn_nm;
extern const ncp_solver_desc ncp_solver_siconos_prox;
extern const ncp_solver_desc ncp_solver_siconos_admm;
extern const ncp_solver_desc ncp_solver_siconos_vi_eg;
#endif

#ifdef NCP_HAVE_BULLET
/* solvers/engine_peers.c: Bullet 3.24's MLCP solvers on the box-friction LCP, engine peers */
extern const ncp_solver_desc ncp_solver_bullet_pgs;
extern const ncp_solver_desc ncp_solver_bullet_dantzig;
extern const ncp_solver_desc ncp_solver_bullet_lemke;
#endif
#ifdef NCP_HAVE_DART
/* solvers/engine_peers.c: DART 6.12's boxed-LCP solvers and ODE's dSolveLCP, engine peers */
extern const ncp_solver_desc ncp_solver_dart_pgs;
extern const ncp_solver_desc ncp_solver_dart_dantzig;
extern const ncp_solver_desc ncp_solver_ode_dantzig;
#endif

/* The registry: a constant table, in the order `ncpbench list` shows it. No mutable state. */
const ncp_solver_catalog *ncp_registry_catalog(void);
int ncp_solver_count(void);
const ncp_solver_desc *ncp_solver_at(int i);
const ncp_solver_desc *ncp_solver_find(const char *name);

/* Solver families, for the figures' panels (one per family) and `ncpbench list solvers`: a
 * table of registry.c beside the registry (every registered solver has one). Families in
 * panel order; ncp_registry_family: the family of a solver name, NULL if the name is not
 * in the table (e.g. a solver of an older run). */
int ncp_registry_family_count(void);
const char *ncp_registry_family_at(int i);
const char *ncp_registry_family(const char *solver_name);
/* 1 for a peer: an adaptor that runs another library's solver (the Siconos family, and the
 * engine peers: Bullet's, DART's and ODE's solvers on their box-friction LCP). A run without a
 * solver list leaves the peers out (`--solvers all` or `peers` adds them): they answer "does
 * ncpbench agree with an independent implementation?" and "what do the engines' own solvers
 * give on this problem?", not "which solver should I use?", and on dense low-rank problems
 * they spend their whole time budget (boltnut: 198 of 215 s with Siconos's). */
int ncp_registry_is_peer(const char *solver_name);
/* The problem a registered solver solves when it is neither the Coulomb NCP nor the CCP its
 * descriptor's ccp flag names: "box-friction LCP" for the engine peers (solvers/engine_peers.h),
 * NULL for every other name. For `ncpbench list solvers`. */
const char *ncp_registry_model(const char *solver_name);
/* The family (panel, `list` line) of every plugin solver (solve/plugin_load.h). */
#define NCP_REGISTRY_PLUGIN_FAMILY "plugin solvers"

#endif
