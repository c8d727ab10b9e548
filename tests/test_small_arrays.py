"""The reverse mode's small arrays (issues 35 and 36): one accumulator for the copies of a value, a reset
followed by a sum made one assignment where no array is changed in place, numbers read again from a
taped array instead of taped themselves; each against central differences, forward mode, and both
targets."""

import re

import numpy as np
import pytest

import adcompiler
import small_array_funcs as S

RNG = np.random.default_rng(3)
CASES = [
    (S.rotate, (RNG.normal(size=3), RNG.normal(size=3)), (0, 1)),
    (S.rotate, (np.zeros(3), RNG.normal(size=3)), (0, 1)),
    (S.pulled, (RNG.normal(size=2), RNG.normal(size=(3, 2)), RNG.normal(size=3)), (0, 1, 2)),
    (S.copies_in_a_loop, (RNG.normal(size=3), 5), (0,)),
    (S.scattered_then_reset, (RNG.normal(size=3), 4), (0,)),
    (S.written_entries, (RNG.normal(size=3) * 0.5, 3), (0,)),
]


def _central(fn, args, k, h=1e-6):
    x = np.array(args[k], dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        for sign in (1, -1):
            y = x.copy()
            y[i] += sign * h
            out = fn(*args[:k], y, *args[k + 1 :])
            g[i] += sign * np.sum(out) / (2 * h)
    return g


NUMBA_DEFAULT = (S.scattered_then_reset,)  # the others under Numba with --runslow


@pytest.mark.parametrize(
    "fn, args, wrt, backend",
    [
        pytest.param(*case, backend, id=f"{case[0].__name__}-{k}-{backend}", marks=[pytest.mark.slow] if slow else [])
        for k, case in enumerate(CASES)
        for backend, slow in (("python", False), ("numba", case[0] not in NUMBA_DEFAULT))
    ],
)
def test_gradients(fn, args, wrt, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    d = adcompiler.differentiate(fn, wrt=wrt, backend=backend)
    ones = np.ones_like(np.asarray(fn(*args), dtype=float))
    ct = ones if ones.ndim else 1.0
    value, cts = d.vjp(args, ct)
    for k, c in zip(wrt, cts):
        np.testing.assert_allclose(c, _central(fn, args, k), rtol=1e-6, atol=1e-7)
        assert np.shape(c) == np.shape(args[k])
    vs = tuple(RNG.normal(size=np.shape(args[k])) for k in wrt)
    _, tangent = d.jvp(args, vs)
    np.testing.assert_allclose(np.sum(tangent * ones), sum(np.sum(c * v) for c, v in zip(cts, vs)), rtol=1e-10)


def _reverse(fn, wrt, args, name):
    d = adcompiler.differentiate(fn, wrt=wrt)
    d.vjp(args, np.ones_like(np.asarray(fn(*args), dtype=float)))
    source = d.source("reverse")
    return source[source.index(f"def {name}") :]


def test_the_copies_of_a_value_share_one_accumulator():
    """X read in four places under the branch: one accumulator for X, not one per copy added up at the end."""
    body = _reverse(S.rotate, (0, 1), CASES[0][1], "rotate_reverse")
    sums = set(re.findall(r"(d_X\w*) = \1 \+ ", body))
    assert len(sums) == 1, body
    assert re.search(rf"\b{sums.pop()} \+ d_X", body) is None, body


def _reset_then_added(body: str) -> list:
    """The names ``d`` of ``d = 0.0`` followed, with no read of ``d``, loop or branch between, by ``d = d + e``."""
    found, reset, indent = [], set(), None
    for line in body.split("\n"):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        here = len(line) - len(line.lstrip())
        if here != indent or text.split()[0] in ("for", "if", "elif", "else:", "while"):
            reset, indent = set(), here
        added = re.match(r"(\w+) = (\w+) \+ ", text)
        if added and added.group(1) == added.group(2) and added.group(1) in reset:
            found.append(added.group(1))
        zero = re.match(r"(\w+) = 0\.0$", text)
        reset -= set(re.findall(r"\w+", text))
        if zero:
            reset.add(zero.group(1))
    return found


def test_a_reset_then_added_is_one_assignment():
    """force's and v's adjoints, reset in the adjoint loop and then the sum of one term: d = e, not 0.0 + e,
    though the function changes d_strengths in place (scatter_add)."""
    body = _reverse(S.pulled, (0, 1, 2), CASES[2][1], "pulled_reverse")
    assert "scatter_add(d_" in body
    assert _reset_then_added(body) == [], body


def test_numbers_read_from_a_taped_array_are_read_again():
    """d[0], d[1] read from d, which the inner loop tapes anyway: they are read again, not taped."""
    body = _reverse(S.pulled, (0, 1, 2), CASES[2][1], "pulled_reverse")
    pushes = re.findall(r"\.append\(\(([^)]*)\)\)", body)
    assert pushes and all(len(p.split(",")) <= 5 for p in pushes), body  # (10 before: t5 = d[0], ...)


def test_the_copies_of_a_number_keep_their_accumulators():
    """Sums into one number wait for each other; into one per copy they do not (monte_carlo's d_vol)."""
    body = _reverse(S.number_copies, (0,), (0.3, 4), "number_copies_reverse")
    targets = set(re.findall(r"(d_vol\w*) \+= ", body))
    assert len(targets) >= 2, body


def test_a_number_written_over_is_taped_as_it_is():
    """q[j] = ... and m[i % 2, j] = ...: the old number pushed as it is; m[0] = ...: the old row copied."""
    body = _reverse(S.written_entries, (0,), CASES[-1][1], "written_entries_reverse")
    pushed = re.findall(r"\.append\((.*)\)", body)
    assert "q[j]" in pushed and any(
        p.startswith("np.copy(m[0])") or p.startswith("numpy.copy(m[0])") for p in pushed
    ), body
    assert not any("copy(q[" in p for p in pushed), body
