"""The ``gpbandit`` command of a pip installation (a console script, also ``python3 -m gpbandit``):
runs the C++ command-line program shipped in the package, ``gpbandit/bin/gpbandit``, with the
same arguments, in place of this process (exec). Plots are drawn with this Python
(``GPB_PYTHON``, unless already set)."""
import os
import sys
from pathlib import Path


def program():
    """The path of the packaged command-line program."""
    return Path(__file__).resolve().parent / "bin" / "gpbandit"


def main(argv=None):
    """Replaces this process with ``gpbandit ARGS``; returns 2 (with one line on stderr) only when
    the program is missing or cannot be started."""
    exe = program()
    args = sys.argv[1:] if argv is None else list(argv)
    os.environ.setdefault("GPB_PYTHON", sys.executable)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(str(exe), ["gpbandit", *args])
    except OSError as e:
        sys.stderr.write(f"gpbandit: error: cannot run the command-line program {exe}: "
                         f"{e.strerror}; reinstall the package (pip install --force-reinstall)\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
