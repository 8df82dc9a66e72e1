#!/usr/bin/env python3
"""Checks bench/gpu_results_table.py on a synthetic kit output (made up here, never written into
RESULTS.md): every cell comes from the files, ratios are computed, missing and skipped cells are
said so, --write replaces only the marked block, bad input exits 2. Run by ctest (GpuResultsTable,
label cpu)."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "gpu_results_table.py")
sys.path.insert(0, HERE)
import gpu_results_table as grt  # noqa: E402


def bench_entry(name, median, floor, t_rows):
    return {"name": name, "run_type": "iteration", "median_ms": median, "floor_ms": floor,
            "t_rows": t_rows, "real_time": median, "time_unit": "ms"}


def make_output(folder):
    with open(os.path.join(folder, "env.txt"), "w") as fh:
        fh.write("date: 2099-01-02T03:04:05Z\ncommit: abc123\nsource_digest: 0123456789abcdef\n"
                 "gpu: Test GPU, 81559 MiB, 580.1\nnvcc: Cuda compilation tools, release 13.0\n")
    rounds = [bench_entry("BM_CudaRound/1000000/100/0/iterations:20/manual_time", 4.0, 2.5, 111),
              bench_entry("BM_CudaRound/100000/1000/1/iterations:20/manual_time", 0.9, 0.6, 1011),
              {"name": "BM_CudaRound/10000000/1000/0/iterations:20/manual_time",
               "error_occurred": True, "error_message": "does not fit: V needs 81.8 GB"}]
    with open(os.path.join(folder, "bench_round.json"), "w") as fh:
        json.dump({"context": {"device": "cuda: Test GPU (device 0)", "copy_GBps": "3000.5"},
                   "benchmarks": rounds}, fh)
    batch = [bench_entry("BM_CudaBatchedRuns/10000/100/64/iterations:20/manual_time", 2.0, 1.0, 110),
             bench_entry("BM_CudaSequentialRuns/10000/100/64/iterations:20/manual_time", 30.0, 1.0,
                         110)]
    with open(os.path.join(folder, "bench_batch.json"), "w") as fh:
        json.dump({"context": {}, "benchmarks": batch}, fh)
    with open(os.path.join(folder, "botorch.jsonl"), "w") as fh:
        fh.write('{"peer": "botorch", "n": 1000000, "t": 100, "ms_per_round": 120.0, '
                 '"rounds_played": 6, "same_choices": 4}\n')
        fh.write('{"peer": "botorch", "n": 100000, "t": 1000, "skipped": "time budget"}\n')


def check(cond, what):
    if not cond:
        print("FAILED:", what)
        sys.exit(1)
    print("ok", what)


def main():
    with tempfile.TemporaryDirectory() as d:
        make_output(d)
        text = grt.table(d)
        rows = {line.split("|")[1].strip() + "/" + line.split("|")[2].strip().split(" ")[0] + "/" +
                line.split("|")[3].strip(): line for line in text.splitlines()
                if line.startswith("| 10")}
        r = rows["10⁶/100/double"]
        check("| 4 |" in r and "| 2.5 |" in r and "| 1.60 |" in r, "round cell, floor and ratio")
        check("| 120 |" in r and "30×" in r, "BoTorch cell and BoTorch ÷ gpbandit")
        check("(111)" in r, "mean rows shown")
        check(r.rstrip().endswith("| 4 of 6 |"), "same choices of the rounds played")
        check(rows["10⁶/100/float"].rstrip().endswith("| — |"), "no comparison: a dash")
        check("does not fit: V needs 81.8 GB" in rows["10⁷/1000/double"], "skipped cell says why")
        check("not run" in rows["10⁵/100/double"], "absent cell says not run")
        check("| 64 | 10⁴ | 100 | 2 | 30 | 15.0× |" in text, "batched vs sequential")
        check("abc123" in text and "0123456789abcdef" in text and "3000 GB/s" in text,
              "commit, source digest and copy rate")
        md = os.path.join(d, "RESULTS.md")
        with open(md, "w") as fh:
            fh.write("before\n" + grt.BEGIN + "\nold\n" + grt.END + "\nafter\n")
        rc = subprocess.run([sys.executable, SCRIPT, "--dir", d, "--write", md]).returncode
        doc = open(md).read()
        check(rc == 0 and doc.startswith("before\n") and doc.endswith(grt.END + "\nafter\n")
              and "old" not in doc and "| 64 | 10⁴ |" in doc, "--write replaces the block only")
        with open(md, "w") as fh:
            fh.write("no markers\n")
        rc = subprocess.run([sys.executable, SCRIPT, "--dir", d, "--write", md],
                            capture_output=True, text=True)
        check(rc.returncode == 2 and "markers" in rc.stderr, "missing markers: exit 2")
        os.remove(os.path.join(d, "env.txt"))
        rc = subprocess.run([sys.executable, SCRIPT, "--dir", d], capture_output=True, text=True)
        check(rc.returncode == 2 and "env.txt" in rc.stderr, "missing env.txt: exit 2")


if __name__ == "__main__":
    main()
