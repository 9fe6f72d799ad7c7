# Castro et al. 2023 Fig. 13 for one configuration (walls or no walls; the paper puts both side
# by side): per N, the mean over the solved steps of the momentum error e_m (eq. 32, top) and
# the complementarity error e_mu (eq. 33, bottom) of sap and of the interior-point solver of
# model (19) (the paper's Gurobi and geodesic IPM: ours is cvxopt's coneqp). sap's e_mu, left out
# of the paper's figure as zero, is drawn where positive. The dotted line is 1e-5, the paper's
# epsilon_r and the geodesic IPM's termination level.
# Usage: gnuplot -e "dir='DIR'" scripts/castro2023_fig13.gp
# Reads dir/castro2023_fig13.dat (N sap_e_m coneqp_e_m coneqp_e_mu sap_e_mu; nan: not run);
# writes dir/castro2023_fig13.{png,svg}.
if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/castro2023_fig13"
if (!exists("title")) title = "Castro et al. 2023 Fig. 13"
f = dir."/castro2023_fig13.dat"
pos(v) = v > 0 ? v : NaN
set grid
set key outside right top noenhanced
set xlabel "bodies N"
set logscale y 10
set format y "10^{%L}"
do for [t = 1:2] {
    if (t == 1) { set terminal pngcairo size 1000,800 enhanced font "sans,11"; set output out.".png" }
    else { set terminal svg size 1000,800 dynamic enhanced font "sans,11" background rgb "white"; set output out.".svg" }
    set multiplot layout 2,1 title title noenhanced
    set ylabel "mean e_m (eq. 32)"
    plot f using 1:(pos($2)) with linespoints lw 2 pt 7 lc rgb "#0072B2" title "sap", \
         f using 1:(pos($3)) with linespoints lw 2 pt 5 dt 2 lc rgb "#D55E00" \
             title "coneqp (IPM of model 19)", \
         1e-5 with lines dt 3 lc rgb "#555555" title "1e-5"
    set ylabel "mean e_{/Symbol m} (eq. 33)"
    plot f using 1:(pos($4)) with linespoints lw 2 pt 5 dt 2 lc rgb "#D55E00" \
             title "coneqp (IPM of model 19)", \
         f using 1:(pos($5)) with linespoints lw 2 pt 7 lc rgb "#0072B2" title "sap (where > 0)", \
         1e-5 with lines dt 3 lc rgb "#555555" title "1e-5"
    unset multiplot
    set output
}
