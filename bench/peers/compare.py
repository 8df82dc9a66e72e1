#!/usr/bin/env python3
"""gpbandit beside the GP-UCB implementations users run today, in one run on one machine.

For every (N, t): writes the shared problem (bench/peers/problem.py: N candidates in [0,1]^d, an
RKHS objective, Gaussian noise, t warm-start observations), runs each implementation on it as its
own process (gpbandit's bench/gp_ucb_trace, numpy incremental, scikit-learn refit+predict,
BoTorch/GPyTorch on the CPU), and prints a Markdown table: mean ms per round over the timed rounds
after the first (the first is dropped as warm-up for every implementation; the mean, not the
median, so that gpbandit's lazy blocks pay for their catch-up rounds), peer / gpbandit ratio, peak
resident memory of the process, and how many of the timed rounds chose the same candidate as
gpbandit (same model, same β, same rewards: a difference means a numerical near-tie or a bug).
gpbandit runs three ways: the default (lazy blocks), `gpbandit-eager` (PosteriorOptions::lazy =
false: every row applied to every candidate) and `gpbandit-mixed` (lazy, V stored in float). Writes the raw results as JSON and the scaling plots (time per
round vs N and vs t, log-log) as PNG.

Usage:
  python3 bench/peers/compare.py --build build [--n 1000 10000 100000 1000000] [--t 10 100 1000]
      [--rounds 50] [--slow-rounds 5] [--peers numpy sklearn botorch] [--python PY]
      [--timeout 600]
      [--out bench/results]

--rounds timed rounds for gpbandit and numpy; --slow-rounds for scikit-learn and BoTorch (they
refit or recondition every round, so their cost per round is flat and a few rounds measure it).
--python is the interpreter for the Python peers (one with numpy, scikit-learn, torch, gpytorch
and botorch; see bench/README.md); a peer whose imports fail is reported as "missing".
Cells a peer cannot hold in memory (sklearn: N·t > 10^8, the N×t cross-covariance twice; numpy and
gpbandit: N·t > 2·10^8, V plus warm-up O(N·t^2)) are skipped and marked so in the table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import problem as pb  # noqa: E402

sys.path.insert(0, os.path.dirname(HERE))
from policy_costs import save_figure, two_panel_figure  # noqa: E402

PEER_SCRIPTS = {"numpy": "numpy_gp_ucb.py", "sklearn": "sklearn_gp_ucb.py",
                "botorch": "botorch_trace.py"}
MAX_CELLS = {"gpbandit": 2e8, "gpbandit-eager": 2e8, "gpbandit-mixed": 2e8, "numpy": 2e8,
             "sklearn": 1e8, "botorch": 2e8}
SLOW = {"sklearn", "botorch"}
GPBANDIT_FLAGS = {"gpbandit": [], "gpbandit-eager": ["--eager"], "gpbandit-mixed": ["--mixed"]}


def run_process(cmd, timeout, rounds=None):
    """Runs cmd, returns (parsed JSON line or None, peak RSS MiB of the child, error text).
    `rounds` caps the timed rounds of a Python peer (GPB_PEER_ROUNDS)."""
    start = time.monotonic()
    env = dict(os.environ)
    if rounds is not None:
        env["GPB_PEER_ROUNDS"] = str(rounds)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None, 0.0, f"timeout after {timeout} s"
    if proc.returncode != 0:
        lines = err.strip().splitlines()
        return None, 0.0, lines[-1] if lines else f"exit {proc.returncode}"
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if not rows:
        return None, 0.0, "no output"
    res = rows[-1]
    res["wall_s"] = time.monotonic() - start
    return res, res.get("peak_rss_mb", 0.0), ""


def mean_after_first(xs):
    """Mean ms per round without the first round (warm-up), or the only round there is."""
    xs = xs[1:] if len(xs) > 1 else xs
    return sum(xs) / len(xs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--n", type=int, nargs="+", default=[1000, 10000, 100000, 1000000])
    ap.add_argument("--t", type=int, nargs="+", default=[10, 100, 1000])
    ap.add_argument("--d", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--slow-rounds", type=int, default=5)
    ap.add_argument("--peers", nargs="+", default=["numpy", "sklearn", "botorch"])
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--no-mixed", action="store_true",
                    help="leave out gpbandit with V stored in float (Precision::Mixed)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "results"))
    args = ap.parse_args()
    exe = os.path.join(args.build, "bench", "gp_ucb_trace")
    if not os.path.exists(exe):
        raise SystemExit(f"compare.py: {exe} not found; build it: cmake --build {args.build} "
                         "--target gp_ucb_trace")
    os.makedirs(args.out, exist_ok=True)
    impls = (["gpbandit", "gpbandit-eager"] + ([] if args.no_mixed else ["gpbandit-mixed"]) +
             args.peers)
    results = []
    print("| N | t | impl | ms/round | × gpbandit | peak MiB | same choice |")
    print("|---|---|---|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.n:
            for t in args.t:
                pdir = os.path.join(tmp, f"p_{n}_{t}")
                pb.write(pdir, n, args.d, args.rounds, t)
                base = None
                for impl in impls:
                    row = {"N": n, "t": t, "impl": impl}
                    if n * t > MAX_CELLS[impl]:
                        row["skipped"] = f"N·t > {MAX_CELLS[impl]:.0e}"
                    else:
                        if impl in GPBANDIT_FLAGS:
                            cmd = [exe, pdir] + GPBANDIT_FLAGS[impl]
                        else:
                            cmd = [args.python, os.path.join(HERE, PEER_SCRIPTS[impl]), pdir]
                        res, rss, err = run_process(
                            cmd, args.timeout, args.slow_rounds if impl in SLOW else None)
                        if res is None:
                            row["skipped"] = ("missing" if "ModuleNotFoundError" in err else err)
                        else:
                            row.update(ms=mean_after_first(res["ms"]), peak_rss_mb=rss,
                                       chosen=res["chosen"], wall_s=res["wall_s"])
                    if impl == "gpbandit":
                        base = row
                    if "ms" in row and base and "ms" in base:
                        row["ratio"] = row["ms"] / base["ms"]
                        row["same"] = sum(a == b for a, b in zip(row["chosen"], base["chosen"]))
                        row["compared"] = min(len(row["chosen"]), len(base["chosen"]))
                    results.append(row)
                    if "ms" in row:
                        ratio = f"{row['ratio']:.1f}" if "ratio" in row else "—"
                        print(f"| {n} | {t} | {impl} | {row['ms']:.3f} | {ratio} | "
                              f"{row['peak_rss_mb']:.0f} | {row.get('same', '—')}/"
                              f"{row.get('compared', len(row['chosen']))} |",
                              flush=True)
                    else:
                        print(f"| {n} | {t} | {impl} | skipped: {row['skipped']} | | | |",
                              flush=True)
    with open(os.path.join(args.out, "peers.json"), "w") as fh:
        json.dump({"args": vars(args), "results": results}, fh, indent=1)
    plot(results, args, os.path.join(args.out, "peers_scaling.png"))


def plot(results, args, path):
    figure = two_panel_figure("compare.py")
    if figure is None:
        return
    fig, axes = figure
    impls = sorted({r["impl"] for r in results}, key=lambda s: (s != "gpbandit", s))
    t_fix = 100 if 100 in args.t else args.t[len(args.t) // 2]
    n_fix = 100000 if 100000 in args.n else args.n[len(args.n) // 2]
    for impl in impls:
        pts = [(r["N"], r["ms"]) for r in results if r["impl"] == impl and r["t"] == t_fix and "ms" in r]
        if pts:
            axes[0].loglog(*zip(*pts), "o-", label=impl)
        pts = [(r["t"], r["ms"]) for r in results if r["impl"] == impl and r["N"] == n_fix and "ms" in r]
        if pts:
            axes[1].loglog(*zip(*pts), "o-", label=impl)
    axes[0].set(xlabel="N (candidates)", ylabel="ms per GP-UCB round", title=f"t = {t_fix}")
    axes[1].set(xlabel="t (observations)", ylabel="ms per GP-UCB round", title=f"N = {n_fix}")
    for ax in axes:
        ax.legend()
    save_figure(fig, axes, path, "compare.py")


if __name__ == "__main__":
    main()
