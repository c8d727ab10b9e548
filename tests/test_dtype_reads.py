"""The dtype of another array where a dtype is asked for (``np.zeros(n, dtype=x.dtype)``, ``h.astype(W.dtype)``):
refused before 2026-12-03 ("write the dtype as a constant"), although it is what users write to keep float32 code
float32.  Generated: every constructor and cast that takes a dtype, the dtype read in each way it is written (by
keyword, by position, through a local name), on both targets, in both modes.  Oracles: central differences in
float64; each result and cotangent of the dtype NumPy gives the primal in float32; forward against reverse
(``<u, J v> == <J^T u, v>``).  A cast to an integer array's dtype is refused at the user's line (the derivative
would be lost)."""

import itertools

import pytest

np = pytest.importorskip("numpy")

import adcompiler  # noqa: E402
from shared import defined  # noqa: E402

# What asks for a dtype, with {dt} where the dtype goes; each makes an array the function then uses
MADE = {
    "zeros_written": ["y = np.zeros(x.shape, dtype={dt})", "y[0] = x[0] * w[1]", "y[2] = x[2] ** 2"],
    "zeros_positional": ["y = np.zeros(3, {dt})", "y[1] = x[0] * x[1]", "y = y + x"],
    "zeros_like_positional": ["y = np.zeros_like(x, {dt})", "y[2] = x[0] * w[2]", "y = y + x * x"],
    "ones_like": ["y = np.ones_like(x, dtype={dt})", "y = y * x"],
    "empty_filled": ["y = np.empty(x.shape, dtype={dt})", "y[:] = x * w"],
    "full": ["y = np.full(x.shape, 2.0, dtype={dt})", "y[1] = w[0] * x[2]"],
    "arange": ["y = np.arange(3, dtype={dt}) * x"],
    "eye": ["y = np.eye(3, dtype={dt}) @ x"],
    "astype": ["y = x.astype({dt}) * 2.0"],
    "asarray": ["y = np.asarray(x, dtype={dt}) * x"],
    "array": ["y = np.array(x, dtype={dt}) + w"],
}
SPELT = {  # how the dtype is read
    "attribute": ("", "w.dtype"),
    "local": ("dt = w.dtype", "dt"),
    "own": ("", "x.dtype"),
}
CASES = [
    (made, spelt)
    for made, spelt in itertools.product(MADE, SPELT)
    if not (made == "zeros_positional" and spelt == "own")  # (one positional case is enough)
]


def _source(made: str, spelt: str) -> str:
    before, dt = SPELT[spelt]
    lines = ["def f(x, w):"] + (["    " + before] if before else [])
    lines += ["    " + line.format(dt=dt) for line in MADE[made]]
    lines.append("    return np.sum(y * w) + y[0] * x[1]")
    return "\n".join(lines) + "\n"


def _load(tmp_path, name: str, source: str):
    return defined(tmp_path, name, source).f


