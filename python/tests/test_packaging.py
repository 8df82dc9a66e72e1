"""What `pip install .` gives besides the module: the console script `gpbandit` (also
`python3 -m gpbandit`) that runs the packaged CLI, and the build backend's progress lines
(tools/packaging/gpb_build_backend.py). The wheel itself is checked by the ctest PythonWheel."""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gpbandit
from gpbandit import _cli


def test_python_m_gpbandit_runs_the_cli():
    r = subprocess.run([sys.executable, "-m", "gpbandit", "--version"], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"gpbandit {gpbandit.__version__} ("), r.stdout
    # Arguments pass through unchanged, and so does the CLI's exit code for bad input.
    r = subprocess.run([sys.executable, "-m", "gpbandit", "list", "no-such-section"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.startswith("gpbandit: error: "), r.stderr


def test_a_missing_program_is_one_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setattr(_cli, "program", lambda: Path("/nonexistent/gpbandit/bin/gpbandit"))
    assert _cli.main(["--version"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("gpbandit: error: cannot run the command-line program "
                          "/nonexistent/gpbandit/bin/gpbandit: No such file or directory"), err


BUILD = r'''
import os, subprocess, sys
sys.path.insert(0, sys.argv[1])
import gpb_build_backend as b
fail = sys.argv[2] == "fail"
try:
    with b._progress_lines():
        print("scikit-build-core says hello", flush=True)
        subprocess.run(["sh", "-c", 'for i in 5 12 19 25 31 38 44 50 57 63 69 75 81 88 94 100; '
                        'do echo "[ $i%] Building CXX object f$i.o"; done; echo "[3/4] ninja" >&2'],
                       check=True)
        if fail:
            raise RuntimeError("compiler error")
except RuntimeError:
    sys.exit(3)
'''


@pytest.mark.parametrize("outcome", ["ok", "fail"])
def test_the_build_backend_prints_progress_to_the_terminal(tmp_path, source_dir, outcome):
    if importlib.util.find_spec("scikit_build_core") is None:
        pytest.skip("scikit-build-core is not installed (pip install scikit-build-core)")
    tty = tmp_path / "tty"
    env = dict(os.environ, GPB_PIP_PROGRESS_TTY=str(tty))
    r = subprocess.run([sys.executable, "-c", BUILD, os.path.join(source_dir, "tools", "packaging"),
                        outcome], capture_output=True, text=True, env=env, check=False)
    assert r.returncode == (0 if outcome == "ok" else 3), r.stderr
    # pip still receives every byte of the build's output (stdout and stderr together) ...
    assert "scikit-build-core says hello" in r.stdout
    assert "[ 57%] Building CXX object f57.o" in r.stdout
    assert "[3/4] ninja" in r.stdout
    # ... and the terminal one line at the start, one per 10 % and one at the end.
    lines = tty.read_text().splitlines()
    assert lines[0].startswith("gpbandit: building the C++ library with CMake: about 12 min"), lines
    steps = [line.split(" ")[2] for line in lines[1:-1]]
    assert steps == ["10", "20", "30", "40", "50", "60", "70", "80", "90", "100"], lines
    assert lines[-1].startswith("gpbandit: built in" if outcome == "ok" else
                                "gpbandit: build failed in"), lines
    # GPB_PIP_PROGRESS=0: nothing on the terminal.
    tty.unlink()
    env["GPB_PIP_PROGRESS"] = "0"
    r = subprocess.run([sys.executable, "-c", BUILD, os.path.join(source_dir, "tools", "packaging"),
                        "ok"], capture_output=True, text=True, env=env, check=False)
    assert r.returncode == 0 and "f100.o" in r.stdout
    assert not tty.exists()
