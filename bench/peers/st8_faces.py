#!/usr/bin/env python3
"""Why EI's asks land on the box's faces on Styblinski-Tang-8 (bench/peers/st8_basins.py measured
that 62 % of gpbandit's calls have a coordinate at a face): each ask after the initial design is
classified by where it came from and what the surrogate says there.

For every ask with a coordinate within 0.5 % of the box's width of a face (|x| > 4.95 on
Styblinski-Tang's [-5, 5]; --problem runs another function of bo_problems.py) it records
  - its source: a Sobol candidate (index ≥ 0) or a refined point off the candidate set (−1);
  - the posterior mean μ and sd σ there and at the same point with its face coordinates moved
    inward by 5 % of the box's width (0.5 on Styblinski-Tang), both standardised by the sd of
    the y seen so far, and the expected improvement over the incumbent (the lowest posterior
    mean of the observations) at both: if EI is higher at the face because σ is higher there, the pull is the variance growing
    towards the boundary; if because μ is lower, the mean's slope (extrapolation).
Also printed per option set: the share of asks at a face, and of those, the share from the
refinement. Options are JSON keywords for gpbandit.minimize (e.g. '{"refine": {"starts": 0}}':
no gradient steps; '{"refine": false}': the Sobol candidates only). The tables of
bench/RESULTS.md were made before minimize warped y by default (2026-11-27): add
'"fit": {"warp": false}' to an option set to rerun them as they were.

Usage: PYTHONPATH=build/python python3 bench/peers/st8_faces.py [--seeds 5]
           [--options '{}' '{"refine": {"starts": 0}}' ...] [--problem styblinski8]
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bo_problems as bp  # noqa: E402
import gpbandit as gb  # noqa: E402

FACE = 0.005  # of the box's width


def ei(mu, sd, best):
    """Expected improvement below `best` (minimisation)."""
    if sd <= 0:
        return max(best - mu, 0.0)
    z = (best - mu) / sd
    return sd * (z * 0.5 * math.erfc(-z / math.sqrt(2)) + math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi))


def run(p, seed, options, n_init):
    lo = np.array([b[0] for b in p.bounds])
    hi = np.array([b[1] for b in p.bounds])
    rows = []
    orig_ask = gb.Optimizer.ask

    def ask(self, q=1):
        points, idx = orig_ask(self, q)
        if len(self.y) < n_init:
            return points, idx
        x = np.asarray(points[0], dtype=float)
        u = (x - lo) / (hi - lo)
        at_face = (u < FACE) | (u > 1 - FACE)
        if not at_face.any():
            rows.append((False, idx[0] < 0, None))
            return points, idx
        inward = x.copy()
        inward[at_face] -= 0.05 * (hi - lo)[at_face] * np.sign(u[at_face] - 0.5)
        y = np.asarray(self.y, dtype=float)
        scale = float(np.std(y)) or 1.0
        m_obs, _ = self.predict(np.asarray(self.X, dtype=float))
        best = float(np.min(m_obs))
        m, v = self.predict(np.vstack([x, inward]))
        sd = np.sqrt(np.maximum(v, 0))
        stats = (m[0] / scale, sd[0] / scale, m[1] / scale, sd[1] / scale,
                 ei(m[0], sd[0], best) / scale, ei(m[1], sd[1], best) / scale,
                 int(at_face.sum()))
        rows.append((True, idx[0] < 0, stats))
        return points, idx

    gb.Optimizer.ask = ask
    try:
        gb.minimize(lambda x: p.true_value(x), p.bounds, n_calls=p.calls, random_state=seed,
                    **options)
    finally:
        gb.Optimizer.ask = orig_ask
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--options", nargs="*", default=["{}"])
    ap.add_argument("--problem", default="styblinski8")
    args = ap.parse_args()
    p = bp.BY_KEY[args.problem]
    n_init = max(5, p.dim + 1)  # minimize's default initial design
    print("| options | asks after the design | at a face | of those refined | face coords "
          "per face ask | μ face − μ inward | σ face / σ inward | EI face / EI inward |")
    print("|---|---|---|---|---|---|---|---|")
    for text in args.options:
        options = json.loads(text)
        rows = [r for s in range(args.seeds) for r in run(p, s, options, n_init)]
        face = [r for r in rows if r[0]]
        st = np.array([r[2] for r in face]) if face else np.zeros((0, 7))
        dm = np.median(st[:, 0] - st[:, 2]) if len(st) else float("nan")
        rs = np.median(st[:, 1] / np.maximum(st[:, 3], 1e-300)) if len(st) else float("nan")
        re = np.median(st[:, 4] / np.maximum(st[:, 5], 1e-300)) if len(st) else float("nan")
        nf = np.median(st[:, 6]) if len(st) else float("nan")
        print(f"| {text} | {len(rows)} | {len(face) / max(len(rows), 1):.2f} | "
              f"{np.mean([r[1] for r in face]) if face else float('nan'):.2f} | {nf:.0f} | "
              f"{dm:+.2f} | {rs:.2f} | {re:.3g} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
