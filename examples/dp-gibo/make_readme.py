#!/usr/bin/env python3
"""Regenerates README.md (from README.template.md) and plots/ from the committed summary.json files
in results/<config>/ (run_all.sh copies them there from real runs). Markers: {{table:NAME}} (the
methods of one config), {{snr}} (signal ‖g‖ against the privacy noise, every config that logged
it), {{plot:NAME}} (loss curves drawn from the summary's per-iteration means).
Usage: make_readme.py [--check]   (--check: exit 1 if README.md would change)"""
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


def load(name):
    path = os.path.join(HERE, "results", name, "summary.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        s = json.load(f)
    # summary.json's one schema calls them "policies"; results written before it, "methods".
    s.setdefault("methods", s.get("policies", []))
    return s


def table(name):
    s = load(name)
    if s is None:
        return f"(`{name}` has not been run yet; see the cost note above.)"
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


def snr():
    """‖g‖ (the clipped-mean posterior gradient the method sees) against the privacy noise ν√d."""
    rows = ["| experiment | method | d | mean ‖g‖ | ν | ν√d (expected ‖noise‖) | mean ν‖w‖ | ‖g‖ / ν√d | final loss |",
            "|---|---|---|---|---|---|---|---|---|"]
    for name in sorted(os.listdir(os.path.join(HERE, "results"))):
        s = load(name)
        if s is None:
            continue
        task = s["config"]["task"]
        d = task["d"] if "d" in task else task.get("p", 0) + 3
        for m in s["methods"]:
            if "grad_norm_mean" not in m:
                continue
            nu = m["privacy"].get("noise_std", 0.0)
            exp = m["noise_norm_expected"]
            ratio = "∞ (no noise)" if exp == 0 else f"{m['grad_norm_mean'] / exp:.2f}"
            rows.append(f"| {name} | {m['label']} | {d} | {fmt(m['grad_norm_mean'], 3)} | {fmt(nu, 3)} | "
                        f"{fmt(exp, 3)} | {fmt(m['noise_norm_mean'], 3)} | {ratio} | "
                        f"{fmt(m['final_loss_mean'])} ± {fmt(m['final_loss_sd'], 2)} |")
    return "\n".join(rows)


def plot(name):
    s = load(name)
    if s is None or not all("curve" in m for m in s["methods"]):
        legacy = os.path.join("results", name, "loss.png")
        return f"![{name}]({legacy})" if os.path.exists(os.path.join(HERE, legacy)) else ""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ""
    os.makedirs(os.path.join(HERE, "plots"), exist_ok=True)
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for m in s["methods"]:
        c = m["curve"]
        x = c["evaluations"]
        lo = [a - b for a, b in zip(c["loss_mean"], c["loss_sd"])]
        hi = [a + b for a, b in zip(c["loss_mean"], c["loss_sd"])]
        ax.plot(x, c["loss_mean"], label=m["label"])
        ax.fill_between(x, lo, hi, alpha=0.2)
    ax.set_xlabel("evaluations")
    ax.set_ylabel("noise-free loss (mean ± sd)")
    ax.set_title(f"{name} ({s['runs']} runs)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "plots", name + ".png"), dpi=80)
    plt.close(fig)
    return f"![{name}](plots/{name}.png)"


def verdict(name):
    """The reading of a finished run, written by hand into verdicts/NAME.md after looking at it."""
    path = os.path.join(HERE, "verdicts", name + ".md")
    if not os.path.exists(path):
        return "gpbandit: verdict pending (the runs of this section have not all finished)."
    with open(path) as f:
        return f.read().strip()


def main(argv):
    with open(os.path.join(HERE, "README.template.md")) as f:
        text = f.read()
    out = re.sub(r"\{\{table:([A-Za-z0-9_.-]+)\}\}", lambda m: table(m.group(1)), text)
    out = re.sub(r"\{\{plot:([A-Za-z0-9_.-]+)\}\}", lambda m: plot(m.group(1)), out)
    out = out.replace("{{snr}}", snr())
    out = re.sub(r"\{\{verdict:([A-Za-z0-9_.-]+)\}\}", lambda m: verdict(m.group(1)), out)
    target = os.path.join(HERE, "README.md")
    if argv and argv[0] == "--check":
        with open(target) as f:
            return 0 if f.read() == out else 1
    with open(target, "w") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
