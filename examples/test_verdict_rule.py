#!/usr/bin/env python3
"""Checks of examples/verdict_rule.py, the one rule every verdict follows (CTest VerdictRule):
paired and unpaired standard errors, the two-standard-error decision, the equivalence test of
"≈" claims, trends, and the verdict words. Deterministic; exits 1 on the first failure."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict_rule as vr  # noqa: E402


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)


def main():
    # Paired: differences 1, 2, 3 -> mean 2, sd 1, se 1/sqrt(3); 2 - 2/sqrt(3) > 0: higher.
    c = vr.paired([2.0, 4.0, 6.0], [1.0, 2.0, 3.0])
    check(abs(c.d - 2.0) < 1e-12 and abs(c.se - 1 / math.sqrt(3)) < 1e-12, "paired mean and se")
    check(c.higher and c.word == "higher" and c.wins == 0, "paired decision")
    # Pairing removes a shared run effect that the unpaired comparison cannot.
    a = [10.0, 20.0, 30.0, 40.0]
    b = [x + 0.5 for x in a]
    check(vr.paired(a, b).lower, "a shared run effect cancels when paired")
    check(vr.unpaired(a, b).tied, "unpaired: the run effect hides the offset")
    # Exactly two standard errors is still a tie (strict inequality).
    c = vr.Cmp(2.0, 1.0, 10, True)
    check(c.tied, "d = 2 se is tied")
    check(vr.Cmp(-2.0001, 1.0, 10, True).lower, "just beyond 2 se is lower")
    # One run: nothing can be decided; identical differences (se = 0) decide by the sign.
    check(vr.paired([1.0], [0.0]).tied, "one run is tied")
    check(vr.paired([1.0, 2.0], [0.5, 1.5]).higher, "se = 0 decides by the sign of d")
    # Equivalence: |d| + 2 se within 5 % of the reference mean.
    e = vr.paired([1.00, 1.01, 0.99, 1.00], [1.0, 1.0, 1.0, 1.0])
    check(vr.equivalent(e, 1.0), "small paired noise is equivalent")
    check(not vr.equivalent(vr.paired([1.1, 1.1, 1.1], [1.0, 1.0, 1.0]), 1.0),
          "a 10 % offset is not equivalent")
    check(vr.equivalent(vr.Cmp(0.01, 0.01, 50, True), 0.0, absolute=0.05), "absolute margin")
    # Trend: every adjacent step must move the claimed way.
    seq = [(1, [5.0, 5.1, 4.9]), (2, [3.0, 3.1, 2.9]), (3, [3.0, 3.2, 2.8])]
    holds, steps = vr.trend(seq, -1)
    check(not holds and steps[0][2].lower and steps[1][2].tied, "a tied step breaks a trend")
    # Verdict words.
    check(vr.verdict(True) == vr.REPRODUCED, "holds at paper scale")
    check(vr.verdict(True, paper_scale=False) == vr.NOT_REPRODUCED, "reduced scale")
    check(vr.verdict(True, paper_data=False) == vr.NOT_REPRODUCED, "substitute data")
    check(vr.verdict(False, explained_by="x") == vr.EXPLAINED, "explained")
    check(vr.verdict(True, paper_start=False, explained_by="x") == vr.EXPLAINED,
          "a hand-picked start explains, never reproduces")
    u = [vr.unit("a", "c", "r", "s", vr.REPRODUCED), vr.unit("b", "c", "r", "s", vr.NOT_RUN),
         vr.unit("x", "c", "r", "s", vr.REPRODUCED, counts=False)]
    check(vr.tally(u) == {"reproduced": 1, "explained": 0, "neither": 1}, "tally")
    print("verdict_rule: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
