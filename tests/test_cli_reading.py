"""``adc compile`` reads a file's definitions without running its program: top-level calls, loops,
``os._exit`` and the main block do not run (with ``--import`` the file is imported whole); a global that
only skipped code sets is a located error naming ``--import``; directories, empty files and killed
writes get clear answers.  Derivatives of the written modules are checked against analytic ones."""

import importlib.util
import math
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from shared import adc as adc_here

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = textwrap.dedent("""\
    \"\"\"A training script: running it writes a marker file and ends the process.\"\"\"
    import math
    import os

    import numpy as np

    try:
        import adc_no_such_accelerator
    except ImportError:
        adc_no_such_accelerator = None

    SCALE = 2.0
    W = np.ones((2, 2)) * 0.5
    open("MARKER", "w").write("ran")
    print("training...")


    def load():
        open("MARKER_LOAD", "w").write("ran")
        return np.zeros(3)


    DATA = load()


    def loss(x):
        return SCALE * math.sin(x) * x


    def weighted(v):
        return np.sum(W @ v)


    def uses_data(x):
        return np.sum(DATA * x)


    for epoch in range(3):
        open("MARKER_LOOP", "w").write("ran")

    os._exit(7)

    if __name__ == "__main__":
        open("MARKER_MAIN", "w").write("ran")
    """)


