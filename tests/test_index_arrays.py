"""Integer arrays a helper writes into: index links, permutations and counters (GradBench det's reference
formulation, cmpad's ``det_by_minor``, keeps the minor's rows and columns as links in two integer arrays and
changes them in place on the way down the recursion).

No derivative flows through an integer array, so a helper may write into one it is handed: the derivative
runs each write as the primal does, and the reverse sweep puts each back as it passes it.  The function
differentiated may not change an integer array its caller handed it (itself, or through a helper): a gradient
would leave the caller's array other than the primal does, so that is refused, located, as a write into a
float array parameter always was.  Each program against analytic derivatives (det) or central differences,
jvp against the gradient, on both targets; a generator of helpers that permute, count and link.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adcompiler
from adcompiler.errors import UnsupportedSyntaxError
from oracle import central_grad
from shared import BACKENDS, written

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "gradbench"))
from evals.det import det_by_links  # noqa: E402 (GradBench det's reference formulation)

LINKS = """
def bump(idx, k):
    idx[k] = idx[k] + 1
    return idx[k]


def writes_its_own(x, idx):
    idx[0] = idx[1] + 1
    return x[idx[0]] * x[idx[1]]


def hands_its_own(x, idx):
    j = bump(idx, 0)
    return x[j] * x[idx[1]]


def hands_a_copy(x, idx):
    idx = idx.copy()
    j = bump(idx, 0)
    return x[j] * x[idx[1]]
"""


@pytest.fixture(scope="module")
def links(tmp_path_factory):
    return written(tmp_path_factory.mktemp("links"), "links", LINKS)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("ell", [1, 2, 3, 4, 5])
def test_det_by_links_against_the_adjugate(ell, backend):
    """d det(A) / dA = det(A) inv(A)^T; jvp along V is <grad, V>."""
    if backend == "numba":
        pytest.importorskip("numba")
    rng = np.random.default_rng(ell)
    A, V = rng.normal(size=(ell, ell)), rng.normal(size=(ell, ell))
    d = adcompiler.differentiate(det_by_links, backend=backend)
    value, g = d.value_and_grad(A)
    assert value == pytest.approx(np.linalg.det(A), rel=1e-12, abs=1e-12)
    assert g.shape == A.shape and g.dtype == A.dtype
    np.testing.assert_allclose(g, np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-9, atol=1e-12)
    _, tangent = d.jvp((A,), (V,))
    assert tangent == pytest.approx(float(np.sum(g * V)), rel=1e-9, abs=1e-12)


def test_an_index_read_from_an_integer_array_tapes_a_number():
    """The old value of ``c[Cj1]`` (``Cj1`` read from an integer array) is one number: taped as it is, not as
    an array copied per write."""
    d = adcompiler.differentiate(det_by_links)
    d.grad(np.eye(3))  # (the source for the signature of that call: A a matrix of floats)
    source = d.source("grad")
    assert "tape" in source and "np.copy(" not in source, source


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_helper_writing_into_a_copy(links, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    x, idx = np.arange(5.0) + 1.0, np.array([0, 1])
    g = adcompiler.differentiate(links["hands_a_copy"], backend=backend).grad(x, idx)
    np.testing.assert_allclose(g, central_grad(links["hands_a_copy"], (x, idx), 0), atol=1e-7)
    assert idx.tolist() == [0, 1]  # (the copy was written into)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "name, line, construct",
    [
        ("writes_its_own", "idx[0] = idx[1] + 1", "writing into the array parameter idx"),
        ("hands_its_own", "j = bump(idx, 0)", "handing the array parameter idx to bump, which writes into it"),
    ],
)
def test_the_function_differentiated_may_not_change_its_callers_integer_array(links, name, line, construct, backend):
    """A reverse sweep would put the caller's array back: refused at the write, or at the call that hands it."""
    if backend == "numba":
        pytest.importorskip("numba")
    fn = links[name]
    d = adcompiler.differentiate(fn, backend=backend)
    x, idx = np.arange(5.0) + 1.0, np.array([0, 1])
    for call in (lambda: d.grad(x, idx), lambda: d.jvp((x, idx), (np.ones(5), None))):
        with pytest.raises(UnsupportedSyntaxError) as caught:
            call()
        err = caught.value
        assert construct in err.msg and "idx = idx.copy()" in err.msg, err.msg
        assert err.filename.endswith("links.py") and LINKS.splitlines()[err.lineno - 1].strip() == line
        assert LINKS.splitlines()[err.lineno - 1][err.offset - 1 :].startswith("idx" if "[" in line else "idx,")
    assert idx.tolist() == [0, 1]


