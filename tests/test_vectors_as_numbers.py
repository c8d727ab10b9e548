"""Short vectors held as numbers under Numba (``lower.small_arrays``) where they are not rows: vector
arguments of two to four numbers (their length part of the signature), displays of numbers
(``np.array([0.0, 8.0])``), and vectors handed to helpers and to nested derivatives, whose lines are
written in the caller (``lower.inline_calls.inline_handed``).  Every program against the python target,
central differences, and forward against reverse; programs drawn at random (``_drawn``) too."""

import numpy as np
import pytest

import adcompiler
from adcompiler.testing.fuzz.check import load_module
from numbers_oracle import agree, refused_alike, renamed

pytest.importorskip("numba")


def _potential(x, w):
    return 1.0 / np.linalg.norm(x - np.array([10.0, 10.0 - w])) + 1.0 / np.linalg.norm(x - np.array([10.0, 0.0]))


def _euler(w, forward):
    """GradBench particle's loop: a display of numbers stepped by the force of a nested derivative."""
    x = np.array([0.0, 8.0])
    xdot = np.array([0.75, 0.0])
    for step in range(40):
        if forward:
            _, dx = adcompiler.jvp(_potential, (x, w), (np.array([1.0, 0.0]), 0.0))
            _, dy = adcompiler.jvp(_potential, (x, w), (np.array([0.0, 1.0]), 0.0))
            xddot = -np.array([dx, dy])
        else:
            xddot = -adcompiler.grad(_potential)(x, w)
        x = x + 0.1 * xdot
        xdot = xdot + 0.1 * xddot
    return x[0] * x[1] + np.sum(xdot)


@pytest.mark.parametrize("forward", [True, False])
def test_a_display_stepped_by_a_nested_derivative_is_numbers(forward):
    d = agree(_euler, (0.3, forward), ("w",))
    anf = d.source("anf").split("def _euler(")[1].split("\ndef ")[0]  # (the nested derivatives' code is in it)
    code = "\n".join(line for line in anf.splitlines() if not line.lstrip().startswith("#"))
    assert "np.array(" not in code and "norm" not in code and "math.hypot(" in code and "_potential" not in code, anf


def _inner(x, y):
    return (x[0] * x[0] + x[1] * x[1]) - (y[0] * y[0] + y[1] * y[1]) + x[0] * y[1]


def _ascent(x, start, forward):
    """GradBench saddle's inner loop: vector arguments, a vector state, a gradient of a nested function."""
    y = start
    for step in range(6):
        if forward:
            _, d0 = adcompiler.jvp(_inner, (x, y), (np.zeros(2), np.array([1.0, 0.0])))
            _, d1 = adcompiler.jvp(_inner, (x, y), (np.zeros(2), np.array([0.0, 1.0])))
            g = np.array([d0, d1])
        else:
            g = adcompiler.grad(_inner, argnums=1)(x, y)
        y = y + 0.1 * g
        if np.linalg.norm(g) < 1e-3:
            break
    return _inner(x, y)


@pytest.mark.parametrize("forward", [True, False])
def test_vector_arguments_and_a_nested_gradient_are_numbers(forward):
    x, start = np.array([0.4, -0.7]), np.array([0.2, 0.3])
    d = agree(_ascent, (x, start, forward), ("x", "start"))
    assert "check_rows(x, 2)" in d.source("anf") and "check_rows(start, 2)" in d.source("anf")


def _scaled(v, s):
    return np.sum(v * v) * s + v[0]


def test_vectors_of_another_length_get_code_of_their_own_and_compiled_code_refuses_them():
    d = adcompiler.differentiate(_scaled, backend="numba")
    for k in (2, 3, 4, 6):
        v = np.linspace(0.5, 1.5, k)
        np.testing.assert_allclose(d.grad(v, 0.7)[0], 2.0 * v * 0.7 + np.eye(k)[0], rtol=1e-13)
    reverse = d.compiled("reverse", np.array([0.5, 1.0]), 0.7)
    assert reverse(np.array([0.5, 1.0]), 0.7)[0] == pytest.approx(_scaled(np.array([0.5, 1.0]), 0.7), rel=1e-13)
    with pytest.raises(ValueError, match="another length"):
        reverse(np.array([0.5, 1.0, 2.0]), 0.7)  # (built for two numbers: the check refuses three)


def _looped(v, s):
    t = 0.0
    i = 0
    while i < len(v):  # (a while loop: called, not written in the caller)
        t = t + v[i] * s
        i += 1
    return t


def _handed_on(v, s):
    return _looped(v, s) + np.sum(v * v)


