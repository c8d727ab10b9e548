"""The fast entries f.grad, f.jvp, f.vjp and f.value_and_grad become after a call with floats
(adcompiler.api.entries): the same numbers as the checking methods, against analytic derivatives,
and everything unlike the first call handed to the methods."""

import inspect
import math

import pytest

import adcompiler
import entry_funcs as F
from shared import BACKENDS


def warmed(fn, *calls):
    """``differentiate(fn)`` after one call of each of grad, jvp and vjp with floats (entries made)."""
    f = adcompiler.differentiate(fn)
    primals = (0.7, 1.3)[: len(inspect.signature(fn).parameters)]
    f.jvp(primals, tuple(1.0 for _ in f.wrt))
    for name in calls:
        getattr(f, name)(*primals)
    return f


def test_names_like_the_entry_internals_do_not_clash():
    """Parameters ``primals_`` and ``type_``, locals and globals ``method_``/``float_``/``isinstance_``."""
    f = warmed(F.clash, "grad", "value_and_grad")
    f.vjp((0.7, 1.3), 1.0)
    for p, t in [(0.7, 1.3), (-2.0, 0.25)]:
        value = p * t * 3.0 + 0.5 * math.sin(t)
        grad = (3.0 * t, 3.0 * p + 0.5 * math.cos(t))
        assert f.grad(p, t) == pytest.approx(grad, rel=1e-14)
        assert f.grad(primals_=p, type_=t) == pytest.approx(grad, rel=1e-14)
        assert f.value_and_grad(p, t)[0] == pytest.approx(value, rel=1e-14)
        out, tangent = f.jvp((p, t), (1.0, -2.0))
        assert (out, tangent) == pytest.approx((value, grad[0] - 2.0 * grad[1]), rel=1e-14)
        assert f.vjp((p, t), 2.0)[1] == pytest.approx((2 * grad[0], 2 * grad[1]), rel=1e-14)
    assert "jvp" in vars(f) and "vjp" in vars(f) and "grad" in vars(f)  # the entries answered


def test_small_straight_line_derivatives_are_inlined_and_loops_are_called():
    small = warmed(F.pair)
    small.vjp((0.7, 1.3), (1.0, 0.0))
    looped = warmed(F.looped)
    assert "generated" not in inspect.getsource(small.jvp)
    assert "generated" not in inspect.getsource(small.vjp)
    assert "generated" in inspect.getsource(looped.jvp)
    x, y = 0.7, 1.3
    assert looped.jvp((x, y), (1.0, 0.5))[1] == pytest.approx(4 * (y + 0.5 * x), rel=1e-14)


def test_sequences_of_any_kind_and_one_shot_iterators():
    f = warmed(F.pair)
    x, y = 0.7, 1.3
    value = (x * y, x * y + math.exp(x))
    tangent = (y - 2 * x, y - 2 * x + math.exp(x))
    for primals, tangents in [((x, y), (1.0, -2.0)), ([x, y], [1.0, -2.0]), (iter([x, y]), iter([1.0, -2.0]))]:
        out, tan = f.jvp(primals, tangents)
        assert out == pytest.approx(value, rel=1e-14) and tan == pytest.approx(tangent, rel=1e-14)
    ct = (2.0, 0.5)
    cts = (2.0 * y + 0.5 * (y + math.exp(x)), 2.0 * x + 0.5 * x)
    for primals, c in [((x, y), ct), ([x, y], list(ct)), (iter([x, y]), ct)]:
        assert f.vjp(primals, c)[1] == pytest.approx(cts, rel=1e-14)


