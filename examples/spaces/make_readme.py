#!/usr/bin/env python3
"""Writes README.md (from README.template.md) from the cached campaign results under results/
(written by run_campaigns.py from real runs). Usage: make_readme.py [--check]
  --check: exit 1 if README.md differs from what the results give.

Statistics: experiments to a top-1 % yield are censored at 50 (no such yield in the campaign);
medians say ">50" when censored, means and paired differences count a censored run as 51 (so a
mean is a lower bound). Paired comparisons use the seeds both arms ran, with the two-standard-
error rule of examples/verdict_rule.py."""
import glob
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from readme_io import check_or_write  # noqa: E402
from verdict_rule import fmt, paired  # noqa: E402

DATASETS = [("direct_arylation", "Direct arylation"), ("suzuki", "Suzuki–Miyaura"),
            ("aryl_amination", "Buchwald–Hartwig amination")]
METHODS = ["random", "gpbandit-ohe", "gpbandit-dft", "gpbandit-mordred", "gpbandit-ohe-ucb",
           "gpbandit-ohe-ucb1", "gpbandit-ohe-q1", "gpbandit-md-q1", "gpbandit-dft-q1", "gpbandit-ohe-chen", "gpbandit-mordred-chen",
           "gpbandit-ohe-iso", "gpbandit-ohe-ml", "gpbandit-ohe-noise", "gpbandit-ohe-hamming",
           "gpbandit-ohe-hamming-iso", "gpbandit-ohe-parts", "gpbandit-dft-parts", "gpbandit-fp",
           "gpbandit-fp-parts", "gpbandit-md", "gpbandit-rdkit", "gpbandit-minmax",
           "gpbandit-views-concat",
           "gpbandit-views-sum", "gpbandit-views-product", "gpbandit-ohe-lps", "gpbandit-dft-lps",
           "gpbandit-ohe-pdim", "gpbandit-dft-pdim", "gpbandit-fp-pdim", "gpbandit-select",
           "gpbandit-select-parts", "gpbandit-ohe-parts-sum", "gpbandit-dft-parts-sum"]
METHODS += [f"gpbandit-{e}-{v}" for e in ("ohe", "dft", "mordred")
            for v in ("warp", "add", "mindef", "ts")]
METHODS += ["gpbandit-ohe-oracle", "gpbandit-dft-oracle", "gpbandit-mordred-oracle", "baybe-ohe",
            "baybe-mordred", "baybe-ecfp"]
# Hyperparameters fitted on the whole table (the answers): a reference, not a method; shown in
# their own table against BayBE and against the same model fitted by the campaign.
ORACLE = [m for m in METHODS if m.endswith("-oracle")]
GPBANDIT = [m for m in METHODS if m.startswith("gpbandit") and m not in ORACLE]
# gpbandit's own encodings: the issue's three (one-hot, DFT, fingerprints) and the molecules'
# Mordred descriptors (gpbandit.chem.label_descriptors); the rest are diagnostics.
PRIMARY = ["gpbandit-ohe", "gpbandit-dft", "gpbandit-fp", "gpbandit-md"]
# Also shown against BayBE (not deciding the goal lines, which stay with PRIMARY): gpbandit's
# model on BayBE's own features, the per-parameter kernel on one-hot encodings, random search.
SHOWN_VS_BAYBE = PRIMARY + ["gpbandit-mordred", "gpbandit-ohe-parts", "random"]
BAYBE = [m for m in METHODS if m.startswith("baybe")]
CENSORED = 51  # experiments to a target that a 50-experiment campaign never reached


def load(results=os.path.join(HERE, "results")):
    """{dataset: {method: {seed: run}}} of every cached run."""
    out = {}
    for path in sorted(glob.glob(os.path.join(results, "*", "*", "seed*.json"))):
        with open(path) as f:
            r = json.load(f)
        out.setdefault(r["dataset"], {}).setdefault(r["method"], {})[r["seed"]] = r
    return out


def to_top1(r, censored=CENSORED):
    """Experiments to a top-1 % yield; `censored` for a campaign that never reached one."""
    v = r["metrics"]["to_top1"]
    return censored if v is None else v


def to_best(r):
    v = r["metrics"]["to_best"]
    return CENSORED if v is None else v


def best25(r):
    return r["metrics"]["best_after"]["25"]


def chosen_mean(r):
    """Mean yield of the experiments the method chose (after the shared start): how much it
    exploits."""
    return float(np.mean(r["yields"][r["init"]:]))


