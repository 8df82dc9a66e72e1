#!/usr/bin/env python3
"""Writes README.md from README.template.md and the tables results_table.py prints.

Usage: make_readme.py RESULTS_DIR (the folder holding po-*/summary.json)."""
import contextlib
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_table  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    results_table.main(sys.argv[1:])
total = sum(s["timings"]["total_seconds"] for s in results_table.load(sys.argv[1]).values())
template = open(os.path.join(here, "README.template.md")).read()
text = template.replace("{{TABLE}}", buf.getvalue().rstrip())
text = text.replace("{{RUNTIME}}", f"{total / 60:.0f} minutes")
open(os.path.join(here, "README.md"), "w").write(text)
