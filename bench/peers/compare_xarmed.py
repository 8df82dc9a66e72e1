#!/usr/bin/env python3
"""gpbandit's X-armed HCT beside PyXAB's HCT on the same objectives, in one run on one machine.

For every objective and horizon T: gpbandit runs HCT alone (`gpbandit run` on a fed-pne config
with one client and only the HCT method; ms per round = the method's own time in summary.json /
(runs·T)) and bench/peers/pyxab_hct.py runs PyXAB's HCT (same function, same U(-noise, noise)
noise law, same ν, ρ, c, δ, binary splits at the middle of a random axis on both sides). Prints a
Markdown table: objective, T, impl, ms/round, × gpbandit, peak MiB of the process, cumulative
regret mean ± sd over the seeds (a sanity check that both are the same algorithm, not a
benchmark of luck), and writes the rows as JSON. A third row per cell, `pyxab-hct-expand-once`,
is PyXAB with one line of its HCT changed (see pyxab_hct.py --expand-once): it shows where the two
regrets part.

Usage: python3 bench/peers/compare_xarmed.py --build build [--objectives garland doublesine
           himmelblau] [--T 1000 10000] [--seeds 5] [--python PY] [--out bench/results]
--python is an interpreter with PyXAB (`pip install PyXAB`, see bench/README.md).
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from policy_costs import run_rss  # noqa: E402
HCT = {"nu": 1.0, "rho": 0.5, "c": 0.1, "delta": 0.01}
NOISE = 0.1


def gpbandit_row(exe, objective, T, seeds, tmp):
    cfg = {"experiment": "fed-pne", "name": f"hct-{objective}-{T}", "seed": 1, "runs": seeds,
           "horizon": T, "clients": 1, "noise": NOISE, "objective": {"type": objective},
           "methods": [dict(type="hct", label="HCT", **HCT)]}
    path = os.path.join(tmp, "cfg.json")
    with open(path, "w") as fh:
        json.dump(cfg, fh)
    out = os.path.join(tmp, f"out-{objective}-{T}")
    rss = run_rss([exe, "run", path, "--out", out, "--no-plot"], os.path.join(tmp, "gpbandit.log"))
    if rss is None:
        raise RuntimeError(f"gpbandit run failed on {path}")
    with open(os.path.join(out, "summary.json")) as fh:
        s = json.load(fh)
    m = s["methods"][0]
    return {"objective": objective, "T": T, "impl": "gpbandit-hct", "fstar": s["fstar"],
            "ms": 1e3 * m["seconds"] / (seeds * T), "peak_mib": rss,
            "regret_mean": m["regret_mean"], "regret_sd": m["regret_sd"]}


def pyxab_row(python, objective, T, seeds, fstar, tmp, expand_once=False):
    cmd = [python, os.path.join(HERE, "pyxab_hct.py"), objective, str(T), "--seeds", str(seeds),
           "--fstar", repr(fstar), "--noise", str(NOISE)] + \
          [x for k, v in HCT.items() for x in (f"--{k}", str(v))] + \
          (["--expand-once"] if expand_once else [])
    impl = "pyxab-hct" + ("-expand-once" if expand_once else "")
    log = os.path.join(tmp, "pyxab.out")
    rss = run_rss(cmd, log)
    if rss is None:
        return {"objective": objective, "T": T, "impl": impl,
                "skipped": "failed (is PyXAB installed for --python?)"}
    with open(log) as fh:
        rows = [json.loads(line) for line in fh if line.startswith("{")]
    regrets = [r["regret"] for r in rows]
    return {"objective": objective, "T": T, "impl": impl,
            "ms": statistics.mean(r["ms_per_round"] for r in rows), "peak_mib": rss,
            "regret_mean": statistics.mean(regrets),
            "regret_sd": statistics.stdev(regrets) if len(regrets) > 1 else 0.0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--objectives", nargs="+", default=["garland", "doublesine", "himmelblau"])
    ap.add_argument("--T", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "results"))
    args = ap.parse_args()
    exe = os.path.join(args.build, "gpbandit")
    if not os.path.exists(exe):
        raise SystemExit(f"compare_xarmed.py: {exe} not found; build gpbandit_cli first")
    os.makedirs(args.out, exist_ok=True)
    rows = []
    print("| objective | T | impl | ms/round | × gpbandit | peak MiB | regret (mean ± sd) |")
    print("|---|---|---|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for objective in args.objectives:
            for T in args.T:
                g = gpbandit_row(exe, objective, T, args.seeds, tmp)
                p = pyxab_row(args.python, objective, T, args.seeds, g["fstar"], tmp)
                e = pyxab_row(args.python, objective, T, args.seeds, g["fstar"], tmp, True)
                for r in (g, p, e):
                    rows.append(r)
                    if "skipped" in r:
                        print(f"| {objective} | {T} | {r['impl']} | skipped: {r['skipped']} | | | |")
                        continue
                    print(f"| {objective} | {T} | {r['impl']} | {r['ms']:.4f} | "
                          f"{r['ms'] / g['ms']:.0f} | {r['peak_mib']:.0f} | "
                          f"{r['regret_mean']:.1f} ± {r['regret_sd']:.1f} |", flush=True)
    with open(os.path.join(args.out, "xarmed.json"), "w") as fh:
        json.dump({"args": vars(args), "hct": HCT, "noise": NOISE, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
