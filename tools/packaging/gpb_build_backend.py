"""The build backend of `pip install .` (pyproject.toml): scikit-build-core, plus progress lines.

pip shows nothing of a build backend's output unless it runs with -v, and compiling gpbandit's C++
library takes minutes (about 12 on 2 cores for a CPU-only build), so `pip install .` used to show
only "still running..." for all that time. While a wheel builds, this backend copies everything
the build prints to pip as before, and writes one line to the terminal (/dev/tty) when the build
starts, at every further 10 % of the compile steps (CMake's "[ 37%]" or Ninja's "[12/150]"
prefixes) and at the end, e.g.

    gpbandit: building the C++ library with CMake: about 12 min on 2 cores (...)
    gpbandit: build 40 % (4 min 51 s)

Nothing is written when there is no terminal (CI logs: `pip install -v .` shows the whole build)
or when GPB_PIP_PROGRESS=0. Every other hook is scikit-build-core's own.
"""
import contextlib
import os
import re
import sys
import threading
import time

from scikit_build_core import build as _skbuild
from scikit_build_core.build import (  # noqa: F401 (the PEP 517 hooks pip calls)
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

_MAKE = re.compile(rb"^\[\s*(\d{1,3})%\]")
_NINJA = re.compile(rb"^\[(\d+)/(\d+)\]")


def _percent(line):
    """The build's progress in percent from one line of its output, or None."""
    m = _MAKE.match(line)
    if m:
        return min(int(m.group(1)), 100)
    m = _NINJA.match(line)
    if m and int(m.group(2)) > 0:
        return min(100 * int(m.group(1)) // int(m.group(2)), 100)
    return None


def _elapsed(seconds):
    m, s = divmod(int(seconds), 60)
    return f"{m} min {s} s" if m else f"{s} s"


class _Progress:
    """Reads what the build prints (on a pipe standing in for stdout and stderr), passes every
    byte on to where it went before, and writes a line to `tty` at every 10 % step."""

    def __init__(self, tty, forward_fd):
        self.tty, self.forward_fd = tty, forward_fd
        self.start, self.shown = time.monotonic(), 0
        self.read_fd, self.write_fd = os.pipe()
        self.thread = threading.Thread(target=self._pump, daemon=True)

    def say(self, text):
        try:
            self.tty.write(f"gpbandit: {text}\n")
            self.tty.flush()
        except OSError:
            pass

    def _pump(self):
        pending = b""
        while True:
            try:
                chunk = os.read(self.read_fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            try:
                os.write(self.forward_fd, chunk)
            except OSError:
                pass
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                p = _percent(line.strip())
                if p is not None and p >= self.shown + 10:
                    self.shown = p - p % 10
                    self.say(f"build {self.shown} % ({_elapsed(time.monotonic() - self.start)})")


@contextlib.contextmanager
def _progress_lines():
    if os.environ.get("GPB_PIP_PROGRESS", "1") == "0":
        yield
        return
    try:  # GPB_PIP_PROGRESS_TTY: another file instead of the terminal (tests)
        tty = open(os.environ.get("GPB_PIP_PROGRESS_TTY", "/dev/tty"), "w")
    except OSError:
        yield  # no terminal: pip -v shows the build's own output
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    prog = _Progress(tty, saved[0])
    prog.say("building the C++ library with CMake: about 12 min on 2 cores for a CPU-only build "
             "(pip install . -Ccmake.define.GPB_ENABLE_CUDA=OFF), longer with CUDA; "
             "pip install -v . shows the whole log")
    os.dup2(prog.write_fd, 1)
    os.dup2(prog.write_fd, 2)
    os.close(prog.write_fd)
    prog.thread.start()
    ok = False
    try:
        yield
        ok = True
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)  # the pipe's last write ends close here: the reader sees EOF
        os.dup2(saved[1], 2)
        prog.thread.join(timeout=30)
        os.close(prog.read_fd)
        for fd in saved:
            os.close(fd)
        prog.say(("built" if ok else "build failed") +
                 f" in {_elapsed(time.monotonic() - prog.start)}")
        tty.close()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with _progress_lines():
        return _skbuild.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    with _progress_lines():
        return _skbuild.build_editable(wheel_directory, config_settings, metadata_directory)
