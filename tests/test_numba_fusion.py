"""Elementwise work fused under backend="numba": a join whose pieces are elementwise arithmetic of float64
vectors is written as loops storing into the joined array (targets/numba/joined_loops.py), and a chain of
elementwise lines the adjoint needs only the shapes of stays one statement (modes.shape_kept, backend._folded).
Each gradient against the python target and central differences; the code that says where it is written so
(and where not); seeded random programs of such joins.  Skipped without Numba."""

import importlib.util
import re

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")

import adcompiler  # noqa: E402
import numba_fusion_funcs as F  # noqa: E402
from oracle import central_grad  # noqa: E402
from shared import derivative  # noqa: E402

RNG = np.random.default_rng(1207)

CASES = [
    (F.rk4_last, (RNG.random(40), 3), ("x",)),
    (F.rk4_last, (RNG.random(1), 2), ("x",)),  # one element: the product's pieces are empty
    (F.pieces, (RNG.normal(size=5), RNG.normal(size=5), RNG.normal(size=3)), ("a", "b", "c")),
    (F.pieces_tuple_names, (RNG.normal(size=4), RNG.normal(size=4), 1.5), ("a", "b", "s")),
    (F.broadcast_piece, (RNG.normal(size=4), RNG.normal(size=6)), ("x", "y")),
    (F.written_after, (RNG.normal(size=5), RNG.normal(size=5)), ("a", "b")),
    (F.taped_and_used, (RNG.normal(size=6), RNG.normal(size=6), 3), ("a", "b")),
    (F.reads_its_target, (RNG.normal(size=5), 3), ("y",)),
    (F.integers_joined, (RNG.normal(size=4), np.arange(3)), ("x",)),
    (F.matrix_rows, (RNG.normal(size=(2, 3)), RNG.normal(size=3)), ("m", "v")),
    (F.divided, (RNG.normal(size=4), RNG.normal(size=4)), ("a",)),
    (F.stage_kept, (RNG.normal(size=5), RNG.normal(size=5), RNG.normal(size=5), 0.3, 2), ("y", "k", "x", "h")),
    (F.stage_kept, (RNG.normal(size=1), RNG.normal(size=5), RNG.normal(size=5), 0.3, 2), ("y", "k", "x", "h")),
    (F.stage_unsliced, (RNG.normal(size=4), RNG.normal(size=4), RNG.normal(size=4), 0.3, 2), ("y", "k", "x", "h")),
]


def _ids(case):
    return f"{case[0].__name__}-{len(np.atleast_1d(case[1][0]))}"


