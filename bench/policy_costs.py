#!/usr/bin/env python3
"""Cost growth of every finite-domain policy: time and peak memory per round as N and T grow, so
users can size their runs. Each (policy, N, T) is one `gpbandit run` process (one run, one policy,
an RKHS objective on a 2-d grid with U[-0.5, 0.5] noise, CPU backend, one thread so the numbers
stay meaningful on a loaded machine: multiply by the cores for a lower bound on what OpenMP
threads bring); time per round is the
policy's own time in summary.json (timings.per_policy / T, the objective and output writing
excluded) and memory is the peak resident set of the process (os.wait4).

Usage: python3 bench/policy_costs.py --build build [--n 1024 10000 102400] [--T 100 400]
           [--policies gp_ucb ...] [--out bench/results]
Writes a Markdown table on stdout, policy_costs.json and policy_costs.png under --out.
"""
import argparse
import json
import math
import os
import sys
import tempfile

POLICIES = {
    "gp_ucb": {"type": "gp_ucb"},
    "batch_gp_ucb (q=5)": {"type": "batch_gp_ucb", "q": 5},
    "random": {"type": "random"},
    "tgp_ucb": {"type": "tgp_ucb"},
    "ata_gp_ucb": {"type": "ata_gp_ucb"},
    "moma_gp_ucb": {"type": "moma_gp_ucb"},
    "ldp_tgp_ucb": {"type": "ldp_tgp_ucb", "epsilon": 1},
    "ldp_ata_gp_ucb": {"type": "ldp_ata_gp_ucb", "epsilon": 1},
    "ldp_moma_gp_ucb": {"type": "ldp_moma_gp_ucb", "epsilon": 1},
    "po_gp_ucb": {"type": "po_gp_ucb", "epsilon": 1},
}


def config(policy, n, horizon):
    side = int(round(math.sqrt(n)))
    spec = dict(POLICIES[policy])
    spec["label"] = policy
    return {"name": "cost", "seed": 0, "runs": 1, "T": horizon, "backend": "cpu", "threads": 1,
            "privacy_noise": "seeded",
            "domain": {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [side, side]},
            "kernel": {"type": "se", "lengthscale": 0.2, "variance": 1},
            "objective": {"type": "rkhs", "support": 50},
            "noise": {"type": "uniform", "R": 0.5}, "policies": [spec]}


def run_rss(argv, stdout_path=os.devnull):
    """Runs argv as a child process (stdout to stdout_path, stderr discarded); returns its peak
    resident set in MiB (os.wait4), or None when it failed. Shared with continuous_costs.py and
    peers/compare_xarmed.py."""
    pid = os.fork()
    if pid == 0:
        out = os.open(stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(out, 1)
        os.dup2(devnull, 2)
        try:
            os.execv(argv[0], argv)
        finally:
            os._exit(127)  # exec failed: never return into the parent's loop
    _, status, usage = os.wait4(pid, 0)
    return usage.ru_maxrss / 1024.0 if os.waitstatus_to_exitcode(status) == 0 else None


def run_config(exe, cfg, tmp):
    """Runs one config as its own `gpbandit run` process; returns (summary.json, peak MiB) or
    None when the run failed."""
    path = os.path.join(tmp, "cfg.json")
    with open(path, "w") as fh:
        json.dump(cfg, fh)
    out = os.path.join(tmp, "out")
    peak = run_rss([exe, "run", path, "--out", out, "--no-plot"])  # no plotting child in the RSS
    if peak is None:
        return None
    with open(os.path.join(out, "summary.json")) as fh:
        return json.load(fh), peak


def run_measured(exe, cfg, tmp):
    """Runs one config as its own process; returns ms/round and the process's peak RSS (wait4)."""
    res = run_config(exe, cfg, tmp)
    if res is None:
        return None
    summary, peak = res
    seconds = summary["timings"]["per_policy"][cfg["policies"][0]["label"]]
    return {"ms_per_round": 1e3 * seconds / cfg["T"], "peak_mib": peak}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--n", type=int, nargs="+", default=[1024, 10000, 102400])
    ap.add_argument("--T", type=int, nargs="+", default=[100, 400])
    ap.add_argument("--policies", nargs="+", default=list(POLICIES))
    ap.add_argument("--max-n-ata", type=int, default=10000,
                    help="largest N for the ATA variants (they re-truncate the history along "
                         "Nystrom directions every round: minutes per run above this)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "results"))
    args = ap.parse_args()
    exe = os.path.join(args.build, "gpbandit")
    os.makedirs(args.out, exist_ok=True)
    rows = []
    print("| policy | N | T | ms/round | peak MiB |")
    print("|---|---|---|---|---|", flush=True)
    for policy in args.policies:
        for n in args.n:
            for horizon in args.T:
                side = int(round(math.sqrt(n)))
                row = {"policy": policy, "N": side * side, "T": horizon}
                if "ata" in policy and n > args.max_n_ata:
                    row["skipped"] = True
                    print(f"| {policy} | {side * side} | {horizon} | skipped (--max-n-ata) | |")
                    rows.append(row)
                    continue
                with tempfile.TemporaryDirectory() as tmp:
                    res = run_measured(exe, config(policy, n, horizon), tmp)
                if res is None:
                    row["failed"] = True
                    print(f"| {policy} | {side * side} | {horizon} | failed | |", flush=True)
                else:
                    row.update(res)
                    print(f"| {policy} | {side * side} | {horizon} | {res['ms_per_round']:.3f} | "
                          f"{res['peak_mib']:.0f} |", flush=True)
                rows.append(row)
    with open(os.path.join(args.out, "policy_costs.json"), "w") as fh:
        json.dump(rows, fh, indent=1)
    plot(rows, args, os.path.join(args.out, "policy_costs.png"))


def two_panel_figure(tag):
    """(fig, axes) of a 1×2 figure on the Agg backend, or None (saying so as `tag`) without
    matplotlib. Shared with continuous_costs.py and peers/compare.py."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{tag}: matplotlib missing, no plot", file=sys.stderr)
        return None
    return plt.subplots(1, 2, figsize=(11, 4.2))


def save_figure(fig, axes, path, tag):
    """Log-log grids, tight layout, PNG at 120 dpi."""
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"{tag}: wrote {path}", file=sys.stderr)


def plot(rows, args, path):
    figure = two_panel_figure("policy_costs.py")
    if figure is None:
        return
    fig, axes = figure
    horizon = max(args.T)
    for policy in args.policies:
        pts = [r for r in rows if r["policy"] == policy and r["T"] == horizon and "ms_per_round" in r]
        if pts:
            axes[0].loglog([r["N"] for r in pts], [r["ms_per_round"] for r in pts], "o-", label=policy)
            axes[1].loglog([r["N"] for r in pts], [r["peak_mib"] for r in pts], "o-", label=policy)
    axes[0].set(xlabel="N (candidates)", ylabel="ms per round (mean over T)", title=f"T = {horizon}")
    axes[1].set(xlabel="N (candidates)", ylabel="peak resident MiB", title=f"T = {horizon}")
    axes[0].legend(fontsize=7)
    save_figure(fig, axes, path, "policy_costs.py")


if __name__ == "__main__":
    main()
