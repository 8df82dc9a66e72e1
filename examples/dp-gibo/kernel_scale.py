#!/usr/bin/env python3
"""Why E-DP5 at d = 103 is flat: the scale of the SVR's RBF kernel exp(−γ‖u − v‖²) between
standardised Friedman #1 training points (p = 100 features, u = x ⊘ e^θ, as src/dpgibo/svr_task.cpp
builds them; 300 points drawn here with NumPy, the statistic is distributional), for 1000 draws of
θ ~ U(Θ) (the spec's box, as θ⁽⁰⁾ and random search draw it) and at the informative start of
E-DP5-svr-d103-informative.json. Prints the median of γ‖u − v‖² over pairs, the median kernel value
and the share of pairs with k > 0.01. Usage: python3 examples/dp-gibo/kernel_scale.py"""
import numpy as np

P, N = 100, 300
rng = np.random.default_rng(0)
X = rng.uniform(size=(N, P))
X = (X - X.mean(0)) / X.std(0, ddof=1)
PAIRS = np.triu_indices(N, 1)
LOWER = np.r_[np.full(P, -2.0), np.log(0.01), np.log(0.1), np.log(0.01)]  # ln ε_svr, ln C, ln γ
UPPER = np.r_[np.full(P, 2.0), 0.0, np.log(3.0), np.log(5.0)]
INFORMATIVE = np.r_[np.full(P, 2.0), np.log(0.1), 0.0, np.log(0.02)]


def stats(theta):
    u = X / np.exp(theta[:P])
    gamma = np.exp(theta[P + 2])
    sq = (u * u).sum(1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * u @ u.T, 0)[PAIRS]
    k = np.exp(-gamma * d2)
    return gamma * np.median(d2), np.median(k), (k > 0.01).mean()


def main():
    rows = np.array([stats(rng.uniform(LOWER, UPPER)) for _ in range(1000)])
    print(f"θ ~ U(Θ), 1000 draws: median γ‖u − v‖² over pairs: smallest {rows[:, 0].min():.3g}, "
          f"median {np.median(rows[:, 0]):.3g}; median kernel value: largest {rows[:, 1].max():.3g}; "
          f"share of pairs with k > 0.01: largest {rows[:, 2].max():.3g}, median {np.median(rows[:, 2]):.3g}")
    a, b, c = stats(INFORMATIVE)
    print(f"informative θ⁽⁰⁾: median γ‖u − v‖² {a:.3g}, median kernel value {b:.3g}, "
          f"share of pairs with k > 0.01: {c:.3g}")


if __name__ == "__main__":
    main()
