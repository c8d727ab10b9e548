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

LINKS = """import numpy as np


def bump(idx, k):
    idx[k] = idx[k] + 1
    return idx[k]


def writes_its_own(x, idx):
    idx[0] = idx[1] + 1
    return x[idx[0]] * x[idx[1]]


def hands_its_own(x, idx):
    j = bump(idx, 0)
    return x[j] * x[idx[1]]


def puts_after_a_read(x):
    p = np.array([1, 0, 2])
    y = x * p
    np.put(p, [0], [2])
    np.copyto(p, p[::-1].copy())
    return np.sum(y * x) + x[p[0]] * x[p[1]]


def puts_into_its_own(x, idx):
    np.put(idx, [0], [1])
    return x[idx[0]] * x[idx[1]]


def put_then_read_again(x):
    c = np.ones(4)
    acc = 0.0
    for i in range(3):
        acc = acc + x[i] * c[i + 1]
        np.put(c, [i + 1], [3.0])
    return acc


def putmask_in_a_loop(x):
    p = np.arange(4)
    acc = 0.0
    for i in range(3):
        acc = acc + np.sum(x[p] * x)
        np.putmask(p, p == i, 3)
    return acc


def rotate(p):
    t = p[0]
    p[0] = p[1]
    p[1] = t


def rotate_all(ps):
    for p in ps:
        rotate(p)


def rotates_a_list(x):
    p = np.arange(4)
    acc = 0.0
    for i in range(2):
        acc = acc + np.sum(x[p] * x)
        rotate_all([p])
    return acc


def swap(p, i, j):
    t = p[i]
    p[i] = p[j]
    p[j] = t


def int32_permutation(x):
    p = np.array([2, 0, 1, 3], dtype=np.int32)
    swap(p, 0, 3)
    return np.sum(x[p] * np.array([1.0, 2.0, 3.0, 4.0])) * x[p[0]]


def int_cast_of_floats(x):
    p = np.array([0.5, 1.0], dtype=np.int64)
    return x[p[0]]


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
def test_a_display_of_whole_numbers_made_an_integer_array(links, backend):
    """``np.array([2, 0, 1, 3], dtype=np.int32)``: no derivative to lose (it was refused as a cast to int32); a
    display of floats made an integer array still is (its derivative would be lost)."""
    if backend == "numba":
        pytest.importorskip("numba")
    f, x = links["int32_permutation"], np.array([0.3, -1.2, 0.8, 2.0])
    g = adcompiler.differentiate(f, backend=backend).grad(x)
    np.testing.assert_allclose(g, central_grad(f, (x,), 0), rtol=1e-7, atol=1e-8)
    with pytest.raises(UnsupportedSyntaxError, match="a cast to int64"):
        adcompiler.differentiate(links["int_cast_of_floats"], backend=backend).grad(x)


@pytest.mark.parametrize("name", ["put_then_read_again", "putmask_in_a_loop"])
@pytest.mark.parametrize("checkpoint", [None, True, 2, "revolve"])
def test_an_array_a_library_function_changes_is_not_read_again_nor_checkpointed(links, name, checkpoint):
    """``c[i + 1]`` read again by the adjoint sweep after np.put changed c, and a loop checkpointed from a
    snapshot that did not hold the array np.putmask changes: both gave silently wrong gradients (a red team's)."""
    f, x = links[name], np.array([1.0, 2.0, 3.0, 4.0])
    g = adcompiler.differentiate(f, checkpoint=checkpoint).grad(x)
    np.testing.assert_allclose(g, central_grad(f, (x,), 0), rtol=1e-7, atol=1e-8)


def test_a_list_holding_an_integer_array_a_helper_writes_into_is_refused(links):
    """What the reverse sweep keeps and puts back is an array, not a list holding one (the list's items were
    swapped out: a wrong gradient; a tuple's: a TypeError from generated code)."""
    with pytest.raises(UnsupportedSyntaxError, match=r"links.py:\d+:\d+: handing rotate_all a list, tuple or dict"):
        adcompiler.differentiate(links["rotates_a_list"]).grad(np.arange(4.0))


def test_np_put_and_np_copyto_of_an_integer_array_read_before(links):
    """Computed as the primal computes them (no rule needed: no derivative), and put back by the reverse sweep:
    ``y = x * p``'s adjoint reads p as it was (it read it after np.put: a silently wrong gradient)."""
    f = links["puts_after_a_read"]
    x = np.array([0.5, -1.5, 2.0])
    d = adcompiler.differentiate(f)
    g = d.grad(x)
    np.testing.assert_allclose(g, central_grad(f, (x,), 0), rtol=1e-7, atol=1e-8)
    v = np.array([0.3, 0.1, -0.7])
    assert d.jvp((x,), (v,))[1] == pytest.approx(float(g @ v), rel=1e-12)


@pytest.mark.parametrize("backend", ["python"])  # (np.put: outside the Numba target, refused there, located)
def test_np_put_into_the_callers_integer_array_is_refused(links, backend):
    with pytest.raises(UnsupportedSyntaxError, match=r"links.py:\d+:\d+: writing into the array parameter idx"):
        adcompiler.differentiate(links["puts_into_its_own"], backend=backend).grad(np.arange(3.0), np.array([0, 2]))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "name, line, construct",
    [
        ("writes_its_own", "idx[0] = idx[1] + 1", "writing into the array parameter idx"),
        (
            "hands_its_own",
            "j = bump(idx, 0)",
            "handing the array parameter idx (or a view of it, or an array it holds) to bump, which writes into it",
        ),
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
        remedy = "hand bump a copy of the array (its .copy())" if "bump" in line else "idx = idx.copy()"
        assert construct in err.msg and remedy in err.msg, err.msg
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
def _changes(draw, n: int, reads: bool, library: bool = False) -> list:
    """Lines that change the integer array ``p`` of ``n`` entries (swaps, copies, counters kept in range by
    ``%``; with ``library``, NumPy's np.put and np.putmask) and, with ``reads``, read ``x`` through it into
    ``acc``."""
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        ops = ["swap", "copy", "count"] + (["mul", "add", "gather"] if reads else []) + (["put"] if library else [])
        op = draw(st.sampled_from(ops))
        if op == "put":
            lines.append(f"np.put(p, [{i}], [{j}])" if draw(st.booleans()) else f"np.putmask(p, p == {i}, {j})")
            continue
        if op == "swap":
            lines += [f"t = p[{i}]", f"p[{i}] = p[{j}]", f"p[{j}] = t"]
        elif op == "copy":
            lines.append(f"p[{i}] = p[{j}]")
        elif op == "count":
            lines.append(f"p[{i}] = (p[{i}] + {j + 1}) % {n}")
        elif op == "mul":
            lines.append(f"acc = acc * (1.0 + 0.5 * x[p[{i}]])")
        elif op == "add":
            lines.append(f"acc = acc + w * x[p[{j}]] * x[p[{i}]]")
        else:  # the whole array read: x[p], before later changes of p
            lines.append("acc = acc + 0.1 * np.sum(x[p] * x[: len(p)])")
    return lines


@st.composite
def programs(draw, library: bool = False):
    """A helper ``work(x, w, p, acc)`` that reads ``x`` through the integer array ``p`` and changes ``p``, and a
    helper ``shuffle(p)`` that only changes it (no derivative: a call not differentiated), called by ``f(x, w)``
    once, twice or in a loop on an array it made, which it reads whole (``x[p]``) before the calls and reads
    again after them."""
    n = draw(st.integers(2, 5))
    body = "\n".join(
        "    " + line for line in draw(_changes(n, True)) + [f"acc = acc + x[p[{draw(st.integers(0, n - 1))}]]"]
    )
    shuffled = "\n".join("    " + line for line in draw(_changes(n, False, library)))
    maker = draw(st.sampled_from(sorted(MAKERS)))
    items = ", ".join(str(k) for k in draw(st.permutations(range(n))))
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        calls += draw(
            st.sampled_from(
                [
                    ["acc = work(x, w, p, acc)"],
                    ["acc = work(x, w * 0.5, p, acc)"],
                    ["shuffle(p)"],
                    ["for k in range(3):", "    acc = work(x, w, p, acc) * 0.9"],
                    ["for k in range(2):", "    shuffle(p)", "    acc = acc + x[p[0]] * w"],
                ]
            )
        )
    caller = "\n".join("    " + line for line in calls)
    made = MAKERS[maker].format(n=n, items=items)
    return f"""import numpy as np


def work(x, w, p, acc):
{body}
    return acc


def shuffle(p):
{shuffled}


def f(x, w):
    p = {made}
    y = x[p] * w
    acc = 1.0
{caller}
    return acc * x[p[0]] + np.sum(y * x[p])
"""


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=programs(library=True), seed=st.integers(0, 2**16), checkpoint=st.sampled_from([None, None, True, 2]))
def test_generated_index_writers(tmp_path, text, seed, checkpoint):
    """Both modes against central differences and each other (<u, J v> == <J^T u, v>), loops checkpointed or
    not (np.put, np.putmask: the python target's; the Numba target refuses them, located)."""
    f, x, w = _program(tmp_path, text, seed)
    gx, gw = adcompiler.differentiate(f, checkpoint=checkpoint).grad(x, w)
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


# ---------------------------------------------------------------- a recursion called with a constant, from the cache

PERMANENT = """import numpy as np


def perm_rec(A, used, row):
    n = A.shape[0]
    if row == n:
        return 1.0
    s = 0.0
    for j in range(n):
        if not used[j]:
            used[j] = True
            s = s + A[row, j] * perm_rec(A, used, row + 1)
            used[j] = False
    return s


def permanent(A):
    used = np.zeros(A.shape[0], dtype=np.bool_)
    return perm_rec(A, used, 0)
"""

DRIVER = """import sys
import numpy as np
import adcompiler
sys.path.insert(0, sys.argv[1])
from permanent import permanent
A = np.linspace(-1.0, 1.0, 16).reshape(4, 4) + np.eye(4)
d = adcompiler.differentiate(permanent, backend="numba")
out = d.grad(A) if sys.argv[2] == "grad" else d.jvp((A,), (np.ones((4, 4)),))[1]
print(repr(np.asarray(out).ravel().tolist()))
"""


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_recursion_handed_a_constant_loads_from_numbas_cache(tmp_path, mode):
    """``perm_rec(A, used, 0)``: Numba typed the 0 as a literal, compiled the recursion twice over, and the
    second process, loading it from the disk cache, died of a segmentation fault (numba/numba#6061).  Run in
    two processes on one cache: both answer, the same, and as the python target does."""
    pytest.importorskip("numba")
    import os
    import subprocess

    (tmp_path / "permanent.py").write_text(PERMANENT)
    (tmp_path / "drive.py").write_text(DRIVER)
    env = dict(os.environ, ADCOMPILER_CACHE_DIR=str(tmp_path / "cache"))
    runs = [
        subprocess.run(
            [sys.executable, str(tmp_path / "drive.py"), str(tmp_path), mode],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr[-2000:] for r in runs]
    assert runs[0].stdout == runs[1].stdout
    permanent = written(tmp_path, "permanent_here", PERMANENT)["permanent"]
    A = np.linspace(-1.0, 1.0, 16).reshape(4, 4) + np.eye(4)
    d = adcompiler.differentiate(permanent)
    want = d.grad(A).ravel() if mode == "grad" else [d.jvp((A,), (np.ones((4, 4)),))[1]]
    np.testing.assert_allclose(eval(runs[0].stdout), want, rtol=1e-12)
