"""Elementwise lines of float64 vectors written as loops under backend="numba": a primal line of two operations
or more (``targets.numba.joined_loops``, ``_line_looped``: Numba's fused loop of one statement indexes each array
as broadcasting may, 2.5 times as slow as a loop), and a cotangent line that a run of adjoint lines makes
(``targets.numba.element_runs``, ``line_loop``).  Each gradient and tangent bit for bit against the Numba
target without the rewrite, against the python target and central differences; the code says where the loops
are written and where the line is as it was (lengths that differ: NumPy's broadcasting, or its error).
Skipped without Numba."""

import glob
import os
import re

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")

import adcompiler  # noqa: E402
import numba_fusion_funcs as FF  # noqa: E402
import numba_line_funcs as F  # noqa: E402
from adcompiler.targets.numba import element_runs, joined_loops  # noqa: E402
from oracle import central_grad  # noqa: E402

RNG = np.random.default_rng(2100)


def _vectors(*lengths):
    return tuple(RNG.random(n) + 0.5 for n in lengths)  # (away from zero: x / y, y / x)


def _tangents(fn, args, wrt) -> tuple:
    """A tangent of ones for each parameter of ``wrt``."""
    names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    return tuple(np.ones_like(args[names.index(w)]) for w in wrt)


def _derivative(fn, args, wrt, mode, monkeypatch, directory):
    """The Numba gradient (mode "grad") or tangent (of ones), and the text of the module compiled for it."""
    monkeypatch.setenv("ADCOMPILER_CACHE_DIR", str(directory))
    d = adcompiler.differentiate(fn, wrt=wrt, backend="numba")
    if mode == "grad":
        got = d.grad(*args)
        got = got if len(wrt) > 1 else (got,)
    else:
        got = d.jvp(args, _tangents(fn, args, wrt))
    texts = [open(p).read() for p in glob.glob(os.path.join(str(directory), "numba", "adc_*.py"))]
    return got, "\n".join(texts)


def _without(m):
    """The Numba target without the two rewrites: each line as it was."""
    m.setattr(joined_loops, "_line_looped", lambda s, of, taken: None)
    m.setattr(joined_loops, "_used_after", lambda after, target, made, vectors, of: None)
    m.setattr(element_runs.Runs, "_worth", lambda self, r, inlined, arrays: False)


def _check(fn, args, wrt, monkeypatch, tmp_path, mode="grad"):
    """Bit for bit against the code without the rewrites; against the python target and central differences."""
    got, text = _derivative(fn, args, wrt, mode, monkeypatch, tmp_path / "with")
    with monkeypatch.context() as m:
        _without(m)
        plain, plain_text = _derivative(fn, args, wrt, mode, m, tmp_path / "without")
    for g, p in zip(got, plain, strict=True):
        np.testing.assert_array_equal(g, p)
    assert not re.search(r"\w+\[k\d*\] = ", plain_text) or "concatenate" in plain_text, plain_text
    python = adcompiler.differentiate(fn, wrt=wrt)
    if mode == "grad":
        want = python.grad(*args)
        want = want if len(wrt) > 1 else (want,)
        names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
        for name, g, w in zip(wrt, got, want, strict=True):
            k = names.index(name)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(g, central_grad(fn, args, k), rtol=1e-5, atol=1e-7)
    else:
        for g, w in zip(got, python.jvp(args, _tangents(fn, args, wrt)), strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13)
    return text


def _looped(text: str, target: str) -> bool:
    """Whether ``target`` is made empty and stored into element by element in a loop."""
    return bool(
        re.search(
            rf"\n( +){target} = n\w*\.empty\((count\d*|size\d*)\)\n\1for (k\d*) in range\(\2\):\n +{target}\[\3\] = ",
            text,
        )
    )


def test_chain(monkeypatch, tmp_path):
    """t and u, lines of two operations or more, loops (u reads t's array and x / y's, names of the code); the
    vectors' lengths tested against the first one's, the number h read as it is."""
    text = _check(F.chain, (*_vectors(6, 6), 0.3), ("x", "y", "h"), monkeypatch, tmp_path)
    assert _looped(text, "t") and _looped(text, "u"), text
    assert re.search(r"count\d* = len\(y\)\n +if len\(x\) == count\d*:", text), text
    assert re.search(r"t\[(k\d*)\] = y\[\1\] \+ h \* x\[\1\]", text), text


def test_sliced(monkeypatch, tmp_path):
    """A line of the arguments' slices: a loop over the views."""
    text = _check(F.sliced, (*_vectors(7, 7), 0.3), ("x", "y"), monkeypatch, tmp_path)
    assert _looped(text, "t"), text


def test_stepped(monkeypatch, tmp_path):
    """Lines in a loop whose value the next step reads and the adjoint keeps; a line of one vector (1.0 + x * x)
    needs no test, a division of elements is NumPy's (numpy.divide)."""
    text = _check(F.stepped, (*_vectors(5, 5), 3), ("x", "y"), monkeypatch, tmp_path)
    assert re.search(r"\n( +)count\d* = len\(x\)\n\1t\d+ = n\w*\.empty\(count\d*\)\n", text), text
    assert re.search(r"np\.divide\(y__2\[k\d*\], t\d+\[k\d*\]\)", text), text


def test_returned_tangent(monkeypatch, tmp_path):
    """The function's value a line: a loop in the forward code, the tangent bit for bit too."""
    text = _check(F.returned, (*_vectors(5, 5), 0.3), ("x", "y"), monkeypatch, tmp_path, mode="jvp")
    assert re.search(r"t\d+ = n\w*\.empty\(count\d*\)", text), text


