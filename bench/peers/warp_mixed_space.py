#!/usr/bin/env python3
"""The mixed-space check of python/tests/test_minimize.py (a log-uniform real, an integer, a
categorical and a real; 30 calls) over seeds FIRST..FIRST+SEEDS-1 (default 0..9), with and
without the output warp (fit.warp): prints the final values per seed and how many end at or above
0.3 (the test's bound: a wrong category costs 1). The test's calibration: seeds 100..199. KNEE
sets fit.warp_knee for the runs with the warp (default: the key's default).

Usage: PYTHONPATH=build-cpu/python python3 bench/peers/warp_mixed_space.py [SEEDS [FIRST [KNEE]]]
"""
import math
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python",
                                "tests"))
import gpbandit as g  # noqa: E402
from test_minimize import Categorical, Integer, Real, SkoptLikeReal  # noqa: E402


def f(x):
    lr, layers, act, width = x
    return ((math.log10(lr) + 2) ** 2 + (layers - 3) ** 2 + (0 if act == "relu" else 1)
            + (width - 0.5) ** 2)


def main():
    warnings.simplefilter("ignore")
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    knee = {"warp_knee": float(sys.argv[3])} if len(sys.argv) > 3 else {}
    dims = [Real(1e-5, 1e-1, prior="log-uniform"), Integer(1, 6),
            Categorical(["tanh", "relu", "elu"]), SkoptLikeReal(0.0, 1.0)]
    for warp in (False, True):
        fit = {"warp": warp, **(knee if warp else {})}
        fun = [g.minimize(f, dims, n_calls=30, random_state=s, fit=fit).fun
               for s in range(first, first + seeds)]
        print(f"fit.warp {warp}: final values {np.round(fun, 3).tolist()}; "
              f"{sum(v >= 0.3 for v in fun)} of seeds {first}..{first + seeds - 1} at or above 0.3")
    return 0


if __name__ == "__main__":
    sys.exit(main())
