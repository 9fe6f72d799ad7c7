# Lee et al. 2025 Figs. 7 (bolt-nut) and 9 (dish piling) as the paper lays them out: left, the
# residual decrease over computation time; right, computation time over iteration; per solver
# (CANAL, SubADMM, PGS) the median over the cases (line) and the 25th-75th percentiles (band).
# Both axes of both panels are logarithmic (the paper's text states neither scale; our solves
# span from under 1 ms to the 200 ms budget): a cost linear in the iterations is a line of slope
# 1 on the right. The dashed line on the left is the paper's 1e-8 level (§VII-A1).
#
# Usage (`ncpbench figures --paper lee2025` runs this itself for parts fig7, fig7_loose, fig9;
# standalone):
#   gnuplot -e "dir='OUT/lee2025/paper/fig7'" scripts/lee2025_fig.gp
# optional: -e "dir='...'; title='...'"
# Reads  dir/lee2025_fig_residual.dat (label time_ms median q25 q75 n ncases) and
#        dir/lee2025_fig_time.dat (label iteration median_ms q25_ms q75_ms n ncases), one index
#        block per solver in the same order (src/figures/lee2025/figures.c describes them)
# Writes dir/lee2025_fig.png and dir/lee2025_fig.svg.
# Values <= 0 cannot be drawn on the log axes and leave a gap.

if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/lee2025_fig"
if (!exists("title")) title = "Lee et al. 2025 Fig. 7 / 9"
# the title's first "; " starts a second line (ncpbench passes one line)
i_ = strstrt(title, "; ")
if (i_ > 0) { title = title[1:i_ - 1]."\n".title[i_ + 2:] }
fr = dir."/lee2025_fig_residual.dat"
ft = dir."/lee2025_fig_time.dat"
level = 1e-8

colors = "#0072B2 #D55E00 #009E73 #CC79A7 #000000 #E69F00"
col(k) = word(colors, int(k) % words(colors) + 1)
marks = "7 5 9 13 11 6"
mark(k) = int(word(marks, int(k) % words(marks) + 1))
pos(v) = v > 0 ? v : NaN

stats fr using 2 nooutput
nb = STATS_blocks
array names[nb]
array every[nb]   # about 10 markers a curve, per panel
array every_t[nb]
do for [i = 0:nb - 1] {
    stats fr index i using (s_ = strcol(1), 0) nooutput
    names[i + 1] = s_
    every[i + 1] = STATS_records > 10 ? int(STATS_records / 10) : 1
    stats ft index i using 2 nooutput
    every_t[i + 1] = STATS_records > 10 ? int(STATS_records / 10) : 1
}

# the left panel's range holds the paper's level
stats fr using (pos($4)) nooutput
ylo = STATS_min < level ? STATS_min : level
stats fr using (pos($5)) nooutput
yhi = STATS_max > level ? STATS_max : level

set logscale xy 10
set format x "10^{%L}"
set format y "10^{%L}"
set mxtics 10
set mytics 10
set grid xtics ytics lc rgb "#dddddd" lw 1
set style fill transparent solid 0.2 noborder
set key vertical Left reverse noenhanced box samplen 2 width 1

do for [t = 1:2] {
    if (t == 1) {
        set terminal pngcairo size 1500,560 enhanced font "sans,11"
        set output out.".png"
    } else {
        set terminal svg size 1500,560 dynamic enhanced font "sans,11" background rgb "white"
        set output out.".svg"
    }
    set multiplot layout 1,2 title title noenhanced
    # equal plot areas, each key in the margin to the right of its panel
    set lmargin at screen 0.06
    set rmargin at screen 0.36
    set key at screen 0.37, graph 1 left top
    set title "residual decrease over computation time" noenhanced
    set xlabel "computation time [ms] (setup included)"
    set ylabel "residual (al\\_residual)"
    set yrange [ylo / 2:yhi * 2]
    plot for [i = 0:nb - 1] fr index i using 2:(pos($4)):(pos($5)) with filledcurves \
             fc rgb col(i) notitle, \
         for [i = 0:nb - 1] fr index i using 2:(pos($3)) with linespoints lw 2 \
             pi every[i + 1] ps 0.8 pt mark(i) lc rgb col(i) title names[i + 1], \
         level with lines dt 2 lw 1.5 lc rgb "#555555" title "1e-8 (paper's level)"
    set lmargin at screen 0.61
    set rmargin at screen 0.89
    set key at screen 0.90, graph 1 left top
    set title "computation time over iteration" noenhanced
    set xlabel "iteration"
    set ylabel "computation time [ms] (setup included)"
    set yrange [*:*]
    plot for [i = 0:nb - 1] ft index i using 2:(pos($4)):(pos($5)) with filledcurves \
             fc rgb col(i) notitle, \
         for [i = 0:nb - 1] ft index i using 2:(pos($3)) with linespoints lw 2 \
             pi every_t[i + 1] ps 0.8 pt mark(i) lc rgb col(i) title names[i + 1]
    unset multiplot
    set output
}
