/* The option table and its parser (options.h). Defaults that are numbers come from the headers
 * that define them (solve/harness.h), so a default is written once. */
#include <string.h>

#include "app/options.h"
#include "bench/mpi_pool.h"
#include "solve/harness.h"
#include "util/strdist.h"

/* Indexed by ncp_opt (designated initialisers: a missing row is a NULL name, caught by the
 * option-table test through `ncpbench help`). */
static const ncp_opt_def opts[NCP_OPT_COUNT] = {
    [NCP_OPT_HELP] = {"--help", "-h", NULL, "print this command's help and exit", NULL},
    [NCP_OPT_SOLVERS] = {"--solvers", NULL, "a,b",
        "solvers to run; the words default (every registered solver but the peers), peers "
        "(Siconos's solvers, when built with them) and all name sets: --solvers default,peers "
        "= all; SOLVER@NAME=VALUE[@NAME=VALUE...] is a variant, a row of its own with its own "
        "parameters over --param's: --solvers pgs,pgs@omega=1.3", "the scene's list, else default"},
    [NCP_OPT_TOL] = {"--tol", NULL, "X|high|low",
        "tolerance on the stopping metric; presets high = " NCP_XSTR(NCP_TOL_HIGH)
        ", low = " NCP_XSTR(NCP_TOL_LOW) " (high and low accuracy)",
        "the scene's, else " NCP_XSTR(NCP_DEFAULT_TOL)},
    [NCP_OPT_MAX_ITER] = {"--max-iter", NULL, "N", "iteration budget per solve",
        "the scene's, else " NCP_XSTR(NCP_DEFAULT_MAX_ITER)},
    [NCP_OPT_BUDGET_MS] = {"--budget-ms", NULL, "X",
        "solver-time budget per solve in ms, setup included", "none"},
    [NCP_OPT_CLOCK] = {"--clock", NULL, "cpu|wall",
        "the solver clock of budgets and reported times: cpu, the solving thread's CPU time "
        "plus its worker threads' and a peer process's; wall, elapsed time, which the "
        "machine's load changes. The wall time is recorded beside it (metrics.csv wall_ms)",
        "cpu"},
    [NCP_OPT_REPEAT] = {"--repeat", NULL, "N",
        "solve every problem x solver pair N times: the row's times are the repeats' median, "
        "time_min_ms / time_max_ms the spread; the answers must be identical bits, else the "
        "run fails", "1"},
    [NCP_OPT_STOP_METRIC] = {"--stop-metric", NULL, "NAME",
        "the metric compared with --tol (`ncpbench list metrics`)", "natural_map_rel_acary"},
    [NCP_OPT_PARAM] = {"--param", NULL, "S.NAME=X",
        "solver parameter, e.g. --param pgs.omega=1.2 (repeatable; `ncpbench list solvers` "
        "lists each solver's)", NULL},
    [NCP_OPT_SEED] = {"--seed", NULL, "N", "seed for everything random", "1"},
    [NCP_OPT_OUT] = {"--out", NULL, "DIR", "output directory", NULL},
    [NCP_OPT_QUICK] = {"--quick", NULL, NULL, "small sizes (the scene's quick_steps), for CI",
        NULL},
    [NCP_OPT_JOBS] = {"--jobs", "-j", "N",
        "solve N problem x solver pairs in parallel threads (timings are only comparable "
        "with -j 1)", "1"},
    [NCP_OPT_NO_TRACES] = {"--no-traces", NULL, NULL, "do not write traces (and no figures)",
        NULL},
    [NCP_OPT_TRACES_CSV] = {"--traces-csv", NULL, NULL,
        "also write the traces as OUT/traces.csv (text, large)", NULL},
    [NCP_OPT_TRACE_EVERY] = {"--trace-every", NULL, NULL,
        "store every iteration in the traces (default: iterations 1..20, then about 20 per "
        "decade, and the last one)", NULL},
    [NCP_OPT_NO_FIGURES] = {"--no-figures", NULL, NULL, "do not run gnuplot", NULL},
    [NCP_OPT_PROFILE] = {"--profile", NULL, NULL,
        "print where the time went: capture, solvers, the harness's monitoring, writing, "
        "figures (always in summary.json \"profile\")", NULL},
    [NCP_OPT_NO_PROGRESS] = {"--no-progress", NULL, NULL,
        "no progress bar (it is shown only on a terminal anyway)", NULL},
    [NCP_OPT_SYM_TOL] = {"--sym-tol", NULL, "X",
        "a global problem's M with |M - M^T|_F / |M|_F <= X is read as its symmetric part, "
        "with a note", "1e-6"},
    [NCP_OPT_MAX_MEMORY] = {"--max-memory", NULL, "SIZE",
        "memory budget (e.g. 8G, 512M, 40%): input files declaring more, and densified "
        "matrices above it, are refused", "half the physical memory"},
    [NCP_OPT_RECONSTRUCT_PRIMAL] = {"--reconstruct-primal", NULL, NULL,
        "let primal solvers run on dual-only problems with A = I, J = Q diag(sqrt w) built "
        "from D = Q diag(w) Q^T (recorded per row); without it such rows are unsupported, the "
        "reason in the column note", NULL},
    [NCP_OPT_PRIMAL] = {"--primal", NULL, "dense|sparse",
        "dense: let primal solvers run on sparse-primal (FCLib global) problems with A "
        "densified, if it fits in memory (recorded); sparse: such rows are unsupported",
        "sparse"},
    [NCP_OPT_SYMMETRIZE] = {"--symmetrize", NULL, NULL,
        "solvers that need a symmetric D get (D + D^T)/2 when D is not symmetric (recorded; "
        "metrics always use D as given)", NULL},
    [NCP_OPT_WARM_START] = {"--warm-start", NULL, "zero|velocity|guess",
        "where solves start (recorded): velocity = solvers that take a velocity start from the "
        "problem's previous velocity, impulses 0 (captured problems carry it; zero where a "
        "problem has none); guess = its impulses too (FCLib /guesses)", "velocity"},
    [NCP_OPT_PLUGIN] = {"--plugin", NULL, "FILE.so",
        "load a solver plugin (repeatable; also $NCPBENCH_PLUGINS, a colon-separated list of "
        "files): its solvers are listed, selected with --solvers and run, graded and drawn "
        "like built-in ones (docs/plugins.md)", NULL},
    [NCP_OPT_ISOLATE] = {"--isolate", NULL, NULL,
        "run every problem x solver solve in a forked child process (a plugin's solves always "
        "are, unless --no-isolate): a solver that crashes or calls exit() gives a row with "
        "status crashed (the note says how), one that passes its hard deadline is killed (row "
        "`timeout (killed)`), and the run goes on (exit 4 at its end). Times are the child's "
        "solver clock; the child shares no memory with ncpbench's process (it is started by "
        "a spawner made at the command's start), but a fresh process pays the first touch of "
        "every page it allocates: compare isolated with isolated", NULL},
    [NCP_OPT_NO_ISOLATE] = {"--no-isolate", NULL, NULL,
        "run plugins' solves in ncpbench's process too (trusted plugins)", NULL},
    [NCP_OPT_DEADLINE_MS] = {"--deadline-ms", NULL, "X",
        "the watchdog's hard deadline of one solve in wall ms: an isolated solve past it is "
        "killed; an in-process one that ignores the stop request stops the run (exit 5, "
        "finished rows written)", "10 x --budget-ms + 5000, 1800000 without a budget"},
    [NCP_OPT_FRESH] = {"--fresh", NULL, NULL, "discard the results in OUT and start over",
        NULL},
    [NCP_OPT_RESUME] = {"--resume", NULL, NULL,
        "the default: keep the finished pairs of the same configuration", NULL},
    [NCP_OPT_DRIVER] = {"--driver", NULL, "NAME", "solver that drives the trajectory",
        "the scene's"},
    [NCP_OPT_STEPS] = {"--steps", NULL, "N", "number of captured steps", "the scene's"},
    [NCP_OPT_STEP_BUDGET_MS] = {"--step-budget-ms", NULL, "X",
        "the driver's solver-time budget per step, ms (setup included): the driver stops there "
        "and the step goes on with its current impulses", "the scene's driver_budget"},
    [NCP_OPT_STORE_FCLIB] = {"--store-fclib", NULL, NULL,
        "also store the FCLib groups fclib_local / fclib_global in problems.h5 (compressed; "
        "`ncpbench export --fclib` writes plain FCLib files)", NULL},
    [NCP_OPT_OUTPUT] = {"--output", "-o", "FILE", "where to write the problems (HDF5)", NULL},
    [NCP_OPT_FCLIB] = {"--fclib", NULL, "DIR", "the folder of the FCLib files written", NULL},
    [NCP_OPT_METRIC] = {"--metric", NULL, "NAME", "the metric drawn (`ncpbench list metrics`); "
        "the run's tolerance is drawn only for its stop metric",
        "the run's stop metric (summary.json \"budget\"), al_residual without a summary"},
    [NCP_OPT_COMPARE] = {"--compare", NULL, "A,B,...",
        "the solvers overlaid in the overview figure (solvers of the run, comma-separated, as "
        "they are named in metrics.csv: variants and graded names too)",
        "the best-ranked solver of each family (results.md)"},
    [NCP_OPT_UPDATE] = {"--update", NULL, NULL,
        "rewrite the baseline's values from this run (bands kept); the run's solvers missing "
        "from it are added", NULL},
    [NCP_OPT_STRICT] = {"--strict", NULL, NULL,
        "what is otherwise a note is a failure (each command says which)", NULL},
    [NCP_OPT_JUNIT] = {"--junit", NULL, "FILE",
        "also write the verdicts as JUnit XML (one testcase per scene x solver x quantity; a "
        "failure carries the band and the value), written atomically", NULL},
    [NCP_OPT_NAME] = {"--name", NULL, "NAME",
        "the solver's name in the outputs", "the answers file's attribute `solver`, else its "
        "file name without extension"},
    [NCP_OPT_INTO] = {"--into", NULL, "RUN",
        "add the graded solver's rows to the results of the run in folder RUN (its problems, "
        "tolerance, stop metric and budget; every output redrawn; docs/answers.md)", NULL},
    [NCP_OPT_PAPER] = {"--paper", NULL, "KEY", "run that paper's figure set (repeatable)", NULL},
    [NCP_OPT_PROFILES] = {"--profiles", NULL, NULL, "run the performance-profile set", NULL},
    [NCP_OPT_ALL] = {"--all", NULL, NULL, "run every figure set", NULL},
    [NCP_OPT_SCENES] = {"--scenes", NULL, "A,B",
        "restrict the profiles to those shipped scenes (names without .json)", NULL},
    [NCP_OPT_PARTS] = {"--parts", NULL, "A,B",
        "run only those parts of a paper's study (its part ids, e.g. castro2023: fig10, "
        "slip, cylinder; lee2025: fig7, fig9, table2, table3_8, fig11, fig11_canal, tasks, "
        "...); the other parts' claims are \"not run\"", NULL},
    [NCP_OPT_SPLIT_BY] = {"--split-by", NULL, "LABEL",
        "also draw the performance profiles split by a hardness label of the problems (rank, "
        "density, cond, mu, size; docs/design.md §5.7.2): profiles-by-LABEL/ and "
        "profiles-by-LABEL.md", NULL},
    [NCP_OPT_FROM] = {"--from", NULL, "DIR",
        "with --split-by and no figure set: split the profiles of a finished run (`ncpbench "
        "solve` or `run` output: its metrics.csv and labels.csv), nothing captured", NULL},
    [NCP_OPT_CSV] = {"--csv", NULL, "PATH", "also write the labels as CSV (the columns of a run's "
        "labels.csv)", NULL},
    [NCP_OPT_JSON] = {"--json", NULL, "PATH", "also write the labels as JSON (an array of "
        "objects)", NULL},
    [NCP_OPT_EIG_MAX] = {"--eig-max", NULL, "N", "largest order of the exact eigenvalue route "
        "(beyond it: Lanczos estimates)", "1200"},
    [NCP_OPT_LANCZOS] = {"--lanczos", NULL, "K", "Lanczos steps of the estimate", "64"},
};

