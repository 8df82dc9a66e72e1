#!/usr/bin/env python3
"""Writes the LDP-BO reproduction configs (specs/ldp-bo.md §7, panels L1-L9) and the scale configs.

Usage: python3 examples/ldp-bo/make_configs.py [--T 1000]   (writes next to this script)

Every panel: 10 trials (seeds 0..9 = runs 0..9 of seed 0), lambda = 1, delta = 0.1, eps_nys = 0.1,
alpha = 1, both presets of every algorithm, and GP-UCB as the extra curve "not in paper".
LDP panels use the SEEDED privacy source and the paper's inverse-CDF Laplace sampler: this is a
reproducible simulation, not a private deployment (summary.json says so).
"""
import argparse
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = "../../../shared/data"

SYNTH_DOMAIN = {"type": "grid", "lower": [0.01], "upper": [1.0], "counts": [100]}
LIGHT = {"type": "dataset", "path": f"{DATA}/light-sensor/test.csv",
         "kernel_path": f"{DATA}/light-sensor/train.csv", "correlation": True}
STOCK = {"type": "dataset", "path": f"{DATA}/stock/prices.csv", "skip_columns": 1,
         "correlation": True}

NAMES = {"tgp_ucb": "TGP-UCB", "ata_gp_ucb": "ATA-GP-UCB", "moma_gp_ucb": "MoMA-GP-UCB"}


def policies(eps):
    out = []
    for preset in ("practical", "theory"):
        for fam in ("tgp_ucb", "ata_gp_ucb", "moma_gp_ucb"):
            p = {"type": ("ldp_" if eps else "") + fam, "preset": preset,
                 "label": ("LDP-" if eps else "") + NAMES[fam] + f" ({preset})"}
            if eps:
                p["epsilon"] = eps
            out.append(p)
    gp = {"type": "gp_ucb", "label": "GP-UCB (not in paper)"}
    if eps:
        gp["ldp"] = {"epsilon": eps}
    out.append(gp)
    return out


def panel(pid, figure, instance, kernel, eps, T):
    cfg = {"name": pid, "description": f"{figure} of Zhou & Tan 2021 (specs/ldp-bo.md §7 {pid}); "
           f"T = {T}, 10 trials", "seed": 0, "runs": 10, "T": T, "noise_variance": 1.0}
    if eps:
        cfg["privacy_noise"] = "seeded"
        cfg["laplace_sampler"] = "inverse_cdf"
    if instance == "synthetic":
        cfg["domain"] = SYNTH_DOMAIN
        cfg["kernel"] = kernel
        cfg["objective"] = {"type": "rkhs", "support": 100}
        cfg["noise"] = {"type": "uniform", "R": 1} if eps else {"type": "student_t", "nu": 3,
                                                                "scale": 1}
    else:
        cfg["objective"] = LIGHT if instance == "light" else STOCK
    cfg["policies"] = policies(eps)
    return cfg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--T", type=int, default=1000)
    T = ap.parse_args().T
    se = {"type": "se", "lengthscale": 0.2}
    m52 = {"type": "matern52", "lengthscale": 0.2}
    panels = [("L1", "Fig 2(a)", "synthetic", m52, 1.0), ("L2", "Fig 2(b)", "light", None, 0.5),
              ("L3", "Fig 2(c)", "stock", None, 1.0), ("L4", "Fig 2(d)", "synthetic", se, None),
              ("L5", "Fig 2(e)", "light", None, None), ("L6", "Fig 2(f)", "stock", None, None),
              ("L7", "Fig 3(a)", "synthetic", se, 1.0), ("L8", "Fig 3(b)", "light", None, 1.0),
              ("L9", "Fig 3(c)", "stock", None, 0.5)]
    for pid, fig, inst, ker, eps in panels:
        with open(os.path.join(HERE, f"{pid}.json"), "w") as f:
            json.dump(panel(pid, fig, inst, ker, eps, T), f, indent=2)
            f.write("\n")
    # Scale: the same synthetic family on large grids (project addition, not in the paper).
    for name, counts, T_s in (("scale-1e5-d2", [317, 316], 200), ("scale-1e6-d3", [100, 100, 100], 60)):
        d = len(counts)
        cfg = {"name": name, "description": "synthetic LDP family (§6.1) on a large grid; "
               "project addition, not in the paper", "seed": 0, "runs": 2, "T": T_s,
               "noise_variance": 1.0, "privacy_noise": "seeded", "laplace_sampler": "inverse_cdf",
               "domain": {"type": "grid", "lower": [0.01] * d, "upper": [1.0] * d, "counts": counts},
               "kernel": {"type": "se", "lengthscale": 0.2},
               "objective": {"type": "rkhs", "support": 100},
               "noise": {"type": "uniform", "R": 1},
               "policies": [{"type": "ldp_tgp_ucb", "epsilon": 1, "label": "LDP-TGP-UCB (practical)"},
                            {"type": "gp_ucb", "label": "GP-UCB (not in paper)",
                             "ldp": {"epsilon": 1}}]}
        with open(os.path.join(HERE, f"{name}.json"), "w") as f:
            json.dump(cfg, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
