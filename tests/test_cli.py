"""The `adc compile` command line (run as `python -m adcompiler`)."""

import ast
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import adcompiler

from oracle import anf_violations, central_diff, imported_modules
from shared import adc, written  # adc ARGS in this process: the same main, without starting Python

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODULE = textwrap.dedent("""\
    import math


    def helper(u):
        return u * math.sin(u)


    def f(x, y):
        z = helper(x) * y + math.exp(y / 3.0)
        return z


    def g(x):
        return x**3 - 2.0 * x


    def polar(r, theta):
        return r * math.cos(theta), r * math.sin(theta)
    """)

BAD = textwrap.dedent("""\
    import math


    def ok(x):
        return math.sin(x)


    def bad(x):
        y = x * 2.0
        try:
            y = y + 1.0
        except ValueError:
            pass
        return y
    """)
BAD_LINE, BAD_COL = 10, 4  # the `try`


def _env():
    """The environment of an ordinary user: bytecode caches on, so a test sees any __pycache__ adc leaves."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return env


def adc_process(*args, cwd=None):
    """``python -m adcompiler ARGS`` in a process of its own (where the process is the point)."""
    return subprocess.run(
        [sys.executable, "-m", "adcompiler", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=_env(),
        timeout=60,
    )


@pytest.fixture
def mod(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(MODULE)
    return path


@pytest.fixture
def bad(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(BAD)
    return path


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem + "_orig", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _defs(source):
    return {n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)}


def _run_hidden(out_path, calls):
    """Evaluate `calls` (expressions over module `m`) in a fresh interpreter
    where adcompiler and black cannot be imported."""
    script = textwrap.dedent(f"""\
        import sys, json, importlib.util
        sys.modules["adcompiler"] = None
        sys.modules["black"] = None
        spec = importlib.util.spec_from_file_location("derivs", {str(out_path)!r})
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        print(json.dumps([{", ".join(calls)}]))
        """)
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=str(out_path.parent),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _close(a, b, rtol=1e-6):
    return abs(a - b) <= 1e-9 + rtol * abs(b)


# --------------------------------------------------------------- tests


def test_stdout_is_a_compilable_module(mod):
    proc = adc("compile", mod)
    assert proc.returncode == 0 and compile(proc.stdout, "<stdout>", "exec"), proc.stderr


def test_output_defines_forward_and_reverse_by_default(mod):
    names = _defs(adc("compile", mod).stdout)
    expected = {f"{n}_{m}" for n in ("f", "g", "polar") for m in ("forward", "reverse")}
    assert expected <= names, names


def test_written_module_derivatives_without_adcompiler_or_black(mod, tmp_path):
    out = tmp_path / "out" / "derivs.py"
    out.parent.mkdir()
    proc = adc("compile", mod, "-o", out)
    assert proc.returncode == 0, proc.stderr
    got = _run_hidden(
        out,
        [
            "m.f_forward(0.7, 1.3, 1.0, 0.0)",
            "m.f_forward(0.7, 1.3, 0.0, 1.0)",
            "m.f_reverse(0.7, 1.3)",
            "m.f_reverse(0.7, 1.3, ct=2.0)",
            "m.g_forward(1.5, 1.0)",
            "m.g_reverse(1.5)",
        ],
    )
    orig = _load(mod)
    val = orig.f(0.7, 1.3)
    dfx, dfy = (central_diff(orig.f, (0.7, 1.3), i)[0] for i in (0, 1))
    checks = [
        (got[0][0], val),
        (got[0][1], dfx),
        (got[1][1], dfy),
        (got[2][0], val),
        (got[2][1][0], dfx),
        (got[2][1][1], dfy),
        (got[3][1][0], 2.0 * dfx),
        (got[3][1][1], 2.0 * dfy),
        (got[4][0], orig.g(1.5)),
        (got[4][1], 3 * 1.5**2 - 2.0),
        (got[5][1][0], 3 * 1.5**2 - 2.0),
    ]
    assert all(_close(a, b) for a, b in checks), (got, checks)


def test_written_module_tuple_output(mod, tmp_path):
    out = tmp_path / "out" / "derivs.py"
    out.parent.mkdir()
    assert adc("compile", mod, "-o", out, "--function", "polar").returncode == 0
    (val, tan), (val2, cts) = _run_hidden(
        out,
        [
            "m.polar_forward(2.0, 0.5, 0.0, 1.0)",
            "m.polar_reverse(2.0, 0.5, ct=(1.0, 0.0))",
        ],
    )
    expected = (
        [2.0 * math.cos(0.5), 2.0 * math.sin(0.5)],
        [-2.0 * math.sin(0.5), 2.0 * math.cos(0.5)],
        [math.cos(0.5), -2.0 * math.sin(0.5)],
    )
    assert all(_close(a, b) for got, exp in zip((val, tan, cts), expected) for a, b in zip(got, exp)) and val2 == val, (
        val,
        tan,
        val2,
        cts,
    )


ALIASED = textwrap.dedent("""\
    import math as m
    from math import sin, exp


    def dup(u):
        return u + u


    def t1(u):
        return sin(u) * 3.0


    def f(x, y):
        return dup(x) * t1(y) + m.cos(x) * exp(y)
    """)


def test_aliased_imports_and_clashing_helper_names(tmp_path):
    src = tmp_path / "aliased.py"
    src.write_text(ALIASED)
    out = tmp_path / "out" / "derivs.py"
    out.parent.mkdir()
    assert adc("compile", src, "-o", out).returncode == 0
    (_, (dx, dy)), (_, tx) = _run_hidden(out, ["m.f_reverse(0.7, 1.3)", "m.f_forward(0.7, 1.3, 1.0, 0.0)"])
    x, y = 0.7, 1.3
    ex = 6.0 * math.sin(y) - math.sin(x) * math.exp(y)
    ey = 6.0 * x * math.cos(y) + math.cos(x) * math.exp(y)
    assert (_close(dx, ex), _close(dy, ey), _close(tx, ex)) == (True,) * 3, (dx, dy, tx)
    assert imported_modules(out.read_text()) <= {"math"}


def test_written_module_imports_only_what_input_imports(mod, tmp_path):
    out = tmp_path / "derivs.py"
    assert adc("compile", mod, "-o", out).returncode == 0
    assert imported_modules(out.read_text()) <= imported_modules(MODULE)


def test_function_selection(mod):
    names = _defs(adc("compile", mod, "--function", "g").stdout)
    assert ("g_forward" in names, "g_reverse" in names, "f_forward" in names) == (
        True,
        True,
        False,
    ), names


def test_function_selection_repeatable(mod):
    names = _defs(adc("compile", mod, "--function", "g", "--function", "f").stdout)
    assert {"g_forward", "f_forward", "g_reverse", "f_reverse"} <= names and ("polar_forward" not in names), names


def test_mode_forward_has_no_reverse(mod):
    proc = adc("compile", mod, "--mode", "forward")
    assert (
        proc.returncode,
        "_reverse" in proc.stdout,
        "f_forward" in _defs(proc.stdout),
    ) == (
        0,
        False,
        True,
    ), (
        proc.stdout + proc.stderr
    )


def test_mode_reverse_has_no_forward(mod):
    proc = adc("compile", mod, "--mode", "reverse")
    names = _defs(proc.stdout)
    assert ("f_reverse" in names, "f_forward" in names) == (True, False), names


def test_stage_anf(mod):
    proc = adc("compile", mod, "--stage", "anf", "--function", "f")
    assert proc.returncode == 0 and anf_violations(proc.stdout) == [], proc.stdout


@pytest.mark.parametrize("stage", ["anf", "dup", "forward", "reverse"])
def test_every_stage_prints_python(mod, stage):
    proc = adc("compile", mod, "--stage", stage)
    assert proc.returncode == 0 and compile(proc.stdout, stage, "exec"), proc.stderr


def test_unsupported_function_is_left_out_with_its_location(bad):
    # no function named: the others are compiled, the refused one reported (exit 0)
    proc = adc("compile", bad)
    m = re.search(r"bad\.py:(\d+):(\d+)", proc.stderr)
    assert proc.returncode == 0 and m, proc.stderr
    assert "left out" in proc.stderr and "def ok_forward" in proc.stdout and "bad_forward" not in proc.stdout
    assert (int(m.group(1)), int(m.group(2)) in (BAD_COL, BAD_COL + 1)) == (
        BAD_LINE,
        True,
    )


def test_unsupported_construct_message_names_it(bad):
    proc = adc("compile", bad, "--function", "bad")
    assert proc.returncode != 0 and "try" in proc.stderr.lower(), proc.stderr


def test_selecting_only_supported_function_of_bad_file_works(bad):
    proc = adc("compile", bad, "--function", "ok")
    assert proc.returncode == 0 and "ok_forward" in _defs(proc.stdout), proc.stderr


def test_output_equal_to_input_is_refused(mod):
    proc = adc("compile", mod, "-o", mod)
    assert (proc.returncode != 0, mod.read_text()) == (True, MODULE)


def test_output_equal_to_input_other_spelling_is_refused(mod, tmp_path):
    proc = adc("compile", "mod.py", "-o", f".{os.sep}mod.py", cwd=tmp_path)
    assert (proc.returncode != 0, mod.read_text()) == (True, MODULE)


def test_missing_input_file_fails_cleanly(tmp_path):
    proc = adc("compile", tmp_path / "nope.py")
    assert proc.returncode != 0, proc.stderr


def _console_script():
    """The ``adc`` console script of this Python's environment (activated or not), or the one on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "adc")
    return beside if os.path.exists(beside) else shutil.which("adc")


