#!/usr/bin/env python3
"""Runs every example config (examples/**/*.json) with two gpbandit binaries and compares their
runs.csv (and phases.csv) byte for byte: the check that a refactoring changed no result.

Usage:
  tools/compare_examples.py --new build/gpbandit [--ref main | --ref-bin PATH] [--work DIR]
                            [--runs 2] [--T 40] [--only SUBSTRING] [--timeout 600]
                            [--data DIR]

--ref REV builds the reference binary from `git archive REV` in WORK/ref (CPU-only, CLI only;
ccache is used when installed); --ref-bin uses an existing one. Slow configs are reduced the same
way for both binaries: at most --runs runs (the --runs flag), and a copy of the config (written
beside it, so relative data paths still resolve, and removed afterwards) with T, the X-armed
horizon and the DP-GIBO iterations and evaluation budgets capped; LDP noise is switched to the
seeded source so that two runs can be equal at all. --data DIR: a relative data path of a config
("...shared/data/X") that does not resolve from the config's folder (a worktree elsewhere than
the main checkout) is replaced by DIR/X. Prints a Markdown table (config, family,
reduction, result) and exits 1 if any config differs or fails on one side only.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_ref(rev, work):
    src = os.path.join(work, "ref-src")
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", src], input=archive.stdout, check=True)
    build = os.path.join(src, "build")
    args = ["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DGPB_ENABLE_CUDA=OFF",
            "-DGPB_BUILD_TESTS=OFF", "-DGPB_BUILD_BENCH=OFF", "-DGPB_BUILD_PYTHON=OFF"]
    if shutil.which("ccache"):
        args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build, "-j2", "--target", "gpbandit_cli"], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(build, "gpbandit")


def configs(only):
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "**", "*.json"), recursive=True)):
        rel = os.path.relpath(path, ROOT)
        if "/results/" in rel or os.path.basename(path).startswith(".") or (only and only not in rel):
            continue
        try:
            j = json.load(open(path))
        except ValueError:
            continue
        if isinstance(j, dict) and ("policies" in j or "methods" in j):
            out.append((rel, j))
    return out


def reduce(j, T):
    """The config with its run length capped; returns (config, description)."""
    j = json.loads(json.dumps(j))
    fam = j.get("experiment", "finite")
    what = []
    if fam == "finite":
        if j.get("T", 100) > T:
            what.append(f"T {j.get('T', 100)}→{T}")
            j["T"] = T
    elif fam == "fed-pne":
        cap = 50 * T
        if j.get("horizon", 1000) > cap:
            what.append(f"horizon {j.get('horizon', 1000)}→{cap}")
            j["horizon"] = cap
    else:
        for m in j.get("methods", []):
            steps = m["type"] in ("dp_gibo", "gibo", "dp_gd", "gd")
            if steps and m.get("T", 25) > T // 4:
                what.append(f"{m.get('label', m['type'])}.T→{T // 4}")
                m["T"] = T // 4
            if m.get("evaluations", 0) > 4 * T:
                m["evaluations"] = 4 * T
                what.append(f"{m.get('label', m['type'])}.evaluations→{4 * T}")
    if j.get("privacy_noise") != "seeded" and ("epsilon" in json.dumps(j) or fam != "finite"):
        j["privacy_noise"] = "seeded"
        what.append("seeded privacy noise")
    return j, fam, ", ".join(what) or "none"


def relocate_data(j, config_dir, data_dir):
    """Relative "…path" values under shared/data/ that do not exist from config_dir → data_dir."""
    if isinstance(j, dict):
        for k, v in j.items():
            if (k.endswith("path") and isinstance(v, str) and not os.path.isabs(v)
                    and "shared/data/" in v and not os.path.exists(os.path.join(config_dir, v))):
                j[k] = os.path.join(data_dir, v.split("shared/data/", 1)[1])
            else:
                relocate_data(v, config_dir, data_dir)
    elif isinstance(j, list):
        for v in j:
            relocate_data(v, config_dir, data_dir)


def run(binary, cfg, out, runs, timeout):
    cmd = [binary, "run", cfg, "--out", out, "--quiet", "--no-plot", "--runs", str(runs)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stderr.strip().splitlines()[-1:] if r.returncode else []
    except subprocess.TimeoutExpired:
        return "timeout", []


def same_files(a, b):
    for name in ("runs.csv", "phases.csv"):
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if os.path.exists(pa) != os.path.exists(pb):
            return False, f"{name} on one side only"
        if os.path.exists(pa) and open(pa, "rb").read() != open(pb, "rb").read():
            return False, f"{name} differs"
    return True, "runs.csv" + (" and phases.csv" if os.path.exists(os.path.join(a, "phases.csv")) else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--new", required=True)
    ap.add_argument("--ref", default="main")
    ap.add_argument("--ref-bin")
    ap.add_argument("--work")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--T", type=int, default=40)
    ap.add_argument("--only")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--data")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="gpb-compare-")
    os.makedirs(work, exist_ok=True)
    ref = a.ref_bin or build_ref(a.ref, work)
    new = os.path.abspath(a.new)
    print(f"reference: {ref} ({'given' if a.ref_bin else a.ref}); new: {new}; runs ≤ {a.runs}\n")
    print("| config | family | reduced | result |")
    print("|---|---|---|---|")
    bad = 0
    for rel, j in configs(a.only):
        reduced, fam, what = reduce(j, a.T)
        src = os.path.join(ROOT, rel)
        tmp = os.path.join(os.path.dirname(src), ".cmp-" + os.path.basename(src))
        if a.data:
            relocate_data(reduced, os.path.dirname(src), os.path.abspath(a.data))
        with open(tmp, "w") as f:
            json.dump(reduced, f)
        try:
            outs = [os.path.join(work, side, rel.replace("/", "_")) for side in ("ref", "new")]
            for o in outs:
                shutil.rmtree(o, ignore_errors=True)
            runs = min(a.runs, j.get("runs", 10))
            rc_ref, err_ref = run(ref, tmp, outs[0], runs, a.timeout)
            rc_new, err_new = run(new, tmp, outs[1], runs, a.timeout)
        finally:
            os.remove(tmp)
        if rc_ref == 0 and rc_new == 0:
            ok, detail = same_files(*outs)
            result = ("identical " if ok else "DIFFERENT: ") + detail
            bad += 0 if ok else 1
        elif rc_ref == rc_new:
            result = f"both exit {rc_ref} ({' '.join(err_new)[:80]})"
        else:
            result = f"MISMATCH: ref exit {rc_ref} {err_ref}, new exit {rc_new} {err_new}"
            bad += 1
        print(f"| {rel} | {fam} | runs {runs}; {what} | {result} |", flush=True)
    print(f"\n{bad} config(s) differ" if bad else "\nevery config gave identical outputs")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
