#!/usr/bin/env python3
"""Strong and weak scaling of the sharded FinitePosterior on this machine (bench/RESULTS.md).

Runs build/bench/shard_scaling under mpirun for every (N, K) asked, one GP-UCB run (lockstep 1),
and reports per configuration: the round time, its split into compute (the slowest rank's time
outside collectives) and communication (the rest: the collectives themselves plus the wait for the
slowest rank), the slowest rank's CPU time per round (its share of the work, whatever else runs on
the machine), payload bytes per round, peak RSS per rank and the part of it the domain and
posterior added, and whether every K chose the same candidates as K = 1. Writes the raw per-rank lines and the summary to --json.

  python3 bench/shard_scaling.py [--build build] [--strong 1e6,1e7] [--weak 1e6] [--ranks 1,2,4]
                                 [--rounds 20] [--lazy] [--json bench/shard_scaling.json]

Ranks beyond the machine's cores run oversubscribed (--oversubscribe); the table says so.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run_one(exe, n, k, rounds, lazy, nice):
    tmp = tempfile.mkdtemp(prefix="shard_scaling")
    cmd = ["nice", "-n", str(nice), "mpirun", "-np", str(k), "--oversubscribe", "--bind-to",
           "none", exe, "--n", str(n), "--rounds", str(rounds), "--out", tmp + "/r"]
    if lazy:
        cmd.append("--lazy")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1")
    load0 = os.getloadavg()[0]
    subprocess.run(cmd, env=env, check=True)
    lines = []
    for q in range(k):
        with open(f"{tmp}/r.{q}.json") as f:
            lines.append(json.load(f))
    cmd[cmd.index("--out") + 1] = "DIR/r"
    return {"cmd": " ".join(cmd), "load_before": load0, "load_after": os.getloadavg()[0],
            "ranks": lines}


def summarise(res, skip):
    ranks = res["ranks"]
    rounds = len(ranks[0]["round_s"])
    keep = range(skip, rounds)
    # Per round: the slowest rank's compute; communication = rank 0's round time − that.
    round_s = [statistics.mean(r["round_s"][i] for r in ranks) for i in keep]
    compute = [max(r["round_s"][i] - r["comm_s"][i] for r in ranks) for i in keep]
    comm = [max(0.0, a - b) for a, b in zip(round_s, compute)]
    return {
        "n": ranks[0]["n"], "k": len(ranks), "per_rank": ranks[0]["n"] // len(ranks),
        "round_ms": 1e3 * statistics.mean(round_s),
        "compute_ms": 1e3 * statistics.mean(compute),
        "comm_ms": 1e3 * statistics.mean(comm),
        "collective_ms": 1e3 * statistics.mean(ranks[0]["comm_s"][i] for i in keep),
        "bytes_per_round": statistics.mean(ranks[0]["bytes"][i] for i in keep),
        "cpu_ms_max": 1e3 * statistics.mean(max(r["cpu_s"][i] for r in ranks) for i in keep),
        "peak_rss_mb_max": max(r["peak_rss_mb"] for r in ranks),
        "posterior_mb_max": max(r["peak_rss_mb"] - r["base_rss_mb"] for r in ranks),
        "setup_s_max": max(r["setup_s"] for r in ranks),
        "chosen": ranks[0]["chosen"], "load_before": res["load_before"],
        "load_after": res["load_after"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--strong", default="1e6,1e7", help="N values for strong scaling")
    ap.add_argument("--weak", default="1e6", help="candidates per rank for weak scaling")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--skip", type=int, default=2, help="first rounds left out of the means")
    ap.add_argument("--lazy", action="store_true", help="lazy blocks (default: eager update)")
    ap.add_argument("--nice", type=int, default=15)
    ap.add_argument("--json", default="bench/shard_scaling.json")
    a = ap.parse_args()
    exe = os.path.join(a.build, "bench", "shard_scaling")
    ks = [int(k) for k in a.ranks.split(",")]
    jobs = [("strong", int(float(n)), k) for n in a.strong.split(",") for k in ks]
    jobs += [("weak", int(float(p)) * k, k) for p in a.weak.split(",") for k in ks]
    seen, rows, raw = {}, [], []
    for kind, n, k in jobs:
        if (n, k) not in seen:
            print(f"N = {n}, K = {k} ...", file=sys.stderr, flush=True)
            res = run_one(exe, n, k, a.rounds, a.lazy, a.nice)
            raw.append(res)
            seen[(n, k)] = summarise(res, a.skip)
        s = dict(seen[(n, k)], kind=kind)
        base = seen.get((n, 1))
        s["same_choices_as_k1"] = None if base is None else base["chosen"] == s["chosen"]
        rows.append(s)
    cores = os.cpu_count()
    print(f"\n{a.rounds} rounds (first {a.skip} left out), {'lazy' if a.lazy else 'eager'} update,"
          f" {cores} cores: K > {cores} is oversubscribed\n")
    print("| scaling | N | K | N/K | round ms | compute ms | comm ms | comm % | CPU ms/rank |"
          " bytes/round | peak RSS/rank MB | posterior MB/rank | same choices as K=1 |"
          " load (1 min) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    same = {None: "no K=1 run", True: "yes", False: "NO"}
    for s in rows:
        pct = 100 * s["comm_ms"] / s["round_ms"] if s["round_ms"] > 0 else 0
        over = " (oversub.)" if s["k"] > cores else ""
        print(f"| {s['kind']} | {s['n']:.0e} | {s['k']}{over} | {s['per_rank']:.2e} |"
              f" {s['round_ms']:.2f} | {s['compute_ms']:.2f} | {s['comm_ms']:.3f} | {pct:.1f} |"
              f" {s['cpu_ms_max']:.2f} | {s['bytes_per_round']:.0f} |"
              f" {s['peak_rss_mb_max']:.0f} | {s['posterior_mb_max']:.0f} |"
              f" {same[s['same_choices_as_k1']]} |"
              f" {s['load_before']:.1f}→{s['load_after']:.1f} |")
    for s in rows:
        s.pop("chosen", None)
    with open(a.json, "w") as f:
        json.dump({"args": vars(a), "summary": rows, "raw": raw}, f, indent=1)
    print(f"\nraw per-rank data: {a.json}")


if __name__ == "__main__":
    main()
