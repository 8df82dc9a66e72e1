#!/usr/bin/env python3
"""Exact acquisition over every feasible candidate of a constrained product of ~10⁸ or more
combinations, on the CPU, without materialising it ([spaces] item 5, CPU part).

The space: 6 categorical slots sharing `--labels` labels, each label described by 3 numbers
(seeded random descriptors, standardised per column), a concentration (6 values), a temperature
(5 integers) and an equivalents count (2 integers); constraints: no label twice across the slots
(DistinctLabels), 100·conc + temp ≤ 150 (LinearInequality) and one forbidden pair (Exclude). The
ParameterSpace counts and indexes it once (prefix sums per outer block).

One ask: t observations at seeded random feasible combinations of a seeded synthetic function,
a Matérn-5/2 ARD GP (lengthscale 1 per feature, noise 10⁻⁴), then μ + β·σ over every feasible
combination in blocks of `--block`: encode the block from its indices (encode_range), K(X_t, block)
by the engine's kernel op (gpbandit.kernel_matrix), V = L⁻¹K (one triangular solve), μ = αᵀV,
σ² = k(x, x) − ‖v‖²: the same arithmetic as the FinitePosterior's recompute mode, block by block.
Memory plan: the index (index_bytes) + one block's encodings (block·d·8 B) + K and V
(2·t·block·8 B); never the N×d array.

Usage: python3 bench/space_scale.py --build build-cpu [--labels 14] [--t 20] [--block 1048576]
           [--out bench/space_scale.json]
Prints one JSON object and writes it to --out.
"""
import argparse
import json
import os
import platform
import sys
import time

import numpy as np


def build_space(gp, labels):
    rng = np.random.default_rng(7)
    names = [f"L{i}" for i in range(labels)]
    slots = []
    for s in range(6):
        table = {n: list(rng.normal(size=3)) for n in names}
        slots.append(gp.Categorical(f"slot{s}", names, encoding=table))
    params = [gp.NumericalDiscrete("conc", [0.05, 0.1, 0.2, 0.4, 0.8, 1.6]),
              gp.Integer("temp", 20, 100, 20), gp.Integer("eq", 1, 2)] + slots
    cons = [gp.DistinctLabels([f"slot{s}" for s in range(6)]),
            gp.LinearInequality(["conc", "temp"], [100, 1], 150),
            gp.Exclude({"slot0": ["L0"], "slot1": ["L1", "L2"]})]
    return gp.ParameterSpace(params, cons)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="build folder (its python/ is imported)")
    ap.add_argument("--labels", type=int, default=14)
    ap.add_argument("--t", type=int, default=20)
    ap.add_argument("--block", type=int, default=1 << 20)
    ap.add_argument("--beta", type=float, default=2.0)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "space_scale.json"))
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    from scipy.linalg import solve_triangular  # here: build_space alone needs no SciPy

    import gpbandit
    from gpbandit import params as gp

    t0 = time.perf_counter()
    space = build_space(gp, args.labels)
    t_index = time.perf_counter() - t0
    n, d = len(space), space.n_features
    rng = np.random.default_rng(11)
    w = rng.normal(size=d)

    def f(x):
        return np.tanh(x @ w / np.sqrt(d)) + 0.1 * np.sin(3 * x).sum(axis=-1)

    obs = np.sort(rng.choice(n, size=args.t, replace=False))
    X = np.stack([space.encode(int(k)) for k in obs])
    y = f(X)
    ctx = gpbandit.Context("cpu")
    kern = gpbandit.Kernel.matern(nu=2.5, lengthscale=[1.0] * d, variance=1.0)
    noise = 1e-4
    L = np.linalg.cholesky(gpbandit.kernel_matrix(ctx, kern, np.asfortranarray(X.T),
                                                  np.asfortranarray(X.T)) + noise * np.eye(args.t))
    alpha = solve_triangular(L, y, lower=True)
    times = {"encode": 0.0, "kernel": 0.0, "solve": 0.0, "score": 0.0}
    best = (-np.inf, -1)
    t_ask = time.perf_counter()
    for b in range(0, n, args.block):
        e = min(n, b + args.block)
        s = time.perf_counter()
        A = space.encode_range(b, e)  # (e − b) × d
        times["encode"] += time.perf_counter() - s
        s = time.perf_counter()
        K = gpbandit.kernel_matrix(ctx, kern, np.asfortranarray(X.T), A.T)  # t × (e − b)
        times["kernel"] += time.perf_counter() - s
        s = time.perf_counter()
        V = solve_triangular(L, K, lower=True, overwrite_b=True, check_finite=False)
        times["solve"] += time.perf_counter() - s
        s = time.perf_counter()
        mu = alpha @ V
        var = np.maximum(kern.variance - np.einsum("ij,ij->j", V, V), 0.0)
        ucb = mu + args.beta * np.sqrt(var)
        j = int(np.argmax(ucb))
        if ucb[j] > best[0]:
            best = (float(ucb[j]), b + j)
        times["score"] += time.perf_counter() - s
    t_ask = time.perf_counter() - t_ask
    out = {
        "command": "python3 bench/space_scale.py " + " ".join(sys.argv[1:]),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs ({platform.processor() or '?'})",
        "raw_combinations": space.raw_size, "feasible": n, "features": d, "t": args.t,
        "block": args.block, "index_seconds": round(t_index, 2),
        "index_bytes": int(space.core.index_bytes),
        "ask_seconds": round(t_ask, 2), "ask_breakdown_seconds": {k: round(v, 2) for k, v in
                                                                  times.items()},
        "memory_plan_bytes": {"index": int(space.core.index_bytes),
                              "block_encodings": args.block * d * 8,
                              "K_and_V": 2 * args.t * args.block * 8},
        "full_encoding_bytes_avoided": n * d * 8,
        "best_ucb": best[0], "best_index": best[1], "best_point": space[best[1]],
    }
    text = json.dumps(out, indent=2)
    print(text)
    with open(args.out, "w") as fh:
        fh.write(text + "\n")


if __name__ == "__main__":
    main()
