"""Shape-generic code: a branch on an argument's number of dimensions (``if x.ndim == 1:``, ``np.ndim(cov) == 2``,
``len(x.shape) > 1``), which the signature decides, keeps only the branch Python takes (``analysis.decided``), so
what follows has one ndim: ``np.linalg.solve`` of it has its rule (refused before 2026-12-03: "ndim not known
here"), Numba compiles one type.  Each program with arguments of every ndim it takes, on both targets, against
central differences and forward mode; the generated code holds the taken branch only."""

import pytest

np = pytest.importorskip("numpy")

import adcompiler  # noqa: E402
from shared import defined  # noqa: E402

SOURCE = """
import numpy as np

A = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.8]])


def rows_solved(x):
    if x.ndim == 1:
        X = x[:, None]
    else:
        X = x
    return np.sum(np.linalg.solve(A, X) ** 2)


def covariance(v, cov):
    C = cov if np.ndim(cov) == 2 else np.eye(3) * cov
    return np.dot(v, np.linalg.solve(C, v)) + np.linalg.slogdet(C)[1]


def summed(x):
    if len(x.shape) > 1:
        s = np.sum(x * x, axis=1)
    else:
        s = x * x
    return np.sum(np.sin(s))


def three_ways(c, v):
    if np.ndim(c) == 0:
        M = c * np.eye(3)
    elif np.ndim(c) == 1:
        M = np.diag(c)
    else:
        M = c @ c.T + np.eye(3)
    return np.sum(np.linalg.solve(M, v) * v)


def negated(x):
    if not x.ndim == 2:
        X = np.reshape(x, (1, -1))
    else:
        X = x
    return np.sum(np.linalg.norm(X @ A, axis=1))
"""


@pytest.fixture(scope="module")
def funcs(tmp_path_factory):
    return defined(tmp_path_factory.mktemp("decided"), "decided_funcs", SOURCE, "")


V3 = np.array([0.4, -1.1, 0.7])
M3 = np.array([[1.0, 0.2, -0.1], [0.4, 0.9, 0.3], [-0.5, 0.1, 1.2]])
CASES = [  # (function, arguments, the argument differentiated and checked, a word only the dead branch has)
    ("rows_solved", (V3,), None),
    ("rows_solved", (M3,), None),
    ("covariance", (V3, 1.7), None),
    ("covariance", (V3, np.array([1.5, 0.8, 2.0])), None),
    ("covariance", (V3, M3 @ M3.T + np.eye(3)), "eye(3)"),
    ("summed", (V3,), "axis"),
    ("summed", (M3,), None),
    ("three_ways", (1.3, V3), "diag"),
    ("three_ways", (np.array([1.5, 0.8, 2.0]), V3), "eye"),
    ("three_ways", (M3, V3), "diag"),
    ("negated", (V3,), None),
    ("negated", (M3,), "reshape"),
]


def _numeric_gradient(f, args, k, h=1e-6):
    x = np.asarray(args[k], dtype=float)
    out = np.zeros(x.shape)
    for index in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[index] = h
        up, down = list(args), list(args)
        up[k], down[k] = (x + e if x.shape else float(x + e)), (x - e if x.shape else float(x - e))
        out[index] = (f(*up) - f(*down)) / (2 * h)
    return out


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_branch_on_ndim_decided_by_the_arguments(funcs, backend, case):
    if backend == "numba":
        pytest.importorskip("numba")
    name, args, dead = CASES[case]
    f = getattr(funcs, name)
    d = adcompiler.differentiate(f, backend=backend)
    grads = d.grad(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for k, g in enumerate(grads):
        np.testing.assert_allclose(g, _numeric_gradient(f, args, k), rtol=1e-6, atol=1e-7)
    tangents = tuple(np.ones_like(a) if np.ndim(a) else 1.0 for a in args)
    value, tangent = d.jvp(args, tangents)
    assert value == pytest.approx(f(*args), rel=1e-12)
    assert tangent == pytest.approx(sum(float(np.sum(g)) for g in grads), rel=1e-9)
    if dead is not None and backend == "python":
        source = d.source("reverse").split("def " + name + "_reverse")[1]
        code = [line for line in source.splitlines() if not line.strip().startswith("#")]  # (not the comments)
        assert not any(dead in line for line in code), source
