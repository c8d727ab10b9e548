"""arrays="any": derivative code that calls its arguments' array namespace, checked against autograd
on NumPy arrays, run on NumPy, Dask (threads, and a LocalCluster of 2 workers), array-api-strict and
CuPy (where a GPU is) arrays."""

import types
from pathlib import Path

import numpy as np
import pytest

import arrays_funcs as F
from adcompiler import differentiate
from adcompiler.errors import UnsupportedSyntaxError

pytest.importorskip("array_api_compat")
agnp = pytest.importorskip("autograd.numpy")
autograd = pytest.importorskip("autograd")

RNG = np.random.default_rng(0)
CASES = [  # function, its arguments (NumPy), the positions to differentiate
    (F.least_squares, (RNG.random(3), RNG.random((8, 3)), RNG.random(8)), (0, 1, 2)),
    (F.elementwise, (RNG.random((4, 3)) - 0.5,), (0,)),
    (F.broadcast_reduce, (RNG.random((4, 3)), RNG.random((1, 3))), (0, 1)),
    (F.matrix_vector, (RNG.random((3, 3)), RNG.random(3)), (0, 1)),
    (F.gather, (RNG.random(5), np.array([4, 0, 4, 2, -1])), (0,)),
    (F.slices, (RNG.random((4, 3)),), (0,)),
    (F.written, (RNG.random(4),), (0,)),
    (F.spread, (RNG.random((3, 4)),), (0,)),
    (F.joined, (RNG.random((2, 3)), RNG.random((2, 3))), (0, 1)),
    (F.taken, (RNG.random((2, 4)), np.array([3, 0, 3])), (0,)),
    (F.looped, (RNG.random((3, 3)) - 0.5, RNG.random(3)), (0, 1)),
    (F.cast, (RNG.random(4), RNG.random(4)), (0, 1)),
]
IDS = [c[0].__name__ for c in CASES]


def oracle(fn, args, positions):
    """autograd's gradient of ``fn`` (its ``np`` read as autograd.numpy), or its analytic one."""
    if hasattr(fn, "gradient"):  # (of the first argument)
        return [fn.gradient(*args)]
    g = types.FunctionType(fn.__code__, {**fn.__globals__, "np": agnp})
    return [autograd.grad(g, k)(*args) for k in positions]


def differentiated(fn, positions):
    names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    return differentiate(fn, wrt=tuple(names[k] for k in positions), arrays="any")


def check(fn, args, positions, convert, back, ints=False):
    """Both modes on ``convert``ed arguments against autograd: the gradient, its kind (the library's
    arrays), shapes and dtypes; the jvp along one direction against the gradient's inner product."""
    d = differentiated(fn, positions)
    expected = oracle(fn, args, positions)
    moved = tuple(convert(a) if ints or k in positions or a.dtype.kind == "f" else a for k, a in enumerate(args))
    grads = d.grad(*moved)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for g, e, k in zip(grads, expected, positions, strict=True):
        value = back(g)
        assert value.shape == args[k].shape and value.dtype == args[k].dtype
        np.testing.assert_allclose(value, e, rtol=1e-10, atol=1e-12)
    direction = [RNG.random(args[k].shape) for k in positions]
    _, tangent = d.jvp(moved, tuple(convert(t) for t in direction))
    inner = sum(np.sum(e * t) for e, t in zip(expected, direction))
    np.testing.assert_allclose(float(back(tangent)), inner, rtol=1e-10)
    return grads


@pytest.mark.parametrize("fn, args, positions", CASES, ids=IDS)
def test_numpy_arrays(fn, args, positions):
    check(fn, args, positions, lambda a: a, np.asarray)


@pytest.mark.parametrize("fn, args, positions", CASES, ids=IDS)
def test_dask_threads(fn, args, positions):
    da = pytest.importorskip("dask.array")
    grads = check(fn, args, positions, lambda a: da.from_array(a, chunks=2), lambda g: g.compute(scheduler="threads"))
    assert all(isinstance(g, da.Array) for g in grads)  # lazy: a graph until computed


@pytest.mark.parametrize("fn, args, positions", CASES, ids=IDS)
def test_array_api_strict(fn, args, positions):
    xps = pytest.importorskip("array_api_strict")
    grads = check(fn, args, positions, xps.asarray, lambda g: np.asarray(g), ints=True)
    assert all(type(g).__module__.startswith("array_api_strict") for g in grads)


