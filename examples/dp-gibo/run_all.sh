#!/bin/sh
# Runs every DP-GIBO example config and copies summary.json and loss.png next to the configs
# (examples/dp-gibo/results/<config>/), which make_readme.py turns into README.md's tables.
# Usage: examples/dp-gibo/run_all.sh [path/to/gpbandit] [config names...]
set -e
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/gpbandit}
[ $# -gt 0 ] && shift
names=${*:-"E-DP7-huber E-DP6-normal-location E-DP0-d2 E-DP0-d5 E-DP0-d10 E-DP1-eps E-DP2-mu E-DP3-sigma E-DP4-misspecified"}
for n in $names; do
  out=results/dp-gibo/$n
  /usr/bin/time -f "$n: %e s wall, %U s user" "$bin" run "$here/$n.json" --out "$out" --quiet
  mkdir -p "$here/results/$n"
  cp "$out/summary.json" "$here/results/$n/summary.json"
  [ -f "$out/loss.png" ] && cp "$out/loss.png" "$here/results/$n/loss.png"
done
