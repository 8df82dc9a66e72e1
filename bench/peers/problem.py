"""The shared GP-UCB problem every peer of bench/peers/compare.py runs (see gp_ucb_trace.cpp for
the file format). One problem = N random candidates in [0,1]^d, an objective f drawn from the RKHS
of the SE kernel (a sum of 20 kernel bumps with random weights), Gaussian noise draws, and t0
warm-start observations at random candidates, all from one seed; every peer reads the same files,
so the same model and the same β must choose the same candidates.

Also the helpers the Python peers share: load(), the SE kernel, and report().
"""
import json
import os
import resource
import time

import numpy as np


def write(path, n, d, horizon, t0, seed=1, lengthscale=0.2, noise_var=1e-2, beta=4.0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    centres = rng.random((20, d))
    weights = rng.uniform(-1.0, 1.0, 20)
    f = np.zeros(n)
    for c, w in zip(centres, weights):
        f += w * np.exp(-0.5 * np.sum((X - c) ** 2, axis=1) / lengthscale**2)
    eps = rng.normal(0.0, np.sqrt(noise_var), t0 + horizon)
    warm = rng.integers(0, n, t0).astype(np.int64)
    os.makedirs(path, exist_ok=True)
    X.astype("<f8").tofile(os.path.join(path, "X.f64"))
    f.astype("<f8").tofile(os.path.join(path, "f.f64"))
    eps.astype("<f8").tofile(os.path.join(path, "eps.f64"))
    warm.astype("<i8").tofile(os.path.join(path, "warm.i64"))
    meta = {"N": n, "d": d, "T": horizon, "t0": t0, "lengthscale": lengthscale,
            "noise_var": noise_var, "beta": beta, "seed": seed}
    with open(os.path.join(path, "meta.json"), "w") as fh:
        json.dump(meta, fh)
    return meta


class Problem:
    def __init__(self, path):
        with open(os.path.join(path, "meta.json")) as fh:
            self.meta = json.load(fh)
        m = self.meta
        self.n, self.d, self.T, self.t0 = m["N"], m["d"], m["T"], m["t0"]
        self.lengthscale, self.noise_var, self.beta = m["lengthscale"], m["noise_var"], m["beta"]
        self.X = np.fromfile(os.path.join(path, "X.f64"), "<f8").reshape(self.n, self.d)
        self.f = np.fromfile(os.path.join(path, "f.f64"), "<f8")
        self.eps = np.fromfile(os.path.join(path, "eps.f64"), "<f8")
        self.warm = np.fromfile(os.path.join(path, "warm.i64"), "<i8")

    def reward(self, a, i):
        """Reward of the i-th observation (warm start first, then the rounds) at candidate a."""
        return float(self.f[a] + self.eps[i])


def se(A, B, lengthscale):
    """SE kernel matrix, variance 1."""
    sq = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T
    return np.exp(-0.5 * np.maximum(sq, 0.0) / lengthscale**2)


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_rounds(prob, step, impl):
    """Drives the timed rounds: step(r) returns the chosen candidate (and observes it). T rounds,
    or fewer when the environment variable GPB_PEER_ROUNDS says so (compare.py gives the slow
    peers fewer rounds: their cost per round does not change from round to round)."""
    chosen, ms = [], []
    rounds = min(prob.T, int(os.environ.get("GPB_PEER_ROUNDS", prob.T)))
    for r in range(rounds):
        start = time.perf_counter()
        a = step(r)
        ms.append((time.perf_counter() - start) * 1e3)
        chosen.append(int(a))
    print(json.dumps({"impl": impl, "chosen": chosen, "ms": ms, "peak_rss_mb": peak_rss_mb()}),
          flush=True)
