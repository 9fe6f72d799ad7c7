# The NCP report 2025's aggregate view (§VII-D: statistics over many samples per system): time
# against accuracy per solver. Each point is one solver: its median solve time (setup +
# iterations, ms) against its median r_nat (eq. 176, L_inf), with bars to the 90th percentiles.
# The first panel pools every sample of the suite (points named); then one panel per system
# (points numbered by solver_index, the numbers of the first panel's names). Residuals are
# drawn within [1e-17, 1e4]: zeros at the floor, divergent solves at the ceiling.
#
# Usage (`ncpbench figures --paper ncpreport2025` runs this itself; standalone):
#   gnuplot -e "dir='OUT/ncpreport2025/paper/suite'" scripts/ncpreport2025_time_accuracy.gp
# optional: -e "dir='...'; title='...'"
# Reads  dir/time_accuracy.dat (written by ncpbench; columns: solver solver_index table1 scene
#        runs converged time_med time_p90 nat_med nat_p90; one index block per system, the last
#        block pooled over the suite)
# Writes dir/ncpreport2025_time_accuracy.png and dir/ncpreport2025_time_accuracy.svg.

if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/ncpreport2025_time_accuracy"
if (!exists("title")) title = "The NCP report 2025: time against accuracy"
f = dir."/time_accuracy.dat"

# Values below the floor (exact zeros included) are drawn at the floor; NaN is skipped.
lo = 1e-17
hi = 1e4
tlo = 1e-4
clamp(x) = (x == x) ? (x > lo ? (x < hi ? x : hi) : lo) : NaN
tclamp(x) = (x == x) ? (x > tlo ? x : tlo) : NaN
colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000"
col(k) = word(colors, int(k) % words(colors) + 1)
lab(c) = strcol(1) . (column(3) == 1 ? "*" : "")

stats f using 2 nooutput
nb = STATS_blocks
array scenes[nb]
array ran[nb]
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(4), 0) nooutput
    scenes[i + 1] = s_
    stats f index i using 7 nooutput  # no finite time: a warning, STATS_* left undefined
    ran[i + 1] = exists("STATS_records")
}
# A block without a solve (its system's part not run: `figures --parts`) has no range of its
# own: its panel says so instead of failing the whole figure.
empty = 'set xrange [tlo:1e3]; set yrange [lo:hi]; set label 1 "not run" at graph 0.5, 0.5 center; plot 10 * hi notitle; unset label 1; set autoscale xy'

set logscale xy 10
set format y "10^{%T}"
set format x "10^{%T}"
set grid lc rgb "#dddddd"
set key off
set xlabel "median solve time (ms)" noenhanced
set ylabel "median r_nat (L_inf)" noenhanced

do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 2200,1700 enhanced font "sans,9"
        set output out.".png"
    } else {
        set terminal svg size 2200,1700 dynamic enhanced font "sans,9" background rgb "white"
        set output out.".svg"
    }
    set multiplot title title."  (* = paper's ten configurations; bars to p90; r_nat drawn in [1e-17, 1e4])" noenhanced
    # a 5 x 4 grid below the title: the pooled block (the last) takes the top-left 2 x 2 cells,
    # with named points; the systems fill the other cells left to right
    cw = 0.2
    ch = 0.24
    set origin 0, 1 - 0.04 - 2 * ch
    set size 2 * cw, 2 * ch
    set title "all systems pooled (".scenes[nb].")" noenhanced
    if (!ran[nb]) { eval empty } else {
    plot f index (nb - 1) using (tclamp($7)):(clamp($9)):(tclamp($7)):(tclamp($8)):(clamp($9)):(clamp($10)) \
             with xyerrorbars pt 7 ps 0.8 lc rgb "#999999", \
         f index (nb - 1) using (tclamp($7)):(clamp($9)):(sprintf("%d %s", $2, lab(0))) \
             with labels left offset 0.5, 0 font ",7" noenhanced
    }
    set size cw, ch
    do for [i = 0:nb - 2] {
        cell = (i < 3) ? i + 2 : i + 4
        set origin (cell % 5) * cw, 1 - 0.04 - (int(cell / 5) + 1) * ch
        set title scenes[i + 1] noenhanced
        if (!ran[i + 1]) { eval empty; continue }
        plot f index i using (tclamp($7)):(clamp($9)):(tclamp($7)):(tclamp($8)):(clamp($9)):(clamp($10)) \
                 with xyerrorbars pt 7 ps 0.6 lc rgb col(i), \
             f index i using (tclamp($7)):(clamp($9)):(sprintf("%d", $2)) \
                 with labels left offset 0.4, 0 font ",7" noenhanced
    }
    unset multiplot
    set output
}
