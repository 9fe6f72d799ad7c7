# Castro et al. 2023 Fig. 9 (and 13): per captured step of the clutter scene, each solver's
# iterations (sap: Newton iterations), time per step, and sap's momentum error e_m.
# Usage (`ncpbench figures --paper castro2023` runs it): gnuplot -e "dir='DIR'" scripts/castro2023_clutter.gp
# Reads dir/castro2023_clutter.dat (columns: solver step time_s contacts iterations time_ms e_m
# e_mu converged; one index block per solver); writes dir/castro2023_clutter.{png,svg}.
if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/castro2023_clutter"
if (!exists("title")) title = "Castro et al. 2023 clutter"
f = dir."/castro2023_clutter.dat"
colors = "#0072B2 #D55E00 #009E73 #CC79A7 #000000"
col(k) = word(colors, int(k) % words(colors) + 1)
pos(v) = v > 0 ? v : NaN
stats f using 2 nooutput
nb = STATS_blocks
array names[nb]
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(1), 0) nooutput
    names[i + 1] = s_
}
set grid xtics ytics lc rgb "#dddddd"
set key outside right top noenhanced
do for [t = 1:2] {
    if (t == 1) { set terminal pngcairo size 1100,1100 enhanced font "sans,11"; set output out.".png" }
    else { set terminal svg size 1100,1100 dynamic enhanced font "sans,11" background rgb "white"; set output out.".svg" }
    set multiplot layout 3,1 title title noenhanced
    set lmargin at screen 0.10
    set rmargin at screen 0.80
    set logscale y 10
    set ylabel "iterations per step"
    set xlabel ""
    plot for [i = 0:nb - 1] f index i using 3:(pos($5)) with lines lw 1.5 lc rgb col(i) title names[i + 1]
    set ylabel "time per step (ms)"
    plot for [i = 0:nb - 1] f index i using 3:(pos($6)) with lines lw 1.5 lc rgb col(i) title names[i + 1]
    set ylabel "sap e_m (eq. 32)"
    set xlabel "time (s)"
    plot f index 0 using 3:(pos($7)) with lines lw 1.5 lc rgb col(0) title names[1]
    unset multiplot
    unset logscale y
}