@pytest.mark.parametrize("fn, args, positions", CASES[:3], ids=IDS[:3])
def test_cupy(fn, args, positions):
    cp = pytest.importorskip("cupy")
    if cp.cuda.runtime.getDeviceCount() == 0:
        pytest.skip("no GPU")
    check(fn, args, positions, cp.asarray, cp.asnumpy)


def test_dask_gather_rows():
    """The adjoint of rows picked with repeats, a product with a one-hot matrix (no item assignment)."""
    da = pytest.importorskip("dask.array")
    args = (RNG.random((5, 2)), np.array([4, 0, 4, 2, -1]))
    check(F.gather_rows, args, (0,), lambda a: da.from_array(a, chunks=2), lambda g: g.compute())


def test_numpy_arrays_beside_dask():
    """Small NumPy weights with a big Dask matrix: the code takes Dask's namespace, the gradient is Dask's."""
    da = pytest.importorskip("dask.array")
    w, X, y = CASES[0][1]
    g = differentiate(F.least_squares, wrt="w", arrays="any").grad(w, da.from_array(X, chunks=4), y)
    assert isinstance(g, da.Array)
    np.testing.assert_allclose(g.compute(), oracle(F.least_squares, (w, X, y), (0,))[0], rtol=1e-12)


def test_default_code_is_numpy():
    """arrays="numpy" (the default) is the NumPy code; "any" calls the namespace of the arguments."""
    plain, anything = differentiate(F.elementwise), differentiate(F.elementwise, arrays="any")
    x = RNG.random(3)
    plain.grad(x), anything.grad(x)
    assert "namespace(" not in plain.source() and "np.tanh(x)" in plain.source()
    assert "xp = namespace(x" in anything.source() and "xp.atan(x)" in anything.source()


def test_refused_where_written():
    """A NumPy function whose derivative needs a helper with no array-API version: located, named."""
    d = differentiate(F.tensordot_of, arrays="any")
    with pytest.raises(UnsupportedSyntaxError, match=r"tensordot_vjp_a .*arrays=\"any\"") as info:
        d.grad(RNG.random((2, 2)), RNG.random(2))
    assert info.value.filename.endswith("arrays_funcs.py") and "np.tensordot" in info.value.text


def test_scatter_of_a_mask_refused_naming_the_library():
    xps = pytest.importorskip("array_api_strict")

    def masked(x, m):
        return np.sum(x[m] ** 2)

    with pytest.raises(Exception, match="array_api_strict"):
        differentiate(masked, wrt="x", arrays="any").grad(xps.asarray([1.0, 2.0]), xps.asarray([True, False]))


def test_unknown_option():
    with pytest.raises(ValueError, match="arrays='gpu'"):
        differentiate(F.elementwise, arrays="gpu")


def test_hessian_refused():
    from adcompiler import hessian_matrix as hessian

    with pytest.raises(NotImplementedError, match='arrays="any"'):
        hessian(differentiate(F.elementwise, arrays="any"))(RNG.random(3))


def test_dask_distributed_cluster():
    """The gradient computed on a LocalCluster of two worker processes (about 2 s: in the default suite)."""
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    w, X, y = RNG.random(3), RNG.random((400, 3)), RNG.random(400)
    d = differentiate(F.least_squares, arrays="any")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            grads = d.grad(da.from_array(w), da.from_array(X, chunks=(100, 3)), da.from_array(y, chunks=100))
            computed = client.compute(list(grads), sync=True)
            assert len(client.scheduler_info()["workers"]) == 2
    for g, e in zip(computed, oracle(F.least_squares, (w, X, y), (0, 1, 2))):
        np.testing.assert_allclose(g, e, rtol=1e-10)


def test_adc_compile_arrays_any(tmp_path):
    """adc compile --arrays any writes a module whose reverse mode runs on Dask arrays."""
    import importlib.util

    from adcompiler.cli.main import main

    da = pytest.importorskip("dask.array")
    source = tmp_path / "lsq.py"
    source.write_text(
        "import numpy as np\n\n\ndef loss(w: np.ndarray, X: np.ndarray, y: np.ndarray):\n"
        "    r = X @ w - y\n    return np.mean(r * r)\n"
    )
    assert main(["compile", str(source), "--arrays", "any", "-o", str(tmp_path / "lsq_ad.py")]) == 0
    spec = importlib.util.spec_from_file_location("lsq_ad", tmp_path / "lsq_ad.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.__doc__.startswith("Derivatives of lsq.py")
    w, X, y = RNG.random(3), RNG.random((6, 3)), RNG.random(6)
    _, grads = module.loss_reverse(da.from_array(w), da.from_array(X, chunks=3), da.from_array(y, chunks=3))
    expected = oracle(F.least_squares, (w, X, y), (0, 1, 2))
    for g, e in zip(grads, expected):
        assert isinstance(g, da.Array)
        np.testing.assert_allclose(g.compute(), e, rtol=1e-12)


def test_other_arrays_refused_by_numpy_code():
    """The default code is NumPy's: another library's array is refused, naming arrays="any"."""
    xps = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError, match=r'x is a array_api_strict array.*arrays="any"'):
        differentiate(F.elementwise).grad(xps.asarray([1.0, 2.0]))


