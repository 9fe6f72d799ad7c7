# Residual versus solver time: one panel per solver family, in each one colour per solver, the
# median over problems (line) and the 25th-75th percentile band (shaded), as in Lee et al. 2025
# Fig. 7 / Fig. 9 (left). Each panel's legend sits outside its plot area (right of it), so it
# never covers a curve.
#
# Usage (ncpbench runs this itself after a benchmark; standalone):
#   gnuplot -e "dir='results/incline'" scripts/residual_vs_time.gp
# optional: -e "dir='...'; title='incline'; metric='al_residual'; tol=1e-8" (tol: the run's
# tolerance, drawn as a dashed line; ncpbench gives it when the metric is the stop metric)
# Reads  dir/fig_residual_time.dat (written by ncpbench: the aggregation is described in its
#        header; columns: solver solver_index time_ms median q25 q75 n_started n_problems panel
#        member; one index block per solver, the blocks of a panel together) and
#        dir/fig_families.dat (panel<TAB>family<TAB>solvers)
# Writes dir/residual_vs_time.png and dir/residual_vs_time.svg.
# Values <= 0 (a residual that is exactly zero) cannot be drawn on the log axis and leave a gap.

if (!exists("dir")) dir = "."
if (!exists("title")) title = dir
if (!exists("metric")) metric = "al_residual"
has_tol = exists("tol") ? (tol > 0) : 0
f = dir."/fig_residual_time.dat"
ff = dir."/fig_families.dat"
if (!exists("out")) out = dir."/residual_vs_time"  # the caller may give a temporary stem (bench/plot.c)
cpanel = 9    # columns of panel and member in f
cmember = 10

# Colours by the solver's place in its panel (Okabe-Ito, then extras): distinct in a panel.
colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442 #7F7F7F #8C564B"
col(k) = word(colors, int(k) % words(colors) + 1)
pos(v) = v > 0 ? v : NaN
marks = "7 5 9 13 11 6 4 8 12 10"
mark(k) = int(word(marks, int(k) % words(marks) + 1))

# The panels' names.
set datafile separator "\t"
stats ff using 1 nooutput
np = STATS_records
array fam[np]
do for [p = 0:np - 1] {
    stats ff every ::p::p using (s_ = strcol(2), 0) nooutput
    fam[p + 1] = s_
}
set datafile separator whitespace

# The solvers (blocks) and the range of blocks of each panel.
stats f using 3 nooutput
nb = STATS_blocks
array names[nb]
array member[nb]
array every[nb]   # marker spacing: about 10 markers a curve; a single point stays visible
array first[np]
array last[np]
do for [p = 1:np] { first[p] = -1; last[p] = -1 }
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(1), p_ = column(cpanel), m_ = column(cmember), 0) nooutput
    names[i + 1] = s_
    member[i + 1] = m_
    every[i + 1] = STATS_records > 10 ? int(STATS_records / 10) : 1
    if (first[p_ + 1] < 0) { first[p_ + 1] = i }
    last[p_ + 1] = i
}

ncols = np > 1 ? 2 : 1
nrows = int((np + ncols - 1) / ncols)
width = ncols == 2 ? 1500 : 1000
height = 90 + 420 * nrows

# One x and y range for every panel, so that the families compare at a glance.
stats f using 3 nooutput
xlo = STATS_min
xhi = STATS_max
undefine STATS_*
stats f using (pos($5)) nooutput
has_y = exists("STATS_records") && STATS_records > 0
ylo = has_y ? STATS_min : 1e-16
undefine STATS_*
stats f using (pos($6)) nooutput
yhi = exists("STATS_records") && STATS_records > 0 ? STATS_max : 1
if (has_tol) { ylo = tol < ylo ? tol : ylo; yhi = tol > yhi ? tol : yhi }
if (xhi <= xlo) { xhi = 2 * xlo }
if (yhi <= ylo) { yhi = 10 * ylo }

set logscale x 10
set logscale y 10
set xrange [xlo / 1.2:xhi * 1.2]
set format y "10^{%L}"
set format x "10^{%L}"
set mxtics 10
set mytics 10
set grid xtics ytics mxtics mytics lc rgb "#dddddd" lw 1, lc rgb "#f2f2f2" lw 1
set xlabel "solver time [ms] (setup included)"
set ylabel metric noenhanced
set key outside right top vertical Left reverse noenhanced box opaque samplen 2 width 3
set style fill transparent solid 0.2 noborder
if (has_tol) {
    set arrow 2 from graph 0, first tol to graph 1, first tol nohead dt 2 lw 1.5 lc rgb "#000000" front
    set label 2 sprintf("tolerance %g", tol) at graph 0.01, first tol * 1.6 left front noenhanced
}

do for [term = 1:2] {
    if (term == 1) {
        set terminal pngcairo size width, height enhanced font "sans,10"
        set output out.".png"
    } else {
        set terminal svg size width, height dynamic enhanced font "sans,10" background rgb "white"
        set output out.".svg"
    }
    set multiplot layout nrows, ncols title title."\n".metric." versus solver time: median over problems (line), 25th-75th percentile (shaded)" noenhanced
    do for [p = 1:np] {
        set title fam[p] noenhanced
        a = first[p]
        b = last[p]
        unset label 1
        set yrange [ylo / 2:yhi * 2]
        if (a >= 0) {
            # No positive value at all (every residual exactly 0): autoscale fails on a log axis.
            undefine STATS_*
            stats f index a:b using (pos($4)) nooutput
            if (!exists("STATS_records")) {
                set yrange [1e-16:1]
                set label 1 "every value of ".metric." is 0 or nan" at graph 0.5, 0.5 center noenhanced
            }
            plot for [i = a:b] f index i using 3:(pos($5)):(pos($6)) with filledcurves \
                     fc rgb col(member[i + 1]) notitle, \
                 for [i = a:b] f index i using 3:(pos($4)) with linespoints lw 2 \
                     pi every[i + 1] ps 0.8 pt mark(member[i + 1]) lc rgb col(member[i + 1]) \
                     dt 1 + int(member[i + 1]) / words(colors) title names[i + 1]
        } else {
            set yrange [1e-16:1]
            set label 1 "no value of ".metric." for these solvers" at graph 0.5, 0.5 center noenhanced
            plot 1e-300 notitle
        }
    }
    unset multiplot
    set output
}
