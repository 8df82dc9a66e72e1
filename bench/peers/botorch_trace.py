#!/usr/bin/env python3
"""Peer: GP-UCB in BoTorch/GPyTorch — exact SingleTaskGP with the same fixed SE kernel
(lengthscale, outputscale 1) and fixed Gaussian noise λ, UpperConfidenceBound(beta) maximised over
the N candidates with optimize_acqf_discrete, the model updated each round with
condition_on_observations (the cheapest exact update BoTorch offers; no refitting). Runs the
shared problem of bench/peers/problem.py on the CPU (or --device cuda) and prints one JSON line.

Usage: botorch_trace.py PROBLEM_DIR [--device cpu|cuda]   (needs torch, gpytorch, botorch)
"""
import argparse

import numpy as np
import torch
from botorch.acquisition import UpperConfidenceBound
from botorch.models import SingleTaskGP
from botorch.optim import optimize_acqf_discrete
from gpytorch.kernels import RBFKernel, ScaleKernel
from gpytorch.likelihoods import GaussianLikelihood

import problem as pb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("problem")
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    prob = pb.Problem(args.problem)
    dev = torch.device(args.device)
    X = torch.tensor(prob.X, dtype=torch.float64, device=dev)
    if prob.t0 < 1:
        raise SystemExit("botorch_trace.py: needs t0 >= 1 (SingleTaskGP needs training data)")
    idx = torch.tensor(prob.warm, device=dev)
    ys = [prob.reward(a, i) for i, a in enumerate(prob.warm)]
    kernel = ScaleKernel(RBFKernel())
    kernel.base_kernel.lengthscale = prob.lengthscale
    kernel.outputscale = 1.0
    lik = GaussianLikelihood()
    lik.noise = prob.noise_var
    model = SingleTaskGP(X[idx], torch.tensor(ys, dtype=torch.float64, device=dev)[:, None],
                         covar_module=kernel, likelihood=lik, outcome_transform=None,
                         input_transform=None)
    model.eval()
    state = {"model": model}
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)

    def step(r):
        with torch.no_grad():
            acq = UpperConfidenceBound(state["model"], beta=prob.beta)
            cand, _ = optimize_acqf_discrete(acq, q=1, choices=X, max_batch_size=2**16)
            a = int(torch.nonzero((X == cand).all(dim=1))[0, 0])
            y = torch.full((1, 1), prob.reward(a, prob.t0 + r), dtype=torch.float64, device=dev)
            state["model"] = state["model"].condition_on_observations(cand, y)
            sync()
        return a

    with torch.no_grad():
        model.posterior(X[:1])  # lazy caches, as a user's first call would build them
    pb.run_rounds(prob, step, "botorch-" + dev.type)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
