#!/usr/bin/env python3
"""Writes the DP-GIBO example configs (specs/dp-gibo.md §8) into this folder.

E-DP0 (d sweep), E-DP3 (σ sweep, one config per σ) and E-DP5 (SVR, d = 103) are at the paper's
sizes (GP-LS: 1000 training points, n = 1000 users; 10 runs) with the spec's design A1 (pool
redrawn per greedy step, gradient refinement) and θ_t in every batch. The other experiments are
reduced (200 training points, 2-5 runs) and keep the earlier design (LEGACY: one pool per
iteration, no refinement), which their committed results were produced with. E-DP6 uses the
paper's polynomial kernel with the spec's design and 10 runs.
"""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
INF = "inf"


def write(name, cfg):
    cfg = {"experiment": "dp-gibo", "name": f"dp-gibo-{name}", "privacy_noise": "seeded", **cfg}
    with open(os.path.join(HERE, f"{name}.json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")


def gpls(d, n_train=200, n=1000, input_range=None):
    """GP-LS-d task; input_range None = the default ("scaled": U[0, √(15/d)]^d, spec §8, which is
    the unit cube at d = 15), 1 = the unit cube."""
    t = {"type": "gp_lengthscale", "d": d, "n_train": n_train, "n": n}
    if input_range is not None:
        t["input_range"] = input_range
    return t


LEGACY = {"pool": "once", "n_restart": 0}
PAPER_DESIGN = {"theta_in_batch": True}


def gibo(label, **kw):
    base = {"type": "dp_gibo", "label": label, "mu": 1, "B": 3, "T": 25, "step": "adagrad",
            "eta": 0.3, "sigma2": 0.0025}
    base.update(kw)
    if base.get("mu") == INF:
        base.pop("mu")
        base["type"] = "gibo"
    return base


# E-DP0 (Fig. 1): dimension sweep at the paper's sizes, fixed b = d + 1, the non-private GIBO
# arm, random search and UCB-BO with matched budgets; inputs U[0, √(15/d)]^d (spec §8, corrected
# 2026-11-26) and, as the contrast, the unit cube the first runs used (E-DP0-d<d>-unit).
for d in (2, 5, 10):
  for suffix, rng in (("", "scaled"), ("-unit", 1)):
    write(f"E-DP0-d{d}{suffix}", {
        "seed": 1, "runs": 10, "eval_noise_sd": 0.05, "theta0": "uniform",
        "task": gpls(d, 1000, input_range=rng),
        "methods": [gibo("DP-GIBO mu=1", b=d + 1, **PAPER_DESIGN),
                    gibo("GIBO", mu=INF, b=d + 1, **PAPER_DESIGN),
                    {"type": "random_search", "label": "random search", "match": "DP-GIBO mu=1"},
                    {"type": "ucb_bo", "label": "UCB-BO", "match": "DP-GIBO mu=1", "n_cand": 256}]})

# E-DP3 at the paper's sizes, one config per σ (each ≈ 22k GP-LS evaluations ≈ 25 CPU-minutes):
# the paper's μ = 0.1 arm, μ = 1 and the non-private GIBO (μ = ∞), b = 16, B = 1, T = 45.
for s in (0.0, 0.03, 0.25):
    write(f"E-DP3-sigma-{s}", {
        "seed": 4, "runs": 10, "theta0": "uniform", "task": gpls(15, 1000),
        "methods": [gibo(f"mu={m} sigma={s}", mu=m, B=1, T=45, b=16, sigma2=s * s,
                         eval_noise_sd=s, **PAPER_DESIGN) for m in (0.1, 1, INF)]})

# E-DP5 at the paper's size (Ex. 4.2): generated Friedman #1 substitute with p = 100 features
# (d = 103, b = 104), 1000 training points, n = 9000 users, T = 10, AdaGrad η = 0.8, B = 1.
# Cost: ≈ 0.6 CPU-second per SVR evaluation (training and the batched prediction of 9000 points),
# 1040 per run and arm → ≈ 30 CPU-minutes per seed of the three arms.
SVR_D103 = {
    "seed": 8, "runs": 10, "eval_noise_sd": 0.0, "theta0": "uniform",
    "task": {"type": "svr_friedman", "p": 100, "n_train": 1000, "n": 9000},
    "methods": [gibo("DP-GIBO mu=1", mu=1, B=1, T=10, b=104, eta=0.8, **PAPER_DESIGN),
                gibo("GIBO", mu=INF, B=1, T=10, b=104, eta=0.8, **PAPER_DESIGN),
                {"type": "random_search", "label": "random search", "match": "DP-GIBO mu=1"}]}
write("E-DP5-svr-d103", SVR_D103)
# Why E-DP5 at d = 103 stays at loss ≈ 1 from θ⁽⁰⁾ ~ U(Θ): there γ‖u − v‖² between two standardised
# points is ≈ 14 or more (100 features, E[e^(−2θ)] = 6.8 per feature, γ ≥ 0.01), the RBF kernel
# is ≈ 0 off the diagonal and the loss surface flat. The same runs from a start where the kernel is
# informative (every log-lengthscale 2, ln γ = ln 0.02: γ‖u − v‖² ≈ 0.07).
write("E-DP5-svr-d103-informative", {
    **SVR_D103, "theta0": [2.0] * 100 + [math.log(0.1), 0.0, math.log(0.02)]})

# E-DP1, E-DP2, E-DP4 at the paper's sizes (1000 training points, n = 1000, 10 runs) with the
# spec's design A1 and θ_t in every batch: the "-paper" configs. The reduced configs below (200
# training points, 2 runs, the earlier design) are kept with their committed results.
write("E-DP1-eps-paper", {
    "seed": 2, "runs": 10, "eval_noise_sd": 0.05, "theta0": "uniform", "task": gpls(15, 1000),
    "privacy_budget_mu": 1,
    "methods": [gibo(f"eps={e}", eps_bias=e, b_max=30, **PAPER_DESIGN)
                for e in (0.3, 0.5, 3.0, 7.5)]})
# The equivalence half of E-DP1's claim (ε = 0.3 ≈ 0.5 within ±5 % at two standard errors) needs
# a standard error of the paired difference near 0.002; the paper's 10 runs give 0.0035. 30 more
# paired runs of the two arms, on other seeds, at the same sizes and design.
write("E-DP1-eps-equiv", {
    "seed": 12, "runs": 30, "eval_noise_sd": 0.05, "theta0": "uniform", "task": gpls(15, 1000),
    "privacy_budget_mu": 1,
    "methods": [gibo(f"eps={e}", eps_bias=e, b_max=30, **PAPER_DESIGN) for e in (0.3, 0.5)]})
# Why ε = 0.3 and 0.5 need not tie here (issue #33): ε bounds the trace of the gradient posterior
# (a variance); the privacy noise of μ = 1, n = 1000 has norm ν√15 ≈ 0.116, ≈ 0.0135 in trace
# units, far below both, so the bias should still dominate and the loss fall as ε shrinks. The sweep
# goes down to 0.1, about the smallest trace b_max = 30 points reach (specs/dp-gibo.md §9 fact 5).
write("E-DP1-eps-floor", {
    "seed": 13, "runs": 10, "eval_noise_sd": 0.05, "theta0": "uniform", "task": gpls(15, 1000),
    "privacy_budget_mu": 1,
    "methods": [gibo(f"eps={e}", eps_bias=e, b_max=30, **PAPER_DESIGN) for e in (0.5, 0.3, 0.2, 0.1)]})
write("E-DP2-mu-paper", {
    "seed": 3, "runs": 10, "eval_noise_sd": 0.05, "theta0": "uniform", "task": gpls(15, 1000),
    "methods": [gibo(f"mu={m}", mu=m, eps_bias=0.5, b_max=30, **PAPER_DESIGN)
                for m in (0.2, 1, INF)]})
write("E-DP4-misspecified-paper", {
    "seed": 5, "runs": 10, "eval_noise_sd": 0.01, "theta0": "uniform", "task": gpls(15, 1000),
    "methods": [gibo(f"GP sigma={s}", eps_bias=0.5, b_max=30, sigma2=s * s, **PAPER_DESIGN)
                for s in (0.01, 1.0, 0.0001)] +
               [{"type": "random_search", "label": "random search", "match": "GP sigma=0.01"}]})

# E-DP1 (Fig. 2 top): eps_bias sweep on GP-LS-15, adaptive b, b_max = 30.
write("E-DP1-eps", {
    "seed": 2, "runs": 2, "eval_noise_sd": 0.05, "theta0": "uniform", "task": gpls(15),
    "privacy_budget_mu": 1,
    "methods": [gibo(f"eps={e}", eps_bias=e, b_max=30, **LEGACY) for e in (0.3, 0.5, 3.0, 7.5)]})

# E-DP2 (Fig. 2 bottom-left): mu sweep, eps_bias = 0.5.
write("E-DP2-mu", {
    "seed": 3, "runs": 2, "eval_noise_sd": 0.05, "theta0": "uniform", "task": gpls(15),
    "methods": [gibo(f"mu={m}", mu=m, eps_bias=0.5, b_max=30, **LEGACY) for m in (0.2, 1, INF)]})

# E-DP3 (Fig. 2 bottom-right): evaluation-noise sweep, b = 16, B = 1, mu = 0.1, T = 45; the GP
# assumes the true sigma^2.
write("E-DP3-sigma", {
    "seed": 4, "runs": 2, "theta0": "uniform", "task": gpls(15),
    "methods": [gibo(f"sigma={s}", mu=0.1, B=1, T=45, b=16, sigma2=s * s, eval_noise_sd=s, **LEGACY)
                for s in (0.0, 0.03, 0.25)]})

# E-DP4 (E.5, Fig. 5): misspecified GP noise; true sigma = 0.01 per user.
write("E-DP4-misspecified", {
    "seed": 5, "runs": 2, "eval_noise_sd": 0.01, "theta0": "uniform", "task": gpls(15),
    "methods": [gibo(f"GP sigma={s}", eps_bias=0.5, b_max=30, sigma2=s * s, **LEGACY)
                for s in (0.01, 1.0, 0.0001)] +
               [{"type": "random_search", "label": "random search", "match": "GP sigma=0.01"}]})

# E-DP6 (E.3, Fig. 3): normal location, d = 5, n = 50, θ⁽⁰⁾ = 0, B = 1, b = 3, T = 150,
# mu in {0.5, 2}, the paper's polynomial kernel (x'y + 1)^2 in weight space (p = 21 features), σ = 0
# and the GP's σ² = 0 (τ only); AdaGrad η = 0.3 (the spec's choice where the paper is silent);
# the spec's design A1 (pool per greedy step, refinement). 10 runs (spec option; the paper shows one
# run per μ). Extra arms: the joint design at μ = 0.5, the SE kernel of the earlier substitute at
# μ = 0.5, GIBO and DP-GD at both μ.
POLY = {"kernel": "polynomial", "sigma2": 0.0}
EDP6 = {"mu": 0.5, "B": 1, "T": 150, "b": 3}
write("E-DP6-normal-location", {
    "seed": 6, "runs": 10, "theta0": "zero",
    "task": {"type": "normal_location", "d": 5, "n": 50, "centre": 1, "spread": 1,
             "lower": -3, "upper": 3},
    "methods": [gibo(f"DP-GIBO mu={m}", **{**EDP6, "mu": m}, **POLY) for m in (0.5, 2)] +
               [gibo("DP-GIBO mu=0.5 joint", **EDP6, **POLY, acq="joint"),
                gibo("DP-GIBO mu=0.5 SE", **EDP6),
                gibo("GIBO", **{**EDP6, "mu": INF}, **POLY)] +
               [{"type": "dp_gd", "label": f"DP-GD mu={m}", "mu": m, "B": 1, "T": 150,
                 "step": "adagrad", "eta": 0.3} for m in (0.5, 2)]})

# E-DP7 (E.4, Fig. 4): weighted Huber regression, d = 4, n = 100, b = 2, T = 100, mu = 1; the
# spec's 10 runs and design A1 (the first runs: 5 runs, one pool per iteration).
write("E-DP7-huber", {
    "seed": 7, "runs": 10, "theta0": "zero",
    "task": {"type": "huber", "d": 4, "n": 100, "c": 1, "lower": -3, "upper": 3},
    "methods": [gibo("DP-GIBO mu=1", mu=1, B=1, T=100, b=2),
                {"type": "dp_gd", "label": "DP-GD mu=1", "mu": 1, "B": 1, "T": 100,
                 "step": "adagrad", "eta": 0.3},
                {"type": "gd", "label": "GD (non-private)", "T": 100, "step": "adagrad",
                 "eta": 0.3}]})

# E-DP5 substitute (Ex. 4.2): SVR tuning on project-generated Friedman #1 data, reduced to p = 10
# features (d = 13, b = d + 1 = 14), 200 training points and n = 1000 users (paper: CT slice data,
# d = 103, 1000/9000). T = 30 (the reference code's default), AdaGrad eta = 0.8, B = 1.
write("E-DP5-svr-substitute", {
    "seed": 8, "runs": 3, "eval_noise_sd": 0.0, "theta0": "uniform",
    "task": {"type": "svr_friedman", "p": 10, "n_train": 200, "n": 1000},
    "methods": [gibo("DP-GIBO mu=1", mu=1, B=1, T=30, b=14, eta=0.8, **LEGACY),
                gibo("GIBO", mu=INF, B=1, T=30, b=14, eta=0.8, **LEGACY),
                {"type": "random_search", "label": "random search", "match": "DP-GIBO mu=1"}]})
