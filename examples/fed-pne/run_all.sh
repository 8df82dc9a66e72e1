#!/bin/sh
# Runs the Fed-PNE example configs into results/fed-pne/<name> and copies each summary.json next
# to the configs (examples/fed-pne/results/<name>/summary.json), from which make_readme.py
# regenerates README.md's tables and plots. With no names: every config, then X1 over MPI
# (mpirun -np 3) to show that the MPI runtime reproduces the in-process run.
# Usage: examples/fed-pne/run_all.sh [path/to/gpbandit] [config names...]
set -e
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/gpbandit}
[ $# -gt 0 ] && shift
all=0
if [ $# -eq 0 ]; then
  all=1
  set -- $(cd "$here" && ls x*.json grid-*.json | sed 's/\.json$//')
fi
for n in "$@"; do
  out=results/fed-pne/$n
  /usr/bin/time -f "$n: %e s wall, %U s user" "$bin" run "$here/$n.json" --out "$out" --quiet --no-plot >/dev/null
  mkdir -p "$here/results/$n"
  cp "$out/summary.json" "$here/results/$n/summary.json"
done
if [ $all -eq 1 ]; then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 3 --oversubscribe \
    "$bin" run "$here/x1-garland.json" --mpi --out results/fed-pne/x1-garland-mpi --quiet --no-plot >/dev/null
  mkdir -p "$here/results/x1-garland-mpi"
  cp results/fed-pne/x1-garland-mpi/summary.json "$here/results/x1-garland-mpi/summary.json"
  cmp results/fed-pne/x1-garland/runs.csv results/fed-pne/x1-garland-mpi/runs.csv \
    && echo yes > "$here/results/x1-garland-mpi/identical" || echo no > "$here/results/x1-garland-mpi/identical"
fi
py=python3; [ -x /usr/bin/python3 ] && py=/usr/bin/python3  # the Debian one has matplotlib
"$py" "$here/make_readme.py"