@pytest.mark.skipif(_console_script() is None, reason="console script not installed")
def test_adc_console_script_matches_module(mod):
    proc = subprocess.run(
        [_console_script(), "compile", str(mod)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
    )
    assert (proc.returncode, proc.stdout) == (0, adc("compile", mod).stdout)


def test_python_m_adcompiler_is_adc_in_its_own_process(mod, tmp_path):
    """``python -m adcompiler`` in a fresh interpreter (bytecode caches on): the module adc prints in-process,
    the status of a refusal, and no ``__pycache__`` beside the input file."""
    proc = adc_process("compile", mod)
    assert (proc.returncode, proc.stdout) == (0, adc("compile", mod).stdout), proc.stderr
    (tmp_path / "helper.py").write_text("SCALE = 2.0\n")
    (tmp_path / "user.py").write_text("import helper\n\n\ndef f(x):\n    return helper.SCALE * x * x\n")
    written = adc_process("compile", "user.py", "-o", "user_ad.py", cwd=tmp_path)
    assert written.returncode == 0 and "__pycache__" not in os.listdir(tmp_path), written.stderr
    refused = adc_process("compile", "user.py", "--function", "nope", cwd=tmp_path)
    assert refused.returncode != 0 and "no function named nope" in refused.stderr


# --------------------------------------------------------------- never over the input, never a partial output
#
# Each case below runs `adc compile` once (cached: several tests read one run) in a directory of its own,
# and snapshots the directory before and after: on any error nothing in it may change -- an existing output
# keeps its contents, the input stays the input, and no temporary file is left behind.

SENTINEL = "# an output from an earlier, successful run: a failed run must leave it as it is\n" * 40

EIG = "import numpy as np\n\n\ndef f(a):\n    return np.sum(np.linalg.eig(a)[0])\n"

OUT = ["-o", "out.py"]

# kind -> (the text of bad.py, the arguments after `adc compile`, words stderr must hold)
FAILING = {
    "unsupported_construct": (BAD, ["bad.py", "--function", "bad", *OUT], ["bad.py:10:", "try", "is not supported;"]),
    "missing_derivative_rule": (EIG, ["bad.py", *OUT], ["bad.py:5:", "eig"]),
    "syntax_error": ("def f(x):\n    return x +\n", ["bad.py", *OUT], ["bad.py:2:", "SyntaxError"]),
    "import_error": (
        "import adc_no_such_module_xyz\n\n\ndef f(x):\n    return x\n",
        ["bad.py", *OUT],
        ["bad.py:1:", "adc_no_such_module_xyz"],
    ),
    "error_at_import": (
        "raise RuntimeError('boom at import')\n\n\ndef f(x):\n    return x\n",
        ["bad.py", "--import", *OUT],
        ["bad.py:1:", "RuntimeError", "boom at import"],
    ),
    "exit_at_import": ("import sys\n\nsys.exit(0)\n", ["bad.py", "--import", *OUT], ["bad.py:3:", "SystemExit"]),
    "syntax_error_in_an_imported_module": ("import sub.broken\n", ["bad.py", *OUT], ["bad.py:1:", "broken.py, line 1"]),
    "name_clash": (
        "def f_forward(u):\n    return u\n\n\ndef f(x):\n    return x * f_forward(x)\n",
        ["bad.py", *OUT],
        ["bad.py:1:1:", "f_forward", "f's forward derivative", "rename"],
    ),
    "unknown_function": (MODULE, ["bad.py", "--function", "nope", *OUT], ["no function named nope"]),
    "output_directory_missing": (MODULE, ["bad.py", "-o", "missing_dir/out.py"], ["no directory missing_dir"]),
    "output_is_a_directory": (MODULE, ["bad.py", "-o", "outdir"], ["outdir", "is a directory"]),
    "output_directory_is_a_file": (MODULE, ["bad.py", "-o", "out.py/new.py"], ["out.py is not a directory"]),
    "output_symlink_to_input": (MODULE, ["bad.py", "-o", "link.py"], ["refusing"]),
    "output_dotdot_spelling_of_input": (MODULE, ["bad.py", "-o", "sub/../bad.py"], ["refusing"]),
    "input_symlink_to_output": (MODULE, ["link.py", "-o", "bad.py"], ["refusing"]),
}


def _snapshot(root):
    """Every entry under root: symlinks by target, files by contents and mode, directories by name."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            found[rel] = ("link", os.readlink(path))
        elif path.is_dir():
            found[rel] = ("dir",)
        else:
            found[rel] = ("file", path.read_bytes(), path.stat().st_mode & 0o777)
    return found


_RUNS = {}


def _failing_run(kind, tmp_path_factory):
    """(process, snapshot before, snapshot after) of `adc compile ARGS` for a FAILING kind, run in a directory
    holding bad.py, an earlier output out.py, link.py -> bad.py, sub/broken.py (a syntax error) and outdir/keep.txt."""
    if kind not in _RUNS:
        source, argv, _ = FAILING[kind]
        root = tmp_path_factory.mktemp(kind)
        (root / "bad.py").write_text(source)
        (root / "out.py").write_text(SENTINEL)
        (root / "sub").mkdir()
        (root / "sub" / "broken.py").write_text("def (:\n")
        (root / "outdir").mkdir()
        (root / "outdir" / "keep.txt").write_text("kept\n")
        os.symlink("bad.py", root / "link.py")
        before = _snapshot(root)
        proc = adc("compile", *argv, cwd=root)
        _RUNS[kind] = (proc, before, _snapshot(root))
    return _RUNS[kind]


@pytest.mark.parametrize("kind", list(FAILING))
def test_failed_run_changes_nothing_on_disk(kind, tmp_path_factory):
    """Non-zero exit, nothing on stdout, and the directory exactly as before (out.py keeps its old text)."""
    proc, before, after = _failing_run(kind, tmp_path_factory)
    assert (proc.returncode != 0, proc.stdout) == (True, ""), proc.stderr
    assert after == before, sorted(set(after.items()) ^ set(before.items()), key=str)


@pytest.mark.parametrize("kind", list(FAILING))
def test_failed_run_says_why_on_stderr(kind, tmp_path_factory):
    proc, _, _ = _failing_run(kind, tmp_path_factory)
    missing = [w for w in FAILING[kind][2] if w not in proc.stderr]
    assert not missing, proc.stderr


@pytest.mark.parametrize("kind", list(FAILING))
def test_failed_run_reports_without_a_traceback(kind, tmp_path_factory):
    """An error is reported as one line of adc's own, not as a traceback through adcompiler."""
    proc, _, _ = _failing_run(kind, tmp_path_factory)
    assert "Traceback (most recent call last)" not in proc.stderr and proc.stderr.startswith("adc"), proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr


def test_output_hard_link_to_input_never_changes_the_input(mod, tmp_path):
    """-o names another link to the input's file: whether refused or written, the input keeps its text
    (an atomic write replaces the link; it never writes into the shared file)."""
    os.link(mod, tmp_path / "hard.py")
    proc = adc("compile", "mod.py", "-o", "hard.py", cwd=tmp_path)
    assert mod.read_text() == MODULE, proc.stderr
    assert proc.returncode != 0 or "def f_forward" in (tmp_path / "hard.py").read_text()


def test_successful_write_replaces_the_old_output_whole_and_leaves_no_temporary_file(mod, tmp_path):
    (tmp_path / "out.py").write_text(SENTINEL * 20)  # longer than the new module: no old tail may remain
    proc = adc("compile", "mod.py", "-o", "out.py", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mod.py", "out.py"]
    written = (tmp_path / "out.py").read_text()
    assert "earlier, successful run" not in written and {"f_forward", "g_reverse", "polar_reverse"} <= _defs(written)


def test_written_module_has_the_permissions_of_an_ordinary_write(mod, tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    assert adc("compile", "mod.py", "-o", "out.py", cwd=tmp_path).returncode == 0
    assert (tmp_path / "out.py").stat().st_mode & 0o777 == 0o666 & ~umask


def test_rewritten_module_keeps_the_permissions_of_the_file_it_replaces(mod, tmp_path):
    """As `open(path, "w")` would: a replaced output keeps its mode (here 0o640, neither 0o600 nor the umask's)."""
    out = tmp_path / "out.py"
    out.write_text(SENTINEL)
    out.chmod(0o640)
    assert adc("compile", "mod.py", "-o", "out.py", cwd=tmp_path).returncode == 0
    assert (out.stat().st_mode & 0o777, "def f_forward" in out.read_text()) == (0o640, True)


# --------------------------------------------------------------- names of the written module

CLASHING = textwrap.dedent("""\
    import math

    t1 = 0.5
    tape = 3.0


    def zeros_like(u):
        for _ in range(1):  # a loop: not written in place where it is called (lower.inline_calls)
            u = u * 0.5
        return u


    def like(u):
        for _ in range(1):
            u = u - 1.0
        return u


    def step_forward(u):
        return u * 2.0


    def step(x, xs):
        acc = [0.0] * len(xs)
        for i in range(len(xs)):
            acc[i] = zeros_like(xs[i] * x) * t1 + math.sin(x)
        s = 0.0
        for v in acc:
            s = s + like(v) * tape + step_forward(v)
        return s + max(acc)
    """)


def _written(tmp_path, source, *functions):
    """Compile `source` in process (as adc compile does) and load the written module's namespace."""
    from adcompiler.cli.main import compile_file

    src = tmp_path / "user.py"
    src.write_text(source)
    namespace = {}
    exec(compile(compile_file(str(src), functions), "derivs.py", "exec"), namespace)
    return _load(src), namespace


def test_written_module_keeps_user_helpers_and_constants_named_like_generated_code(tmp_path):
    """zeros_like, like, t1, tape are the user's in the written module; step_reverse still differentiates step.
    (The user's step_forward, which adc refuses, is step_forward_sweep here: named like generated code still.)"""
    user, m = _written(tmp_path, CLASHING.replace("step_forward", "step_forward_sweep"), "step")
    x, xs = 0.7, [0.3, -0.5, 1.1]
    value, (dx, dxs) = m["step_reverse"](x, list(xs))
    expected = [central_diff(lambda *v: user.step(v[0], list(v[1:])), (x, *xs), i)[0] for i in range(4)]
    assert value == user.step(x, list(xs)) and m["zeros_like"](2.0) == 1.0 and m["like"](2.0) == 1.0
    assert all(_close(a, b, 1e-5) for a, b in zip([dx, *dxs], expected)), ([dx, *dxs], expected)


def test_written_module_names_its_derivative_as_documented_or_refuses(tmp_path):
    """The README's contract: the written module defines step_forward(*params, *tangents) -> (value, tangent)."""
    from adcompiler.errors import UnsupportedSyntaxError

    try:
        user, m = _written(tmp_path, CLASHING, "step")
    except (UnsupportedSyntaxError, SystemExit):
        return  # refusing the clash is fine
    x, xs = 0.7, [0.3, -0.5, 1.1]
    value, tangent = m["step_forward"](x, list(xs), 1.0, [0.0, 0.0, 0.0])
    assert _close(tangent, central_diff(lambda x: user.step(x, list(xs)), (x,), 0)[0], 1e-5)


def test_name_clash_is_refused_where_the_user_names_it(tmp_path):
    """The refusal points at the user's step_forward (line 19, its def) and says what to do."""
    from adcompiler.cli.main import NameClashError

    with pytest.raises(NameClashError) as info:
        _written(tmp_path, CLASHING, "step")
    assert (info.value.lineno, "step_forward" in info.value.msg, "rename" in info.value.msg) == (19, True, True)


def test_a_local_variable_named_like_a_derivative_is_refused_too(tmp_path):
    """Generated module-level names avoid every name the user's code uses, locals too (g's derivative keeps g's
    local names): a local f_reverse is refused where it is bound, not left to turn f's derivative into f_reverse_1."""
    from adcompiler.cli.main import NameClashError

    source = "def f(x):\n    return x * x\n\n\ndef g(y):\n    f_reverse = y + 1.0\n    return f(f_reverse)\n"
    with pytest.raises(NameClashError) as info:
        _written(tmp_path, source)
    assert (info.value.lineno, info.value.offset, "f's reverse derivative" in info.value.msg) == (6, 5, True)


CALLEE_NAMES = textwrap.dedent("""\
    def h(x, b):
        return x * b


    def h_b(x):
        return x * x


    def f(x):
        return h(2.0, x)
    """)


def test_entry_names_are_not_taken_by_the_derivatives_of_callees(tmp_path):
    """f needs h's derivative in b alone, named like h_b's forward derivative: h_b_forward is still h_b's,
    whichever order the functions are chosen in."""
    for functions in [("f", "h_b"), ("h_b", "f"), ()]:
        _, m = _written(tmp_path, CALLEE_NAMES, *functions)
        assert (m["h_b_forward"](3.0, 1.0), m["h_b_reverse"](3.0), m["f_forward"](3.0, 1.0)) == (
            (9.0, 6.0),
            (9.0, (6.0,)),
            (6.0, 2.0),
        ), functions


LOOP = textwrap.dedent("""\
    import math


    def decay(x, n):
        for i in range(n):
            x = math.sin(x) * x + 0.5 * x
        return x
    """)


@pytest.mark.parametrize("checkpoint, held", [("revolve", "most = len(steps).bit_length()"), ("revolve:2", "most = 2")])
def test_checkpoint_revolve_module_runs_without_adcompiler(tmp_path, checkpoint, held):
    """--checkpoint revolve[:C] writes the revolve helper into the module; its gradient matches FD."""
    path = tmp_path / "loop.py"
    path.write_text(LOOP)
    out = tmp_path / "loop_ad.py"
    proc = adc("compile", path, "--mode", "reverse", "--checkpoint", checkpoint, "-o", out)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "def revolve(" in text and held in text
    ((value, (d_x, _)),) = _run_hidden(out, ["m.decay_reverse(0.8, 30)"])
    orig = _load(path)
    assert _close(value, orig.decay(0.8, 30)) and _close(d_x, central_diff(orig.decay, (0.8, 30), 0)[0])


@pytest.mark.parametrize("bad", ["revolve:0", "binomial"])
def test_bad_checkpoint_revolve_is_refused_with_usage(mod, bad):
    proc = adc("compile", mod, "--checkpoint", bad)
    assert proc.returncode == 2 and "revolve:C" in proc.stderr and repr(bad) in proc.stderr


GLOBALS_IN_CONTROL = """
STEPS = 3
LIMIT = 2.0
SCALE = 0.5
SMALL = 1.5


def f(x):
    for i in range(STEPS):
        x = x * SCALE + 1.0
    while x < LIMIT:
        x = x * 1.5
    if x > SMALL:
        return x * x
    return SMALL
"""


@pytest.mark.parametrize("x", [0.3, 5.0])
def test_written_module_defines_the_globals_its_loops_and_branches_read(tmp_path, x):
    """A global read only as a loop's bound, a while's or an if's test or a returned value is written into
    the module too (Table 1's PARTICLE_STEPS was left out: NameError)."""
    user, m = _written(tmp_path, GLOBALS_IN_CONTROL, "f")
    value, (dx,) = m["f_reverse"](x)
    assert value == user.f(x) and _close(dx, central_diff(user.f, (x,), 0)[0], 1e-6)
    assert m["f_forward"](x, 1.0) == (value, dx)


def test_a_length_read_off_an_argument_takes_part_in_the_returned_value(tmp_path):
    """``n = points.shape[0]`` of an argument whose kind ``adc compile`` does not know (no argument
    types): its shape is a tuple of ints, so ``n * ... - total`` is a number, not a value of unknown kind
    (refused at the ``return`` before: the Gaussian mixture of ``testing/parallel_programs.py``)."""
    (tmp_path / "normal.py").write_text(textwrap.dedent("""\
            import numpy as np


            def loss(alphas, points):
                n, k = points.shape[0], alphas.shape[0]
                total = 0.0
                for i in range(n):
                    total += np.sum(points[i] * alphas[: points.shape[1]])
                return n * np.log(np.sum(np.exp(alphas))) / k - total
            """))
    done = adc("compile", "normal.py", "-o", "normal_ad.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    spec = importlib.util.spec_from_file_location("normal_ad", tmp_path / "normal_ad.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    np = pytest.importorskip("numpy")
    alphas, points = np.array([0.2, -0.4, 0.9]), np.array([[0.5, 1.0], [-0.3, 0.7], [0.1, 0.2], [0.8, -0.6]])
    value, (g_alphas, g_points) = module.loss_reverse(alphas, points)

    def f(a, p):
        return len(p) * np.log(np.sum(np.exp(a))) / len(a) - np.sum(p * a[:2])

    assert value == pytest.approx(f(alphas, points), rel=1e-14)
    for k in range(3):
        step = np.eye(3)[k] * 1e-6
        assert g_alphas[k] == pytest.approx((f(alphas + step, points) - f(alphas - step, points)) / 2e-6, rel=1e-6)
    assert np.allclose(g_points, -np.tile(alphas[:2], (4, 1)), rtol=1e-14)


REBOUND_TO_A_PART = {
    # a list rebound to its slice or its element in a loop: the assumed signature recursed without end
    "sliced.py": ("def f(x, xs):\n    for i in range(2):\n        xs = xs[1:]\n    return x * xs[0]\n", None),
    "shrunk.py": (
        "def f(x, xs):\n    total = 0.0\n    while len(xs) > 1:\n        total = total + x * xs[0]\n"
        "        xs = xs[1:]\n    return total\n",
        "shrunk.py:3:5: a while loop's condition that changes 'xs'",
    ),
    "descended.py": (
        "def f(x, xs):\n    for i in range(2):\n        xs = xs[0]\n    return x * xs\n",
        "descended.py:4:5: returning a value whose kind the arguments do not decide",
    ),
}


def _compiled(tmp_path, name: str, text: str):
    """``adc compile`` of ``text`` as ``name``: (the run, the written module's path)."""
    src, out = tmp_path / name, tmp_path / "derivs.py"
    src.write_text(text)
    return adc("compile", src, "-o", out), out


def _written_calls(tmp_path, name: str, text: str, calls: list) -> list:
    """The values of ``calls`` (over the module ``m``) in the module ``adc compile`` writes of ``text``, run
    where adcompiler cannot be imported."""
    run, out = _compiled(tmp_path, name, text)
    assert run.returncode == 0, run.stderr
    return _run_hidden(out, calls)


@pytest.mark.parametrize("name", sorted(REBOUND_TO_A_PART))
def test_a_list_rebound_to_its_part_in_a_loop_is_compiled_or_refused_at_its_line(name, tmp_path):
    """``adc compile`` of a parameter rebound to its slice (``xs = xs[1:]``) or its element (``xs = xs[0]``)
    in a loop stopped with RecursionError's traceback (``analysis.assume``, which follows what a list's
    elements are used as); a slice is the list's kind, and an element read again from itself is not followed
    again.  Now the module is written (its derivative right), or the construct refused at its line."""
    text, refusal = REBOUND_TO_A_PART[name]
    run, out = _compiled(tmp_path, name, text)
    assert "Traceback" not in run.stderr and "RecursionError" not in run.stderr, run.stderr
    if refusal is not None:
        assert run.returncode != 0 and refusal in run.stderr and not out.exists(), run.stderr
        return
    assert run.returncode == 0, run.stderr
    (_, (dx, dxs)), (_, tx) = _run_hidden(
        out, ["m.f_reverse(0.7, [1.0, 2.0, 3.0, 4.0])", "m.f_forward(0.7, [1.0, 2.0, 3.0, 4.0], 1.0, [0.0] * 4)"]
    )
    assert (dx, dxs, tx) == (3.0, [0.0, 0.0, 0.7, 0.0], 3.0)


def test_a_list_read_at_a_position_and_through_its_slice_is_a_list_of_numbers(tmp_path):
    """``xs[0] * sum(xs[1:])``: the slice was taken for an element of xs, xs for a list of lists, and the
    function refused ("a value whose kind the arguments do not decide"); a slice is a list of the list's
    elements, and the positions read in it are not the list's (``ys = xs[1:]; ys[0]``)."""
    xs = [1.0, 2.0, 3.0, 4.0]
    (_, (fx, fxs)), (_, (gx, gxs)), (_, t) = _written_calls(
        tmp_path,
        "parts.py",
        "def f(x, xs):\n    return x * xs[0] * sum(xs[1:])\n\n\n"
        "def g(x, xs):\n    ys = xs[1:]\n    return x * ys[0] + xs[0]\n",
        [f"m.f_reverse(0.7, {xs})", f"m.g_reverse(0.7, {xs})", f"m.f_forward(0.7, {xs}, 0.0, [1.0, 0.0, 0.0, 1.0])"],
    )
    assert _close(fx, 9.0) and all(map(_close, fxs, [6.3, 0.7, 0.7, 0.7])), (fx, fxs)
    assert _close(gx, 2.0) and all(map(_close, gxs, [1.0, 0.7, 0.0, 0.0])), (gx, gxs)
    assert _close(t, 0.7 * 9.0 + 0.7 * 1.0), t


def test_a_list_measured_and_read_at_constant_positions_is_a_list_of_any_length(tmp_path):
    """``xs[0] * xs[1]`` with ``len(xs)`` (here in a helper it is handed to) was taken for a record of two
    (the positions read) and the written module refused a list of four ("this code was generated for f's
    xs: a list or tuple of floats, which [...] is not"); measured, it is a list of any length."""
    xs = [1.0, 2.0, 3.0, 4.0]
    (value, (dx, dxs)), (_, t) = _written_calls(
        tmp_path,
        "measured.py",
        "def count(xs):\n    total = 0.0\n    for i in range(len(xs)):\n        total = total + xs[0] * 0.5\n"
        "    return total\n\n\ndef f(x, xs):\n    return x * xs[0] * xs[1] + count(xs)\n",
        [f"m.f_reverse(0.7, {xs})", f"m.f_forward(0.7, {xs}, 1.0, [0.0, 0.0, 0.0, 0.0])"],
    )
    assert _close(value, 0.7 * 2.0 + 2.0), value
    assert _close(dx, 2.0) and all(map(_close, dxs, [0.7 * 2.0 + 2.0, 0.7, 0.0, 0.0])) and _close(t, 2.0), (dx, dxs, t)


def test_written_module_of_nested_derivatives_runs_without_adcompiler(tmp_path):
    """A function calling adcompiler.grad of a module-level function and of a lambda reading its variables:
    the written module defines every runtime helper the inner derivatives call (``reject_ints`` was read by
    the name the inner code used, and missing: a NameError when the module ran)."""
    src = tmp_path / "nested_src.py"
    src.write_text(textwrap.dedent("""\
            import adcompiler


            def inner(t, y):
                return t * t * y


            def nested(x, y):
                return x * adcompiler.grad(inner)(x, y) + adcompiler.grad(lambda t: t * y * y)(x)
            """))
    out = tmp_path / "out" / "nested_derivs.py"
    out.parent.mkdir()
    proc = adc("compile", src, "-o", out)
    assert proc.returncode == 0, proc.stderr
    got = _run_hidden(out, ["m.nested_reverse(0.7, 1.3)", "m.nested_forward(0.7, 1.3, 1.0, 0.0)"])
    # nested = 2 x^2 y + y^2: d/dx = 4 x y, d/dy = 2 x^2 + 2 y
    assert _close(got[0][0], 2 * 0.7**2 * 1.3 + 1.3**2)
    assert _close(got[0][1][0], 4 * 0.7 * 1.3) and _close(got[0][1][1], 2 * 0.7**2 + 2 * 1.3)
    assert _close(got[1][1], 4 * 0.7 * 1.3)


def test_matrix_norm_of_an_unknown_ndim_is_refused_not_differentiated_as_a_vector_norm(tmp_path):
    """``np.linalg.norm(A, ord=2)`` in a module written without argument types: a vector's 2-norm or a matrix's
    spectral norm (the written code took the vector rule: a wrong gradient of a matrix); refused at its line,
    saying to give the axes.  "nuc" and "fro" are a matrix's only: their derivatives, against central
    differences."""
    text = (
        "import numpy as np\n\n\ndef n2(A):\n    return np.linalg.norm(A, ord=2)\n\n\n"
        'def nuc(A):\n    return np.linalg.norm(A, "nuc")\n\n\ndef fro(A):\n    return np.linalg.norm(A, "fro")\n'
    )
    run, out = _compiled(tmp_path, "normed.py", text)
    assert run.returncode == 0, run.stderr
    assert "normed.py:5:1: np.linalg.norm(x, ord=2) of an array whose number of dimensions is not known" in run.stderr
    assert "axis=(0, 1)" in run.stderr
    A = [[0.3, -1.2, 0.5, 2.0], [1.1, 0.4, -0.7, 0.2], [-0.5, 0.9, 1.3, -1.0]]
    got = _run_hidden(out, [f"m.{f}_reverse(m.np.array({A}))[1][0].tolist()" for f in ("nuc", "fro")])
    import numpy as np

    for value, fn in zip(got, (lambda M: np.linalg.norm(M, "nuc"), lambda M: np.linalg.norm(M, "fro"))):
        M, expected = np.array(A), np.zeros((3, 4))
        for k in np.ndindex(3, 4):
            E = np.zeros((3, 4))
            E[k] = 1e-6
            expected[k] = (fn(M + E) - fn(M - E)) / 2e-6
        np.testing.assert_allclose(value, expected, atol=1e-7)


def test_a_library_rule_made_at_run_time_stops_adc_compile_with_a_message(tmp_path):
    """``scipy.special.expit``'s rule is adcompiler's, made as the code runs (closures): ``adc compile`` stopped
    with an AttributeError traceback copying its source; it says what and why, and writes nothing."""
    pytest.importorskip("scipy")
    run, out = _compiled(tmp_path, "special.py", "import scipy.special as sp\n\n\ndef f(x):\n    return sp.expit(x)\n")
    assert run.returncode != 0 and "Traceback" not in run.stderr, run.stderr
    assert "adcompiler makes as the code runs" in run.stderr and "adcompiler.differentiate" in run.stderr
    assert not out.exists()


def test_the_readme_perturbation_example_runs_as_a_written_module(tmp_path):
    """README's ``x * grad(lambda y: x + y)(1.0)`` (derivative 1): the written module called the inner
    gradient under the name the code gives it (``..._grad_1``) but defined it under its own, and its check of
    integer arguments (``reject_ints``) was not defined."""
    text = "import adcompiler\n\n\ndef perturb(x):\n    return x * adcompiler.grad(lambda y: x + y)(1.0)\n"
    got = _written_calls(tmp_path, "perturbed.py", text, ["m.perturb_reverse(1.3)", "m.perturb_forward(1.3, 1.0)"])
    assert got == [[1.3, [1.0]], [1.3, 1.0]]
    run, out = _compiled(tmp_path, "perturbed.py", text)
    inner = next(n for n in ast.parse(out.read_text()).body if isinstance(n, ast.FunctionDef) and "grad" in n.name)
    called = {c.func.id for c in ast.walk(inner) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
    assert called <= _defs(out.read_text()) | {"type", "float", "isinstance"}, called


def test_a_numpy_type_called_on_a_constant_runs_in_the_written_module(tmp_path):
    """``np.float32(2.0)``: its Python form (``rules.numpy_written``) was copied under its own name while the
    code called it under another (NameError: float32_1); copied under the name called now, no adcompiler needed."""
    text = "import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(x) * np.float32(2.0))\n"
    got = _written_calls(tmp_path, "typed.py", text, ["m.f_reverse(m.np.array([0.3, 1.0]))[1][0].tolist()"])
    assert got[0] == pytest.approx([2 * math.cos(0.3), 2 * math.cos(1.0)], rel=1e-7)


def test_a_record_returned_has_a_default_cotangent_of_ones_in_the_written_module(tmp_path):
    """``return {"sum": x + y, "prod": x * y}``: the written reverse mode's default ``ct`` was the number 1.0,
    which its code reads item by item (a TypeError); ones of its items now, as for a tuple returned."""
    text = 'def rec(x, y):\n    return {"sum": x + y, "prod": x * y}\n'
    got = _written_calls(
        tmp_path, "recorded.py", text, ["m.rec_reverse(1.0, 0.5)", "m.rec_reverse(1.0, 0.5, (1.0, 2.0))"]
    )
    assert got == [[[1.5, 0.5], [1.5, 2.0]], [[1.5, 0.5], [2.0, 3.0]]]


def test_a_list_read_at_two_positions_is_told_as_a_list_of_two(tmp_path):
    """A written module generated for a list read only at ``xs[0]`` and ``xs[1]`` (taken for a list of two, as
    documented) told another list "a list or tuple of floats, which [...] is not": it says how many now."""
    run, out = _compiled(tmp_path, "pair.py", "def g(xs):\n    return xs[0] * xs[1]\n")
    assert run.returncode == 0, run.stderr
    spec = importlib.util.spec_from_file_location("pair_ad", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.g_reverse([1.5, 2.0])[1] == ([2.0, 1.5],)
    with pytest.raises(TypeError, match=r"g_reverse's xs: a list or tuple of 2 floats, which \[1.5, 2.0, 3.0\]"):
        module.g_reverse([1.5, 2.0, 3.0])


def test_a_derivative_held_in_a_local_name_of_numpy_code_is_differentiated_again(tmp_path):
    """samples/new_user.py's ``sgd`` holds ``grad = adcompiler.grad(batch_loss)`` and calls it in its loop: a
    nested derivative, whose reverse mode over NumPy derivative code raised an IndexError, then a TypeError,
    out of adc compile, then was refused (the matrix products' adjoints had no rules of their own); now
    written, and its reverse mode agrees with central differences of the sample's own ``sgd``; the module's
    ``mlp_loss_reverse`` of a list of (W, b) ran into a NameError (the helper zeros_like, written as
    zeros_like_1, called itself by its first name)."""
    sys.path.insert(0, os.path.join(REPO, "samples"))
    try:
        import new_user
    finally:
        sys.path.pop(0)
    run = adc("compile", os.path.join(REPO, "samples", "new_user.py"), "-o", tmp_path / "new_user_ad.py")
    assert run.returncode == 0 and "Traceback" not in run.stderr and "sgd left out" not in run.stderr, run.stderr
    spec = importlib.util.spec_from_file_location("new_user_ad", tmp_path / "new_user_ad.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(0)
    layers = [
        (rng.normal(size=(3, 2)) * 0.5, rng.normal(size=3) * 0.1),
        (rng.normal(size=(1, 3)) * 0.5, rng.normal(size=1)),
    ]
    xs, ys = rng.normal(size=(2, 2)), rng.normal(size=(2, 1))
    ct = [(np.ones((3, 2)), np.zeros(3)), (np.zeros((1, 3)), np.zeros(1))]
    _, cts = module.sgd_reverse(layers, xs, ys, 2, 0.1, ct)
    W, step, moved = layers[0][0], 1e-6, np.zeros((3, 2))
    for idx in np.ndindex(W.shape):
        for sign in (1.0, -1.0):
            shifted = W.copy()
            shifted[idx] += sign * step
            moved[idx] += sign * np.sum(new_user.sgd([(shifted, layers[0][1]), layers[1]], xs, ys, 2, 0.1)[0][0])
    np.testing.assert_allclose(cts[0][0][0], moved / (2 * step), rtol=1e-6, atol=1e-8)
    x = rng.normal(size=2)
    value, (d_layers, _) = module.mlp_loss_reverse(layers, x)
    want = adcompiler.grad(new_user.mlp_loss)(layers, x)
    np.testing.assert_allclose(d_layers[0][0], want[0][0], rtol=1e-12)


@pytest.mark.skipif(importlib.util.find_spec("array_api_compat") is None, reason="needs array-api-compat")
def test_a_function_the_array_api_target_refuses_is_left_out_and_the_others_written(tmp_path):
    """--arrays any: a function calling what the standard lacks (np.linalg.eigvalsh) is left out with its
    location, as any refused function is; the others are written (the run failed whole before)."""
    path = tmp_path / "two.py"
    path.write_text(
        "import numpy as np\n\n\ndef good(x):\n    return np.sum(np.sin(x) * x)\n\n\n"
        "def bad(a):\n    return np.sum(np.linalg.eigvalsh(a + a.T))\n"
    )
    proc = adc("compile", "two.py", "--arrays", "any", "-o", "out.py", cwd=tmp_path)
    assert proc.returncode == 0 and "two.py:9:" in proc.stderr and "bad left out" in proc.stderr, proc.stderr
    written = (tmp_path / "out.py").read_text()
    assert "def good_reverse" in written and "def bad_" not in written


def test_a_global_list_of_numbers_is_written_into_the_module(tmp_path):
    """WEIGHTS = [0.2, 0.3, 0.5] read by the function: the written module defines it (a NameError when its
    derivative was called, before), exactly, and a nested tuple too."""
    namespace = _compiled_module(
        tmp_path,
        "weights",
        "WEIGHTS = [0.2, 0.3, 0.5]\nPAIRS = ((1, 2.5), (3, -0.125))\n\n\n"
        "def weighted(xs):\n    return sum(w * x**2 for w, x in zip(WEIGHTS, xs)) + PAIRS[1][1] * xs[0]\n",
    )
    value, (grad,) = namespace["weighted_reverse"]([1.0, 2.0, 3.0])
    assert value == pytest.approx(0.2 + 0.3 * 4 + 0.5 * 9 - 0.125, rel=1e-15)
    assert grad == pytest.approx([0.4 - 0.125, 1.2, 3.0], rel=1e-15)
    assert namespace["WEIGHTS"] == [0.2, 0.3, 0.5] and namespace["PAIRS"] == ((1, 2.5), (3, -0.125))


def test_a_function_taking_a_nested_derivative_of_another_compiles_with_it(tmp_path):
    """tangent_of calls adcompiler.jvp(energy, ...): the nested derivative's code was named energy_forward
    (lowered first), and the whole file was refused as a name clash with energy's own derivative; the entry
    names are taken first now, the nested copy renamed."""
    namespace = _compiled_module(
        tmp_path,
        "nested",
        "import adcompiler\n\n\ndef energy(x, k):\n    return 0.5 * k * x ** 4\n\n\n"
        "def tangent_of(x, k):\n    _, t = adcompiler.jvp(energy, (x, k), (1.0, 0.0))\n    return t * k\n",
    )
    x, k = 1.3, 0.7
    assert namespace["energy_forward"](x, k, 1.0, 0.0) == pytest.approx((0.5 * k * x**4, 2 * k * x**3), rel=1e-14)
    value, (dx, dk) = namespace["tangent_of_reverse"](x, k)
    assert (value, dx, dk) == pytest.approx((2 * k * k * x**3, 6 * k * k * x**2, 4 * k * x**3), rel=1e-14)


NETWORK = """import numpy as np


class Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, h):
        return np.tanh(self.W @ h + self.b)


class Net:
    def __init__(self, first, second):
        self.first, self.second = first, second

    def __call__(self, x):
        return np.sum(self.second(self.first(x)) ** 2)


NET = Net(Dense(np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]]), np.array([0.05, -0.1])), Dense(np.array([[0.7, -0.3]]), np.array([0.2])))
PARAMS = {"W": np.array([[0.3, -0.2, 0.5]]), "scale": 1.5}


def loss(x: np.ndarray):
    return NET(x) + PARAMS["scale"] * np.sum(np.tanh(PARAMS["W"] @ x)) + np.sum(NET.first.W @ x)
"""


@pytest.mark.parametrize("target", ["python", "numba"])
def test_a_dict_and_an_object_of_the_module_are_written_into_it(tmp_path, target):
    """A network the module holds (layers as attributes, called as ``NET(x)``) and a dict of parameters: the
    written module defines their numbers (a NameError when the derivative was called, before; under Numba
    each array a constant of its own, as Numba types no dict or object), and the derivatives agree with
    the API's and central differences."""
    if target == "numba":
        pytest.importorskip("numba")
    namespace = _compiled_module(tmp_path, "network", NETWORK, "--import", "--target", target)
    user = written(tmp_path, "network_user", NETWORK)
    x = np.array([0.3, -0.4, 0.8])
    value, (grad,) = namespace["loss_reverse"](x, 1.0)
    assert value == pytest.approx(user["loss"](x), rel=1e-14)
    np.testing.assert_allclose(grad, adcompiler.grad(user["loss"])(x), rtol=1e-12)
    central = [(user["loss"](x + 1e-6 * e) - user["loss"](x - 1e-6 * e)) / 2e-6 for e in np.eye(3)]
    np.testing.assert_allclose(grad, central, rtol=1e-6)
    _, tangent = namespace["loss_forward"](x, np.array([1.0, 2.0, -1.0]))
    assert tangent == pytest.approx(grad @ np.array([1.0, 2.0, -1.0]), rel=1e-12)


def _compiled_module(tmp_path, name: str, text: str, *options) -> dict:
    """The namespace of the module ``adc compile`` writes for ``text`` (written as ``name.py``), run."""
    (tmp_path / f"{name}.py").write_text(text)
    proc = adc("compile", f"{name}.py", *options, "-o", f"{name}_out.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    spec = importlib.util.spec_from_file_location(f"{name}_out", tmp_path / f"{name}_out.py")  # (a file: Numba's
    module = importlib.util.module_from_spec(spec)  # cache=True needs one)
    spec.loader.exec_module(module)
    return vars(module)


def test_a_decorators_wrapper_is_written_with_what_it_closes_over(tmp_path):
    """A function a decorator of the file wraps (``functools.wraps``, ``*args``): the written module held the
    wrapper's copy with its decorator and its closure's ``fn`` undefined (a NameError on import); now the
    wrapper without its decorator, ``fn`` the function it wraps, written too, and a number it closes over."""
    namespace = _compiled_module(
        tmp_path,
        "wrapped",
        "import functools\n\n\ndef scaled(k):\n    def deco(fn):\n        @functools.wraps(fn)\n"
        "        def wrapper(*args, **kwargs):\n            return k * fn(*args, **kwargs)\n\n        return wrapper\n\n"
        "    return deco\n\n\n@scaled(2.0)\ndef sq(x):\n    return x * x\n\n\ndef f(x):\n    return sq(x) + x\n",
        "--import",
        "--function",
        "f",
    )
    assert namespace["f_reverse"](1.5) == (6.0, (7.0,))
    assert namespace["f_forward"](1.5, 1.0) == pytest.approx((6.0, 7.0), rel=1e-15)


def test_the_default_cotangent_of_a_tuple_holding_a_list(tmp_path):
    """``return (x * y, [x + y, x - y])``: ``ct`` defaults to ones in the output's structure, (1.0, (1.0, 1.0));
    it was (1.0, 1.0), which the list's adjoint could not take (a TypeError)."""
    namespace = _compiled_module(tmp_path, "pair", "def f(x, y):\n    return (x * y, [x + y, x - y])\n")
    value, cotangents = namespace["f_reverse"](0.4, 1.3)
    assert cotangents == pytest.approx((1.3 + 2.0, 0.4), rel=1e-15)
    assert namespace["f_reverse"](0.4, 1.3, ct=(1.0, [1.0, 1.0]))[1] == pytest.approx(cotangents, rel=1e-15)


def test_a_keyword_only_parameter_is_differentiated(tmp_path):
    """``def f(x, *, k=0.5)``: the written module differentiates k as the API does (it was left out, silently)."""
    namespace = _compiled_module(tmp_path, "keyword", "def f(x, *, k=0.5):\n    return k * x * x\n")
    value, cotangents = namespace["f_reverse"](1.5)
    assert value == pytest.approx(1.125, rel=1e-15) and cotangents == pytest.approx((1.5, 2.25), rel=1e-15)
    assert namespace["f_reverse"](1.5, k=2.0)[1] == pytest.approx((6.0, 2.25), rel=1e-15)
    assert namespace["f_forward"](1.5, 0.5, 0.0, 1.0) == pytest.approx((1.125, 2.25), rel=1e-15)


def test_a_function_a_decorator_replaced_without_wraps(tmp_path):
    """``@twice def half`` where twice returns its ``inner`` without functools.wraps: ``half_forward`` and
    ``half_reverse`` are the derivatives of half as the file binds it (twice's inner), not of the function
    the decorator was handed (which took the name half_forward before, silently: 0.994 for 1.335)."""
    namespace = _compiled_module(
        tmp_path,
        "nowraps",
        "import math\n\n\ndef twice(fn):\n    def inner(x):\n        return fn(fn(x))\n\n    return inner\n\n\n"
        "@twice\ndef half(x):\n    return 0.5 * x + math.sin(x)\n\n\ndef use(x):\n    return half(x) * 2.0\n",
        "--import",
    )
    user = written(tmp_path, "nowraps_user", (tmp_path / "nowraps.py").read_text())
    x = 0.7
    central = (user["half"](x + 1e-6) - user["half"](x - 1e-6)) / 2e-6
    value, tangent = namespace["half_forward"](x, 1.0)
    assert value == pytest.approx(user["half"](x), rel=1e-15) and tangent == pytest.approx(central, rel=1e-7)
    assert namespace["half_reverse"](x)[1][0] == pytest.approx(tangent, rel=1e-14)
    assert namespace["use_reverse"](x)[1][0] == pytest.approx(2 * tangent, rel=1e-14)


CACHED = (
    "import functools\n\n\n@functools.cache\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\n\n"
    "@functools.lru_cache(maxsize=None)\ndef fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n\n\n"
    "def use(x):\n    s = 0.0\n    for k in range(6):\n        s += fib(k) * x ** k\n    return s + fact(4) * x\n"
)


@pytest.mark.parametrize("options", [(), ("--import",)], ids=["read", "imported"])
def test_a_recursive_helper_of_functools_cache_is_written_calling_itself(tmp_path, options):
    """``@functools.cache def fib``, calling itself by the module's name (the cache): the written module copied it
    as ``fib_1`` still calling ``fib``, which it does not define (a NameError at the first call); without
    --import, functools.cache and lru_cache were decorators adc compile did not know (refused)."""
    namespace = _compiled_module(tmp_path, "cached", CACHED, "--function", "use", *options)
    x = 0.7
    expected = sum(n * k * x ** (k - 1) for k, n in enumerate((0, 1, 1, 2, 3, 5)) if k) + 24.0
    assert namespace["use_reverse"](x)[1][0] == pytest.approx(expected, rel=1e-14)


def test_a_factorys_list_and_a_class_attribute_of_an_object_of_the_module(tmp_path):
    """A closure over a list of numbers (``make_poly([...])``: "the global coeffs (NoneType)" before) and a class
    attribute read through an object the module holds (``OSC.omega``, and ``self.omega`` in its method:
    "the attribute .omega of a dict or tuple", and a class the module could not write, before)."""
    namespace = _compiled_module(
        tmp_path,
        "factory",
        "def make_poly(coeffs):\n    def p(x):\n        acc = 0.0\n        for c in coeffs:\n"
        "            acc = acc * x + c\n        return acc\n\n    return p\n\n\nPOLY = make_poly([1.0, -2.0, 0.5])\n\n\n"
        "class Osc:\n    omega = 2.0\n\n    def __init__(self, damping):\n        self.damping = damping\n\n"
        "    def accel(self, x, v):\n        return -self.omega ** 2 * x - self.damping * v\n\n\nOSC = Osc(0.25)\n\n\n"
        "def objective(y):\n    return POLY(y) * 2.0\n\n\ndef s1(x, v):\n    return OSC.accel(x, v)\n\n\n"
        "def s3(x):\n    return OSC.omega * x\n",
        "--import",
    )
    assert namespace["objective_reverse"](0.7)[1][0] == pytest.approx(2 * (2 * 0.7 - 2), rel=1e-14)
    assert namespace["s1_reverse"](0.5, 0.3)[1] == pytest.approx((-4.0, -0.25), rel=1e-14)
    assert namespace["s3_reverse"](0.5) == (1.0, (2.0,))


def test_a_function_whose_derivative_calls_a_rule_made_as_the_code_runs_is_left_out(tmp_path):
    """A function calling scipy.special.expit (whose rule adcompiler makes as the code runs: no source to copy)
    is left out at its own line, and the file's other functions are written (the whole run stopped before,
    unlocated)."""
    pytest.importorskip("scipy")
    (tmp_path / "sp.py").write_text(
        "from scipy.special import expit\n\n\ndef ok(x):\n    return x * x\n\n\ndef sig(x):\n    return expit(x) * 2.0\n"
    )
    proc = adc("compile", "sp.py", "-o", "sp_ad.py", cwd=tmp_path)
    assert proc.returncode == 0 and "sp.py:8:" in proc.stderr and "sig left out" in proc.stderr, proc.stderr
    text = (tmp_path / "sp_ad.py").read_text()
    assert "def ok_reverse" in text and "def sig_" not in text
