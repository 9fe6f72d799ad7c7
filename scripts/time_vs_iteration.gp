# Solver time versus iteration: one panel per solver family, in each one colour per solver, the
# median over problems (line) and the 25th-75th percentile band (shaded), as in Lee et al. 2025
# Fig. 7 / Fig. 9 (right). Log-log by default, so a constant cost per iteration is a line of
# slope 1 whatever the iteration counts; -e "linear=1" draws linear axes (as the paper's "linear
# increase" reads). Each panel's legend sits outside its plot area (right of it).
#
# Usage (ncpbench runs this itself after a benchmark; standalone):
#   gnuplot -e "dir='results/incline'" scripts/time_vs_iteration.gp
# optional: -e "dir='...'; title='incline'; linear=1"
# Reads  dir/fig_time_iter.dat (written by ncpbench: the aggregation is described in its header;
#        columns: solver solver_index iteration median q25 q75 n panel member; one index block
#        per solver, the blocks of a panel together) and dir/fig_families.dat
# Writes dir/time_vs_iteration.png and dir/time_vs_iteration.svg.

if (!exists("dir")) dir = "."
if (!exists("title")) title = dir
if (!exists("linear")) linear = 0
f = dir."/fig_time_iter.dat"
ff = dir."/fig_families.dat"
if (!exists("out")) out = dir."/time_vs_iteration"  # the caller may give a temporary stem (bench/plot.c)
cpanel = 8    # columns of panel and member in f
cmember = 9

colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442 #7F7F7F #8C564B"
col(k) = word(colors, int(k) % words(colors) + 1)
pos(v) = v > 0 ? v : NaN
marks = "7 5 9 13 11 6 4 8 12 10"
mark(k) = int(word(marks, int(k) % words(marks) + 1))

set datafile separator "\t"
stats ff using 1 nooutput
np = STATS_records
array fam[np]
do for [p = 0:np - 1] {
    stats ff every ::p::p using (s_ = strcol(2), 0) nooutput
    fam[p + 1] = s_
}
set datafile separator whitespace

stats f using 3 nooutput
nb = STATS_blocks
first_iter = STATS_min
array names[nb]
array member[nb]
array every[nb]
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

# Log axes only where every value can be drawn: iteration 0 or a zero time would vanish.
undefine STATS_*
stats f using (pos($5)) nooutput
logy = !linear && exists("STATS_records") && STATS_records > 0
logx = !linear && first_iter > 0
if (logx) { set logscale x 10; set mxtics 10 }
if (logy) { set logscale y 10; set mytics 10 }
yv(v) = logy ? pos(v) : v

# One x and y range for every panel, so that the families compare at a glance.
stats f using 3 nooutput
xlo = STATS_min
xhi = STATS_max > STATS_min ? STATS_max : STATS_min + 1
stats f using (yv($5)) nooutput
ylo = STATS_min
stats f using (yv($6)) nooutput
yhi = STATS_max > ylo ? STATS_max : ylo + 1
if (logx) { set xrange [xlo / 1.2:xhi * 1.2] } else { set xrange [xlo:xhi] }
if (logy) { set yrange [ylo / 1.5:yhi * 1.5] } else { set yrange [0:yhi * 1.05] }

ncols = np > 1 ? 2 : 1
nrows = int((np + ncols - 1) / ncols)
width = ncols == 2 ? 1500 : 1000
height = 90 + 420 * nrows

set grid xtics ytics mxtics mytics lc rgb "#dddddd" lw 1, lc rgb "#f2f2f2" lw 1
set xlabel "iteration"
set ylabel "solver time [ms] (setup included)"
set key outside right top vertical Left reverse noenhanced box opaque samplen 2 width 3
set style fill transparent solid 0.2 noborder

do for [term = 1:2] {
    if (term == 1) {
        set terminal pngcairo size width, height enhanced font "sans,10"
        set output out.".png"
    } else {
        set terminal svg size width, height dynamic enhanced font "sans,10" background rgb "white"
        set output out.".svg"
    }
    set multiplot layout nrows, ncols title title."\nsolver time versus iteration: median over the problems that ran the iteration (line), 25th-75th percentile (shaded)" noenhanced
    do for [p = 1:np] {
        set title fam[p] noenhanced
        a = first[p]
        b = last[p]
        plot for [i = a:b] f index i using 3:(yv($5)):(yv($6)) with filledcurves \
                 fc rgb col(member[i + 1]) notitle, \
             for [i = a:b] f index i using 3:(yv($4)) with linespoints lw 2 \
                 pi every[i + 1] ps 0.8 pt mark(member[i + 1]) lc rgb col(member[i + 1]) \
                 dt 1 + int(member[i + 1]) / words(colors) title names[i + 1]
    }
    unset multiplot
    set output
}
