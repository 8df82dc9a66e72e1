#!/usr/bin/env python3
"""Writes README.md (from README.template.md) and plots/ from the committed summary.json files
under results/ (written by run_all.sh from real runs). Usage: make_readme.py [--check]
  --check: exit 1 if README.md differs from what the summaries give (plots are not compared)."""
import contextlib
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from readme_io import check_or_write  # noqa: E402
import results_table  # noqa: E402
import verdict_rule as vr  # noqa: E402
import verdicts  # noqa: E402

# The paper's figures (simple regret vs iteration) and the Branin horizon study.
FIGURES = [("fig2a-synthetic", "Fig. 2a synthetic GP, r = 10"),
           ("fig2b-loans", "Fig. 2b loans (look-alike), r = 15"),
           ("fig2c-property", "Fig. 2c property (hedonic look-alike), r = 15"),
           ("fig3-branin", "Fig. 3 Branin, r = 10"),
           ("fig3-branin-T200", "Branin at T = 200 (horizon study)")]


def tables_text(results):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        results_table.main([results])
    return buf.getvalue().rstrip()


def runtime_minutes(data):
    total = sum(s["timings"]["total_seconds"] for ss in data.values() for s in ss)
    return f"{total / 60:.0f} minutes"


def plots(data):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("make_readme.py: matplotlib missing, plots/ not redrawn", file=sys.stderr)
        return
    os.makedirs(os.path.join(HERE, "plots"), exist_ok=True)
    for key, title in FIGURES:
        ss = data.get(key)
        if not ss:
            continue
        fig, ax = plt.subplots(figsize=(6, 4))
        t = [e - 1 for e in ss[0]["curve_evaluations"]]  # UCB steps after the initial point
        for p in ss[0]["policies"]:
            curves = []
            for s in ss:
                q = next(q for q in s["policies"] if q["label"] == p["label"])
                curves.append([v / results_table.sigma_y(s) for v in q["mean_simple_regret_curve"]])
            mean = [sum(c[k] for c in curves) / len(curves) for k in range(len(t))]
            ax.plot(t, mean, label=p["label"])
        ax.set_xlabel("UCB steps t")
        ax.set_ylabel("simple regret S_t / σ_y" + (f" (mean over {len(ss)} draws of f)"
                                                  if len(ss) > 1 else ""))
        ax.set_title(title)
        ax.set_yscale("symlog", linthresh=0.01)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(HERE, "plots", key + ".png"), dpi=90)
        plt.close(fig)


def main(argv):
    results = os.path.join(HERE, "results")
    data = results_table.load(results)
    with open(os.path.join(HERE, "README.template.md")) as f:
        text = f.read()
    text = text.replace("{{TABLE}}", tables_text(results))
    text = text.replace("{{RUNTIME}}", runtime_minutes(data))
    text = text.replace("{{VERDICTS}}", vr.table(verdicts.units()))
    code, wrote = check_or_write(os.path.join(HERE, "README.md"), text, argv)
    if wrote:
        plots(data)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
