/* A study's simulations (figures/study.h ncp_study_sim, study_sim.c): a small declaration with
 * two sims of scenes/box-on-plane.json (a 1 kg cube thrown with (0.6, 0.2, 0) m/s and a spin
 * of 3 rad/s about the vertical, landing after some free flight). Its steps.csv reads back
 * through ncp_study_get_sim as written; the kinetic energy of every free-flight step equals the
 * analytic 1/2 m (0.6^2 + 0.2^2 + (g t)^2) + 1/2 I w^2 (I = m (0.2^2 + 0.2^2) / 12, the cube's
 * isotropic inertia); a run killed by SIGKILL while the second sim runs is resumed without
 * running the first again (its steps.csv is the same file) and finishes the second; a changed
 * declaration (another step count) runs the sim again. A quick run leaves out the sim declared
 * so (steps_quick < 0: not run, sims.csv says so); a claim whose reducer finds it cannot be
 * tested is "not testable" though its yes rule holds; --parts naming no part is refused. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "figures/study.h"
#include "scene/scene.h"
#include "sim/world.h"
#include "solvers/registry.h"
#include "tcheck.h"
#include "util/csv.h"
#include "util/fsutil.h"

#define G 9.81

/* The second sim: the scene simulated longer (arg seconds), so that a kill finds it running. */
static int longer(const ncp_study_sim *sm, const ncp_fig_opts *o, const char *path,
                  ncp_scene **out, ncp_error *err)
{
    (void)o;
    ncp_scene *base = NULL;
    int rc = ncp_scene_load(path, ncp_registry_catalog(), &base, err);
    if (rc) return rc;
    const char *text = ncp_scene_text(base), *at = strstr(text, "\"duration\": 2.0");
    char *t = malloc(strlen(text) + 64);
    if (!at || !t) {
        free(t);
        ncp_scene_free(base);
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: no \"duration\": 2.0", path);
    }
    sprintf(t, "%.*s\"duration\": %g%s", (int)(at - text), text, sm->arg,
            at + strlen("\"duration\": 2.0"));
    rc = ncp_scene_parse(t, path, ncp_registry_catalog(), out, err);
    free(t);
    ncp_scene_free(base);
    return rc;
}

/* The observer: the box's height at each step's start (state) and the count of rows of each
 * solve (solved), to see both hooks fill their columns. */
static int obs_state(const ncp_study_sim *sm, int step, int n, const struct ncp_world *w,
                     double *row, ncp_error *err)
{
    (void)sm, (void)step, (void)n, (void)err;
    row[0] = w->pos[3 * ncp_world_find_body(w, "box") + 2];
    return NCP_OK;
}

static int obs_solved(const ncp_study_sim *sm, int step, int n, const struct ncp_problem *p,
                      const double *lambda, const double *v, double *row, ncp_error *err)
{
    (void)sm, (void)step, (void)n, (void)lambda, (void)v, (void)err;
    row[1] = p->m;
    return NCP_OK;
}

static const ncp_study_observer obs = {{"box_z", "rows_seen", NULL}, obs_state, obs_solved};

/* The reducer: the sims as the study layer reads them back, checked against steps.csv. */
static int checked_rows;
static ncp_study_sim sims[2];

static int reduce(const ncp_study_ctx *c, const ncp_study_part *p, const char *dir,
                  ncp_error *err)
{
    (void)p, (void)dir, (void)err;
    const ncp_study_simres *a = ncp_study_get_sim(c, "fall", "short");
    const ncp_study_simres *b = ncp_study_get_sim(c, "fall", "long");
    CHECK(a && a->ran && a->completed && !a->failed);
    CHECK(b && b->ran == !c->o->quick); /* left out of a quick run */
    int steps = c->o->quick ? sims[0].steps_quick : sims[0].steps;
    CHECK(a && a->steps_planned == steps && a->ncrit == 0); /* no task section */
    CHECK(ncp_study_get_sim(c, "fall", "nosuch") == NULL);
    if (!a || !a->ran) return NCP_OK;
    CHECK(a->nrows == steps);
    double h = 1.0 / 240, I = (0.04 + 0.04) / 12;
    int free_steps = 0;
    for (int k = 0; k < a->nrows; k++) {
        double t = ncp_study_sim_at(a, k, "t");
        CHECK_NEAR(t, k * h, 1e-12);
        CHECK(isfinite(ncp_study_sim_at(a, k, "box_z")));
        if (ncp_study_sim_at(a, k, "rows") != 0) {
            CHECK(ncp_study_sim_at(a, k, "rows_seen") == ncp_study_sim_at(a, k, "rows"));
            continue;
        }
        double want = 0.5 * (0.36 + 0.04 + G * t * G * t) + 0.5 * I * 9.0;
        CHECK_NEAR(ncp_study_sim_at(a, k, "kinetic"), want, 1e-9);
        CHECK(isnan(ncp_study_sim_at(a, k, "rows_seen")));
        free_steps++;
    }
    CHECK(free_steps >= 5); /* the cube flies before it lands (2 cm) */
    CHECK(isnan(ncp_study_sim_at(a, 0, "no_such_column")));
    CHECK(isnan(ncp_study_sim_at(a, a->nrows, "t")));
    checked_rows += a->nrows;
    return NCP_OK;
}

