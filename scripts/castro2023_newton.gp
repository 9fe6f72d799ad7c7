# Castro et al. 2023 Fig. 10: sap's convergence per Newton iteration at a transient and a
# steady-state step of the clutter: the momentum error e_m of eq. 32 at v(lambda) per iterate
# (the trace's sap_momentum; the paper plots the cost, which is not a trace metric).
# Usage: gnuplot -e "dir='DIR'" scripts/castro2023_newton.gp
# Reads dir/castro2023_newton.dat (label newton_iteration e_m; one index block per
# step); writes dir/castro2023_newton.{png,svg}.
if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/castro2023_newton"
if (!exists("title")) title = "Castro et al. 2023 Fig. 10"
f = dir."/castro2023_newton.dat"
pos(v) = v > 0 ? v : NaN
stats f using 2 nooutput
nb = STATS_blocks
array names[nb]
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(1), 0) nooutput
    names[i + 1] = s_
}
set logscale y 10
set format y "10^{%L}"
set grid
set key top right noenhanced
set xlabel "Newton iteration"
set ylabel "e_m (eq. 32, at v(lambda))"
do for [t = 1:2] {
    if (t == 1) { set terminal pngcairo size 900,600 enhanced font "sans,11"; set output out.".png" }
    else { set terminal svg size 900,600 dynamic enhanced font "sans,11" background rgb "white"; set output out.".svg" }
    set title title noenhanced
    plot for [i = 0:nb - 1] f index i using 2:(pos($3)) with linespoints lw 2 pt 7 title names[i + 1]
}
