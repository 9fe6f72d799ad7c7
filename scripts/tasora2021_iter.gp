# Tasora et al. 2021 convergence plots (TEST 1: Figs. 2-6, TEST 2: Fig. 8 of the paper): per run,
# against the iteration, the relative natural map (top) and the violation of the unilateral
# constraints as a penetrating residual velocity in m/s (bottom; Figs. 2 and 8's axis): in TEST 1
# max(0, -u_n) (penetration / h, phi = 0), in TEST 2 the ncp_dual metric (distance of
# u + Gamma(u) from K*; max(0, -u_n) for the normal alone). TEST 2's curves are sampled (about 20
# iterates a decade), joined by straight lines.
#
# Usage (`ncpbench figures --paper tasora2021` runs this itself once per figure; standalone):
#   gnuplot -e "dir='results/figures/tasora2021/paper/fig2'" scripts/tasora2021_iter.gp
# optional: -e "dir='...'; title='...'"
# Reads  dir/tasora2021_iter.dat (written by ncpbench; columns: label iteration
#        natural_map_rel_acary violation_m_per_s, one index block per run)
# Writes dir/tasora2021_iter.png and dir/tasora2021_iter.svg.
# Values <= 0 cannot be drawn on the log axis: a violation of exactly 0 leaves a gap.

if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/tasora2021_iter"
if (!exists("title")) title = "Tasora et al. 2021 TEST 1"
f = dir."/tasora2021_iter.dat"

colors = "#0072B2 #D55E00 #009E73 #CC79A7 #000000 #E69F00 #56B4E9 #F0E442 #999999"
col(k) = word(colors, int(k) % words(colors) + 1)
dt_(k) = int(k) / words(colors) + 1
pos(v) = v > 0 ? v : NaN

stats f using 2 nooutput
nb = STATS_blocks
array names[nb]
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(1), 0) nooutput
    names[i + 1] = s_
}

set logscale y 10
set format y "10^{%L}"
set grid xtics ytics lc rgb "#dddddd" lw 1
set key outside right top noenhanced box opaque width 1

top = "plot for [i = 0:nb - 1] f index i using 2:(pos($3)) with lines lw 2 lc rgb col(i) " . \
      "dt dt_(i) title names[i + 1]"
bot = "plot for [i = 0:nb - 1] f index i using 2:(pos($4)) with lines lw 2 lc rgb col(i) " . \
      "dt dt_(i) notitle"

do for [t = 1:2] {
    if (t == 1) {
        set terminal pngcairo size 1100,900 enhanced font "sans,11"
        set output out.".png"
    } else {
        set terminal svg size 1100,900 dynamic enhanced font "sans,11" background rgb "white"
        set output out.".svg"
    }
    set multiplot layout 2,1 title title noenhanced
    # the same plot width in both panels: the key sits in the right margin of the top one
    set lmargin at screen 0.09
    set rmargin at screen 0.75
    set key
    set xlabel ""
    set ylabel "natural map ||F|| / ||v_f||"
    eval top
    unset key
    set xlabel "iteration"
    set ylabel "violation (m/s)"
    eval bot
    unset multiplot
    set output
}
