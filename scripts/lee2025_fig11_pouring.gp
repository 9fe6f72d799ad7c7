# Lee et al. 2025 Fig. 11 (pouring): left, mean computation time per step versus system DOF; right,
# mean al_residual versus system DOF; one colour per solver (CANAL 5 iterations, SubADMM and
# PGS 100 iterations per step), log-log axes.
#
# Usage (`ncpbench figures --paper lee2025` runs this itself; standalone):
#   gnuplot -e "dir='results/figures/lee2025'" scripts/lee2025_fig11_pouring.gp
# optional: -e "dir='...'; title='...'"
# Reads  dir/fig11.dat (written by ncpbench; columns: solver solver_index N dof mean_ms
#        median_ms mean_residual geomean_residual problems mean_iterations, one index block
#        per solver)
# Writes dir/lee2025_fig11_pouring.png and dir/lee2025_fig11_pouring.svg.

if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/lee2025_fig11_pouring"
if (!exists("title")) title = "Lee et al. 2025 Fig. 11: pouring"
f = dir."/fig11.dat"

# Same colours as the other Lee et al. 2025 figures: index 0 canal, 1 subadmm, 2 pgs-decoupled.
colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442 #7F7F7F #8C564B"
col(k) = word(colors, int(k) % words(colors) + 1)
marks = "7 5 9 13 11 6 4 8 12 10"
mark(k) = int(word(marks, int(k) % words(marks) + 1))
pos(v) = v > 0 ? v : NaN

stats f using 4 nooutput
nb = STATS_blocks
array names[nb]
array idx[nb]
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(1), k_ = column(2), 0) nooutput
    names[i + 1] = s_
    idx[i + 1] = k_
}

set logscale x 10
set logscale y 10
set mxtics 10
set mytics 10
set grid xtics ytics mxtics mytics lc rgb "#dddddd" lw 1, lc rgb "#f2f2f2" lw 1
set key top left Left reverse noenhanced box opaque

left = "plot for [i = 0:nb - 1] f index i using 4:(pos($5)) with linespoints lw 2 ps 1.2 " . \
       "pt mark(idx[i + 1]) lc rgb col(idx[i + 1]) title names[i + 1]"
right = "plot for [i = 0:nb - 1] f index i using 4:(pos($7)) with linespoints lw 2 ps 1.2 " . \
        "pt mark(idx[i + 1]) lc rgb col(idx[i + 1]) title names[i + 1]"

do for [term = 1:2] {
    if (term == 1) {
        set terminal pngcairo size 1300,560 enhanced font "sans,11"
        set output out.".png"
    } else {
        set terminal svg size 1300,560 dynamic enhanced font "sans,11" background rgb "white"
        set output out.".svg"
    }
    set multiplot layout 1,2 title title noenhanced
    set xlabel "system DOF"
    set ylabel "mean solver time per step [ms] (setup included)"
    set format y "10^{%L}"
    set title "time (CANAL 5 it., SubADMM / PGS 100 it.)"
    eval left
    set ylabel "mean al\\_residual"
    set title "residual"
    eval right
    unset multiplot
    set output
}
