#!/usr/bin/env bash
# `mpirun -np K gpbandit run CONFIG --mpi` on finite domains (run by ctest; every mpirun has an
# inner `timeout`):
#   finite_run_mpi.sh identical GPBANDIT MPIRUN OUTDIR NP — runs.csv of finite_mpi.json (random
#       ties) and finite_mpi_lowest.json (lowest ties) byte-identical to the one-process run for
#       GP-UCB, GP-BUCB, LDP-TGP-UCB, PO-GP-UCB and random; N = 437 is not a multiple of NP;
#       summary.json records the ranks, slice sizes and bytes per round; the same for
#       finite_mpi_slices.json (rkhs, random ties) and finite_mpi_slices_rff.json (random Fourier
#       features, lowest ties), whose grid and f every rank builds for its slice only (summary.json
#       says "per slice"; the first two keep them whole: PO-GP-UCB projects every candidate), and
#       finite_mpi_slices_csv.json (a CSV domain rank 0 reads and scatters; rkhs f per slice)
#   finite_run_mpi.sh refuse GPBANDIT MPIRUN OUTDIR — a Nyström policy, more ranks than
#       candidates (a grid, and a scattered CSV domain), and a CSV domain with a ragged row: exit 2,
#       one message naming the policy / the ranks / file:line, nothing written
#   finite_run_mpi.sh hang|exit GPBANDIT MPIRUN OUTDIR — rank 2 of 3 hangs / dies at its 40th
#       collective: the job ends within the --mpi-timeout (3 s) plus grace with one message
#       naming rank 2, rc ≠ 0, no runs.csv
#   finite_run_mpi.sh resume GPBANDIT MPIRUN OUTDIR — finite_mpi_slices.json (per-slice domain,
#       lockstep 1): rank 2 of 3 dies at its 400th collective (after the first groups are
#       checkpointed), then `--mpi --resume` finishes: runs.csv byte-identical to one process
set -u
mode=$1 cli=$2 mpirun=$3 out=$4 np=${5:-3}
here="$(dirname "$0")"
source "$here/shard_fault_lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$out" && mkdir -p "$out"
run=(run --quiet --no-plot --threads 1)

# expect_refusal NP CONFIG NAME PATTERN: mpirun -np NP of CONFIG exits 2 with one message
# matching PATTERN (grep) and writes nothing in $out/NAME.
expect_refusal() {
  local np=$1 cfg=$2 name=$3 pattern=$4
  timeout 60 "$mpirun" -np "$np" --oversubscribe "$cli" "${run[@]}" "$cfg" --mpi \
    --out "$out/$name" >"$out/$name.log" 2>&1
  expect_exit2_once "$out/$name.log" $? "$name" "$pattern" "$out/$name"
}
case $mode in
  identical)
    for name in finite_mpi finite_mpi_lowest finite_mpi_slices finite_mpi_slices_rff \
      finite_mpi_slices_csv; do
      cfg="$here/$name.json"
      "$cli" "${run[@]}" "$cfg" --out "$out/$name-np1" >/dev/null ||
        { echo "one-process run of $name failed"; exit 1; }
      timeout 400 "$mpirun" -np "$np" --oversubscribe --mca mpi_yield_when_idle 1 "$cli" "${run[@]}" \
        "$cfg" --mpi --mpi-timeout 300 --out "$out/$name-np$np" >"$out/$name.log" 2>&1 ||
        { cat "$out/$name.log"; echo "mpirun -np $np of $name failed"; exit 1; }
      cmp "$out/$name-np1/runs.csv" "$out/$name-np$np/runs.csv" ||
        { echo "$name: runs.csv differs between 1 process and $np ranks"; exit 1; }
      python3 - "$out/$name-np$np/summary.json" "$np" "$name" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1])); k = int(sys.argv[2]); m = s["mpi"]
if "slices" in sys.argv[3]:
    assert "points and f (per slice" in m["sharded"], m["sharded"]
    assert ("scattered" in m["sharded"]) == ("csv" in sys.argv[3]), m["sharded"]
else:
    assert "whole on every rank: policy po_gp_ucb" in m["sharded"], m["sharded"]
assert m["ranks"] == k, m
assert len(m["slice_sizes"]) == k and sum(m["slice_sizes"]) == s["N"], m
assert max(m["slice_sizes"]) - min(m["slice_sizes"]) <= 1, m
assert m["bytes_per_round"] > 0, m
for p in s["policies"]:
    assert p["mpi"]["bytes_per_round"] > 0, p["mpi"]
print("summary.json: %d ranks, slices %s, %.0f bytes per round" %
      (k, m["slice_sizes"], m["bytes_per_round"]))
