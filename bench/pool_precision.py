#!/usr/bin/env python3
"""Time per 1 % batch of MolPAL's greedy protocol with V stored in double and in float
([pools] issue #31: "a 1 % batch over 50k in ≤ 2 s on this 2-core CPU").

Runs the pool family's greedy acquisition ([pools] src/pool/family.cpp) on a real library with two
posteriors side by side, one per precision (Context precision "double" and "mixed": V in float,
the block update's GEMM and triangular solve in single precision): the same random 1 % start
(numpy, seeded by (seed, run)), the output scale, noise and mean fitted once on it by marginal
likelihood (fit_scale_and_noise, as `"fit": "initial"` does), then five batches of 1 %, each
chosen by the posterior mean (the q largest over the molecules not yet evaluated) and entered as
one FinitePosterior.observe_batch. Every batch is timed as the goal counts it: the block update
of the previous batch plus this batch's acquisition, in wall seconds (perf_counter) and in CPU
seconds of every thread (process_time). The two precisions alternate batch by batch so that they
see the same load. Reports where the float run's picks differ from the double run's (each run
follows its own picks) and the fraction of the true top-k found (MolPAL's "scores" metric and
exact molecules), and after the first block the largest |Δμ| and |Δσ²| between the two.

Usage: python3 bench/pool_precision.py --build build-cpu [--library 50k] [--fingerprint atom_pair]
           [--runs 2] [--threads 2] [--out bench/pool_precision-50k.json] [--results bench/RESULTS.md]
Prints one JSON object, writes it to --out and, with --results, rewrites that file's section
between the markers pool-precision-<library>:begin/end.
"""
import argparse
import importlib.util
import json
import math
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_section  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(os.path.dirname(ROOT), "shared", "data", "molpal")
FP = {"atom_pair": "atom_pair-2048-l1-3-bits", "morgan": "morgan-2048-r2-chiral-bits"}
LIBS = {"10k": "Enamine10k_scores.csv.gz", "50k": "Enamine50k_scores.csv.gz"}