def test_a_vector_argument_handed_to_a_call_is_read_as_an_array():
    """A call handed the argument may change it: its numbers are not read first (``_may_change``)."""
    d = agree(_handed_on, (np.array([0.5, -1.0, 2.0]), 0.7), ("v", "s"), held=None)
    assert "check_rows" not in d.source("anf")


_VECTORS = (
    "a - b",
    "a * b * s",
    "np.sin(a) + b / (1.0 + s * s)",
    "np.exp(-a * a) * w - b",
    "(a + 0.5) ** 2 - np.tanh(b)",
    "np.maximum(a, b) * s",  # (kept: its derivative chooses by numpy.where)
    "help(a, w) * b",
)
_NUMBERS = ("np.sum(u * u)", "u[0] * u[-1]", "np.dot(u, a)", "np.linalg.norm(u - b)", "u[1] - u[0] * s")
_NUMBERS += ("np.mean(u * b)", "score(u, w)", "np.linalg.norm(u) * w")
_HELPERS = {  # a helper handed vectors: written in the caller, or (changing or returning what it is handed) called
    "help": (
        "def help(v, w):\n    return v * w + np.cos(v)\n",
        "def help(v, w):\n    t = np.zeros(len(v))\n    for j in range(len(v)):\n        t[j] = v[j] * w\n    return t + v\n",
        "def help(v, w):\n    return v\n",
    ),
    "score": (
        "def score(v, w):\n    return np.sum(v * v) * w\n",
        "def score(v, w):\n    return adcompiler.grad(lambda_free)(v, w)[0]\n",
        "def score(v, w):\n    _, t = adcompiler.jvp(lambda_free, (v, w), (np.ones(len(v)), 1.0))\n    return t\n",
    ),
}
_ESCAPES = ["", "", "total = total + u[k % 2]", "acc += u", "total = total + keep(u)"]
_ESCAPES += ["u2 = u\n        u *= 0.5\n        total = total + u2[0]"]  # (refused on both targets alike)


def _drawn(rng, k: int) -> str:
    """A loop stepping a display of ``k`` numbers (``acc``) with a vector argument ``p``, its vectors drawn from
    ``_VECTORS``, its numbers from ``_NUMBERS``, helpers from ``_HELPERS`` (nested derivatives among them), and
    sometimes a use that keeps an array or changes one in place."""
    first, second = (str(e) for e in rng.choice(_VECTORS, 2))
    number, other = (str(e) for e in rng.choice(_NUMBERS, 2))
    helpers = "\n\n".join(str(rng.choice(forms)) for forms in _HELPERS.values())
    escape = str(rng.choice(_ESCAPES))
    display = ", ".join(["0.5", "w", "-0.25", "1.5"][:k])
    return f"""import numpy as np
import adcompiler


def lambda_free(v, w):
    return np.sum(np.sin(v) * w) + v[0] * v[-1]


def keep(v):
    return float(v[0])


{helpers}


def f(p, w, s):
    total = 0.0
    acc = np.array([{display}])
    b = p * 0.5
    for k in range(3):
        a = acc + p
        u = {first}
        v = {renamed(second, 'b', 'u')}
        total = total + {number} + {renamed(other, 'u', 'v')}
        {escape or 'pass'}
        acc = acc * 0.5 + u * 0.1
    return total + np.sum(acc * acc) + acc[{k - 1}]
"""


@pytest.mark.parametrize("seed", range(12))
def test_drawn_vectors(seed, tmp_path):
    rng = np.random.default_rng(300 + seed)
    k = int(rng.integers(2, 5))
    source = _drawn(rng, k)
    module = load_module(source, str(tmp_path), f"drawn_vectors_{seed}")
    args = (rng.normal(size=k) * 0.5, 0.4 + 0.2 * rng.random(), 0.6)
    if refused_alike(module.f, args):  # (a change in place another name would see)
        return
    d = agree(module.f, args, ("p", "w", "s"), seed, held=None)
    assert d.grad(*args)[0].shape == (k,)  # (p's cotangent: k numbers, an array as p is)


def _averaged(v, w):
    return v * (w / len(v)) + np.mean(v)


def _of_its_length(w, s):
    x = np.array([0.5, w, -0.25])
    return np.sum(_averaged(x, s) * x) + len(x) * w


def test_the_length_of_a_vector_held_is_its_count():
    """len(v) of a vector held as numbers is the constant k: a helper that divides by it holds v too."""
    d = agree(_of_its_length, (0.7, 1.3), ("w", "s"))
    anf = d.source("anf").split("def _of_its_length(")[1].split("\ndef ")[0]
    assert "len(" not in "\n".join(line for line in anf.splitlines() if not line.lstrip().startswith("#")), anf
