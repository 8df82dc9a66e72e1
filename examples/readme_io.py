"""The end every README generator of examples/ shares: compare (--check) or write the text.

make_readme.py of each suite and make_overview.py render their README.md from committed
summary.json files; the ExampleReadmeUpToDate-* tests run them with --check."""

import json
import os


def check_or_write(target, text, argv):
    """With argv[0] == "--check": 0 if `target` already holds `text`, else 1; writes nothing.
    Otherwise writes `text` to `target` and returns 0. Returns (code, wrote)."""
    if argv and argv[0] == "--check":
        with open(target) as f:
            return (0 if f.read() == text else 1), False
    with open(target, "w") as f:
        f.write(text)
    return 0, True


def load_summary(results, name):
    """results/NAME/summary.json as a dict, or None when that run is not committed. summary.json's
    one schema calls the compared arms "policies"; results written before it, "methods": both
    keys are present in what this returns."""
    path = os.path.join(results, name, "summary.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        s = json.load(f)
    s.setdefault("methods", s.get("policies", []))
    return s
