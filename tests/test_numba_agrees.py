"""The one place where backend="numba" is held to the python backend: a table of functions and arguments,
each row checked the same way, and each derivative compiled once per session (``shared.derivative``).

Rows come from the features that need the Numba target to do something of its own: loops with two versions
(tests/test_loop_versions.py), parameters rebound in loops (tests/rebound_funcs.py), arrays let go between
loops (tests/release_funcs.py), writes into local arrays and tangents broadcast to their output's shape
(tests/numba_funcs.py); then a fixed sample of the systematic rule cases (tests/systematic_cases.py: one
primitive per case, floats and 1-D float64 arrays) and of the control-flow regression functions
(tests/test_control_flow.py).  For each row, under backend="numba":

- the gradient (a vjp for a function whose value is not a number) has the python backend's structure, types,
  shapes and dtypes, and its values;
- it agrees with central differences of the primal (an oracle independent of both backends);
- the jvp agrees with the python backend's and with the gradient (<u, J v> == <J^T u, v>);
- where the row asks, the Hessian (forward over reverse, compiled) equals the python backend's.

A row marked slow runs with --runslow (a second shape or dtype of a path a default row covers, or a
path whose parts default rows cover), and so do three cases of every four of the rule sample and every
second case of the control-flow sample.  A sampled
case the target cannot compile must be refused with a located error naming the case's file and saying that
backend="python" handles it (then skipped); anything else, a Numba traceback included, fails.  The Numba
target's own behaviour (what it refuses, the code it writes, its entries) is in tests/test_numba.py and
tests/test_numba_hessian.py.  Skipped without Numba."""

import dataclasses
import zlib

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")

import adcompiler  # noqa: E402
import numba_funcs as NF  # noqa: E402
import callee_into_funcs as CI  # noqa: E402
import shape_kept_funcs as SK  # noqa: E402
from adcompiler.errors import UnsupportedSyntaxError  # noqa: E402
from adcompiler.testing.oracle import fd_jacobian, leaves, rebuild, structure_problem  # noqa: E402
from oracle import central_grad, check_grads  # noqa: E402
from shared import derivative  # noqa: E402
from systematic_cases import cases, module_for  # noqa: E402
from test_control_flow import CASES as CONTROL_FLOW  # noqa: E402
from tests import rebound_funcs as R  # noqa: E402  (as tests/test_rebound_params.py imports them)
from tests import test_loop_versions as LV  # noqa: E402
from tests.release_funcs import particles_np  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Row:
    """A function, its arguments (``shapes`` of random arrays of ``dtype``, or ``args`` as they are), the
    parameters differentiated, and whether the Hessian is compared too."""

    where: str
    fn: object
    shapes: tuple = ()
    args: tuple = ()
    dtype: type = np.float64
    wrt: tuple | None = None
    hessian: bool | str = False  # True, or "slow": compared under --runslow only
    slow: bool = False

    def arguments(self):
        if self.args:
            return self.args
        rng = np.random.default_rng(sum(map(sum, self.shapes)) + len(self.shapes))
        return tuple(np.asarray(rng.normal(size=s), dtype=self.dtype) for s in self.shapes)

    @property
    def id(self):
        shapes = "-".join("x".join(map(str, s)) or "0d" for s in self.shapes)
        return "-".join(filter(None, [self.where, self.fn.__name__, shapes, np.dtype(self.dtype).name]))