# ---------------------------------------------------------------- generated helpers that permute, count, link

MAKERS = {
    "arange": "np.arange({n})",
    "zeros": "np.zeros({n}, dtype=np.int64) + np.arange({n})",
    "display": "np.array([{items}])",
}


@st.composite
def programs(draw):
    """A helper ``work(x, p, acc)`` that reads ``x`` through the integer array ``p`` and changes ``p`` (swaps,
    copies, counters kept in range by ``%``), called by ``f(x, w)`` once, twice or in a loop on an array it made,
    the same array read again after the calls."""
    n = draw(st.integers(2, 5))
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        op = draw(st.sampled_from(["swap", "copy", "count", "mul", "add"]))
        if op == "swap":
            lines += [f"t = p[{i}]", f"p[{i}] = p[{j}]", f"p[{j}] = t"]
        elif op == "copy":
            lines.append(f"p[{i}] = p[{j}]")
        elif op == "count":
            lines.append(f"p[{i}] = (p[{i}] + {j + 1}) % {n}")
        elif op == "mul":
            lines.append(f"acc = acc * (1.0 + 0.5 * x[p[{i}]])")
        else:
            lines.append(f"acc = acc + w * x[p[{j}]] * x[p[{i}]]")
    lines.append(f"acc = acc + x[p[{draw(st.integers(0, n - 1))}]]")
    maker = draw(st.sampled_from(sorted(MAKERS)))
    items = ", ".join(str(k) for k in draw(st.permutations(range(n))))
    calls = draw(st.sampled_from(["once", "twice", "loop"]))
    call = {
        "once": ["acc = work(x, w, p, acc)"],
        "twice": ["acc = work(x, w, p, acc)", "acc = work(x, w * 0.5, p, acc)"],
        "loop": ["for k in range(3):", "    acc = work(x, w, p, acc) * 0.9"],
    }[calls]
    body = "\n".join("    " + line for line in lines)
    caller = "\n".join("    " + line for line in call)
    made = MAKERS[maker].format(n=n, items=items)
    return f"""import numpy as np


def work(x, w, p, acc):
{body}
    return acc


def f(x, w):
    p = {made}
    acc = 1.0
{caller}
    return acc * x[p[0]]
"""


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=programs(), seed=st.integers(0, 2**16))
def test_generated_index_writers(tmp_path, text, seed):
    """Both modes against central differences and each other (<u, J v> == <J^T u, v>)."""
    f, x, w = _program(tmp_path, text, seed)
    gx, gw = adcompiler.differentiate(f).grad(x, w)
    assert gx.shape == x.shape and gx.dtype == x.dtype and type(gw) is float
    np.testing.assert_allclose(gx, central_grad(f, (x, w), 0), rtol=1e-5, atol=1e-6, err_msg=text)
    assert gw == pytest.approx(float(central_grad(f, (x, w), 1)), rel=1e-5, abs=1e-6), text
    rng = np.random.default_rng(seed + 1)
    v, u = rng.normal(size=x.shape), float(rng.normal())
    _, tangent = adcompiler.differentiate(f).jvp((x, w), (v, u))
    assert tangent == pytest.approx(float(gx @ v + gw * u), rel=1e-9, abs=1e-9), text


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=programs(), seed=st.integers(0, 2**16))
def test_generated_index_writers_under_numba(tmp_path, text, seed):
    """The Numba target's gradient against the python target's (the default suite's Numba row: the reference
    det in tests/test_numba_agrees.py)."""
    pytest.importorskip("numba")
    f, x, w = _program(tmp_path, text, seed)
    gx, gw = adcompiler.differentiate(f).grad(x, w)
    nx, nw = adcompiler.differentiate(f, backend="numba").grad(x, w)
    np.testing.assert_allclose(nx, gx, rtol=1e-12, atol=1e-12, err_msg=text)
    assert nw == pytest.approx(gw, rel=1e-12, abs=1e-12), text


def _program(tmp_path, text: str, seed: int):
    f = written(tmp_path, f"index_writers_{seed}", text)["f"]
    rng = np.random.default_rng(seed)
    return f, rng.normal(size=5), float(rng.normal())
