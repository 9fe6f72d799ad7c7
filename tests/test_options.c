/* The command line's option table (app/options.h) against the contract written out below: every
 * subcommand x option pair is accepted or refused as the contract says, by the table
 * (ncp_cmd_takes), by the parser (ncp_args_parse, long name and alias) and by the program's
 * entry point (ncp_cli_main with --help, the dry path: nothing runs), and each command's
 * generated --help lists exactly its options. Also the edit distance behind "did you mean". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/options.h"
#include "tcheck.h"
#include "util/strdist.h"

/* The contract: what each command takes (docs/cli.md, the CLI reference). Written independently
 * of the table so that a change to either shows here. */
#define SOLVING                                                                                 \
    "--help --solvers --tol --max-iter --budget-ms --clock --repeat --stop-metric --param "     \
    "--out --jobs --no-traces --traces-csv --trace-every --no-figures --profile " \
    "--no-progress --sym-tol --max-memory --reconstruct-primal --primal --symmetrize "          \
    "--warm-start --plugin --isolate --no-isolate --deadline-ms --fresh --resume"
static const struct {
    const char *cmd, *takes;
} contract[] = {
    {"run", SOLVING " --seed --quick --driver --steps --step-budget-ms --store-fclib"},
    {"solve", SOLVING},
    {"capture", "--help --output --seed --quick --steps --driver --step-budget-ms --store-fclib "
                "--max-memory --plugin"},
    {"plot", "--help --metric --compare"},
    {"list", "--help --plugin"},
    {"export", "--help --fclib --max-memory"},
    {"check", "--help --out --jobs --solvers --param --max-iter --plugin --isolate --no-isolate "
              "--update --strict --junit"},
    {"task", "--help --solvers --step-budget-ms --steps --quick --param --out --jobs "
             "--no-figures --max-memory --plugin"},
    {"grade", "--help --out --tol --stop-metric --name --into --strict --no-figures --max-memory"},
    {"describe", "--help --csv --json --eig-max --lanczos --max-memory"},
    {"figures", "--help --paper --profiles --all --out --quick --seed --jobs --scenes --parts "
                "--split-by --from --plugin --isolate --no-isolate"},
    {"version", "--help"},
    {"help", "--help"},
};

static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

/* ncp_cli_main with stdout and stderr silenced */
static int run_quiet(int argc, char **argv)
{
    fflush(stdout);
    fflush(stderr);
    int o = dup(1), e = dup(2), null = open("/dev/null", O_WRONLY);
    if (o < 0 || e < 0 || null < 0) return -1;
    dup2(null, 1);
    dup2(null, 2);
    int rc = ncp_cli_main(argc, argv, NULL);
    fflush(stdout);
    fflush(stderr);
    dup2(o, 1);
    dup2(e, 2);
    close(o);
    close(e);
    close(null);
    return rc;
}

