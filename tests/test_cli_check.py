"""``adc check`` (check_grad from the command line) and ``adc compile`` over several files or a directory."""

import importlib.util
import math

import pytest

from adcompiler.cli import main as cli

SOURCE = """\
import math
import numpy as np

import adcompiler

X0 = np.array([0.5, 1.5])


def f(x, y):
    return x * math.sin(y) + x ** 2


def g(v, w):
    return np.sum(np.tanh(v) * w)


def twice(x):
    return x * x


def twice_wrong(x, g):
    return (3.0 * x * g,)


adcompiler.defrule(twice, vjp=twice_wrong, jvp=lambda x, t: 2.0 * x * t)


def uses_twice(x):
    return twice(x) + x


def refused(x):
    try:
        return x
    except Exception:
        return 0.0
"""


@pytest.fixture
def script(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fns.py").write_text(SOURCE)
    return tmp_path


def run(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_check_passes_on_numbers_and_arrays(script, capsys):
    status, out, _ = run(capsys, "check", "fns.py", "--function", "f", "--args", "1.0, 2.0")
    assert status == 0 and out.startswith("f: derivatives agree (largest relative error ")
    status, out, _ = run(capsys, "check", "fns.py", "--function", "g", "--args", "X0, np.ones(2)", "--tol", "1e-8")
    assert status == 0 and "tol 1e-08" in out
    status, out, _ = run(capsys, "check", "fns.py", "--function", "f", "--args", "1.0, 2.0", "--wrt", "y")
    assert status == 0
    status, out, _ = run(capsys, "check", "fns.py", "--function", "f", "--args", "1, 2.0")  # x an int: a constant
    assert status == 0


def test_check_fails_with_the_table_where_a_rule_is_wrong(script, capsys):
    status, out, err = run(capsys, "check", "fns.py", "--function", "uses_twice", "--args", "1.5")
    assert status == 1 and out == ""
    assert "gradient check of uses_twice failed" in err and "<-" in err
    reverse = float(err.splitlines()[2].split()[1])  # the wrong vjp: 3 x + 1 instead of 2 x + 1
    assert reverse == pytest.approx(3 * 1.5 + 1)


@pytest.mark.parametrize(
    "argv, status, expected",
    [
        (["--function", "f", "--args", "1.0, 2.0,,"], 2, ["--args: invalid syntax", "1.0, 2.0,,", "         ^"]),
        (["--function", "f", "--args", "zz"], 2, ["--args 'zz': evaluating it raised NameError"]),
        (["--function", "f", "--args", "1.0"], 2, ["f(x, y) with --args '1.0'", "missing a required argument"]),
        (
            ["--function", "f", "--args", "1, 2.0", "--wrt", "x"],
            2,
            ["cannot differentiate with respect to x, the integer 1"],
        ),
        (["--function", "nope", "--args", "1.0"], 2, ["no function named nope (found: f, g, twice"]),
        (["--args", "1.0"], 2, ["which function? pass --function NAME"]),
        (["--function", "refused", "--args", "1.0"], 1, ["fns.py:33:5: try/except is not supported"]),
        (["--function", "f", "--args", "1.0, 2.0", "--wrt", "z"], 2, ["z"]),
    ],
)
def test_check_bad_input_is_one_located_line(script, capsys, argv, status, expected):
    got, out, err = run(capsys, "check", "fns.py", *argv)
    assert got == status and out == ""
    assert err.startswith("adc: ") and "Traceback" not in err
    for text in expected:
        assert text in err


def test_check_of_a_missing_file(tmp_path, capsys):
    assert run(capsys, "check", str(tmp_path / "none.py"), "--args", "1.0")[0] == 2


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compile_a_directory_mirrors_it(tmp_path, capsys):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("import math\n\n\ndef f(x, y):\n    return x * math.sin(y)\n")
    (pkg / "sub" / "b.py").write_text("import math\n\n\ndef h(x):\n    return math.exp(x) * x\n")
    (pkg / "bad.py").write_text("def k(x):\n    with open(x):\n        return 1.0\n")
    status, out, err = run(capsys, "compile", str(pkg), "-o", str(tmp_path / "out"))
    assert status == 1  # bad.py failed; the others are written
    assert "pkg/__init__.py: no functions, skipped" in err and "bad.py:2:5: a with statement is not supported" in err
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.py")) == [
        "a_ad.py",
        "sub/b_ad.py",
    ]
    a = _load(tmp_path / "out" / "a_ad.py")
    assert a.f_reverse(2.0, 0.5)[1] == pytest.approx((math.sin(0.5), 2.0 * math.cos(0.5)), rel=1e-15)
    b = _load(tmp_path / "out" / "sub" / "b_ad.py")
    assert b.h_forward(0.3, 1.0)[1] == pytest.approx(math.exp(0.3) * 1.3, rel=1e-15)


def test_compile_several_files(tmp_path, capsys):
    (tmp_path / "one.py").write_text("def f(x):\n    return x * x\n")
    (tmp_path / "two.py").write_text("def g(x):\n    return 3.0 * x\n")
    status, out, _ = run(
        capsys, "compile", str(tmp_path / "one.py"), str(tmp_path / "two.py"), "-o", str(tmp_path / "o")
    )
    assert status == 0 and out.count("wrote") == 2
    assert _load(tmp_path / "o" / "one_ad.py").f_reverse(1.5)[1] == (3.0,)
    assert _load(tmp_path / "o" / "two_ad.py").g_forward(1.5, 2.0)[1] == 6.0


@pytest.mark.parametrize(
    "extra, expected",
    [
        ([], "pass -o OUTDIR"),
        (["-o", "out", "--function", "f"], "--function and --stage choose within one file"),
        (["-o", "one.py"], "is not a directory"),
    ],
)
def test_compile_several_refuses_what_it_cannot_do(tmp_path, capsys, monkeypatch, extra, expected):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "one.py").write_text("def f(x):\n    return x * x\n")
    (tmp_path / "two.py").write_text("def g(x):\n    return 3.0 * x\n")
    status, _, err = run(capsys, "compile", "one.py", "two.py", *extra)
    assert status == 2 and expected in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.py", "two.py"]


def test_check_of_a_function_calling_a_decorated_helper_is_one_located_line(tmp_path, monkeypatch, capsys):
    """``f`` calls ``sq``, decorated by the file's own code, which adc does not run: ``adc check`` printed
    a NameError's traceback (its finite differences call f); it tells the helper's line and ``--import``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "decorated.py").write_text(
        "import functools\n\n\ndef twice(fn):\n    @functools.wraps(fn)\n    def wrapper(*args):\n"
        "        return 2.0 * fn(*args)\n\n    return wrapper\n\n\n@twice\ndef sq(x):\n    return x * x\n\n\n"
        "def f(x: float) -> float:\n    return sq(x) + x\n"
    )
    status, out, err = run(capsys, "check", "decorated.py", "--function", "f", "--args", "0.5")
    assert status == 1 and "Traceback" not in err and "decorated.py:12:2:" in err and "--import" in err, err
    status, out, err = run(capsys, "check", "decorated.py", "--function", "f", "--args", "0.5", "--import")
    assert status == 0, err


def test_args_with_a_trailing_comma(script, capsys):
    """``--args "1.0, 2.0,"`` (a tuple as Python writes one) is taken (an invalid syntax before)."""
    status, out, err = run(capsys, "check", "fns.py", "--function", "f", "--args", "1.0, 2.0,")
    assert status == 0 and out.startswith("f: derivatives agree"), err
