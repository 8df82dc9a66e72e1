"""Helpers shared by the overview modules (make_overview.py): load a suite's own script as a
module, format powers of ten, and the row of a figure whose config has not been run."""
import importlib.util
import os
import sys

EXAMPLES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module(suite, name):
    """examples/<suite>/<name>.py loaded as a module (its folder is put on sys.path first, so
    the script's own imports resolve)."""
    folder = os.path.join(EXAMPLES, suite)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(f"{suite.replace('-', '_')}_{name}",
                                                  os.path.join(folder, f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def pow10(x):
    """10³-style text of a power of ten (other values as they are)."""
    sup = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
    n = len(str(int(x))) - 1
    return f"10{str(n).translate(sup)}" if int(x) == 10 ** n else f"{x:g}"


def not_run(fig, claim, config):
    """The row of a figure whose summary.json is not committed yet."""
    return f"| {fig} | {claim} | not run yet (`{config}`) | — | — |"