F32 = np.float32
ROWS = [
    # loops with two versions: the one without unbroadcast where every array keeps one shape
    Row("versions", LV.particles, [(4, 4)], hessian="slow"),  # the Hessian: one long compile
    Row("versions", LV.grows, [(5,), (5,)], slow=True),
    Row("versions", LV.grows, [(1,), (1,)], slow=True),
    Row("versions", LV.grows, [(1,), (5,)]),  # a (1,) array broadcast in the loop: the version that tapes
    Row("versions", LV.grows, [(3, 5), (5,)], slow=True),  # two ndims: the loop as it is
    Row("versions", LV.nested, [(2, 3), (2, 3)], slow=True),
    Row("versions", LV.alone, [(6,)]),
    Row("versions", LV.alone, [(1,)], slow=True),
    Row("versions", LV.negated, [(4,), (4,)], dtype=F32),
    Row("versions", LV.negated, [(2, 3), (2, 3)], slow=True),
    Row("versions", LV.no_steps, [(4,), (4,)]),
    # parameters rebound in loops and branches: the cotangent has the argument's shape
    Row("rebound", R.float_rebind, args=(0.7, 1.3)),
    Row("rebound", R.scalar_rebind_twice, args=(0.4, 0.9)),
    Row("rebound", R.loop_rebind, args=(np.array([0.5, 1.5, -1.0]), np.array([1.0, 2.0, -0.5]))),
    # arrays let go between loops (the Numba target writes no del)
    Row("release", particles_np, args=(np.random.default_rng(4).normal(size=(4, 4)), 50), wrt=("state",)),
    # writes into local arrays, at integers and slices (take_and_clear compiled)
    Row("writes", NF.written_elements, [(4,), (2,)], hessian=True),
    Row("writes", NF.written_rows, [(3, 4), (4,)], slow=True),
    # a tangent broadcast to its output's shape (it came back (1, 4) for a (2, 4) output until 2026-11-26)
    # (its reverse mode, x[None, :]'s adjoint, was refused until scatter_add took None in an index, 2026-11-28)
    Row("broadcast", NF.row_broadcast, args=(np.array([0.1, 0.2, 0.3, 0.4]), 0.6)),
    Row("broadcast", NF.zeros_plus, args=(np.array([0.1, 0.2, 0.3, 0.4]), 0.6)),
    # what GradBench's evals ask (issue 35): reductions along an axis, joins of tuples and of lists of arrays,
    # joins of lists of integers (all refused until 2026-11-28)
    Row("axes", NF.nearest, [(7, 3), (4, 3)], hessian="slow"),
    Row("axes", NF.along_kept, [(3, 4)], hessian="slow", slow=True),
    Row("joins", NF.right_hand, [(5,), (5,)]),
    Row("loops", NF.overwritten_in_a_branch, args=(np.array([0.3, -0.2, 0.5]), 0.7)),
    Row("joins", NF.gates, [(3,), (3,), (12,), (12,)], hessian="slow", slow=True),
    Row("joins", NF.stacked_list, [(4,), (4,)], hessian="slow", slow=True),
    Row("joins", NF.minors, [(3, 3)]),
    Row("joins", NF.summed_terms, [(2,), (3,)]),
    # a read at a boolean mask or an array of rows, numpy.inner, cumsum and flip along an axis, reductions kept:
    # outside the target until 2026-11-29 (the fuzzer's numpy programs, 15 of 20 outside it, seed 302)
    Row("indexing", NF.masked_reads, [(3,), (4, 3)], hessian="slow"),
    Row("products", NF.inner_products, [(3,), (4, 3), (3,)]),
    Row("products", NF.traces, [(3, 4), (4, 3)]),
    Row(
        "writes",
        NF.copied_arrays,
        args=(np.linspace(0.1, 0.9, 9).reshape(3, 3), np.array([0.3, -0.2, 0.5]), [0.1, 0.2, 0.3]),
        wrt=("A", "x"),
    ),
    Row("products", NF.vandermonde, args=(np.linspace(0.1, 1.0, 5), np.linspace(-1.0, 1.0, 5)), wrt=("x",)),
    Row("axes", NF.lines_and_kept_reductions, [(3, 4), (4,)], hessian="slow"),
    Row("axes", NF.squeezed_and_flipped, [(4, 3), (3,)]),
    Row("axes", NF.sums_of_products_along, [(3, 4), (4, 3), (3,)], hessian="slow"),
    Row("axes", NF.products_of_entries, args=(np.linspace(0.5, 1.6, 12).reshape(3, 4), np.array([0.5, 0.0, 2.0]))),
    Row(
        "products", NF.matmul_and_log_bases, args=(np.linspace(0.1, 1.2, 12).reshape(3, 4), np.linspace(-1, 1, 4), 0.7)
    ),
    # arrays the adjoint reads only for their shapes, kept as shape_like (tests/test_shape_kept.py; 2026-11-29)
    Row("shapes", SK.rk4_last, args=(np.linspace(0.2, 0.9, 6), 3), wrt=("x",)),
    # a caller's accumulator handed to a callee's reverse sweep, which adds into it in place (modes/handed.py;
    # 2026-11-29): a cell called in a loop, and one array handed as two parameters (only once)
    Row("handed", CI.run_cells, [(3, 3), (3,), (3,)]),
    # integer arrays a recursive helper writes into and puts back (GradBench det's reference links; 2026-12-03)
    Row("index", NF.det_by_links, [(4, 4)]),
    Row("handed", CI.same_twice, [(3, 2)]),
    Row(
        "shapes",
        SK.sum_rows,
        args=(np.linspace(-1, 1, 40).reshape(5, 8), np.linspace(0, 1, 8)[None], 2),
        wrt=("w", "b"),
    ),
]


