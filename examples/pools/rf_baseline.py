#!/usr/bin/env python3
"""MolPAL's random-forest + greedy baseline on a pool config, with MolPAL's settings.

Usage: rf_baseline.py CONFIG.json OUT_DIR [--runs R] [--threads T]

Reads the same library, fingerprint cache (written by ``python3 -m gpbandit.chem featurize``),
sizes (init, batch, batches, top_k) and seed count as ``gpbandit run CONFIG``, and runs MolPAL's
protocol with scikit-learn's ``RandomForestRegressor(n_estimators=100, max_depth=8,
min_samples_leaf=1)`` (molpal/models/sklmodels.py: RFModel) retrained from scratch on every
evaluated molecule before each batch, acquiring the batch by the forest's mean (greedy). Metrics
as the pool family computes them (MolPAL's "scores" multiset metric and exact molecules).
Writes OUT_DIR/summary.json (the pool family's layout: one policy, "RF greedy (MolPAL)") and
OUT_DIR/runs.csv. Needs scikit-learn (pip install scikit-learn). Exits 2 on bad input.
"""
import argparse
import csv
import gzip
import io
import json
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def load_chem():
    """gpbandit.chem (pure Python) from the installed module or, without it, from the source."""
    try:
        from gpbandit import chem
        return chem
    except ImportError:
        import importlib.util
        path = os.path.join(os.path.dirname(os.path.dirname(HERE)), "python", "gpbandit", "chem.py")
        spec = importlib.util.spec_from_file_location("gpbandit_chem", path)
        chem = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(chem)
        return chem


def read_scores(path, column):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    rows = csv.reader(io.StringIO(raw.decode("utf-8")))
    header = next(rows)
    col = header.index(column)
    return np.array([float(r[col]) for r in rows if r and "".join(r).strip()])


def size_of(x, n):
    return max(1, math.floor(x * n)) if x < 1 else int(x)


def found(reward, top, top_values, k, acquired):
    got = np.sort(reward[acquired])[::-1][:k]
    matched, i, j = 0, 0, 0
    while i < len(got) and j < len(top_values):  # multiset intersection, both descending
        if got[i] == top_values[j]:
            matched, i, j = matched + 1, i + 1, j + 1
        elif got[i] > top_values[j]:
            i += 1
        else:
            j += 1
    return matched / k, top[acquired].sum() / k, got[0]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("config")
    p.add_argument("out")
    p.add_argument("--runs", type=int)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--fingerprints", help="the fingerprint cache .npy (default: the one the "
                   "config's molecules domain names, found through the gpbandit module)")
    a = p.parse_args(argv)
    try:
        from sklearn.ensemble import RandomForestRegressor
    except ImportError:
        print("rf_baseline.py: needs scikit-learn (pip install scikit-learn)", file=sys.stderr)
        return 2
    chem = load_chem()

    with open(a.config) as f:
        cfg = json.load(f)
    if a.fingerprints:
        with open(a.fingerprints[:-4] + ".json") as f:
            meta = json.load(f)
        cache = {"npy": a.fingerprints, "fingerprint": json.dumps(meta["fingerprint"]),
                 "file": os.path.join(os.path.dirname(os.path.abspath(a.config)),
                                      cfg["domain"]["file"])}
    else:
        import gpbandit as gb

        (cache,) = gb._gpbandit._molecule_caches(a.config)
    spec = json.loads(cache["fingerprint"])
    words = np.load(cache["npy"])
    x = chem.unpack_bits(words, spec["bits"]) if not spec["counts"] else words
    obj = cfg["objective"]
    reward = read_scores(cache["file"], obj.get("column", "score"))
    if obj.get("minimize", False):
        reward = -reward
    n = len(reward)
    k = cfg.get("top_k", max(1, math.floor(0.01 * n)))
    order = np.argsort(-reward, kind="stable")
    top = np.zeros(n, dtype=bool)
    top[order[:k]] = True
    top_values = reward[order[:k]]
    n_init, q = size_of(cfg.get("init", 0.01), n), size_of(cfg.get("batch", 0.01), n)
    batches = cfg.get("batches", 5)
    runs = a.runs or cfg.get("runs", 5)
    rows, finals, t_fit, t_acq = [], [], [], []
    for run in range(runs):
        rng = np.random.default_rng([cfg.get("seed", 0), run])
        acquired = list(rng.choice(n, n_init, replace=False))
        fs, fm, best = found(reward, top, top_values, k, acquired)
        rows.append(("RF greedy (MolPAL)", run, 0, len(acquired), fs, fm, best, 0, 0))
        for b in range(1, batches + 1):
            t0 = time.time()
            model = RandomForestRegressor(n_estimators=100, max_depth=8, min_samples_leaf=1,
                                          n_jobs=a.threads, random_state=run)
            model.fit(x[acquired], reward[acquired])
            t1 = time.time()
            mean = model.predict(x)
            mean[acquired] = -np.inf
            batch = np.argsort(-mean, kind="stable")[:q]
            t2 = time.time()
            acquired += list(batch)
            fs, fm, best = found(reward, top, top_values, k, acquired)
            rows.append(("RF greedy (MolPAL)", run, b, len(acquired), fs, fm, best, t1 - t0,
                         t2 - t1))
            t_fit.append(t1 - t0)
            t_acq.append(t2 - t1)
        finals.append((fs, fm))
        print(f"run {run}: found {100 * fs:.1f}% (scores), {100 * fm:.1f}% (molecules)",
              file=sys.stderr)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "runs.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["policy", "run", "batch", "evaluated", "found_scores", "found_molecules",
                    "best", "fit_seconds", "acquire_seconds"])
        w.writerows(rows)

    def stats(v):
        v = np.asarray(v, dtype=float)
        sd = float(v.std(ddof=1)) if len(v) > 1 else 0.0
        return {"mean": float(v.mean()), "sd": sd, "se": sd / math.sqrt(len(v)), "n": len(v)}

    summary = {"experiment": "pool-rf-baseline", "config": os.path.basename(a.config),
               "library": {"candidates": n, "top_k": k, "init": n_init, "batch": q,
                           "batches": batches, "fingerprint": spec},
               "model": "sklearn RandomForestRegressor(n_estimators=100, max_depth=8, "
                        "min_samples_leaf=1), greedy",
               "policies": [{"label": "RF greedy (MolPAL)", "type": "rf_greedy", "runs": runs,
                             "found_scores": stats([f[0] for f in finals]),
                             "found_molecules": stats([f[1] for f in finals]),
                             "seconds": {"fit_per_batch": float(np.mean(t_fit)),
                                         "acquire_per_batch": float(np.mean(t_acq))}}]}
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
