# The NCP report 2025 §VII-D accuracy metrics (eqs. 173-176, L_inf): median over each suite scene's problems,
# per solver, one panel per metric, one point style per scene (13 systems: 7 colours x 14
# point types), log scale.
#
# Usage (`ncpbench figures --paper ncpreport2025` runs this itself; standalone):
#   gnuplot -e "dir='OUT/ncpreport2025/paper/suite'" scripts/ncpreport2025_accuracy.gp
# optional: -e "dir='...'; title='...'"
# Reads  dir/accuracy.dat (written by ncpbench; columns: solver solver_index table1 scene runs
#        converged pen_med pen_p90 dual_med dual_p90 ncp_med ncp_p90 nat_med nat_p90, one index
#        block per scene, one row per solver)
# Writes dir/ncpreport2025_accuracy.png and dir/ncpreport2025_accuracy.svg.

if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/ncpreport2025_accuracy"
if (!exists("title")) title = "The NCP report 2025 accuracy metrics"
f = dir."/accuracy.dat"

# Values below the floor (exact zeros included) are drawn at the floor, divergent ones (above
# 1e4) at the ceiling; NaN (undefined) is skipped.
lo = 1e-17
hi = 1e4
clamp(x) = (x == x) ? (x > lo ? (x < hi ? x : hi) : lo) : NaN
colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000"
col(k) = word(colors, int(k) % words(colors) + 1)

stats f using 2 nooutput
nb = STATS_blocks
array scenes[nb]
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(4), 0) nooutput
    scenes[i + 1] = s_
}
# solver label with a star for the paper's ten configurations
lab(c) = strcol(1) . (column(3) == 1 ? "*" : "")

set logscale y 10
set format y "10^{%T}"
set ytics 1e-18, 100
set mytics 2
set grid ytics lc rgb "#dddddd"
set xtics rotate by -60 font ",8" noenhanced
set key outside right top noenhanced box opaque
set offsets 0.5, 0.5, 0, 0
set yrange [lo / 10:hi * 10]

array ptitle[4] = ["r_pen (eq. 173): penetration, median", "r_dual (eq. 174): ncp_dual, median", \
                   "r_ncp (eq. 175): ncp_compl, median", "r_nat (eq. 176): natural_map_inf, median"]
# median columns: 7, 9, 11, 13
do for [fmt in "png svg"] {
    if (fmt eq "png") {
        set terminal pngcairo size 1500,1000 enhanced font "sans,10"
        set output out.".png"
    } else {
        set terminal svg size 1500,1000 dynamic enhanced font "sans,10" background rgb "white"
        set output out.".svg"
    }
    set multiplot layout 2,2 title title."  (* = paper's ten configurations; zeros drawn at 1e-17, values above 1e4 at 1e4)" noenhanced
    do for [m = 1:4] {
        c = 5 + 2 * m
        set title ptitle[m] noenhanced
        set ylabel "L_inf residual" noenhanced
        if (m == 4) { set key } else { unset key }
        # solver names from the first block (an invisible plot), then one point style per scene,
        # shifted sideways so that equal values stay visible
        plot f index 0 using 2:(NaN):xtic(lab(0)) notitle, \
             for [i = 0:nb - 1] f index i using ($2 + (i - (nb - 1) / 2.0) * 0.08):(clamp(column(c))) \
             with points pt (i % 14) + 1 ps 1.0 lc rgb col(i) title scenes[i + 1]
    }
    unset multiplot
    set output
}