def _tupled(value, n):
    return value if n > 1 else (value,)


def _same_as_python(got, want, args, positions, rtol, atol, what):
    """``got`` (Numba's) has ``want``'s (the python backend's) structure, types and values."""
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        problem = structure_problem(g, args[positions[k]], f"{what} {k}") if what == "cotangent" else ""
        assert not problem, problem
        assert np.shape(g) == np.shape(w) and isinstance(g, np.ndarray) == isinstance(w, np.ndarray), (what, g, w)
        if what == "cotangent":  # a float32 function's value and tangent are Python floats there (xfail below)
            assert isinstance(g, float) == isinstance(w, float), (what, g, w)
            assert np.result_type(g) == np.result_type(w), (what, np.result_type(g), np.result_type(w))
        np.testing.assert_allclose(leaves(g), leaves(w), rtol=rtol, atol=atol, err_msg=f"{what} {k}")


@pytest.mark.parametrize("row", [pytest.param(r, marks=[pytest.mark.slow] if r.slow else [], id=r.id) for r in ROWS])
def test_numba_agrees_with_the_python_backend(row):
    args, rng = row.arguments(), np.random.default_rng(zlib.crc32(row.id.encode()))  # the same in any order
    compiled, python = derivative(row.fn, row.wrt, "numba"), derivative(row.fn, row.wrt)
    positions = [python.params.index(w) for w in python.wrt]
    single = row.dtype == F32
    rtol, atol = (1e-5, 1e-6) if single else (1e-12, 1e-14)
    value = row.fn(*args)
    J = fd_jacobian(row.fn, args, positions)  # central differences of the primal
    u = rng.uniform(-1, 1, J.shape[0])
    if np.ndim(value) == 0:  # the gradient: its own compiled function, with the cotangent 1.0 folded in
        got = _tupled(compiled.grad(*args), len(positions))
        want = _tupled(python.grad(*args), len(positions))
        u = np.ones(1)
    else:
        ct = rebuild(value, iter(u))
        got, want = compiled.vjp(args, ct)[1], python.vjp(args, ct)[1]
    _same_as_python(got, want, args, positions, rtol, atol, "cotangent")
    flat = np.array([x for g in got for x in leaves(g)], dtype=float)
    np.testing.assert_allclose(flat, J.T @ u, rtol=1e-3 if single else 1e-6, atol=1e-4 if single else 1e-7)
    v = rng.uniform(-1, 1, J.shape[1])
    sizes = np.cumsum([0] + [len(leaves(args[i])) for i in positions])
    tangents = tuple(rebuild(args[i], iter(v[a:b])) for i, a, b in zip(positions, sizes, sizes[1:]))
    (got_value, tangent), (want_value, want_tangent) = compiled.jvp(args, tangents), python.jvp(args, tangents)
    _same_as_python((got_value, tangent), (want_value, want_tangent), args, positions, rtol, atol, "jvp")
    assert float(u @ np.ravel(tangent)) == pytest.approx(float(flat @ v), rel=1e-4 if single else 1e-10, abs=1e-12)


@pytest.mark.parametrize(
    "row",
    [pytest.param(r, marks=[pytest.mark.slow] if r.hessian == "slow" else [], id=r.id) for r in ROWS if r.hessian],
)
def test_numba_hessian_agrees_with_the_python_backend(row):
    """Forward mode over the reverse code, compiled: the python backend's Hessian, of the same shape and
    dtype, and central differences of the python backend's gradient."""
    args = row.arguments()
    compiled, python = derivative(row.fn, row.wrt, "numba"), derivative(row.fn, row.wrt)
    h, want = adcompiler.hessian_matrix(compiled)(*args), adcompiler.hessian_matrix(python)(*args)
    assert type(h) is np.ndarray and h.shape == want.shape and h.dtype == want.dtype == np.float64
    np.testing.assert_allclose(h, want, rtol=1e-10, atol=1e-13)
    positions = [python.params.index(w) for w in python.wrt]
    gradient = lambda *a: np.concatenate([np.ravel(g) for g in _tupled(python.grad(*a), len(positions))])  # noqa
    np.testing.assert_allclose(h, fd_jacobian(gradient, args, positions, h=1e-5), rtol=1e-5, atol=1e-6)


