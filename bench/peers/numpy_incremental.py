#!/usr/bin/env python3
"""The same incremental GP-UCB round as gpbandit's FinitePosterior, in numpy (the peer a user
would write by hand): V holds t rows of L^-1 K(X_t, D); one round appends a row for the chosen
candidate, updates mu and sigma^2 and takes the UCB argmax.

Prints one JSON line per (N, t, d): ms per round (median over --rounds), ns per candidate*row.
Setup fills V with random rows (the round's cost does not depend on their values), exactly as
bench/bench_posterior.cpp does, so both time the same work.

Usage: numpy_incremental.py [--n 100000] [--t 100 1000] [--d 2] [--rounds 10]
"""
import argparse
import json
import time

import numpy as np


def se_kernel_row(X, a, lengthscale):
    diff = X - X[a]
    return np.exp(-0.5 * np.einsum("ij,ij->i", diff, diff) / lengthscale**2)


def observe_row(V, t, mu, var, k_a, a, y, lam):
    """Appends row t of V for an observation y at candidate a (k_a = k(x_a, D)) and updates mu
    and var in place: the incremental update (also used by numpy_gp_ucb.py)."""
    c = V[:t, a].copy()
    d = lam + var[a]
    w = (k_a - c @ V[:t]) / np.sqrt(d)
    alpha = (y - mu[a]) / np.sqrt(d)
    mu += alpha * w
    np.maximum(var - w * w, 0.0, out=var)
    V[t] = w


def one_round(X, V, t, mu, var, a, y, lam, width, lengthscale):
    observe_row(V, t, mu, var, se_kernel_row(X, a, lengthscale), a, y, lam)
    score = mu + width * np.sqrt(var)
    return int(np.argmax(score))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[100000])
    ap.add_argument("--t", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--d", type=int, nargs="+", default=[2])
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    for n in args.n:
        for d in args.d:
            X = rng.random((n, d))
            for t in args.t:
                V = rng.standard_normal((t + args.rounds + 1, n)) * 1e-3
                mu = np.zeros(n)
                var = np.ones(n)
                times = []
                a = 0
                for r in range(args.rounds):
                    start = time.perf_counter()
                    a = one_round(X, V, t + r, mu, var, a, 0.5, 1e-2, 2.0, 0.2)
                    times.append(time.perf_counter() - start)
                ms = 1e3 * float(np.median(times))
                print(json.dumps({"impl": "numpy", "N": n, "t": t, "d": d, "ms_per_round": ms,
                                  "ns_per_candidate_row": 1e6 * ms / (n * t)}), flush=True)


if __name__ == "__main__":
    main()