#define END {-1, NULL}
#define O(x) {NCP_OPT_##x, NULL}

/* The options of run and solve (the solving ones; --seed and --quick are the capture's: run's) */
#define SOLVING                                                                                \
    O(SOLVERS), O(TOL), O(MAX_ITER), O(BUDGET_MS), O(CLOCK), O(REPEAT), O(STOP_METRIC),         \
        O(PARAM), O(OUT), O(JOBS), O(NO_TRACES), O(TRACES_CSV),                                \
        O(TRACE_EVERY), O(NO_FIGURES), O(PROFILE), O(NO_PROGRESS), O(SYM_TOL), O(MAX_MEMORY),  \
        O(RECONSTRUCT_PRIMAL), O(PRIMAL), O(SYMMETRIZE), O(WARM_START), O(PLUGIN), O(ISOLATE), \
        O(NO_ISOLATE), O(DEADLINE_MS), O(FRESH), O(RESUME)

static const ncp_opt_use run_opts[] = {
    O(HELP), SOLVING, O(SEED), O(QUICK), O(DRIVER), O(STEPS), O(STEP_BUDGET_MS), O(STORE_FCLIB),
    END};
static const ncp_opt_use solve_opts[] = {O(HELP), SOLVING, END};
static const ncp_opt_use capture_opts[] = {
    O(HELP), O(OUTPUT), O(SEED), O(QUICK), O(STEPS), O(DRIVER), O(STEP_BUDGET_MS),
    O(STORE_FCLIB), O(MAX_MEMORY),
    {NCP_OPT_PLUGIN, "load a solver plugin (repeatable; also $NCPBENCH_PLUGINS): a plugin "
                     "solver may drive"},
    END};