def test_anything_unlike_the_first_call_goes_to_the_checking_method():
    f = warmed(F.pair)
    f.vjp((0.7, 1.3), (1.0, 0.0))
    with pytest.raises(TypeError, match="integer"):
        f.jvp((1, 2), (1.0, 0.0))
    with pytest.raises(ValueError, match="x is an integer, a constant"):
        f.jvp((1, 1.3), (1.0, 0.0))
    assert f.jvp((1, 1.3), (None, 1.0)) == f.jvp((1.0, 1.3), (0.0, 1.0))  # an int: a constant by default
    assert f.vjp((0.7, 2), (1.0, 0.5))[1] == pytest.approx((2.0 * 1.5 + 0.5 * math.exp(0.7),), rel=1e-14)
    with pytest.raises(ValueError, match="tangents"):
        f.jvp((0.7, 1.3), (1.0, 0.0, 2.0))
    with pytest.raises(ValueError, match="tangents"):
        f.jvp((0.7, 1.3), iter([1.0]))
    with pytest.raises(ValueError, match="cotangent"):
        f.vjp((0.7, 1.3), (1.0, 0.0, 2.0))
    with pytest.raises(ValueError, match="cotangent"):
        f.vjp((0.7, 1.3), iter([1.0, 0.0]))  # the method takes only a tuple or list
    with pytest.raises(TypeError):
        f.jvp((0.7, 1.3, 2.0), (1.0, 0.0))
    with pytest.raises(TypeError):
        f.jvp(0.7, (1.0, 0.0))


def test_defaults_fewer_primals_and_keywords():
    f = adcompiler.differentiate(F.scaled, wrt="x")
    assert f.jvp((1.5,), (1.0,))[1] == pytest.approx(6.0, rel=1e-14)  # the entry is made here
    assert "jvp" in vars(f)
    for primals, k in [((1.5,), 2.0), ((1.5, 3.0), 3.0), ([1.5], 2.0)]:
        for given in (primals, iter(primals)):
            assert f.jvp(given, (1.0,)) == pytest.approx((k * 2.25, 2 * k * 1.5), rel=1e-14)
        for given in (primals, iter(primals)):
            assert f.vjp(given, 2.0)[1] == pytest.approx((4 * k * 1.5,), rel=1e-14)
    f.grad(1.5)
    assert f.grad(1.5) == f.grad(1.5, 2.0) == f.grad(x=1.5) == pytest.approx(6.0, rel=1e-14)
    assert f.grad(1.5, k=3.0) == pytest.approx(9.0, rel=1e-14)


def test_an_error_inside_an_inlined_body_is_the_one_the_derivative_raises():
    f = warmed(F.log_of, "grad")
    f.vjp((2.0,), 1.0)
    assert f.grad(2.0) == pytest.approx(0.5, rel=1e-14)
    assert f.jvp((2.0,), (3.0,)) == pytest.approx((math.log(2.0), 1.5), rel=1e-14)
    with pytest.raises(ValueError, match="math domain error"):
        f.jvp((-1.0,), (1.0,))
    with pytest.raises(ValueError, match="math domain error"):
        f.vjp((-1.0,), 1.0)
    with pytest.raises(ValueError, match="math domain error"):  # a gradient needs only 1 / x, but log(x) fails
        f.grad(-1.0)


@pytest.mark.slow  # (four entries, four compiles: tests/test_numba_entries.py calls each entry of a Numba derivative by default)
def test_numba_target_gets_fast_entries_too():
    """backend="numba": after a first call, f.grad / f.jvp / f.vjp / f.value_and_grad are entries that
    test the arguments and call the compiled code; other kinds of argument go to the methods."""
    pytest.importorskip("numba")
    np = pytest.importorskip("numpy")
    f = adcompiler.differentiate(F.looped, backend="numba")
    reference = adcompiler.differentiate(F.looped)
    for x, y in [(0.7, 1.3), (-0.4, 2.5)]:
        assert f.grad(x, y) == pytest.approx(reference.grad(x, y), rel=1e-12)
        assert f.value_and_grad(x, y)[0] == pytest.approx(F.looped(x, y), rel=1e-12)
        assert f.jvp((x, y), (1.0, -0.5))[1] == pytest.approx(reference.jvp((x, y), (1.0, -0.5))[1], rel=1e-12)
        assert f.vjp((x, y), 2.0)[1] == pytest.approx(reference.vjp((x, y), 2.0)[1], rel=1e-12)
    assert {"grad", "value_and_grad", "jvp", "vjp"} <= set(vars(f))
    assert type(f.grad(0.7, 1.3)[0]) is float
    with pytest.raises(TypeError, match="integer"):
        f.grad(1, 2)
    assert f.grad(1, 2.0) == pytest.approx(4.0, rel=1e-14)  # x an int: a constant by default, d/dy = 4 x
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match=r"entry_funcs.py:28:.*backend=\"python\""):
        f.grad(np.array([0.7, 0.1]), np.array([1.3, 0.2]))  # s becomes an array: Numba refuses, told at the line
    assert f.grad(0.7, 1.3) == pytest.approx(reference.grad(0.7, 1.3), rel=1e-12)  # the entry still works


