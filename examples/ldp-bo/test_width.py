#!/usr/bin/env python3
"""Checks of the width explanation's confirmation trials (examples/ldp-bo/verdicts.py,
confirm_pairs; CTest LdpBoWidthConfirm): the pair is judged on the trials beyond the selection
trials only, a width the confirmation did not run gives no pair, and no confirmation config gives
nothing. Hand-made summaries; deterministic; exits 1 on the first failure."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdicts  # noqa: E402


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)


def pol(family, scale, runs):
    return {"type": f"ldp_{family}_gp_ucb", "label": f"{family} x{scale:g}",
            "params": {"width_scale": scale}, "cumulative_regret_per_run": runs}


def main():
    sel_m, sel_t = pol("moma", 0.01, [5.0] * 10), pol("tgp", 0.1, [6.0] * 10)
    rivals = {"tgp": (0.1, sel_t), "ata": (0.1, pol("ata", 0.1, [7.0] * 10))}
    check(verdicts.confirm_pairs(None, 0.01, sel_m, rivals) == {}, "no confirmation: no pair")
    # Trials 0..9 are huge outliers in MoMA's favour; trials 10..39 put MoMA 2 above TGP with
    # differences 1, 2, 3 repeating: a judged pair that used the first ten trials would be lower.
    moma = [0.0] * 10 + [10.0 + (1 + i % 3) for i in range(30)]
    tgp = [1000.0] * 10 + [10.0] * 30
    s = {"name": "why-width-x-confirm", "policies": [pol("moma", 0.01, moma),
                                                      pol("tgp", 0.1, tgp)]}
    out = verdicts.confirm_pairs(s, 0.01, sel_m, rivals)
    check(set(out) == {"tgp"}, "only the rival run at its selected width is confirmed")
    c = out["tgp"]
    check(c.n == 30 and abs(c.d - 2.0) < 1e-12, "judged on the 30 fresh trials only")
    check(c.higher, "MoMA above TGP on the fresh trials")
    # A confirmation at another MoMA width than the selected one confirms nothing.
    check(verdicts.confirm_pairs(s, 0.1, sel_m, rivals) == {}, "other MoMA width: no pair")
    # A confirmation no longer than the selection confirms nothing.
    short = {"name": "c", "policies": [pol("moma", 0.01, [1.0] * 10), pol("tgp", 0.1, [2.0] * 10)]}
    check(verdicts.confirm_pairs(short, 0.01, sel_m, rivals) == {}, "no fresh trials: no pair")
    print("ok")


if __name__ == "__main__":
    main()
