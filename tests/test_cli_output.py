"""Where ``adc compile -o`` writes (adcompiler/cli/outputs.py): a FIFO or a character device is written into and
never replaced, a symbolic link is followed and stays a link, a directory or a socket is refused, an output
that is one of the inputs or a module they import is refused, only this tool's own temporary files are ever removed, and a
directory with nothing to compile says so."""

import os
import socket
import stat
import subprocess
import sys
import threading

import pytest

from shared import adc

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = "import math\n\n\ndef f(x):\n    return math.sin(x) * x\n"


def adc_process(*args, cwd):
    """``python -m adcompiler ARGS`` in a process of its own, where its own stdout is the point (the other
    tests run ``adc`` in this process: ``shared.adc``)."""
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


@pytest.fixture
def src(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    return tmp_path


def test_a_fifo_is_written_into_and_stays_a_fifo(src):
    fifo = src / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    proc = adc("compile", "m.py", "-o", "pipe", cwd=src)
    reader.join(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "def f_reverse" in got[0] and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in src.iterdir()) == ["m.py", "pipe"]


def test_dev_null_is_written_into_and_stays_the_null_device(src):
    before = os.stat("/dev/null")
    proc = adc("compile", "m.py", "-o", "/dev/null", cwd=src)
    after = os.stat("/dev/null")
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert sorted(p.name for p in src.iterdir()) == ["m.py"]


def test_a_link_to_a_character_device_is_written_through(src):
    os.symlink("/dev/null", src / "null_link")
    proc = adc("compile", "m.py", "-o", "null_link", cwd=src)
    assert proc.returncode == 0, proc.stderr
    assert os.readlink(src / "null_link") == "/dev/null" and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_symlink_is_followed_and_stays_a_link(src):
    (src / "build").mkdir()
    (src / "build" / "m_ad.py").write_text("old\n")
    os.symlink("build/m_ad.py", src / "out.py")
    os.symlink("build/new_ad.py", src / "dangling.py")
    for name in ("out.py", "dangling.py"):
        proc = adc("compile", "m.py", "-o", name, cwd=src)
        assert proc.returncode == 0, proc.stderr
        assert (src / name).is_symlink()
    assert "def f_reverse" in (src / "build" / "m_ad.py").read_text()
    assert "def f_reverse" in (src / "build" / "new_ad.py").read_text()
    assert sorted(p.name for p in (src / "build").iterdir()) == ["m_ad.py", "new_ad.py"]


def test_a_socket_is_refused_and_left_as_it_is(src):
    path = src / "sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        proc = adc("compile", "m.py", "-o", "sock", cwd=src)
    finally:
        server.close()
    assert proc.returncode == 1 and "sock: not written: it is a socket" in proc.stderr, proc.stderr
    assert stat.S_ISSOCK(os.lstat(path).st_mode) and sorted(p.name for p in src.iterdir()) == ["m.py", "sock"]


def test_an_output_that_is_one_of_the_inputs_is_refused(src):
    (src / "m_ad.py").write_text("def g(x):\n    return x * x\n")
    proc = adc("compile", "m.py", "m_ad.py", "-o", ".", cwd=src)
    assert proc.returncode == 2 and "would be written over the input m_ad.py" in proc.stderr, proc.stderr
    assert (src / "m_ad.py").read_text() == "def g(x):\n    return x * x\n"
    assert sorted(p.name for p in src.iterdir()) == ["m.py", "m_ad.py"]


def test_an_output_hard_linked_to_the_input_is_refused(src):
    os.link(src / "m.py", src / "hard.py")
    proc = adc("compile", "m.py", "-o", "hard.py", cwd=src)
    assert proc.returncode == 2 and "refusing to overwrite the input" in proc.stderr
    assert (src / "hard.py").read_text() == SOURCE


def test_an_output_that_is_a_module_the_input_imports_is_refused(tmp_path):
    helper = "def sq(x):\n    return x * x\n"
    (tmp_path / "helper2.py").write_text(helper)
    (tmp_path / "prog.py").write_text("from helper2 import sq\n\n\ndef f(x):\n    return sq(x) + x\n")
    proc = adc("compile", "prog.py", "-o", "helper2.py", cwd=tmp_path)
    assert proc.returncode == 2 and "refusing to overwrite" in proc.stderr and "helper2.py" in proc.stderr
    assert (tmp_path / "helper2.py").read_text() == helper
    assert sorted(p.name for p in tmp_path.iterdir()) == ["helper2.py", "prog.py"]


def test_compiling_a_directory_into_itself_says_so_and_fails(src):
    proc = adc("compile", ".", "-o", ".", cwd=src)
    assert proc.returncode == 2 and "is the output directory" in proc.stderr and "nothing to compile" in proc.stderr
    assert sorted(p.name for p in src.iterdir()) == ["m.py"]


def test_an_empty_directory_says_so_and_fails(tmp_path):
    (tmp_path / "empty").mkdir()
    proc = adc("compile", "empty", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 2 and "empty: no Python files in it" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]


def test_a_directory_of_files_without_functions_says_nothing_was_written(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "consts.py").write_text("X = 1.0\n")
    proc = adc("compile", "pkg", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 1 and "nothing written" in proc.stderr, proc.stderr


def test_temporaries_are_this_tools_own(src):
    """A stale temporary of a run that is gone is removed; a user's look-alike and a live run's are kept."""
    from adcompiler.cli.outputs import remove_stale_temporaries, temporary_name

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    out = src / "out.py"
    stale = temporary_name(out, gone.pid, "0123456789abcdef")
    live = temporary_name(out, os.getpid(), "fedcba9876543210")
    users = [src / ".out.py.deadbeef.tmp", src / f".out.py.adc-{gone.pid}-mine.tmp", src / ".other.py.adc-1-0.tmp"]
    for path in [stale, live, *users]:
        path.write_text("x")
    assert remove_stale_temporaries(out) == [stale]
    assert all(p.exists() for p in [live, *users])


def test_dev_stdout_is_adcs_own_output_wherever_it_goes(src):
    """A pipe gets the module; a file the shell opened for appending keeps what it had, the module after it."""
    piped = adc_process("compile", "m.py", "-o", "/dev/stdout", cwd=src)
    assert piped.returncode == 0 and "def f_reverse" in piped.stdout, piped.stderr
    log = src / "log.txt"
    log.write_text("an earlier line\n")
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with open(log, "a") as out:
        done = subprocess.run(
            [sys.executable, "-m", "adcompiler", "compile", "m.py", "-o", "/dev/stdout"], stdout=out, cwd=src, env=env
        )
    assert done.returncode == 0
    text = log.read_text()
    assert text.startswith("an earlier line\n") and "def f_reverse" in text
    assert sorted(p.name for p in src.iterdir()) == ["log.txt", "m.py"]


def test_a_function_of_the_files_package_imported_from_a_parent_is_copied(tmp_path):
    """``from ..h import hh`` in pkg/sub/a.py: hh is the user's own code (its package's), copied into the module
    as a helper of the same folder is; it was taken for a library rule adcompiler makes as it runs and the file
    refused at 1:1.  The module, imported alone, against the derivative of hh(x) + x = x**3 + x."""
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for init in ("pkg/__init__.py", "pkg/sub/__init__.py"):
        (tmp_path / init).write_text("")
    (tmp_path / "pkg" / "h.py").write_text("def hh(x):\n    return x ** 3\n")
    (tmp_path / "pkg" / "sub" / "a.py").write_text("from ..h import hh\n\n\ndef g(x):\n    return hh(x) + x\n")
    proc = adc("compile", "pkg/sub/a.py", "-o", "a_ad.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run(
        [sys.executable, "-c", "import a_ad; print(a_ad.g_reverse(0.5)[1][0], a_ad.g_forward(0.5, 1.0)[1])"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert [float(v) for v in run.stdout.split()] == [3 * 0.25 + 1.0] * 2
