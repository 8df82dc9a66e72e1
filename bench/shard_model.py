#!/usr/bin/env python3
"""Cost model of the sharded FinitePosterior, checked against bench/shard_scaling.py's measurements
and extrapolated to N = 10^9 candidates on 64 GPUs (bench/RESULTS.md).

Per rank holding n = N/K candidates, R runs, `cap` rows of V, d dimensions:
  memory  = n·(8·R·cap  [V]  + 16·R  [μ, σ²]  + 8  [k(x,x)]  + 16·d  [points: the Domain slice and
            the posterior's copy])                      (+ the replicated factor, O(R·t²), small)
  compute = n·c(t) per round (eager update: one kernel row, t row steps, σ², μ; argmax scan)
  comm    = the posterior's 2 collectives per round: MPI_Allreduce of 48·R bytes (argmax record)
            and of 8·R·(t + 1 + d) bytes (the owner's column); `gpbandit run --mpi` adds 2 more
            of 8·R·q bytes each (rank 0's rewards, and the owners' f values of a per-slice
            domain): 4 per round, as summary.json's collectives_per_round reports; each
            ≈ a·⌈log2 K⌉ + bytes / bw
  device  = kCudaBudgetFraction (75 %) of the GPU's memory holds the posterior, as the CUDA
            Context's automatic budget does (include/gpbandit/engine/context.hpp)
The check: measured posterior memory (peak RSS − RSS before the domain) against the formula, and
the slowest rank's CPU time per candidate per round against a constant (compute ∝ N/K).

  python3 bench/shard_model.py --measured bench/shard_scaling.json
      [--alpha-us 5] [--link-gbs 25] [--gpu-gbs 2800] [--gpu-mem-gb 80] [--d 2]
"""
BUDGET = 0.75  # kCudaBudgetFraction: the CUDA Context's automatic share of the device memory
import argparse
import json
import math

MIB = 1024.0 * 1024.0


def memory_bytes(n, runs, cap, d):
    return n * (8.0 * runs * cap + 16.0 * runs + 8.0 + 16.0 * d)


def check(measured, rounds, d):
    print("Check against the measurements (one run, cap = rounds):\n")
    print("| N | K | n = N/K | posterior MiB measured | model MiB | ratio |"
          " CPU ns / candidate / round |")
    print("|---|---|---|---|---|---|---|")
    per = []
    for s in measured["summary"]:
        if s["kind"] != "strong":
            continue
        n = s["n"] / s["k"]
        model = memory_bytes(n, 1, rounds, d) / MIB
        ns = 1e6 * s["cpu_ms_max"] / n
        per.append(ns)
        print(f"| {s['n']:.3e} | {s['k']} | {n:.3e} | {s['posterior_mb_max']:.1f} | {model:.1f} |"
              f" {s['posterior_mb_max'] / model:.3f} | {ns:.1f} |")
    print(f"\nCPU time per candidate per round: {min(per):.1f} to {max(per):.1f} ns over every"
          f" (N, K): compute scales as N/K within ±{50 * (max(per) - min(per)) / min(per):.0f} %.")


def extrapolate(a):
    N, K, R, d = 1e9, 64, 1, a.d
    n = N / K
    fixed = memory_bytes(n, R, 0, d)
    cap_double = int((BUDGET * a.gpu_mem_gb * 1e9 - fixed) / (8.0 * R * n))
    cap_mixed = int((BUDGET * a.gpu_mem_gb * 1e9 - fixed) / (4.0 * R * n))
    print(f"\nN = 1e9 on K = {K} GPUs (n = {n:.4g} per GPU, R = {R}, d = {d}):\n")
    print(f"- memory per GPU: {fixed / 1e9:.2f} GB fixed (μ, σ², k(x,x), points) + {8 * R * n / 1e9:.3f}"
          f" GB per row of V; {100 * BUDGET:.0f} % of {a.gpu_mem_gb:.0f} GB (the CUDA Context's"
          f" automatic budget) holds {cap_double} rows in double,"
          f" {cap_mixed} in mixed precision (V in float)")
    steps = math.ceil(math.log2(K))
    print(f"- per-round latency, assumed a = {a.alpha_us} µs per step, {a.link_gbs} GB/s links,"
          f" {a.gpu_gbs / 1000:.1f} TB/s effective HBM bandwidth:\n")
    print("| t (rows) | V read per round per GPU | compute ms (bandwidth floor) |"
          " comm µs, posterior (2 Allreduce) | comm µs, gpbandit run --mpi (4) | comm % (run) |")
    print("|---|---|---|---|---|---|")
    q = 1
    for t in (100, 250, min(500, cap_double), min(1000, cap_mixed)):
        value = 8.0 if t <= cap_double else 4.0  # mixed precision stores V in float
        read = value * R * n * t  # every earlier row of V over the slice, once
        comp_ms = 1e3 * (read + 24.0 * R * n) / (a.gpu_gbs * 1e9)
        engine = (48.0 * R, 8.0 * R * (t + 1 + d))  # argmax record, the owner's column
        run = engine + (8.0 * R * q, 8.0 * R * q)   # + rank 0's rewards, the owners' f values
        cost = [sum(a.alpha_us * steps + 1e6 * b / (a.link_gbs * 1e9) for b in msgs)
                for msgs in (engine, run)]
        pct = 100 * cost[1] / (1e3 * comp_ms + cost[1])
        prec = "" if t <= cap_double else " (mixed)"
        print(f"| {t}{prec} | {read / 1e9:.1f} GB | {comp_ms:.1f} | {cost[0]:.0f} | {cost[1]:.0f} |"
              f" {pct:.2f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measured", default="bench/shard_scaling.json")
    ap.add_argument("--alpha-us", type=float, default=5.0,
                    help="latency per Allreduce step between nodes (assumed, not measured here)")
    ap.add_argument("--link-gbs", type=float, default=25.0, help="link bandwidth (assumed)")
    ap.add_argument("--gpu-gbs", type=float, default=2800.0,
                    help="effective GPU memory bandwidth, GB/s (assumed: ~85 %% of an H100's 3.35 TB/s)")
    ap.add_argument("--gpu-mem-gb", type=float, default=80.0)
    ap.add_argument("--d", type=int, default=2)
    a = ap.parse_args()
    with open(a.measured) as f:
        measured = json.load(f)
    check(measured, measured["args"]["rounds"], a.d)
    extrapolate(a)


if __name__ == "__main__":
    main()
