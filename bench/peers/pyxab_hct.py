#!/usr/bin/env python3
"""PyXAB's HCT (Azar et al. 2014; PyPI package PyXAB) on one of gpbandit's X-armed objectives, for
bench/peers/compare_xarmed.py. The objectives are written here with gpbandit's formulas
(src/xarmed/objective.cpp), so both sides optimise the same function with the same noise law
(U(-noise, noise) per evaluation); regret is f* - f(x) per round, with gpbandit's f*.

Usage: pyxab_hct.py OBJECTIVE T --seeds S [--fstar F] [--noise 0.1] [--nu 1] [--rho 0.5]
                    [--c 0.1] [--delta 0.01] [--expand-once]
Prints one JSON line per seed: impl, objective, T, seed, ms_per_round, regret, peak_rss_mb.

--expand-once is a diagnosis, not stock PyXAB: PyXAB 0.3.0's HCT.updateAllTree expands the pulled
node whenever its count reaches the threshold τ_h, also when the node already has children (the
traversal can stop at an inner node once τ_h grows with t⁺); make_children then replaces the
children and their statistics are lost. With the flag, expand() leaves a node with children alone
(as in Azar et al.'s HCT and in gpbandit), which is what separates the two regrets.
"""
import argparse
import json
import math
import resource
import time

import numpy as np


def garland(x):
    return x[0] * (1 - x[0]) * (4 - math.sqrt(abs(math.sin(60 * x[0]))))


def double_sine(x):
    u = 2 * abs(x[0] - 0.5)
    if u == 0:
        return 0.0
    e1, e2 = -math.log2(0.3), -math.log2(0.8)
    s = (math.sin(2 * math.pi * 0.5 * math.log2(u)) + 1) / 2
    return s * (u ** e2 - u ** e1) - u ** e2


def himmelblau(x):
    a, b = x[0] ** 2 + x[1] - 11, x[0] + x[1] ** 2 - 7
    return -(a * a + b * b) / 890.0


OBJECTIVES = {"garland": (garland, [[0.0, 1.0]]), "doublesine": (double_sine, [[0.0, 1.0]]),
              "himmelblau": (himmelblau, [[-5.0, 5.0], [-5.0, 5.0]])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("objective", choices=sorted(OBJECTIVES))
    ap.add_argument("T", type=int)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--fstar", type=float, default=None)
    ap.add_argument("--noise", type=float, default=0.1)
    ap.add_argument("--nu", type=float, default=1.0)
    ap.add_argument("--rho", type=float, default=0.5)
    ap.add_argument("--c", type=float, default=0.1)
    ap.add_argument("--delta", type=float, default=0.01)
    ap.add_argument("--expand-once", action="store_true")
    args = ap.parse_args()
    from PyXAB.algos.HCT import HCT  # imported here so that --help works without PyXAB

    if args.expand_once:
        stock_expand = HCT.expand

        def expand_once(self, parent):
            if parent.get_children() is None:
                stock_expand(self, parent)

        HCT.expand = expand_once

    f, domain = OBJECTIVES[args.objective]
    fstar = args.fstar if args.fstar is not None else 0.0
    for seed in range(args.seeds):
        np.random.seed(seed)  # PyXAB draws its split axes from numpy's global generator
        rng = np.random.default_rng(1000 + seed)
        algo = HCT(nu=args.nu, rho=args.rho, c=args.c, delta=args.delta, domain=domain)
        regret = 0.0
        start = time.perf_counter()
        for t in range(1, args.T + 1):
            x = algo.pull(t)
            fx = f(x)
            algo.receive_reward(t, fx + rng.uniform(-args.noise, args.noise))
            regret += fstar - fx
        ms = (time.perf_counter() - start) * 1e3 / args.T
        print(json.dumps({"impl": "pyxab-hct" + ("-expand-once" if args.expand_once else ""),
                          "objective": args.objective, "T": args.T,
                          "seed": seed, "ms_per_round": ms, "regret": regret,
                          "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}),
              flush=True)


if __name__ == "__main__":
    main()
