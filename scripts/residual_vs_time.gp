# Residual versus solver time, one colour per solver: the median over problems (line) and the
# 25th-75th percentile band (shaded), as in Lee et al. 2025 Fig. 7 / Fig. 9 (left).
#
# Usage (ncpbench runs this itself after a benchmark; standalone):
#   gnuplot -e "dir='results/incline'" scripts/residual_vs_time.gp
# optional: -e "dir='...'; title='incline'; metric='al_residual'"
# Reads  dir/fig_residual_time.dat (written by ncpbench: the aggregation is described in its
#        header; columns: solver solver_index time_ms median q25 q75 n_started n_problems,
#        one index block per solver)
# Writes dir/residual_vs_time.png and dir/residual_vs_time.svg.
# Values <= 0 (a residual that is exactly zero) cannot be drawn on the log axis and leave a gap.

if (!exists("dir")) dir = "."
if (!exists("title")) title = dir
if (!exists("metric")) metric = "al_residual"
f = dir."/fig_residual_time.dat"

# One colour (and marker) per solver, chosen by the solver's index so that both figures
# agree (Okabe-Ito colours, then extras).
colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442 #7F7F7F #8C564B"
col(k) = word(colors, int(k) % words(colors) + 1)
pos(v) = v > 0 ? v : NaN
marks = "7 5 9 13 11 6 4 8 12 10"
mark(k) = int(word(marks, int(k) % words(marks) + 1))

stats f using 3 nooutput
nb = STATS_blocks
array names[nb]
array idx[nb]
array every[nb]   # marker spacing: about 10 markers a curve; a single point stays visible
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(1), k_ = column(2), 0) nooutput
    names[i + 1] = s_
    idx[i + 1] = k_
    every[i + 1] = STATS_records > 10 ? int(STATS_records / 10) : 1
}

set logscale x 10
set logscale y 10
set format y "10^{%L}"
set format x "10^{%L}"
set mxtics 10
set mytics 10
set grid xtics ytics mxtics mytics lc rgb "#dddddd" lw 1, lc rgb "#f2f2f2" lw 1
set xlabel "solver time [ms] (setup included)"
set ylabel metric noenhanced
set title title."\nmedian over problems (line), 25th-75th percentile (shaded)" noenhanced
set key outside right top noenhanced box opaque width 2

# No positive value at all (every residual exactly 0): autoscale would fail on the log axis.
undefine STATS_*
stats f using (pos($4)) nooutput
if (!exists("STATS_records")) {
    set yrange [1e-16:1]
    set label 1 "every value of ".metric." is 0 or nan: nothing to draw on a log axis" \
        at graph 0.5, 0.5 center noenhanced
}

set style fill transparent solid 0.2 noborder
plotcmd = "plot for [i = 0:nb - 1] f index i using 3:(pos($5)):(pos($6)) with filledcurves " . \
          "fc rgb col(idx[i + 1]) notitle, " . \
          "for [i = 0:nb - 1] f index i using 3:(pos($4)) with linespoints lw 2 " . \
          "pi every[i + 1] ps 0.8 pt mark(idx[i + 1]) " . \
          "lc rgb col(idx[i + 1]) dt 1 + int(idx[i + 1]) / words(colors) title names[i + 1]"

set terminal pngcairo size 1000,650 enhanced font "sans,11"
set output dir."/residual_vs_time.png"
eval plotcmd
set output

set terminal svg size 1000,650 dynamic enhanced font "sans,11" background rgb "white"
set output dir."/residual_vs_time.svg"
eval plotcmd
set output
