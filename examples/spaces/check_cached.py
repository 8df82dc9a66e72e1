#!/usr/bin/env python3
"""Reruns cached campaigns of results/ with this build and compares them with the cache: the
reactions chosen, in order, must be the same (a change of the runner that must not change
results, e.g. how measured reactions are excluded or how one-hot rows are encoded).

Usage: check_cached.py [--datasets a,b] [--methods m,n] [--seeds 0-29] [--data DIR]
Prints one line per method and data set (same / differ, with the first differing seed) and exits
1 if any campaign differs. Needs PYTHONPATH holding the gpbandit module (build/python).
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import edbo  # noqa: E402
import run_campaigns as rc  # noqa: E402


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=",".join(edbo.DATASETS))
    ap.add_argument("--methods", default="gpbandit-ohe,gpbandit-dft")
    ap.add_argument("--seeds", type=rc.seeds_arg, default=rc.seeds_arg("0-29"))
    ap.add_argument("--data", default=None)
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if not edbo.available(args.data):
        print(f"SKIP: EDBO data not found in {edbo.data_dir(args.data)}")
        return 77
    bad = 0
    for d in args.datasets.split(","):
        table = edbo.Table(d, args.data)
        for m in args.methods.split(","):
            fn = rc.runner(m)
            same, differ = 0, []
            for seed in args.seeds:
                path = os.path.join(HERE, "results", d, m, f"seed{seed}.json")
                if not os.path.exists(path):
                    continue
                with open(path) as f:
                    cached = json.load(f)
                now = rc.run_one(table, m, seed, fn, len(cached["order"]))
                if now["order"] == cached["order"]:
                    same += 1
                else:
                    differ.append(seed)
            bad += len(differ)
            print(f"{d} {m}: {same} same, {len(differ)} differ"
                  + (f" (seeds {differ})" if differ else ""), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