def per_batch(r):
    s = r["seconds_per_batch"]
    return sum(s) / len(s) if s else float("nan")


def median_iqr(v, censored=False):
    q1, q2, q3 = np.percentile(v, [25, 50, 75])

    def c(x):
        return ">50" if censored and x > 50 else f"{x:.0f}"

    if censored:
        return f"{c(q2)} [{c(q1)}, {c(q3)}]"
    return f"{q2:.1f} [{q1:.1f}, {q3:.1f}]"


def mean_se(v, digits=1):
    v = np.asarray(v, float)
    se = v.std(ddof=1) / math.sqrt(len(v)) if len(v) > 1 else float("nan")
    return f"{v.mean():.{digits}f} ± {se:.{digits}f}"


def best_baybe(runs):
    """BayBE's best encoding on a data set: lowest mean experiments to a top-1 % yield (ties:
    higher mean best-after-25), among its encodings with ≥ 5 runs (else ≥ 2: an encoding run
    on fewer seeds is in the metrics table only); None without any."""
    arms = [m for m in BAYBE if len(runs.get(m, {})) >= 5] or [
        m for m in BAYBE if len(runs.get(m, {})) >= 2]
    if not arms:
        return None
    return min(arms, key=lambda m: (np.mean([to_top1(r) for r in runs[m].values()]),
                                    -np.mean([best25(r) for r in runs[m].values()])))


def secs(runs):
    t = np.mean([per_batch(r) for r in runs])
    return "—" if math.isnan(t) else f"{t:.3g}"


