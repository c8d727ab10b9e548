"""backend="numba" held to the oracles of the Python backend, on a fixed sample of the systematic rule
cases (tests/systematic_cases.py: one primitive per case, floats and 1-D float64 arrays) and of the
control-flow regression functions (tests/test_control_flow.py).

A case the target compiles must agree with the python backend (gradient, jvp, and so each other:
<g, v> == J v) and with central differences; a case it cannot compile must be refused with a
located error naming the case's file and saying that backend="python" handles it (then skipped);
anything else, a Numba traceback included, fails.  Skipped without Numba."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

import adcompiler  # noqa: E402
from adcompiler.errors import UnsupportedSyntaxError  # noqa: E402
from adcompiler.testing.oracle import leaves  # noqa: E402
from oracle import check_grads  # noqa: E402
from systematic_cases import cases, module_for  # noqa: E402
from test_control_flow import CASES as CONTROL_FLOW  # noqa: E402
from oracle import central_grad  # noqa: E402


def _kind(case) -> str | None:
    """ "scalar" (Python floats), "array" (1-D float64 arrays among them), or None (outside the sample)."""
    values = case.args.values()
    if all(type(a) is float for a in values):
        return "scalar"
    if all(type(a) is float or type(a) is np.ndarray and a.dtype == np.float64 and a.ndim == 1 for a in values):
        return "array"
    return None


_ALL = [c for c in cases() if not c.slow]
SAMPLE = [c for c in _ALL if _kind(c) == "scalar"][::9] + [c for c in _ALL if _kind(c) == "array"][2::8]


def _compiled_or_skip(d, call, filename):
    """``call()``; a refusal checked to be located and to name the python backend, then skipped."""
    try:
        return call()
    except UnsupportedSyntaxError as e:
        assert e.filename == filename and 'backend="python"' in str(e), str(e)
        pytest.skip(f"outside the Numba target: {str(e).split(' under ')[0][-60:]}")


@pytest.mark.parametrize("case", SAMPLE, ids=[c.id for c in SAMPLE])
def test_rule_case_against_python_backend_and_differences(case, tmp_path):
    module = module_for(case, str(tmp_path))
    args = tuple(case.args.values())
    d = adcompiler.differentiate(module.f, backend="numba")
    g = _compiled_or_skip(d, lambda: d.grad(*args), module.__file__)
    g = g if len(args) > 1 else (g,)
    expected = adcompiler.differentiate(module.f).grad(*args)
    expected = expected if len(args) > 1 else (expected,)
    for got, want in zip(g, expected, strict=True):
        assert np.shape(got) == np.shape(want) and isinstance(got, np.ndarray) == isinstance(want, np.ndarray)
        assert np.result_type(got) == np.result_type(want) and isinstance(got, float) == isinstance(want, float)
        np.testing.assert_allclose(leaves(got), leaves(want), rtol=1e-9, atol=1e-12)
    rng = np.random.default_rng(3)
    tangents = tuple(rng.uniform(-1, 1, np.shape(a)) if np.ndim(a) else float(rng.uniform(-1, 1)) for a in args)
    value, tangent = _compiled_or_skip(d, lambda: d.jvp(args, tangents), module.__file__)
    assert value == pytest.approx(module.f(*args), rel=1e-12, abs=1e-12)
    inner = sum(float(np.sum(np.multiply(a, b))) for a, b in zip(g, tangents))
    assert tangent == pytest.approx(inner, rel=1e-9, abs=1e-12)
    for k, got in enumerate(g):  # central differences
        np.testing.assert_allclose(leaves(got), leaves(central_grad(module.f, args, k)), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("func, args, wrt", CONTROL_FLOW[::6], ids=lambda v: getattr(v, "__name__", ""))
def test_control_flow_regressions_against_differences(func, args, wrt):
    d = adcompiler.differentiate(func, wrt=wrt, backend="numba")
    out = func(*args)
    ct = tuple(1.0 for _ in out) if isinstance(out, tuple) else 1.0
    _, cts = _compiled_or_skip(d, lambda: d.vjp(args, ct), func.__code__.co_filename)
    check_grads(d, args, wrt, original=func)  # central differences, both modes, forward against reverse
    assert cts == pytest.approx(adcompiler.differentiate(func, wrt=wrt).vjp(args, ct)[1], rel=1e-12, abs=1e-14)
