"""Forward and reverse mode on broadcasting against constant arrays, against central differences.

A regression: jvp of ``np.sum(np.ones(3) + p)`` returned 1.0 (the tangent of p, unbroadcast) instead
of 3.0, silently."""

import inspect

import pytest

np = pytest.importorskip("numpy")

import adcompiler  # noqa: E402
from tests import broadcast_funcs as B  # noqa: E402

CASES = [fn for _, fn in inspect.getmembers(B, inspect.isfunction)]


def _point(fn):
    return np.array([0.3, -0.2, 0.5]) if fn is B.f_2d else 0.7


def _flat(out):
    if isinstance(out, tuple):
        return np.concatenate([np.ravel(np.asarray(o, dtype=float)) for o in out])
    return np.ravel(np.asarray(out, dtype=float))


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_jvp_and_vjp_match_central_differences(fn):
    x = _point(fn)
    v = np.ones_like(x) if isinstance(x, np.ndarray) else 1.0
    h = 1e-6
    fd = (_flat(fn(x + h * v)) - _flat(fn(x - h * v))) / (2 * h)
    f = adcompiler.differentiate(fn)
    value, tangent = f.jvp((x,), (v,))
    assert _flat(value) == pytest.approx(_flat(fn(x)))
    assert _flat(tangent) == pytest.approx(fd, rel=1e-6, abs=1e-8)
    out = fn(x)
    # every output's tangent has that output's shape
    for o, t in zip(out if isinstance(out, tuple) else (out,), tangent if isinstance(out, tuple) else (tangent,)):
        assert np.shape(t) == np.shape(o)
    u = np.linspace(0.5, 1.5, fd.size)
    ct = _split(u, out)
    _, (cot,) = f.vjp((x,), ct)
    assert float(np.sum(_flat(cot) * _flat(v))) == pytest.approx(float(u @ fd), rel=1e-6, abs=1e-8)


def _split(u, out):
    """A cotangent shaped like out from the flat vector u."""
    if isinstance(out, tuple):
        parts, k = [], 0
        for o in out:
            n = np.size(o)
            parts.append(u[k : k + n].reshape(np.shape(o)) if np.ndim(o) else float(u[k]))
            k += n
        return tuple(parts)
    return u.reshape(np.shape(out)) if np.ndim(out) else float(u[0])
