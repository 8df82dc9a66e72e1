#!/usr/bin/env python3
"""Peak memory per rank of `mpirun -np K gpbandit run CONFIG --mpi` (issue #19, point 4).

Runs one finite-domain config (a grid with an rkhs objective and GP-UCB, so every rank builds
only its slice of the domain and of f) at each K, and a tiny config (N = 8, same policy) at each
K for the fixed cost of a process (library, MPI, allocator). Reports per K the largest peak RSS of
any rank (/usr/bin/time %M), the N-dependent part (peak − the tiny run's peak at the same K), its
ratio to 1/K of the K = 1 figure (target ≤ 1.10), and whether runs.csv is byte-identical to K = 1.
With --domain csv the same grid points are written to a CSV file and read as a CSV domain (rank 0
reads the file and scatters the slices): the table then also shows rank 0's peak apart from the
other ranks' (rank 0 holds the whole file while it scatters).

  python3 bench/shard_cli_memory.py [--cli build/gpbandit] [--counts 2000,2000] [--T 30]
                                    [--ranks 1,2,4] [--domain grid|csv]
                                    [--json bench/shard_cli_memory.json]
"""
import itertools
import argparse
import filecmp
import json
import os
import subprocess
import tempfile


def grid_points(counts):
    """The grid's points in candidate order (axis 0 fastest), as Domain::grid makes them."""
    axes = [[(i / (c - 1) if c > 1 else 0.5) for i in range(c)] for c in counts]
    for p in itertools.product(*reversed(axes)):
        yield tuple(reversed(p))


def write_csv(counts, path):
    with open(path, "w") as f:
        f.write(",".join(f"x{i + 1}" for i in range(len(counts))) + "\n")
        for p in grid_points(counts):
            f.write(",".join(repr(x) for x in p) + "\n")


def config(counts, horizon, name, csv=None):
    return {
        "name": name, "seed": 3, "runs": 1, "lockstep": 1, "T": horizon, "threads": 1,
        "backend": "cpu", "noise_variance": 0.01,
        "domain": {"type": "csv", "path": csv} if csv else
                  {"type": "grid", "lower": [0] * len(counts), "upper": [1] * len(counts),
                   "counts": counts},
        "kernel": {"type": "matern52", "lengthscale": 0.2},
        "objective": {"type": "rkhs", "support": 20},
        "noise": {"type": "gaussian", "sd": 0.1},
        "policies": [{"type": "gp_ucb", "label": "GP-UCB"}],
    }


def run(cli, cfg, k, tmp, tag):
    path = os.path.join(tmp, tag + ".json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    out = os.path.join(tmp, tag)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1")
    rss_file = os.path.join(tmp, tag + ".rss")
    inner = (f"/usr/bin/time -f %M -o {rss_file}.$OMPI_COMM_WORLD_RANK {cli} run {path} "
             f"--quiet --no-plot --out {out}" + (" --mpi" if k > 1 else ""))
    cmd = ["mpirun", "-np", str(k), "--oversubscribe", "--bind-to", "none", "sh", "-c", inner]
    subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    rss = []
    for q in range(k):
        with open(f"{rss_file}.{q}") as f:
            rss.append(int(f.read().split()[-1]))
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    return {"peak_rss_mb": [r / 1024 for r in rss], "runs_csv": os.path.join(out, "runs.csv"),
            "sharded": s.get("mpi", {}).get("sharded"), "N": s["N"],
            "cmd": " ".join(cmd).replace(tmp, "DIR")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default="build/gpbandit")
    ap.add_argument("--counts", default="2000,2000")
    ap.add_argument("--T", type=int, default=30)
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--domain", choices=["grid", "csv"], default="grid")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    counts = [int(c) for c in a.counts.split(",")]
    ranks = [int(k) for k in a.ranks.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="shard_mem") as tmp:
        base = None
        csv = None
        if a.domain == "csv":
            csv = os.path.join(tmp, "points.csv")
            write_csv(counts, csv)
        for k in ranks:
            big = run(a.cli, config(counts, a.T, "big", csv), k, tmp, f"big{k}")
            tiny = run(a.cli, config([8], a.T if a.T <= 8 else 8, "tiny"), k, tmp, f"tiny{k}")
            peak, fixed = max(big["peak_rss_mb"]), max(tiny["peak_rss_mb"])
            part = peak - fixed
            if base is None:
                base, base_csv = part, big["runs_csv"]
            rows.append({"K": k, "N": big["N"], "T": a.T, "peak_rss_mb_max": peak,
                         "peak_rss_mb_per_rank": big["peak_rss_mb"], "fixed_mb": fixed,
                         "n_dependent_mb": part, "ratio_to_1_over_K": part / (base / k),
                         "same_runs_csv": filecmp.cmp(base_csv, big["runs_csv"], shallow=False),
                         "sharded": big["sharded"], "cmd": big["cmd"]})
    print(f"domain: {a.domain}")
    print("| K | N | T | peak RSS/rank MB (max) | rank 0 / others max MB | fixed MB (N = 8) | "
          "N-dependent MB/rank | ÷ (K=1 figure / K) | runs.csv = K=1 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        per = r["peak_rss_mb_per_rank"]
        split = f"{per[0]:.0f} / {max(per[1:]):.0f}" if len(per) > 1 else f"{per[0]:.0f} / –"
        print(f"| {r['K']} | {r['N']:.0e} | {r['T']} | {r['peak_rss_mb_max']:.0f} | {split} | "
              f"{r['fixed_mb']:.0f} | {r['n_dependent_mb']:.0f} | {r['ratio_to_1_over_K']:.3f} | "
              f"{'yes' if r['same_runs_csv'] else 'NO'} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
