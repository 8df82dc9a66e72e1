#!/usr/bin/env bash
# A Python script whose rank 2 of 3 hangs (python/tests/mpi_rank_failure.py; run by ctest):
#   python_rank_failure.sh plain|mpi4py PYTHON MPIRUN OUTDIR
# plain: `mpirun python3 script.py`, the way that used to hang in MPI_Finalize after the live
# ranks raised; mpi4py: `mpirun python3 -m mpi4py script.py`, the documented way. Either way the
# job must end within 60 s (collective timeout 3 s, grace, abort), non-zero, with the reporting
# rank's line naming rank 2 exactly once.
set -u
mode=$1 python=$2 mpirun=$3 out=$4
here="$(dirname "$0")"
script="$here/../../python/tests/mpi_rank_failure.py"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$out" && mkdir -p "$out"
"$python" -c "import mpi4py" 2>/dev/null || { echo "SKIP: mpi4py is not installed for $python"; exit 77; }
runner=("$python")
[ "$mode" = mpi4py ] && runner=("$python" -m mpi4py)
start=$(date +%s)
GPB_SHARD_FAULT_RANK=2 GPB_SHARD_FAULT_STEP=5 GPB_SHARD_FAULT_MODE=hang \
  timeout 120 "$mpirun" -np 3 --oversubscribe -x PYTHONPATH -x GPB_SHARD_FAULT_RANK \
  -x GPB_SHARD_FAULT_STEP -x GPB_SHARD_FAULT_MODE "${runner[@]}" "$script" >"$out/log" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
cat "$out/log"
[ $rc -ne 124 ] || { echo "hung: killed by the 120 s timeout"; exit 1; }
[ $rc -ne 0 ] || { echo "expected a non-zero exit"; exit 1; }
n=$(grep -c "RankFailure failed_rank=2: MPI: rank 2 stopped responding" "$out/log")
[ "$n" -eq 1 ] || { echo "expected one line from the reporting rank naming rank 2, got $n"; exit 1; }
[ "$took" -le 60 ] || { echo "took ${took}s (bound 60 s)"; exit 1; }
echo "$mode: the job ended after ${took}s with rc $rc; RankFailure.failed_rank = 2"
