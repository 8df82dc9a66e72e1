#!/usr/bin/env bash
# MPI tests of Fed-PNE (run by ctest; each has a ctest TIMEOUT and an inner `timeout`).
#   fed_pne_mpi.sh identical GPBANDIT MPIRUN OUTDIR NP  — MPI and in-process outputs are identical
#   fed_pne_mpi.sh hang|exit GPBANDIT MPIRUN OUTDIR     — client rank 2 stops answering / dies at
#       exchange step 2: the server must fail within the deadline, naming rank 2, never hang
set -u
mode=$1 cli=$2 mpirun=$3 out=$4 np=${5:-3}
cfg="$(dirname "$0")/fed_pne_mpi.json"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$out" && mkdir -p "$out"
# Ranks yield the core while they wait (on a loaded 2-core machine 4 busy-polling ranks crawl).
mpi=("$mpirun" -np "$np" --oversubscribe --mca mpi_yield_when_idle 1)
case $mode in
  identical)
    "$cli" run "$cfg" --out "$out/inproc" --quiet --no-plot >/dev/null || { echo "in-process run failed"; exit 1; }
    # The deadline only guards against a hang: a few seconds alone, minutes on a loaded machine.
    timeout 400 "${mpi[@]}" "$cli" run "$cfg" --mpi --out "$out/mpi" --quiet --no-plot >"$out/mpi.log" 2>&1 \
      || { cat "$out/mpi.log"; echo "MPI run failed"; exit 1; }
    for f in runs.csv phases.csv; do
      cmp "$out/inproc/$f" "$out/mpi/$f" || { echo "$f differs between runtimes"; exit 1; }
    done
    grep -q '"runtime": "mpi (' "$out/mpi/summary.json" || { echo "summary.json: runtime not mpi"; exit 1; }
    grep -q '"bytes_mpi_measured_total"' "$out/mpi/summary.json" || { echo "no measured bytes"; exit 1; }
    echo "identical runs.csv and phases.csv (np $np)";;
  hang|exit)
    # exit: without this MCA setting mpirun itself kills the job when a rank dies (also non-zero,
    # naming the process); with it the server's own deadline reports the rank.
    extra=(); [ "$mode" = exit ] && extra=(--mca orte_abort_on_non_zero_status 0)
    start=$(date +%s)
    GPB_FAULT_RANK=2 GPB_FAULT_STEP=2 GPB_FAULT_MODE=$mode timeout 60 "${mpi[@]}" "${extra[@]}" \
      -x GPB_FAULT_RANK -x GPB_FAULT_STEP -x GPB_FAULT_MODE \
      "$cli" run "$cfg" --mpi --out "$out/fault" --quiet --no-plot >"$out/fault.log" 2>&1
    rc=$?
    took=$(( $(date +%s) - start ))
    cat "$out/fault.log"
    [ $rc -ne 0 ] || { echo "expected a non-zero exit"; exit 1; }
    [ $rc -ne 124 ] || { echo "hung (killed by timeout)"; exit 1; }
    grep -q "client rank 2 stopped responding" "$out/fault.log" || { echo "rank 2 not named"; exit 1; }
    [ ! -e "$out/fault/summary.json" ] || { echo "summary.json written by a failed run"; exit 1; }
    echo "server stopped after ${took}s with rc $rc";;
  *) echo "unknown mode $mode"; exit 2;;
esac
