# `ncpbench task`: histogram of the per-step solver time (setup + iterations, the clock the
# budget bounds), one curve per solver, the budget marked by a vertical line.
#
# Usage (`ncpbench task` runs this itself; standalone):
#   gnuplot -e "dir='results/<scene>/task'" scripts/task_solve_hist.gp
# Reads  dir/task_hist.dat (columns: solver centre_ms lower_ms upper_ms count, one index block
#        per solver, log-spaced bins) and dir/task_budget.dat (the budget in ms)
# Writes dir/task_solve_hist.png and dir/task_solve_hist.svg.

if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/task_solve_hist"
if (!exists("title")) title = "task"
f = dir."/task_hist.dat"

colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442 #7F7F7F #8C564B"
col(k) = word(colors, int(k) % words(colors) + 1)

stats dir."/task_budget.dat" using 1 nooutput
budget = STATS_max
stats f using 2 nooutput
nb = STATS_blocks
array names[nb]
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(1), 0) nooutput
    names[i + 1] = s_
}

set logscale x 10
set format x "10^{%L}"
set grid xtics ytics lc rgb "#dddddd" lw 1
set key outside right top noenhanced
set xlabel "solver time per step [ms] (setup + iterations)"
set ylabel "steps"
set arrow 1 from budget, graph 0 to budget, graph 1 nohead lw 2 dt 2 lc rgb "#000000"
set label 1 sprintf("budget %g ms", budget) at budget, graph 0.97 right offset -0.5,0 noenhanced

do for [term = 1:2] {
    if (term == 1) {
        set terminal pngcairo size 1000,560 enhanced font "sans,11"
        set output out.".png"
    } else {
        set terminal svg size 1000,560 dynamic enhanced font "sans,11" background rgb "white"
        set output out.".svg"
    }
    set title title noenhanced
    plot for [i = 0:nb - 1] f index i using 2:5 with histeps lw 2 lc rgb col(i) title names[i + 1]
    set output
}
