# Shared by shard_fault.sh, finite_run_mpi.sh and launchers.sh (sourced): a job in which rank 2 of 3 of a
# sharded run hangs or dies (GPB_SHARD_FAULT_*), and what must follow.

# fault_extra MODE: the mpirun options of MODE. exit: without this MCA setting mpirun itself kills
# the job when a rank dies (also non-zero, naming the process); with it the live ranks' own
# deadline reports the rank.
fault_extra() {
  if [ "$1" = exit ]; then echo "--mca orte_abort_on_non_zero_status 0"; fi
}

# expect_rank2_named LOG RC TOOK: the job failed (not killed by the outer timeout) within 30 s,
# with exactly one message naming rank 2. Exits 1 otherwise.
expect_rank2_named() {
  local log=$1 rc=$2 took=$3 n
  cat "$log"
  [ "$rc" -ne 0 ] || { echo "expected a non-zero exit"; exit 1; }
  [ "$rc" -ne 124 ] || { echo "hung (killed by timeout)"; exit 1; }
  n=$(grep -c "rank 2 stopped responding" "$log")
  [ "$n" -eq 1 ] || { echo "expected one message naming rank 2, got $n"; exit 1; }
  [ "$took" -le 30 ] || { echo "took ${took}s (bound 30 s)"; exit 1; }
  echo "job ended after ${took}s with rc $rc, one message naming rank 2"
}

# expect_exit2_once LOG RC NAME PATTERN DIR: the command exited 2 with exactly one line matching
# PATTERN (grep) in LOG and wrote no DIR/runs.csv. Exits 1 otherwise.
expect_exit2_once() {
  local log=$1 rc=$2 name=$3 pattern=$4 dir=$5 n
  cat "$log"
  [ "$rc" -eq 2 ] || { echo "$name: expected exit 2, got $rc"; exit 1; }
  n=$(grep -c "$pattern" "$log")
  [ "$n" -eq 1 ] || { echo "$name: expected one message matching '$pattern', got $n"; exit 1; }
  [ ! -e "$dir/runs.csv" ] || { echo "$name: outputs written"; exit 1; }
}
