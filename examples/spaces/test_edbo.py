#!/usr/bin/env python3
"""Checks of the campaign metrics and encodings of examples/spaces/edbo.py (CTest
SpacesCampaignMetrics): experiments to a target on hand-checkable sequences, censoring, best
after n, the wins/losses/ties and censored statistics of make_readme.py, and the encodings on a
small table built here (no data needed). Deterministic; exits 1 on the first failure."""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import edbo  # noqa: E402
import make_readme  # noqa: E402


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)


class FakeTable:
    """Two components and one numeric condition: 2 × 3 × 2 = 12 reactions, yields 0..11."""

    name = "fake"
    components = ["A", "B"]

    def __init__(self):
        rows = [(a, b, t) for a in ("a0", "a1") for b in ("b0", "b1", "b2") for t in (60.0, 100.0)]
        self.labels = {"A": [r[0] for r in rows], "B": [r[1] for r in rows]}
        self.numeric = {"T": np.array([r[2] for r in rows])}
        self.y = np.arange(12, dtype=float)
        self.top1 = float(np.percentile(self.y, 99))
        self.best = 11.0

    def __len__(self):
        return 12

    def dft(self, component):
        # Descriptors with a constant column (dropped) and one label far from the others.
        table = {"a0": [1.0, 5.0, 0.0], "a1": [3.0, 5.0, 2.0],
                 "b0": [0.0, 1.0, 7.0], "b1": [0.0, 2.0, 7.0], "b2": [10.0, 0.0, 7.0]}
        return {k: np.array(v) for k, v in table.items() if k[0] == component.lower()}


def check_count_fingerprints():
    """edbo.count_fingerprints on the fake table with molecules for labels: each component's
    block is its label's Morgan counts (the positions no label sets dropped), the numeric
    condition a thermometer weighted like one molecule (skipped without gpbandit or RDKit)."""
    try:
        from gpbandit import chem
        chem.rdkit_version()
    except Exception as e:  # noqa: BLE001 (no module, or no RDKit: say which and go on)
        print(f"skip: count fingerprints ({e})")
        return
    t = FakeTable()
    smiles = {"a0": "CCO", "a1": "c1ccccc1O", "b0": "CC(=O)O", "b1": "CCN", "b2": "N"}
    t.labels = {c: [smiles[x] for x in t.labels[c]] for c in t.components}
    x = edbo.count_fingerprints(t)
    check(x.dtype == np.uint8 and x.shape[0] == 12, f"count fingerprints {x.dtype} {x.shape}")
    at, mass = 0, []
    for c in t.components:
        labels = sorted(set(t.labels[c]))
        fps = chem.fingerprints(labels, kind="morgan", counts=True)
        fps = fps[:, fps.any(axis=0)]
        mass.append(fps.sum(axis=1).mean())
        want = fps[[labels.index(v) for v in t.labels[c]]]
        check(np.array_equal(x[:, at:at + fps.shape[1]], want), f"component {c}'s block")
        at += fps.shape[1]
    w = round(float(np.mean(mass)))  # two levels: one position of weight w at the top level
    check(x.shape[1] == at + 1, "one thermometer position for two temperatures")
    check(np.array_equal(x[:, at], np.where(t.numeric["T"] == 100.0, w, 0)), "the thermometer")