def _outcome(call):
    """What ``call()`` gives: its value (with the types of its numbers), or its error's type and message."""
    try:
        value = call()
    except Exception as exc:  # noqa: BLE001 - the error itself is the outcome compared
        return type(exc), str(exc)
    return repr(value), repr(_types(value))


def _types(value):
    if isinstance(value, (list, tuple)):
        return [_types(v) for v in value]
    return getattr(value, "dtype", type(value))


class _Floats(list):
    """A list subclass: describe sees its type, so an entry must not take it for a list."""


@pytest.mark.parametrize("kind", [list, tuple])
def test_sequences_of_floats_are_told_from_every_other_sequence(kind):
    """An entry's quick test of a flat list (or tuple) of floats (``entries._floats_test``) answers as
    the checking method does for lists of floats, of NumPy floats, of ints and bools, empty or short
    ones, subclasses and the other kind of sequence; f.grad, f.jvp, f.vjp and the Jacobian's rows."""
    np = pytest.importorskip("numpy")
    xs, p = kind([0.5, -1.25, 2.0]), kind([1.5, 0.75])
    others = [
        (kind([0.25, 3.0, -1.0]), kind([2.0, -0.5])),
        (kind([0.25, 3.0, -1.0, 7.0]), kind([2.0, -0.5, 1.0])),  # longer: other shadows' lengths
        (kind(map(np.float64, [0.25, 3.0, -1.0])), p),  # NumPy floats describe as floats do
        (kind([np.float64(0.25), 3.0, -1.0]), p),
        (kind([1, 3.0, -1.0]), p),
        (kind([True, 3.0, -1.0]), p),
        (kind([0.25, 3.0]), p),  # too short: the primal's IndexError
        (kind(), p),
        (_Floats([0.25, 3.0, -1.0]), p),
        (list(xs) if kind is tuple else tuple(xs), p),
        (xs, xs),  # one object twice
    ]
    calls = {
        "grad": (F.weighted, lambda f, a: f.grad(*a)),
        "jvp": (F.mixed, lambda f, a: f.jvp(a, tuple([1.0] * len(x) for x in a))),
        "vjp": (F.mixed, lambda f, a: f.vjp(a, [0.5, 2.0])),
        "jacobian": (F.mixed, lambda f, a: adcompiler.jacobian(f, mode="reverse")(*a)),
    }
    for name, (fn, call) in calls.items():
        warm = adcompiler.differentiate(fn)
        jac = adcompiler.jacobian(warm, mode="reverse")
        run = (lambda a: jac(*a)) if name == "jacobian" else (lambda a: call(warm, a))
        run((xs, p))
        assert name == "jacobian" or name in vars(warm)  # the entry answers from here on
        for args in others:
            fresh = adcompiler.differentiate(fn)  # its first call: the checking method
            assert _outcome(lambda: run(args)) == _outcome(lambda: call(fresh, args)), (name, args)


