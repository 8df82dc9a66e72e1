"""Calibration of test_optimizer.py::test_ts_and_ei_beat_random_search: how often TS and EI beat
random search on fresh sampled functions. Usage (from the repository root, ~3 min for 200):

    PYTHONPATH=build/python python3 python/tests/calibrate_ts_ei.py FIRST_SEED END_SEED
"""
import sys

from test_optimizer import demo_prior, simple_regrets, wins_over_random

if __name__ == "__main__":
    first, end = int(sys.argv[1]), int(sys.argv[2])
    P, L = demo_prior()
    regrets = [simple_regrets(P, L, seed) for seed in range(first, end)]
    for acq in ("ts", "ei"):
        print(f"{acq}: beats random search on {wins_over_random(regrets, acq)} of {len(regrets)}")