def test_function_outside_the_standard_refused_at_its_line():
    def contracted(a, b):
        return np.sum(np.einsum("ij,j->i", a, b))

    with pytest.raises(UnsupportedSyntaxError, match=r"np.einsum \(not in the array API standard\)") as info:
        differentiate(contracted, arrays="any").grad(RNG.random((2, 2)), RNG.random(2))
    assert "np.einsum" in info.value.text and info.value.filename.endswith("test_arrays_any.py")


def test_integer_arrays_refused():
    """An integer array of another library where a derivative is asked for: refused as NumPy's are."""
    xps = pytest.importorskip("array_api_strict")
    da = pytest.importorskip("dask.array")
    d = differentiate(F.elementwise, arrays="any")
    with pytest.raises(TypeError, match=r"an array of array_api_strict.int64: convert it with xp.astype"):
        d.grad(xps.asarray([1, 2]))
    with pytest.raises(TypeError, match=r"an array of int64: convert it with .astype\(float\)"):
        d.grad(da.from_array(np.array([1, 2])))


def test_float32_kept():
    """A float32 array of another library gets a float32 gradient."""
    xps = pytest.importorskip("array_api_strict")
    g = differentiate(F.elementwise, arrays="any").grad(xps.asarray([0.5, -1.0], dtype=xps.float32))
    assert g.dtype == xps.float32
    expected = oracle(F.elementwise, (np.array([0.5, -1.0]),), (0,))[0]
    np.testing.assert_allclose(np.asarray(g), expected, rtol=1e-5)


def test_jacobian_of_other_arrays_refused():
    """jacobian assembles NumPy arrays: with NumPy arguments it works under arrays="any", with another
    library's it says to use vjp or jvp."""
    from adcompiler import jacobian

    da = pytest.importorskip("dask.array")

    def vec(x):
        return np.sin(x) * x[0]

    x = np.array([0.3, 0.5, 0.9])
    J = jacobian(differentiate(vec, arrays="any"))(x)
    np.testing.assert_allclose(J, autograd.jacobian(lambda v: agnp.sin(v) * v[0])(x), rtol=1e-12)
    with pytest.raises(TypeError, match="call its vjp or jvp"):
        jacobian(differentiate(vec, arrays="any"))(da.from_array(x))


@pytest.mark.parametrize("arrays", ["numpy", "any"])
def test_new_axis_and_the_zero_adjoint_of_a_broadcast_product(arrays):
    """x[:, None] under arrays="any" (scatter_add drops the new axes), and the number 0.0 times the
    other operand of a broadcasting product summed down to an operand of another shape (unbroadcast
    aligns from the last axis and spreads over the first): the same as autograd."""
    x, y = np.array([1.3, 1.0]), np.array([-0.3, 0.5, -0.7])
    namespaces = [np]
    xps = pytest.importorskip("array_api_strict") if arrays == "any" else None
    namespaces += [xps] if xps is not None else []
    for xp in namespaces:
        got = differentiate(F.outer_by_new_axis, arrays=arrays).grad(xp.asarray(x), xp.asarray(y))
        want = oracle(F.outer_by_new_axis, (x, y), (0, 1))
        for g, w in zip(got, want):
            assert np.allclose(np.asarray(g), w) and np.asarray(g).shape == w.shape
        ct = np.array([1.0, 2.0, 3.0])
        value, cts = differentiate(F.dead_broadcast_product, arrays=arrays).vjp(
            (xp.asarray(x), xp.asarray(y)), xp.asarray(ct)
        )
        assert np.allclose(np.asarray(value), y)
        assert np.array_equal(np.asarray(cts[0]), np.zeros(2)) and np.array_equal(np.asarray(cts[1]), ct)


