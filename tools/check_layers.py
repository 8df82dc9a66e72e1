#!/usr/bin/env python3
"""Checks that every #include goes down the layers of docs/architecture.md.

Reads the `#include "..."` lines of src/, include/gpbandit/, kernels/, tools/, python/src/,
tests/ and bench/, maps each file and each included header to its room (the first folder under
src/ or include/gpbandit/), and fails on an include of a room that is not below the includer's,
unless the pair is in ALLOWED (each entry says why). Rooms on one layer may not include each
other (e.g. one family another).

Usage: tools/check_layers.py [--list] [--root DIR]   (--list prints the layers and the room graph)
       tools/check_layers.py --self-test          (the check fails on made-up bad trees)
Exit code 0: every include goes down; 1: violations (one line each, file:line); 2: a header that
cannot be found or a file in no room (the table below needs the new room).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Rooms, lowest layer first. A room may include its own files and the rooms of lower layers.
LAYERS = [
    ["base"],                         # error.hpp, rng.hpp, build_config.hpp, detail/host_device.hpp
    ["io", "comm"],                   # CSV/.npy/atomic files; the communicator and MPI beneath it
    ["engine"],                       # context, domain, kernels, posterior, ops, cpu/, cuda/, kernels/
    ["dist"],                         # what needs the engine and a communicator: domain scatter
    ["privacy"],                      # mechanisms: clipping, Laplace/CTL, Gaussian DP, PO curator
    ["policy"],                       # finite-domain policies (GP-UCB, LDP family, PO-GP-UCB)
    ["objective"],                    # objectives and noise (their InstanceConstants are a policy's)
    ["experiment"],                   # the one pipeline: family interface, checkpoint, config reader
    ["finite", "pool", "dpgibo", "xarmed"],  # the four families
    ["optimizer"],                    # ask/tell over a user's own function
    ["python", "tools"],              # the Python module and the CLI
    ["tests", "bench"],
]

# Exceptions, {(includer room, included room): "why it is justified"}. None are needed today:
# the pipeline reaches its families through declared factories, not includes (architecture.md).
ALLOWED = {}

# Headers at the top of include/gpbandit/ that belong to no room of their own.
BASE_HEADERS = {"error.hpp", "rng.hpp", "build_config.hpp", "detail/host_device.hpp"}

SOURCE_DIRS = ["src", "include/gpbandit", "kernels", "tools", "python/src", "tests", "bench"]
EXTENSIONS = (".cpp", ".hpp", ".cu", ".cuh", ".h")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def room_of(rel):
    """The room of a repository-relative path, or None."""
    parts = rel.split("/")
    if parts[0] == "include" and len(parts) > 2:
        inner = "/".join(parts[2:])
        if inner in BASE_HEADERS or (len(parts) == 3):
            return "base" if inner in BASE_HEADERS else None
        return parts[2]
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[0] == "kernels":
        return "engine"
    if parts[0] == "python":
        return "python"
    if parts[0] in ("tools", "tests", "bench"):
        return parts[0]
    return None


def resolve(includer, name):
    """Repository-relative path of the header `name` included by `includer`, or None."""
    here = os.path.dirname(includer)
    candidates = [os.path.join(here, name)]
    if name.startswith("gpbandit/"):
        candidates.append(os.path.join("include", name))
        if name == "gpbandit/build_config.hpp":
            return "include/gpbandit/build_config.hpp"
    candidates += [os.path.join("src", name), os.path.join("kernels", name),
                   os.path.join("tests/support", name), os.path.join("python/src", name),
                   os.path.join("tools", name)]
    for c in candidates:
        c = os.path.normpath(c)
        if os.path.isfile(os.path.join(ROOT, c)):
            return c
    return None


def layer_index():
    index = {}
    for i, rooms in enumerate(LAYERS):
        for r in rooms:
            index[r] = i
    return index


def scan():
    """[(file, line, includer room, included room, header)] for every quoted include."""
    out, problems = [], []
    for top in SOURCE_DIRS:
        base = os.path.join(ROOT, top)
        if not os.path.isdir(base):
            continue
        for dirpath, _, files in os.walk(base):
            for f in sorted(files):
                if not f.endswith(EXTENSIONS):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), ROOT)
                src_room = room_of(rel)
                if src_room is None:
                    problems.append(f"{rel}: in no room (put it in a room of tools/check_layers.py)")
                    continue
                with open(os.path.join(ROOT, rel), encoding="utf-8") as fh:
                    for n, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = resolve(rel, m.group(1))
                        if target is None:
                            problems.append(f"{rel}:{n}: cannot find \"{m.group(1)}\"")
                            continue
                        out.append((rel, n, src_room, room_of(target), m.group(1)))
    return out, problems


def self_test():
    """Made-up trees: an upward and a sideways include must fail, a downward one pass."""
    import contextlib
    import io
    import tempfile
    global ROOT
    cases = [("src/engine/a.cpp", "experiment/b.hpp", "src/experiment/b.hpp", 1),
             ("src/finite/a.cpp", "dpgibo/b.hpp", "src/dpgibo/b.hpp", 1),
             ("src/engine/a.cpp", "gpbandit/optimizer/b.hpp", "include/gpbandit/optimizer/b.hpp", 1),
             ("src/finite/a.cpp", "engine/b.hpp", "src/engine/b.hpp", 0),
             ("src/engine/a.cpp", "missing.hpp", None, 2)]
    saved, ok = ROOT, True
    for src, name, header, want in cases:
        with tempfile.TemporaryDirectory() as d:
            ROOT = d
            for path, text in ((src, f'#include "{name}"\n'), (header, "")):
                if path:
                    os.makedirs(os.path.join(d, os.path.dirname(path)), exist_ok=True)
                    with open(os.path.join(d, path), "w") as fh:
                        fh.write(text)
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                got = main([])
            if got != want:
                print(f"self-test: {src} including {name}: exit {got}, expected {want}")
                ok = False
    ROOT = saved
    print("self-test: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main(argv):
    global ROOT
    if "--self-test" in argv:
        return self_test()
    if "--root" in argv:
        ROOT = os.path.abspath(argv[argv.index("--root") + 1])
    index = layer_index()
    includes, problems = scan()
    for _, _, a, b, _ in includes:
        for r in (a, b):
            if r not in index:
                problems.append(f"room '{r}' is in no layer of tools/check_layers.py")
    if problems:
        print("\n".join(sorted(set(problems))), file=sys.stderr)
        return 2
    if "--list" in argv:
        edges = {}
        for _, _, a, b, _ in includes:
            if a != b:
                edges[(a, b)] = edges.get((a, b), 0) + 1
        for i, rooms in enumerate(LAYERS):
            print(f"layer {i}: {', '.join(rooms)}")
        for (a, b), n in sorted(edges.items(), key=lambda e: (index[e[0][0]], e[0])):
            print(f"  {a} -> {b}: {n}")
    bad = []
    for rel, n, a, b, name in includes:
        if a == b or (a, b) in ALLOWED:
            continue
        if index[b] >= index[a]:
            how = "a room of the same layer" if index[b] == index[a] else "a higher layer"
            bad.append(f"{rel}:{n}: {a} includes \"{name}\" of {b}, {how}")
    if bad:
        print("\n".join(bad), file=sys.stderr)
        print(f"{len(bad)} include(s) against the layers (docs/architecture.md)", file=sys.stderr)
        return 1
    print(f"check_layers: {len(includes)} includes, all down the layers "
          f"({len(ALLOWED)} allowed exception(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