def test_the_quick_float_test_implies_the_described_structure():
    """Whatever passes ``_floats_test`` for an abstract value describes as that value: the quick test
    may only turn away (to ``describe``), never let through something else."""
    np = pytest.importorskip("numpy")
    from adcompiler.api import entries
    from adcompiler.analysis import values as V

    names = {k: k for k in ("type", "list", "tuple", "len", "map", "countOf", "float", "float64")}
    space = {"type": type, "list": list, "tuple": tuple, "len": len, "map": map, "float": float}
    space["float64"] = np.float64
    space["countOf"] = entries.countOf
    values = [[0.5], [0.5, 1.0], (0.5,), (0.5, 1.0), (0.5, 1.0, 2.0), [], (), [1, 2.0], (1.0, True), [np.float64(1.0)]]
    values += [_Floats([1.0]), [[1.0]], ([1.0],), tuple([1.0] * 20), [1.0] * 20]
    for like in values:
        aval = V.describe(like)
        if not isinstance(aval, V.Seq):
            continue
        test = entries._floats_test("v", aval, names)
        for v in values:
            if test and eval(test, dict(space, v=v)):
                assert V.describe(v) == aval, (like, v)
    assert entries._floats_test("v", V.describe([1.0, 2.0]), names)
    assert entries._floats_test("v", V.describe((1.0, 2.0)), names)
    assert eval(entries._floats_test("v", V.describe([1.0]), names), dict(space, v=[np.float64(1.0), 2.0]))


def test_rows_of_floats_are_told_from_every_other_structure():
    """The written test of a list of rows of floats (``analysis.holds``) answers as the checking method
    does: rows of NumPy floats, of ints, an empty row, a tuple row, rows of other lengths, a tuple of
    rows, the same row twice, one list passed as both arguments."""
    np = pytest.importorskip("numpy")
    M, v = [[0.5, -1.25], [2.0, 0.75], [1.0, -3.0]], [1.5, 0.75]
    row = [0.25, 3.0]
    others = [
        ([[0.25, 3.0], [-1.0, 2.0]], v),
        ([list(map(np.float64, row)), row], v),
        ([[1, 3.0], row], v),
        ([[], row], v),
        ([tuple(row), row], v),
        ([[0.25, 3.0, 4.0], [1.0]], v),  # a short row: the primal's IndexError
        (tuple([row, row]), v),
        ([row, row], v),
        ([row, row], row),  # a row of M is v too
        ([], v),
    ]
    warm = adcompiler.differentiate(F.row_sums)
    warm.grad(M, v)
    warm.grad(M, v)
    assert "grad" in vars(warm)
    for args in others:
        fresh = adcompiler.differentiate(F.row_sums)
        assert _outcome(lambda: warm.grad(*args)) == _outcome(lambda: fresh.grad(*args)), args


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_method_taken_before_the_first_call_is_served_by_the_fast_entry(backend, monkeypatch):
    """``g = f.grad`` (JAX's habit: take the function, then call it in a loop) holds the method as it was
    before any call; after the first call its calls go to the fast entry too, not through the checks,
    binding and specialising each time (under Numba, 16 µs a call against 0.5)."""
    f = adcompiler.differentiate(F.clash, backend=backend)
    grad, value_and_grad, jvp, vjp = f.grad, f.value_and_grad, f.jvp, f.vjp
    first = grad(0.7, 1.3), value_and_grad(0.7, 1.3), jvp((0.7, 1.3), (1.0, 0.0)), vjp((0.7, 1.3), 1.0)
    for name in ("grad", "value_and_grad", "jvp", "vjp"):
        assert name in vars(f), name  # the fast entries were made

        def checks(*args, _name=name, **kwargs):
            raise AssertionError(f"{_name} went through the checking method")

        monkeypatch.setattr(type(f), f"_{name}", checks)
    again = grad(0.7, 1.3), value_and_grad(0.7, 1.3), jvp((0.7, 1.3), (1.0, 0.0)), vjp((0.7, 1.3), 1.0)
    assert again == first
    assert grad(-2.0, 0.25) == pytest.approx((3.0 * 0.25, 3.0 * -2.0 + 0.5 * math.cos(0.25)), rel=1e-12)


