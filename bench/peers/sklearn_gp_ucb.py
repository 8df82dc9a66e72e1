#!/usr/bin/env python3
"""Peer: GP-UCB with scikit-learn's GaussianProcessRegressor, the way it is used in practice:
refit on all observations and predict mean and std over the N candidates every round. The kernel
is fixed (same SE lengthscale, variance 1, noise λ as alpha; optimizer=None) so the model is the
same as gpbandit's. Runs the shared problem of bench/peers/problem.py and prints one JSON line.

Usage: sklearn_gp_ucb.py PROBLEM_DIR      (needs scikit-learn: pip install scikit-learn)
"""
import sys

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF

import problem as pb


def main():
    prob = pb.Problem(sys.argv[1])
    xs = [prob.X[a] for a in prob.warm]
    ys = [prob.reward(a, i) for i, a in enumerate(prob.warm)]
    width = np.sqrt(prob.beta)

    def step(r):
        if xs:
            gp = GaussianProcessRegressor(RBF(prob.lengthscale, "fixed"), alpha=prob.noise_var,
                                          optimizer=None, normalize_y=False)
            gp.fit(np.array(xs), np.array(ys))
            mu, sd = gp.predict(prob.X, return_std=True)
        else:
            mu, sd = np.zeros(prob.n), np.ones(prob.n)
        a = int(np.argmax(mu + width * sd))
        xs.append(prob.X[a])
        ys.append(prob.reward(a, prob.t0 + r))
        return a

    pb.run_rounds(prob, step, "sklearn")


if __name__ == "__main__":
    main()