static const ncp_opt_use plot_opts[] = {O(HELP), O(METRIC), O(COMPARE), END};
static const ncp_opt_use list_opts[] = {
    O(HELP),
    {NCP_OPT_PLUGIN, "list the plugin's solvers too, with its file and name (repeatable; also "
                     "$NCPBENCH_PLUGINS, colon-separated)"},
    END};
static const ncp_opt_use export_opts[] = {O(HELP), O(FCLIB), O(MAX_MEMORY), END};
static const ncp_opt_use check_opts[] = {
    O(HELP),
    {NCP_OPT_OUT, "output directory of the reruns (default results/check)"},
    {NCP_OPT_JOBS, "solve N problem x solver pairs in parallel threads (the check compares "
                   "iterations and residuals, not times: any N gives the same verdicts)"},
    {NCP_OPT_SOLVERS, "check only these solvers (names or the sets default, peers, all); a "
                      "solver the baseline has no entry for is reported (see --strict)"},
    {NCP_OPT_PARAM, "solver parameter for the rerun, e.g. --param pgs.omega=0.3 "
                    "(repeatable): the values are still compared with the baseline's bands, so "
                    "a degraded solver fails"},
    {NCP_OPT_MAX_ITER, "iteration budget of the rerun instead of the baseline's budget.max_iter "
                       "(compared with the baseline's bands all the same)"},
    {NCP_OPT_PLUGIN, "load a solver plugin (repeatable; also $NCPBENCH_PLUGINS): its solvers "
                     "are checked against their entries, and added with --update"},
    O(ISOLATE), O(NO_ISOLATE),
    O(UPDATE),
    {NCP_OPT_STRICT, "a solver run but missing from the baseline, or a baseline entry whose "
                     "solver is not available, is a failure (exit 1), not a note"},
    O(JUNIT),
    END};
