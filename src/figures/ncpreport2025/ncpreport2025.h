/* The NCP report 2025 (arXiv 2504.19771) as a study (src/figures/study.h): the declaration
 * (study.c), the claims and their values (claims.c) and the suite's tables and figures, the
 * accuracy metrics and time against accuracy per solver and system (suite.c). Internal to this
 * folder. */
#ifndef NCP_NCPREPORT2025_H
#define NCP_NCPREPORT2025_H

#include "figures/study.h"

/* The 13 systems of Table II in its order; the last six are stand-ins (scenes/ncpreport-*).
 * Fig. 8's categories: Primitives [0, 5), Robotics [5, 9), Audio-Animatronic [9, 13). */
enum { NR_NSYS = 13, NR_NSOLVERS = 26, NR_ROBOTICS = 5, NR_ANIMATRONIC = 9 };
extern const char *const nr_systems[NR_NSYS];
/* Every solver of a default run, Table I's ten first (label = solver name). */
extern const char *const nr_solvers[NR_NSOLVERS];
/* 1 when name is one of Table I's ten configurations. */
int nr_in_table1(const char *name);

extern const ncp_study_claim nr_claims[];
extern const int nr_nclaims;

/* Claim reducers */
int nr_N1(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);
int nr_N2(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err);

/* Part reducer of "suite": accuracy.dat, time_accuracy.dat, table_<metric>.md,
 * table_time_accuracy.md and the two figures, from every system's runs. */
int nr_suite(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err);

#endif
