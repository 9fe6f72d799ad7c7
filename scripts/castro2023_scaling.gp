# Castro et al. 2023 Figs. 11-12: contacts at steady state, time per step per solver and sap's
# speedup against the fastest convex solver, against the number of bodies, with and without walls.
# Usage: gnuplot -e "dir='DIR'" scripts/castro2023_scaling.gp
# Reads dir/castro2023_scaling.dat (walls nbodies contacts ms_sap ms_admm ms_apgd ms_pgs-ccp
# ms_admm-ccp speedup; index 0 walls, 1 no walls); writes dir/castro2023_scaling.{png,svg}.
if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/castro2023_scaling"
if (!exists("title")) title = "Castro et al. 2023 Figs. 11-12"
f = dir."/castro2023_scaling.dat"
sv = "sap admm apgd pgs-ccp admm-ccp"
colors = "#0072B2 #D55E00 #009E73 #CC79A7 #000000"
set grid
set key outside right top noenhanced
set xlabel "bodies"
do for [t = 1:2] {
    if (t == 1) { set terminal pngcairo size 1100,1100 enhanced font "sans,11"; set output out.".png" }
    else { set terminal svg size 1100,1100 dynamic enhanced font "sans,11" background rgb "white"; set output out.".svg" }
    set multiplot layout 3,1 title title noenhanced
    set lmargin at screen 0.10
    set rmargin at screen 0.78
    unset logscale y
    set ylabel "contacts"
    plot f index 0 using 2:3 with linespoints lw 2 title "walls", f index 1 using 2:3 with linespoints lw 2 dt 2 title "no walls"
    set logscale y 10
    set ylabel "time per step (ms)"
    plot for [s = 1:5] f index 0 using 2:(column(3 + s)) with linespoints lw 2 lc rgb word(colors, s) title word(sv, s)." walls", \
         for [s = 1:5] f index 1 using 2:(column(3 + s)) with linespoints lw 2 dt 2 lc rgb word(colors, s) title word(sv, s)." no walls"
    set ylabel "sap speedup vs fastest convex"
    plot f index 0 using 2:9 with linespoints lw 2 title "walls", f index 1 using 2:9 with linespoints lw 2 dt 2 title "no walls", 1 with lines lc rgb "#999999" notitle
    unset multiplot
}