def _counting(monkeypatch, name):
    """Count the calls of the checking method ``Differentiable._<name>`` (entries made from now on hand
    it what they refuse)."""
    calls = []
    method = getattr(adcompiler.Differentiable, f"_{name}")

    def counted(*args, **kwargs):
        calls.append(1)
        return method(*args, **kwargs)

    monkeypatch.setattr(adcompiler.Differentiable, f"_{name}", counted)
    return calls


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_vjp_with_an_array_cotangent_is_served_by_the_fast_entry(backend, monkeypatch):
    """``f.vjp(primals, ct)`` of an array output: after the first call, calls with arrays of the same
    ndim and dtype (any length) run the generated code without the checking method (about 50 µs a
    call against 3); the cotangents are the analytic ones."""
    if backend == "numba":
        pytest.importorskip("numba")
    np = pytest.importorskip("numpy")
    calls = _counting(monkeypatch, "vjp")
    f = adcompiler.differentiate(F.wave, backend=backend)
    vjp = f.vjp  # (taken before the first call, as JAX users do)
    rng = np.random.default_rng(0)
    for n in (5, 5, 8, 1):
        x, y, ct = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
        value, (dx, dy) = vjp((x, y), ct)
        np.testing.assert_allclose(value, np.sin(x) * y, rtol=1e-14)
        np.testing.assert_allclose(dx, ct * np.cos(x) * y, rtol=1e-14)
        np.testing.assert_allclose(dy, ct * np.sin(x), rtol=1e-14)
    assert len(calls) == 1 and "vjp" in vars(f)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_cotangent_unlike_the_first_goes_to_the_checking_method(backend, monkeypatch):
    """A cotangent of the wrong shape (which NumPy would broadcast), of other ndim, of another dtype, or a
    number, in a vjp entry made for an array cotangent: the checking method answers, with the error it
    gives without an entry, or the cotangents it gives."""
    if backend == "numba":
        pytest.importorskip("numba")
    np = pytest.importorskip("numpy")
    x, y = np.linspace(0.1, 0.9, 5), np.linspace(1.0, 2.0, 5)
    calls = _counting(monkeypatch, "vjp")
    warm = adcompiler.differentiate(F.wave, backend=backend)
    warm.vjp((x, y), np.ones(5))
    for bad in (np.ones(3), np.ones(1), np.ones((5, 1)), np.ones((1, 5)), [1.0] * 5):
        fresh = adcompiler.differentiate(F.wave, backend=backend)
        assert _outcome(lambda: warm.vjp((x, y), bad)) == _outcome(lambda: fresh.vjp((x, y), bad)), bad
        assert "does not match the output" in _outcome(lambda: warm.vjp((x, y), bad))[1], bad
    for other in (np.full(5, 2.0, dtype=np.float32), 2.0):
        value, (dx, dy) = warm.vjp((x, y), other)
        np.testing.assert_allclose(dx, 2.0 * np.cos(x) * y, rtol=1e-6)
        np.testing.assert_allclose(dy, 2.0 * np.sin(x), rtol=1e-6)
    assert len(calls) == 1 + 5 * 3 + 2  # the first call, each wrong one twice (warm) and once (fresh), 2 others


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tuple_output_with_an_array_part_gets_a_vjp_entry(backend, monkeypatch):
    """A tuple output ``(array, number)``: its cotangent ``(array, float)`` is tested part by part, the
    array's shape against the output's after the call."""
    if backend == "numba":
        pytest.importorskip("numba")
    np = pytest.importorskip("numpy")
    calls = _counting(monkeypatch, "vjp")
    f = adcompiler.differentiate(F.wave_and_total, backend=backend)
    x, y = np.linspace(0.1, 0.9, 5), np.linspace(1.0, 2.0, 5)
    for c in (1.0, -0.5):
        (value, total), (dx, dy) = f.vjp((x, y), (np.full(5, c), 3.0))
        assert total == pytest.approx(np.sum(x * x), rel=1e-14)
        np.testing.assert_allclose(dx, c * np.cos(x) * y + 3.0 * 2 * x, rtol=1e-14)
        np.testing.assert_allclose(dy, c * np.sin(x), rtol=1e-14)
    assert len(calls) == 1
    fresh = adcompiler.differentiate(F.wave_and_total, backend=backend)
    bad = (np.ones(4), 1.0)
    assert _outcome(lambda: f.vjp((x, y), bad)) == _outcome(lambda: fresh.vjp((x, y), bad))
    assert "has shape (5,), but its cotangent has shape (4,)" in _outcome(lambda: f.vjp((x, y), bad))[1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_int_argument_not_differentiated_does_not_keep_grad_on_the_checking_method(backend, monkeypatch):
    """``f.grad(x, n)`` with ``n`` an int (a constant: GradBench ode's number of steps): later calls with
    other floats and ints run the fast entry, its ints tested by their type; other kinds still go to the
    checking method, which answers as without an entry."""
    if backend == "numba":
        pytest.importorskip("numba")
    calls = _counting(monkeypatch, "grad")
    f = adcompiler.differentiate(F.power, backend=backend)
    for x, n in [(0.5, 3), (0.7, 5), (-1.5, 0), (2.0, 2)]:
        assert f.grad(x, n) == pytest.approx((n + 1) * x**n, rel=1e-14)
    assert len(calls) == 1 and "grad" in vars(f)
    for args in [(0.7, True), (0.7, 2.0), (2, 3)]:
        fresh = adcompiler.differentiate(F.power, backend=backend)
        assert _outcome(lambda: f.grad(*args)) == _outcome(lambda: fresh.grad(*args)), args
    assert len(calls) == 1 + 2 * 3


def test_a_jvp_entry_tests_each_tangent_against_its_own_parameter(monkeypatch):
    """``f.jvp((2, x), (dx,))`` with ``a`` an int (a constant, its tangent left out): the one tangent is
    x's, tested as an array of x's shape (not as the float ``a``'s would be, which took a number for
    x's tangent and sent every array to the checking method)."""
    np = pytest.importorskip("numpy")
    calls = _counting(monkeypatch, "jvp")
    f = adcompiler.differentiate(F.weighted_sum)
    x = np.linspace(0.1, 1.0, 4)
    for a, dx in [(2, np.ones(4)), (3, x), (-1, np.zeros(4))]:
        assert f.jvp((a, x), (dx,)) == pytest.approx((a * np.sum(x * x), a * np.sum(2 * x * dx)), rel=1e-14)
    assert len(calls) == 1
    fresh = adcompiler.differentiate(F.weighted_sum)
    assert _outcome(lambda: f.jvp((2, x), (1.0,))) == _outcome(lambda: fresh.jvp((2, x), (1.0,)))
    assert "does not match its value" in _outcome(lambda: f.jvp((2, x), (1.0,)))[1]


def _dot_of_lists(w, x):
    s = 0.0
    for i in range(len(w)):
        s = s + w[i] * x[i]
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_of_numpy_floats_passes_the_quick_test(backend, monkeypatch):
    """``list(array)`` gives NumPy float64 scalars, which the signature describes as floats: the fast entry's
    quick test takes them (and lists mixing them with Python floats) as it takes floats, without
    describing the list's every element (under Numba 177 µs a call for ten, now 5.8), and the gradient
    is the one of the same list of floats."""
    np = pytest.importorskip("numpy")
    if backend == "numba":
        pytest.importorskip("numba")
    from adcompiler.analysis import values as V

    described = []
    original = V.describe
    monkeypatch.setattr(V, "describe", lambda value, *rest: described.append(value) or original(value, *rest))
    d = adcompiler.differentiate(_dot_of_lists, backend=backend)
    x = [1.0, 2.0, 3.0]
    first = d.grad([0.5, 0.25, 0.125], x)

    def checks(*args, **kwargs):
        raise AssertionError("grad went through the checking method")

    monkeypatch.setattr(type(d), "_grad", checks)
    for w in (list(np.array([0.5, 0.25, 0.125])), [np.float64(0.5), 0.25, np.float64(0.125)]):
        described.clear()
        got = d.grad(w, x)
        assert not [v for v in described if v is w], "the list was described"
        assert [list(map(float, g)) for g in got] == [list(map(float, f)) for f in first]
