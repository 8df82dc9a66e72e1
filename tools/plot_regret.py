#!/usr/bin/env python3
"""Plot mean cumulative regret per policy (stub)."""
import sys
sys.exit(3)
