# The overview of a run: the metric versus solver time for a few solvers on one axis (by default
# the best-ranked solver of each family, results.md; `ncpbench plot DIR --compare a,b,c` for
# others), median over problems (line) and 25th-75th percentile band (shaded), the tolerance
# of the run's stopping criterion drawn as a dashed line when the metric is the stop metric.
#
# Usage (ncpbench runs this itself after a benchmark; standalone):
#   gnuplot -e "dir='results/boltnut'; sel='nsn-nm pgs'; tol=1e-8" scripts/overview.gp
# optional: title='boltnut'; metric='natural_map_rel_acary'; what='...' (the subtitle)
# Reads  dir/fig_residual_time.dat (bench/plot.c; columns: solver solver_index time_ms median
#        q25 q75 n_started n_problems panel member; one index block per solver); sel: the
#        solvers to draw, separated by spaces, in the order of the legend (names as written in
#        the .dat file); a name without a block (no value of the metric) is left out.
# Writes dir/overview.png and dir/overview.svg.

if (!exists("dir")) dir = "."
if (!exists("title")) title = dir
if (!exists("metric")) metric = "natural_map_rel_acary"
if (!exists("sel")) sel = ""
if (!exists("what")) what = "the best solver of each family"
f = dir."/fig_residual_time.dat"
if (!exists("out")) out = dir."/overview"  # the caller may give a temporary stem (bench/plot.c)
has_tol = exists("tol") ? (tol > 0) : 0

colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442 #7F7F7F #8C564B"
col(k) = word(colors, int(k) % words(colors) + 1)
pos(v) = v > 0 ? v : NaN
marks = "7 5 9 13 11 6 4 8 12 10"
mark(k) = int(word(marks, int(k) % words(marks) + 1))

# The blocks of the selected solvers, in the order of sel.
stats f using 3 nooutput
nb = STATS_blocks
array names[nb]
array every[nb]
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(1), 0) nooutput
    names[i + 1] = s_
    every[i + 1] = STATS_records > 10 ? int(STATS_records / 10) : 1
}
idx = ""
do for [k = 1:words(sel)] {
    do for [i = 1:nb] {
        if (names[i] eq word(sel, k)) { idx = idx.sprintf(" %d", i - 1) }
    }
}
n = words(idx)

# Ranges over the drawn solvers and the tolerance.
xlo = 1e300; xhi = -1e300; ylo = 1e300; yhi = -1e300
do for [k = 1:n] {
    b = int(word(idx, k))
    stats f index b using 3 nooutput
    xlo = STATS_min < xlo ? STATS_min : xlo
    xhi = STATS_max > xhi ? STATS_max : xhi
    undefine STATS_*
    stats f index b using (pos($5)) nooutput
    if (exists("STATS_records") && STATS_records > 0) { ylo = STATS_min < ylo ? STATS_min : ylo }
    undefine STATS_*
    stats f index b using (pos($6)) nooutput
    if (exists("STATS_records") && STATS_records > 0) { yhi = STATS_max > yhi ? STATS_max : yhi }
    undefine STATS_*
}
if (has_tol) { ylo = tol < ylo ? tol : ylo; yhi = tol > yhi ? tol : yhi }
if (ylo > yhi) { ylo = 1e-16; yhi = 1 }
if (xlo > xhi) { xlo = 1e-3; xhi = 1 }
if (xhi <= xlo) { xhi = 2 * xlo }
if (yhi <= ylo) { yhi = 10 * ylo }

set logscale x 10
set logscale y 10
set xrange [xlo / 1.2:xhi * 1.2]
set yrange [ylo / 2:yhi * 2]
set format y "10^{%L}"
set format x "10^{%L}"
set mxtics 10
set mytics 10
set grid xtics ytics mxtics mytics lc rgb "#dddddd" lw 1, lc rgb "#f2f2f2" lw 1
set xlabel "solver time [ms] (setup included)"
set ylabel metric noenhanced
set key outside right top vertical Left reverse noenhanced box opaque samplen 2 width 3
set style fill transparent solid 0.15 noborder
if (has_tol) {
    set arrow 1 from graph 0, first tol to graph 1, first tol nohead dt 2 lw 1.5 lc rgb "#000000" front
    set label 1 sprintf("tolerance %g", tol) at graph 0.01, first tol * 1.6 left front noenhanced
}

do for [term = 1:2] {
    if (term == 1) {
        set terminal pngcairo size 1100, 600 enhanced font "sans,10"
        set output out.".png"
    } else {
        set terminal svg size 1100, 600 dynamic enhanced font "sans,10" background rgb "white"
        set output out.".svg"
    }
    set title title.": ".metric." versus solver time, ".what."\nmedian over problems (line), 25th-75th percentile (shaded)" noenhanced
    if (n > 0) {
        plot for [k = 1:n] f index int(word(idx, k)) using 3:(pos($5)):(pos($6)) with filledcurves \
                 fc rgb col(k - 1) notitle, \
             for [k = 1:n] f index int(word(idx, k)) using 3:(pos($4)) with linespoints lw 2 \
                 pi every[int(word(idx, k)) + 1] ps 0.8 pt mark(k - 1) lc rgb col(k - 1) \
                 title names[int(word(idx, k)) + 1]
    } else {
        set label 2 "no value of ".metric." for the selected solvers" at graph 0.5, 0.5 center noenhanced
        plot 1e-300 notitle
    }
    set output
}
