#!/usr/bin/env python3
"""Calibration of python/tests/test_minimize.py's Branin acceptance check (issue #30): runs
gpbandit.minimize with its defaults on Branin for 40 calls over a range of seeds (other than the
test's 0..9) and prints how many reach simple regret < 1e-3, the per-seed success rate, and the
chance that a fresh set of 10 seeds has fewer than 9 successes (the test's false-failure rate).

Usage: PYTHONPATH=build/python python3 bench/peers/branin_acceptance.py [FIRST_SEED] [COUNT] [FIT]
  FIT: a JSON object passed as minimize's fit (e.g. '{"lengthscale_prior_select": true}'), to
  calibrate an opt-in key; the defaults without it.
"""
import json
import math
import sys

import gpbandit as g

BRANIN_MIN = 0.397887357729738
BOUNDS = [(-5.0, 10.0), (0.0, 15.0)]


def branin(x):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x[1] - b * x[0] ** 2 + c * x[0] - 6) ** 2 + 10 * (1 - t) * math.cos(x[0]) + 10


def fit_arg(text, script="branin_acceptance"):
    """A FIT argument: a JSON object for minimize's fit; anything else exits 2 naming it."""
    try:
        fit = json.loads(text)
    except ValueError:
        fit = None
    if not isinstance(fit, dict):
        print(f"{script}: FIT must be a JSON object, got {text}", file=sys.stderr)
        sys.exit(2)
    return fit


def main():
    first = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    extra = {"fit": fit_arg(sys.argv[3])} if len(sys.argv) > 3 else {}
    fails = []
    for seed in range(first, first + count):
        res = g.minimize(branin, BOUNDS, n_calls=40, random_state=seed, **extra)
        if not res.fun - BRANIN_MIN < 1e-3:
            fails.append((seed, res.fun - BRANIN_MIN))
    ok = count - len(fails)
    p = ok / count
    below9 = 1 - (p ** 10 + 10 * p ** 9 * (1 - p))
    print(f"seeds {first}..{first + count - 1}: {ok}/{count} reach regret < 1e-3 in 40 calls; "
          f"P(fewer than 9 of 10) at p = {p:.2f}: {below9:.3f}")
    for seed, r in fails:
        print(f"  seed {seed}: regret {r:.3g}")


if __name__ == "__main__":
    main()
