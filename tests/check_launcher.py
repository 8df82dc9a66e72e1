#!/usr/bin/env python3
"""CTest CliLauncher: `gpbandit --version` and `--help` load neither libgpbandit nor the CUDA and
MPI libraries, print what gpbandit-main prints, and everything else runs gpbandit-main.

Usage: tests/check_launcher.py LAUNCHER MAIN
Which libraries a program loads comes from the dynamic loader itself (LD_DEBUG=libs, which lists
every library it opens); the peak memory from /usr/bin/time where it exists. Exit code 0: all checks hold.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HEAVY = re.compile(r"(libgpbandit|libcudart|libcublas|libcusolver|libcusparse|libnvJitLink|"
                   r"libmpi|libopen-rte|libopen-pal|libgomp)\.so")


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, **(env or {})))
    return r.returncode, r.stdout, r.stderr


def loaded(cmd):
    """The libraries the loader opened for cmd (LD_DEBUG=libs)."""
    _, _, err = run(cmd, {"LD_DEBUG": "libs"})
    return sorted(set(re.findall(r"calling init: (\S+)", err)))


def max_rss_kb(cmd):
    """Peak resident memory of cmd in kB, measured by /usr/bin/time (None where it is missing:
    a child of this Python would report the interpreter's own memory, inherited at fork)."""
    if not os.path.exists("/usr/bin/time"):
        return None
    code, _, err = run(["/usr/bin/time", "-f", "maxrss %M", *cmd])
    m = re.search(r"maxrss (\d+)", err)
    return int(m.group(1)) if code == 0 and m else None


def main():
    launcher, main_cli = sys.argv[1], sys.argv[2]
    failures = []

    def check(ok, what):
        print(("ok: " if ok else "FAILED: ") + what)
        if not ok:
            failures.append(what)

    for args in (["--version"], ["--help"], ["-h"], ["list", "kernels"], ["list", "nonsense"], []):
        want, got = run([main_cli, *args]), run([launcher, *args])
        check(got == want, f"gpbandit {' '.join(args)} prints and exits as gpbandit-main "
                           f"(exit {got[0]} vs {want[0]})")
    light = loaded([launcher, "--version"]) + loaded([launcher, "--help"])
    heavy = [lib for lib in light if HEAVY.search(lib)]
    check(not heavy, f"--version/--help load none of libgpbandit, CUDA, MPI, OpenMP: {heavy}")
    full = loaded([launcher, "list", "kernels"])
    check(any("libgpbandit" in lib for lib in full),
          "gpbandit list runs gpbandit-main (libgpbandit loaded)")
    print(f"libraries: --version {len(loaded([launcher, '--version']))}, "
          f"list {len(full)} ({', '.join(os.path.basename(x) for x in full if HEAVY.search(x))})")
    rss_light, rss_main = max_rss_kb([launcher, "--version"]), max_rss_kb([main_cli, "--version"])
    print(f"max RSS: gpbandit --version {rss_light} kB, gpbandit-main --version {rss_main} kB")
    if rss_light is not None:  # the C/C++ runtimes only (the CUDA build's main: ~265 MB)
        check(rss_light < 16 * 1024, f"gpbandit --version peaks under 16 MB ({rss_light} kB)")
    with tempfile.TemporaryDirectory() as d:  # a launcher without gpbandit-main beside it
        alone = os.path.join(d, "gpbandit")
        shutil.copy(launcher, alone)
        code, _, err = run([alone, "list"])
        check(code == 1 and "cannot run the command-line program " + os.path.join(d, "gpbandit-main")
              in err and err.count("\n") == 1, f"a missing gpbandit-main: exit 1, one line ({err!r})")
        code, out, _ = run([alone, "--version"])
        check(code == 0 and out.startswith("gpbandit "), "--version works without it")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
