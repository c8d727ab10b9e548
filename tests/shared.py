"""What tests share, so that the suite does each costly thing once (see docs/testing.md, "Writing tests"):

- ``derivative(fn, ...)``: ``adcompiler.differentiate(fn, ...)`` made once per session (per xdist worker) for
  each function and options; its transformations and Numba compilations are cached on it, so every test that
  asks for the same derivative reuses them.  A test that checks what a first call does, or changes the
  object, makes its own with ``adcompiler.differentiate``.
- ``adc(*args, cwd=None)``: ``adc ARGS`` run in this process (``adcompiler.cli.main.main``), with the result of a
  subprocess (``returncode``, ``stdout``, ``stderr``).  Use a real subprocess only where the process is the
  point: the console script, ``python -m adcompiler``, a written module imported where adcompiler is not,
  what the interpreter leaves on disk (``__pycache__``), or a file whose top level may end the process.
- ``written(tmp_path, name, text)``: the module a test writes as ``name.py`` and runs, as a namespace (a function
  adcompiler reads needs a file: its source).
- ``two_operand_check(f, d, x, y, w, label, rng)``: ``d``'s gradient of ``f(x, y, w)`` in ``x`` and ``y`` against
  central differences, each cotangent of its operand's shape and dtype, and jvp against the gradient.
- ``BACKENDS``: ``("python", "numba")`` with the Numba case marked slow, for a check whose Numba side the
  default suite makes elsewhere (tests/test_numba_agrees.py holds the Numba target to the python backend on
  every feature the target does something of its own for; a bug found under Numba gets a row there).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import os
import sys
import traceback

import pytest

import adcompiler

BACKENDS = ("python", pytest.param("numba", marks=pytest.mark.slow))


def derivative(fn, wrt=None, backend="python", **options):
    """``adcompiler.differentiate(fn, wrt=wrt, backend=backend, **options)``, built once per session."""
    wrt = tuple(wrt) if isinstance(wrt, list) else wrt
    return _derivative(fn, wrt, backend, tuple(sorted(options.items())))


@functools.cache
def _derivative(fn, wrt, backend, options):
    return adcompiler.differentiate(fn, wrt=wrt, backend=backend, **dict(options))


@dataclasses.dataclass
class Run:
    """What ``adc`` did: its exit status and what it wrote, as ``subprocess.run(..., text=True)`` gives them."""

    returncode: int
    stdout: str
    stderr: str


def adc(*args, cwd=None) -> Run:
    """``adc ARGS`` in this process, in directory ``cwd``: its exit status, stdout and stderr.  An exception
    that escapes ``main`` is reported as the interpreter would (a traceback on stderr, status 1).  Modules
    the user's files import are forgotten afterwards, so that another test's file of the same name is read."""
    from adcompiler.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    modules, path, bytecode = set(sys.modules), list(sys.path), sys.dont_write_bytecode
    sys.dont_write_bytecode = False  # as in a user's interpreter: adc itself must keep __pycache__ away
    with contextlib.chdir(cwd or os.getcwd()):
        roots = {os.path.realpath(".")} if cwd is not None else set()
        roots |= {
            os.path.dirname(os.path.realpath(a)) for a in map(str, args) if a.endswith(".py") and os.path.exists(a)
        }
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    status = main([str(a) for a in args])
                except SystemExit as exc:  # argparse's usage errors and --version
                    status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                    if exc.code is not None and not isinstance(exc.code, int):
                        print(exc.code, file=sys.stderr)
                except Exception:  # noqa: BLE001 - reported as the interpreter would, for the test to see
                    traceback.print_exc()
                    status = 1
        finally:
            sys.path[:], sys.dont_write_bytecode = path, bytecode
            for name in set(sys.modules) - modules:
                file = getattr(sys.modules[name], "__file__", None) or ""
                if name.startswith("adcompiler"):
                    continue  # imported on first use: its classes must stay the ones the tests hold
                if name.startswith("_adc_user_") or any(os.path.realpath(file).startswith(r + os.sep) for r in roots):
                    del sys.modules[name]
    return Run(status, out.getvalue(), err.getvalue())


def written(tmp_path, name: str, text: str) -> dict:
    """The namespace of ``text`` written to ``tmp_path/name.py`` and run (compiled under that file's name, so
    that adcompiler reads the functions' source from it)."""
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace


NUMPY = "import numpy as np\n\n\n"


def defined(directory, name: str, text: str, head: str = NUMPY):
    """``written``'s namespace as an object (``defined(...).f``) of ``head + text`` (NumPy imported)."""
    import types

    return types.SimpleNamespace(**written(directory, name, head + text))


def two_operand_check(f, d, x, y, w, label, rng) -> None:
    """``d`` (a derivative of ``f(x, y, w)`` in x and y) against central differences of ``f``: each gradient
    of its operand's shape and dtype, each entry to 1e-6; jvp along random directions against the gradient."""
    import numpy as np

    grads = d.grad(x, y, w)
    h = 1e-6
    for i, (a, g) in enumerate(zip((x, y), grads)):
        assert g.shape == a.shape and g.dtype == a.dtype
        for k in np.ndindex(*a.shape):
            moved = [[x.copy(), y.copy()] for _ in range(2)]
            moved[0][i][k] += h
            moved[1][i][k] -= h
            want = (f(*moved[0], w) - f(*moved[1], w)) / (2 * h)
            assert g[k] == pytest.approx(want, rel=1e-6, abs=1e-8), (label, i, k)
    u, v = rng.standard_normal(np.shape(x)), rng.standard_normal(np.shape(y))
    value, tangent = d.jvp((x, y, w), (u, v))
    assert value == pytest.approx(f(x, y, w), rel=1e-12)
    assert tangent == pytest.approx(float(np.sum(grads[0] * u) + np.sum(grads[1] * v)), rel=1e-10, abs=1e-12)