static const ncp_opt_use task_opts[] = {
    O(HELP),
    {NCP_OPT_SOLVERS, "solvers (default: the task's list, else the scene's driver)"},
    {NCP_OPT_STEP_BUDGET_MS, "per-step budget in ms (default: task.step_budget_ms)"},
    {NCP_OPT_STEPS, "simulate only the first N steps"},
    {NCP_OPT_QUICK, "simulate the scene's quick_steps steps (CI)"},
    {NCP_OPT_PARAM, "solver parameter on top of the scene's benchmark.params (repeatable)"},
    {NCP_OPT_OUT, "output directory (default results/<scene name>/task)"},
    {NCP_OPT_JOBS, "run N solvers in parallel threads (the budget is CPU time, but only -j 1 "
                   "gives each solver the machine's speed)"},
    O(NO_FIGURES), O(MAX_MEMORY),
    {NCP_OPT_PLUGIN, "load a solver plugin (repeatable; also $NCPBENCH_PLUGINS): its solvers "
                     "can be --solvers or the scene's driver"},
    END};
static const ncp_opt_use grade_opts[] = {
    O(HELP),
    {NCP_OPT_OUT, "output directory (default results/grade-<name>; its earlier grade is "
                  "replaced; a run's folder is refused: --into)"},
    {NCP_OPT_TOL, "converged = stop metric <= X (default " NCP_XSTR(NCP_DEFAULT_TOL) "; high "
                  NCP_XSTR(NCP_TOL_HIGH) ", low " NCP_XSTR(NCP_TOL_LOW) ")"},
    O(STOP_METRIC), O(NAME), O(INTO),
    {NCP_OPT_STRICT, "a problem without an answer is an error (exit 2)"},
    {NCP_OPT_NO_FIGURES, "no figures nor index page"},
    {NCP_OPT_MAX_MEMORY, "memory budget of the readers (e.g. 8G, 512M, 40%)"},
    END};
static const ncp_opt_use figures_opts[] = {
    O(HELP), O(PAPER), O(PROFILES), O(ALL),
    {NCP_OPT_OUT, "output directory (default results/figures; each set writes into "
                  "OUT/<set>/)"},
    {NCP_OPT_QUICK, "small sizes, for CI"},
    O(SEED),
    {NCP_OPT_JOBS, "solve N problem x solver pairs in parallel threads"},
    O(SCENES), O(PARTS), O(SPLIT_BY), O(FROM),
    {NCP_OPT_PLUGIN, "add a plugin's solvers to \"every solver\" of the profiles (repeatable; "
                     "also $NCPBENCH_PLUGINS, colon-separated; docs/plugins.md)"},
    {NCP_OPT_ISOLATE, "run every solve of the figure sets (the studies and profiles) in a "
                      "forked child process, as `run --isolate` does; a study's simulations "
                      "(each solver driving its own trajectory) run in-process"},
    {NCP_OPT_NO_ISOLATE, "run plugins' solves in ncpbench's process too, in the same sets"},
    END};
static const ncp_opt_use describe_opts[] = {
    O(HELP), O(CSV), O(JSON), O(EIG_MAX), O(LANCZOS),
    {NCP_OPT_MAX_MEMORY, "memory budget of the readers (e.g. 8G, 512M, 40%)"},
    END};
static const ncp_opt_use none_opts[] = {O(HELP), END};

