"""A full reduction's cotangent, a number, is not spread into an array where broadcasting spreads it
(``optimize.spread``): ``z * unreduce(g, z, None, False)`` is ``z * g``, and ``scatter_add(d, w, j,
unreduce(g, t, None, False))`` with ``t = w[j]`` is ``scatter_add(d, w, j, g)``; only for float64 arrays.

Oracles: central differences of the primal, the python target against the Numba target, forward mode
against reverse mode (``<u, J v> == <J^T u, v>``); the text of the generated code for what it no longer makes.
"""

import re

import numpy as np
import pytest

import adcompiler
from oracle import central_grad
from shared import BACKENDS


def mixture(alphas, means, log_scales, point):
    """One point's negative log-likelihood under a diagonal Gaussian mixture (GradBench's gmm, a row)."""
    k = means.shape[0]
    q = np.zeros(k)
    for j in range(k):
        z = (point - means[j]) * np.exp(-log_scales[j])
        q[j] = alphas[j] - np.sum(log_scales[j]) - 0.5 * np.sum(z * z)
    m = np.max(q)
    return -(m + np.log(np.sum(np.exp(q - m))))


def rows_summed(w, x):
    """Rows of w read and summed whole: the sums' cotangents added into the rows (straight-line code, where
    the read and the adjoint are in one block; a loop's adjoint reads its rows off the tape)."""
    return np.sum(w[0]) * x[0] + np.sum(w[2]) * x[1] + np.sum(w[1:3]) * x[2]


def sliced(w, c):
    """A slice of w summed, then scaled: the cotangent added into the slice."""
    part = w[1:3]
    return np.sum(part) * c + np.sum(np.sin(w) * w)


