"""Robustness: globals changed and helpers redefined after the first call, and derivatives
built from several threads at once.

Every derivative is checked against an oracle that does not use adcompiler: analytic derivatives
(or the single-threaded result, itself checked against them), and every value against the plain
function.
"""

import importlib.util
import math
import sys
import threading

import numpy as np
import pytest

import adcompiler

# ---- globals and helpers read when the derivative runs ---------------------------------------------

SCALE = 2.0
WEIGHTS = np.array([1.0, -2.0, 0.5])
INDEX = 1


def r_helper(v):
    return v * v


SQUARE = r_helper  # the first definition, kept


def r_helper_cubic(v):  # what a notebook cell redefining r_helper binds to the name
    return v * v * v


def r_scaled(x):
    return SCALE * r_helper(x) + math.sin(x)


def r_weighted(a):
    return np.sum(WEIGHTS * np.sin(a)) + a[INDEX] * a[INDEX]


def r_absolute(x):
    return abs(x) * x


def r_soft(v):  # what the module may later bind to the name abs
    return math.sqrt(v * v + 1.0)


def _scalar_oracle(x):
    """r_scaled's value and derivative by hand, for the module as it is now."""
    h = THIS.r_helper
    if h is SQUARE:
        return THIS.SCALE * x * x + math.sin(x), 2 * THIS.SCALE * x + math.cos(x)
    assert h is r_helper_cubic
    return THIS.SCALE * x**3 + math.sin(x), 3 * THIS.SCALE * x * x + math.cos(x)


def _check_scalar(d, x=0.7):
    value, slope = _scalar_oracle(x)
    for _ in range(2):  # the first call builds (and makes the fast entries), the second runs them
        assert r_scaled(x) == pytest.approx(value, rel=1e-14)
        assert d(x) == pytest.approx(value, rel=1e-14)
        assert d.grad(x) == pytest.approx(slope, rel=1e-13)
        assert d.value_and_grad(x) == pytest.approx((value, slope), rel=1e-13)
        got_value, got_tangent = d.jvp((x,), (1.0,))
        assert (got_value, got_tangent) == pytest.approx((value, slope), rel=1e-13)
        got_value, (got_ct,) = d.vjp((x,), 2.0)
        assert (got_value, got_ct) == pytest.approx((value, 2 * slope), rel=1e-13)


THIS = sys.modules[__name__]


def test_a_global_number_and_a_helper_are_read_when_the_derivative_runs(monkeypatch):
    d = adcompiler.differentiate(r_scaled)
    _check_scalar(d)
    monkeypatch.setattr(THIS, "SCALE", 5.0)  # a float changed
    _check_scalar(d)
    monkeypatch.setattr(THIS, "r_helper", r_helper_cubic)  # the helper redefined
    _check_scalar(d)
    monkeypatch.setattr(THIS, "SCALE", 3)  # an int now: another kind of number
    _check_scalar(d)
    monkeypatch.setattr(THIS, "SCALE", np.float64(-1.5))  # a NumPy number
    _check_scalar(d)
    monkeypatch.setattr(THIS, "r_helper", SQUARE)  # and back
    _check_scalar(d)


def test_a_redefined_helper_is_seen_by_derivatives_of_derivatives(monkeypatch):
    d = adcompiler.differentiate(r_scaled)
    second = adcompiler.differentiate(d.grad)
    hessian = adcompiler.hessian_matrix(d)
    x = 0.7
    assert second.grad(x) == pytest.approx(2 * SCALE - math.sin(x), rel=1e-13)
    assert hessian(x)[0, 0] == pytest.approx(2 * SCALE - math.sin(x), rel=1e-13)
    monkeypatch.setattr(THIS, "r_helper", r_helper_cubic)
    monkeypatch.setattr(THIS, "SCALE", 4.0)
    for _ in range(2):
        assert second.grad(x) == pytest.approx(6 * 4.0 * x - math.sin(x), rel=1e-13)
        assert second.jvp((x,), (1.0,))[1] == pytest.approx(6 * 4.0 * x - math.sin(x), rel=1e-13)
        assert hessian(x)[0, 0] == pytest.approx(6 * 4.0 * x - math.sin(x), rel=1e-13)