static const ncp_cmd_def cmds[] = {
    {"run", "SCENE", "capture the scene, solve every problem with every solver, write metrics, "
     "traces, solutions and figures",
     "Simulates SCENE (a JSON file, or a shipped scene by name: `ncpbench run boltnut`,\n"
     "`tasks/dish-stack`; see `ncpbench list scenes`), captures every step's contact problem\n"
     "into OUT/problems.h5, solves each with every selected solver under the budget, and\n"
     "writes OUT/metrics.csv, OUT/traces.h5, OUT/solutions.h5, OUT/summary.json, the ranked\n"
     "results table OUT/results.md, the figures OUT/overview.{png,svg} (the best solver of each\n"
     "family on one axis), OUT/residual_vs_time.{png,svg}, OUT/time_vs_iteration.{png,svg} (one\n"
     "panel per solver family; the stop metric, the tolerance dashed), the performance profiles\n"
     "(OUT/profile.md, OUT/perf_profiles.{png,svg}) and the page OUT/index.html (the ranked table\n"
     "first, sortable, then the figures); the last lines printed name results.md and index.html.\n"
     "OUT defaults to results/<scene name>. A rerun into OUT resumes it, as `solve` does (the\n"
     "scene's text, seed and capture options are part of the configuration; see\n"
     "`ncpbench solve --help`).\n"
     "Without --reconstruct-primal, --primal dense or --symmetrize, a solver that needs what a\n"
     "problem lacks gets a row with status unsupported and the reason in the column note.\n",
     run_opts},
    {"capture", "SCENE -o FILE", "only capture the scene's problems into the HDF5 file FILE",
     "Simulates SCENE and stores every captured contact problem in FILE (HDF5: the primal data\n"
     "A, b, J, e with blocks and contacts, compressed; D = J A^-1 J^T is rebuilt on loading;\n"
     "see docs/outputs.md).\n",
     capture_opts},
    {"solve", "FILE|DIR...", "solve problems from our HDF5 files or plain FCLib files "
     "(directories searched recursively; resumes an earlier run)",
     "Solves every problem of the given files — ncpbench problems.h5 files or plain FCLib\n"
     "files (fclib_local or fclib_global) — and of every such *.h5 / *.hdf5 file in the given\n"
     "directories (recursively), with every selected solver, and writes the same outputs as\n"
     "`run` into --out (default results/solve), plus Dolan-More performance profiles over the\n"
     "problems: perf_profiles.{dat,png,svg}, profile.md and \"performance_profile\" in\n"
     "summary.json (share solved, median time, rho(1), rho(10)).\n\n"
     "Resuming: OUT/journal.ncpj records the configuration (solvers, budget, stopping metric,\n"
     "parameters, the options below, traces; config.json is a readable copy) and every\n"
     "finished (problem, solver) pair; the outputs are rebuilt from it. Rerun with the same\n"
     "options (even after a crash or kill) and the pairs already finished are kept, not\n"
     "solved again; another configuration is refused (exit 2).\n",
     solve_opts},
    {"plot", "DIR", "(re)draw the figures of an output directory",
     "Redraws DIR/overview.{png,svg} (the best-ranked solver of each family, or those of\n"
     "--compare, on one axis), DIR/residual_vs_time.{png,svg} and DIR/time_vs_iteration.{png,svg}\n"
     "from DIR/traces.h5 (or the traces.csv of older runs) with gnuplot (median and\n"
     "interquartile band over problems, one curve per solver, one panel per solver family; the\n"
     "run's stop metric with its tolerance dashed unless --metric), and DIR/index.html and\n"
     "DIR/index.md.\n",
     plot_opts},
    {"list", "[solvers|metrics|scenes]", "list solvers (with their source), metrics and scenes",
     "Lists the registered solvers (source paper, needs, parameters), the metrics and the\n"
     "shipped scenes; everything when WHAT is omitted.\n",
     list_opts},
    {"export", "--fclib DIR FILE...", "write every problem as a plain FCLib file",
     "Writes every problem of FILE... as a plain FCLib file DIR/<file>-<problem>.hdf5\n"
     "(fclib_local, plus fclib_global when expressible). Problems with unilateral or soft rows\n"
     "cannot be expressed in FCLib: they are listed and skipped.\n",
     export_opts},
    {"check", "BASELINE", "rerun the baseline's quick scenes, compare, exit 1 on regression",
     "Reruns the quick scenes named in BASELINE (JSON, e.g. results/baselines/quick.json)\n"
     "with its seed and budget (no time budget: deterministic) and compares, per scene x\n"
     "solver, the number of problems and of converged solves, the median iterations, the\n"
     "median final natural_map_rel_acary and al_residual against the stored values and bands.\n"
     "Prints a table, then a summary: every regression (scene, solver, quantity, band, value),\n"
     "the solvers run without a baseline entry and the entries not checked. Outputs of the\n"
     "reruns go to --out (default results/check; config.json there records the options).\n\n"
     "Exit codes: 0 no regression, 1 a regression (or, with --strict, a solver without an\n"
     "entry or an entry without its solver), 2 bad input or usage (an unreadable baseline, an\n"
     "unknown solver or parameter), 3 I/O or internal failure, 130 interrupted.\n",
     check_opts},
    {"task", "SCENE", "run the scene's task once per solver under a per-step budget",
     "Runs the task of SCENE (its \"task\" section, scenes/README.md) once per solver: each\n"
     "solver drives its own simulation from the initial state, warm-started from the previous\n"
     "step (impulses and velocity), under a per-step budget of solver time (setup +\n"
     "iterations; the solver stops there and the step goes on with its current impulses) and\n"
     "the task's tol / max_iter. A solver succeeds when its simulation completes and every\n"
     "criterion holds. Writes OUT/steps.csv (one row per solver x step), OUT/task.json (per\n"
     "solver: success, every criterion's measured value and verdict, solve-time percentiles,\n"
     "steps over budget, max penetration, wall time), OUT/task.md and the figures\n"
     "OUT/task_timeseries.{png,svg} (residual and penetration over time) and\n"
     "OUT/task_solve_hist.{png,svg} (solve time per step, budget marked). The budget is the\n"
     "solving thread's CPU time: the trajectories depend on the machine's speed (the load is\n"
     "recorded in task.json, each step's wall time in steps.csv). The stopping rule is the\n"
     "task's (task.tol, task.max_iter): --tol, --max-iter, --budget-ms and --stop-metric are\n"
     "not taken; the budget is --step-budget-ms.\n",
     task_opts},
    {"grade", "PROBLEMS ANSWERS.h5", "grade answers computed by another program with the same "
     "metrics (docs/answers.md)",
     "Grades answers computed by any program (lambda per problem, optionally v, the program's\n"
     "own time and iterations, and iterate traces with the program's own times) with the same\n"
     "metrics as a registered solver's answer. PROBLEMS: an ncpbench problems.h5 or a plain\n"
     "FCLib file. ANSWERS.h5: one group /answers/<problem> per problem (format:\n"
     "docs/answers.md; examples/python/simple_solver.py writes one). Outputs as `ncpbench\n"
     "solve` writes them (metrics.csv, summary.json, solutions.h5, traces.h5 when traces are\n"
     "given, figures and index page), every row, trace and the summary marked self-timed:\n"
     "times are the program's own, not measured by ncpbench, so they compare with ncpbench's\n"
     "timings only as far as the program's clock does. A problem without an answer is a row\n"
     "with status failed and note \"no answer\" (--strict: exit 2 instead). --into RUN adds\n"
     "the graded solver to the run in folder RUN (PROBLEMS must be its problems.h5): its rows\n"
     "beside the run's solvers in every table and figure, graded under the run's tolerance.\n\n"
     "Exit codes: 0 graded (whether or not the answers converge), 2 bad input (not an HDF5\n"
     "file, wrong sizes, NaN or Inf, an answer for a problem PROBLEMS does not hold; the\n"
     "message names the problem and the dataset), 3 I/O or internal failure.\n",
     grade_opts},
    {"describe", "FILE|DIR...", "hardness labels of every problem (contacts, dofs, rank and "
     "cond of W, mu range)",
     "The hardness labels of every problem (Acary, Brémond, Huber 2018's characteristics of a\n"
     "test set): contacts, dofs n, rows m, contact density 3 nc / n, rank of W (W = H^T M^-1 H\n"
     "for a problem with M: the rank of H) and rank / m, cond(W) and W's conditioning on its\n"
     "range, the friction coefficients' range, and how rank and cond were found: `eig` exact\n"
     "(the eigenvalues of the smaller Gram matrix of W = F F^T, or of W; while that order is at\n"
     "most --eig-max), else `estimate` (rank an upper bound, shown with '<'; cond from Lanczos\n"
     "Ritz values through the Delassus operator: lower bounds, shown with '>').\n"
     "docs/design.md §5.7.2 gives every definition. FILE: an ncpbench problems.h5, an FCLib\n"
     "file, a Siconos .dat file; DIR: searched as `ncpbench solve` does (a file that fails to\n"
     "load is listed, and the others are described). The contact states at an answer and\n"
     "\"solved by k of n\" come from a run: `ncpbench run` and `solve` write them to\n"
     "OUT/labels.csv and summary.json \"problem_labels\".\n\n"
     "Exit codes: 0 described, 2 bad input (a single file that cannot be read, a directory\n"
     "without problem files; the message names it), 3 I/O or internal failure, 6 some files of\n"
     "a collection failed to load (listed on stderr, the others described), 130 interrupted\n"
     "(no CSV or JSON written).\n",
     describe_opts},
    {"figures", "--paper KEY|--profiles|--all", "regenerate the papers' figures and tables, "
     "performance profiles",
     "Regenerates figures and tables from fresh captures into --out (default\n"
     "results/figures). The figure sets are listed below.\n",
     figures_opts},
    {"version", "", "version, BLAS backend and the data directory in use (scenes, gnuplot "
     "scripts, baselines: $NCPBENCH_DATA, else the source tree of an uninstalled build, else "
     "PREFIX/share/ncpbench)",
     "Prints the version, the BLAS/LAPACK backend and the data directory in use.\n", none_opts},
    {"help", "[COMMAND|OPTION]", "this overview; `ncpbench help OPTION` describes an option",
     "Without an argument, the overview of the commands; `ncpbench help COMMAND` is\n"
     "`ncpbench COMMAND --help`; `ncpbench help --tol` (or `help tol`) describes an option:\n"
     "its argument, default and the commands that take it; `ncpbench help --markdown` prints\n"
     "this whole reference as Markdown (docs/cli.md).\n",
     none_opts},
};

