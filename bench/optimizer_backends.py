#!/usr/bin/env python3
"""gpbandit.minimize on the CPU and on CUDA, side by side: what Backend::Auto's choice of the GPU
costs or gains for a user's own function (issue #27: Auto picks CUDA whenever a device is
present). On a box every ask refines beyond the candidates and the candidate set grows by the
points visited (FinitePosterior::add_candidates), so this also times the growing set on CUDA. Branin (bench/peers/branin_acceptance.py) for 40 calls, with minimize's default 4096
candidates and with 65 536, seeds 0..SEEDS−1, each backend in turn; prints one JSON line per
(backend, candidates, seed): seconds per call and the best value, then one summary line per
candidate count with the CUDA ÷ CPU time ratio (median over seeds) and on how many seeds the two
backends ended at the same best value (they run the same model; rounding may part them: the
summary also gives the largest relative difference of the two best values).

Usage: python3 bench/optimizer_backends.py --build BUILD [--seeds 3] [--backends cpu cuda]
       python3 bench/optimizer_backends.py --summary FILE   (one line from a run's JSON lines)
Run by bench/run_gpu_checks.sh after the Python module is built.
"""
import argparse
import json
import os
import statistics
import sys
import time



def one(gb, problem, backend, n_points, seed):
    bounds, f = problem
    t0 = time.perf_counter()
    r = gb.minimize(f, bounds, n_calls=40, seed=seed, n_points=n_points, backend=backend)
    return {"backend": backend, "n_points": n_points, "seed": seed,
            "s_per_call": (time.perf_counter() - t0) / 40, "best": float(r.fun)}


def summary(path):
    """One line from a run's summary records."""
    parts, best = [], {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            if not d.get("summary"):
                best.setdefault(d["n_points"], {}).setdefault(d["seed"], []).append(d["best"])
                continue
            pairs = [v for v in best.get(d["n_points"], {}).values() if len(v) == 2]
            apart = max((abs(a - b) / max(abs(a), abs(b), 1e-300) for a, b in pairs), default=0)
            parts.append(f"{d['n_points']} candidates: {d['ratio']} time "
                         f"{d['time_ratio_median']:.2f}, same best {d['same_best']}/{d['seeds']} "
                         f"(largest relative difference {apart:.1e})")
    return "; ".join(parts) or "no summary"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", help="the build folder whose python/ to import")
    ap.add_argument("--summary", metavar="FILE", help="print one line from a run's output")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--backends", nargs="+", default=["cpu", "cuda"], choices=["cpu", "cuda"])
    args = ap.parse_args()
    if args.summary:
        print(summary(args.summary))
        return
    if not args.build:
        ap.error("--build is required")
    sys.path.insert(0, os.path.join(args.build, "python"))
    import gpbandit as gb  # noqa: E402 (the build's module, found only now)

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
    from branin_acceptance import BOUNDS, branin  # noqa: E402 (imports gpbandit itself)

    for n_points in (4096, 65536):
        runs = {}
        for backend in args.backends:
            for seed in range(args.seeds):
                rec = one(gb, (BOUNDS, branin), backend, n_points, seed)
                runs[(backend, seed)] = rec
                print(json.dumps(rec), flush=True)
        if len(args.backends) == 2:
            a, b = args.backends
            ratio = statistics.median(runs[(b, s)]["s_per_call"] / runs[(a, s)]["s_per_call"]
                                      for s in range(args.seeds))
            same = sum(runs[(a, s)]["best"] == runs[(b, s)]["best"] for s in range(args.seeds))
            print(json.dumps({"summary": True, "n_points": n_points, "ratio": f"{b}/{a}",
                              "time_ratio_median": ratio, "same_best": same,
                              "seeds": args.seeds}), flush=True)


if __name__ == "__main__":
    main()
