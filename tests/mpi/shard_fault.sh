#!/usr/bin/env bash
# A rank of a sharded FinitePosterior that hangs or dies (run by ctest, with an outer `timeout`):
#   shard_fault.sh hang|exit EXE MPIRUN OUTDIR
# rank 2 of 3 stops at its 5th collective; the live ranks must end the job within the collective
# timeout (3 s) plus the grace period, with exactly one message naming rank 2.
set -u
mode=$1 exe=$2 mpirun=$3 out=$4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$out" && mkdir -p "$out"
# exit: without this MCA setting mpirun itself kills the job when a rank dies (also non-zero,
# naming the process); with it the live ranks' own deadline reports the rank.
extra=(); [ "$mode" = exit ] && extra=(--mca orte_abort_on_non_zero_status 0)
start=$(date +%s)
GPB_SHARD_FAULT_RANK=2 GPB_SHARD_FAULT_STEP=5 GPB_SHARD_FAULT_MODE=$mode GPB_TEST_TIMEOUT=3 \
  timeout 60 "$mpirun" -np 3 --oversubscribe "${extra[@]}" \
  -x GPB_SHARD_FAULT_RANK -x GPB_SHARD_FAULT_STEP -x GPB_SHARD_FAULT_MODE -x GPB_TEST_TIMEOUT \
  "$exe" >"$out/fault.log" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
cat "$out/fault.log"
[ $rc -ne 0 ] || { echo "expected a non-zero exit"; exit 1; }
[ $rc -ne 124 ] || { echo "hung (killed by timeout)"; exit 1; }
n=$(grep -c "rank 2 stopped responding" "$out/fault.log")
[ "$n" -eq 1 ] || { echo "expected one message naming rank 2, got $n"; exit 1; }
[ $took -le 30 ] || { echo "took ${took}s (bound 30 s)"; exit 1; }
echo "job ended after ${took}s with rc $rc, one message naming rank 2"
