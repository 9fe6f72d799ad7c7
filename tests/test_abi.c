/* The plugin ABI's struct layouts (src/solve/plugin.h, docs/plugins.md): the size of every
 * struct in the installed headers and the offset and size of each of its members, recorded for
 * NCP_PLUGIN_ABI_VERSION 3 on LP64 (x86-64 / aarch64 Linux), with the values of the enums and
 * constants a plugin compiles in and the signatures of the functions it calls. A plugin built
 * against version 2 reads and writes these structs with exactly this layout, so any change here
 * means plugins built earlier would misread them: the version must be bumped (the host then
 * refuses the old plugins by name) and this table updated to the new layout.
 *
 * The table is a record of version 2 (version 1 + the sparse route of ncp_dop: members J, chol,
 * w, nv and NCP_DOP_SPARSE), taken once from its headers and checked by hand where
 * the layout is plain (e.g. ncp_block: int type, int row, four 8-byte doubles from offset 8,
 * int contact at 40, padded to 48; ncp_csr: three ints, then pointers from 16): it is not
 * generated at build time, so it is what the headers must keep agreeing with. A member added
 * into existing padding changes no row here; the review of plugin.h's rule catches that. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/cone.h"
#include "core/dop.h"
#include "core/la.h"
#include "core/problem.h"
#include "solve/params.h"
#include "solve/plugin.h"
#include "util/ncp_error.h"

#define TABLE_ABI_VERSION 3
#define BUMP "bump NCP_PLUGIN_ABI_VERSION in src/solve/plugin.h and update this table"

typedef struct row {
    const char *type, *member;
    size_t off, size;         /* actual */
    size_t want_off, want_size; /* recorded for version TABLE_ABI_VERSION */
} row;

#define S(T, sz) {#T, NULL, 0, sizeof(T), 0, sz}
#define F(T, f, o, sz) {#T, #f, offsetof(T, f), sizeof(((T *)0)->f), o, sz}

