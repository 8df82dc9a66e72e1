#!/bin/sh
# Runs PO-GP-UCB example configs into results/po-gp-ucb/<name>/ and copies each summary.json next
# to the configs (examples/po-gp-ucb/results/<name>/summary.json, committed), then rewrites
# README.md and plots/ from those files with make_readme.py. The synthetic configs run once per
# draw of f (seeds 0..4: results/<config>-f<seed>; "<config>-wide" runs seeds 5..24); the Branin
# configs also keep basins.json (the basin each run ends in and when it first reaches the global
# one, extracted from runs.csv).
# Usage: examples/po-gp-ucb/run_all.sh [path/to/gpbandit] [config names...]
set -e
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/gpbandit}
[ $# -gt 0 ] && shift
names=${*:-"table1-synthetic table2-synthetic table3-synthetic table1-synthetic-wide table2-synthetic-wide table3-synthetic-wide fig2a-synthetic table10-branin table11-branin table12-branin fig3-branin fig3-branin-T100 fig3-branin-T200 fig3-branin-init5 table7-property table8-property table9-property fig2c-property fig2c-property-like fig2c-property-beta table4-loans table5-loans table6-loans fig2b-loans"}
draws=${DRAWS:-"0 1 2 3 4"}
# table<k>-synthetic-wide: the same config at 20 more draws of f (seeds 5..24), pooled with the
# five by verdicts.py when r_max ties a neighbour at the paper's scale (a resolution test).
# table2-synthetic-wide also ran seeds 25..249 (WIDE_DRAWS="$(seq -s ' ' 25 249)"), since its
# paper-size test was open at 25, 60 and 120 replicates (verdicts.paper_size).
wide=${WIDE_DRAWS:-"$(seq -s ' ' 5 24)"}
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
py=python3; [ -x /usr/bin/python3 ] && py=/usr/bin/python3  # the Debian one has matplotlib
run() {  # run <config stem> <result name> [gpbandit options]
  out=results/po-gp-ucb/$2
  cfg=$1
  shift 2
  /usr/bin/time -f "$(basename "$out"): %e s wall, %U s user" \
    "$bin" run "$here/$cfg.json" --out "$out" --quiet --no-plot "$@"
  mkdir -p "$here/results/$(basename "$out")"
  cp "$out/summary.json" "$here/results/$(basename "$out")/summary.json"
  case $cfg in *branin*)
    "$py" "$here/results_table.py" --basins "$out/runs.csv" > "$here/results/$(basename "$out")/basins.json"
  esac
}
for n in $names; do
  case $n in
    *synthetic) for k in $draws; do run "$n" "$n-f$k" --seed "$k"; done ;;
    *synthetic-wide) for k in $wide; do run "${n%-wide}" "$n-f$k" --seed "$k"; done ;;
    *) run "$n" "$n" ;;
  esac
done
"$py" "$here/make_readme.py"