const ncp_opt_def *ncp_opt_get(int opt)
{
    return opt >= 0 && opt < NCP_OPT_COUNT ? &opts[opt] : NULL;
}

const ncp_cmd_def *ncp_cmd_at(int i)
{
    return i >= 0 && i < (int)(sizeof cmds / sizeof cmds[0]) ? &cmds[i] : NULL;
}

const ncp_cmd_def *ncp_cmd_find(const char *name)
{
    for (const ncp_cmd_def *c = cmds; c < cmds + sizeof cmds / sizeof cmds[0]; c++)
        if (!strcmp(c->name, name)) return c;
    return NULL;
}

static const ncp_opt_use *use_of(const ncp_cmd_def *cmd, int opt)
{
    for (const ncp_opt_use *u = cmd->opts; u->opt >= 0; u++)
        if (u->opt == opt) return u;
    return NULL;
}

int ncp_cmd_takes(const ncp_cmd_def *cmd, int opt) { return use_of(cmd, opt) != NULL; }

/* The option a word names: "--tol" or an alias "-j"; -1 if none. */
static int opt_lookup(const char *word)
{
    for (int i = 0; i < NCP_OPT_COUNT; i++)
        if (!strcmp(opts[i].name, word) || (opts[i].alias && !strcmp(opts[i].alias, word)))
            return i;
    return -1;
}

static int usage_error(const ncp_cmd_def *cmd, int quiet, const char *fmt, const char *a,
                       const char *b)
{
    /* every MPI rank parses the same words: rank 0 says it */
    if (quiet || ncp_mpi_rank() > 0) return 2;
    fprintf(stderr, "ncpbench %s: ", cmd->name);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(see `ncpbench %s --help`)\n", cmd->name);
    return 2;
}

