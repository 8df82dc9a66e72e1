#!/usr/bin/env bash
# A rank of a sharded FinitePosterior that hangs or dies (run by ctest, with an outer `timeout`):
#   shard_fault.sh hang|exit EXE MPIRUN OUTDIR
# rank 2 of 3 stops at its 5th collective; the live ranks must end the job within the collective
# timeout (3 s) plus the grace period, with exactly one message naming rank 2.
set -u
mode=$1 exe=$2 mpirun=$3 out=$4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$out" && mkdir -p "$out"
source "$(dirname "$0")/shard_fault_lib.sh"
read -r -a extra <<<"$(fault_extra "$mode")"
start=$(date +%s)
GPB_SHARD_FAULT_RANK=2 GPB_SHARD_FAULT_STEP=5 GPB_SHARD_FAULT_MODE=$mode GPB_TEST_TIMEOUT=3 \
  timeout 60 "$mpirun" -np 3 --oversubscribe "${extra[@]}" \
  -x GPB_SHARD_FAULT_RANK -x GPB_SHARD_FAULT_STEP -x GPB_SHARD_FAULT_MODE -x GPB_TEST_TIMEOUT \
  "$exe" >"$out/fault.log" 2>&1
rc=$?
expect_rank2_named "$out/fault.log" $rc $(( $(date +%s) - start ))
