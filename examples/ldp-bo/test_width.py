#!/usr/bin/env python3
"""Checks of the width explanation's confirmation trials (examples/ldp-bo/verdicts.py,
confirm_pairs; CTest LdpBoWidthConfirm): the pair is judged on the trials beyond the selection
trials only, a width the confirmation did not run gives no pair, and no confirmation config gives
nothing. And of the group-count explanation (kgroups_explanation): it explains a panel only when
MoMA at its best tested k_groups is lower than both rivals, paired by trial. Hand-made summaries;
deterministic; exits 1 on the first failure."""
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
    check_kgroups()
    print("ok")


def paper(family, runs):
    return {"type": f"ldp_{family}_gp_ucb", "label": family, "cumulative_regret_per_run": runs,
            "cumulative_regret": {"mean": sum(runs) / len(runs)},
            "params": {"preset": "practical", "k_groups": 0}}


def moma_k(k, runs):
    p = paper("moma", runs)
    p["params"] = {"preset": "practical", "k_groups": k}
    return p


def check_kgroups():
    noise = [0.1 * (i % 3) for i in range(10)]
    panel = {"policies": [paper("tgp", [10 + e for e in noise]),
                          paper("ata", [11 + e for e in noise]), paper("moma", [12.0] * 10)]}
    d = {"L1": panel}
    check(verdicts.kgroups_explanation(d, "L1", "matern", "outperform") == (False, ""),
          "no why-kgroups run: nothing")
    d["why-kgroups-matern"] = {"policies": [moma_k(3, [8.0] * 10), moma_k(7, [11.5] * 10)]}
    ok, text = verdicts.kgroups_explanation(d, "L1", "matern", "outperform")
    check(ok and "k_groups 3" in text, "k = 3 lower than both rivals on every trial: explained")
    # Lower than TGP only: the "outperform" claim needs both rivals.
    d["why-kgroups-matern"] = {"policies": [moma_k(3, [10.5 + e for e in noise])]}
    ok, text = verdicts.kgroups_explanation(d, "L1", "matern", "outperform")
    check(not ok and text.startswith("nor does"), "not lower than both rivals: not explained")


if __name__ == "__main__":
    main()