static const row layout[] = {
    S(ncp_error, 1028),
    F(ncp_error, code, 0, 4),
    F(ncp_error, msg, 4, 1024),
    S(ncp_csr, 40),
    F(ncp_csr, m, 0, 4),
    F(ncp_csr, n, 4, 4),
    F(ncp_csr, nnz, 8, 4),
    F(ncp_csr, rowptr, 16, 8),
    F(ncp_csr, col, 24, 8),
    F(ncp_csr, val, 32, 8),
    S(ncp_sparse_chol_opts, 24),
    F(ncp_sparse_chol_opts, dense_block, 0, 4),
    F(ncp_sparse_chol_opts, dense_bytes, 8, 8),
    F(ncp_sparse_chol_opts, no_cholmod, 16, 4),
    S(ncp_block, 48),
    F(ncp_block, type, 0, 4),
    F(ncp_block, row, 4, 4),
    F(ncp_block, mu, 8, 8),
    F(ncp_block, k, 16, 8),
    F(ncp_block, c, 24, 8),
    F(ncp_block, phi, 32, 8),
    F(ncp_block, contact, 40, 4),
    S(ncp_contact_info, 128),
    F(ncp_contact_info, gap, 0, 8),
    F(ncp_contact_info, point, 8, 24),
    F(ncp_contact_info, frame, 32, 72),
    F(ncp_contact_info, body, 104, 8),
    F(ncp_contact_info, stiffness, 112, 8),
    F(ncp_contact_info, dissipation, 120, 8),
    S(ncp_structure_body, 312),
    F(ncp_structure_body, subsystem, 0, 4),
    F(ncp_structure_body, M, 8, 288),
    F(ncp_structure_body, ndof, 296, 4),
    F(ncp_structure_body, Jb, 304, 8),
    S(ncp_structure_link, 16),
    F(ncp_structure_link, block, 0, 4),
    F(ncp_structure_link, body, 4, 4),
    F(ncp_structure_link, Jib, 8, 8),
    S(ncp_structure, 64),
    F(ncp_structure, nsub, 0, 4),
    F(ncp_structure, sub_dof_start, 8, 8),
    F(ncp_structure, sub_ndof, 16, 8),
    F(ncp_structure, nbodies, 24, 4),
    F(ncp_structure, bodies, 32, 8),
    F(ncp_structure, nlinks, 40, 4),
    F(ncp_structure, links, 48, 8),
    F(ncp_structure, dof_diag, 56, 8),
    S(ncp_problem, 296),
    F(ncp_problem, name, 0, 8),
    F(ncp_problem, nv, 8, 4),
    F(ncp_problem, m, 12, 4),
    F(ncp_problem, nblocks, 16, 4),
    F(ncp_problem, blocks, 24, 8),
    F(ncp_problem, ncontacts, 32, 4),
    F(ncp_problem, contacts, 40, 8),
    F(ncp_problem, h, 48, 8),
    F(ncp_problem, has_primal, 56, 4),
    F(ncp_problem, A, 64, 8),
    F(ncp_problem, b, 72, 8),
    F(ncp_problem, J, 80, 40),
    F(ncp_problem, e, 120, 8),
    F(ncp_problem, has_dual, 128, 4),
    F(ncp_problem, D, 136, 8),
    F(ncp_problem, vf, 144, 8),
    F(ncp_problem, structure, 152, 8),
    F(ncp_problem, has_sparse_primal, 160, 4),
    F(ncp_problem, A_sparse, 168, 40),
    F(ncp_problem, dual_symmetric, 208, 4),
    F(ncp_problem, title, 216, 8),
    F(ncp_problem, description, 224, 8),
    F(ncp_problem, guess_lambda, 232, 8),
    F(ncp_problem, guess_v, 240, 8),
    F(ncp_problem, provenance_note, 248, 8),
    F(ncp_problem, scene, 256, 8),
    F(ncp_problem, step, 264, 4),
    F(ncp_problem, case_index, 268, 4),
    F(ncp_problem, seed, 272, 8),
    F(ncp_problem, driver, 280, 8),
    F(ncp_problem, dop_route, 288, 4),
    S(ncp_budget, 24),
    F(ncp_budget, tol, 0, 8),
    F(ncp_budget, max_iter, 8, 4),
    F(ncp_budget, time_ms, 16, 8),
    S(ncp_param, 56),
    F(ncp_param, name, 0, 48),
    F(ncp_param, value, 48, 8),
    S(ncp_params, 1800),
    F(ncp_params, n, 0, 4),
    F(ncp_params, items, 8, 1792),
    S(ncp_param_doc, 24),
    F(ncp_param_doc, name, 0, 8),
    F(ncp_param_doc, def, 8, 8),
    F(ncp_param_doc, doc, 16, 8),
    S(ncp_solve_in, 56),
    F(ncp_solve_in, prob, 0, 8),
    F(ncp_solve_in, budget, 8, 24),
    F(ncp_solve_in, params, 32, 8),
    F(ncp_solve_in, lambda0, 40, 8),
    F(ncp_solve_in, v0, 48, 8),
    S(ncp_solve_out, 32),
    F(ncp_solve_out, lambda, 0, 8),
    F(ncp_solve_out, v, 8, 8),
    F(ncp_solve_out, has_v, 16, 4),
    F(ncp_solve_out, iterations, 20, 4),
    F(ncp_solve_out, status, 24, 4),
    S(ncp_solver_desc, 64),
    F(ncp_solver_desc, name, 0, 8),
    F(ncp_solver_desc, source, 8, 8),
    F(ncp_solver_desc, summary, 16, 8),
    F(ncp_solver_desc, needs, 24, 4),
    F(ncp_solver_desc, ccp, 28, 4),
    F(ncp_solver_desc, file, 32, 8),
    F(ncp_solver_desc, params, 40, 8),
    F(ncp_solver_desc, solve, 48, 8),
    F(ncp_solver_desc, takes_v0, 56, 4),
    S(ncp_plugin_info, 40),
    F(ncp_plugin_info, abi_version, 0, 4),
    F(ncp_plugin_info, name, 8, 8),
    F(ncp_plugin_info, version, 16, 8),
    F(ncp_plugin_info, n_solvers, 24, 4),
    F(ncp_plugin_info, solvers, 32, 8),
    S(ncp_dop, 104),
    F(ncp_dop, m, 0, 4),
    F(ncp_dop, rank, 4, 4),
    F(ncp_dop, D, 8, 8),
    F(ncp_dop, F, 16, 8),
    F(ncp_dop, Fr, 24, 8),
    F(ncp_dop, t, 32, 8),
    F(ncp_dop, J, 40, 40),
    F(ncp_dop, chol, 80, 8),
    F(ncp_dop, w, 88, 8),
    F(ncp_dop, nv, 96, 4),
    S(ncp_dop_shift, 40),
    F(ncp_dop_shift, op, 0, 8),
    F(ncp_dop_shift, n, 8, 4),
    F(ncp_dop_shift, L, 16, 8),
    F(ncp_dop_shift, sinv, 24, 8),
    F(ncp_dop_shift, w, 32, 8),
};