def test_the_jvp_of_a_float32_function_keeps_its_type():
    """The primal's value is a numpy.float32 (np.sum of float32 arrays), and so is the python backend's
    (Numba gave Python floats until the API boundary's float32 work of issue 32)."""
    x, w = np.ones(4, np.float32), np.full(4, 0.5, np.float32)
    value, tangent = derivative(LV.negated, None, "numba").jvp((x, w), (x, w))
    assert type(value) is type(LV.negated(x, w)) is np.float32 and type(tangent) is np.float32


# ---- a sample of the systematic rule cases and of the control-flow regressions ---------------------------


def _kind(case) -> str | None:
    """ "scalar" (Python floats), "array" (1-D float64 arrays among them), or None (outside the sample)."""
    values = case.args.values()
    if all(type(a) is float for a in values):
        return "scalar"
    if all(type(a) is float or type(a) is np.ndarray and a.dtype == np.float64 and a.ndim == 1 for a in values):
        return "array"
    return None


_ALL = [c for c in cases() if not c.slow]
SAMPLE = [c for c in _ALL if _kind(c) == "scalar"][::9] + [c for c in _ALL if _kind(c) == "array"][2::8]


def _compiled_or_skip(d, call, filename):
    """``call()``; a refusal checked to be located and to name the python backend, then skipped."""
    try:
        return call()
    except UnsupportedSyntaxError as e:
        assert e.filename == filename and 'backend="python"' in str(e), str(e)
        pytest.skip(f"outside the Numba target: {str(e).split(' under ')[0][-60:]}")


def _every(items, ids, step):
    """``items`` as parameters, all but every ``step``-th slow: the default run checks that share of a sample."""
    return [
        pytest.param(x, marks=[pytest.mark.slow] if k % step else [], id=i) for k, (x, i) in enumerate(zip(items, ids))
    ]


@pytest.mark.parametrize("case", _every(SAMPLE, [c.id for c in SAMPLE], 4))
def test_rule_case_against_python_backend_and_differences(case, tmp_path):
    module = module_for(case, str(tmp_path))
    args = tuple(case.args.values())
    d = adcompiler.differentiate(module.f, backend="numba")
    g = _compiled_or_skip(d, lambda: d.grad(*args), module.__file__)
    g = g if len(args) > 1 else (g,)
    expected = adcompiler.differentiate(module.f).grad(*args)
    expected = expected if len(args) > 1 else (expected,)
    for got, want in zip(g, expected, strict=True):
        assert np.shape(got) == np.shape(want) and isinstance(got, np.ndarray) == isinstance(want, np.ndarray)
        assert np.result_type(got) == np.result_type(want) and isinstance(got, float) == isinstance(want, float)
        np.testing.assert_allclose(leaves(got), leaves(want), rtol=1e-9, atol=1e-12)
    rng = np.random.default_rng(3)
    tangents = tuple(rng.uniform(-1, 1, np.shape(a)) if np.ndim(a) else float(rng.uniform(-1, 1)) for a in args)
    value, tangent = _compiled_or_skip(d, lambda: d.jvp(args, tangents), module.__file__)
    assert value == pytest.approx(module.f(*args), rel=1e-12, abs=1e-12)
    inner = sum(float(np.sum(np.multiply(a, b))) for a, b in zip(g, tangents))
    assert tangent == pytest.approx(inner, rel=1e-9, abs=1e-12)
    for k, got in enumerate(g):  # central differences
        np.testing.assert_allclose(leaves(got), leaves(central_grad(module.f, args, k)), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("case", _every(CONTROL_FLOW[::6], [c[0].__name__ for c in CONTROL_FLOW[::6]], 2))
def test_control_flow_regressions_against_differences(case):
    func, args, wrt = case
    d = adcompiler.differentiate(func, wrt=wrt, backend="numba")
    out = func(*args)
    ct = tuple(1.0 for _ in out) if isinstance(out, tuple) else 1.0
    _, cts = _compiled_or_skip(d, lambda: d.vjp(args, ct), func.__code__.co_filename)
    check_grads(d, args, wrt, original=func)  # central differences, both modes, forward against reverse
    assert cts == pytest.approx(adcompiler.differentiate(func, wrt=wrt).vjp(args, ct)[1], rel=1e-12, abs=1e-14)
