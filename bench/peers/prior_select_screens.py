#!/usr/bin/env python3
"""The criteria screened for fit.lengthscale_prior_select (issue #30): final regrets of each
screen's runs beside the defaults' on the same seeds, kept in prior_select_screens.json, and the
paired table of bench/RESULTS.md printed from them.

The screens ran bench/peers/bo_suite.py's ablation row "lengthscale prior location ..." with a
build whose comparison rule was switched by an environment variable (not committed), each into
a scratch copy of bo_suite_results.json; --collect reads those copies.

Usage:
  python3 bench/peers/prior_select_screens.py --collect LABEL=SCRATCH.json[@KEY,KEY] ...
      # (re)writes the data: the screen's runs in SCRATCH.json (only those problems with @)
  python3 bench/peers/prior_select_screens.py                                  # prints the table
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bo_problems as bp  # noqa: E402
import bo_suite as bs  # noqa: E402

DATA = os.path.join(HERE, "prior_select_screens.json")
# The name the screens' row had in the scratch files (bo_suite.py's ABLATION of that day).
ROW = ("gpbandit:lengthscale prior location ln(d)/2 or 0 chosen at each fit "
       "(fit.lengthscale_prior_select)")


def collect(pairs):
    data = {}
    for pair in pairs:
        label, path = pair.split("=", 1)
        path, _, keys = path.partition("@")
        with open(path) as f:
            results = json.load(f)
        per = {}
        for p in bp.PROBLEMS:
            if keys and p.key not in keys.split(","):
                continue
            rows = {}
            for seed in range(100):
                kv = bs.key_of(ROW, p.key, seed, p.calls)
                kd = bs.key_of("gpbandit", p.key, seed, p.calls)
                if kv in results and kd in results:
                    rows[str(seed)] = [bs.final_regret(results[kd], p),
                                       bs.final_regret(results[kv], p)]
            if rows:
                per[p.key] = rows
        data[label] = per
    with open(DATA, "w") as f:
        json.dump(data, f, separators=(",", ":"))


def table():
    with open(DATA) as f:
        data = json.load(f)
    lines = ["| criterion (screen) | " + " | ".join(p.label for p in bp.PROBLEMS) + " |",
             "|---|" + "---|" * len(bp.PROBLEMS)]
    for label, per in data.items():
        cells = []
        for p in bp.PROBLEMS:
            rows = per.get(p.key)
            if not rows:
                cells.append("—")
                continue
            r = np.array(list(rows.values()))
            d = np.log10(np.maximum(r[:, 1], 1e-12)) - np.log10(np.maximum(r[:, 0], 1e-12))
            text, word = bs.verdict(d)
            mark = {"a lower": " **lower**", "a higher": " **higher**"}.get(word, "")
            cells.append(f"{text}{mark} ({len(d)})")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--collect", nargs="*")
    args = ap.parse_args()
    if args.collect:
        collect(args.collect)
    table()


if __name__ == "__main__":
    main()
