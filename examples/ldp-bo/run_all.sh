#!/bin/sh
# Runs LDP-BO example configs into results/ldp-bo/<name>/ (runs.csv, summary.json; resumable:
# a stopped run continues from its checkpoint) and copies each summary.json next to the configs
# (examples/ldp-bo/results/<name>/summary.json, committed), then rewrites README.md and plots/
# from those files with make_readme.py.
# Usage: examples/ldp-bo/run_all.sh [path/to/gpbandit] [config names...]
#   default names: the nine panels L1..L9, then the why-* experiments.
#   GPB_SHARED=/path/to/shared  where the data sets live when ../shared next to the repository
#                               is absent (e.g. a git worktree elsewhere).
# Single-threaded by design (every config sets "threads": 1); run it under nice on a shared box.
set -e
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/gpbandit}
[ $# -gt 0 ] && shift
names=${*:-"L5 L6 L2 L3 L8 L9 L4 L1 L7 why-eps-light why-eps-stock why-eps-synthetic why-width-light why-width-stock why-width-synthetic why-trunc-light why-trunc-synthetic why-sampler-light why-eps-matern why-eps-matern-ata why-width-synthetic-rivals why-width-matern-rivals why-width-matern-ata why-width-matern-confirm why-kgroups-matern"}
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
for n in $names; do
  out=results/ldp-bo/$n
  cfg="$here/$n.json"
  if [ -n "$GPB_SHARED" ]; then  # the configs name ../../../shared/data relative to themselves
    mkdir -p "$out"
    sed "s#\.\./\.\./\.\./shared#$GPB_SHARED#g" "$here/$n.json" > "$out/config.json"
    cfg="$out/config.json"
  fi
  resume=""
  [ -d "$out/.checkpoint" ] && resume="--resume"
  /usr/bin/time -f "$n: %e s wall, %U s user" "$bin" run "$cfg" --out "$out" --quiet --no-plot $resume
  mkdir -p "$here/results/$n"
  cp "$out/summary.json" "$here/results/$n/summary.json"
done
py=python3; [ -x /usr/bin/python3 ] && py=/usr/bin/python3  # the Debian one has matplotlib
"$py" "$here/make_readme.py"
