#!/usr/bin/env python3
"""Where gpbandit.minimize spends the last 20 of 40 calls on Branin, per fit setting (issue #30,
seventh round: why the output warp with its knee at the median costs Branin its last digits).

For seeds FIRST..FIRST+COUNT-1 it prints, per setting, the mean number of the last 20 calls
farther than 1 from all three global minima ("far"), the mean number that went to the minimum
visited most ("largest basin"), and the median fitted lengthscales and signal variance of the
final model (in the box's units).

Usage: PYTHONPATH=build/python python3 bench/peers/branin_basins.py [FIRST] [COUNT] [FIT ...]
  FIT: JSON objects passed as minimize's fit (default: '{"warp": false}'
  '{"warp": true, "warp_knee": 0.5}' '{}').
"""
import math
import sys
import warnings

import numpy as np

import gpbandit as g
from branin_acceptance import BOUNDS, branin, fit_arg

MINIMA = np.array([[-math.pi, 12.275], [math.pi, 2.275], [9.42478, 2.475]])


def main():
    warnings.simplefilter("ignore")
    first = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    fits = sys.argv[3:] or ['{"warp": false}', '{"warp": true, "warp_knee": 0.5}', "{}"]
    for text in fits:
        fit = fit_arg(text, "branin_basins")
        far, largest, scales, variances = [], [], [], []
        for seed in range(first, first + count):
            res = g.minimize(branin, BOUNDS, n_calls=40, random_state=seed, fit=fit)
            x = np.asarray(res.x_iters)[20:]
            dist = np.linalg.norm(x[:, None, :] - MINIMA[None], axis=2)
            near = dist.min(axis=1) < 1.0
            far.append(int((~near).sum()))
            largest.append(int(np.bincount(dist.argmin(axis=1)[near], minlength=3).max()))
            kernel = res.optimizer.kernel
            scales.append(np.asarray(kernel.lengthscales, dtype=float))
            variances.append(float(kernel.variance))
        ls = np.median(np.vstack(scales), axis=0)
        print(f"fit {text}: seeds {first}..{first + count - 1}: of the last 20 calls "
              f"{np.mean(far):.1f} far from the minima, {np.mean(largest):.1f} at the minimum "
              f"visited most; median lengthscales {np.round(ls, 2).tolist()}, signal variance "
              f"{np.median(variances):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