/* Values compiled into a plugin. */
typedef struct value {
    const char *name;
    long got, want;
} value;

#define V(name, want) {#name, (long)(name), want}

static const value values[] = {
    V(NCP_PLUGIN_MAX_PARAMS, 32),
    V(NCP_OK, 0), V(NCP_ERR_INPUT, 2), V(NCP_ERR_IO, 3), V(NCP_ERR_NOMEM, 4),
    V(NCP_ERR_NUMERIC, 5), V(NCP_ERR_INTERNAL, 6),
    V(NCP_BILATERAL, 0), V(NCP_UNILATERAL, 1), V(NCP_CONTACT, 2), V(NCP_SOFT, 3),
    V(NCP_NEEDS_DUAL, 1), V(NCP_NEEDS_PRIMAL, 2), V(NCP_NEEDS_STRUCTURE, 4),
    V(NCP_NEEDS_SYMMETRIC, 8), V(NCP_NEEDS_DUAL_OP, 16), V(NCP_NEEDS_PRIMAL_SPARSE, 32),
    V(NCP_STATUS_CONVERGED, 0), V(NCP_STATUS_MAX_ITER, 1), V(NCP_STATUS_TIMEOUT, 2),
    V(NCP_STATUS_STALLED, 3), V(NCP_STATUS_FAILED, 4), V(NCP_STATUS_STOPPED, 5),
    V(NCP_STATUS_UNSUPPORTED, 6), V(NCP_STATUS_CRASHED, 7),
    V(NCP_DOP_AUTO, 0), V(NCP_DOP_DENSE, 1), V(NCP_DOP_LOWRANK, 2), V(NCP_DOP_SPARSE, 3),
    /* ncp_params holds NCP_PLUGIN_MAX_PARAMS parameters */
    {"capacity of ncp_params.items", (long)(sizeof(((ncp_params *)0)->items) / sizeof(ncp_param)),
     32},
};

/* Signatures of the functions a plugin calls (a changed parameter or return type compiles
 * silently into a plugin built against the old header). */
#define SIG(fn, type) {#fn, __builtin_types_compatible_p(__typeof__(&fn), type)}
typedef struct sig {
    const char *name;
    int same;
} sig;

