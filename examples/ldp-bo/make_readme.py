#!/usr/bin/env python3
"""Writes README.md (from README.template.md) and plots/ from the committed summary.json files
under results/ (written by run_all.sh from real runs). Usage: make_readme.py [--check]
  --check: exit 1 if README.md differs from what the summaries give (plots are not compared).

Placeholders of the template: {{PANELS}} (per-panel verdicts), {{REGRET}} (R_T of every policy),
{{EPSPAIRS}} (eps 0.5 -> 1 on the same instance), {{WHY_EPS}}, {{WHY_WIDTH}}, {{WHY_TRUNC}},
{{WHY_SAMPLER}}, {{WHY_CLIP}}, {{SCALE}}, {{SCALES}}, {{REGIME}} (regime.py). Every number comes
from a summary.json; a missing run prints a "not run" row.
"""
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from readme_io import check_or_write  # noqa: E402
import ldp_stats as st  # noqa: E402
import regime  # noqa: E402
import verdicts  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

CLAIMS = {  # specs/ldp-bo.md §7
    "L1": ("Fig 2(a)", "LDP, synthetic Matérn, ϵ = 1", "outperform"),
    "L2": ("Fig 2(b)", "LDP, light sensor, ϵ = 0.5", "outperform"),
    "L3": ("Fig 2(c)", "LDP, stock, ϵ = 1", "outperform"),
    "L4": ("Fig 2(d)", "non-private, synthetic SE, Student-t₃", "outperform"),
    "L5": ("Fig 2(e)", "non-private, light sensor", "outperform"),
    "L6": ("Fig 2(f)", "non-private, stock", "outperform"),
    "L7": ("Fig 3(a)", "LDP, synthetic SE, ϵ = 1", "competitive"),
    "L8": ("Fig 3(b)", "LDP, light sensor, ϵ = 1", "competitive"),
    "L9": ("Fig 3(c)", "LDP, stock, ϵ = 0.5", "competitive"),
}


def panels_table(data):
    rows = ["| panel | paper | setting | preset | paper claim | MoMA rank (1 = best of 3) "
            "| MoMA − TGP, MoMA − ATA, MoMA − random (paired over the trials: mean ± se, "
            "k/n lower, rule's outcome) | MoMA R_T / random R_T | claim holds (rule) |",
            "|---|---|---|---|---|---|---|---|---|"]
    for pid, (fig, setting, kind) in CLAIMS.items():
        s = data.get(pid)
        if s is None:
            rows.append(f"| {pid} | {fig} | {setting} | | | not run | | | |")
            continue
        for preset in ("practical", "theory"):
            v = st.moma_verdict(s, preset, kind)
            claim = "MoMA tends to outperform" if kind == "outperform" else \
                "MoMA better or competitive"
            cm = [v["cmps"]["tgp"], v["cmps"]["ata"]] + ([v["learn"]] if v["learn"] else [])
            cells = "; ".join(f"{c.text()} **{c.word}**" for c in cm)
            rows.append(f"| {pid} | {fig} | {setting} | {preset} | {claim} | {v['rank']} "
                        f"| {cells} | {v['vs_random']:.3f} | {'yes' if v['holds'] else 'no'} |")
    return "\n".join(rows)


def regret_table(data):
    rows = ["| panel | policy | R_T mean | R_T sd | R_T / random | seconds (all trials) |",
            "|---|---|---|---|---|---|"]
    for pid in CLAIMS:
        s = data.get(pid)
        if s is None:
            continue
        rnd = st.random_mean(s)
        for p in s["policies"]:
            c = p["cumulative_regret"]
            ratio = f"{c['mean'] / rnd:.3f}" if rnd else "–"
            rows.append(f"| {pid} (T = {s['T']}, {s['runs']} trials) | {p['label']} "
                        f"| {st.fmt(c['mean'])} | {st.fmt(c['sd'])} | {ratio} "
                        f"| {p['seconds']:.1f} |")
    return "\n".join(rows)


def other_claims(data):
    rows = ["| claim (specs/ldp-bo.md §7) | statistic | claim holds |", "|---|---|---|"]
    for u in verdicts.text_claims(data):
        rows.append(f"| {u['fig']}: {u['claim']} | {u['stat']} | "
                    f"{'yes' if u['verdict'] == 'reproduced' else 'no'} |")
    return "\n".join(rows)


