/* A study's runs of programs outside ncpbench (study.h ncp_study_run.program): the program writes
 * an answers file (docs/answers.md), kept beside the captures and shared by the configurations,
 * and ncpbench grade (bench/grade.h) grades it into the run's folder. */
#include "figures/study.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/grade.h"
#include "bench/resume.h"
#include "metrics/metrics.h"
#include "util/fsutil.h"
#include "util/safefile.h"

#define SP_PATH 4400

extern char **environ;

/* Runs `program problems answers` with stdin from /dev/null and stdout + stderr to log: 0 when
 * it exited 0, else -1 with why (cannot start, exit status, signal). */
static int sp_spawn(const char *program, const char *problems, const char *answers,
                    const char *log, char *why, size_t nwhy)
{
    posix_spawn_file_actions_t fa;
    int e = posix_spawn_file_actions_init(&fa);
    if (e) {
        snprintf(why, nwhy, "posix_spawn_file_actions_init: %s", strerror(e));
        return -1;
    }
    if ((e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) ||
        (e = posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC |
                                              O_NOFOLLOW, 0644)) ||
        (e = posix_spawn_file_actions_adddup2(&fa, 1, 2))) {
        posix_spawn_file_actions_destroy(&fa);
        snprintf(why, nwhy, "posix_spawn_file_actions (%s): %s", log, strerror(e));
        return -1;
    }
    char *argv[] = {(char *)program, (char *)problems, (char *)answers, NULL};
    pid_t pid;
    e = posix_spawn(&pid, program, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e) {
        snprintf(why, nwhy, "cannot run %s: %s", program, strerror(e));
        return -1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            snprintf(why, nwhy, "waitpid(%s): %s", program, strerror(errno));
            return -1;
        }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    if (WIFEXITED(st))
        snprintf(why, nwhy, "%s exited with status %d (its output: %s)", program,
                 WEXITSTATUS(st), log);
    else
        snprintf(why, nwhy, "%s was killed by signal %d (its output: %s)", program,
                 WIFSIGNALED(st) ? WTERMSIG(st) : -1, log);
    return -1;
}

/* The answers' key: the capture's and the program's text (a changed program answers again). */
static int sp_key(const char *program, const char *capkey, char *key, size_t cap)
{
    char *text = NULL;
    size_t len = 0;
    ncp_error e = {0};
    if (ncp_read_file(program, &text, &len, &e)) return -1;
    snprintf(key, cap, "%s\nprogram %s text %016" PRIx64 "\n", capkey, program,
             ncp_resume_fingerprint(text));
    free(text);
    return 0;
}

/* answers = OUT/<study>/answers/<part>-<solver>.h5; *ok when it holds the program's answers
 * (kept while its key holds, else answered now). A program that cannot run or fails is said
 * on stderr (*ok = 0, NCP_OK). */
static int sp_answers(const ncp_study_ctx *c, const ncp_study_run *r, const char *h5,
                      const char *capkey, const char *top, char *answers, size_t cap,
                      int *ok, ncp_error *err)
{
    char dir[SP_PATH], name[160], kpath[SP_PATH], log[SP_PATH], tmp[SP_PATH], key[2048];
    char why[SP_PATH + 256];
    *ok = 0;
    int rc;
    snprintf(name, sizeof name, "%s-%s", r->part, r->solver);
    if ((rc = ncp_path_join(dir, sizeof dir, top, "answers", err)) ||
        (rc = ncp_mkdir_p(dir, err)) || (rc = ncp_path_join(answers, cap, dir, name, err)))
        return rc;
    if (snprintf(kpath, sizeof kpath, "%s.key", answers) >= (int)sizeof kpath ||
        snprintf(log, sizeof log, "%s.log", answers) >= (int)sizeof log ||
        snprintf(tmp, sizeof tmp, "%s.tmp.h5", answers) >= (int)sizeof tmp ||
        strlen(answers) + 4 >= cap)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: path too long", answers);
    strcat(answers, ".h5");
    if (sp_key(r->program, capkey, key, sizeof key)) {
        fprintf(stderr, "%s %s/%s: cannot read the program %s from %s (run from the source "
                "tree's root): not run\n", c->s->id, r->part, r->solver, r->program,
                "the working directory");
        return NCP_OK;
    }
    char *old = NULL;
    size_t olen = 0;
    ncp_error e = {0};
    int same = ncp_file_exists(answers) && !ncp_read_file(kpath, &old, &olen, &e) &&
               !strcmp(old, key);
    free(old);
    if (same) {
        *ok = 1;
        return NCP_OK;
    }
    printf("%s %s/%s: %s %s\n", c->s->id, r->part, r->solver, r->program, h5);
    fflush(stdout);
    unlink(tmp);
    int bad = sp_spawn(r->program, h5, tmp, log, why, sizeof why);
    if (!bad && !ncp_file_exists(tmp)) {
        snprintf(why, sizeof why, "%s exited 0 without writing its answers file (its output: "
                 "%s)", r->program, log);
        bad = 1;
    }
    if (bad) {
        unlink(tmp);
        if (c->o->interrupt && *c->o->interrupt) return NCP_OK;
        fprintf(stderr, "%s %s/%s: %s: not run\n", c->s->id, r->part, r->solver, why);
        return NCP_OK;
    }
    /* the answers, then their key: a kill in between answers again */
    if ((rc = ncp_safe_rename(tmp, answers, err)) || (rc = ncp_write_file_atomic(kpath, key, err)))
        return rc;
    *ok = 1;
    return NCP_OK;
}

int ncp_study_program(const ncp_study_ctx *c, const ncp_study_run *r, const ncp_study_part *pt,
                      const char *h5, const char *capkey, const char *top, const char *gdir,
                      ncp_error *err)
{
    char answers[SP_PATH], note[512];
    int ok, rc = sp_answers(c, r, h5, capkey, top, answers, sizeof answers, &ok, err);
    if (rc || !ok) return rc;
    ncp_grade_opts go;
    ncp_grade_opts_default(&go);
    go.problems = h5;
    go.answers = answers;
    go.out_dir = gdir;
    go.name = r->solver;
    go.tol = pt->budget.tol;
    if (pt->budget.stop_metric && (go.stop_metric = ncp_metrics_index(pt->budget.stop_metric)) < 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s: part %s: unknown stopping metric '%s'",
                             c->s->id, pt->id, pt->budget.stop_metric);
    go.figures = 0;
    ncp_grade_report rep;
    rc = ncp_grade_run(&go, &rep, note, sizeof note, err);
    if (rc) return ncp_error_prefix(err, "%s, %s, %s (graded %s): ", c->s->id, c->config->id,
                                    pt->id, answers);
    printf("%s %s/%s-%s: %d answers graded (self-timed)\n", c->s->id, c->config->id, pt->id,
           r->solver, rep.answered);
    fflush(stdout);
    return NCP_OK;
}
