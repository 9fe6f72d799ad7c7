# Dolan–Moré performance profiles (Acary, Brémond, Huber 2018; Dolan & Moré 2002): for each
# solver, the fraction of problems it solves within tau times the best solver's time, tau from 1
# to 100 on a log axis.
#
# Usage (`ncpbench figures --profiles` runs this itself; standalone):
#   gnuplot -e "dir='results/figures/profiles'" scripts/perf_profiles.gp
# optional: -e "dir='...'; title='...'"
# Reads  dir/perf_profiles.dat (written by ncpbench: methodology in its header; columns: solver
#        solver_index tau rho, one index block per solver)
# Writes dir/perf_profiles.png and dir/perf_profiles.svg.

if (!exists("dir")) dir = "."
# the caller writes to a temporary stem and renames (ncpbench: bench/plot.c run_script)
if (!exists("out")) out = dir."/perf_profiles"
if (!exists("title")) title = "Performance profiles"
f = dir."/perf_profiles.dat"

# Okabe-Ito colours, then extras; with more solvers than colours the dash pattern changes.
colors = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442 #7F7F7F #8C564B"
col(k) = word(colors, int(k) % words(colors) + 1)
dash(k) = 1 + int(k) / words(colors)

stats f using 3 nooutput
nb = STATS_blocks
array names[nb]
do for [i = 0:nb - 1] {
    stats f index i using (s_ = strcol(1), 0) nooutput
    names[i + 1] = s_
}

set logscale x 10
set xrange [1:100]
set yrange [0:1.02]
set xtics (1, 2, 5, 10, 20, 50, 100)
set mxtics 10
set grid xtics ytics mxtics lc rgb "#dddddd" lw 1, lc rgb "#f2f2f2" lw 1
set xlabel "performance ratio tau (time to tolerance / best solver's time)"
set ylabel "fraction of problems solved within tau x best"
set title title."\nfailures (not converged within the budget) count as infinitely slow" noenhanced
set key outside right top noenhanced box opaque width 2

plotcmd = "plot for [i = 0:nb - 1] f index i using 3:4 with steps lw 2 " . \
          "lc rgb col(i) dt dash(i) title names[i + 1]"

set terminal pngcairo size 1100,700 enhanced font "sans,11"
set output out.".png"
eval plotcmd
set output

set terminal svg size 1100,700 dynamic enhanced font "sans,11" background rgb "white"
set output out.".svg"
eval plotcmd
set output
