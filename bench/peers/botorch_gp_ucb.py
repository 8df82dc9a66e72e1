#!/usr/bin/env python3
"""The GP-UCB experiment of bench/bench_cuda_posterior.cpp (BM_CudaGpUcbRound) in BoTorch/GPyTorch:
an exact GP (SingleTaskGP with fixed SE kernel hyperparameters, no refitting) over N random
candidates in [0,1]^2, UCB maximised over the finite set with optimize_acqf_discrete, one
observation per round, on the same GPU. Prints one JSON line per N: ms per round (median).

Each round conditions the model on the new observation (condition_on_observations, the cheapest
exact update BoTorch offers) and scores all N candidates; BoTorch forms the posterior variance from
the t×N cross-covariance each round, O(N·t²) unless its caches apply, against gpbandit's O(N·t).

Not run yet: written on a machine without a GPU; run it where bench_cuda_posterior runs.

Usage: botorch_gp_ucb.py [--n 10000 100000 1000000] [--t 100] [--rounds 20] [--beta 4.0]
Requires: torch (CUDA), gpytorch, botorch.
"""
import argparse
import json
import statistics
import time

import torch
from botorch.acquisition import UpperConfidenceBound
from botorch.models import SingleTaskGP
from botorch.optim import optimize_acqf_discrete
from gpytorch.kernels import RBFKernel, ScaleKernel
from gpytorch.likelihoods import GaussianLikelihood


def make_model(train_x, train_y, lengthscale, noise):
    kernel = ScaleKernel(RBFKernel())
    kernel.base_kernel.lengthscale = lengthscale
    kernel.outputscale = 1.0
    likelihood = GaussianLikelihood()
    likelihood.noise = noise
    model = SingleTaskGP(train_x, train_y, covar_module=kernel, likelihood=likelihood,
                         outcome_transform=None, input_transform=None)
    model.eval()
    return model


def run(n, t, rounds, beta, device, lengthscale=0.2, noise=1e-2):
    gen = torch.Generator(device="cpu").manual_seed(1)
    X = torch.rand(n, 2, generator=gen, dtype=torch.float64).to(device)
    idx = torch.randint(0, n, (t,), generator=gen)
    train_x = X[idx.to(device)]
    train_y = (torch.rand(t, 1, generator=gen, dtype=torch.float64) * 2 - 1).to(device)
    model = make_model(train_x, train_y, lengthscale, noise)
    times = []
    with torch.no_grad():
        model.posterior(X[:1])  # builds the prediction caches
        for r in range(rounds + 1):
            torch.cuda.synchronize()
            start = time.perf_counter()
            acq = UpperConfidenceBound(model, beta=beta)
            cand, _ = optimize_acqf_discrete(acq, q=1, choices=X, max_batch_size=2**16)
            y = torch.full((1, 1), 0.5, dtype=torch.float64, device=device)
            model = model.condition_on_observations(cand, y)
            torch.cuda.synchronize()
            if r > 0:  # the first round includes lazy set-up
                times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[10000, 100000, 1000000])
    ap.add_argument("--t", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--beta", type=float, default=4.0)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("botorch_gp_ucb.py: no CUDA device visible to torch")
    device = torch.device("cuda")
    for n in args.n:
        ms = run(n, args.t, args.rounds, args.beta, device)
        print(json.dumps({"peer": "botorch", "n": n, "t": args.t, "ms_per_round": round(ms, 3),
                          "device": torch.cuda.get_device_name(0)}))


if __name__ == "__main__":
    main()