def rf_helpers():
    """read_scores, size_of and found from examples/pools/rf_baseline.py (the same metric)."""
    path = os.path.join(ROOT, "examples", "pools", "rf_baseline.py")
    spec = importlib.util.spec_from_file_location("rf_baseline", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def greedy(mu, evaluated, q):
    """The q largest means over the candidates not evaluated, best first (ties: lower index)."""
    score = np.where(evaluated, -np.inf, mu)
    idx = np.argpartition(-score, q - 1)[:q]
    return idx[np.lexsort((idx, -score[idx]))]


class Run:
    """One posterior of the protocol at one precision."""

    def __init__(self, gb, precision, threads, dom, kernel, lam, capacity):
        self.ctx = gb.Context("cpu", threads=threads, precision=precision)
        self.post = gb.FinitePosterior(self.ctx, kernel, dom, 1, noise_variance=lam,
                                       capacity=capacity, mode="incremental", lazy=False)
        self.acquired = []
        self.batches = []

    def step(self, batch, y, evaluated, q):
        """Block update with `batch`, then the next greedy batch; returns it and the times."""
        t0, c0 = time.perf_counter(), time.process_time()
        self.post.observe_batch(np.asarray(batch, dtype=np.int64), y)
        t1, c1 = time.perf_counter(), time.process_time()
        nxt = greedy(self.post.mean(0, copy=False), evaluated, q)
        t2, c2 = time.perf_counter(), time.process_time()
        return nxt, {"update_s": t1 - t0, "update_cpu_s": c1 - c0, "ask_s": t2 - t1,
                     "ask_cpu_s": c2 - c1, "batch_s": t2 - t0, "batch_cpu_s": c2 - c0}


def run_protocol(gb, rf, args, words, reward, k, seed_run):
    n = len(reward)
    order = np.argsort(-reward, kind="stable")
    top = np.zeros(n, dtype=bool)
    top[order[:k]] = True
    top_values = reward[order[:k]]
    q = rf.size_of(0.01, n)
    rng = np.random.default_rng([args.seed, seed_run])
    init = rng.choice(n, q, replace=False)
    dom = gb.Domain.from_fingerprints(words, 2048)
    ctx = gb.Context("cpu", threads=args.threads)
    K = gb.fingerprint_kernel_matrix(ctx, gb.Kernel.tanimoto(1.0), words[init], words[init])
    fit = gb.fit_scale_and_noise(K, reward[init])
    lam = max(fit.noise_variance, 1e-6 * fit.signal_variance)
    kernel = gb.Kernel.tanimoto(fit.signal_variance)
    runs = {p: Run(gb, p, args.threads, dom, kernel, lam, q * (args.batches + 1))
            for p in ("double", "mixed")}
    state = {p: {"evaluated": np.zeros(n, dtype=bool), "next": init, "acquired": []}
             for p in runs}
    rows = []
    for b in range(args.batches):
        row = {"batch": b + 1}
        for p in ("double", "mixed") if b % 2 == 0 else ("mixed", "double"):
            s = state[p]
            batch = s["next"]
            s["evaluated"][batch] = True
            s["acquired"] += list(batch)
            row[p + "_t"] = [len(s["acquired"]) - len(batch), len(s["acquired"])]
            s["next"], times = runs[p].step(batch, reward[batch] - fit.mean, s["evaluated"], q)
            row[p] = times
            print(f"run {seed_run} batch {b + 1} {p}: t {row[p + '_t']}, "
                  f"{times['batch_s']:.2f} s wall, {times['batch_cpu_s']:.2f} CPU s",
                  file=sys.stderr, flush=True)
        d, m = state["double"]["next"], state["mixed"]["next"]
        row["picks_differ"] = int(len(set(d.tolist()) - set(m.tolist())))
        row["picks_same_order"] = bool(np.array_equal(d, m))
        if b == 0:
            mu_d, mu_m = runs["double"].post.mean(0), runs["mixed"].post.mean(0)
            s2_d, s2_m = runs["double"].post.variance(0), runs["mixed"].post.variance(0)
            row["max_abs_dmu"] = float(np.max(np.abs(mu_d - mu_m)))
            row["max_abs_ds2"] = float(np.max(np.abs(s2_d - s2_m)))
        rows.append(row)
    found = {}
    for p in runs:
        acq = state[p]["acquired"] + list(state[p]["next"])
        fs, fm, _ = rf.found(reward, top, top_values, k, acq)
        found[p] = {"scores": fs, "molecules": fm}
    return {"run": seed_run, "signal_variance": fit.signal_variance, "noise_variance": lam,
            "q": q, "rows": rows, "found": found}


BEGIN = "<!-- pool-precision-{lib}:begin (generated by bench/pool_precision.py) -->"
END = "<!-- pool-precision-{lib}:end -->"


def section(r):
    lib = r["library"]
    lines = [BEGIN.format(lib=lib), "",
             results_section.command_line(r, ", CPU seconds count every thread"), "",
             f"Enamine {lib} ({r['n']:,} molecules, {r['fingerprint']} 2048 bits), greedy, "
             f"batches of q = {r['runs'][0]['q']}; a batch = the block update of the previous "
             "batch + the greedy choice of this one. Per precision: wall s / CPU s.", "",
             "| run | batch (t before → after the update) | double: wall / CPU s | "
             "float (mixed): wall / CPU s | CPU ratio | picks differing |",
             "|---|---|---:|---:|---:|---:|"]
    for run in r["runs"]:
        for row in run["rows"]:
            d, m = row["double"], row["mixed"]
            t0, t1 = row["double_t"]
            lines.append(f"| {run['run']} | {row['batch']} ({t0:,} → {t1:,}) | "
                         f"{d['batch_s']:.2f} / {d['batch_cpu_s']:.2f} | "
                         f"{m['batch_s']:.2f} / {m['batch_cpu_s']:.2f} | "
                         f"{d['batch_cpu_s'] / m['batch_cpu_s']:.2f} | {row['picks_differ']} |")
    lines.append("")
    for run in r["runs"]:
        f = run["found"]
        first = run["rows"][0]
        lines.append(
            f"Run {run['run']} (v = {run['signal_variance']:.3f}, λ = {run['noise_variance']:.4f}): "
            f"after the first block update max |Δμ| = {first['max_abs_dmu']:.2e}, max |Δσ²| = "
            f"{first['max_abs_ds2']:.2e}; top-{r['top_k']} found after 6 %: double "
            f"{100 * f['double']['scores']:.1f} % (scores) / {100 * f['double']['molecules']:.1f} % "
            f"(molecules), float {100 * f['mixed']['scores']:.1f} % / "
            f"{100 * f['mixed']['molecules']:.1f} %.")
    lines += ["", END.format(lib=lib)]
    return "\n".join(lines)


def write_section(path, text, lib, title):
    results_section.write_section(path, text, BEGIN.format(lib=lib), END.format(lib=lib), title)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="build folder (its python/ is imported)")
    ap.add_argument("--library", default="50k", choices=sorted(LIBS))
    ap.add_argument("--fingerprint", default="atom_pair", choices=sorted(FP))
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out")
    ap.add_argument("--results", help="RESULTS.md whose pool-precision section to rewrite")
    args = ap.parse_args()
    for name in ("runs", "batches", "threads"):
        if getattr(args, name) < 1:
            raise SystemExit(f"--{name} must be >= 1")
    sys.path.insert(0, os.path.join(args.build, "python"))
    import gpbandit as gb

    rf = rf_helpers()
    lib = LIBS[args.library]
    npy = os.path.join(ROOT, "examples", "pools", "fingerprints", f"{lib}.{FP[args.fingerprint]}.npy")
    if not os.path.exists(npy):
        raise SystemExit(f"{npy}: missing (python3 -m gpbandit.chem featurize "
                         f"examples/pools/enamine{args.library}-atompair.json writes it)")
    words = np.load(npy)
    reward = -rf.read_scores(os.path.join(DATA, lib), "score")
    load = os.getloadavg()[0]
    with open(os.path.join(ROOT, "examples", "pools", f"enamine{args.library}-atompair.json")) as f:
        top_k = json.load(f).get("top_k", max(1, math.floor(0.01 * len(reward))))  # README's k
    runs = [run_protocol(gb, rf, args, words, reward, top_k, r) for r in range(args.runs)]
    out = {"command": "python3 bench/pool_precision.py " + " ".join(sys.argv[1:]),
           "host": f"{os.cpu_count()} cores, {platform.machine()}", "threads": args.threads,
           "load_before": load, "load_after": os.getloadavg()[0], "library": args.library,
           "fingerprint": args.fingerprint, "n": len(reward),
           "top_k": top_k, "runs": runs}
    text = json.dumps(out, indent=1)
    print(text)
    path = args.out or os.path.join(HERE, f"pool_precision-{args.library}.json")
    with open(path, "w") as f:
        f.write(text + "\n")
    if args.results:
        write_section(args.results, section(out), args.library,
                      f"Enamine {args.library}: a greedy 1 % batch with V in double and in float "
                      "([pools] issue #31, the ≤ 2 s goal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
