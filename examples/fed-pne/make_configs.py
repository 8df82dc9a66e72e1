#!/usr/bin/env python3
"""Writes the example configs of examples/fed-pne (one per figure of specs/fed-pne.md §10).

Usage: make_configs.py  (writes *.json beside this script)
"""
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
# HCT twice: "HCT" is PyXAB 0.3.0's HCT (the paper's baseline: a node that reaches τ_h again gets
# fresh children), "HCT-keep" keeps them (Azar et al. 2014). GP-UCB stands in for the paper's
# KernelTS / BO (spec §7), labelled as the substitute it is.
ALL = [{"type": "fed-pne", "label": "Fed-PNE"},
       {"type": "hct", "label": "HCT", "reexpand": "rebuild"},
       {"type": "hct", "label": "HCT-keep", "reexpand": "keep"},
       {"type": "fed1-ucb", "label": "Fed1-UCB"},
       {"type": "gp-ucb", "label": "GP-UCB (substitute)"},
       {"type": "random", "label": "random"}]
FED, HCT, HCT_KEEP, FED1, GPUCB, RANDOM = ALL


def mesh(methods, k):
    out = []
    for m in methods:
        m = dict(m)
        if m["type"] in ("fed1-ucb", "gp-ucb"):
            m["mesh"] = k
        out.append(m)
    return out


def write(name, cfg):
    cfg = {"experiment": "fed-pne", "name": name, "seed": 1, "runs": 10, **cfg}
    with open(os.path.join(here, name + ".json"), "w") as f:
        json.dump(cfg, f, indent=1)
        f.write("\n")


OBJ = {"garland": {"type": "garland", "perturbed": True},
       "doublesine": {"type": "doublesine", "perturbed": True},
       "seir": {"type": "seir"}}
# X1, X2, X3, X5: every method, M = 10, T = 1000.
write("x1-garland", {"horizon": 1000, "clients": 10, "objective": OBJ["garland"], "methods": ALL})
write("x2-doublesine", {"horizon": 1000, "clients": 10, "objective": OBJ["doublesine"], "methods": ALL})
write("x3-himmelblau", {"horizon": 1000, "clients": 10,
                        "objective": {"type": "himmelblau", "perturbed": True}, "methods": mesh(ALL, 32)})
write("x5-seir", {"horizon": 1000, "clients": 10, "noise": 0.0, "objective": OBJ["seir"],
                  "methods": [FED, FED1, GPUCB]})
# HCT and random on SEIR cost M RK4 solves per evaluation (random: M² per round); 2 runs only
# (the shared 2-core machine). SEIR is noise-free, so HCT's runs are identical anyway.
write("x5-seir-hct-random", {"runs": 2, "horizon": 1000, "clients": 10, "noise": 0.0,
                             "objective": OBJ["seir"], "methods": [HCT, HCT_KEEP, RANDOM]})
# X4, X6: the generated substitutes (specs/fed-pne.md §9), noise-free and cached per (client, x).
# Reduced (shared 2-core machine): 3 runs (Fed-PNE and HCT are deterministic on these noise-free
# objectives anyway). X4: T = 1000 and a 32×32 mesh as X1/X3; X6: T = 200, 5×5×5 mesh (spec §10).
write("x4-landmine-like", {"runs": 3, "horizon": 1000, "clients": 10, "noise": 0.0,
                           "objective": {"type": "landmine_svm"}, "methods": mesh(ALL, 32)})
write("x6-digits-like", {"runs": 3, "horizon": 200, "clients": 10, "noise": 0.0,
                         "objective": {"type": "digits_classifier"}, "methods": mesh(ALL, 5)})
# X7: per-client regret vs M (Fed-PNE only).
for obj in ("garland", "doublesine", "seir"):
    for M in (1, 10, 50, 100):
        write(f"x7-{obj}-M{M}", {"horizon": 1000, "clients": M, "noise": 0.0 if obj == "seir" else 0.1,
                                 "objective": OBJ[obj], "methods": [FED]})
# X8: communication rounds vs T (Fed-PNE only, M = 10).
for obj in ("garland", "doublesine"):
    for T in (1000, 10000, 100000):
        write(f"x8-{obj}-T{T}", {"horizon": T, "clients": 10, "objective": OBJ[obj], "methods": [FED]})
# X1/X2 grid (issue #16): every method for M ∈ {10, 20, 50, 100} × T ∈ {1e3, 1e4, 1e5}, to find
# where "Fed-PNE has the smallest regret" holds. GP-UCB only up to T = 1e4: its exact posterior
# over the 100-point mesh costs O(N·t) per round, ≈ N·T²/2 = 5e11 flops per run at T = 1e5.
for obj in ("garland", "doublesine"):
    for M in (10, 20, 50, 100):
        for T in (1000, 10000, 100000):
            write(f"grid-{obj}-M{M}-T{T}", {"horizon": T, "clients": M, "objective": OBJ[obj],
                                            "methods": [m for m in ALL if T <= 10000 or m is not GPUCB]})
# X9: Fed1-UCB mesh size.
for obj in ("garland", "doublesine"):
    write(f"x9-{obj}-mesh", {"horizon": 1000, "clients": 10, "objective": OBJ[obj],
                             "methods": [{"type": "fed1-ucb", "label": f"K={k}", "mesh": k}
                                         for k in (10, 50, 100, 200, 500)]})