def metrics_table(data):
    lines = ["| data set | method | runs | best after 10 | best after 25 | best after 50 | "
             "experiments to top-1 %: median [IQR] | mean ± se | reached | experiments to the "
             "best: median | reached | mean yield chosen | s per batch of 5 |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for d, title in DATASETS:
        for m in METHODS:
            runs = list(data.get(d, {}).get(m, {}).values())
            if not runs:
                continue
            b = {k: [r["metrics"]["best_after"][k] for r in runs] for k in ("10", "25", "50")}
            t1 = [to_top1(r) for r in runs]
            tb = [to_best(r) for r in runs]
            lines.append(
                f"| {title} | {m} | {len(runs)} | {median_iqr(b['10'])} | {median_iqr(b['25'])} | "
                f"{median_iqr(b['50'])} | {median_iqr(t1, True)} | {mean_se(t1)} | "
                f"{sum(v <= 50 for v in t1)}/{len(runs)} | {median_iqr(tb, True).split(' ')[0]} | "
                f"{sum(v <= 50 for v in tb)}/{len(runs)} | "
                f"{np.mean([chosen_mean(r) for r in runs]):.1f} | {secs(runs)} |")
    return "\n".join(lines)


def wlt(a, b, higher_better):
    """'wins/losses/ties' of a against b, seed by seed."""
    w = sum((x > y) if higher_better else (x < y) for x, y in zip(a, b))
    l_ = sum((x < y) if higher_better else (x > y) for x, y in zip(a, b))
    return w, l_, len(a) - w - l_


def top1_vs(runs, m, ref):
    """Method m against ref on their shared seeds, experiments to a top-1 % yield: (the number of
    shared seeds, the paired Cmp), or (n, None) when fewer than two seeds are shared."""
    seeds = sorted(set(runs.get(m, {})) & set(runs.get(ref, {}))) if ref else []
    if len(seeds) < 2:
        return len(seeds), None
    return len(seeds), paired([to_top1(runs[m][s]) for s in seeds],
                              [to_top1(runs[ref][s]) for s in seeds])


def paired_outcomes(runs, m, ref, seeds):
    """Method m against ref on their shared seeds: experiments to a top-1 % yield (paired Cmp,
    w/l/t) and best after 25 (paired Cmp on the negated yields, so lower = better; mean Δ of the
    yields; w/l/t)."""
    a1 = [to_top1(runs[m][s]) for s in seeds]
    b1 = [to_top1(runs[ref][s]) for s in seeds]
    a25 = [best25(runs[m][s]) for s in seeds]
    b25 = [best25(runs[ref][s]) for s in seeds]
    return {"top1": paired(a1, b1), "top1_wlt": wlt(a1, b1, False),
            "b25": paired([-v for v in a25], [-v for v in b25]),
            "b25_d": float(np.mean(np.subtract(a25, b25))), "b25_wlt": wlt(a25, b25, True)}


def comparisons(data):
    """Per data set and gpbandit method: the paired statistics against BayBE's best encoding."""
    out = []
    for d, title in DATASETS:
        runs = data.get(d, {})
        ref = best_baybe(runs)
        if ref is None:
            continue
        for m in SHOWN_VS_BAYBE:
            if m not in runs:
                continue
            seeds = sorted(set(runs[m]) & set(runs[ref]))
            if len(seeds) < 2:
                continue
            ta = np.mean([per_batch(runs[m][s]) for s in seeds])
            tb = np.mean([per_batch(runs[ref][s]) for s in seeds])
            out.append({"dataset": d, "title": title, "method": m, "ref": ref, "n": len(seeds),
                        **paired_outcomes(runs, m, ref, seeds), "time_ratio": ta / tb})
    return out


def word(cmp, better):
    """The rule's outcome in the comparison's own terms."""
    return {-1: better, 0: "tied", 1: "worse"}[cmp.sign]


def paired_table(cmps):
    lines = ["| data set | method | vs | seeds | experiments to top-1 %: Δ mean ± se | w/l/t | "
             "rule | best after 25: Δ mean ± se | w/l/t | rule | time per batch, ratio |",
             "|---|---|---|---:|---:|---:|---|---:|---:|---|---:|"]
    for c in cmps:
        t, b = c["top1"], c["b25"]
        lines.append(
            f"| {c['title']} | {c['method']} | {c['ref']} | {c['n']} | "
            f"{fmt(t.d, 3, sign=True)} ± {fmt(t.se, 2)} | {'/'.join(map(str, c['top1_wlt']))} | "
            f"{word(t, 'fewer')} | {fmt(c['b25_d'], 3, sign=True)} ± {fmt(b.se, 2)} | "
            f"{'/'.join(map(str, c['b25_wlt']))} | {word(b, 'higher')} | "
            f"{'—' if math.isnan(c['time_ratio']) else format(c['time_ratio'], '.3g')} |")
    return "\n".join(lines)


def verdicts(cmps):
    """One line per data set against the issue's goal, for each gpbandit encoding."""
    out = []
    for d, title in DATASETS:
        rows = [c for c in cmps if c["dataset"] == d and c["method"] in PRIMARY]
        if not rows:
            out.append(f"- **{title}**: no BayBE runs yet: not run.")
            continue
        parts = []
        for c in rows:
            t = c["top1"]
            w, l_, _ = c["b25_wlt"]
            fewer = t.sign < 0
            goal = fewer and w > l_
            parts.append(
                f"{c['method']} {'meets' if goal else 'misses'} the goal against {c['ref']} "
                f"({c['n']} paired seeds): experiments to a top-1 % yield "
                f"{'fewer' if fewer else ('more' if t.sign > 0 else 'not fewer (tied under the rule)')}"
                f" (Δ {fmt(t.d, 3, sign=True)} ± {fmt(t.se, 2)}), best after 25 {w} wins / {l_} "
                f"losses, {1 / c['time_ratio']:.0f}× less time per batch")
        out.append(f"- **{title}**: " + "; ".join(parts) + ".")
    for m in PRIMARY:
        met = [c["title"] for c in cmps if c["method"] == m and c["top1"].sign < 0
               and c["b25_wlt"][0] > c["b25_wlt"][1]]
        out.append(f"- **Overall, {m}**: the goal holds on {len(met)} of {len(DATASETS)} sets"
                   + (f" ({', '.join(met)})" if met else "") + ".")
    return "\n".join(out)


# A variant's own reference: the method it changes one thing of (its name less the suffix);
# the earlier diagnostics all change gpbandit-ohe.
OWN_BASE = ("-warp", "-add", "-mindef", "-ts", "-lps", "-pdim", "-sum", "-q1")


def base(m):
    """The method a diagnostic variant is compared with."""
    for suffix in OWN_BASE:
        if m.endswith(suffix):
            return m[:-len(suffix)]
    return "gpbandit-ohe"


def ablations(data):
    """Each gpbandit variant against its base on their shared seeds: Δ experiments to a top-1 %
    yield (paired, the rule's word) and Δ mean yield chosen, per data set."""
    variants = [m for m in GPBANDIT if m != "gpbandit-ohe"]
    head = "| variant | against | " + " | ".join(t for _, t in DATASETS) + " |"
    lines = [head, "|---|---|" + "---:|" * len(DATASETS)]
    for m in variants:
        ref = base(m)
        cells = []
        for d, _ in DATASETS:
            runs = data.get(d, {})
            n, c = top1_vs(runs, m, ref)
            if c is None:
                cells.append("—")
                continue
            seeds = sorted(set(runs[m]) & set(runs[ref]))
            dy = np.mean([chosen_mean(runs[m][s]) - chosen_mean(runs[ref][s]) for s in seeds])
            cells.append(f"{fmt(c.d, 3, sign=True)} ± {fmt(c.se, 2)} ({word(c, 'fewer')}; "
                         f"n = {n}), chosen {fmt(dy, 3, sign=True)}")
        lines.append(f"| {m} | {ref} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def why(data):
    """What the diagnostics show, read from the numbers (mean yield chosen by gpbandit and by
    BayBE's best encoding on shared seeds)."""
    out = []
    for d, title in DATASETS:
        runs = data.get(d, {})
        ref = best_baybe(runs)
        if ref is None or "gpbandit-ohe" not in runs:
            continue
        seeds = sorted(set(runs[ref]) & set(runs["gpbandit-ohe"]))
        if len(seeds) < 2:
            continue
        g = np.mean([chosen_mean(runs["gpbandit-ohe"][s]) for s in seeds])
        b = np.mean([chosen_mean(runs[ref][s]) for s in seeds])
        out.append(f"{title}: mean yield chosen {g:.1f} (gpbandit-ohe) against {b:.1f} ({ref}), "
                   f"{len(seeds)} shared seeds")
    text = ("Exploitation, measured: " + "; ".join(out) + ".") if out else ""
    moved = []
    for m in GPBANDIT:
        if m == "gpbandit-ohe":
            continue
        ref = base(m)
        for d, title in DATASETS:
            _, c = top1_vs(data.get(d, {}), m, ref)
            if c is not None and c.sign:
                moved.append(f"{m} on {title} ({word(c, 'fewer')} than {ref})")
    text += ("\n\nVariants that change the experiments to a top-1 % yield under the rule: "
             + ("; ".join(moved) if moved else "none") + ".")
    return text


def parts_table(data):
    """Per-parameter kernels against the one kernel on the concatenated encodings, seed by seed:
    Δ experiments to a top-1 % yield and Δ best yield after 25 (paired, the rule's word), and the
    wins/losses/ties of the per-parameter kernel on best-after-25."""
    lines = ["| per-parameter kernel vs concatenated | data set | n | Δ experiments to top-1 % | "
             "Δ best after 25 | best-after-25 wins/losses/ties |",
             "|---|---|---:|---:|---:|---:|"]
    for m, ref in (("gpbandit-ohe-parts", "gpbandit-ohe"), ("gpbandit-dft-parts", "gpbandit-dft")):
        for d, title in DATASETS:
            runs = data.get(d, {})
            seeds = sorted(set(runs.get(m, {})) & set(runs.get(ref, {})))
            if len(seeds) < 2:
                continue
            o = paired_outcomes(runs, m, ref, seeds)
            c1, c25 = o["top1"], o["b25"]
            w, l_, t = o["b25_wlt"]
            lines.append(f"| {m} vs {ref} | {title} | {len(seeds)} | "
                         f"{fmt(c1.d, 3, sign=True)} ± {fmt(c1.se, 2)} ({word(c1, 'fewer')}) | "
                         f"{fmt(-c25.d, 3, sign=True)} ± {fmt(c25.se, 2)} "
                         f"({word(c25, 'higher')}) | {w}/{l_}/{t} |")
    return "\n".join(lines) if len(lines) > 2 else "(no per-parameter kernel runs yet)"


def every_variant_vs_baybe(data):
    """One line per gpbandit method (variants and references too): against BayBE's best encoding
    on their shared seeds, the data sets where it takes fewer experiments to a top-1 % yield
    under the rule, and those where it takes more."""
    lines = ["| method | seeds (per set) | fewer than BayBE on | more than BayBE on |",
             "|---|---|---|---|"]
    for m in GPBANDIT + ORACLE:
        fewer, more, ns = [], [], []
        for d, title in DATASETS:
            runs = data.get(d, {})
            n, c = top1_vs(runs, m, best_baybe(runs))
            if c is None:
                ns.append("—")
                continue
            ns.append(str(n))
            (fewer if c.sign < 0 else more if c.sign > 0 else []).append(title)
        lines.append(f"| {m} | {' / '.join(ns)} | {', '.join(fewer) or '—'} | "
                     f"{', '.join(more) or '—'} |")
    return "\n".join(lines)


def oracle_table(data):
    """Each model with the hyperparameters of the whole table against BayBE's best encoding and
    against the same model fitted by the campaign, paired: Δ experiments to a top-1 % yield."""
    lines = ["| model | data set | vs BayBE: n | Δ experiments to top-1 % | rule | "
             "vs fitted in the campaign: n | Δ experiments to top-1 % | rule |",
             "|---|---|---:|---:|---|---:|---:|---|"]
    for m in ORACLE:
        twin = m[:-len("-oracle")]
        for d, title in DATASETS:
            runs = data.get(d, {})
            ref = best_baybe(runs)
            if m not in runs or ref is None:
                continue
            cells = []
            for other in (ref, twin):
                n, c = top1_vs(runs, m, other)
                if c is None:
                    cells += [str(n), "—", "—"]
                    continue
                cells += [str(n), f"{fmt(c.d, 3, sign=True)} ± {fmt(c.se, 2)}",
                          word(c, "fewer")]
            lines.append(f"| {m} | {title} | " + " | ".join(cells) + " |")
    return "\n".join(lines) if len(lines) > 2 else "(no runs with the whole table's fit yet)"


LONG = 100  # the longer campaigns' budget (results-100/)


def longer_table(long_runs):
    """Campaigns of LONG experiments (results-100/): gpbandit's Mordred and DFT encodings against
    BayBE's Mordred, paired by seed: experiments to a top-1 % yield (a run that never reaches it
    counts as LONG + 1) and the best yield after LONG."""
    lines = ["| data set | method | vs | seeds | experiments to top-1 %: mean (reached) | "
             "BayBE's | Δ mean ± se | rule | best after 100: mean | BayBE's |",
             "|---|---|---|---:|---:|---:|---:|---|---:|---:|"]
    fewer = {"gpbandit-md": [], "gpbandit-dft": []}

    for d, title in DATASETS:
        runs = long_runs.get(d, {})
        ref = runs.get("baybe-mordred", {})
        for m in ("gpbandit-md", "gpbandit-dft"):
            seeds = sorted(set(runs.get(m, {})) & set(ref))
            if len(seeds) < 2:
                continue
            a = [to_top1(runs[m][k], LONG + 1) for k in seeds]
            b = [to_top1(ref[k], LONG + 1) for k in seeds]
            c = paired(a, b)
            reached = sum(runs[m][k]["metrics"]["to_top1"] is not None for k in seeds)
            reached_b = sum(ref[k]["metrics"]["to_top1"] is not None for k in seeds)
            best_a = np.mean([runs[m][k]["metrics"]["best_after"][str(LONG)] for k in seeds])
            best_b = np.mean([ref[k]["metrics"]["best_after"][str(LONG)] for k in seeds])
            if c.sign < 0:
                fewer[m].append(title)
            lines.append(f"| {title} | {m} | baybe-mordred | {len(seeds)} | "
                         f"{np.mean(a):.1f} ({reached}/{len(seeds)}) | "
                         f"{np.mean(b):.1f} ({reached_b}/{len(seeds)}) | "
                         f"{fmt(c.d, 3, sign=True)} ± {fmt(c.se, 2)} | {word(c, 'fewer')} | "
                         f"{best_a:.1f} | {best_b:.1f} |")
    if len(lines) == 2:
        return "(no longer campaigns yet)"
    said = "; ".join(f"{m} fewer on " + (", ".join(t) if t else "none")
                     for m, t in fewer.items())
    return "\n".join(lines) + f"\n\nFewer than BayBE under the rule at {LONG} experiments: {said}."


def main(argv):
    data = load()
    with open(os.path.join(HERE, "README.template.md")) as f:
        text = f.read()
    cmps = comparisons(data)
    text = (text.replace("{{METRICS}}", metrics_table(data))
            .replace("{{PAIRED}}", paired_table(cmps) if cmps else "(no BayBE runs yet)")
            .replace("{{VERDICTS}}", verdicts(cmps))
            .replace("{{ABLATIONS}}", ablations(data))
            .replace("{{PARTS}}", parts_table(data))
            .replace("{{ORACLE}}", oracle_table(data))
            .replace("{{LONGER}}", longer_table(load(os.path.join(HERE, "results-100"))))
            .replace("{{EVERY_VS_BAYBE}}", every_variant_vs_baybe(data))
            .replace("{{WHY}}", why(data)))
    code, _ = check_or_write(os.path.join(HERE, "README.md"), text, argv)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