def _array_oracle(a):
    w, k = THIS.WEIGHTS, THIS.INDEX
    value = np.sum(w * np.sin(a)) + a[k] * a[k]
    grad = np.sum(w * np.cos(a), axis=tuple(range(np.ndim(w) - 1))) if np.ndim(w) > 1 else w * np.cos(a)
    grad = np.array(grad, dtype=float)
    grad[k] += 2 * a[k]
    return value, grad


def _check_array(d, a):
    value, grad = _array_oracle(a)
    for _ in range(2):
        assert r_weighted(a) == pytest.approx(value, rel=1e-14)
        np.testing.assert_allclose(d.grad(a), grad, rtol=1e-13)
        v, g = d.value_and_grad(a)
        assert v == pytest.approx(value, rel=1e-14)
        np.testing.assert_allclose(g, grad, rtol=1e-13)
        direction = np.array([0.3, -1.0, 2.0])
        v, t = d.jvp((a,), (direction,))
        assert v == pytest.approx(value, rel=1e-14)
        assert t == pytest.approx(grad @ direction, rel=1e-13)
        v, (ct,) = d.vjp((a,), 1.5)
        np.testing.assert_allclose(ct, 1.5 * grad, rtol=1e-13)


def test_a_global_array_and_a_global_index_are_read_when_the_derivative_runs(monkeypatch):
    d = adcompiler.differentiate(r_weighted)
    a = np.array([0.2, -0.4, 1.1])
    _check_array(d, a)
    monkeypatch.setattr(THIS, "WEIGHTS", np.array([3.0, 0.25, -1.0]))  # new values, same kind
    _check_array(d, a)
    monkeypatch.setattr(THIS, "INDEX", 2)  # an integer index
    _check_array(d, a)
    monkeypatch.setattr(THIS, "WEIGHTS", np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -4.0]]))  # now 2-D
    _check_array(d, a)
    monkeypatch.setattr(THIS, "WEIGHTS", 2.5)  # now a number
    _check_array(d, a)


def test_a_builtin_the_module_binds_later_is_the_one_differentiated(monkeypatch):
    d = adcompiler.differentiate(r_absolute)
    x = -0.6
    assert d.grad(x) == pytest.approx(-2 * x, rel=1e-14)  # |x| x = -x^2 for x < 0
    assert d.grad(x) == pytest.approx(-2 * x, rel=1e-14)
    monkeypatch.setattr(THIS, "abs", r_soft, raising=False)  # the module now has its own abs
    soft = math.sqrt(x * x + 1.0)
    for _ in range(2):
        assert d(x) == pytest.approx(soft * x, rel=1e-14)
        assert d.grad(x) == pytest.approx(soft + x * x / soft, rel=1e-13)
        assert d.jvp((x,), (1.0,))[1] == pytest.approx(soft + x * x / soft, rel=1e-13)


def test_generated_names_stay_out_of_the_users_module():
    before = dict(vars(THIS))
    for fn, args in ((r_scaled, (0.3,)), (r_weighted, (np.array([0.1, 0.2, 0.3]),))):
        d = adcompiler.differentiate(fn)
        for _ in range(2):
            d.grad(*args)
            d.jvp(args, tuple(np.ones_like(a) if isinstance(a, np.ndarray) else 1.0 for a in args))
            d.vjp(args, 1.0)
    assert vars(THIS).keys() == before.keys()
    assert all(vars(THIS)[k] is v for k, v in before.items())


# ---- what a helper returns, changed afterwards --------------------------------------------------------

