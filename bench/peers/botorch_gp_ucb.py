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

--compare-gpbandit BUILD: also plays the same rounds with gpbandit's FinitePosterior (the Python
module of that build, on the same device kind) — the same candidates, training data, kernel, noise
and β (width √β), the same reward 0.5 for each choice — and adds to each line the candidates both
chose (`same_choices`: rounds in which the two chose the same candidate, before they first
differ; `rounds_played` = rounds + 1, the warm-up round included). Same model, so both should
choose alike; a near-tie decided differently in the last bits ends the comparison there.

Usage: botorch_gp_ucb.py [--n 100000 1000000] [--t 100 1000] [--rounds 5] [--beta 4.0]
                         [--budget-s 120] [--compare-gpbandit BUILD] [--device cuda|cpu]
Requires: torch (CUDA, unless --device cpu), gpytorch, botorch. Run by bench/run_gpu_checks.sh.
"""
import argparse
import json
import math
import os
import statistics
import sys
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


LENGTHSCALE, NOISE, REWARD = 0.2, 1e-2, 0.5


def problem(n, t, device):
    """The candidates, the training indices and rewards of one cell (seed 1)."""
    gen = torch.Generator(device="cpu").manual_seed(1)
    X = torch.rand(n, 2, generator=gen, dtype=torch.float64).to(device)
    idx = torch.randint(0, n, (t,), generator=gen)
    train_y = torch.rand(t, 1, generator=gen, dtype=torch.float64) * 2 - 1
    return X, idx, train_y


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def run(n, t, rounds, beta, device):
    """Median ms per BoTorch round, and the candidate index chosen in each round."""
    X, idx, train_y = problem(n, t, device)
    model = make_model(X[idx.to(device)], train_y.to(device), LENGTHSCALE, NOISE)
    times, cands = [], []
    with torch.no_grad():
        model.posterior(X[:1])  # builds the prediction caches
        for r in range(rounds + 1):
            sync(device)
            start = time.perf_counter()
            acq = UpperConfidenceBound(model, beta=beta)
            cand, _ = optimize_acqf_discrete(acq, q=1, choices=X, max_batch_size=2**16)
            y = torch.full((1, 1), REWARD, dtype=torch.float64, device=device)
            model = model.condition_on_observations(cand, y)
            sync(device)
            if r > 0:  # the first round includes lazy set-up
                times.append((time.perf_counter() - start) * 1e3)
            cands.append(cand)
        chosen = [int(torch.nonzero((X == c).all(dim=1))[0, 0]) for c in cands]
    return statistics.median(times), chosen


def gpbandit_choices(gb, n, t, rounds, beta, device):
    """The same rounds with gpbandit's FinitePosterior: the candidate chosen in each round."""
    X, idx, train_y = problem(n, t, torch.device("cpu"))
    ctx = gb.Context("cuda" if device.type == "cuda" else "cpu")
    post = gb.FinitePosterior(ctx, gb.Kernel.se(LENGTHSCALE), gb.Domain.from_rows(X.numpy()), 1,
                              noise_variance=NOISE, capacity=t + rounds + 1)
    post.observe_batch(idx.numpy().astype("int64"), train_y[:, 0].numpy())
    chosen = []
    for _ in range(rounds + 1):
        index, _score = post.ucb_argmax([math.sqrt(beta)])
        chosen.append(int(index[0]))
        post.observe(index, REWARD)
    return chosen


def agreeing_prefix(a, b):
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return k


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[100000, 1000000])
    ap.add_argument("--t", type=int, nargs="+", default=[100])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--beta", type=float, default=4.0)
    ap.add_argument("--budget-s", type=float, default=float("inf"))
    ap.add_argument("--compare-gpbandit", metavar="BUILD", default=None,
                    help="also play the rounds with gpbandit (BUILD/python) and count equal choices")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    args = ap.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("botorch_gp_ucb.py: no CUDA device visible to torch")
    device = torch.device(args.device)
    gb = None
    if args.compare_gpbandit is not None:
        sys.path.insert(0, os.path.join(args.compare_gpbandit, "python"))
        import gpbandit as gb  # noqa: E402 (the build's module, found only now)
    start = time.perf_counter()
    for t in args.t:
        for n in args.n:
            if time.perf_counter() - start > args.budget_s:
                print(json.dumps({"peer": "botorch", "n": n, "t": t, "skipped": "time budget"}),
                      flush=True)
                continue
            ms, chosen = run(n, t, args.rounds, args.beta, device)
            line = {"peer": "botorch", "n": n, "t": t, "ms_per_round": round(ms, 3),
                    "rounds": args.rounds,
                    "device": torch.cuda.get_device_name(0) if device.type == "cuda" else "cpu"}
            if gb is not None:
                ours = gpbandit_choices(gb, n, t, args.rounds, args.beta, device)
                line.update(rounds_played=len(chosen), same_choices=agreeing_prefix(chosen, ours),
                            botorch_choices=chosen, gpbandit_choices=ours)
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
