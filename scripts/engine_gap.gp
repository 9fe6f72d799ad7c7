# The engine peers' formulation gap (results/REPORT.md, "Engine peers"): for every answer, its
# residual on the box-friction LCP the engines solve (boxlcp_residual, x) against its Coulomb
# residual (natural_map_rel_acary, y). Points on the diagonal: the two models agree at that
# answer; far above it: the engine solved its own model, whose answer is no Coulomb answer.
#
# Usage (scripts/engine_gap.sh runs it):
#   gnuplot -e "dat='OUT/engine_gap.dat'; out='OUT/engine_gap'" scripts/engine_gap.gp
# Reads  dat (scripts/engine_gap.py: one index block per solver, its name in the block's
#        comment line; columns boxlcp_residual natural_map_rel_acary problem)
# Writes out.png and out.svg.

if (!exists("dat")) dat = "engine_gap.dat"
if (!exists("out")) out = "engine_gap"

colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #7F7F7F #8C564B"
col(k) = word(colors, int(k) % words(colors) + 1)

stats dat using 1 nooutput
nb = STATS_blocks
names = system("grep '^# [a-z]' " . dat . " | grep -v engine_gap | cut -c3-")

set logscale xy 10
set xrange [1e-17:10]
set yrange [1e-17:10]
set format x "10^{%L}"
set format y "10^{%L}"
set xlabel "own-model residual (boxlcp\\_residual: box-friction LCP)"
set ylabel "Coulomb residual (natural\\_map\\_rel\\_acary)"
set key outside right top
set grid
set title "Engine peers: own model against the Coulomb NCP, per answer"

do for [t in "pngcairo svg"] {
    set terminal t size 900, 640
    set output out . (t eq "svg" ? ".svg" : ".png")
    plot x with lines lc rgb "#999999" dt 2 title "equal", \
         for [i = 0:nb - 1] dat index i using 1:2 with points pt (i % 7) + 1 lc rgb col(i) \
             title word(names, i + 1)
}
