# Castro et al. 2023 Figs. 11-12 for one configuration (walls or no walls; the paper puts both
# side by side): the contacts of each scaling point (Fig. 11; ours at the first kept step, the
# paper's at the end of the simulation) and sap's speedup against the interior-point solver of
# model (19) (Fig. 12's "against Gurobi": ours is cvxopt's coneqp, self-timed) and against the
# fastest convex solver (ours, not in the paper), each a ratio of mean times per step.
# Usage: gnuplot -e "dir='DIR'" scripts/castro2023_fig12.gp
# Reads dir/castro2023_fig12.dat (N contacts sap_iterations sap_ms coneqp_ms speedup
# fastest_convex_ms speedup_convex); writes dir/castro2023_fig12.{png,svg}.
if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/castro2023_fig12"
if (!exists("title")) title = "Castro et al. 2023 Figs. 11-12"
f = dir."/castro2023_fig12.dat"
pos(v) = v > 0 ? v : NaN
set grid
set key top right noenhanced
set xlabel "bodies N"
do for [t = 1:2] {
    if (t == 1) { set terminal pngcairo size 1200,500 enhanced font "sans,11"; set output out.".png" }
    else { set terminal svg size 1200,500 dynamic enhanced font "sans,11" background rgb "white"; set output out.".svg" }
    set multiplot layout 1,2 title title noenhanced
    unset logscale y
    set format y "%g"
    set ylabel "contacts (Fig. 11)"
    plot f using 1:2 with linespoints lw 2 pt 7 lc rgb "#0072B2" title "contacts"
    set logscale y 10
    set format y "10^{%L}"
    set ylabel "speedup (Fig. 12)"
    plot f using 1:(pos($6)) with linespoints lw 2 pt 7 lc rgb "#0072B2" \
             title "sap against coneqp (IPM of model 19)", \
         f using 1:(pos($8)) with linespoints lw 2 pt 5 dt 2 lc rgb "#D55E00" \
             title "sap against the fastest convex solver", \
         1 with lines dt 3 lc rgb "#555555" notitle
    unset multiplot
    set output
}