def adc(*args, cwd):
    """``python -m adcompiler ARGS`` in a process of its own: the training script would end the process were
    it run (the tests from test_a_directory_is_named_as_such on run ``adc`` in this process: ``adc_here``)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "adcompiler", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def script(tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    return tmp_path


def _markers(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("MARKER"))


@pytest.mark.parametrize("extra", [(), ("--stage", "anf")])
def test_the_program_does_not_run(script, extra):
    proc = adc(
        "compile", "train.py", "--function", "loss", "--function", "weighted", *extra, "-o", "out.py", cwd=script
    )
    assert proc.returncode == 0, proc.stderr
    assert _markers(script) == []
    assert "training" not in proc.stdout + proc.stderr


def test_the_written_module_uses_the_definitions(script):
    proc = adc("compile", "train.py", "--function", "loss", "--function", "weighted", "-o", "out.py", cwd=script)
    assert proc.returncode == 0, proc.stderr
    out = _load(script / "out.py")
    x = 0.7
    value, (dx,) = out.loss_reverse(x, 1.0)
    assert value == pytest.approx(2.0 * math.sin(x) * x, rel=1e-15)
    assert dx == pytest.approx(2.0 * (math.cos(x) * x + math.sin(x)), rel=1e-15)
    import numpy as np

    v = np.array([0.3, -1.2])
    _, (dv,) = out.weighted_reverse(v, 1.0)
    np.testing.assert_allclose(dv, np.ones(2), rtol=1e-15)  # d/dv sum(W @ v) = W^T 1 = [1, 1]


def test_a_global_only_skipped_code_sets_is_a_located_error(script):
    proc = adc("compile", "train.py", "--function", "uses_data", cwd=script)
    assert proc.returncode == 1
    line = SCRIPT.splitlines().index("DATA = load()") + 1
    use = next(i for i, s in enumerate(SCRIPT.splitlines(), 1) if "np.sum(DATA * x)" in s)
    assert f"train.py:{use}:" in proc.stderr
    assert "'DATA'" in proc.stderr and f"line {line}" in proc.stderr and "--import" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert _markers(script) == []


def test_import_runs_the_file_whole(script):
    proc = adc("compile", "train.py", "--import", "--function", "uses_data", cwd=script)
    assert proc.returncode == 7  # the user's os._exit(7): asked for with --import
    assert "MARKER" in _markers(script)


def test_a_directory_is_named_as_such(tmp_path):
    proc = adc_here("compile", ".", cwd=tmp_path)
    assert proc.returncode == 2 and "is a directory" in proc.stderr


@pytest.mark.parametrize("source", ["", "import math\nX = 1.0\n"])
def test_a_file_without_functions_says_so(tmp_path, source):
    (tmp_path / "empty.py").write_text(source)
    proc = adc_here("compile", "empty.py", "-o", "out.py", cwd=tmp_path)
    assert proc.returncode != 0 and "no functions" in proc.stderr
    assert not (tmp_path / "out.py").exists()


def test_a_killed_write_leaves_nothing_after_the_next_run_and_no_other_file_is_removed(tmp_path):
    """The next write removes the temporary file a killed adc left (its own pattern, its process gone),
    and nothing else: not a user's file that happens to look like a temporary, not one of a live run."""
    (tmp_path / "m.py").write_text("def f(x):\n    return x * x\n")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    stale = tmp_path / f".out.py.adc-{gone.pid}-{'ab' * 8}.tmp"
    stale.write_text("half a module")
    users = tmp_path / ".out.py.deadbeef.tmp"
    users.write_text("the user's own file")
    live = tmp_path / f".out.py.adc-{os.getpid()}-{'cd' * 8}.tmp"
    live.write_text("a write running now")
    old = time.time() - 3600
    for path in (stale, users, live):
        os.utime(path, (old, old))
    proc = adc_here("compile", "m.py", "-o", "out.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not stale.exists()
    assert users.read_text() == "the user's own file" and live.read_text() == "a write running now"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([users.name, live.name, "m.py", "out.py"])


def test_version(tmp_path):
    proc = adc_here("--version", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("adc ") and proc.stdout.split()[1][0].isdigit()


# ---- a real script: each function left out named once, where it is, in Python's spelling -----------

REAL = textwrap.dedent("""\
    import argparse

    import numpy as np

    X = np.linspace(0.0, 1.0, 20)
    Y = np.sin(X)


    def loss(w):
        r = w[0] * np.tanh(w[1] * X) - Y
        return np.sum(r * r)


    def report(w):
        with open("report.txt", "w") as fh:
            fh.write(str(w))


    def main():
        parser = argparse.ArgumentParser()
        report(parser)


    def same(a, b):
        if a is not b:
            return a * 2.0
        return a


    if __name__ == "__main__":
        main()
    """)


def test_a_script_compiles_its_numeric_functions_and_names_each_left_out_once(tmp_path):
    (tmp_path / "script.py").write_text(REAL)
    proc = adc_here("compile", "script.py", "-o", "out.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    # report, main, same: in order, each named (main is left out for the with of report, which it calls;
    # its own argparse call is a library call of constants, computed as the primal computes it)
    assert [line.split(":")[2] for line in lines] == ["15", "15", "25"], lines
    assert "(report left out" in lines[0] and "(main, which calls the function there, left out" in lines[1]
    assert "(same left out" in lines[2]
    assert all(line.startswith("adc: script.py:") and line.count("script.py") == 1 for line in lines)
    assert "the comparison 'is not' is not supported" in lines[2] and "IsNot" not in proc.stderr
    out = _load(tmp_path / "out.py")
    w = np.array([1.5, 2.0])
    value, (dw,) = out.loss_reverse(w)
    assert value == pytest.approx(np.sum((1.5 * np.tanh(2.0 * out.X) - out.Y) ** 2), rel=1e-14)
    assert dw.shape == (2,)


def test_every_function_refused_is_named_on_its_own_line(tmp_path):
    (tmp_path / "bad.py").write_text(
        "def f(a, b):\n    if a is not b:\n        return a\n    return b\n\n\ndef g(x):\n    return x & 1\n"
    )
    proc = adc_here("compile", "bad.py", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "adc: bad.py:2:8: the comparison 'is not' is not supported; compare numbers with < <= > >= == !=, "
        "and test for None with x is None",
        "adc: bad.py:8:12: the operator '&' of a float is not supported; combine masks (comparisons) and integers with & | ^ ~; floats with + - * /",
    ]


def test_an_error_in_a_module_of_the_users_is_named_relative_to_the_working_directory(tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "helpers.py").write_text("def g(x):\n    return x & 1\n")
    (tmp_path / "proj" / "main.py").write_text("import helpers\n\n\ndef f(x):\n    return helpers.g(x) + 1.0\n")
    for spelt in ("proj/main.py", str(tmp_path / "proj" / "main.py")):
        proc = adc_here("compile", spelt, cwd=tmp_path)
        assert proc.returncode == 1 and proc.stderr.startswith(
            "adc: proj/helpers.py:2:12: the operator '&'"
        ), proc.stderr