def _check(fn, args, wrt):
    """The Numba gradient against the python target's and central differences, each wrt parameter."""
    names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    got = derivative(fn, wrt, "numba").grad(*args)
    want = derivative(fn, wrt, "python").grad(*args)
    got, want = (g if len(wrt) > 1 else (g,) for g in (got, want))
    for name, g, w in zip(wrt, got, want):
        k = names.index(name)
        assert np.shape(g) == np.shape(args[k]) and np.allclose(g, w, rtol=1e-12, atol=1e-13), (name, g, w)
        assert np.allclose(g, central_grad(fn, args, k), rtol=1e-5, atol=1e-7), name
    value = derivative(fn, wrt, "numba").value(*args)
    assert np.isclose(value, fn(*args), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_gradients(case):
    _check(*case)


def _code(fn, args, wrt, stage="reverse"):
    d = derivative(fn, wrt, "numba")
    d.grad(*args)
    return str(d.source(stage))


def test_ode_stages_are_loops():
    """Each stage of rk4 is stored into its joined array by loops, the join as it was only where the product's
    vectors differ in length; from the second on, the stage's argument (y + h / 2 * k1, sliced, kept for the
    adjoint) is computed in the same loop, element by element, and stored as it is read; the update of the
    state is computed in the loops of k4's join: the sums of the stages the adjoint reads only for their shapes are
    kept as the shapes of the stages."""
    code = _code(*CASES[0])
    assert re.search(r"\n( +)if len\(t6_1\) == count\d*:\n\1    k1 = np\.empty\(len\(t2_1\) \+ count", code), code
    assert re.search(r"k1\[at\d* \+ k\d*\] = t4_1\[k\d*\] \* t6_1\[k\d*\]\n", code), code
    for k, (a, b) in zip((2, 3, 4), (("h / 2", "k1"), ("h / 2", "k2"), ("h", "k3"))):
        cut = rf"{b}_cut\d*"
        head = rf"( +)if len\({b}\) == len\(y_2\) and len\(y_2_cut\d*\) == (count\d*):\n"
        if k == 4:  # (and the update's vectors as long as the join: below)
            head = rf"( +)if \(\n +len\({b}\) == len\(y_2\)\n +and len\(y_2_cut\d*\) == (count\d*)\n[^:]*\):\n"
        assert re.search(
            head + rf"\1    t6_{k} = np\.empty\(\2\)\n\1    k{k} = np\.empty\(len\(t2_{k}\) \+ \2\)", code
        ), code
        element = rf"( +)(t6_{k}_k\d*) = y_2_cut\d*\[(k\d*)\] \+ {a} \* {cut}\[\3\]\n"
        stored = rf"\1k{k}\[at\d* \+ \3\] = t4_{k}\[\3\] \* \2\n"
        if k == 4:  # (the piece's element a number the update reads)
            stored = rf"\1(k4_k\d*) = t4_4\[\3\] \* \2\n\1k4\[at\d* \+ \3\] = \4\n"
        assert re.search(element + rf"\1t6_{k}\[\3\] = \2\n" + stored, code), code
        assert f"t6_{k} = (y_2 + {a} * {b})[t5_{k}]\n" in code  # (the else)
        assert f"k{k} = np.concatenate([t2_{k}, t4_{k} * t6_{k}], axis=0)" in code
    # the update of the state computed in the loops of k4's join, where k4's elements are stored (joined_loops'
    # line after a join), its vectors tested against the join's length; as it was in the else
    assert re.search(r"\n( +)y = np\.empty\((whole\d*)\)\n", code) and re.search(r"len\(k1\) == whole\d*", code), code
    assert re.search(r"y\[(at\d* \+ k\d*)\] = y_2\[\1\] \+ h / 6 \* \(\s*k1\[\1\] \+ 2 \* k2\[\1\]", code), code
    assert "y = y_2 + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)\n" in code, code
    assert "shape_like(k1, k2, k3, k4)" in code


def test_stage_kept_and_its_lengths():
    """stage_kept: the argument's vectors of one length and its cut of the product's (the else where y is one
    element, NumPy's broadcasting, or of another length, NumPy's error, as the python target's)."""
    code = _code(*CASES[11])
    assert re.search(r"if len\(k_2\) == len\(y\) and len\(y_cut\d*\) == count\d*:", code), code
    value = derivative(F.stage_kept, ("y", "k", "x", "h"), "numba").value
    y, k, x = RNG.normal(size=3), RNG.normal(size=4), RNG.normal(size=3)
    with pytest.raises(ValueError):
        F.stage_kept(y, k, x, 0.3, 2)
    with pytest.raises(ValueError):
        value(y, k, x, 0.3, 2)
    code = _code(*CASES[13])
    assert re.search(r"\n( +)t_k\d* = y\[(k\d*)\] - h \* k_2\[\2\]\n\1t\[\2\] = t_k\d*\n", code), code


def test_numbers_and_pieces():
    """pieces: every vector an arithmetic piece reads tested against the first one's length, numbers read as
    they are, the four pieces stored one after the other."""
    code = _code(*CASES[2])
    loops = re.findall(r"\n +for (k\d*) in range\(([^)]*\)?)\):\n +z\[([^\]]*)\] = (.*)", code)
    assert len(loops) == 4, code
    assert loops[1][3] == f"-c[{loops[1][0]}]" and loops[3][3] == f"0.5 * c[{loops[3][0]}]", loops
    assert loops[2][3] == f"t10[{loops[2][0]}]"  # (a / t9, t9 read by the adjoint: a name of its own)


def test_division_by_zero_as_numpy():
    """An element divided by zero is NumPy's infinity or NaN in the loops, as in the join they replace (scalar
    division in compiled code would raise ZeroDivisionError); the code divides by numpy.divide."""
    code = _code(*CASES[10])
    assert re.search(r"= np\.divide\(a\[k\d*\], b\[k\d*\]\)\n", code), code
    value = derivative(F.divided, ("a",), "numba").value
    a, b = np.array([1.0, -1.0, 0.0, 0.0]), np.array([1.0, 0.0, 2.0, 0.0])  # (-inf, 0 / 0: NaN)
    assert np.isnan(value(a, b))
    a, b = np.ones(3), np.array([0.0, 1.0, 1.0])
    with np.errstate(divide="ignore"):
        want = F.divided(a, b)
    assert np.isinf(want) and value(a, b) == want


def test_hstack_of_vectors():
    """numpy.hstack of vectors is their concatenation: written so too."""
    code = _code(*CASES[3])
    assert "= np.hstack(" in code and re.search(r"\n( +)if len\(b\) == count\d*:\n\1    t\d+ = np\.empty\(", code), code


def test_pieces_of_two_lengths():
    """reads_its_target: each arithmetic piece has a length of its own (y[1:] and y[:1]), no test needed."""
    code = _code(*CASES[7])
    assert re.search(r"count = len\(t2\)\n +count2 = len\(t5\)\n +y_1_1 = np\.empty\(count \+ count2\)", code), code
    assert "= np.concatenate([" not in code


@pytest.mark.parametrize("case", [CASES[8], CASES[9]], ids=["integers", "matrices"])
def test_left_as_joins(case):
    """A join of integers or of matrices is left as it was."""
    code = _code(*case)
    assert "= np.concatenate([" in code and "np.empty(" not in code, code


def test_forward_mode_and_hessian():
    """The loops in forward mode (the primal lines of a jvp), and a Hessian (forward over the reverse code,
    whose primal lines have them too) against the python target's."""
    x = RNG.random(6)
    dn, dp = derivative(F.rk4_last, ("x",), "numba"), derivative(F.rk4_last, ("x",), "python")
    t = RNG.normal(size=6)
    (vn, jn), (vp, jp) = dn.jvp((x, 2), (t,)), dp.jvp((x, 2), (t,))
    assert np.isclose(vn, vp) and np.allclose(jn, jp, rtol=1e-12, atol=1e-13)
    f = lambda a, b, c: F.pieces(a, b, c)  # noqa: E731
    args = (RNG.normal(size=4), RNG.normal(size=4), RNG.normal(size=2))
    hn = adcompiler.hessian(adcompiler.differentiate(F.pieces, wrt=("a",), backend="numba"))(*args)
    hp = adcompiler.hessian(adcompiler.differentiate(F.pieces, wrt=("a",)))(*args)
    assert np.allclose(hn, hp, rtol=1e-10, atol=1e-12) and f(*args) == F.pieces(*args)


# ---- seeded random programs: joins of elementwise chains ---------------------------------------------


def _program(rng, k: int) -> str:
    """A function of vectors a, b (length n) and a number s: in a loop, a few lines of elementwise arithmetic
    (some names read twice, kept for the adjoint), a line of arithmetic, sliced or not, read by a piece of a
    join and again after it, and the join's other pieces: names, and arithmetic of them and of their slices."""

    def expr(names, depth):
        return F.random_expr(rng, names, depth, 0.3)

    lines, names = [], ["a", "b"]
    for i in range(rng.integers(1, 4)):
        lines.append(f"u{i} = {expr(names, 2)} + a")
        names.append(f"u{i}")
    cut = int(rng.integers(1, 3))
    if rng.random() < 0.5:  # a stage's argument, sliced, kept and joined as a product (computed in the loop)
        lines.append(f"v = ({expr(names, 2)} + b)[{cut}:]")
        pieces = [f"{rng.choice(names)}[:-{cut}] * v - s"]
    else:
        lines.append(f"v = {expr(names, 2)} - b")
        pieces = [f"v * {rng.choice(names)}"]
    for _ in range(rng.integers(1, 3)):
        kind = rng.integers(0, 3)
        if kind == 0:
            pieces.append(rng.choice(names))
        elif kind == 1:
            pieces.append(f"{rng.choice(names)}[{cut}:] * {rng.choice(names)}[:-{cut}] - s")
        else:
            pieces.append(f"{expr(names, 2)} * {rng.choice(names)}")
    lines.append(f"z = np.concatenate(({', '.join(pieces)},))")
    lines.append(f"total = total + np.sum(z * z) + np.sum(z[:{cut}]) * {names[-1]}[0] + np.sum(v * v)")
    body = "\n".join("        " + line for line in lines)
    return (
        f"def prog{k}(a, b, s, n):\n    total = 0.0\n    for _ in range(n):\n{body}\n"
        f"        a = a + 0.25 * np.tanh(z[: len(a)])\n    return total + np.sum(a * a)\n"
    )


@pytest.mark.parametrize("seed", range(4))
def test_random_joins(seed, tmp_path):
    rng = np.random.default_rng(4000 + seed)
    source = "import numpy as np\n\n\n" + "\n\n".join(_program(rng, k) for k in range(3))
    path = tmp_path / f"fusion_random_{seed}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"fusion_random_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    n = int(rng.integers(4, 7))
    args = (rng.normal(size=n), rng.normal(size=n), 0.7, 2)
    for k in range(3):
        fn = getattr(module, f"prog{k}")
        got = adcompiler.differentiate(fn, wrt=("a", "b", "s"), backend="numba").grad(*args)
        want = adcompiler.differentiate(fn, wrt=("a", "b", "s")).grad(*args)
        for g, w, i in zip(got, want, range(3)):
            assert np.allclose(g, w, rtol=1e-10, atol=1e-12), (source, k, i)
            assert np.allclose(g, central_grad(fn, args, i), rtol=1e-4, atol=1e-6), (source, k, i)


def test_an_element_divided_by_zero_in_a_loop_is_numpys_infinity():
    """``s += x[i] / c`` with c = 0.0: the primal (NumPy's numbers) gives inf; compiled code divided raising
    ZeroDivisionError in the value, the jvp and the vjp (Numba's error model was Python's; NumPy's now)."""
    d = derivative(F.element_quotients, ("x", "c"), "numba")
    x = np.ones(3)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = F.element_quotients(x, 0.0)
        assert np.isinf(want) and d.value(x, 0.0) == want
        value, tangent = d.jvp((x, 0.0), (x, 1.0))
        assert value == want and np.isnan(tangent)
        value, (dx, dc) = d.vjp((x, 0.0), 1.0)
        assert value == want and np.all(np.isinf(dx)) and dc == -np.inf
        x = np.array([1.0, 2.0, 3.0])  # (and the numbers where no divisor is zero)
        assert d.vjp((x, 0.5), 1.0)[1][0] == pytest.approx([2.0, 2.0, 2.0])
