#!/usr/bin/env python3
"""The GP-UCB experiment of bench/bench_cuda_posterior.cpp (BM_CudaRound) in BoTorch/GPyTorch:
an exact GP (SingleTaskGP with fixed SE kernel hyperparameters, no refitting) over N random
candidates in [0,1]^2 with t observations, UCB maximised over the finite set with
optimize_acqf_discrete, one observation per round, on the same GPU, in double precision. Prints
one JSON line per (N, t) as soon as it is measured: ms per round (median of --rounds rounds after
a warm-up round).

Each round conditions the model on the new observation (condition_on_observations, the cheapest
exact update BoTorch offers) and scores all N candidates; BoTorch forms the posterior variance from
the t×N cross-covariance each round, O(N·t²) unless its caches apply, against gpbandit's O(N·t).

--budget-s S: a cell is not started once S seconds have passed (the GPU kit also runs the script
under `timeout`), so a run always ends with whole lines.

Usage: botorch_gp_ucb.py [--n 100000 1000000] [--t 100 1000] [--rounds 5] [--beta 4.0]
                         [--budget-s 120]
Requires: torch (CUDA), gpytorch, botorch. Run by bench/run_gpu_checks.sh.
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
    ap.add_argument("--n", type=int, nargs="+", default=[100000, 1000000])
    ap.add_argument("--t", type=int, nargs="+", default=[100])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--beta", type=float, default=4.0)
    ap.add_argument("--budget-s", type=float, default=float("inf"))
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("botorch_gp_ucb.py: no CUDA device visible to torch")
    device = torch.device("cuda")
    start = time.perf_counter()
    for t in args.t:
        for n in args.n:
            if time.perf_counter() - start > args.budget_s:
                print(json.dumps({"peer": "botorch", "n": n, "t": t, "skipped": "time budget"}),
                      flush=True)
                continue
            ms = run(n, t, args.rounds, args.beta, device)
            print(json.dumps({"peer": "botorch", "n": n, "t": t, "ms_per_round": round(ms, 3),
                              "rounds": args.rounds, "device": torch.cuda.get_device_name(0)}),
                  flush=True)


if __name__ == "__main__":
    main()
