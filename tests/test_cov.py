"""np.cov, the primitive added as one record (rules/reductions.py): both modes against central
differences and against autograd's derivative of cov's definition, forward against reverse, the Numba
target against the python one (also the module ``adc compile --target numba`` writes), and
``arrays="any"`` on array-api-strict."""

import importlib.util
import types

import numpy as np
import pytest

import adcompiler
import cov_funcs as F
from adcompiler.testing.oracle import check_both_modes

RNG = np.random.default_rng(5)
CASES = [  # function, its arguments
    (F.rows, (RNG.uniform(-1, 1, (3, 5)),)),
    (F.columns, (RNG.uniform(-1, 1, (6, 2)),)),
    (F.pair, (RNG.uniform(-1, 1, (2, 5)), RNG.uniform(-1, 1, (2, 5)))),
    (F.vectors, (RNG.uniform(-1, 1, (3, 4)),)),
]
IDS = [c[0].__name__ for c in CASES]


def _tuple(g):
    return g if isinstance(g, tuple) else (g,)


def _oracle(fn, args):
    """autograd's gradient of ``fn`` with np.cov read as its definition."""
    autograd = pytest.importorskip("autograd")
    agnp = pytest.importorskip("autograd.numpy")
    shim = types.SimpleNamespace(**{n: getattr(agnp, n) for n in ("sum", "sin", "arange")})
    shim.cov = F.definition(agnp)
    g = types.FunctionType(fn.__code__, {**fn.__globals__, "np": shim})
    return tuple(autograd.grad(g, k)(*args) for k in range(len(args)))


@pytest.mark.parametrize("fn, args", CASES, ids=IDS)
def test_both_modes_against_differences_and_autograd(fn, args):
    d = check_both_modes(fn, args)  # jvp, vjp and grad against central differences; <u, J v> = <J^T u, v>
    got = _tuple(d.grad(*args))
    for g, want, a in zip(got, _oracle(fn, args), args, strict=True):
        assert g.shape == a.shape and g.dtype == a.dtype
        np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)


def test_the_cotangent_of_a_float32_matrix_is_float32():
    x = RNG.uniform(-1, 1, (2, 4)).astype(np.float32)
    g = adcompiler.grad(F.rows)(x)
    assert g.dtype == np.float32 and g.shape == x.shape
    np.testing.assert_allclose(g, _oracle(F.rows, (x.astype(np.float64),))[0], rtol=1e-4)


@pytest.mark.parametrize(  # (with --runslow, as README says: np.cov's helpers under Numba, a long compile each)
    "fn, args", [pytest.param(*c, marks=pytest.mark.slow, id=i) for c, i in zip(CASES, IDS)]
)
def test_numba_agrees_with_python(fn, args):
    pytest.importorskip("numba")
    python, numba = adcompiler.differentiate(fn), adcompiler.differentiate(fn, backend="numba")
    for got, want in zip(_tuple(numba.grad(*args)), _tuple(python.grad(*args)), strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    tangents = tuple(RNG.uniform(-1, 1, a.shape) for a in args)
    np.testing.assert_allclose(numba.jvp(args, tangents)[1], python.jvp(args, tangents)[1], rtol=1e-12)


@pytest.mark.slow  # (written Numba modules: tests/test_numba_cli.py by default)
def test_the_numba_module_adc_compile_writes(tmp_path):
    pytest.importorskip("numba")
    from adcompiler.cli.main import main

    out = tmp_path / "cov_numba.py"
    assert main(["compile", F.__file__, "--target", "numba", "-o", str(out)]) == 0
    text = out.read_text()
    assert "@numba.extending.overload(cov_vjp)" in text and "np.cov(" in text
    spec = importlib.util.spec_from_file_location("cov_numba", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    namespace = vars(module)
    x, y = CASES[2][1]
    for got, want in zip(namespace["pair_reverse"](x, y, 1.0)[1], adcompiler.differentiate(F.pair).grad(x, y)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    dx = RNG.uniform(-1, 1, x.shape)
    want = adcompiler.differentiate(F.rows).jvp((x,), (dx,))[1]
    np.testing.assert_allclose(namespace["rows_forward"](x, dx)[1], want, rtol=1e-12)


@pytest.mark.parametrize("fn, args", CASES, ids=IDS)
def test_arrays_any_on_array_api_strict(fn, args):
    xs = pytest.importorskip("array_api_strict")
    pytest.importorskip("array_api_compat")
    d = adcompiler.differentiate(fn, arrays="any")
    code = [line for line in d.source("grad").splitlines() if not line.lstrip().startswith("#")]  # (not the user's)
    assert not any("np.cov(" in line for line in code) and any("cov_vjp(" in line for line in code)
    strict = tuple(xs.asarray(a) for a in args)
    got = _tuple(d.grad(*strict))
    for g, want in zip(got, _tuple(adcompiler.differentiate(fn).grad(*args)), strict=True):
        assert type(g).__module__.startswith("array_api_strict")
        np.testing.assert_allclose(np.asarray(g), want, rtol=1e-12, atol=1e-14)
    tangents = tuple(RNG.uniform(-1, 1, a.shape) for a in args)
    value, tangent = d.jvp(strict, tuple(xs.asarray(t) for t in tangents))
    np.testing.assert_allclose(float(tangent), adcompiler.differentiate(fn).jvp(args, tangents)[1], rtol=1e-12)


@pytest.mark.parametrize("second", ["hessian", "hvp"])
def test_a_second_derivative_through_cov_is_refused_at_the_users_line(second):
    """np.cov has first derivatives only (its helpers have no rules): hessian and hvp, which differentiate
    the generated reverse code, say so at the user's line that calls np.cov (the ``# line N`` comment
    above the helper), not at a line of the generated code."""
    x = np.random.default_rng(4).random((3, 5))
    with pytest.raises(adcompiler.MissingRuleError) as info:
        if second == "hessian":
            adcompiler.hessian(F.rows)(x)
        else:
            adcompiler.hvp(F.rows)((x,), np.ones_like(x))
    error = info.value
    assert error.filename.endswith("cov_funcs.py") and error.lineno == F.rows.__code__.co_firstlineno + 1
    assert "np.cov(x)" in str(error) and "second derivative" in str(error) and "<adcompiler" not in str(error)
