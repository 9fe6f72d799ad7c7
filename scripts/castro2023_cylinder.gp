# Castro et al. 2023 Figs. 6-7: the spring-cylinder (mu 1) energy against time at h = 0.02 s
# for the theta (implicit Euler for the spring) and midpoint integrators, and the L2 position
# error e_q against the time step with first- and second-order reference lines.
# Usage: gnuplot -e "dir='DIR'" scripts/castro2023_cylinder.gp
# Reads dir/castro2023_cylinder_energy.dat (t E_theta E_midpoint x_theta x_midpoint) and
# dir/castro2023_cylinder_order.dat (h eq_theta eq_midpoint);
# writes dir/castro2023_cylinder.{png,svg}.
if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/castro2023_cylinder"
if (!exists("title")) title = "Castro et al. 2023 Figs. 6-7"
fe = dir."/castro2023_cylinder_energy.dat"
fo = dir."/castro2023_cylinder_order.dat"
pos(v) = v > 0 ? v : NaN
# the reference lines sit at half the errors of the smallest h, beside the curves
# E0: the first row's energy (both integrators start from the same state)
stats fe using 3 every ::0::0 nooutput
E0 = STATS_max
stats fo using 1 nooutput
hmin = STATS_min
stats fo using 3 nooutput
e2 = STATS_min
stats fo using 2 nooutput
e1 = STATS_min
set grid
set key noenhanced
do for [t = 1:2] {
    if (t == 1) { set terminal pngcairo size 900,900 enhanced font "sans,11"; set output out.".png" }
    else { set terminal svg size 900,900 dynamic enhanced font "sans,11" background rgb "white"; set output out.".svg" }
    set multiplot layout 2,1 title title noenhanced
    unset logscale
    set format x "%g"
    set format y "%g"
    set xlabel "t (s)"
    set ylabel "E / E_0"
    set yrange [0:1.05]
    set key bottom left
    plot fe using 1:($2 / E0) with lines lw 2 title "theta (implicit Euler for the spring)", \
         fe using 1:($3 / E0) with lines lw 2 title "midpoint"
    set autoscale y
    set logscale xy 10
    set format x "10^{%L}"
    set format y "10^{%L}"
    set xlabel "time step h (s)"
    set ylabel "e_q (m)"
    set key top left
    plot fo using 1:(pos($2)) with linespoints lw 2 pt 7 title "theta, against the reference", \
         fo using 1:(pos($3)) with linespoints lw 2 pt 5 title "midpoint, against the reference", \
         0.5 * e1 * x / hmin with lines dt 2 lc rgb "gray40" title "first order", \
         0.5 * e2 * (x / hmin)**2 with lines dt 3 lc rgb "gray40" title "second order"
    unset multiplot
}