def eps_pairs(data):
    rows = ["| instance | policy | R_T at ϵ = 0.5 | R_T at ϵ = 1 | ratio (ϵ = 0.5 / ϵ = 1) "
            "| bounds predict |", "|---|---|---|---|---|---|"]
    for inst, lo, hi in (("light", "L2", "L8"), ("stock", "L9", "L3")):
        if lo not in data or hi not in data:
            rows.append(f"| {inst} | not run | | | | |")
            continue
        for p in data[lo]["policies"]:
            q = next((q for q in data[hi]["policies"] if q["label"] == p["label"]), None)
            if q is None:
                continue
            a, b = p["cumulative_regret"]["mean"], q["cumulative_regret"]["mean"]
            rows.append(f"| {inst} | {p['label']} | {st.fmt(a)} | {st.fmt(b)} | {a / b:.3f} "
                        "| 2 (upper bounds) to 2.65 (lower bound) |")
    return "\n".join(rows)


def why_table(data, kind):
    rows = ["| instance | policy | R_T mean ± sd | R_T / random | vs random: paired wins, rule "
            "| seconds |", "|---|---|---|---|---|---|"]
    for inst in ("synthetic", "synthetic-rivals", "matern", "matern-rivals", "matern-ata",
                 "matern-confirm", "light", "stock"):
        s = data.get(f"why-{kind}-{inst}")
        if s is None:
            continue
        rnd = st.random_mean(s)
        rand = st.policy(s, "Uniform random (baseline)")
        for p in s["policies"]:
            c = p["cumulative_regret"]
            wins = "–"
            if p is not rand:
                cr = st.vr.paired(st.runs(p), st.runs(rand))
                wins = f"{cr.wins}/{cr.n}, {cr.word}"
            rows.append(f"| {inst} | {p['label']} | {st.fmt(c['mean'])} ± {st.fmt(c['sd'])} "
                        f"| {c['mean'] / rnd:.3f} | {wins} | {p['seconds']:.1f} |")
    if len(rows) == 2:
        rows.append("| not run | | | | | |")
    return "\n".join(rows)


def scales_table(data):
    rows = ["| instance | ϵ | 𝓛 = 2(B+R)/ϵ | reward noise sd | mean gap of random play "
            "| se of an arm mean, all T/N plays (TGP) | se of MoMA's kept replicate (T/(kN) plays) "
            "| β_TGP(T) | β_MoMA |", "|---|---|---|---|---|---|---|---|---|"]
    for inst in ("synthetic", "matern", "light", "stock"):
        s = data.get(f"why-eps-{inst}")
        if s is None:
            continue
        for r in st.scales(s):
            rows.append(f"| {inst} | {r['eps']:g} | {st.fmt(r['L'])} | {st.fmt(r['sd'])} "
                        f"| {st.fmt(r['gap'])} | {st.fmt(r['se_pooled'])} "
                        f"| {st.fmt(r['se_moma'])} | {st.fmt(r['beta_tgp'])} "
                        f"| {st.fmt(r['beta_moma'])} |")
    if len(rows) == 2:
        rows.append("| not run | | | | | | | | |")
    return "\n".join(rows)


def scale_table(data):
    rows = ["| config | N | d | T | runs | policy | R_T mean ± sd | seconds |",
            "|---|---|---|---|---|---|---|---|"]
    for name in ("scale-1e5-d2", "scale-1e6-d3"):
        s = data.get(name)
        if s is None:
            continue
        for p in s["policies"]:
            c = p["cumulative_regret"]
            rows.append(f"| {name}.json | {s['N']} | {s['d']} | {s['T']} | {s['runs']} "
                        f"| {p['label']} | {st.fmt(c['mean'])} ± {st.fmt(c['sd'])} "
                        f"| {p['seconds']:.1f} |")
    return "\n".join(rows)


def main(argv):
    data = st.load(os.path.join(HERE, "results"))
    with open(os.path.join(HERE, "README.template.md")) as f:
        text = f.read()
    parts = {"PANELS": panels_table(data), "REGRET": regret_table(data),
             "CLAIMS": other_claims(data), "EPSPAIRS": eps_pairs(data),
             "WHY_EPS": why_table(data, "eps"), "WHY_WIDTH": why_table(data, "width"),
             "WHY_TRUNC": why_table(data, "trunc"), "WHY_CLIP": why_table(data, "clip"),
             "WHY_SAMPLER": why_table(data, "sampler"),
             "SCALE": scale_table(data), "SCALES": scales_table(data),
             "REGIME": regime.regime_text(data),
             "VERDICTS": st.vr.table(verdicts.units())}
    text = re.sub(r"\{\{([A-Z_]+)\}\}", lambda m: parts[m.group(1)], text)
    code, wrote = check_or_write(os.path.join(HERE, "README.md"), text, argv)
    if wrote:
        st.plots(data, os.path.join(HERE, "plots"))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
