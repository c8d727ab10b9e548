"""scipy.stats distributions adcompiler writes (``rules/scipy_stats.py``) besides norm: expon, laplace, logistic,
cauchy, uniform, lognorm, t, gamma, beta, poisson.  Each method's value against SciPy's, outside the support too
(-inf, 0, 1 as SciPy gives them), its gradient in x, loc, scale and the shape parameters against central
differences inside the support, forward against reverse; both targets."""

import inspect

import pytest

np = pytest.importorskip("numpy")
st = pytest.importorskip("scipy.stats")

import adcompiler  # noqa: E402
import scipy_stats_funcs as F  # noqa: E402

SHAPES = {"lognorm": (0.6,), "t": (3.5,), "gamma": (2.5,), "beta": (2.5, 1.5)}
POINTS = {  # x for the densities and distribution functions (some outside the support), q for ppf
    "expon": [-0.5, 0.4, 2.0],
    "uniform": [-0.5, 0.4, 1.1, 3.0],
    "lognorm": [-0.5, 0.4, 2.0],
    "gamma": [-0.5, 0.4, 2.0],
    "beta": [-0.5, 0.4, 0.8, 2.0],
}
METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf")
CASES = [
    (name, getattr(F, name))
    for name in sorted(vars(F))
    if name.count("_") == 1 and name.split("_")[1] in METHODS and not name.startswith("poisson")
]
NUMBA = {"gamma_logpdf", "expon_cdf", "beta_logpdf", "logistic_logsf", "lognorm_ppf"}  # (the rest: --runslow)


def _args(name):
    family, method = name.split("_")
    q = np.array([0.1, 0.45, 0.8])
    x = q if method == "ppf" else np.array(POINTS.get(family, [-1.2, 0.4, 2.0]))
    return [x, 0.2, 1.3, *SHAPES.get(family, ())]


def _central(fn, args, k, h=1e-6):
    def at(shift):
        moved = list(args)
        moved[k] = moved[k] + shift
        return fn(*moved)

    if np.ndim(args[k]):
        return np.array([(at(h * e) - at(-h * e)) / (2 * h) for e in np.eye(len(args[k]))])
    return (at(h) - at(-h)) / (2 * h)


@pytest.mark.parametrize(
    "backend, name, fn",
    [("python", n, f) for n, f in CASES]
    + [pytest.param("numba", n, f, marks=() if n in NUMBA else pytest.mark.slow, id=f"numba-{n}") for n, f in CASES],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_a_distributions_method_is_scipys_and_its_gradient_differences(backend, name, fn):
    if backend == "numba":
        pytest.importorskip("numba")
    family, method = name.split("_")
    args = _args(name)
    wrt = tuple(inspect.signature(fn).parameters)
    if name in ("gamma_cdf", "gamma_sf"):  # (not in a: see the last test)
        wrt = wrt[:-1]
    d = adcompiler.differentiate(fn, wrt=wrt, backend=backend)
    want = getattr(getattr(st, family), method)(args[0], *args[3:], args[1], args[2])
    assert d(*args) == pytest.approx(float(np.sum(want)), rel=1e-10)  # (-inf where a point is outside the support)
    inside = [args[0][np.isfinite(want) & (want != 0.0) & (want != 1.0)], *args[1:]]
    gradient = d.grad(*inside)
    for k, g in enumerate(gradient):
        np.testing.assert_allclose(g, _central(fn, inside, k), rtol=1e-5, atol=1e-7, err_msg=f"{name}: {wrt[k]}")
    tangents = [np.cos(np.arange(len(inside[0])) + 0.5), 0.3, -0.7, *[0.4] * len(SHAPES.get(family, ()))][: len(wrt)]
    _, tangent = d.jvp(tuple(inside), tuple(tangents))
    expected = sum(float(np.sum(g * t)) for g, t in zip(gradient, tangents))
    assert tangent == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_likelihood_of_numbers_with_keywords(backend):
    """gamma.logpdf and t.logpdf of one data point at a time (floats: np.where of numbers), keywords bound as
    SciPy binds them; the parameters' gradient against central differences."""
    if backend == "numba":
        pytest.importorskip("numba")
    theta, data = np.array([2.5, 1.5, 4.0]), np.array([0.5, 1.2, 2.5, 0.1])
    d = adcompiler.differentiate(F.gamma_model, wrt=("theta",), backend=backend)
    want = sum(st.gamma.logpdf(v, 2.5, scale=1.5) + st.t.logpdf(v, df=4.0, loc=0.5) for v in data)
    assert d(theta, data) == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(d.grad(theta, data), _central(F.gamma_model, [theta, data], 0), rtol=1e-6)


def test_poisson_in_its_mean():
    """poisson.logpmf and pmf of counts (outside the support, a negative or fractional count: -inf and 0, as
    SciPy), differentiated in mu."""
    k = np.array([0.0, 3.0, 7.0, -1.0, 2.5])
    for fn, method, loc in [(F.poisson_logpmf, "logpmf", 0.0), (F.poisson_pmf, "pmf", 1.0)]:
        assert fn(k, 2.5) == pytest.approx(float(np.sum(getattr(st.poisson, method)(k, 2.5, loc=loc))))
        g = adcompiler.differentiate(fn, wrt=("mu",)).grad(k[:3], 2.5)
        assert g == pytest.approx(_central(fn, [k[:3], 2.5], 1), rel=1e-6)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_gamma_cdf_in_a_is_refused_at_the_users_call(backend):
    """gamma.cdf is written with scipy.special.gammainc, whose derivative in a has no closed form: a varying a is
    refused at the user's line (not inside rules/scipy_stats.py), a constant one differentiates."""
    if backend == "numba":
        pytest.importorskip("numba")
    x = np.array([0.5, 1.5])
    line = inspect.getsourcelines(F.gamma_cdf_in_a)[1] + 2
    with pytest.raises(
        adcompiler.MissingRuleError, match=rf"scipy_stats_funcs\.py:{line}:\d+: .*gamma\.cdf in its argument 2 \(a\)"
    ):
        adcompiler.differentiate(F.gamma_cdf_in_a, backend=backend).grad(x, 2.5)
    g = adcompiler.differentiate(F.gamma_cdf_in_a, wrt=("x",), backend=backend).grad(x, 2.5)
    np.testing.assert_allclose(g, _central(F.gamma_cdf_in_a, [x, 2.5], 0), rtol=1e-6)