static void test_contract(void)
{
    int ncmd = 0;
    for (; ncp_cmd_at(ncmd); ncmd++) {
    }
    CHECK(ncmd == (int)(sizeof contract / sizeof contract[0]));
    for (size_t k = 0; k < sizeof contract / sizeof contract[0]; k++) {
        const ncp_cmd_def *cmd = ncp_cmd_find(contract[k].cmd);
        CHECK(cmd != NULL);
        if (!cmd) continue;
        /* the generated help */
        char *help = NULL;
        size_t hlen = 0;
        FILE *hf = open_memstream(&help, &hlen);
        CHECK(hf != NULL);
        if (!hf) continue;
        ncp_cmd_help(cmd, hf);
        fclose(hf);
        for (int opt = 0; opt < NCP_OPT_COUNT; opt++) {
            const ncp_opt_def *d = ncp_opt_get(opt);
            CHECK(d && d->name && d->help && d->name[0] == '-' && d->name[1] == '-');
            if (!d || !d->name) continue;
            int want = listed(contract[k].takes, d->name);
            int ok = ncp_cmd_takes(cmd, opt) == want;
            if (!ok) fprintf(stderr, "table: %s %s: want %s\n", cmd->name, d->name, want ? "taken" : "refused");
            CHECK(ok);
            /* the parser, by name and by alias */
            char *argv[4] = {(char *)d->name, (char *)"1", NULL, NULL};
            int argc = d->arg ? 2 : 1;
            ncp_parsed_args *pa = malloc(sizeof *pa);
            CHECK(pa != NULL);
            if (!pa) return;
            int rc = ncp_args_parse(cmd, argc, argv, 1, pa);
            ok = rc == (want ? 0 : 2) && (!want || opt == NCP_OPT_HELP ||
                                          (pa->n == 1 && pa->opt[0] == opt &&
                                           (d->arg ? pa->val[0] != NULL : pa->val[0] == NULL)));
            if (!ok) fprintf(stderr, "parser: %s %s: rc %d\n", cmd->name, d->name, rc);
            CHECK(ok);
            if (d->alias) {
                argv[0] = (char *)d->alias;
                CHECK(ncp_args_parse(cmd, argc, argv, 1, pa) == (want ? 0 : 2));
            }
            /* an option that needs a value and has none is refused too */
            if (want && d->arg) CHECK(ncp_args_parse(cmd, 1, argv, 1, pa) == 2);
            free(pa);
            /* the program: `ncpbench CMD OPTION [VALUE] --help` */
            char *pargv[6] = {(char *)"ncpbench", (char *)cmd->name, (char *)d->name,
                              (char *)"1", NULL, NULL};
            int pargc = 3 + (d->arg ? 1 : 0);
            pargv[pargc++] = (char *)"--help";
            if (!strcmp(cmd->name, "help")) continue; /* `help` reads its words, not options */
            rc = run_quiet(pargc, pargv);
            ok = rc == (want ? 0 : 2);
            if (!ok) fprintf(stderr, "ncpbench %s %s --help: exit %d\n", cmd->name, d->name, rc);
            CHECK(ok);
            /* the help lists the option exactly when the command takes it */
            if (opt != NCP_OPT_HELP) {
                char needle[80];
                snprintf(needle, sizeof needle, " %s%s", d->name, d->arg ? " " : "");
                int shown = 0;
                const char *section = strstr(help, "\nOptions"); /* not the prose above */
                for (const char *p = section; p && (p = strstr(p, needle)); p++) {
                    size_t n = strlen(needle);
                    if (d->arg || p[n] == ' ' || p[n] == '\n') shown = 1;
                }
                ok = shown == want;
                if (!ok) fprintf(stderr, "help of %s: %s %s\n", cmd->name, d->name, want ? "missing" : "shown");
                CHECK(ok);
            }
        }
        free(help);
    }
    /* the case: options that do not apply to list */
    char *argv[] = {(char *)"ncpbench", (char *)"list", (char *)"metrics", (char *)"--tol",
                    (char *)"1e-3", (char *)"--budget-ms", (char *)"5", (char *)"--symmetrize"};
    CHECK(run_quiet(8, argv) == 2);
    /* an unknown option, an unknown command */
    char *argv2[] = {(char *)"ncpbench", (char *)"list", (char *)"--frobnicate"};
    CHECK(run_quiet(3, argv2) == 2);
    char *argv3[] = {(char *)"ncpbench", (char *)"frobnicate"};
    CHECK(run_quiet(2, argv3) == 2);
    /* help OPTION: known (with or without dashes), unknown */
    char *argv4[] = {(char *)"ncpbench", (char *)"help", (char *)"--tol"};
    CHECK(run_quiet(3, argv4) == 0);
    char *argv5[] = {(char *)"ncpbench", (char *)"help", (char *)"jobs"};
    CHECK(run_quiet(3, argv5) == 0);
    char *argv6[] = {(char *)"ncpbench", (char *)"help", (char *)"--frobnicate"};
    CHECK(run_quiet(3, argv6) == 2);
    /* every option's help names the commands that take it */
    for (int opt = 0; opt < NCP_OPT_COUNT; opt++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        CHECK(f != NULL);
        if (!f) continue;
        CHECK(ncp_opt_help(ncp_opt_get(opt)->name, f) == 0);
        fclose(f);
        const char *by = strstr(text, "taken by:");
        CHECK(by != NULL);
        for (size_t k = 0; by && k < sizeof contract / sizeof contract[0]; k++) {
            char w[40];
            snprintf(w, sizeof w, " %s", contract[k].cmd);
            const char *eol = strchr(by, '\n');
            int shown = 0;
            for (const char *p = by; (p = strstr(p, w)) && (!eol || p < eol); p++) {
                size_t n = strlen(w);
                if (p[n] == ' ' || p[n] == '\n') shown = 1;
            }
            CHECK(shown == listed(contract[k].takes, ncp_opt_get(opt)->name));
        }
        free(text);
    }
}

static void test_did_you_mean(void)
{
    /* textbook values: kitten -> sitting 3, a swap of neighbours is one edit */
    CHECK(ncp_edit_distance("kitten", "sitting") == 3);
    CHECK(ncp_edit_distance("", "abc") == 3);
    CHECK(ncp_edit_distance("abc", "abc") == 0);
    CHECK(ncp_edit_distance("ab", "ba") == 1);
    CHECK(ncp_edit_distance("symetrize", "symmetrize") == 1);
    const char *solvers[] = {"pgs", "apgd", "jacobi", "nsn-nm", "canal"};
    const char *near = ncp_closest_name("pgz", solvers, 5);
    CHECK(near && !strcmp(near, "pgs"));
    near = ncp_closest_name("jacoby", solvers, 5);
    CHECK(near && !strcmp(near, "jacobi"));
    CHECK(ncp_closest_name("xyzzy", solvers, 5) == NULL);
    CHECK(ncp_closest_name("pgs", solvers, 5) == NULL); /* not misspelled */
    /* an option's dashes do not widen the tolerance: "--nope" is no "--name" */
    const char *opts[] = {"--name", "--tol", "--jobs"};
    CHECK(ncp_closest_name("--nope", opts, 3) == NULL);
    near = ncp_closest_name("--tool", opts, 3);
    CHECK(near && !strcmp(near, "--tol"));
}

int main(void)
{
    test_contract();
    test_did_you_mean();
    return tcheck_exit("options");
}
