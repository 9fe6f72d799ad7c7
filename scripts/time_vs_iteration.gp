# Solver time versus iteration, one colour per solver: the median over problems (line) and the
# 25th-75th percentile band (shaded), as in Lee et al. 2025 Fig. 7 / Fig. 9 (right). Log-log by
# default, so a constant cost per iteration is a line of slope 1 whatever the iteration counts;
# -e "linear=1" draws linear axes (as the paper's "linear increase" reads).
#
# Usage (ncpbench runs this itself after a benchmark; standalone):
#   gnuplot -e "dir='results/incline'" scripts/time_vs_iteration.gp
# optional: -e "dir='...'; title='incline'; linear=1"
# Reads  dir/fig_time_iter.dat (written by ncpbench: the aggregation is described in its header;
#        columns: solver solver_index iteration median q25 q75 n, one index block per solver)
# Writes dir/time_vs_iteration.png and dir/time_vs_iteration.svg.

if (!exists("dir")) dir = "."
if (!exists("title")) title = dir
if (!exists("linear")) linear = 0
f = dir."/fig_time_iter.dat"

colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442 #7F7F7F #8C564B"
col(k) = word(colors, int(k) % words(colors) + 1)
pos(v) = v > 0 ? v : NaN
marks = "7 5 9 13 11 6 4 8 12 10"
mark(k) = int(word(marks, int(k) % words(marks) + 1))

stats f using 3 nooutput
nb = STATS_blocks
first_iter = STATS_min
array names[nb]
array idx[nb]
array every[nb]   # marker spacing: about 10 markers a curve; a single point stays visible
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(1), k_ = column(2), 0) nooutput
    names[i + 1] = s_
    idx[i + 1] = k_
    every[i + 1] = STATS_records > 10 ? int(STATS_records / 10) : 1
}

# Log axes only where every value can be drawn: iteration 0 or a zero time would vanish.
undefine STATS_*
stats f using (pos($5)) nooutput
logy = !linear && exists("STATS_records") && STATS_records > 0
logx = !linear && first_iter > 0
if (logx) { set logscale x 10; set mxtics 10 }
if (logy) { set logscale y 10; set mytics 10 }
set grid xtics ytics mxtics mytics lc rgb "#dddddd" lw 1, lc rgb "#f2f2f2" lw 1
set xlabel "iteration"
set ylabel "solver time [ms] (setup included)"
set title title."\nmedian over the problems that ran the iteration (line), " . \
          "25th-75th percentile (shaded)" noenhanced
set key outside right top noenhanced box opaque width 2

yv(v) = logy ? pos(v) : v
set style fill transparent solid 0.2 noborder
plotcmd = "plot for [i = 0:nb - 1] f index i using 3:(yv($5)):(yv($6)) with filledcurves " . \
          "fc rgb col(idx[i + 1]) notitle, " . \
          "for [i = 0:nb - 1] f index i using 3:(yv($4)) with linespoints lw 2 " . \
          "pi every[i + 1] ps 0.8 pt mark(idx[i + 1]) " . \
          "lc rgb col(idx[i + 1]) dt 1 + int(idx[i + 1]) / words(colors) title names[i + 1]"

set terminal pngcairo size 1000,650 enhanced font "sans,11"
set output dir."/time_vs_iteration.png"
eval plotcmd
set output

set terminal svg size 1000,650 dynamic enhanced font "sans,11" background rgb "white"
set output dir."/time_vs_iteration.svg"
eval plotcmd
set output
