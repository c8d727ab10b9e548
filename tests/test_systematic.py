"""Every derivative rule, systematically: each primitive of the rule tables over a grid of kinds of
arguments (Python floats, NumPy arrays of 0 to 3 dimensions, broadcasting pairs, float32 mixed with
float64) and keyword combinations (systematic_cases.py), in both modes against central finite
differences and autograd, with every cotangent's structure, shape and dtype checked, and second order
against autograd's Hessian.  The default run takes a slice of the grid that still touches every
rule; ``pytest --runslow`` runs all of it.

A rule added to the tables without a case here fails ``test_every_rule_has_a_case``.
"""

import math
import types

import numpy as np
import pytest

import adcompiler
from adcompiler import rules
from adcompiler.rules import arrays as N
from adcompiler.testing.oracle import check_both_modes, leaves
from systematic_cases import SETITEM_SOURCES, _load, cases, module_for

CASES = cases()


def _param(case):
    return pytest.param(case, id=case.id, marks=(pytest.mark.slow,) if case.slow else ())


def test_every_rule_has_a_case():
    variadic = {k for k in rules.PARTIALS if k.split("/")[0] in rules.VARIADIC}  # math.hypot/n: made on demand
    tables = set(rules.PARTIALS) - variadic | set(rules.FORWARD) | set(N.LINEAR) | set(N.BILINEAR)
    tables |= set(N.SEQUENCE) | {"numpy.einsum"}  # (max, min, prod: records, in FORWARD)
    covered = {p for case in CASES for p in case.prims}
    assert tables - covered == set()
    assert tables - {p for case in CASES if not case.slow for p in case.prims} == set()  # in the default run too


def _autograd_twin(module):
    """The same function with np bound to autograd.numpy, and math to autograd's equivalents."""
    anp = pytest.importorskip("autograd.numpy")
    special = pytest.importorskip("autograd.scipy.special")
    names = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh"}
    names.update({"atanh": "arctanh", "atan2": "arctan2", "fabs": "abs", "pow": "power"})
    shim = {n: getattr(anp, names.get(n, n)) for n in dir(math) if hasattr(anp, names.get(n, n))}
    shim.update(erf=special.erf, erfc=special.erfc, hypot=lambda *xs: anp.sqrt(sum(x * x for x in xs)))
    shim["log"] = lambda x, base=None: anp.log(x) if base is None else anp.log(x) / anp.log(base)
    shim.update(lgamma=special.gammaln, gamma=special.gamma, fsum=sum, copysign=math.copysign, fmod=math.fmod)
    shim.update(dist=lambda p, q: anp.sqrt(sum((a - b) ** 2 for a, b in zip(p, q))))
    shim.update(isfinite=math.isfinite, isnan=math.isnan, isinf=math.isinf)
    g = dict(vars(module), np=anp, math=types.SimpleNamespace(**shim))
    return types.FunctionType(module.f.__code__, g, "f")


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_rule(case, tmp_path):
    module = module_for(case, str(tmp_path))
    args = tuple(case.args.values())
    d = check_both_modes(module.f, args)
    ag = pytest.importorskip("autograd")
    if not case.autograd:
        return
    try:
        expected = [ag.grad(_autograd_twin(module), k)(*args) for k in range(len(args))]
    except (AttributeError, AssertionError, NotImplementedError, TypeError, ValueError) as exc:  # autograd lacks it
        pytest.skip(f"autograd cannot differentiate it ({type(exc).__name__}); finite differences only")
    got = d.grad(*args)
    got = got if len(args) > 1 else (got,)
    single = any(getattr(a, "dtype", None) == np.float32 for a in args)
    np.testing.assert_allclose(
        [x for g in got for x in leaves(g)],
        [x for e in expected for x in leaves(e)],
        rtol=1e-4 if single else 1e-6,
        atol=1e-6 if single else 1e-8,
    )


@pytest.mark.parametrize("case", [_param(c) for c in CASES if c.hessian])
def test_second_order(case, tmp_path):
    ag = pytest.importorskip("autograd")
    module = module_for(case, str(tmp_path))
    args = tuple(case.args.values())
    twin = _autograd_twin(module)
    for k, a in enumerate(args):
        got = adcompiler.hessian_matrix(module.f, wrt=list(case.args)[k])(*args)
        try:
            if not case.autograd:
                raise NotImplementedError("autograd gets it wrong")
            expected = np.asarray(ag.hessian(twin, k)(*args), dtype=float).reshape(np.size(a), np.size(a))
        except (NotImplementedError, TypeError, ValueError):  # differences of the gradient test_rule checks
            expected, tol = _gradient_differences(module.f, args, k), dict(rtol=1e-5, atol=1e-6)
        else:
            tol = dict(rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(got, expected, **tol)


def _gradient_differences(f, args, k, h=1e-5):
    """The Hessian in argument k by central differences of adcompiler's gradient."""
    grad = adcompiler.differentiate(f, wrt=(k,)).grad
    x, cols = np.asarray(args[k], dtype=float), []
    for j in range(x.size):
        e = np.zeros(x.size)
        e[j] = h
        at = [list(args), list(args)]
        at[0][k], at[1][k] = x + e.reshape(x.shape), x - e.reshape(x.shape)
        cols.append((np.ravel(grad(*at[0])) - np.ravel(grad(*at[1]))) / (2 * h))
    return np.array(cols).T


@pytest.mark.parametrize("name", list(SETITEM_SOURCES))
def test_writes_into_local_arrays(name, tmp_path):
    module = _load("import numpy as np\n\nW = None\n" + SETITEM_SOURCES[name], str(tmp_path), 1.7)
    check_both_modes(module.f, (np.array([0.3, -0.8, 1.1, 0.5]), 0.7))
