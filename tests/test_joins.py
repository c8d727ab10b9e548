"""NumPy's joins as records (rules/joins.py: np.concatenate, np.stack, np.hstack, np.vstack, np.row_stack,
np.column_stack, np.dstack): each joins a sequence written in the call (its arrays the call's arguments) and one
made at run time (the variant "<name>/list"), and its derivative in each array is checked in both modes against
central differences of NumPy's own join, forward against reverse, each cotangent of its array's shape and dtype,
and under backend="numba" against the python target where Numba compiles the join."""

import importlib.util

import numpy as np
import pytest

import adcompiler
from shared import written
from adcompiler.rules import arrays as N
from adcompiler.rules.families import family

pytestmark = pytest.mark.filterwarnings("ignore:`row_stack` alias is deprecated")

# (the join as called, its arrays' shapes): a sequence written out, of two or three arrays
WRITTEN = {
    "concatenate": [("np.concatenate([x, y])", (3,), (2,)), ("np.concatenate((x, y, x), axis=1)", (2, 3), (2, 1))],
    "stack": [("np.stack([x, y])", (3,), (3,)), ("np.stack((x, y), axis=-1)", (2, 3), (2, 3))],
    "hstack": [("np.hstack([x, y])", (2,), (3,)), ("np.hstack((x, y))", (2, 1), (2, 2))],
    "vstack": [("np.vstack([x, y])", (3,), (3,)), ("np.vstack((x, y))", (1, 2), (2, 2))],
    "row_stack": [("np.row_stack([x, y])", (2,), (2,))],
    "column_stack": [("np.column_stack([x, y])", (3,), (3,)), ("np.column_stack((x, y))", (3, 2), (3,))],
    "dstack": [("np.dstack([x, y])", (2,), (2,)), ("np.dstack((x, y))", (2, 2), (2, 2))],
}
NUMBA = importlib.util.find_spec("numba") is not None
COMPILED = ("concatenate", "stack", "hstack", "vstack")  # (the joins the Numba target compiles)


def test_every_join_is_a_record_with_its_cases():
    joins = [p for p in family("joins") if not p.expanded]  # (np.append, a concatenate: tests/test_expansions.py)
    assert sorted(WRITTEN) == sorted(p.numpy_name for p in joins)
    assert N.SEQUENCE == tuple(p.name for p in joins)


def _function(tmp_path, body: str, params: str):
    namespace = written(tmp_path, "joined", f"import numpy as np\n\n\ndef f({params}):\n    return {body}\n")
    return namespace["f"]


def _check(f, args, rng, backend="python"):
    d = adcompiler.differentiate(f, backend=backend)
    grads = d.grad(*args)
    h = 1e-6
    for i, (x, g) in enumerate(zip(args, grads)):
        assert g.shape == x.shape and g.dtype == x.dtype
        for k in np.ndindex(x.shape):
            up, down = [a.copy() for a in args], [a.copy() for a in args]
            up[i][k] += h
            down[i][k] -= h
            assert g[k] == pytest.approx((f(*up) - f(*down)) / (2 * h), rel=1e-6, abs=1e-8), (i, k)
    directions = [rng.standard_normal(a.shape) for a in args]
    value, tangent = d.jvp(tuple(args), tuple(directions))
    assert value == pytest.approx(f(*args), rel=1e-14)
    assert tangent == pytest.approx(sum(float(np.sum(g * v)) for g, v in zip(grads, directions)), rel=1e-10)
    return grads


@pytest.mark.parametrize("case", [(k, *c) for k, cases in WRITTEN.items() for c in cases], ids=str)
def test_each_join_of_a_written_sequence(tmp_path, case):
    kind, call, xs, ys = case
    rng = np.random.default_rng(len(call))
    f = _function(tmp_path, f"np.sum(np.sin({call}) * np.arange(1.0, 1.0 + {call}.size).reshape({call}.shape))", "x, y")
    args = [rng.standard_normal(xs), rng.standard_normal(ys)]
    grads = _check(f, args, rng)
    if NUMBA and kind in COMPILED:
        for got, want in zip(adcompiler.differentiate(f, backend="numba").grad(*args), grads):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kind", sorted(WRITTEN))
def test_each_join_of_a_sequence_made_at_run_time(tmp_path, kind):
    """A list built by append: one argument of the join (its variant "<name>/list"), each element's cotangent
    one piece of g."""
    body = "np.sum(np.cos(np.{kind}(rows)) * np.cos(np.{kind}(rows)))".format(kind=kind)
    namespace = written(
        tmp_path,
        "rows",
        "import numpy as np\n\n\ndef f(x, y):\n    rows = []\n    for k in range(3):\n"
        f"        rows.append(x * (k + 1.0) + y)\n    return {body}\n",
    )
    rng = np.random.default_rng(7)
    args = [rng.standard_normal(4), rng.standard_normal(4)]
    grads = _check(namespace["f"], args, rng)
    if NUMBA and kind in COMPILED:
        for got, want in zip(adcompiler.differentiate(namespace["f"], backend="numba").grad(*args), grads):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
