/* Lee et al. 2025, the tasks (§VII-A2, §VII-B2, §VII-C): canal, subadmm and pgs-decoupled each
 * drive their own simulation of a task scene (sims of part tasks under the scene's per-step
 * budget; the G1 pouring under Fig. 11's fixed counts, parts fig11_canal and fig11: study.c).
 * Each outcome is recomputed from the sim's raw results (l25_task_of: steps.csv and the
 * criteria's measured values in task.json), never taken from task.json's success flag; the
 * claims TKa-TKc and tasks.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figures/lee2025/lee2025.h"
#include "util/safefile.h"

typedef struct l25_task {
    const char *id, *scene; /* sim label prefix, scene file */
    int pour;               /* 1: Fig. 11's parts (fixed counts), 0: part tasks */
} l25_task;

static const l25_task l25_task_list[] = {
    {"tight", "tasks/boltnut-screw-tight-panda.json", 0},
    {"loose", "tasks/boltnut-screw-panda.json", 0},
    {"dishes", "tasks/dish-stack.json", 0},
    {"g1", "tasks/pouring-g1.json", 1},
};
enum { L25_NTASKS = (int)(sizeof l25_task_list / sizeof l25_task_list[0]) };

/* The outcomes of task t for the three solvers; records them in o (may be NULL). */
static void task_outcomes(const ncp_study_ctx *c, ncp_study_claim_out *o, const l25_task *t,
                          l25_taskres q[L25_NSIMSOLV])
{
    for (int k = 0; k < L25_NSIMSOLV; k++) {
        char lab[48], name[96];
        snprintf(lab, sizeof lab, "%s-%s", t->id, l25_sim_label[k]);
        l25_task_of(ncp_study_get_sim(c, t->pour ? l25_pour_part(k) : "tasks", lab), &q[k]);
        if (!o) continue;
        if (!q[k].ran) o->not_run = 1;
        snprintf(name, sizeof name, "%s success", lab);
        ncp_study_input(o, NULL, name, q[k].success);
        snprintf(name, sizeof name, "%s penetration", lab);
        ncp_study_input(o, NULL, name, q[k].penetration);
        snprintf(name, sizeof name, "%s impulse_max", lab);
        ncp_study_input(o, NULL, name, q[k].impulse_max);
    }
}

static const l25_task *task_find(const char *id)
{
    for (int i = 0; i < L25_NTASKS; i++)
        if (!strcmp(l25_task_list[i].id, id)) return &l25_task_list[i];
    return NULL;
}

/* "CANAL succeeds (840/840 steps, max penetration 0.1 mm, largest impulse 2e-3 N s); ..." */
static void task_text(char *buf, size_t cap, const l25_taskres *q)
{
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; k < L25_NSIMSOLV && at < cap; k++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%s %s (%d/%d steps, max penetration %.3g "
                               "mm, largest normal impulse %.3g N s)", k ? "; " : "",
                               l25_sim_label[k], q[k].success ? "succeeds" : "fails",
                               q[k].nsteps, q[k].planned, 1e3 * q[k].penetration,
                               q[k].impulse_max);
}

static int task_claim(const ncp_study_ctx *c, ncp_study_claim_out *o, const char *id,
                      l25_taskres q[L25_NSIMSOLV])
{
    task_outcomes(c, o, task_find(id), q);
    for (int k = 0; k < L25_NSIMSOLV; k++) o->v[k] = q[k].ran ? q[k].success : NAN;
    task_text(o->ours, sizeof o->ours, q);
    return NCP_OK;
}

int l25_TKa(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    l25_taskres q[L25_NSIMSOLV], b[L25_NSIMSOLV];
    task_claim(c, o, "tight", q);
    int all = 1;
    for (int k = 0; k < L25_NSIMSOLV; k++)
        all &= q[k].success && q[k].impulse_max <= L25_ZERO_IMPULSE;
    size_t at = strlen(o->ours);
    if (all && at < sizeof o->ours) {
        o->not_testable = 1;
        at += (size_t)snprintf(o->ours + at, sizeof o->ours - at, ". Not testable: every solver "
                               "completes the task and no contact carries load (normal impulses "
                               "<= %g N s), so the solver does not decide it", L25_ZERO_IMPULSE);
    }
    task_outcomes(c, NULL, task_find("loose"), b);
    if (at < sizeof o->ours) {
        char txt[400];
        task_text(txt, sizeof txt, b);
        snprintf(o->ours + at, sizeof o->ours - at, ". Beside, not judged, the 0.1 mm-clearance "
                 "task: %s", txt);
    }
    return NCP_OK;
}

int l25_TKb(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    l25_taskres q[L25_NSIMSOLV];
    return task_claim(c, o, "dishes", q);
}

int l25_TKc(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)err;
    l25_taskres q[L25_NSIMSOLV];
    return task_claim(c, o, "g1", q);
}

int l25_tasks(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir, ncp_error *err)
{
    char path[4400];
    FILE *f = ncp_safe_fopen_in(dir, "tasks.md", path, sizeof path, err);
    if (!f) return err->code;
    fprintf(f, "### %s (configuration %s)\n\nEach solver drives its own simulation of the task "
            "scene (the bolt-nut and dish tasks under the scene's per-step budget, the G1 "
            "pouring under Fig. 11's 5 CANAL / 100 SubADMM, PGS iterations). Success recomputed "
            "from the sim's raw results: every planned step in `steps.csv` and every criterion's "
            "measured value (task.json) within its bounds, the penetration the deepest of "
            "`steps.csv`'s and the final state's. task.json's own flag beside it.\n\n| task | "
            "solver | success | task.json | steps | max penetration (mm) | largest normal "
            "impulse (N s) |\n|---|---|---|---|---|---|---|\n", p->title, c->config->id);
    for (int i = 0; i < L25_NTASKS; i++) {
        const l25_task *t = &l25_task_list[i];
        l25_taskres q[L25_NSIMSOLV];
        task_outcomes(c, NULL, t, q);
        for (int k = 0; k < L25_NSIMSOLV; k++) {
            char lab[48];
            snprintf(lab, sizeof lab, "%s-%s", t->id, l25_sim_label[k]);
            const ncp_study_simres *r =
                ncp_study_get_sim(c, t->pour ? l25_pour_part(k) : "tasks", lab);
            if (!q[k].ran) {
                fprintf(f, "| `%s` | %s | not run | | | | |\n", t->scene, l25_sim_label[k]);
                continue;
            }
            fprintf(f, "| `%s` | %s | %s | %s | %d/%d | %.3g | %.3g |\n", t->scene,
                    l25_sim_label[k], q[k].success ? "yes" : "no", r->success ? "yes" : "no",
                    q[k].nsteps, q[k].planned, 1e3 * q[k].penetration, q[k].impulse_max);
        }
    }
    return ncp_safe_fclose(f, path, err);
}