int ncp_args_parse(const ncp_cmd_def *cmd, int argc, char **argv, int quiet, ncp_parsed_args *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') { /* "-" is a positional word (stdin-like names) */
            if (out->npos >= NCP_ARGS_MAX)
                return usage_error(cmd, quiet, "too many arguments%s%s", "", "");
            out->pos[out->npos++] = a;
            continue;
        }
        int opt = opt_lookup(a);
        if (opt < 0) {
            const char *names[2 * NCP_OPT_COUNT];
            int n = 0;
            /* the command's own options first: a tie goes to one it takes */
            for (const ncp_opt_use *u = cmd->opts; u->opt >= 0; u++) names[n++] = opts[u->opt].name;
            for (int k = 0; k < NCP_OPT_COUNT; k++) names[n++] = opts[k].name;
            const char *near = ncp_closest_name(a, names, n);
            if (near)
                return usage_error(cmd, quiet, "unknown option '%s' (did you mean %s?)", a, near);
            return usage_error(cmd, quiet, "unknown option '%s'%s", a, "");
        }
        if (!use_of(cmd, opt)) {
            char takes[1024] = "";
            size_t used = 0;
            for (const ncp_opt_use *u = cmd->opts; u->opt >= 0 && used < sizeof takes; u++)
                if (u->opt != NCP_OPT_HELP)
                    used += (size_t)snprintf(takes + used, sizeof takes - used, "%s%s",
                                             used ? " " : "", opts[u->opt].name);
            if (!quiet && ncp_mpi_rank() == 0)
                fprintf(stderr, "ncpbench %s: option %s does not apply to `%s` (it takes %s)\n"
                        "(see `ncpbench %s --help`, `ncpbench help %s`)\n", cmd->name, a,
                        cmd->name, takes[0] ? takes : "no option", cmd->name, a);
            return 2;
        }
        if (opt == NCP_OPT_HELP) {
            out->help = 1;
            continue;
        }
        if (out->n >= NCP_ARGS_MAX) return usage_error(cmd, quiet, "too many options%s%s", "", "");
        const char *v = NULL;
        if (opts[opt].arg) {
            if (i + 1 >= argc)
                return usage_error(cmd, quiet, "option %s needs a value (%s)", a, opts[opt].arg);
            v = argv[++i];
        }
        out->opt[out->n] = opt;
        out->word[out->n] = a;
        out->val[out->n] = v;
        out->n++;
    }
    return 0;
}

/* Prints text wrapped at 90 columns, continuation lines from column `indent`; the first line
 * continues at column `at` (already written). */
static void wrap(FILE *f, const char *text, int at, int indent)
{
    int col = at, first = 1;
    const char *s = text;
    if (col < indent) {
        fprintf(f, "%*s", indent - col, "");
        col = indent;
    }
    while (*s) {
        while (*s == ' ') s++;
        const char *e = s;
        while (*e && *e != ' ') e++;
        int len = (int)(e - s);
        if (len == 0) break;
        if (!first && col + 1 + len > 90) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", len, s);
        col += len;
        first = 0;
        s = e;
    }
    fputc('\n', f);
}

void ncp_cmd_overview(FILE *f)
{
    for (const ncp_cmd_def *c = cmds; c < cmds + sizeof cmds / sizeof cmds[0]; c++) {
        int w = fprintf(f, "  %s%s%s", c->name, c->args[0] ? " " : "", c->args);
        if (w < 24) {
            fprintf(f, "%*s", 24 - w, "");
            wrap(f, c->summary, 24, 24);
        } else {
            fputc('\n', f);
            wrap(f, c->summary, 0, 24);
        }
    }
}

/* "  -j, --jobs N" into buf */
static void opt_label(const ncp_opt_def *d, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s%s%s", d->alias ? d->alias : "", d->alias ? ", " : "", d->name,
             d->arg ? " " : "", d->arg ? d->arg : "");
}

static void opt_line(FILE *f, const ncp_opt_def *d, const char *help)
{
    char label[80], text[1200];
    opt_label(d, label, sizeof label);
    /* a command's own help says its default itself */
    if (help == d->help && d->def) snprintf(text, sizeof text, "%s (default: %s)", help, d->def);
    else snprintf(text, sizeof text, "%s", help);
    int w = fprintf(f, "  %s", label);
    if (w < 24) {
        fprintf(f, "%*s", 24 - w, "");
        wrap(f, text, 24, 24);
    } else {
        fputc('\n', f);
        wrap(f, text, 0, 24);
    }
}

void ncp_cmd_help(const ncp_cmd_def *cmd, FILE *f)
{
    fprintf(f, "Usage: ncpbench %s%s%s%s\n\n%s", cmd->name, cmd->args[0] ? " " : "", cmd->args,
            cmd->opts[1].opt >= 0 ? " [options]" : "", cmd->about);
    if (cmd->opts[1].opt < 0) return;
    fprintf(f, "\nOptions (`ncpbench help OPTION` describes one):\n");
    for (const ncp_opt_use *u = cmd->opts; u->opt >= 0; u++) {
        if (u->opt == NCP_OPT_HELP) continue;
        opt_line(f, &opts[u->opt], u->help ? u->help : opts[u->opt].help);
    }
}

