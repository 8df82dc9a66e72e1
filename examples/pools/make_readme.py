#!/usr/bin/env python3
"""Writes README.md (from README.template.md) from the committed summary.json files under
results/ (written by run_all.sh from real runs). Usage: make_readme.py [--check]
  --check: exit 1 if README.md differs from what the summaries give."""
import csv
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from readme_io import check_or_write  # noqa: E402

# The suites in table order: (config name, library, fingerprint).
SUITES = [("enamine10k-atompair", "Enamine 10k", "atom pair"),
          ("enamine10k-morgan", "Enamine 10k", "Morgan"),
          ("enamine50k-atompair", "Enamine 50k", "atom pair"),
          ("enamine50k-atompair-greedy", "Enamine 50k", "atom pair"),
          ("enamine50k-morgan-greedy", "Enamine 50k", "Morgan"),
          ("enamine50k-morgan", "Enamine 50k", "Morgan")]

# MolPAL's best reported surrogate per library (percentage of the top-1 % scores found after 6 %,
# mean ± sd over its repeats; coleygroup/molpal, tag `publication`,
# scripts/molpal_analysis.ipynb).
MOLPAL_BEST = {"Enamine 10k": (67.0, 3.0, "MPN greedy"), "Enamine 50k": (74.8, 1.1, "NN greedy")}


def load(name):
    path = os.path.join(HERE, "results", name, "summary.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def pct(s):
    return f"{100 * s['mean']:.1f} ± {100 * s['se']:.1f} ({100 * s['sd']:.1f})"


def margin(s, library):
    """(mean − MolPAL's best) in standard errors of our mean; '—' for one run."""
    best = MOLPAL_BEST[library][0]
    if s["n"] < 2 or s["se"] == 0:
        return "—"
    return f"{(100 * s['mean'] - best) / (100 * s['se']):+.1f}"


def batch_seconds(name):
    """Mean seconds per acquisition batch (batches 1..) by policy label, from the runs.csv copied
    beside summary.json: (fit + acquire, update)."""
    path = os.path.join(HERE, "results", name, "runs.csv")
    if not os.path.exists(path):
        return {}
    sums = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            if int(row["batch"]) < 1:
                continue
            s = sums.setdefault(row["policy"], [0.0, 0.0, 0])
            s[0] += float(row["fit_seconds"]) + float(row["acquire_seconds"])
            s[1] += float(row.get("update_seconds") or 0)
            s[2] += 1
    return {k: (a / n, u / n) for k, (a, u, n) in sums.items()}


def seconds(p, timing):
    if p["label"] in timing and p["type"] != "rf_greedy":
        a, u = timing[p["label"]]
        return f"{a:.2f} + {u:.2f}"
    t = p.get("seconds", {})
    if isinstance(t, dict) and "fit_per_batch" in t:
        return f"{t['fit_per_batch'] + t['acquire_per_batch']:.2f} (fit + predict)"
    return "—"


def table():
    lines = ["| library | fingerprint | acquisition | runs | found, scores % | "
             "found, molecules % | vs MolPAL's best (SE) | s per batch |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    rows = 0
    for name, library, fp in SUITES:
        for suffix in ("", "-rf"):
            s = load(name + suffix)
            if s is None:
                continue
            timing = batch_seconds(name + suffix)
            for p in s["policies"]:
                lines.append(f"| {library} | {fp} | {p['label']} | {p['runs']} | "
                             f"{pct(p['found_scores'])} | {pct(p['found_molecules'])} | "
                             f"{margin(p['found_scores'], library) if p['type'] != 'random' else '—'} | {seconds(p, timing)} |")
                rows += 1
    if rows == 0:
        return "(no results yet: run examples/pools/run_all.sh)"
    return "\n".join(lines)


def settings():
    out = []
    for name, library, fp in SUITES:
        s = load(name)
        if s is None:
            continue
        lib = s["library"]
        out.append(f"- `{name}`: {lib['candidates']} molecules, {fp} {lib['bits']} bits, "
                   f"top k = {lib['top_k']}, {lib['init']} random + {lib['batches']} × "
                   f"{lib['batch']} acquired ({lib['evaluations']} = "
                   f"{100 * lib['evaluations'] / lib['candidates']:.1f} %), kernel "
                   f"{lib['kernel']}, fit {lib['fit']}; "
                   f"{s['timings']['total_seconds'] / 60:.1f} min in all on {s['backend']}")
    return "\n".join(out) if out else "(no results yet)"


def main(argv):
    with open(os.path.join(HERE, "README.template.md")) as f:
        text = f.read()
    text = text.replace("{{TABLE}}", table()).replace("{{SETTINGS}}", settings())
    code, _ = check_or_write(os.path.join(HERE, "README.md"), text, argv)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
