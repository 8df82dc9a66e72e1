#!/usr/bin/env python3
"""Peer: the incremental O(N·t) GP-UCB round in numpy — what one would write by hand after reading
how gpbandit's FinitePosterior works (V = L^-1 K(X_t, D), one new row per observation). Runs the
shared problem of bench/peers/problem.py and prints one JSON line.

Usage: numpy_gp_ucb.py PROBLEM_DIR
"""
import sys

import numpy as np

import problem as pb
from numpy_incremental import observe_row


def main():
    prob = pb.Problem(sys.argv[1])
    n, cap = prob.n, prob.t0 + prob.T
    V = np.empty((cap, n))
    mu = np.zeros(n)
    var = np.ones(n)
    width = np.sqrt(prob.beta)
    state = {"t": 0}

    def observe(a, y):
        k_a = pb.se(prob.X, prob.X[a:a + 1], prob.lengthscale)[:, 0]  # the matrix-form kernel row
        observe_row(V, state["t"], mu, var, k_a, a, y, prob.noise_var)
        state["t"] += 1

    for i, a in enumerate(prob.warm):
        observe(int(a), prob.reward(a, i))

    def step(r):
        a = int(np.argmax(mu + width * np.sqrt(var)))
        observe(a, prob.reward(a, prob.t0 + r))
        return a

    pb.run_rounds(prob, step, "numpy")


if __name__ == "__main__":
    main()