PY
    done
    echo "identical runs.csv for 1 process and $np ranks (random and lowest ties)";;
  refuse)
    cfg="$out/nystrom.json"
    python3 - "$here/finite_mpi.json" "$cfg" "$out/tiny.json" "$here/finite_mpi_slices_csv.json" \
      "$out" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["policies"].append({"type": "ata_gp_ucb", "label": "ATA"})
json.dump(c, open(sys.argv[2], "w"))
c = json.load(open(sys.argv[1]))
c["domain"]["counts"] = [3, 1]
c["policies"] = c["policies"][:1]  # GP-UCB (PO-GP-UCB refuses a rank-deficient 3-point domain)
json.dump(c, open(sys.argv[3], "w"))
out = sys.argv[5]
for name, rows in (("tiny_csv", "0.1,0.2\n0.3,0.4\n0.5,0.6\n"),
                   ("ragged_csv", "0.1,0.2\n0.3,0.4\n0.5\n0.7,0.8\n")):
    open(out + "/" + name + ".csv", "w").write("x1,x2\n" + rows)
    c = json.load(open(sys.argv[4]))
    c["domain"]["path"] = name + ".csv"
    json.dump(c, open(out + "/" + name + ".json", "w"))
PY
    expect_refusal 2 "$cfg" nys "policies\[6\] ('ATA', ata_gp_ucb) cannot be sharded"
    expect_refusal 4 "$out/tiny.json" tiny "4 MPI ranks for N = 3 candidates"
    expect_refusal 4 "$out/tiny_csv.json" tiny_csv "4 MPI ranks for N = 3 candidates"
    expect_refusal 3 "$out/ragged_csv.json" ragged_csv "ragged_csv.csv:4"
    echo "refused with exit 2 and one message each";;
  hang|exit)
    read -r -a extra <<<"$(fault_extra "$mode")"
    start=$(date +%s)
    GPB_SHARD_FAULT_RANK=2 GPB_SHARD_FAULT_STEP=40 GPB_SHARD_FAULT_MODE=$mode \
      timeout 60 "$mpirun" -np 3 --oversubscribe "${extra[@]}" \
      -x GPB_SHARD_FAULT_RANK -x GPB_SHARD_FAULT_STEP -x GPB_SHARD_FAULT_MODE \
      "$cli" "${run[@]}" "$here/finite_mpi.json" --mpi --mpi-timeout 3 --out "$out/fault" \
      >"$out/fault.log" 2>&1
    expect_rank2_named "$out/fault.log" $? $(( $(date +%s) - start ))
    [ ! -e "$out/fault/runs.csv" ] || { echo "runs.csv written by a failed run"; exit 1; };;
  resume)
    cfg="$out/slices_lockstep1.json"
    python3 - "$here/finite_mpi_slices.json" "$cfg" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["lockstep"] = 1; c["runs"] = 3
json.dump(c, open(sys.argv[2], "w"))
PY
    "$cli" "${run[@]}" "$cfg" --out "$out/np1" >/dev/null || { echo "one-process run failed"; exit 1; }
    read -r -a extra <<<"$(fault_extra exit)"
    GPB_SHARD_FAULT_RANK=2 GPB_SHARD_FAULT_STEP=400 GPB_SHARD_FAULT_MODE=exit \
      timeout 60 "$mpirun" -np 3 --oversubscribe "${extra[@]}" \
      -x GPB_SHARD_FAULT_RANK -x GPB_SHARD_FAULT_STEP -x GPB_SHARD_FAULT_MODE \
      "$cli" "${run[@]}" "$cfg" --mpi --mpi-timeout 3 --out "$out/np3" >"$out/fault.log" 2>&1
    rc=$?
    [ $rc -ne 0 ] && [ $rc -ne 124 ] || { cat "$out/fault.log"; echo "fault run: rc $rc"; exit 1; }
    [ ! -e "$out/np3/runs.csv" ] || { echo "runs.csv written by a failed run"; exit 1; }
    n=$(ls "$out/np3/.checkpoint" 2>/dev/null | grep -c '^rows-')
    [ "$n" -ge 1 ] || { echo "no finished group in the checkpoint"; exit 1; }
    timeout 100 "$mpirun" -np 3 --oversubscribe "$cli" "${run[@]}" "$cfg" --mpi --mpi-timeout 60 \
      --resume --out "$out/np3" >"$out/resume.log" 2>&1 ||
      { cat "$out/resume.log"; echo "mpirun --resume failed"; exit 1; }
    cmp "$out/np1/runs.csv" "$out/np3/runs.csv" ||
      { echo "runs.csv after --resume differs from the one-process run"; exit 1; }
    echo "resumed after rank 2 died ($n groups checkpointed): runs.csv identical to one process";;
  *) echo "unknown mode $mode"; exit 2;;
esac
