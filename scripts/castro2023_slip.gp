# Castro et al. 2023 Figs. 14-15: mean slip velocity at rest against sigma with the estimate
# sigma mu h g (eq. 31), sap's mean Newton iterations per step and the condition number of its
# Hessian H = A + J^T G J, with and without walls.
# Usage: gnuplot -e "dir='DIR'" scripts/castro2023_slip.gp
# Reads dir/castro2023_slip.dat (sigma slip estimate newton cond; index 0
# walls, 1 no walls); writes dir/castro2023_slip.{png,svg}.
if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/castro2023_slip"
if (!exists("title")) title = "Castro et al. 2023 Figs. 14-15"
f = dir."/castro2023_slip.dat"
pos(v) = v > 0 ? v : NaN
set grid
set logscale x 10
set format x "10^{%L}"
set xlabel "sigma"
set key top left noenhanced
do for [t = 1:2] {
    if (t == 1) { set terminal pngcairo size 900,1200 enhanced font "sans,11"; set output out.".png" }
    else { set terminal svg size 900,1200 dynamic enhanced font "sans,11" background rgb "white"; set output out.".svg" }
    set multiplot layout 3,1 title title noenhanced
    set logscale y 10
    set format y "10^{%L}"
    set ylabel "mean slip velocity (m/s)"
    plot f index 0 using 1:(pos($2)) with linespoints lw 2 pt 7 title "sap, walls", \
         f index 1 using 1:(pos($2)) with linespoints lw 2 pt 5 dt 2 title "sap, no walls", \
         f index 0 using 1:(pos($3)) with lines dt 3 lw 2 lc rgb "#999999" title "sigma mu h g"
    unset logscale y
    set format y "%g"
    set ylabel "mean Newton iterations per step"
    plot f index 0 using 1:4 with linespoints lw 2 pt 7 title "walls", \
         f index 1 using 1:4 with linespoints lw 2 pt 5 dt 2 title "no walls"
    set logscale y 10
    set format y "10^{%L}"
    set ylabel "condition number of H, last step"
    plot f index 0 using 1:(pos($5)) with linespoints lw 2 pt 7 title "walls", \
         f index 1 using 1:(pos($5)) with linespoints lw 2 pt 5 dt 2 title "no walls"
    unset multiplot
}
