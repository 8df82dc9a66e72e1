#!/usr/bin/env bash
# Runs every example config into results/fed-pne/<name> with the CLI given as $1 (default
# build/gpbandit), then writes README.md. X1 is also run over MPI (mpirun -np 3) to show the MPI
# runtime reproduces the in-process run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cli=${1:-build/gpbandit}
out=${OUT:-results/fed-pne}
for cfg in "$here"/x*.json; do
  name=$(basename "$cfg" .json)
  "$cli" run "$cfg" --out "$out/$name" --quiet >/dev/null
done
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 3 --oversubscribe \
  "$cli" run "$here/x1-garland.json" --mpi --out "$out/x1-garland-mpi" --quiet --no-plot >/dev/null
py=python3; [ -x /usr/bin/python3 ] && py=/usr/bin/python3  # the Debian one has matplotlib
"$py" "$here/make_readme.py" "$out"
