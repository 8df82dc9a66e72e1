#!/usr/bin/env python3
"""Which system paths to cover so that a build cannot see the given Debian packages (for
tools/gpu/kit_check.sh, which bind-mounts empty folders and files over them in a private mount
namespace).

Usage: hidden_paths.py PACKAGE...   prints "dir PATH" or "file PATH" lines, one per mount.

Every path `dpkg -L` lists for the packages (their documentation aside) is covered: a folder is
covered whole when everything inside it belongs to the packages (the top-most such folder), any
other file one by one. Symbolic links are covered through what they point to.
"""
import os
import subprocess
import sys


def package_paths(pkg):
    out = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True, check=True).stdout
    return [p for p in out.splitlines() if p not in ("", "/.") and not p.startswith("/usr/share/doc")]


def all_files(top):
    for base, dirs, files in os.walk(top):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(base, d))]:
            yield os.path.join(base, name)


def main(pkgs):
    listed = []
    for pkg in pkgs:
        try:
            listed += package_paths(pkg)
        except subprocess.CalledProcessError:
            print(f"hidden_paths.py: package {pkg} is not installed here", file=sys.stderr)
    owned_files = {p for p in listed if os.path.lexists(p) and not (os.path.isdir(p) and not os.path.islink(p))}
    dirs = sorted({p for p in listed if os.path.isdir(p) and not os.path.islink(p)})

    def whole(d):
        return all(f in owned_files for f in all_files(d))

    hidden_dirs = []
    for d in dirs:  # sorted: a parent comes before its children
        if any(d == h or d.startswith(h + "/") for h in hidden_dirs):
            continue
        if whole(d) and any(True for _ in all_files(d)):
            hidden_dirs.append(d)
    covered = lambda p: any(p.startswith(h + "/") for h in hidden_dirs)
    files = set()
    for f in sorted(owned_files):
        real = os.path.realpath(f)
        if covered(f) or covered(real):
            continue
        if os.path.isfile(real):
            files.add(real)
    for d in hidden_dirs:
        print("dir", d)
    for f in sorted(files):
        print("file", f)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1:])
