#!/usr/bin/env python3
"""Fills README.template.md's {{table:NAME}} markers from results/NAME/summary.json (written by
run_all.sh from real runs) and writes README.md. Usage: make_readme.py [--check]"""
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def fmt(x, digits=4):
    if isinstance(x, str):
        return x
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.{digits}g}"


def table(name):
    path = os.path.join(HERE, "results", name, "summary.json")
    with open(path) as f:
        s = json.load(f)
    has_dist = any("distance_to_optimum_mean" in m for m in s["methods"])
    head = ["method", "final loss (mean ± sd)", "evaluations / run", "μ", "noise std ν",
            "δ at ε=1", "seconds"]
    if has_dist:
        head.insert(2, "‖θ_T − θ*‖ (mean ± sd)")
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for m in s["methods"]:
        p = m["privacy"]
        mu = p["mu"] if not isinstance(p["mu"], str) else math.inf
        delta = p.get("delta_at_epsilon", {}).get("1", p.get("delta_at_epsilon", {}).get("1.000000"))
        cells = [m["label"], f"{fmt(m['final_loss_mean'])} ± {fmt(m['final_loss_sd'], 2)}",
                 fmt(m["evaluations_mean"]), fmt(mu), fmt(p.get("noise_std", 0.0)),
                 fmt(delta) if delta is not None else "–", f"{m['seconds']:.1f}"]
        if has_dist:
            d = m.get("distance_to_optimum_mean")
            cells.insert(2, "–" if d is None else
                         f"{fmt(d)} ± {fmt(m.get('distance_to_optimum_sd', 0.0), 2)}")
        rows.append("| " + " | ".join(cells) + " |")
    extra = f"\n\n{s['runs']} runs, task {s['task']}, seed {s['seed']}, privacy noise: " \
            f"{s['privacy_noise']}"
    if "optimum_loss" in s:
        extra += f", optimum loss f(θ*) = {fmt(s['optimum_loss'], 6)}"
    return "\n".join(rows) + extra + "."


def main(argv):
    with open(os.path.join(HERE, "README.template.md")) as f:
        text = f.read()
    out = re.sub(r"\{\{table:([A-Za-z0-9_-]+)\}\}", lambda m: table(m.group(1)), text)
    target = os.path.join(HERE, "README.md")
    if argv and argv[0] == "--check":
        with open(target) as f:
            return 0 if f.read() == out else 1
    with open(target, "w") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
