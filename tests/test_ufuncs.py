"""NumPy's elementwise functions as records (rules/ufuncs.py): each record's rules (its partials, or for the
selections its two rules) are its function's derivative, in both modes, against central differences of
NumPy itself."""

import numpy as np
import pytest

import adcompiler
from adcompiler import rules
from adcompiler.rules import arrays as N
from adcompiler.rules.families import REGISTRY, family

UFUNCS = [p.numpy_name for p in family("ufuncs") if not (p.inactive or p.expanded)]  # (no derivative: the tests;
# np.select, written as np.where: tests/test_expansions.py)
INSIDE = {"arcsin": (-0.8, 0.8), "arccos": (-0.8, 0.8), "arctanh": (-0.8, 0.8), "arccosh": (1.2, 3.0)}
SIGNED = ("sign", "abs", "absolute", "fabs", "negative", "positive", "cbrt", "arctan", "sinh", "tanh", "maximum")


def _points(name: str, nargs: int, rng) -> list:
    """Arguments inside the function's domain, away from its jumps (integers, for floor and the remainders)."""
    lo, hi = INSIDE.get(name, (-2.0, 2.0) if name in SIGNED else (0.3, 2.0))
    args = [rng.uniform(lo, hi, 6) for _ in range(nargs)]
    if name in ("floor", "ceil", "round", "rint", "trunc"):
        args[0] = np.floor(args[0] * 4) / 4 + 0.125  # (eighths away from every jump)
    return args


def _function(tmp_path, name: str, nargs: int):
    """``f(x)`` or ``f(x1, x2)`` = the sum of ``np.<name>`` of its arguments, from a file of its own."""
    params = ", ".join(f"x{i}" for i in range(nargs))
    path = tmp_path / f"elementwise_{name}.py"
    path.write_text(
        f"import numpy as np\n\n\ndef f({params}):\n    return np.sum(np.{name}({params}) * np.{name}({params}))\n"
    )
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace["f"]


@pytest.mark.parametrize("name", UFUNCS)
def test_each_elementwise_record_differentiates_its_function(tmp_path, name):
    """grad and jvp of sum(f(x)**2) against central differences of NumPy's own f, forward against reverse,
    and each cotangent of its argument's shape and dtype."""
    prim = REGISTRY[f"numpy.{name}"]
    nargs = len(prim.signature)
    rng = np.random.default_rng(sum(map(ord, name)))
    args = _points(name, nargs, rng)
    f = _function(tmp_path, name, nargs)
    d = adcompiler.differentiate(f)
    grads = d.grad(*args) if nargs > 1 else (d.grad(*args),)
    directions = [rng.standard_normal(6) for _ in args]
    h = 1e-6
    for i, (x, g) in enumerate(zip(args, grads)):
        assert g.shape == x.shape and g.dtype == x.dtype
        for k in range(len(x)):
            up = [a.copy() for a in args]
            down = [a.copy() for a in args]
            up[i][k] += h
            down[i][k] -= h
            want = (f(*up) - f(*down)) / (2 * h)
            assert g[k] == pytest.approx(want, rel=1e-5, abs=1e-6), (name, i, k)
    value, tangent = d.jvp(tuple(args), tuple(directions))
    assert value == pytest.approx(f(*args), rel=1e-14)
    assert tangent == pytest.approx(sum(float(np.dot(g, v)) for g, v in zip(grads, directions)), rel=1e-10, abs=1e-12)


def test_the_elementwise_family_is_every_differentiable_ufunc():
    """The records are NumPy's ufuncs with a derivative and four elementwise functions that are not ufuncs
    (np.round, a function of np.rint; np.where; np.clip; np.nan_to_num), each binding x, or x1 and x2, as NumPy names them;
    the ufuncs of the tables are those of other families (np.matmul a product, np.conj a part of a complex
    number) and the comparisons (no derivative)."""
    functions = {"round": 1, "where": 3, "clip": 3, "nan_to_num": 1}  # (their number of arguments)
    for name in UFUNCS:
        assert isinstance(getattr(np, name), np.ufunc) or name in functions, name
        nargs = len(REGISTRY[f"numpy.{name}"].signature)
        assert nargs == (functions[name] if name in functions else getattr(np, name).nin)
    tabled = set(rules.PARTIALS) | set(rules.FORWARD) | set(N.SIGNATURES) | set(N.LINEAR) | set(N.INACTIVE)
    ufuncs = {n[6:] for n in tabled if n.startswith("numpy.") and isinstance(getattr(np, n[6:], None), np.ufunc)}
    others = {"matmul", "conj", "conjugate"} | set(N.COMPARISONS)
    assert ufuncs - set(UFUNCS) == others


def _clipped(x, lo, hi):
    return np.sum(np.sin(np.clip(x, lo, hi)))


def test_clip_with_a_lower_bound_above_the_upper_gives_the_upper_everywhere():
    """np.clip(x, lo, hi) where lo > hi is hi (NumPy computes min(max(x, lo), hi)): the derivative goes to hi
    there, not to lo (the rule once sent it to lo where x < lo)."""
    x = np.array([-1.0, 0.5, 2.0, 0.2, 3.0])
    lo = np.array([0.0, 1.0, 1.5, -1.0, 2.5])
    hi = np.array([1.0, 0.8, 1.0, 0.5, 2.0])  # crossed at entries 1, 2 and 4
    d = adcompiler.differentiate(_clipped)
    grads = d.grad(x, lo, hi)
    want = [
        np.cos(np.clip(x, lo, hi)) * m for m in ((lo <= x) & (x <= hi), (x < lo) & (lo <= hi), (x > hi) | (lo > hi))
    ]
    for got, expected in zip(grads, want):
        np.testing.assert_allclose(got, expected, rtol=1e-14)
    u = [np.linspace(0.1, 0.5, 5) * k for k in (1, -2, 3)]
    assert d.jvp((x, lo, hi), tuple(u))[1] == pytest.approx(sum(float(np.dot(g, v)) for g, v in zip(grads, u)))
