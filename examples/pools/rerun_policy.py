#!/usr/bin/env python3
"""Reruns one acquisition of the committed pool suites and puts its new rows into the committed
results, so that a change to one acquisition's speed does not need the whole suite again (the
50k suite takes ~28 min on an idle machine).

For each config name: runs the config with only the policy `--label` (same seed, runs and
settings; a deterministic acquisition such as gp_bucb then chooses the same molecules as it did in
the full suite, which is checked: the found fractions per batch must equal the committed ones)
with `nice gpbandit run … --resume` into results/pools/<name>-<label>/, then in
examples/pools/results/<name>/: replaces that policy's rows of runs.csv (keeping the committed
columns), its entry of summary.json, its timings.per_policy (total_seconds adjusted), and appends
a note to summary.json's "reruns" (label, command, version, build, load average). Then rewrites
README.md with make_readme.py.

Usage: python3 examples/pools/rerun_policy.py --bin build-cpu/gpbandit --label gp_bucb
           [names ...]   (default: the four suites that hold the label)
Exits 1 when a rerun's found fractions differ from the committed ones (nothing is merged then).
"""
import argparse
import csv
import io
import json
import os
import re
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NAMES = ["enamine10k-atompair", "enamine10k-morgan", "enamine50k-atompair", "enamine50k-morgan"]
SAME = ["found_scores", "found_molecules", "found_scores_by_batch", "found_molecules_by_batch"]


def one_policy_config(name, label):
    with open(os.path.join(HERE, name + ".json")) as f:
        cfg = json.load(f)
    cfg["domain"]["file"] = os.path.normpath(os.path.join(HERE, cfg["domain"]["file"]))
    cfg["domain"]["cache"] = os.path.join(HERE, "fingerprints")
    policies = [p for p in cfg["policies"] if p.get("label", p["type"]) == label]
    if len(policies) != 1:
        raise SystemExit(f"{name}: no policy labelled {label}")
    cfg["policies"] = policies
    with open(os.path.join(HERE, "results", name, "summary.json")) as f:
        backend = json.load(f)["backend"]  # e.g. "cpu (1 thread)": rerun with as many threads
    cfg["threads"] = int(re.search(r"\((\d+) thread", backend).group(1))
    return cfg


def merge_rows(committed, fresh, label):
    """committed runs.csv with `label`'s rows replaced by those of `fresh` (committed columns)."""
    with open(committed) as f:
        old = list(csv.DictReader(f))
        columns = list(old[0].keys())
    with open(fresh) as f:
        new = [r for r in csv.DictReader(f) if r["policy"] == label]
    out = io.StringIO()
    w = csv.DictWriter(out, columns, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    replaced = False
    for row in old:
        if row["policy"] != label:
            w.writerow(row)
        elif not replaced:  # the policy's block, in the committed position
            w.writerows(new)
            replaced = True
    return out.getvalue()


def rerun(name, a):
    cfg = one_policy_config(name, a.label)
    work = os.path.join(ROOT, "results", "pools", f"{name}-{a.label}")
    os.makedirs(work, exist_ok=True)
    cfg_path = os.path.join(work, "config.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f, indent=2)
    argv = ["nice", a.bin, "run", cfg_path, "--out", os.path.join(work, "out"), "--quiet",
            "--no-plot"]
    if os.path.exists(os.path.join(work, "out", ".checkpoint")):
        argv.append("--resume")
    load0 = os.getloadavg()[0]
    subprocess.run(argv, check=True, env=dict(os.environ, OMP_WAIT_POLICY="passive"))
    with open(os.path.join(work, "out", "summary.json")) as f:
        fresh = json.load(f)
    committed_dir = os.path.join(HERE, "results", name)
    with open(os.path.join(committed_dir, "summary.json")) as f:
        summary = json.load(f)
    new = fresh["policies"][0]
    i = next(k for k, p in enumerate(summary["policies"]) if p["label"] == a.label)
    for key in SAME:
        if summary["policies"][i][key] != new[key]:
            print(f"{name}: {a.label}'s {key} differs from the committed run; not merged",
                  file=sys.stderr)
            return False
    rows = merge_rows(os.path.join(committed_dir, "runs.csv"),
                      os.path.join(work, "out", "runs.csv"), a.label)
    t = summary["timings"]
    t["total_seconds"] += fresh["timings"]["per_policy"][a.label] - t["per_policy"][a.label]
    t["per_policy"][a.label] = fresh["timings"]["per_policy"][a.label]
    summary["policies"][i] = new
    summary.setdefault("reruns", []).append({
        "label": a.label, "version": fresh["version"], "build": fresh["build"],
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "load_average": [round(load0, 1), round(os.getloadavg()[0], 1)],
        "command": "python3 examples/pools/rerun_policy.py " + shlex.join(a.argv)})
    with open(os.path.join(committed_dir, "runs.csv"), "w") as f:
        f.write(rows)
    with open(os.path.join(committed_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    return True


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="the gpbandit binary")
    ap.add_argument("--label", required=True, help="the policy label to rerun, e.g. gp_bucb")
    ap.add_argument("names", nargs="*", default=NAMES)
    a = ap.parse_args(argv)
    a.argv = argv
    ok = all([rerun(name, a) for name in a.names])
    subprocess.run([sys.executable, os.path.join(HERE, "make_readme.py")], check=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
