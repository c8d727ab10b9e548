"""``a, b = xs`` is checked as Python checks it: a list, tuple or array of another length raises the
primal's ValueError (with Python's message) from forward and reverse code, on the python and numba
backends; of the right length, the derivative is the oracle's."""

import numpy as np
import pytest

import adcompiler


def pair(xs):
    a, b = xs
    return a * b + 2.0 * a


def pair_of_rows(X):
    a, b = X
    return np.sum(a * b)


def loop_over_rows(X):
    s = 0.0
    for a, b in X:
        s = s + a * b
    return s


def comprehension_of_pairs(X):
    return sum([a * b for a, b in X])


def _primal_error(fn, arg) -> str:
    with pytest.raises(ValueError) as caught:
        fn(arg)
    return str(caught.value)


CONTAINERS = {
    "list": lambda n: [float(k + 1) for k in range(n)],
    "tuple": lambda n: tuple(float(k + 1) for k in range(n)),
    "array": lambda n: np.arange(1.0, n + 1.0),
}
ENTRIES = {
    "grad": lambda d, x: d.grad(x),
    "value_and_grad": lambda d, x: d.value_and_grad(x),
    "jvp": lambda d, x: d.jvp((x,), (x,)),
    "vjp": lambda d, x: d.vjp((x,), 1.0),
    "value": lambda d, x: d.value(x),
}


_PAIRS: dict = {}  # backend -> pair differentiated once (each test a new call of its entries)


def _pair(backend):
    if backend not in _PAIRS:
        _PAIRS[backend] = adcompiler.differentiate(pair, backend=backend)
    return _PAIRS[backend]


def _entries_and_backends():
    """Each entry on both backends; under Numba grad (reverse code) by default, and jvp, value_and_grad and
    vjp (each its own compiled function: half a second each) with --runslow."""
    return [
        pytest.param(e, b, marks=[pytest.mark.slow] if b == "numba" and e != "grad" else [])
        for e in sorted(ENTRIES)
        for b in ("python", "numba")
    ]


@pytest.mark.parametrize("entry, backend", _entries_and_backends())
@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("kind", sorted(CONTAINERS))
def test_wrong_length_raises_the_primals_error(kind, n, entry, backend):
    x = CONTAINERS[kind](n)
    message = _primal_error(pair, x)
    if kind == "tuple" and backend == "numba" and n < 2:  # Numba types a tuple's length: xs[1] of one is refused
        with pytest.raises(adcompiler.UnsupportedSyntaxError, match="a, b = xs` under backend=.numba"):
            ENTRIES[entry](_pair(backend), x)
        return
    with pytest.raises(ValueError) as caught:
        ENTRIES[entry](_pair(backend), x)
    assert str(caught.value) == message


@pytest.mark.parametrize("fn", [pair_of_rows, loop_over_rows, comprehension_of_pairs], ids=lambda f: f.__name__)
@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_rows_of_another_length_raise(fn, entry):
    X = np.ones((3, 3))
    message = _primal_error(fn, X)
    d = adcompiler.differentiate(fn)
    args = {"jvp": lambda: d.jvp((X,), (X,)), "vjp": lambda: d.vjp((X,), 1.0)}
    with pytest.raises(ValueError) as caught:
        args[entry]() if entry in args else getattr(d, entry)(X)
    assert str(caught.value) == message


@pytest.mark.parametrize("kind", sorted(CONTAINERS))
def test_the_right_length_is_differentiated(kind):
    x = CONTAINERS[kind](2)  # a * b + 2 a at (1, 2): (b + 2, a)
    assert [float(g) for g in adcompiler.differentiate(pair).grad(x)] == [2.0 + 2.0, 1.0]
    value, tangent = adcompiler.differentiate(pair).jvp((x,), (CONTAINERS[kind](2),))
    assert (value, tangent) == (4.0, 4.0 + 2.0)


def test_a_tuple_of_known_length_has_no_check():
    """The check Python makes is one the abstract value of a tuple argument already proves: not written."""
    d = adcompiler.differentiate(pair)
    d.grad((1.0, 2.0))
    assert "check_unpack" not in d.source("grad")
    d.grad([1.0, 2.0])  # a list's length is read when the code runs
    assert "check_unpack(xs, 2)" in d.source("grad")


def test_rows_of_the_right_length():
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert np.allclose(adcompiler.differentiate(loop_over_rows).grad(X), X[:, ::-1])
    assert np.allclose(adcompiler.differentiate(pair_of_rows).grad(X), X[::-1])
