#!/usr/bin/env python3
"""How often the output warp is on, per function of bench/peers/bo_suite.py: gpbandit.minimize
with fit.warp (Box-Cox of the bad tail, exponent by maximum likelihood of the values) and with
fit.warp and fit.warp_select (the warp kept at a fit only where the warped model's marginal
likelihood with the Jacobian beats the plain model's). After every call from the first fit on it
reads the warp in use from the optimizer's state (lambda < 1: on) and prints, per function and
setting, the share of those calls with the warp on (over all seeds) and the median lambda.

Usage: PYTHONPATH=build-cpu/python python3 bench/peers/warp_choice.py [--seeds 3]
       [--problems KEY ...]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bo_problems as bp  # noqa: E402

# The fifth round's settings: the warp's knee at the median (fit.warp_knee 0.5), its knee then.
SETTINGS = {"fit.warp": {"warp": True, "warp_knee": 0.5},
            "fit.warp + warp_select": {"warp": True, "warp_select": True, "warp_knee": 0.5}}


def lambdas(problem, seed, fit):
    """The warp's exponent after each call from the fifth on (the first fit) of one run."""
    import gpbandit as gb

    out = []
    rng = np.random.default_rng(10_000 + seed)  # the noise of bo_problems.run

    def f(x):
        return problem.true_value(x) + (problem.noise * rng.normal() if problem.noise > 0 else 0)

    def record(res):
        if len(res.func_vals) >= 5:
            out.append(res.optimizer.state_dict()["model"]["warp"]["lambda"])

    gb.minimize(f, problem.bounds, n_calls=problem.calls, random_state=seed,
                threads=1, fit=fit, callback=record)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--problems", nargs="*")
    args = ap.parse_args()
    problems = [bp.BY_KEY[k] for k in args.problems] if args.problems else bp.PROBLEMS
    print(f"Share of calls (from the first fit on, seeds 0..{args.seeds - 1}) with the warp on, "
          "and the median Box-Cox exponent (1: no warp).\n")
    print("| function | " + " | ".join(SETTINGS) + " |")
    print("|---|" + "---|" * len(SETTINGS))
    for p in problems:
        cells = []
        for fit in SETTINGS.values():
            lam = np.concatenate([lambdas(p, s, fit) for s in range(args.seeds)])
            cells.append(f"{np.mean(lam < 1):.2f} (median λ {np.median(lam):.2f})")
        print(f"| {p.label} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