def test_adc_compile_arrays_any_copies_the_users_functions_in_the_array_api(tmp_path):
    """The user's functions a written module calls as they are (GradBench's ode: ``solve`` and
    ``ode_fun``, which the derivatives of ``last`` run) are copied in the array API's spelling too: the
    module's reverse mode runs on Dask arrays, and agrees with the python target."""
    import importlib.util

    from adcompiler.cli.main import main

    da = pytest.importorskip("dask.array")
    evals = Path(__file__).parent.parent / "benchmarks" / "gradbench" / "evals"
    assert main(["compile", str(evals / "ode.py"), "--arrays", "any", "-o", str(tmp_path / "ode_ad.py")]) == 0
    text = (tmp_path / "ode_ad.py").read_text()
    assert "xp = namespace(x, y)\n    return xp.concat((x[:1], x[1:] * y[:-1]))" in text
    spec = importlib.util.spec_from_file_location("ode_ad", tmp_path / "ode_ad.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    spec = importlib.util.spec_from_file_location("ode_eval", evals / "ode.py")
    ode = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ode)
    x = np.linspace(0.5, 1.5, 6)
    _, (g, _) = module.last_reverse(da.from_array(x, chunks=3), 4)
    assert isinstance(g, da.Array)
    np.testing.assert_allclose(g.compute(), differentiate(ode.last, wrt=("x",)).grad(x, 4), rtol=1e-12)


def test_adc_compile_arrays_any_refusals_name_the_users_line(tmp_path, capsys):
    """A construct outside the standard is told at its own line of the user's file, in a differentiated
    function or in a function the module copies (an integer helper's ``np.linalg``)."""
    from adcompiler.cli.main import main

    differentiated = tmp_path / "crossed.py"
    differentiated.write_text(
        "import numpy as np\n\n\ndef f(a, b):\n    c = a * 2.0\n    return np.sum(np.cross(c, b))\n"
    )
    assert main(["compile", str(differentiated), "--arrays", "any"]) != 0
    err = capsys.readouterr().err
    assert f"{differentiated}:6:" in err and "np.cross" in err
    copied = tmp_path / "ranked.py"
    copied.write_text(
        "import numpy as np\n\n\ndef rank(A):\n    # the rank, an integer\n"
        "    return int(np.linalg.matrix_rank(A))\n\n\ndef f(A):\n    return np.sum(A[: rank(A)] ** 2)\n"
    )
    assert main(["compile", str(copied), "--arrays", "any"]) != 0
    err = capsys.readouterr().err
    assert f"{copied}:6:" in err and "matrix_rank" in err, err


def _stacked_scalars(y, p):
    v = np.array([y[1], -p[0] * y[0]])  # an ODE's right-hand side, as it is usually written
    return np.sum(0.5 * v * v)


def _filled(x):
    y = np.zeros(3)
    for i in range(3):
        y[i] = x[i] * x[i + 1]
    return np.sum(y)


def test_an_array_of_computed_numbers_and_an_array_filled_in_a_loop():
    """``np.array([y[1], -p[0] * y[0]])`` under arrays="any" gave the list itself (``copy_of`` returned what has
    no shape as it is: a TypeError even on NumPy arrays), and its adjoint took the list's len() of an
    array-api-strict array; ``np.zeros`` filled in a loop had the tangent ``xp.zeros_like(y, dtype=float)``,
    which array-api-strict refuses (Python's float is not a dtype of the standard)."""
    xps = pytest.importorskip("array_api_strict")
    da = pytest.importorskip("dask.array")
    y, p = np.array([1.0, 0.2]), np.array([2.0, 0.3])
    expected = oracle(_stacked_scalars, (y, p), (0, 1))
    d = differentiate(_stacked_scalars, arrays="any")
    for wrap in (np.asarray, xps.asarray, da.from_array):
        got = d.grad(wrap(y), wrap(p))
        for g, e in zip(got, expected):
            np.testing.assert_allclose(np.asarray(g.compute() if hasattr(g, "compute") else g), e, rtol=1e-12)
    value, tangent = d.jvp((y, p), (y, p))
    assert tangent == pytest.approx(sum(float(np.sum(e * a)) for e, a in zip(expected, (y, p))), rel=1e-12)
    x = np.arange(1.0, 5.0)
    value, tangent = differentiate(_filled, arrays="any").jvp((xps.asarray(x),), (xps.asarray(np.ones(4)),))
    assert float(value) == 20.0 and float(tangent) == 2.0 + 4.0 + 6.0 + 3.0  # (x1, x0 + x2, x1 + x3, x2) summed