static const sig sigs[] = {
    SIG(ncp_run_setup_done, int (*)(ncp_run *)),
    SIG(ncp_run_iterate, int (*)(ncp_run *, int, const double *, const double *)),
    SIG(ncp_run_elapsed_ms, double (*)(const ncp_run *)),
    SIG(ncp_params_get, double (*)(const ncp_params *, const char *, double)),
    SIG(ncp_params_set, int (*)(ncp_params *, const char *, double, ncp_error *)),
    SIG(ncp_status_name, const char *(*)(int)),
    SIG(ncp_error_set, int (*)(ncp_error *, int, const char *, ...)),
    SIG(ncp_error_prefix, int (*)(ncp_error *, const char *, ...)),
    SIG(ncp_calloc, void *(*)(ncp_error *, size_t, size_t)),
    SIG(ncp_malloc, void *(*)(ncp_error *, size_t, size_t)),
    SIG(ncp_cone_project, void (*)(double, const double *, double *)),
    SIG(ncp_cone_project_dual, void (*)(double, const double *, double *)),
    SIG(ncp_desaxce, void (*)(double, const double *, double *)),
    SIG(ncp_sym_eig, int (*)(int, double *, double *, ncp_error *)),
    SIG(ncp_dop_init, int (*)(ncp_dop *, const ncp_problem *, int, ncp_error *)),
    SIG(ncp_dop_apply, void (*)(ncp_dop *, double, const double *, double, double *)),
    SIG(ncp_dop_free, void (*)(ncp_dop *)),
    SIG(ncp_problem_velocity, int (*)(const ncp_problem *, const double *, double *, ncp_error *)),
    SIG(ncp_block_type_size, int (*)(int)),
    {"ncp_plugin_entry_fn",
     __builtin_types_compatible_p(ncp_plugin_entry_fn, const ncp_plugin_info *(*)(void))},
};

int main(void)
{
    if (sizeof(void *) != 8 || sizeof(long) != 8) {
        printf("abi: the table records LP64 layouts; this platform is not LP64\n");
        return 77; /* skipped */
    }
    int fails = 0, checks = 0;
    checks++;
    if (NCP_PLUGIN_ABI_VERSION != TABLE_ABI_VERSION) {
        fprintf(stderr, "abi: NCP_PLUGIN_ABI_VERSION is %d but this table records version %d: "
                        "update this table (tests/test_abi.c) to the new layout\n",
                NCP_PLUGIN_ABI_VERSION, TABLE_ABI_VERSION);
        fails++;
    }
    /* the version is the first member: the host reads it before anything else */
    checks++;
    if (offsetof(ncp_plugin_info, abi_version) != 0) {
        fprintf(stderr, "abi: ncp_plugin_info.abi_version must stay the first member\n");
        fails++;
    }
    for (size_t i = 0; i < sizeof layout / sizeof layout[0]; i++) {
        const row *r = &layout[i];
        checks++;
        if (r->off != r->want_off || r->size != r->want_size) {
            if (r->member)
                fprintf(stderr, "abi: %s.%s at offset %zu, size %zu; version %d has %zu, %zu: "
                                "%s\n", r->type, r->member, r->off, r->size, TABLE_ABI_VERSION,
                        r->want_off, r->want_size, BUMP);
            else
                fprintf(stderr, "abi: sizeof(%s) = %zu; version %d has %zu: %s\n", r->type,
                        r->size, TABLE_ABI_VERSION, r->want_size, BUMP);
            fails++;
        }
    }
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        checks++;
        if (values[i].got != values[i].want) {
            fprintf(stderr, "abi: %s = %ld; version %d has %ld: %s\n", values[i].name,
                    values[i].got, TABLE_ABI_VERSION, values[i].want, BUMP);
            fails++;
        }
    }
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        checks++;
        if (!sigs[i].same) {
            fprintf(stderr, "abi: the signature of %s changed: %s\n", sigs[i].name, BUMP);
            fails++;
        }
    }
    printf("abi: %d checks, %d failed (%zu layout rows, %zu values, %zu signatures)\n", checks,
           fails, sizeof layout / sizeof layout[0], sizeof values / sizeof values[0],
           sizeof sigs / sizeof sigs[0]);
    return fails ? 1 : 0;
}
