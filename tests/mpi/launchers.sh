#!/usr/bin/env bash
# `gpbandit run --mpi` whatever started the ranks (run by ctest; every mpirun has an inner timeout):
#   launchers.sh foreign GPBANDIT MPIRUN OUTDIR — mpirun -np 3 with Open MPI's OMPI_COMM_WORLD_*
#       variables removed and srun's / MPICH's (SLURM_*, PMI_*) set to nonsense instead, as under
#       srun, MPICH, Intel MPI or Cray launchers: MPI's communicator decides, so every rank still
#       builds only its slice (summary.json: "per slice"), runs.csv is byte-identical to one
#       process, and no rank prints a refusal or warning
#   launchers.sh singleton GPBANDIT — no mpirun, but srun's / Hydra's variables say 4 processes:
#       an MPI library that started as a singleton under a launcher it cannot talk to; exit 2 with
#       one message naming the variables (printed by launcher rank 0 only)
#   launchers.sh whole GPBANDIT MPIRUN OUTDIR — a config whose domain stays whole (PO-GP-UCB):
#       one warning saying so, from rank 0 only
#   launchers.sh npy GPBANDIT MPIRUN OUTDIR — a .npy domain (C order at np 2, Fortran order at
#       np 3): every rank reads only its rows; runs.csv byte-identical to one process and to the
#       same points as a CSV domain; a NaN in one rank's rows: exit 2, one message naming the row
#   launchers.sh hang-auto GPBANDIT MPIRUN OUTDIR — rank 2 of 3 hangs at its 40th collective with
#       the default (adaptive) --mpi-timeout: the job ends within 120 s (60 s floor, 15 s grace),
#       not after 10 minutes, with one message naming rank 2 and the adaptive timeout
set -u
mode=$1 cli=$2 mpirun=${3:-} out=${4:-}
here="$(dirname "$0")"
source "$here/shard_fault_lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -n "$out" ] && rm -rf "$out" && mkdir -p "$out"
run=(run --quiet --no-plot --threads 1)

# one_process CONFIG NAME: the one-process run of CONFIG into $out/NAME-np1.
one_process() {
  "$cli" "${run[@]}" "$1" --out "$out/$2-np1" >/dev/null || { echo "one-process run of $1 failed"; exit 1; }
}
case $mode in
  foreign)
    cfg="$here/finite_mpi_slices.json"
    one_process "$cfg" slices
    timeout 400 "$mpirun" -np 3 --oversubscribe --mca mpi_yield_when_idle 1 \
      -x SLURM_PROCID=7 -x SLURM_STEP_NUM_TASKS=9 -x PMI_RANK=5 -x PMI_SIZE=8 \
      env -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u OMPI_COMM_WORLD_LOCAL_RANK \
      -u OMPI_COMM_WORLD_LOCAL_SIZE -u OMPI_COMM_WORLD_NODE_RANK \
      "$cli" "${run[@]}" "$cfg" --mpi --mpi-timeout 300 --out "$out/slices-np3" >"$out/foreign.log" 2>&1 ||
      { cat "$out/foreign.log"; echo "mpirun without Open MPI's rank variables failed"; exit 1; }
    cat "$out/foreign.log"
    ! grep -q "error\|warning" "$out/foreign.log" || { echo "a rank printed a refusal or warning"; exit 1; }
    cmp "$out/slices-np1/runs.csv" "$out/slices-np3/runs.csv" || { echo "runs.csv differs"; exit 1; }
    python3 - "$out/slices-np3/summary.json" <<'PY' || exit 1
import json, sys
m = json.load(open(sys.argv[1]))["mpi"]
assert m["ranks"] == 3 and "(per slice" in m["sharded"], m
print("3 ranks without OMPI_COMM_WORLD_*: sliced (%s), runs.csv identical" % m["slice_sizes"])
PY
    ;;
  singleton)
    cfg="$here/finite_mpi_slices.json" d=$(mktemp -d)
    for vars in "SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=4" "PMI_RANK=0 PMI_SIZE=4"; do
      env $vars "$cli" "${run[@]}" "$cfg" --mpi --out "$d/o" >"$d/log" 2>&1
      expect_exit2_once "$d/log" $? "$vars" \
        "MPI started this process as a job of 1 rank, but the launcher started 4 processes" "$d/o"
    done
    env SLURM_PROCID=3 SLURM_STEP_NUM_TASKS=4 "$cli" "${run[@]}" "$cfg" --mpi --out "$d/o" >"$d/log" 2>&1
    rc=$?
    [ $rc -eq 2 ] && [ ! -s "$d/log" ] || { cat "$d/log"; echo "launcher rank 3: expected a silent exit 2, got $rc"; exit 1; }
    rm -rf "$d"
    echo "a singleton under a foreign launcher: exit 2, one message";;
  whole)
    timeout 400 "$mpirun" -np 2 --oversubscribe "$cli" "${run[@]}" "$here/finite_mpi.json" --mpi \
      --mpi-timeout 300 --out "$out/whole" >"$out/whole.log" 2>&1 ||
      { cat "$out/whole.log"; echo "mpirun failed"; exit 1; }
    cat "$out/whole.log"
    n=$(grep -c "warning: each of the 2 MPI ranks holds the whole domain .*: policy po_gp_ucb projects every candidate" "$out/whole.log")
    [ "$n" -eq 1 ] || { echo "expected one warning, got $n"; exit 1; };;
  npy)
    python3 - "$here" "$out" <<'PY' || exit 1
