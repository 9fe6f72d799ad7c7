# Castro et al. 2023 Fig. 9: iterations and time per time step for the clutter with 40 bodies
# and walls: sap's Newton iterations per captured step (top) and each solver's time per step
# (setup + solve, ms; bottom, log scale: the paper's Gurobi is our interior-point solver of
# model (19), cvxopt's coneqp, self-timed).
# Usage: gnuplot -e "dir='DIR'" scripts/castro2023_fig9.gp
# Reads dir/castro2023_fig9.dat (k sap_iterations sap_ms coneqp_ms admm_ms apgd_ms pgs-ccp_ms
# admm-ccp_ms; nan: not run); writes dir/castro2023_fig9.{png,svg}.
if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/castro2023_fig9"
if (!exists("title")) title = "Castro et al. 2023 Fig. 9"
f = dir."/castro2023_fig9.dat"
pos(v) = v > 0 ? v : NaN
colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9"
names = "sap coneqp admm apgd pgs-ccp admm-ccp"
set grid
set key outside right top noenhanced
set xlabel "captured step"
do for [t = 1:2] {
    if (t == 1) { set terminal pngcairo size 1000,800 enhanced font "sans,11"; set output out.".png" }
    else { set terminal svg size 1000,800 dynamic enhanced font "sans,11" background rgb "white"; set output out.".svg" }
    set multiplot layout 2,1 title title noenhanced
    set lmargin at screen 0.09
    set rmargin at screen 0.80
    unset logscale y
    set format y "%g"
    set ylabel "sap's Newton iterations"
    plot f using 1:2 with linespoints lw 2 pt 7 lc rgb word(colors, 1) title "sap"
    set logscale y 10
    set format y "10^{%L}"
    set ylabel "time per step (ms)"
    plot for [i = 1:words(names)] f using 1:(pos(column(i + 2))) with linespoints lw 2 pt 7 \
         ps 0.6 lc rgb word(colors, i) title word(names, i)
    unset multiplot
    set output
}