RNG = np.random.default_rng(7)
CASES = [
    (mixture, (RNG.normal(size=3), RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4)) * 0.3, RNG.normal(size=4))),
    (rows_summed, (RNG.normal(size=(4, 3)), RNG.normal(size=4))),
    (sliced, (RNG.normal(size=5), 0.7)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_against_differences_and_forward_mode(fn, args, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    d = adcompiler.differentiate(fn, backend=backend)
    got = d.grad(*args)
    got = got if isinstance(got, tuple) else (got,)
    for k, (g, a) in enumerate(zip(got, args)):
        assert np.shape(g) == np.shape(a) and np.asarray(g).dtype == np.asarray(a).dtype
        np.testing.assert_allclose(g, central_grad(fn, args, k), rtol=1e-6, atol=1e-7)
    tangents = tuple(RNG.normal(size=np.shape(a)) if np.ndim(a) else 0.3 for a in args)
    _, jv = d.jvp(args, tangents)
    assert jv == pytest.approx(sum(float(np.sum(g * t)) for g, t in zip(got, tangents)), rel=1e-10)


def test_the_numbers_are_not_spread_into_arrays():
    """mixture's gradient: z's and the rows' adjoints take the sums' cotangents as numbers (no unreduce of
    z, of a row, or of exp(q - m)); the reverse code (vjp) too."""
    args = CASES[0][1]
    d = adcompiler.differentiate(mixture)
    d.grad(*args)
    for stage in ("grad", "reverse"):
        text = d.source(stage)
        assert re.search(r"unreduce\([^\n]*, (z|t\d+|q), None, False\)", text) is None, text
        assert re.search(r"scatter_add\(d_log_scales\w*, log_scales, j, -d_t\d+\)", text), text


def test_a_row_read_before_its_sums_gets_them_as_numbers():
    d = adcompiler.differentiate(rows_summed)
    d.grad(*CASES[1][1])  # (the code for float64 arrays)
    text = d.source("grad")
    assert "unreduce" not in text[text.index("def rows_summed_grad") :], text
    assert len(re.findall(r"scatter_add\((d_w\w*|0\.0), w, (0|2|t\d+), t\d+\)", text)) == 3, text


def test_float32_arrays_keep_the_spread_array():
    """Where an operand is float32 the product's dtype would change (NumPy 2's float64 scalars): no rewrite."""
    args = tuple(np.asarray(a, dtype=np.float32) for a in CASES[1][1])
    d = adcompiler.differentiate(rows_summed)
    got = d.grad(*args)
    text = d.source("grad")
    assert "unreduce(" in text[text.index("def rows_summed_grad") :]
    assert all(g.dtype == np.float32 for g in got)
    np.testing.assert_allclose(got[0], central_grad(rows_summed, tuple(a.astype(float) for a in args), 0), rtol=1e-3)


# ---- generated programs ------------------------------------------------------------------------------------

_SUMMED = ("{r} * {r}", "np.sin({r}) * {r}", "np.exp({r} - c)", "{r}", "{r} * c + 1.0", "({r} - c) * np.cos({r})")


def _program(rng) -> str:
    """A function of w (4 x 3), x (3,) and c: rows and slices of w read, each summed whole after elementwise
    arithmetic, the sums combined; straight-line, or in a loop over w's rows."""
    lines, terms = [], []
    for k in range(rng.integers(2, 5)):
        index = rng.choice(["0", "1", "3", "1:3", "0:2", "2, 1:3"])
        lines.append(f"r{k} = w[{index}]")
        lines.append(f"s{k} = np.sum({rng.choice(_SUMMED).format(r=f'r{k}')})")
        terms.append(f"s{k} * x[{k % 3}]" if rng.random() < 0.6 else f"np.sin(s{k})")
    body = "".join(f"    {line}\n" for line in lines) + f"    total = {' + '.join(terms)}\n"
    if rng.random() < 0.4:
        summed = rng.choice(_SUMMED).format(r="row")
        body += f"    for j in range(w.shape[0]):\n        row = w[j]\n        total = total + np.sum({summed}) * x[j % 3]\n"
    return f"import numpy as np\n\n\ndef f(w, x, c):\n{body}    return total\n"


@pytest.mark.parametrize(
    "seed, backend",
    [(s, "python") for s in range(8)]  # (the rewrite is the IR's, the same for each target: Numba's
    + [pytest.param(s, b, marks=pytest.mark.slow) for s in range(8, 40) for b in ("python",)]  # compile of
    + [pytest.param(s, "numba", marks=pytest.mark.slow) for s in range(6)],  # it with --runslow)
)
def test_generated_sums_of_reads_against_differences_and_without_the_rewrite(seed, backend, tmp_path, monkeypatch):
    """Each gradient against central differences, and bit for bit the gradient made without optimize.spread."""
    if backend == "numba":
        pytest.importorskip("numba")
    from adcompiler.optimize import finish
    from adcompiler.testing.fuzz.check import load_module

    rng = np.random.default_rng(seed)
    module = load_module(_program(rng), str(tmp_path), f"spread{seed}")
    args = (rng.normal(size=(4, 3)), rng.normal(size=3), float(rng.normal()))
    got = adcompiler.differentiate(module.f, backend=backend).grad(*args)
    for k in range(3):
        np.testing.assert_allclose(got[k], central_grad(module.f, args, k), rtol=1e-6, atol=1e-6)
    monkeypatch.setattr(finish, "spread_numbers", lambda body, avals: body)
    module = load_module(_program(np.random.default_rng(seed)), str(tmp_path), f"spread{seed}_without")
    before = adcompiler.differentiate(module.f, backend=backend).grad(*args)
    assert all(np.asarray(a).tobytes() == np.asarray(b).tobytes() for a, b in zip(got, before))


@pytest.mark.parametrize("seed", range(4))
def test_generated_sums_under_any_array_library(seed, tmp_path):
    """arrays="any" (the array-API helpers, with NumPy's namespace): the rewritten scatter_add of a number and
    products with it give the NumPy code's gradient."""
    pytest.importorskip("array_api_compat", reason='arrays="any" needs the [arrays] extra')
    from adcompiler.testing.fuzz.check import load_module

    rng = np.random.default_rng(seed)
    module = load_module(_program(rng), str(tmp_path), f"spread_any{seed}")
    args = (rng.normal(size=(4, 3)), rng.normal(size=3), float(rng.normal()))
    got = adcompiler.differentiate(module.f, arrays="any").grad(*args)
    for g, e in zip(got, adcompiler.differentiate(module.f).grad(*args), strict=True):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-12, atol=1e-12)


def test_a_spread_read_twice_in_one_statement_keeps_its_binding():
    """``t10 = unreduce(ct, t1, None, False)`` read twice by one statement (forward mode over reverse code:
    ``g(t9 * t10, t10 * dt9)``, a value and its tangent): the one read the rule rewrites is not the last, so the
    binding stays (it went, and the other read was a NameError in generated code)."""
    from adcompiler.analysis import values as V
    from adcompiler.ir import expr as E
    from adcompiler.ir.nodes import Assign
    from adcompiler.optimize.spread import spread_numbers

    avals = {n: V.Arr(1, "float64") for n in ("t1", "t9", "dt9")}
    body = (
        Assign(("t9",), E.BinOp("*", E.Num(3), E.BinOp("**", E.Name("t1"), E.Num(2))), 1),
        Assign(("t10",), E.Call("@unreduce", (E.Name("ct"), E.Name("t1"), E.Num(None), E.Num(False))), 1),
        Assign(
            ("d",),
            E.Call("g", (E.BinOp("*", E.Name("t9"), E.Name("t10")), E.BinOp("*", E.Name("t10"), E.Name("dt9")))),
            1,
        ),
    )
    out = spread_numbers(body, avals)
    assert out[1] == body[1] and "t10" in repr(out[2])
