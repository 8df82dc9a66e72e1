#!/bin/sh
# MolPAL's protocol on Enamine 10k and 50k (the configs beside this script): featurises each
# library once (python3 -m gpbandit.chem featurize, RDKit), runs every acquisition with
# `gpbandit run ... --resume` into results/pools/<name>/, runs MolPAL's random-forest baseline
# (rf_baseline.py, scikit-learn) into results/pools/<name>-rf/, copies each summary.json next to
# the configs (examples/pools/results/<name>/summary.json, committed) and rewrites README.md
# with make_readme.py. An interrupted run continues where it stopped (--resume; the RF baseline
# is skipped when its summary exists).
# Usage: [NO_RF=1] examples/pools/run_all.sh [path/to/gpbandit] [config names...]
# NO_RF=1: no random-forest baseline (its summary is copied only where it exists).
# Needs: the Python module (PYTHONPATH=build/python), RDKit and scikit-learn for that python3.
set -e
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/gpbandit}
[ $# -gt 0 ] && shift
names=${*:-"enamine10k-atompair enamine10k-morgan enamine50k-atompair enamine50k-morgan
  enamine10k-atompair-counts enamine10k-morgan-counts enamine50k-atompair-counts
  enamine50k-morgan-counts"}
export OMP_WAIT_POLICY=passive
export PYTHONPATH=${PYTHONPATH:-$(dirname "$bin")/python}
for n in $names; do
  python3 -m gpbandit.chem featurize "$here/$n.json"
  resume=
  [ -d "results/pools/$n" ] && resume=--resume  # continue an interrupted run
  /usr/bin/time -f "$n: %e s wall, %U s user" \
    "$bin" run "$here/$n.json" --out "results/pools/$n" $resume --quiet --no-plot
  mkdir -p "$here/results/$n"
  cp "results/pools/$n/summary.json" "results/pools/$n/runs.csv" "$here/results/$n/"
  if [ "${NO_RF:-0}" = 1 ]; then
    :
  elif [ ! -f "results/pools/$n-rf/summary.json" ]; then
    /usr/bin/time -f "$n-rf: %e s wall, %U s user" \
      python3 "$here/rf_baseline.py" "$here/$n.json" "results/pools/$n-rf"
  fi
  if [ -f "results/pools/$n-rf/summary.json" ]; then
    mkdir -p "$here/results/$n-rf"
    cp "results/pools/$n-rf/summary.json" "$here/results/$n-rf/summary.json"
  fi
done
python3 "$here/make_readme.py"
