# `ncpbench task`: the task's residual and penetration over simulated time, one curve per
# solver (each solver drives its own simulation under the per-step budget).
#
# Usage (`ncpbench task` runs this itself; standalone):
#   gnuplot -e "dir='results/<scene>/task'" scripts/task_timeseries.gp
# Reads  dir/task_series.dat (columns: solver t al_residual penetration_mm solve_ms, one index
#        block per solver)
# Writes dir/task_timeseries.png and dir/task_timeseries.svg.

if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/task_timeseries"
if (!exists("title")) title = "task"
f = dir."/task_series.dat"

colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442 #7F7F7F #8C564B"
col(k) = word(colors, int(k) % words(colors) + 1)
pos(v) = v > 0 ? v : NaN

stats f using 2 nooutput
nb = STATS_blocks
array names[nb]
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(1), 0) nooutput
    names[i + 1] = s_
}

set grid xtics ytics lc rgb "#dddddd" lw 1
set key outside right top noenhanced
set xlabel "simulated time [s]"

do for [term = 1:2] {
    if (term == 1) {
        set terminal pngcairo size 1300,560 enhanced font "sans,11"
        set output out.".png"
    } else {
        set terminal svg size 1300,560 dynamic enhanced font "sans,11" background rgb "white"
        set output out.".svg"
    }
    set multiplot layout 1,2 title title noenhanced
    set logscale y 10
    set format y "10^{%L}"
    set ylabel "al\\_residual of the returned impulses"
    set title "residual per step"
    plot for [i = 0:nb - 1] f index i using 2:(pos($3)) with lines lw 1.5 lc rgb col(i) title names[i + 1]
    unset logscale y
    set format y "%g"
    set ylabel "max penetration [mm]"
    set title "penetration at the start of each step"
    plot for [i = 0:nb - 1] f index i using 2:4 with lines lw 1.5 lc rgb col(i) title names[i + 1]
    unset multiplot
    set output
}