import json, sys
import numpy as np
here, out = sys.argv[1:]
pts = np.loadtxt(here + "/finite_mpi_points.csv", delimiter=",", skiprows=1)
np.save(out + "/points_c.npy", np.ascontiguousarray(pts))
np.save(out + "/points_f.npy", np.asfortranarray(pts))
bad = pts.copy(); bad[300, 1] = np.nan
np.save(out + "/points_nan.npy", bad)
c = json.load(open(here + "/finite_mpi_slices_csv.json"))
for name in ("c", "f", "nan"):
    c["domain"] = {"type": "npy", "path": "points_%s.npy" % name}
    json.dump(c, open(out + "/npy_%s.json" % name, "w"))
c["domain"] = {"type": "csv", "path": here + "/finite_mpi_points.csv"}
json.dump(c, open(out + "/csv.json", "w"))
PY
    one_process "$out/csv.json" csv
    one_process "$out/npy_c.json" npy
    cmp "$out/csv-np1/runs.csv" "$out/npy-np1/runs.csv" || { echo "npy and csv domains differ"; exit 1; }
    for np in 2 3; do
      order=c; [ $np -eq 3 ] && order=f
      timeout 400 "$mpirun" -np $np --oversubscribe --mca mpi_yield_when_idle 1 "$cli" "${run[@]}" \
        "$out/npy_$order.json" --mpi --mpi-timeout 300 --out "$out/npy-np$np" >"$out/npy$np.log" 2>&1 ||
        { cat "$out/npy$np.log"; echo "mpirun -np $np of the $order-order .npy domain failed"; exit 1; }
      cmp "$out/npy-np1/runs.csv" "$out/npy-np$np/runs.csv" || { echo "np $np: runs.csv differs"; exit 1; }
      python3 - "$out/npy-np$np/summary.json" $np <<'PY' || exit 1
import json, sys
m = json.load(open(sys.argv[1]))["mpi"]
assert m["ranks"] == int(sys.argv[2]) and "each rank read its rows of the .npy file" in m["sharded"], m
print("np %s: %s" % (sys.argv[2], m["sharded"]))
PY
    done
    timeout 100 "$mpirun" -np 3 --oversubscribe "$cli" "${run[@]}" "$out/npy_nan.json" --mpi \
      --out "$out/nan" >"$out/nan.log" 2>&1
    expect_exit2_once "$out/nan.log" $? "NaN row" "points_nan.npy: row 300, column 1 is not finite" \
      "$out/nan"
    echo ".npy domains read per slice: runs.csv identical at np 1, 2 (C order), 3 (Fortran order)";;
  hang-auto)
    read -r -a extra <<<"$(fault_extra hang)"
    start=$(date +%s)
    GPB_SHARD_FAULT_RANK=2 GPB_SHARD_FAULT_STEP=40 GPB_SHARD_FAULT_MODE=hang \
      timeout 200 "$mpirun" -np 3 --oversubscribe "${extra[@]}" \
      -x GPB_SHARD_FAULT_RANK -x GPB_SHARD_FAULT_STEP -x GPB_SHARD_FAULT_MODE \
      "$cli" "${run[@]}" "$here/finite_mpi.json" --mpi --out "$out/fault" >"$out/fault.log" 2>&1
    rc=$? took=$(( $(date +%s) - start ))
    cat "$out/fault.log"
    [ $rc -ne 0 ] && [ $rc -ne 124 ] || { echo "rc $rc"; exit 1; }
    n=$(grep -c "rank 2 stopped responding.*the adaptive timeout" "$out/fault.log")
    [ "$n" -eq 1 ] || { echo "expected one message naming rank 2 and the adaptive timeout, got $n"; exit 1; }
    [ "$took" -le 120 ] || { echo "took ${took}s (bound 120 s)"; exit 1; }
    echo "a hang with the default --mpi-timeout ended after ${took}s";;
  *) echo "unknown mode $mode"; exit 2;;
esac
