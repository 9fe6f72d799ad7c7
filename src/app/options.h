/* The command line's one option table (options.c): every option of every subcommand, with its
 * short alias, argument, help and default, and the subcommands, each declaring the options it
 * takes. One parser reads argv against it: an option a subcommand does not take is refused
 * (exit 2 naming both), a misspelled one gets "did you mean". Each command's --help and
 * `ncpbench help OPTION` are generated from it. The values are checked and applied by the
 * commands (cli.c). */
#ifndef NCP_OPTIONS_H
#define NCP_OPTIONS_H

#include <stdio.h>

typedef enum ncp_opt {
    NCP_OPT_HELP,
    /* what runs and how it stops */
    NCP_OPT_SOLVERS, NCP_OPT_TOL, NCP_OPT_MAX_ITER, NCP_OPT_BUDGET_MS, NCP_OPT_CLOCK,
    NCP_OPT_REPEAT, NCP_OPT_STOP_METRIC, NCP_OPT_PARAM, NCP_OPT_SEED, NCP_OPT_OUT,
    NCP_OPT_QUICK, NCP_OPT_JOBS,
    /* outputs */
    NCP_OPT_NO_TRACES, NCP_OPT_TRACES_CSV, NCP_OPT_TRACE_EVERY, NCP_OPT_NO_FIGURES,
    NCP_OPT_PROFILE, NCP_OPT_NO_PROGRESS,
    /* reading problems */
    NCP_OPT_SYM_TOL, NCP_OPT_MAX_MEMORY, NCP_OPT_RECONSTRUCT_PRIMAL, NCP_OPT_PRIMAL,
    NCP_OPT_SYMMETRIZE, NCP_OPT_WARM_START,
    /* plugins and isolation */
    NCP_OPT_PLUGIN, NCP_OPT_ISOLATE, NCP_OPT_NO_ISOLATE, NCP_OPT_DEADLINE_MS,
    /* resuming */
    NCP_OPT_FRESH, NCP_OPT_RESUME,
    /* capturing */
    NCP_OPT_DRIVER, NCP_OPT_STEPS, NCP_OPT_STEP_BUDGET_MS, NCP_OPT_STORE_FCLIB, NCP_OPT_OUTPUT,
    /* single commands */
    NCP_OPT_FCLIB, NCP_OPT_METRIC, NCP_OPT_COMPARE, NCP_OPT_UPDATE, NCP_OPT_STRICT, NCP_OPT_JUNIT, NCP_OPT_NAME,
    NCP_OPT_INTO,
    NCP_OPT_PAPER, NCP_OPT_PROFILES, NCP_OPT_ALL, NCP_OPT_SCENES, NCP_OPT_PARTS,
    NCP_OPT_SPLIT_BY, NCP_OPT_FROM, NCP_OPT_CSV, NCP_OPT_JSON, NCP_OPT_EIG_MAX, NCP_OPT_LANCZOS,
    NCP_OPT_COUNT
} ncp_opt;

typedef struct ncp_opt_def {
    const char *name;      /* "--tol" */
    const char *alias;     /* "-j", or NULL */
    const char *arg;       /* the value's form ("X|high|low"); NULL: a flag */
    const char *help;      /* one paragraph, wrapped when printed */
    const char *def;       /* the default, or NULL when the help says it */
} ncp_opt_def;

/* An option a command takes; help, when not NULL, replaces the table's for that command. */
typedef struct ncp_opt_use {
    int opt;
    const char *help;
} ncp_opt_use;

typedef struct ncp_cmd_def {
    const char *name;
    const char *args;      /* positional arguments for the usage line */
    const char *summary;   /* one line for `ncpbench --help` */
    const char *about;     /* the command's --help text above its options */
    const ncp_opt_use *opts; /* ends with {-1, NULL} */
} ncp_cmd_def;

const ncp_opt_def *ncp_opt_get(int opt);
/* The command of that name, or NULL; ncp_cmd_at(i) for i = 0.. until NULL. */
const ncp_cmd_def *ncp_cmd_find(const char *name);
const ncp_cmd_def *ncp_cmd_at(int i);
/* Whether cmd takes opt. */
int ncp_cmd_takes(const ncp_cmd_def *cmd, int opt);

/* One parsed command line: the options in order with their values, and the positional words. */
#define NCP_ARGS_MAX 512
typedef struct ncp_parsed_args {
    int n;
    int opt[NCP_ARGS_MAX];
    const char *word[NCP_ARGS_MAX];   /* as written ("-j", "--jobs") */
    const char *val[NCP_ARGS_MAX];    /* NULL for flags */
    int npos;
    const char *pos[NCP_ARGS_MAX];
    int help;                         /* -h / --help was given */
} ncp_parsed_args;

/* Reads argv (the words after the command's name) against cmd's options. On a word that is no
 * option of the table, an option cmd does not take, or a missing value: prints the reason on
 * stderr ("ncpbench CMD: ...") unless quiet, and returns 2 (the usage exit code); else 0. */
int ncp_args_parse(const ncp_cmd_def *cmd, int argc, char **argv, int quiet, ncp_parsed_args *out);

/* The commands with their one-line summaries (`ncpbench --help`). */
void ncp_cmd_overview(FILE *f);
/* `ncpbench CMD --help`: usage line, about, and the options from the table. */
void ncp_cmd_help(const ncp_cmd_def *cmd, FILE *f);
/* `ncpbench help OPTION`: the option's help, default and the commands that take it; returns 0,
 * or 2 (printed on stderr) when it names no option of the table. */
int ncp_opt_help(const char *word, FILE *f);

/* The same table as Markdown (`ncpbench help --markdown`, committed as docs/cli.md): the
 * commands' overview, one section per command (usage, about, its options with their help and
 * defaults; `extra`, when not NULL, appends a command's own text, e.g. the figure sets), and an
 * index of which commands take each option. */
void ncp_cli_markdown(FILE *f, void (*extra)(const ncp_cmd_def *cmd, FILE *f));

#endif
