#!/usr/bin/env python3
"""Checks of the paper-size explanation of the synthetic tables (examples/po-gp-ucb/verdicts.py,
paper_size; CTest PoPaperSize): each draw of f is one replicate of the paper's experiment; the
cause is supported only when r = star comes out lowest, and each tied neighbour's paper gap is
reached, in at least REPLICATE_MIN of the replicates. Hand-made summaries; deterministic; exits 1
on the first failure."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdicts  # noqa: E402


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)


def draw(means):
    """One summary (a draw of f, 50 runs) with the given mean S_T per r; σ_y = 1."""
    return {"runs": 50, "policies": [
        {"label": f"r={r}", "simple_regret": {"mean": m, "sd": 0.01}} for r, m in means.items()]}


def main():
    label = {8: "r=8", 10: "r=10"}
    paper = {8: 0.018, 10: 0.014}  # the paper's gap: r = 8 ends 0.004 above r = 10
    # 20 replicates: r = 10 lowest by 0.005 in 2 (10 %), r = 8 lowest by 0.001 in the other 18.
    draws = [draw({8: 0.020, 10: 0.015})] * 2 + [draw({8: 0.015, 10: 0.016})] * 18
    by, text = verdicts.paper_size(draws, label, 10, [8], paper)
    check(by == "paper size", f"2/20 ≥ 5 %: supported ({text})")
    check("lowest in 2/20" in text and "in 2/20 (threshold" in text, f"counts shown ({text})")
    # The same but r = 10's lead is 0.003 < the paper's 0.004: the paper's gap is never reached.
    draws = [draw({8: 0.018, 10: 0.015})] * 2 + [draw({8: 0.015, 10: 0.016})] * 18
    by, text = verdicts.paper_size(draws, label, 10, [8], paper)
    check(by is None and "above it in 0/20" in text, f"gap never reached: refuted ({text})")
    # r = 10 never lowest: refuted even without tied neighbours to check.
    by, text = verdicts.paper_size([draw({8: 0.015, 10: 0.016})] * 20, label, 10, [], paper)
    check(by is None and "lowest in 0/20" in text, f"never lowest: refuted ({text})")
    # One replicate of 25 (4 %) is below the 5 % threshold.
    draws = [draw({8: 0.030, 10: 0.015})] + [draw({8: 0.015, 10: 0.016})] * 24
    check(verdicts.paper_size(draws, label, 10, [8], paper)[0] is None, "1/25 < 5 %: refuted")
    # The rate bound: 0 of 60 bounds the rate below 5 % (1 − 0.05^(1/60) = 4.87 %), 0 of 25 does
    # not (11.3 %); 1 of 25 gives the Clopper–Pearson 17.6 %.
    check(abs(verdicts.rate_upper(0, 60) - (1 - 0.05 ** (1 / 60))) < 1e-9, "k = 0 closed form")
    check(verdicts.rate_upper(0, 25) > 0.05 > verdicts.rate_upper(0, 60), "0/25 vs 0/60")
    check(abs(verdicts.rate_upper(1, 25) - 0.1759) < 5e-4, "1/25 upper bound")
    draws = [draw({8: 0.018, 10: 0.015})] * 60
    check("rarer than the threshold" in verdicts.paper_size(draws, label, 10, [8], paper)[1],
          "0/60: refuted")
    draws = [draw({8: 0.018, 10: 0.015})] * 25
    check("inconclusive" in verdicts.paper_size(draws, label, 10, [8], paper)[1], "0/25: open")
    print("ok")


if __name__ == "__main__":
    main()