# In a file of their own, so that adc compile writes their module too (the parameters are annotated:
# the written module has no call to learn their kinds from).
CALL_RESULTS = """
import math

import numpy as np

import adcompiler


def same(a):
    return a


def fresh_list():
    return [0.0, 0.0]


def ignores(c):
    return [0.0, 0.0 * 0.0]


def plus(a, c):
    return a + c


def tail(a):
    return a[1:]


def array_written(x: float, y: float) -> np.ndarray:
    u = same(np.zeros(2))
    u[1] = x
    u[0] = x * y
    return u


def list_written(x: float, y: float) -> float:
    u = same([0.0, 0.0])
    u[1] = x
    return u[0] + u[1] * y


def list_returned(x: float, y: float) -> list:
    u = same([0.0, 0.0])
    u[1] = x * math.sin(y)
    return u


def made_list(x: float, y: float) -> list:
    u = fresh_list()
    u[0] = x * y
    return u


def unvaried_list(x: float, y: float) -> float:
    u = ignores(x)
    u[1] = x * x + y
    return u[0] + u[1]


def added_into(x: float, y: float) -> np.ndarray:
    u = same(np.ones(2))
    u[0] += x * y
    return u * y


def aliased_tangent(x: float, y: float) -> np.ndarray:
    t = np.ones(2) * x
    u = plus(t, 1.0)
    u[1] = x * y
    return t + u


def dead_view(x: float, y: float) -> np.ndarray:
    u = tail(np.ones(3) * y)
    u[0] = x * y
    return u


def scaled(a):
    return a * 2.0


def scaled_jvp(a, da):
    return da * 2.0


def scaled_vjp(a, ct):
    return (ct * 2.0,)


adcompiler.defrule(scaled, jvp=scaled_jvp, vjp=scaled_vjp)


def ruled(x: float, y: float) -> np.ndarray:
    u = scaled(np.ones(2) * 0.5)
    u[1] = x * y
    return u
"""

WRITTEN = ["array_written", "list_written", "list_returned", "made_list", "unvaried_list"]
WRITTEN += ["added_into", "aliased_tangent", "dead_view", "ruled"]

# Where the result may be the same array as (or a view of) another that is still used, or a parameter:
# refused, with the location of the write.
REFUSED = """
import numpy as np

import adcompiler


def same(a):
    return a


def tail(a):
    return a[1:]


def first(rows):
    return rows[0]


W = np.array([1.0, 2.0])


def module_array():
    return W


def argument_used_later(x: float) -> np.ndarray:
    t = np.zeros(2)
    u = same(t)
    u[1] = x
    return t * 2.0


def view_of_live_array(x: float) -> np.ndarray:
    t = np.zeros(3)
    u = tail(t)
    u[0] = x
    return t


def argument_written_result_used(x: float) -> np.ndarray:
    t = np.zeros(2)
    u = same(t)
    t[0] = x
    return u


def parameter_returned(p: np.ndarray, x: float) -> np.ndarray:
    u = same(p)
    u[0] = x
    return u


def module_array_returned(x: float) -> np.ndarray:
    u = module_array()
    u[0] = x
    return u * 1.0


def element_of_a_list(x: float) -> np.ndarray:
    rows = [np.zeros(2)]
    u = first(rows)
    u[0] = x
    return rows[0]


def ruled(a):  # a function with rules is not read: its result may be its argument
    return a * 2.0


def ruled_jvp(a, da):
    return da * 2.0


def ruled_vjp(a, ct):
    return (ct * 2.0,)


adcompiler.defrule(ruled, jvp=ruled_jvp, vjp=ruled_vjp)


def rule_result_with_live_argument(x: float) -> np.ndarray:
    t = np.ones(2) * x
    u = ruled(t)
    u[1] = x
    return t
"""

REFUSED_WRITES = {  # function -> (the write refused, what the message names)
    "argument_used_later": ("u[1] = x", "which may be t or a view of it"),
    "view_of_live_array": ("u[0] = x", "which may be t or a view of it"),
    "argument_written_result_used": ("t[0] = x", "an array handed to same"),
    "parameter_returned": ("u[0] = x", "the array parameter p"),
    "module_array_returned": ("u[0] = x", "a module's array"),
    "element_of_a_list": ("u[0] = x", "the list rows holds"),
    "rule_result_with_live_argument": ("u[1] = x", "which may be t or a view of it"),
}