def test_unary(monkeypatch, tmp_path):
    text = _check(F.unary, _vectors(6, 6), ("x", "y"), monkeypatch, tmp_path)
    assert _looped(text, "t"), text


@pytest.mark.parametrize("lengths", [(6, 1), (1, 6)], ids=["y-one", "x-one"])
def test_broadcast_lengths(lengths, monkeypatch, tmp_path):
    """A vector of one element against one of six: NumPy's broadcasting, the line as it was (the else)."""
    _check(F.chain, (*_vectors(*lengths), 0.3), ("x", "y", "h"), monkeypatch, tmp_path)


def test_lengths_that_differ():
    """Vectors of different lengths: NumPy's error, as the python target's."""
    x, y = _vectors(5, 4)
    with pytest.raises(ValueError):
        adcompiler.differentiate(F.chain, wrt=("x", "y"), backend="numba").grad(x, y, 0.3)


def test_scalars_left_alone(monkeypatch, tmp_path):
    """Numbers in, numbers out: no loop, no test (the abstract values say no vector)."""

    def scalar(a, b):
        t = a + 0.5 * b * a
        return t * t - b

    text = _check(scalar, (0.7, 1.3), ("a", "b"), monkeypatch, tmp_path)
    assert "empty(" not in text and "count" not in text, text


def test_one_operation_on_vectors_left_alone(monkeypatch, tmp_path):
    """``x * (k + 1.0)`` is one pass over x (k + 1.0 a number): Numba's own loop is as quick, and a loop storing
    into an array the tape keeps would make the reverse code one a second derivative refuses (a write into an
    array a list holds: the Hessian of tests/numba_funcs.py's stacked_list)."""

    def scaled(x, w):
        total = 0.0
        for k in range(3):
            total = total + np.sum(np.sin(x * (k + 1.0)) * w)
        return total

    x, w = np.linspace(0.1, 1.0, 5), np.linspace(1.0, 2.0, 5)
    text = _check(scaled, (x, w), ("x", "w"), monkeypatch, tmp_path)
    assert "empty(" not in text, text
    d = adcompiler.differentiate(scaled, backend="numba")
    want = adcompiler.hessian_matrix(adcompiler.differentiate(scaled))(x, w)
    np.testing.assert_allclose(adcompiler.hessian_matrix(d)(x, w), want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("n, s", [(40, 1), (40, 3), (2, 2), (1, 2)])
def test_ode_lines(n, s, monkeypatch, tmp_path):
    """RK4 (GradBench ode): the step's update y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4) computed in the loops of
    k4's join (the line after it) in the forward sweep, and the adjoint's d_y (the four stages' cotangents of y added, arrays the run makes) a loop in the
    run's fast branch, reading them at its index."""
    x = np.random.default_rng(n + s).random(n)
    text = _check(FF.rk4_last, (x, s), ("x",), monkeypatch, tmp_path)
    assert re.search(
        r"y\[(at\d* \+ k\d*)\] = y__2\[\1\] \+ h / 6 \* \(\s*k1\[\1\] \+ 2 \* k2\[\1\] \+ 2 \* k3\[\1\] \+ k4_k\d*",
        text,
    ), text
    assert _looped(text, "d_y"), text
    assert re.search(r"d_y\[(k\d*)\] = d_y__5\[\1\] \+ \(\s*d_t4\[\1\]", text), text


def test_joined_then_used(monkeypatch, tmp_path):
    """The line after a join (t8 = z - x, kept for the adjoint) computed in the join's loops: its element stored
    where z's is, z's element read as a number; its vectors tested against the join's length."""
    text = _check(F.joined_then_used, (*_vectors(6, 6), 0.3), ("x", "y", "h"), monkeypatch, tmp_path)
    assert re.search(
        r"\n( +)(z_k\d*) = t\d+\[(k\d*)\]\n\1z\[\3\] = \2\n\1# [^\n]*\n\1(t\d+)\[\3\] = \2 - x\[\3\]\n", text
    ), text
    assert re.search(r"\n( +)z\[(at\d* \+ k\d*)\] = (z_k\d*)\n\1# [^\n]*\n\1t\d+\[\2\] = \3 - x\[\2\]\n", text), text
    assert re.search(r"whole\d* = len\(\w+\) \+ count\d*", text) and re.search(r"len\(x\) == whole\d*", text), text


def test_joined_then_rebound(monkeypatch, tmp_path):
    """The line after the join binds y, which the join's piece reads: a loop of its own after the join's."""
    text = _check(F.joined_then_rebound, _vectors(5, 5), ("x", "y"), monkeypatch, tmp_path)
    assert not re.search(r"y\w*\[at\d* \+ k\d*\] = ", text), text


@pytest.mark.parametrize("length", [7, 1], ids=["same", "one"])
def test_joined_then_other_length(length, monkeypatch, tmp_path):
    """c of the join's length: the line in the join's loops; of one element: the lines as they were (NumPy's
    broadcasting), the same numbers as the python target's."""
    text = _check(F.joined_then_other_length, _vectors(7, 7, length), ("x", "y", "c"), monkeypatch, tmp_path)
    assert re.search(r"w\[(at\d* \+ k\d*)\] = \((z_k\d*) - c\[\1\]\) \* 0\.5", text), text
    assert re.search(r"len\(c\) == whole\d*", text), text


def test_joined_then_lengths_that_differ():
    """c of three elements against a join of five: NumPy's error, as the python target's."""
    x, y, c = _vectors(5, 5, 3)
    with pytest.raises(ValueError):
        adcompiler.differentiate(F.joined_then_other_length, wrt=("x",), backend="numba").grad(x, y, c)
