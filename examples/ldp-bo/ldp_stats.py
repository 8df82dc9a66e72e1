#!/usr/bin/env python3
"""Statistics and plots of the LDP-BO examples, from summary.json files only (make_readme.py)."""
import glob
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import verdict_rule as vr  # noqa: E402

RANDOM = "Uniform random (baseline)"
FAMILIES = ("tgp", "ata", "moma")


def load(results):
    """<name> -> summary of results/<name>/summary.json."""
    out = {}
    for path in sorted(glob.glob(os.path.join(results, "*", "summary.json"))):
        with open(path) as f:
            out[os.path.basename(os.path.dirname(path))] = json.load(f)
    return out


def fmt(x):
    return f"{x:.4g}"


def policy(s, label):
    return next((p for p in s["policies"] if p["label"] == label), None)


def random_mean(s):
    p = policy(s, RANDOM)
    return p["cumulative_regret"]["mean"] if p else None


def paired_wins(a, b):
    """'k/n': trials in which policy a's R_T is below policy b's (same trial = same run id)."""
    x, y = a["cumulative_regret_per_run"], b["cumulative_regret_per_run"]
    return f"{sum(u < v for u, v in zip(x, y))}/{len(x)}"


def family(p):
    return next(f for f in FAMILIES if f in p["type"])


def paper_group(s, preset):
    """{family: policy} of the paper's three algorithms with `preset`."""
    return {family(p): p for p in s["policies"]
            if p.get("params", {}).get("preset") == preset and
            any(f in p["type"] for f in FAMILIES)}


def runs(p):
    return p["cumulative_regret_per_run"]


def moma_verdict(s, preset, kind):
    """MoMA's rank, paired comparisons and the verdict for one panel and preset, with the rule of
    examples/verdict_rule.py (paired over the trials: same run id = same f and instance; a
    difference counts at two standard errors).

    outperform (Fig 2): holds when MoMA is lower than both TGP and ATA. competitive (Fig 3): holds
    when neither is lower than MoMA and MoMA is lower than uniform random play (it learns)."""
    g = paper_group(s, preset)
    moma = g["moma"]
    means = {f: p["cumulative_regret"]["mean"] for f, p in g.items()}
    order = sorted(means, key=means.get)
    cmps = {f: vr.paired(runs(moma), runs(g[f])) for f in ("tgp", "ata")}
    rnd = policy(s, RANDOM)
    learn = vr.paired(runs(moma), runs(rnd)) if rnd else None
    if kind == "outperform":
        holds = all(c.lower for c in cmps.values())
    else:
        holds = not any(c.higher for c in cmps.values()) and learn is not None and learn.lower
    ratio = means["moma"] / rnd["cumulative_regret"]["mean"] if rnd else float("nan")
    stat = (f"MoMA − TGP {cmps['tgp'].text()} {cmps['tgp'].word}; MoMA − ATA "
            f"{cmps['ata'].text()} {cmps['ata'].word}"
            + (f"; MoMA − random {learn.text()} {learn.word}" if learn else ""))
    return {"rank": order.index("moma") + 1, "cmps": cmps, "learn": learn, "vs_random": ratio,
            "holds": holds, "stat": stat,
            "verdict": vr.REPRODUCED if holds else vr.NOT_REPRODUCED}


def cv_paper_algorithms(s):
    """Median over the six paper policies of sd/mean of R_T across trials."""
    cvs = [p["cumulative_regret"]["sd"] / p["cumulative_regret"]["mean"]
           for preset in ("practical", "theory") for p in paper_group(s, preset).values()]
    return statistics.median(cvs)


def timing_order(s):
    """Per preset: is ATA the slowest and MoMA the fastest of the three (wall-clock seconds)?"""
    ata = moma = 0
    for preset in ("practical", "theory"):
        g = paper_group(s, preset)
        sec = {f: p["seconds"] for f, p in g.items()}
        ata += max(sec, key=sec.get) == "ata"
        moma += min(sec, key=sec.get) == "moma"
    return {"ata_slowest": ata, "moma_fastest": moma}


def scales(s):
    """Signal against noise for each LDP-MoMA policy (one eps each) of a why-eps summary.

    From the instance values in summary.json and the formulas of specs/ldp-bo.md §4 (practical):
    Laplace scale L, reward noise sd sqrt(c0 + 2L^2), the mean gap of uniform play
    R_T(random)/T, the standard error of one arm's mean from T/N plays (TGP pools every reward)
    and from T/(kN) (MoMA keeps one of its k replicates), and the final widths
    beta_TGP(T) = B + (B + R + L ln T) sqrt(ln T), beta_MoMA = B + sqrt(N (c0 + 2 L^2))."""
    inst = s["instance"]
    T, N = s["T"], s["N"]
    B = statistics.median(inst["B_per_run"])
    R = inst["R"]
    c0 = inst.get("c_emp", 1.0 / 3.0) or 1.0 / 3.0  # U[-1, 1] noise: 1/3 (spec §4)
    k = math.ceil(math.log(4 * math.e * T / 0.1))
    gap = random_mean(s) / T
    rows = []
    for p in s["policies"]:
        if "moma" not in p["type"]:
            continue
        eps = p["params"]["epsilon"]
        L = 2 * (B + R) / eps
        sd = math.sqrt(c0 + 2 * L * L)
        b_tgp = B + (B + R + L * math.log(T)) * math.sqrt(math.log(T))
        b_moma = B + math.sqrt(N * (c0 + 2 * L * L))
        rows.append({"eps": eps, "L": L, "sd": sd, "gap": gap, "se_pooled": sd / math.sqrt(T / N),
                     "se_moma": sd / math.sqrt(T / (k * N)), "beta_tgp": b_tgp,
                     "beta_moma": b_moma})
    return rows


def plots(data, out_dir):
    """plots/<name>.png: mean cumulative regret ± sd over the trials for every policy."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("make_readme.py: matplotlib missing, plots/ not redrawn")
        return
    os.makedirs(out_dir, exist_ok=True)
    for name, s in data.items():
        t = s["curve_evaluations"]
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for p in s["policies"]:
            m = p["mean_cumulative_regret_curve"]
            sd = p.get("sd_cumulative_regret_curve", [0.0] * len(m))
            style = "--" if p["label"] == RANDOM else "-"
            line, = ax.plot(t, m, style, label=p["label"], lw=1.2)
            ax.fill_between(t, [a - b for a, b in zip(m, sd)], [a + b for a, b in zip(m, sd)],
                            color=line.get_color(), alpha=0.12, lw=0)
        ax.set_xlabel("round t")
        ax.set_ylabel(f"cumulative regret R_t (mean ± sd, {s['runs']} trials)")
        ax.set_title(f"{name}: {s['config'].get('description', '')[:70]}", fontsize=8)
        ax.legend(fontsize=6, loc="upper left")
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, f"{name}.png"), dpi=80)
        plt.close(fig)
