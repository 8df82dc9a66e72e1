#!/usr/bin/env python3
"""Why Optuna's TPE ends lower than gpbandit on Styblinski-Tang-8 (bench/peers/bo_suite.py): the
final regret split into its two causes, seed by seed.

Styblinski-Tang is a sum of one function per coordinate, g(x) = (x⁴ − 16x² + 5x)/2, with two basins
on [-5, 5]: the global one (minimum −39.166 at x = −2.9035) and a local one (−25.033 at 2.7468).
So the regret of a point is (wrong-basin coordinates) × 14.133 plus what its coordinates miss of
their own basin's minimum. For the recommended point of each run this prints both parts: a method
that learns the separable structure (TPE's per-coordinate Parzen densities) should have fewer
wrong basins; one that converges locally (a GP with a trust region), less within-basin regret.
Also printed: the share of a run's evaluations with a coordinate within 0.05 of the box's faces
(|x| > 4.95, where g ≥ 99: wasted calls), and the median distance of the coordinates of its
second half of evaluations from their basin's minimum.

Usage (single-threaded, gpbandit from a build's Python module, the peers from their venv):
  PYTHONPATH=build/python python3 bench/peers/st8_basins.py [--seeds 10]
      [--optimizers gpbandit optuna-tpe] [--options '{"refine": {"coordinate_points": 512}}']
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bo_problems as bp  # noqa: E402

GLOBAL_X, LOCAL_X = -2.9035340286202334, 2.7468027523433998
G = lambda x: 0.5 * (x ** 4 - 16 * x ** 2 + 5 * x)  # noqa: E731
BASIN_GAP = G(LOCAL_X) - G(GLOBAL_X)


def split(x):
    """(coordinates in the local basin, regret from the basins, regret within the basins)."""
    x = np.asarray(x, dtype=float)
    wrong = x > 0.1567  # the separating maximum of g lies at x ≈ 0.1567
    basin = wrong.sum() * BASIN_GAP
    within = float((G(x) - np.where(wrong, G(LOCAL_X), G(GLOBAL_X))).sum())
    return int(wrong.sum()), float(basin), within


def run(name, seed, options):
    p = bp.BY_KEY["styblinski8"]
    xs, ys = [], []

    def f(x):
        xs.append(list(map(float, x)))
        ys.append(p.true_value(x))
        return ys[-1]

    bp.RUNNERS[name](f, p, seed, p.calls, dict(options))
    best = int(np.argmin(ys[:p.calls]))
    X = np.array(xs[:p.calls])
    face = float(np.mean(np.any(np.abs(X) > 4.95, axis=1)))
    late = X[p.calls // 2:]
    dist = float(np.median(np.minimum(np.abs(late - GLOBAL_X), np.abs(late - LOCAL_X))))
    return xs[best], ys[best] - p.optimum, face, dist


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--optimizers", nargs="*", default=["gpbandit", "optuna-tpe"])
    ap.add_argument("--options", default="{}", help="JSON keywords for gpbandit.minimize")
    args = ap.parse_args()
    print(f"regret = wrong basins × {BASIN_GAP:.3f} + within-basin regret")
    print("| optimiser | seed | final regret | wrong basins | from basins | within basins | "
          "calls at a face | late distance to the basin minimum |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.optimizers:
        opts = json.loads(args.options) if name == "gpbandit" else {}
        label = name + (" " + args.options if opts else "")
        rows = []
        for seed in range(args.seeds):
            x, regret, face, dist = run(name, seed, opts)
            wrong, basin, within = split(x)
            rows.append((regret, wrong, basin, within, face, dist))
            print(f"| {label} | {seed} | {regret:.3g} | {wrong} | {basin:.3g} | {within:.3g} | "
                  f"{face:.2f} | {dist:.2f} |", flush=True)
        m = np.median(np.array(rows), axis=0)
        print(f"| {label} | median | {m[0]:.3g} | {m[1]:.3g} | {m[2]:.3g} | {m[3]:.3g} | "
              f"{m[4]:.2f} | {m[5]:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
