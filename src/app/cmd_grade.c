/* `ncpbench grade PROBLEMS ANSWERS.h5`: answers computed elsewhere, graded (bench/grade.h,
 * docs/answers.md). Exit codes as cli.h: 0, 2 bad input or usage, 3 I/O or internal failure. */
#include <stdio.h>

#include "app/cmd_grade.h"
#include "bench/plot.h"
#include "metrics/metrics.h"

int ncp_cli_grade(const ncp_grade_opts *o)
{
    ncp_grade_report rep;
    ncp_error err = {0};
    char note[600];
    int rc = ncp_grade_run(o, &rep, note, sizeof note, &err);
    if (rc) {
        fprintf(stderr, "ncpbench grade: %s\n", err.msg);
        return rc == NCP_ERR_INPUT ? 2 : 3;
    }
    if (note[0]) fprintf(stderr, "ncpbench grade: %s\n", note);
    printf("graded %s: %d of %d problems answered, %d converged (%s <= %g), %d with traces; "
           "self-timed; outputs in %s\n", rep.name, rep.answered, rep.problems, rep.converged,
           ncp_metrics_name(o->stop_metric), o->tol, rep.traces, rep.out_dir);
    ncp_plot_print_pages(rep.out_dir, o->figures);
    return 0;
}
