#!/usr/bin/env bash
# Two gpbandit runs started together on one machine, with thread counts (T1, T2), against each run
# alone: what taking every core in both runs costs (Eigen's parallel products spin-wait when a
# process has more threads than the cores left to it), and what core claims give (the second run
# started beside a default-threads run gets the cores the first left: 1 here).
# Usage: bench/claims_pair.sh BUILD_DIR [REPS]   (prints a markdown table; bench/RESULTS.md)
set -euo pipefail
build=${1:?usage: claims_pair.sh BUILD_DIR [REPS]}
reps=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/svr.json" <<'JSON'
{"experiment": "dp-gibo", "privacy_noise": "seeded", "seed": 4, "runs": 1, "theta0": "uniform",
 "task": {"type": "svr_friedman", "p": 100, "n_train": 1000, "n": 9000},
 "methods": [{"type": "random_search", "evaluations": 24}]}
JSON
run() {  # run OUT THREADS: one run, its wall seconds on stdout
  local t0 t1
  t0=$(date +%s.%N)
  GPBANDIT_CORE_CLAIMS_DIR="" "$build/gpbandit" run "$work/svr.json" --threads "$2" --quiet \
    --no-plot --force --out "$work/$1" > /dev/null
  t1=$(date +%s.%N)
  awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.3f\n", a - b }'
}
pair() {  # pair T1 T2: both started at once; the wall seconds until both end
  local t0 t1
  t0=$(date +%s.%N)
  run a "$1" > /dev/null & run b "$2" > /dev/null & wait
  t1=$(date +%s.%N)
  awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.3f\n", a - b }'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
declare -A res
for ((r = 0; r < reps; r++)); do
  res[alone1]+="$(run a 1) "
  res[alone2]+="$(run a 2) "
  res[p22]+="$(pair 2 2) "
  res[p21]+="$(pair 2 1) "
  res[p11]+="$(pair 1 1) "
done
m() { tr ' ' '\n' <<< "${res[$1]}" | grep . | median; }
a1=$(m alone1)
printf '| runs | threads | median wall s (%s reps) | / two runs one after the other, 1 thread each |\n' "$reps"
printf '|---|---|---|---|\n'
for k in alone1 alone2 p22 p21 p11; do
  case $k in
    alone1) what="one alone"; th="1" ;;
    alone2) what="one alone"; th="2" ;;
    p22) what="two together"; th="2 + 2 (default threads without claims, idle machine)" ;;
    p21) what="two together"; th="2 + 1 (default threads with claims)" ;;
    p11) what="two together"; th="1 + 1" ;;
  esac
  v=$(m $k)
  case $k in alone*) ratio="–" ;; *) ratio=$(awk -v v="$v" -v a="$a1" 'BEGIN { printf "%.3f", v / (2 * a) }') ;; esac
  printf '| %s | %s | %.2f | %s |\n' "$what" "$th" "$v" "$ratio"
done
