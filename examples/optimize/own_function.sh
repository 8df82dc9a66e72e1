#!/bin/sh
# Ask/tell from the shell: any program that reads the suggested points and writes their values can
# drive gpbandit through a state file (here awk evaluates the function of
# python/examples/own_function.py). Each command locks the state file while it works, so several
# workers or a job scheduler may ask and tell concurrently.
# Usage: examples/optimize/own_function.sh [GPBANDIT] [WORK_DIR]   (defaults: build/gpbandit, a temp dir)
set -eu
gpb=${1:-build/gpbandit}
dir=${2:-$(mktemp -d)}
"$gpb" init "$(dirname "$0")/own_function.json" "$dir/state.json"
for round in 1 2 3 4 5 6 7 8 9 10; do
  "$gpb" ask "$dir/state.json" --q 3 --out "$dir/points.csv"          # 3 points, CSV with header
  awk -F, 'NR == 1 {print "y"; next}
           {print ($1 - 0.3)^2 + 10 * ($2 - 0.6)^2 + 0.3 * sin(15 * $1)}' \
      "$dir/points.csv" > "$dir/y.csv"                                  # your program goes here
  "$gpb" tell "$dir/state.json" "$dir/points.csv" "$dir/y.csv"
done
"$gpb" best "$dir/state.json"
