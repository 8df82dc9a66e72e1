#!/usr/bin/env python3
"""The Branin function as a user's program for `gpbandit run` (command objective).

Reads the candidates as CSV on stdin (a header line "x0,x1", then one point per line) and prints
one value per candidate on stdout. Minimum 0.397887 at (-pi, 12.275), (pi, 2.275), (9.42478, 2.475).
"""
import math
import sys

lines = sys.stdin.read().split()
for line in lines[1:]:
    x, y = (float(v) for v in line.split(","))
    b = 5.1 / (4 * math.pi ** 2)
    c = 5 / math.pi
    t = 1 / (8 * math.pi)
    print(repr((y - b * x * x + c * x - 6) ** 2 + 10 * (1 - t) * math.cos(x) + 10))