int ncp_opt_help(const char *word, FILE *f)
{
    char full[80];
    /* "tol", "-tol" and "--tol" all name --tol; "j" and "-j" name --jobs */
    if (word[0] != '-') snprintf(full, sizeof full, "%s%s", strlen(word) == 1 ? "-" : "--", word);
    else if (word[1] != '-' && strlen(word) > 2) snprintf(full, sizeof full, "-%s", word);
    else snprintf(full, sizeof full, "%s", word);
    int opt = opt_lookup(full);
    if (opt < 0) {
        const char *names[NCP_OPT_COUNT];
        for (int k = 0; k < NCP_OPT_COUNT; k++) names[k] = opts[k].name;
        const char *near = ncp_closest_name(full, names, NCP_OPT_COUNT);
        fprintf(stderr, "ncpbench help: '%s' is no command nor option%s%s%s (`ncpbench --help` "
                "lists the commands, `ncpbench COMMAND --help` their options)\n", word,
                near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        return 2;
    }
    const ncp_opt_def *d = &opts[opt];
    char label[80];
    opt_label(d, label, sizeof label);
    fprintf(f, "%s\n", label);
    wrap(f, d->help, 0, 4);
    if (d->def) {
        fprintf(f, "    default: ");
        wrap(f, d->def, 13, 8);
    }
    fprintf(f, "    taken by:");
    for (const ncp_cmd_def *c = cmds; c < cmds + sizeof cmds / sizeof cmds[0]; c++)
        if (opt == NCP_OPT_HELP || use_of(c, opt)) fprintf(f, " %s", c->name);
    fputc('\n', f);
    for (const ncp_cmd_def *c = cmds; c < cmds + sizeof cmds / sizeof cmds[0]; c++) {
        const ncp_opt_use *u = use_of(c, opt);
        if (u && u->help) {
            fprintf(f, "    for %s: ", c->name);
            wrap(f, u->help, 10 + (int)strlen(c->name), 8);
        }
    }
    return 0;
}

/* Markdown text of the table: backtick spans are kept as written; outside them '<', '>', '*'
 * '|' and '\\' are escaped ("results/<scene name>" would be an HTML tag, "*.h5 / *.hdf5" emphasis). */
static void md_text(FILE *f, const char *s)
{
    int code = 0;
    for (; *s; s++) {
        if (*s == '`') code = !code;
        if (!code && strchr("<>*|\\", *s)) fputc('\\', f);
        fputc(*s, f);
    }
}

/* A code span; in a table cell '|' is escaped, which GFM undoes inside the span. */
static void md_code(FILE *f, const char *s, int in_table)
{
    fputc('`', f);
    for (; *s; s++) {
        if (in_table && *s == '|') fputc('\\', f);
        fputc(*s, f);
    }
    fputc('`', f);
}

static void md_label(FILE *f, const ncp_opt_def *d, int in_table)
{
    char label[80];
    opt_label(d, label, sizeof label);
    md_code(f, label, in_table);
}

void ncp_cli_markdown(FILE *f, void (*extra)(const ncp_cmd_def *cmd, FILE *f))
{
    const size_t ncmds = sizeof cmds / sizeof cmds[0];
    fprintf(f, "| command | what it does |\n|---|---|\n");
    for (const ncp_cmd_def *c = cmds; c < cmds + ncmds; c++) {
        fprintf(f, "| [`%s`](#%s)", c->name, c->name);
        if (c->args[0]) {
            fputc(' ', f);
            md_code(f, c->args, 1);
        }
        fprintf(f, " | ");
        md_text(f, c->summary);
        fprintf(f, " |\n");
    }
    for (const ncp_cmd_def *c = cmds; c < cmds + ncmds; c++) {
        fprintf(f, "\n## %s\n\n```\nncpbench %s%s%s%s\n```\n\n", c->name, c->name,
                c->args[0] ? " " : "", c->args, c->opts[1].opt >= 0 ? " [options]" : "");
        md_text(f, c->about);
        if (c->opts[1].opt >= 0) fprintf(f, "\nOptions:\n\n");
        for (const ncp_opt_use *u = c->opts; u->opt >= 0; u++) {
            if (u->opt == NCP_OPT_HELP) continue;
            const ncp_opt_def *d = &opts[u->opt];
            fprintf(f, "- ");
            md_label(f, d, 0);
            fprintf(f, ": ");
            md_text(f, u->help ? u->help : d->help);
            /* a command's own help says its default itself */
            if (!u->help && d->def) {
                fprintf(f, " (default: ");
                md_text(f, d->def);
                fputc(')', f);
            }
            fputc('\n', f);
        }
        if (extra) extra(c, f);
    }
    fprintf(f, "\n## Options by command\n\n`-h`, `--help` is taken by every command.\n\n"
               "| option | taken by |\n|---|---|\n");
    for (int k = 0; k < NCP_OPT_COUNT; k++) {
        if (k == NCP_OPT_HELP) continue;
        fprintf(f, "| ");
        md_label(f, &opts[k], 1);
        fprintf(f, " |");
        for (const ncp_cmd_def *c = cmds; c < cmds + ncmds; c++)
            if (use_of(c, k)) fprintf(f, " [`%s`](#%s)", c->name, c->name);
        fprintf(f, " |\n");
    }
}