X, W = np.array([0.5, -1.2, 2.0]), np.array([1.5, 0.3, -0.8])


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("made, spelt", CASES, ids=["-".join(c) for c in CASES])
def test_dtype_read_of_another_array(tmp_path, backend, made, spelt):
    if backend == "numba":
        pytest.importorskip("numba")
    f = _load(tmp_path, f"dtype_{made}_{spelt}", _source(made, spelt))
    d = adcompiler.differentiate(f, backend=backend)
    gx, gw = d.grad(X, W)
    h = 1e-6
    for g, at in ((gx, 0), (gw, 1)):
        want = []
        for e in np.eye(3):
            up, down = [X, W], [X, W]
            up[at], down[at] = up[at] + h * e, down[at] - h * e
            want.append((f(*up) - f(*down)) / (2 * h))
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8)
    u, v = np.array([0.3, -0.2, 0.7]), np.array([-0.4, 0.9, 0.1])
    value, tangent = d.jvp((X, W), (u, v))
    assert value == pytest.approx(f(X, W), rel=1e-12)
    assert tangent == pytest.approx(float(gx @ u + gw @ v), rel=1e-9, abs=1e-12)
    # float32 in, float32 out: the value and each cotangent of the primal's dtype
    x32, w32 = X.astype(np.float32), W.astype(np.float32)
    value32, (gx32, gw32) = d.value_and_grad(x32, w32)
    primal = f(x32, w32)
    assert np.asarray(value32).dtype == np.asarray(primal).dtype, (value32, primal)
    assert gx32.dtype == np.float32 and gw32.dtype == np.float32, (gx32.dtype, gw32.dtype)
    np.testing.assert_allclose(gx32, gx, rtol=1e-4, atol=1e-4)
    value32, tangent32 = d.jvp((x32, w32), (u.astype(np.float32), v.astype(np.float32)))
    assert np.asarray(value32).dtype == np.asarray(tangent32).dtype == np.asarray(primal).dtype, (value32, tangent32)


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("written", ["x.astype(k.dtype)", "np.asarray(x, dtype=k.dtype)"])
def test_cast_to_an_integer_arrays_dtype_is_refused_at_its_line(tmp_path, backend, written):
    if backend == "numba":
        pytest.importorskip("numba")
    f = _load(tmp_path, "dtype_cast_int", f"def f(x, k):\n    y = {written}\n    return np.sum(y * x)\n")
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as refused:
        adcompiler.differentiate(f, backend=backend).grad(X, np.arange(3))
    message = str(refused.value)
    assert "dtype_cast_int.py:5:" in message and "int64" in message and "astype(np.float64)" in message, message


def test_generated_code_reads_the_dtype_as_written(tmp_path):
    f = _load(tmp_path, "dtype_shown", _source("zeros_written", "attribute"))
    source = adcompiler.differentiate(f).source("grad")
    assert "w.dtype" in source and "dtype_of" not in source, source


def test_dtype_read_under_the_array_api_target(tmp_path):
    f = _load(tmp_path, "dtype_xp", _source("zeros_written", "own"))
    d = adcompiler.differentiate(f, arrays="any")
    np.testing.assert_allclose(d.grad(X, W)[0], adcompiler.differentiate(f).grad(X, W)[0], rtol=1e-12)


class Model:
    """A layer whose hidden state is of its weights' dtype (``self.W.dtype``: ``self[0].dtype`` in its derivative
    code, which a Hessian differentiates again)."""

    def __init__(self, W):
        self.W = W

    def loss(self, x):
        h = np.zeros(self.W.shape[0], dtype=self.W.dtype)
        h = h + self.W @ x
        return np.sum(np.tanh(h) ** 2)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_hessian_of_a_method_reading_its_weights_dtype(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    W = np.array([[0.2, 0.1, -0.4], [0.3, 0.5, 0.1], [-0.2, 0.6, 0.3]])
    model = Model(W)
    got = adcompiler.hessian(adcompiler.differentiate(model.loss, backend=backend))(X)
    t = np.tanh(W @ X)  # loss = sum(tanh(W x)^2): H = W^T diag(2 (1 - t^2)(1 - 3 t^2)) W
    want = W.T @ np.diag(2 * (1 - t**2) * (1 - 3 * t**2)) @ W
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_hessian_through_dtype_reads(tmp_path, backend):
    """Second order: the first derivative's code reads ``w.dtype`` again, which is differentiated as written."""
    if backend == "numba":
        pytest.importorskip("numba")
    source = (
        "def f(x, w):\n    y = np.zeros(x.shape, dtype=w.dtype)\n    y[0] = x[0] * x[1]\n"
        "    return np.sum(x.astype(w.dtype) * y * w)\n"
    )
    f = _load(tmp_path, "dtype_hessian", source)
    got = adcompiler.hessian(adcompiler.differentiate(f, backend=backend))(X, W)
    x0, x1 = X[:2]  # f = x0^2 x1 w0
    want = np.zeros((3, 3))
    want[0, 0], want[0, 1] = 2 * x1 * W[0], 2 * x0 * W[0]
    want[1, 0] = want[0, 1]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