def main():
    ys = [10.0, 30.0, 20.0, 55.0, 40.0, 90.0, 90.0]
    # The first yield at or above the target, counted from 1 (ties at the target count).
    check(edbo.experiments_to(ys, 55.0) == 4, "to 55: the 4th experiment")
    check(edbo.experiments_to(ys, 54.9) == 4, "to 54.9: the 4th experiment")
    check(edbo.experiments_to(ys, 10.0) == 1, "to the first value: 1")
    check(edbo.experiments_to(ys, 90.0) == 6, "to the best: its first occurrence")
    # Censored: never reached within the campaign.
    check(edbo.experiments_to(ys, 90.5) is None, "censored at the campaign's length")
    check(edbo.experiments_to([], 1.0) is None, "an empty campaign is censored")
    check(edbo.best_after(ys, 3) == 30.0 and edbo.best_after(ys, 7) == 90.0, "best after n")
    try:
        edbo.best_after(ys, 8)
        check(False, "best_after beyond the campaign raises")
    except ValueError as e:
        check("n:" in str(e), "best_after names n")

    t = FakeTable()
    m = edbo.metrics([3.0, 5.0, 11.0, 2.0] + [0.0] * 6, t)
    check(m["best_after"] == {"10": 11.0} and m["to_best"] == 3, "metrics of a 10-run campaign")
    check(m["to_top1"] == 3, "top-1 % of 0..11 is 10.89: reached at 11")
    # The README's statistics: a censored count is 51 in means; medians above 50 print ">50".
    run = {"metrics": {"to_top1": None, "to_best": 7, "best_after": {"25": 1.0}}}
    check(make_readme.to_top1(run) == 51 and make_readme.to_best(run) == 7, "censored as 51")
    check(make_readme.median_iqr([51, 51, 51, 10], True).startswith(">50"), "censored median")
    check(make_readme.wlt([1, 2, 3], [2, 2, 1], False) == (1, 1, 1), "w/l/t, lower is better")
    check(make_readme.wlt([1, 2, 3], [2, 2, 1], True) == (1, 1, 1), "w/l/t, higher is better")

    # Encodings: one-hot blocks + the numeric condition in [0, 1], through gpbandit.params: bit
    # for bit the direct formula (sorted labels; (v − min) / (max − min)).
    try:
        import gpbandit  # noqa: F401
    except ImportError:
        print("skip: the encodings (no gpbandit module on PYTHONPATH)")
    else:
        x = edbo.encode(t, "ohe")
        check(x.shape == (12, 2 + 3 + 1), f"one-hot shape {x.shape}")
        want = np.zeros((12, 6))
        for i in range(12):
            want[i, ["a0", "a1"].index(t.labels["A"][i])] = 1.0
            want[i, 2 + ["b0", "b1", "b2"].index(t.labels["B"][i])] = 1.0
            want[i, 5] = (t.numeric["T"][i] - 60.0) / (100.0 - 60.0)
        check(np.array_equal(x, want), "one-hot rows equal the direct formula bit for bit")
        # DFT: per component at most labels − 1 principal components; the first spans [0, 1];
        # reactions that share a label share its block.
        d = edbo.encode(t, "dft")
        check(d.shape[0] == 12 and d.shape[1] <= 1 + 2 + 1, f"dft shape {d.shape}")
        check(abs(np.ptp(d[:, 0]) - 1.0) < 1e-12, "first principal component spans [0, 1]")
        same_a = [i for i in range(12) if t.labels["A"][i] == "a1"]
        check(np.allclose(d[same_a, 0], d[same_a[0], 0]), "one row per label")
        b = d[:, 1:-1]
        far = [i for i in range(12) if t.labels["B"][i] == "b2"][0]
        near = [[i for i in range(12) if t.labels["B"][i] == s][0] for s in ("b0", "b1")]
        check(np.linalg.norm(b[near[0]] - b[near[1]]) < np.linalg.norm(b[near[0]] - b[far]),
              "descriptor geometry kept: b0 nearer b1 than b2")
        check_count_fingerprints()
    try:
        edbo.encode(t, "fingerprint")
        check(False, "unknown encoding raises")
    except ValueError as e:
        check("encoding" in str(e), "the error names the encoding")
    # The seeded start: the same for a seed, different across seeds, 5 distinct reactions.
    s0, s0b, s1 = edbo.start(t, 0), edbo.start(t, 0), edbo.start(t, 1)
    check(s0 == s0b and s0 != s1 and len(set(s0)) == 5, "seeded start")
    print("ok")


if __name__ == "__main__":
    main()