static const ncp_study_part parts[] = {
    {"fall", "box on plane", NULL, {1e-10, 100, 100, 0.0, NULL, 0, 0}, reduce},
};

static ncp_study_sim sims[2] = {
    {"fall", "short", "box-on-plane.json", NULL, NULL, 0, NULL, NULL, {{NULL, 0}}, 0, 40, 40,
     &obs},
    {"fall", "long", "box-on-plane.json", NULL, longer, 30.0, NULL, NULL, {{NULL, 0}}, 0, 0, -1,
     NULL},
};

static const ncp_study_config configs[] = {{"paper", "one configuration", "", NULL, 0}};

/* A claim its reducer finds untestable (v0 = 1 would be "yes"). */
static int untestable(const ncp_study_ctx *c, ncp_study_claim_out *o, ncp_error *err)
{
    (void)c, (void)err;
    o->v[0] = 1;
    o->not_testable = 1;
    snprintf(o->ours, sizeof o->ours, "no contact decides it");
    return NCP_OK;
}

static const ncp_study_claim claims[] = {
    {"U", "fall", "here", "words", "quantity", {"v", NULL, NULL}, NAN, "rule", 1, {{0, 0, NAN}},
     0, {{0, NAN, NAN}}, NULL, untestable},
};

static const ncp_study study = {
    "simtest", "sim test", "", "", NULL, 0, parts, 1, NULL, 0, configs, 1, claims, 1, sims, 2,
};

/* The text of path (at most cap - 1 characters; "" when unreadable). */
static void slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (f) fclose(f);
}

static int file_id(const char *path, struct stat *st) { return stat(path, st); }

static int count_rows(const char *path)
{
    FILE *f = fopen(path, "r");
    int n = 0, ch;
    if (!f) return -1;
    while ((ch = fgetc(f)) != EOF) n += ch == '\n';
    fclose(f);
    return n - 1;
}

int main(void)
{
    char tmpl[] = "/tmp/ncp_study_sim_XXXXXX", a_csv[256], a_key[256], b_key[256], b_csv[256];
    char *out = mkdtemp(tmpl);
    CHECK(out != NULL);
    if (!out) return 1;
    snprintf(a_csv, sizeof a_csv, "%s/simtest/paper/fall-short/steps.csv", out);
    snprintf(a_key, sizeof a_key, "%s/simtest/paper/fall-short/sim.key", out);
    snprintf(b_key, sizeof b_key, "%s/simtest/paper/fall-long/sim.key", out);
    snprintf(b_csv, sizeof b_csv, "%s/simtest/paper/fall-long/steps.csv", out);
    ncp_fig_opts o;
    memset(&o, 0, sizeof o);
    o.out_dir = out;
    o.jobs = 1;

    /* a child runs the study; it is killed (SIGKILL) once the first sim is finished */
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        ncp_error e = {0};
        _exit(ncp_study_reproduce(&study, &o, &e) ? 3 : 0);
    }
    int killed = 0;
    for (int i = 0; i < 6000 && !killed; i++) {
        if (ncp_file_exists(a_key)) killed = kill(pid, SIGKILL) == 0;
        else nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    int st;
    waitpid(pid, &st, 0);
    CHECK(killed && WIFSIGNALED(st));
    CHECK(!ncp_file_exists(b_key)); /* the second sim had not finished */
    struct stat s0, s1;
    CHECK(file_id(a_csv, &s0) == 0);

    /* resumed: the first sim kept (the same file), the second run to its end */
    ncp_error err = {0};
    CHECK_OK(ncp_study_reproduce(&study, &o, &err), &err);
    CHECK(checked_rows == 40);
    CHECK(file_id(a_csv, &s1) == 0);
    CHECK(s0.st_ino == s1.st_ino && s0.st_mtim.tv_sec == s1.st_mtim.tv_sec &&
          s0.st_mtim.tv_nsec == s1.st_mtim.tv_nsec);
    CHECK(ncp_file_exists(b_key));
    CHECK(count_rows(b_csv) == 7200); /* 30 s at h = 1/240 */

    /* a changed declaration runs the sim again */
    sims[0].steps = 41;
    checked_rows = 0;
    CHECK_OK(ncp_study_reproduce(&study, &o, &err), &err);
    CHECK(file_id(a_csv, &s1) == 0);
    CHECK(s0.st_ino != s1.st_ino);
    CHECK(count_rows(a_csv) == 41);
    char path[300], text[4096];
    snprintf(path, sizeof path, "%s/simtest/paper/claims.csv", out);
    slurp(path, text, sizeof text);
    CHECK(strstr(text, "paper,U,1,nan,nan,not testable,") != NULL);

    /* quick: the long sim is left out (not run), the short one runs its steps_quick */
    o.quick = 1;
    checked_rows = 0;
    CHECK_OK(ncp_study_reproduce(&study, &o, &err), &err);
    CHECK(checked_rows == 40);
    snprintf(path, sizeof path, "%s/simtest/paper/sims.csv", out);
    slurp(path, text, sizeof text);
    CHECK(strstr(text, "\nfall,long,,fall-long,,0\n") != NULL);

    /* --parts naming no part of the study is refused */
    o.parts = "fal";
    CHECK(ncp_study_reproduce(&study, &o, &err) == NCP_ERR_INPUT && strstr(err.msg, "'fal'"));
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    CHECK(system(cmd) == 0);
    return tcheck_exit("study_sim");
}
