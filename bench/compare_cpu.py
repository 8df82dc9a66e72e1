#!/usr/bin/env python3
"""One session, one machine: gpbandit's CPU GP-UCB round (bench_posterior) beside the same
incremental algorithm in numpy (peers/numpy_incremental.py), as a Markdown table of ratios.

Usage: bench/compare_cpu.py [--build build] [--n 10000 100000] [--t 100 1000] [--d 2 8]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_gpbandit(build, n, t, d):
    exe = os.path.join(build, "bench", "bench_posterior")
    out = subprocess.run([exe, f"--benchmark_filter=^BM_GpUcbRound/{n}/{t}/{d}/",
                          "--benchmark_format=json"], check=True, capture_output=True, text=True).stdout
    bw_line, _, body = out.partition("\n")
    bench = json.loads(body)["benchmarks"][0]
    return bench["real_time"], bench["floor_ratio"], float(bw_line.split()[3])


def run_numpy(python, n, t, d):
    out = subprocess.run([python, os.path.join(HERE, "peers", "numpy_incremental.py"), "--n", str(n),
                          "--t", str(t), "--d", str(d)], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["ms_per_round"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--n", type=int, nargs="+", default=[10000, 100000])
    ap.add_argument("--t", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--d", type=int, nargs="+", default=[2, 8])
    args = ap.parse_args()
    print("| N | t | d | gpbandit ms/round | round / bandwidth floor | numpy ms/round | numpy / gpbandit |")
    print("|---|---|---|---|---|---|---|")
    for n in args.n:
        for t in args.t:
            for d in args.d:
                ms, floor_ratio, bw = run_gpbandit(args.build, n, t, d)
                np_ms = run_numpy(args.python, n, t, d)
                print(f"| {n} | {t} | {d} | {ms:.3f} | {floor_ratio:.2f} (at {bw:.1f} GB/s) | "
                      f"{np_ms:.3f} | {np_ms / ms:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