def _line_of(source: str, function: str, text: str) -> int:
    """The line of ``source`` holding ``text`` in ``function``'s body."""
    lines = source.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith(f"def {function}("))
    return next(k for k in range(start, len(lines)) if text in lines[k]) + 1


@pytest.fixture(scope="module")
def call_results(tmp_path_factory):
    """The module of CALL_RESULTS, and the module adc compile writes for it (run without adcompiler)."""
    from adcompiler.cli.main import compile_file

    path = tmp_path_factory.mktemp("call_results") / "call_results.py"
    path.write_text(CALL_RESULTS)
    spec = importlib.util.spec_from_file_location("call_results", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written: dict = {"__name__": "call_results_ad"}
    exec(compile(compile_file(str(path), WRITTEN), "call_results_ad.py", "exec"), written)
    assert "adcompiler" not in written
    return module, written


def _flat(value) -> np.ndarray:
    return np.array(value, dtype=float).ravel()


def _central(fn, args, direction, h=1e-6):
    plus = [a + h * d for a, d in zip(args, direction)]
    minus = [a - h * d for a, d in zip(args, direction)]
    return (_flat(fn(*plus)) - _flat(fn(*minus))) / (2 * h)


@pytest.mark.parametrize("name", WRITTEN)
def test_what_a_helper_returned_and_the_function_changes(call_results, name):
    """Forward mode against central differences, reverse mode against forward mode (the dot-product
    identity <u, J v> == <J^T u, v>), in the API and in the module adc compile writes."""
    module, written = call_results
    fn = getattr(module, name)
    d = adcompiler.differentiate(fn)
    rng = np.random.default_rng(len(name))
    for _ in range(3):
        args = [float(a) for a in rng.uniform(-1.5, 1.5, 2)]
        v = [float(t) for t in rng.uniform(-1.0, 1.0, 2)]
        value = fn(*args)
        u = rng.uniform(-1.0, 1.0, _flat(value).size)
        ct = u.tolist() if isinstance(value, list) else (float(u[0]) if np.ndim(value) == 0 else u)
        expected = _central(fn, args, v)
        for _ in range(2):  # built, then the fast entries
            got_value, tangent = d.jvp(args, v)
            np.testing.assert_allclose(_flat(got_value), _flat(value), rtol=1e-14)
            np.testing.assert_allclose(_flat(tangent), expected, rtol=1e-6, atol=1e-8)
            got_value, cts = d.vjp(args, ct)
            np.testing.assert_allclose(_flat(got_value), _flat(value), rtol=1e-14)
            assert float(np.dot(cts, v)) == pytest.approx(float(u @ _flat(tangent)), rel=1e-12, abs=1e-12)
        # the module adc compile writes, run without adcompiler
        got_value, tangent = written[f"{name}_forward"](*args, *v)
        np.testing.assert_allclose(_flat(got_value), _flat(value), rtol=1e-14)
        np.testing.assert_allclose(_flat(tangent), expected, rtol=1e-6, atol=1e-8)
        got_value, cts = written[f"{name}_reverse"](*args, ct)
        np.testing.assert_allclose(_flat(got_value), _flat(value), rtol=1e-14)
        assert float(np.dot(cts, v)) == pytest.approx(float(u @ _flat(tangent)), rel=1e-12, abs=1e-12)


REPORTED = """
import numpy as np


def h(a):
    return a


def hl(a):
    return a


def f(x: float) -> np.ndarray:
    u = h(np.zeros(2))
    u[1] = x
    return u


def g(x: float) -> float:
    u = hl([0.0, 0.0])
    u[1] = x
    return u[0] + u[1]


def g2(x: float) -> list:
    u = hl([0.0, 0.0])
    u[1] = x
    return u
"""


def test_the_cases_of_the_report(tmp_path):
    """h returns a constant array (or list) the function then writes x into: the tangent is [0, 1]
    (not [0, 0]) and the cotangent of x is the output cotangent's second entry, in both modes of the
    API and of the module adc compile writes."""
    from adcompiler.cli.main import compile_file

    path = tmp_path / "reported.py"
    path.write_text(REPORTED)
    spec = importlib.util.spec_from_file_location("reported", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written: dict = {}
    exec(compile(compile_file(str(path)), "reported_ad.py", "exec"), written)
    f, g, g2 = (adcompiler.differentiate(fn) for fn in (module.f, module.g, module.g2))
    for _ in range(2):
        for forward in (f.jvp, lambda p, t: written["f_forward"](*p, *t)):
            value, tangent = forward((2.0,), (1.0,))
            np.testing.assert_array_equal(value, [0.0, 2.0])
            np.testing.assert_array_equal(tangent, [0.0, 1.0])
        for reverse in (f.vjp, lambda p, c: written["f_reverse"](*p, c)):
            assert reverse((2.0,), np.array([0.5, 3.0]))[1] == (3.0,)
        assert g.jvp((2.0,), (1.0,)) == written["g_forward"](2.0, 1.0) == (2.0, 1.0)
        assert g.vjp((2.0,), 1.5) == written["g_reverse"](2.0, 1.5) == (2.0, (1.5,))
        assert g.grad(2.0) == 1.0
        assert g2.jvp((2.0,), (1.0,)) == written["g2_forward"](2.0, 1.0) == ([0.0, 2.0], [0.0, 1.0])
        assert g2.vjp((2.0,), [0.5, 3.0]) == written["g2_reverse"](2.0, [0.5, 3.0]) == ([0.0, 2.0], (3.0,))


@pytest.fixture(scope="module")
def refused(tmp_path_factory):
    path = tmp_path_factory.mktemp("refused") / "refused.py"
    path.write_text(REFUSED)
    spec = importlib.util.spec_from_file_location("refused_calls", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


@pytest.mark.parametrize("name", sorted(REFUSED_WRITES))
def test_a_helpers_result_that_may_be_another_live_array_is_refused_where_it_is_written(refused, name):
    from adcompiler.cli.main import compile_file

    module, path = refused
    write, says = REFUSED_WRITES[name]
    line = _line_of(REFUSED, name, write)
    fn = getattr(module, name)
    args = (np.array([0.5, 0.25]), 1.5) if name == "parameter_returned" else (1.5,)
    tangents = tuple(np.ones(2) if isinstance(a, np.ndarray) else 1.0 for a in args)
    for attempt in (
        lambda: adcompiler.differentiate(fn).jvp(args, tangents),
        lambda: adcompiler.differentiate(fn).vjp(args, np.ones(2)),
        lambda: compile_file(str(path), [name]),
    ):
        with pytest.raises(adcompiler.UnsupportedSyntaxError) as err:
            attempt()
        assert err.value.lineno == line and says in str(err.value), str(err.value)


# ---- threads ---------------------------------------------------------------------------------------


def t_scalar(x, y):
    return x * math.sin(y) + x * x


def t_other(x, y):
    return math.exp(x) * y - y * y


def t_list(xs):
    s = 0.0
    for v in xs:
        s = s + v * v * v
    return s


def t_helper(a):
    return np.sin(a) * a


def t_array(a, w):
    return np.sum(t_helper(a) * w)


THREAD_CASES = [  # (function, how to call its derivative, the analytic answer)
    (t_scalar, lambda d: d.grad(1.3, 0.4), (math.sin(0.4) + 2 * 1.3, 1.3 * math.cos(0.4))),
    (t_other, lambda d: d.grad(1.3, 0.4), (math.exp(1.3) * 0.4, math.exp(1.3) - 0.8)),
    (t_scalar, lambda d: d.jvp((1.3, 0.4), (1.0, 0.0))[1], math.sin(0.4) + 2 * 1.3),
    (t_other, lambda d: d.vjp((1.3, 0.4), 1.0)[1], (math.exp(1.3) * 0.4, math.exp(1.3) - 0.8)),
    (t_list, lambda d: d.grad([0.5, -1.0, 2.0]), [0.75, 3.0, 12.0]),
    (t_list, lambda d: d.jvp(([0.5, -1.0, 2.0],), ([1.0, 1.0, 1.0],))[1], 15.75),
    (
        t_array,
        lambda d: d.grad(np.array([0.3, -0.7]), np.array([2.0, 0.5]))[0],
        (np.cos([0.3, -0.7]) * [0.3, -0.7] + np.sin([0.3, -0.7])) * [2.0, 0.5],
    ),
    (
        t_array,
        lambda d: d.jvp((np.array([0.3, -0.7]), np.array([2.0, 0.5])), (np.ones(2), np.zeros(2)))[1],
        np.sum((np.cos([0.3, -0.7]) * [0.3, -0.7] + np.sin([0.3, -0.7])) * [2.0, 0.5]),
    ),
]


def _close(a, b) -> bool:
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=1e-12)


def _together(run, arguments) -> None:
    """``run(a)`` for each argument, each in a thread of its own, all started, then all joined."""
    threads = [threading.Thread(target=run, args=(a,)) for a in arguments]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_single_threaded_results_are_the_analytic_ones():
    for fn, call, expected in THREAD_CASES:
        assert _close(call(adcompiler.differentiate(fn)), expected), fn.__name__


def test_building_from_eight_threads_at_once():
    """Fresh Differentiables each round, their first calls made by eight threads released together
    (two functions of this module built at once, and each function by two threads), with the
    interpreter switching threads as often as it can: every result is the single-threaded one."""
    expected = [call(adcompiler.differentiate(fn)) for fn, call, _ in THREAD_CASES]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    failures = []
    try:
        for round_ in range(25):
            shared = {}  # one Differentiable per function this round, shared by the threads calling it
            for fn, _, _ in THREAD_CASES:
                shared.setdefault(fn, adcompiler.differentiate(fn))
            start = threading.Barrier(len(THREAD_CASES))

            def run(k):
                fn, call, _ = THREAD_CASES[k]
                start.wait()
                try:
                    got = call(shared[fn])
                except Exception as exc:  # noqa: BLE001  (reported with the round below)
                    failures.append((round_, fn.__name__, repr(exc)))
                    return
                if not _close(got, expected[k]):
                    failures.append((round_, fn.__name__, got, expected[k]))

            _together(run, range(len(THREAD_CASES)))
    finally:
        sys.setswitchinterval(old)
    assert not failures, failures[:5]


def test_two_functions_build_at_once_and_one_function_waits_for_its_own_build():
    """Each function builds under its own lock (``compile.building``): while one function's build holds
    it (a long Numba compilation, say), another function builds and runs in another thread; a call of
    the same function waits for it.  A derivative of generated code is of its owner's family (one lock)."""
    held, other = adcompiler.differentiate(t_scalar), adcompiler.differentiate(t_other)
    assert adcompiler.differentiate(held.grad)._building is held._building
    assert other._building is not held._building
    entered, release = threading.Event(), threading.Event()

    def hold():
        with held._building:
            entered.set()
            release.wait(60)

    holder = threading.Thread(target=hold)
    holder.start()
    assert entered.wait(30)
    waited: list = []
    same = threading.Thread(target=lambda: waited.append(held.grad(1.3, 0.4)))
    try:
        done: list = []
        worker = threading.Thread(target=lambda: done.append(other.vjp((1.3, 0.4), 1.0)[1]))
        worker.start()
        worker.join(60)
        assert done and _close(done[0], (math.exp(1.3) * 0.4, math.exp(1.3) - 0.8))
        same.start()
        same.join(0.3)
        assert not waited  # (its build waits for the holder)
    finally:
        release.set()
        holder.join()
    same.join(60)
    assert _close(waited[0], (math.sin(0.4) + 2 * 1.3, 1.3 * math.cos(0.4)))


def _deep_elif(x):
    if x < -3.0:
        y = x * x
    elif x < -2.0:
        y = math.sin(x)
    elif x < -1.0:
        y = math.exp(x) * x
    elif x < 0.0:
        y = x * x * x
    elif x < 1.0:
        y = math.cos(x) + x
    else:
        y = x / (1.0 + x * x)
    return y * x


def test_generated_code_from_eight_threads_is_the_single_threaded_code():
    """Fresh Differentiables of five functions, their code generated by eight threads released together
    (two functions at once, each by more than one thread), the interpreter switching threads as often
    as it can: every text is the one a single thread generates, and the recursion limit and the garbage
    collector are as they were afterwards (raised and paused while any build runs)."""
    import gc

    functions = [t_scalar, t_other, t_list, t_array, _deep_elif]
    calls = [(1.3, 0.4), (1.3, 0.4), ([0.5, -1.0],), (np.array([0.3, -0.7]), np.array([2.0, 0.5])), (0.5,)]

    def sources(d, args):
        d.grad(*args)
        return d.source("reverse"), d.source("forward")

    expected = [sources(adcompiler.differentiate(f), a) for f, a in zip(functions, calls)]
    limit, collecting = sys.getrecursionlimit(), gc.isenabled()
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    failures = []
    try:
        for round_ in range(6):
            made = [adcompiler.differentiate(f) for f in functions]
            start = threading.Barrier(8)

            def run(k):
                start.wait()
                i = k % len(functions)
                try:
                    got = sources(made[i], calls[i])
                except Exception as exc:  # noqa: BLE001  (reported with the round below)
                    failures.append((round_, k, repr(exc)))
                    return
                if got != expected[i]:
                    failures.append((round_, functions[i].__name__))

            _together(run, range(8))
    finally:
        sys.setswitchinterval(old)
    assert not failures, failures[:5]
    assert (sys.getrecursionlimit(), gc.isenabled()) == (limit, collecting)


def test_one_function_called_with_two_kinds_of_arguments_from_four_threads():
    """A list and a tuple of floats are two signatures (the cotangent of a tuple is a tuple): each
    thread gets the code for its own, never the code another thread's call chose."""

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    failures = []
    try:
        for _ in range(40):
            d = adcompiler.differentiate(t_list)
            start = threading.Barrier(4)

            def run(xs):
                start.wait()
                for _ in range(5):
                    try:
                        got = d.grad(xs)
                    except Exception as exc:  # noqa: BLE001  (reported below)
                        failures.append((xs, repr(exc)))
                        return
                    want = [3 * v * v for v in xs]
                    if type(got) is not type(xs) or not _close(list(got), want):
                        failures.append((xs, got))

            args = [[0.5, 1.0], (0.5, 1.0, 2.0), [2.0, 3.0, 4.0, 5.0], (1.0,)]
            _together(run, args)
    finally:
        sys.setswitchinterval(old)
    assert not failures, failures[:5]


def test_a_helper_redefined_while_eight_threads_differentiate(monkeypatch):
    """Threads calling f.grad and f.jvp (their fast entries, then the methods, then building again)
    while the helper is redefined back and forth: no call fails, and each gives the derivative of
    one of the two definitions, never a mixture or a half-built one."""
    d = adcompiler.differentiate(r_scaled)
    x = 0.7
    answers = {2 * SCALE * x + math.cos(x), 3 * SCALE * x * x + math.cos(x)}
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    failures, stop = [], threading.Event()

    def run(k):
        while not stop.is_set():
            try:
                got = d.grad(x) if k % 2 else d.jvp((x,), (1.0,))[1]
            except Exception as exc:  # noqa: BLE001  (reported below)
                failures.append(repr(exc))
                return
            if not any(got == pytest.approx(a, rel=1e-13) for a in answers):
                failures.append(got)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(8)]
    try:
        for t in threads:
            t.start()
        for k in range(40):
            monkeypatch.setattr(THIS, "r_helper", r_helper_cubic if k % 2 == 0 else SQUARE)
            stop.wait(0.005)
    finally:
        stop.set()
        for t in threads:
            t.join()
        sys.setswitchinterval(old)
    assert not failures, failures[:5]
    monkeypatch.setattr(THIS, "r_helper", r_helper_cubic)
    assert d.grad(x) == pytest.approx(3 * SCALE * x * x + math.cos(x), rel=1e-13)


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