# X10: (c, c1) grid.
for obj in ("garland", "doublesine"):
    write(f"x10-{obj}-c", {"horizon": 1000, "clients": 10, "objective": OBJ[obj],
                           "methods": [{"type": "fed-pne", "label": "c=0.1,c1=1"},
                                       {"type": "fed-pne", "label": "c=0.1,c1=(2M)^(1/8)", "c1": 20 ** 0.125},
                                       {"type": "fed-pne", "label": "c=2,c1=1", "c": 2.0},
                                       {"type": "fed-pne", "label": "c=2,c1=(2M)^(1/8)", "c": 2.0, "c1": 20 ** 0.125}]})
# X10 with 100 paired runs (runs 0..9 are X10's): "robust to c1" is an equivalence (within ±5 %
# at two standard errors), which 10 runs cannot resolve on DoubleSine (d = -3.25 ± 0.91).
for obj in ("garland", "doublesine"):
    with open(os.path.join(here, f"x10-{obj}-c.json")) as f:
        cfg = json.load(f)
    write(f"x10-{obj}-c-n100", {k: v for k, v in cfg.items()
                                if k not in ("experiment", "name", "seed", "runs")} | {"runs": 100})
# X11: DP-Fed-PNE on SEIR (rewards in [0,1]); secure privacy noise (the default).
write("x11-seir-dp", {"horizon": 1000, "clients": 10, "noise": 0.0, "objective": OBJ["seir"],
                      "methods": [{"type": "fed-pne", "label": "eps=inf (Fed-PNE)"}] +
                                 [{"type": "dp-fed-pne", "label": f"eps={e}", "dp_epsilon": e, "dp_delta": 0.1}
                                  for e in (1, 2, 4)]})
# Issue #33: the figures never run and the experiments that test stated causes.
# 7c, 7d: rounds vs T on the landmine substitute and SEIR (spec §10: X4, X5 up to T = 1e4).
for obj, objective in (("landmine-like", {"type": "landmine_svm"}), ("seir", OBJ["seir"])):
    for T in (1000, 10000):
        write(f"x8-{obj}-T{T}", {"horizon": T, "clients": 10, "noise": 0.0,
                                  "objective": objective, "methods": [FED]})
# 6c: regret vs M on the landmine substitute (fields drawn with replacement for M > 29).
for M in (1, 10, 50, 100):
    write(f"x7-landmine-like-M{M}", {"horizon": 1000, "clients": M, "noise": 0.0,
                                     "objective": {"type": "landmine_svm"}, "methods": [FED]})
# 8b: regret vs M on the digits substitute, M ∈ {2, 5, 10, 20} (spec §10), T = 200.
for M in (2, 5, 10, 20):
    write(f"x7-digits-like-M{M}", {"horizon": 200, "clients": M, "noise": 0.0,
                                   "objective": {"type": "digits_classifier"}, "methods": [FED]})
# 3a/3b, the "too few arms" half: the same mesh sweep at T = 1e5 (is the smallest mesh still the
# lowest once the larger meshes finish exploring?).
for obj in ("garland", "doublesine"):
    write(f"x9-{obj}-mesh-T100000", {"horizon": 100000, "clients": 10, "objective": OBJ[obj],
                                     "methods": [{"type": "fed1-ucb", "label": f"K={k}", "mesh": k}
                                                 for k in (10, 50, 100, 200, 500)]})
# 6d's rise at M = 100 and 2d: SEIR with the centralised HCT beside Fed-PNE for M ∈ {10, 50, 100}.
# HCT sees the global f of the federation; if its regret changes with M, the federations (the
# clients' populations, hence the global objective) differ with M.
for M in (10, 50, 100):
    write(f"x12-seir-M{M}-hct", {"horizon": 1000, "clients": M, "noise": 0.0, "objective": OBJ["seir"],
                                 "methods": [FED, HCT, HCT_KEEP]})
# 2a/2b, 4a/4b: why GP-UCB on the mesh ends below Fed-PNE. The paper's kernel baseline is
# KernelTS (Thompson sampling, the NeuralTS code's defaults: noise 0.001, nu = 1), not GP-UCB;
# GP-TS with per-arm draws on the same mesh, with the spec's Laplacian kernel and with the code's
# RBF kernel exp(-|x - x'|^2) (lengthscale 1/sqrt(2) on [0,1]), beside Fed-PNE and GP-UCB with
# either kernel: separates the acquisition (UCB or TS) from the kernel.
for obj in ("garland", "doublesine"):
    write(f"x13-{obj}-ts", {"horizon": 1000, "clients": 10, "objective": OBJ[obj],
                            "methods": [FED, GPUCB,
                                        {"type": "gp-ts", "label": "GP-TS (Laplacian)"},
                                        {"type": "gp-ts", "label": "GP-TS (RBF)", "kernel": "se",
                                         "lengthscale": 0.5 ** 0.5},
                                        {"type": "gp-ucb", "label": "GP-UCB (RBF)", "kernel": "se",
                                         "lengthscale": 0.5 ** 0.5}]})
# 6d's rise from M = 50 to 100 on SEIR: the first phase starts one level deeper at M = 100
# (depth 4, 16 nodes, against depth 3, 8 nodes: spec §11 item 2), so more nodes are explored per
# phase. If that is a short-horizon cost, the ordering turns at a longer horizon: M = 50 and 100
# at T = 1e4 (M = 10 at T = 1e4 is x8-seir-T10000).
for M in (50, 100):
    write(f"x14-seir-M{M}-T10000", {"horizon": 10000, "clients": M, "noise": 0.0,
                                     "objective": OBJ["seir"], "methods": [FED]})
