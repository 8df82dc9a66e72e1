#!/usr/bin/env python3
"""Reruns a sample of cheap example configs with today's binary and compares them with the
committed examples/<suite>/results/<name>/summary.json: the check that every number in the
READMEs still comes out of the committed config (issue #33). CTest `CommittedResultsReproduce`.

Each sample reruns the first k runs of a config (`--runs k`; runs are seeded per run id, so run i
does not depend on how many runs a config has) and compares, run by run, the per-run values the
verdicts use (cumulative and simple regret per run, Fed-PNE's regret per run, DP-GIBO's final loss
per run) with the committed ones. Tolerance: |new − committed| ≤ RTOL·|committed| + ATOL with
RTOL = 1e-6, ATOL = 1e-9 (the engine is deterministic for a fixed seed and thread count; the
tolerance absorbs only printing and summation-order noise, not a changed result).

Usage: check_committed_results.py --cli build/gpbandit [--work DIR] [--only SUBSTRING] [--list]
       check_committed_results.py --cli build/gpbandit --sweep [--max-seconds S] [--only SUB]
Exit 1 when a sample differs or fails to run; prints one line per sample and a summary line.

--sweep: instead of the sample, every committed examples/*/results/<name>/summary.json whose
config is in the repository (<name> = the config's stem; -f<k> = draw k of a synthetic PO config,
--seed k; -s<S> = a split DP-GIBO run, --seed S), first run only, skipping those whose committed
timing puts one run above --max-seconds (default 120) and those with secure (unreproducible)
privacy noise: the search for committed results that predate the current code.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RTOL, ATOL = 1e-6, 1e-9
# (config relative to examples/, committed result folder name, runs to rerun, extra CLI args).
# Chosen to cover every family and the results the verdicts rest on, in a few minutes in all.
SAMPLES = [
    ("po-gp-ucb/fig3-branin.json", "fig3-branin", 10, []),
    ("po-gp-ucb/table10-branin.json", "table10-branin", 10, []),
    ("po-gp-ucb/table1-synthetic.json", "table1-synthetic-f2", 5, ["--seed", "2"]),
    ("po-gp-ucb/fig2c-property.json", "fig2c-property", 10, []),
    ("fed-pne/x1-garland.json", "x1-garland", 3, []),
    ("fed-pne/x7-doublesine-M50.json", "x7-doublesine-M50", 3, []),
    ("fed-pne/x9-garland-mesh.json", "x9-garland-mesh", 3, []),
    ("ldp-bo/why-clip-stock.json", "why-clip-stock", 1, []),
    ("dp-gibo/E-DP7-huber.json", "E-DP7-huber", 3, []),
    ("dp-gibo/E-DP6-normal-location.json", "E-DP6-normal-location", 1, []),
]
PER_RUN_KEYS = ("cumulative_regret_per_run", "simple_regret_per_run", "regret_per_run",
                "final_loss_per_run")


def per_run(summary):
    """{(label, key): [values]} of every per-run array a summary holds."""
    out = {}
    for p in summary.get("policies", summary.get("methods", [])):
        for k in PER_RUN_KEYS:
            if k in p:
                out[(p["label"], k)] = p[k]
    return out


def close(a, b):
    return abs(a - b) <= RTOL * abs(b) + ATOL


def compare(new, ref, runs):
    """'' when the first `runs` runs agree, else a description of the first difference."""
    n, r = per_run(new), per_run(ref)
    shared = [k for k in r if k in n]
    if not shared:
        return "no per-run values in common"
    for key in shared:
        a, b = n[key][:runs], r[key][:runs]
        if len(a) < runs or len(b) < runs:
            return f"{key[0]} {key[1]}: {len(a)} new / {len(b)} committed runs, need {runs}"
        for i, (x, y) in enumerate(zip(a, b)):
            if not close(x, y):
                return f"{key[0]} {key[1]}[{i}]: {x:.10g} vs committed {y:.10g}"
    return ""


def sweep_samples(max_seconds):
    """(samples, skipped) for --sweep: every committed result with a config, first run only."""
    out, skipped = [], []
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*", "results", "*",
                                              "summary.json"))):
        res = os.path.basename(os.path.dirname(path))
        suite = os.path.basename(os.path.dirname(os.path.dirname(os.path.dirname(path))))
        extra, stem = [], res
        m = re.fullmatch(r"(.+)-(f|s)(\d+)", res)
        if m and not os.path.exists(os.path.join(ROOT, "examples", suite, res + ".json")):
            stem, extra = m.group(1), ["--seed", m.group(3)]
        cfg = os.path.join(ROOT, "examples", suite, stem + ".json")
        if not os.path.exists(cfg):
            skipped.append(f"{suite}/{res} (no config {stem}.json)")
            continue
        with open(path) as f:
            s = json.load(f)
        with open(cfg) as f:
            c = json.load(f)
        runs = max(1, s.get("runs", 1))
        total = s.get("timings", {}).get("total_seconds") or s.get("seconds") or sum(
            m.get("seconds", 0) for m in s.get("methods", s.get("policies", [])))
        if c.get("experiment") in ("fed-pne",) and "dp-fed-pne" in json.dumps(c) and \
                c.get("privacy_noise") != "seeded":
            skipped.append(f"{suite}/{res} (secure privacy noise: not reproducible)")
            continue
        if total / runs > max_seconds:
            skipped.append(f"{suite}/{res} (≈ {total / runs:.0f} s per run)")
            continue
        out.append((f"{suite}/{stem}.json", res, 1, extra))
    return out, skipped


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work")
    ap.add_argument("--only")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--max-seconds", type=float, default=120)
    a = ap.parse_args()
    pool, skipped = sweep_samples(a.max_seconds) if a.sweep else (SAMPLES, [])
    samples = [s for s in pool if not a.only or a.only in s[0] or a.only in s[1]]
    for sk in skipped:
        print(f"skip  {sk}")
    if a.list:
        for cfg, res, k, extra in samples:
            print(f"{cfg} -> results/{res} (first {k} runs) {' '.join(extra)}")
        return 0
    work = a.work or tempfile.mkdtemp(prefix="gpb-committed-")
    bad = 0
    t_all = time.time()
    for cfg, res, k, extra in samples:
        suite = cfg.split("/")[0]
        ref_path = os.path.join(ROOT, "examples", suite, "results", res, "summary.json")
        out = os.path.join(work, res)
        shutil.rmtree(out, ignore_errors=True)
        with open(ref_path) as f:
            ref = json.load(f)
        env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive")
        cmd = [os.path.abspath(a.cli), "run", os.path.join(ROOT, "examples", cfg), "--out", out,
               "--quiet", "--no-plot", "--runs", str(k)] + extra
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        dt = time.time() - t0
        if r.returncode != 0:
            bad += 1
            tail = (r.stderr or r.stdout).strip().splitlines()[-1:]
            print(f"FAIL  {cfg} (exit {r.returncode}): {' '.join(tail)}")
            continue
        with open(os.path.join(out, "summary.json")) as f:
            new = json.load(f)
        diff = compare(new, ref, k)
        if diff:
            bad += 1
            print(f"DIFF  {cfg} vs results/{res}: {diff} ({dt:.0f} s)")
        else:
            print(f"same  {cfg} vs results/{res}: first {k} runs, every per-run value within "
                  f"rtol {RTOL:g} ({dt:.0f} s)")
    print(f"{len(samples) - bad}/{len(samples)} samples reproduce their committed summary.json "
          f"({time.time() - t_all:.0f} s)")
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
