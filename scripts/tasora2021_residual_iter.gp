# Tasora et al. 2021 style convergence plot: residual versus iteration on the odd-mass-ratio sphere stack,
# one colour per solver: the median over problems (line) and the 25th-75th percentile band.
#
# Usage (`ncpbench figures --paper tasora2021` runs this itself; standalone):
#   gnuplot -e "dir='results/figures/002'" scripts/tasora2021_residual_iter.gp
# optional: -e "dir='...'; title='...'"
# Reads  dir/tasora2021_residual_iter.dat (written by ncpbench; columns: solver solver_index
#        iteration median q25 q75 n, one index block per solver)
# Writes dir/tasora2021_residual_iter.png and dir/tasora2021_residual_iter.svg.
# Values <= 0 cannot be drawn on the log axis and leave a gap.

if (!exists("dir")) dir = "."
if (!exists("title")) title = "residual versus iteration"
f = dir."/tasora2021_residual_iter.dat"

colors = "#0072B2 #D55E00 #009E73 #CC79A7 #000000 #E69F00 #56B4E9 #F0E442"
col(k) = word(colors, int(k) % words(colors) + 1)
pos(v) = v > 0 ? v : NaN

stats f using 3 nooutput
nb = STATS_blocks
array names[nb]
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(1), 0) nooutput
    names[i + 1] = s_
}

set logscale y 10
set format y "10^{%L}"
set mytics 10
set grid xtics ytics mytics lc rgb "#dddddd" lw 1, lc rgb "#f2f2f2" lw 1
set xlabel "iteration"
set ylabel "natural map ||F|| / ||v_f|| (natural\\_map\\_rel\\_acary)"
set title title."\nmedian over problems (line), 25th-75th percentile (shaded)" noenhanced
set key outside right top noenhanced box opaque width 2
set style fill transparent solid 0.15 noborder

plotcmd = "plot for [i = 0:nb - 1] f index i using 3:(pos($5)):(pos($6)) with filledcurves " . \
          "fc rgb col(i) notitle, " . \
          "for [i = 0:nb - 1] f index i using 3:(pos($4)) with lines lw 2 lc rgb col(i) " . \
          "title names[i + 1]"

set terminal pngcairo size 1000,650 enhanced font "sans,11"
set output dir."/tasora2021_residual_iter.png"
eval plotcmd
set output

set terminal svg size 1000,650 dynamic enhanced font "sans,11" background rgb "white"
set output dir."/tasora2021_residual_iter.svg"
eval plotcmd
set output
