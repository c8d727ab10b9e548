"""Aliasing and mutation: the derivative is right, or adcompiler refuses with a located error.

A function may write into its list and array arguments, hold one list under
several names, share rows between lists of lists, pass aliases to helpers
that write into them, and overwrite elements in loops.  For each, the
derivatives (forward and reverse) must match central finite differences of
the primal taken on fresh copies of the arguments (the primal writes into
them), forward and reverse must agree (<u, J v> == <J^T u, v>), and the
value must be the primal's -- or adcompiler must raise UnsupportedSyntaxError
pointing into the function's file (see alias_oracle.py).

Hand-written cases live in aliasing_funcs.py; alias_gen.py writes a few
hundred random cases.  Known bugs are strict xfails naming the cause.
"""

from __future__ import annotations

import importlib.util
import inspect
import random

import numpy as np
import pytest

import adcompiler
import alias_gen
import aliasing_funcs as F
from alias_oracle import check_located_error, fresh, leaves, outcome

LIST_VALUES = {
    "y": -0.4,
    "xs": [0.3, -0.5, 1.1],
    "ys": [0.9, 0.2, -0.6],
    "a": [0.3, -0.5, 1.1, 0.2],
    "r": [0.6, -0.9],
    "rows": [[0.6, -0.9], [0.4, 1.3]],
}
ARRAY_VALUES = {"a": np.array([0.3, -0.5, 1.1, 0.2]), "A": np.array([[0.3, -0.5], [1.1, 0.2]])}


def args_for(fn, x=0.7):
    """Arguments by parameter name: lists for list functions, arrays for the array_* ones."""
    values = dict(LIST_VALUES, x=x)
    if fn.__name__.startswith("array"):
        values.update(ARRAY_VALUES)
    return fresh(tuple(values[p] for p in inspect.signature(fn).parameters))


def _bug(reason):
    return pytest.mark.xfail(strict=True, reason=reason)


# ---------------------------------------------------------------- hand-written cases that must be right

RIGHT = [
    "subscript_tuple_targets",  # ys[0], ys[1] = b * x, a: values read first, then stored left to right
    "list_param_write",
    "list_param_augassign",
    "list_param_append",
    "list_param_overwritten_in_loops",
    "list_param_negative_index_writes",
    "list_param_read_only",
    "list_param_copied_and_read",
    "list_param_elements_into_a_new_list",
    "list_param_scaled_into_a_new_list",
    "alias_write",
    "alias_write_then_read_both",
    "alias_augassign_element",
    "alias_loop",
    "alias_append",
    "alias_then_rebind",
    "alias_rebound_in_loop",
    "alias_chosen_by_branch",
    "alias_names_swapped",
    "copy_is_not_alias",
    "helper_writes_param",
    "helper_writes_alias",
    "helper_writes_twice",
    "helper_writes_shared_row",
    "helper_fills_local_list",
    "shared_rows",
    "shared_rows_of_param",
    "shared_row_alias",
    "shared_rows_from_comprehension",
    "shared_rows_appended",
    "rows_copied_not_shared",
    "rows_parameter_written",
    "shared_rows_in_tuple",
    "returns_written_param",
    "returns_two_aliases",
    "returns_shared_rows",
    "array_local_alias_write",
    "array_alias_slice_write",
    "array_full_slice_write",
    "array_alias_full_slice_write",
    "array_augassign_unaliased",
    "array_element_writes_in_loop",
    "overwritten_in_nested_loops",
]


@pytest.mark.parametrize("name", RIGHT)
def test_mutating_and_aliasing_function_has_the_finite_difference_derivative(name):
    """Both signs of x, so both arms of alias_chosen_by_branch are taken."""
    fn = getattr(F, name)
    df = adcompiler.differentiate(fn)
    assert [outcome(fn, args_for(fn, x), df=df) for x in (0.7, -0.6)] == ["ok", "ok"]


# ---------------------------------------------------------------- refusals: located, naming the construct

REFUSED = [
    ("rows_repeated_literal", "rows = [[x, y]] * 2", "repeating a list"),
    ("array_param_write", "a[0] = x", "array parameter"),
    ("array_param_slice_write", "a[1:] = x", "array parameter"),
    ("array_param_augassign", "    a += x", "array parameter"),
]


def line_of(fn, snippet):
    """The file line number of the first line of fn's module holding snippet."""
    lines, _ = inspect.findsource(fn)
    hits = [i + 1 for i, line in enumerate(lines) if snippet in line]
    assert hits, snippet
    return hits[0]


def _refusal(name):
    fn = getattr(F, name)
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as info:
        adcompiler.differentiate(fn).vjp(args_for(fn), 1.0)
    return fn, info.value


@pytest.mark.parametrize("name,snippet,words", REFUSED, ids=[r[0] for r in REFUSED])
def test_unsupported_mutation_is_refused_with_a_located_error(name, snippet, words):
    fn, err = _refusal(name)
    check_located_error(err, fn)
    assert words in err.construct and outcome(fn, args_for(fn)) == "refused", err.msg


@pytest.mark.parametrize("name,snippet,words", REFUSED, ids=[r[0] for r in REFUSED])
def test_refusal_points_at_the_offending_line_and_column(name, snippet, words):
    """The line holding the construct, and a column inside its code (not in the indentation)."""
    fn, err = _refusal(name)
    line = inspect.findsource(fn)[0][err.lineno - 1]
    indent = len(line) - len(line.lstrip())
    assert (err.lineno, err.offset > indent) == (line_of(fn, snippet), True), err.msg


# ---------------------------------------------------------------- known bugs: silently wrong or crashing


BUGS = [
    ("overwritten_in_nested_reversed_loop", None),  # fixed
    ("array_view_write", None),  # fixed: refused with a located error
    ("array_row_view_write", None),  # fixed: refused with a located error
    ("array_reshape_view_write", None),  # fixed: refused with a located error
    ("array_transpose_view_write", None),  # fixed: refused with a located error
    ("array_ravel_view_write", None),  # fixed: refused with a located error
    ("array_view_augassign", None),  # fixed: refused with a located error
    ("array_alias_augassign", None),  # fixed: refused with a located error
    ("array_alias_multiply_in_place", None),  # fixed: refused with a located error
    ("array_param_alias_augassign", None),  # fixed: refused with a located error
    ("array_in_list_written", None),  # fixed: refused with a located error
    ("array_in_list_alias_written", None),  # fixed: refused with a located error
    ("array_twice_in_list", None),  # fixed: refused with a located error
    ("array_of_floats", None),  # fixed: kept as a check
    ("rows_repeated_param", None),  # fixed
    ("rows_repeated_local", None),  # fixed
]


@pytest.mark.parametrize("name", [pytest.param(n, marks=_bug(r) if r else (), id=n) for n, r in BUGS])
def test_known_aliasing_bug(name):
    fn = getattr(F, name)
    assert outcome(fn, args_for(fn)) in ("ok", "refused")


def test_array_of_floats_has_the_analytic_gradient():
    """Reverse mode once dropped the cotangent of np.array([x, y]): sum(array([x, y]) ** 2) has gradient (2x, 2y), not (0, 0)."""
    got = adcompiler.differentiate(F.array_of_floats).grad(0.7, -0.4)
    assert tuple(map(float, got)) == pytest.approx((1.4, -0.8))


# ---------------------------------------------------------------- second derivatives of aliasing code


def fd_hessian(fn, x, h=1e-4):
    """Second-order central differences of the primal (fresh lists each call: nothing is shared)."""
    n = len(x)

    def at(i, si, j, sj):
        y = list(x)
        y[i] += si * h
        y[j] += sj * h
        return fn(*y)

    return [
        [(at(i, 1, j, 1) - at(i, 1, j, -1) - at(i, -1, j, 1) + at(i, -1, j, -1)) / (4 * h * h) for j in range(n)]
        for i in range(n)
    ]


@pytest.mark.parametrize(
    "name",
    [
        "shared_rows",
        "alias_rebound_in_loop",
        "alias_chosen_by_branch",
        "shared_rows_appended",
        "shared_rows_in_tuple",
        "overwritten_in_nested_loops",
        "helper_fills_local_list",
        "helper_writes_shared_row",
    ],
)
def test_hessian_of_aliasing_code_matches_second_differences(name):
    fn = getattr(F, name)
    for x in ((0.7, -0.4), (-0.6, 0.9)):
        got = np.asarray(adcompiler.hessian_matrix(fn)(*x))
        assert np.allclose(got, fd_hessian(fn, x), rtol=1e-4, atol=1e-5), (x, got)


# ---------------------------------------------------------------- lists that are not differentiated

WITH_LIST_PARAMS = [
    n for n in RIGHT if not n.startswith("array") and any(isinstance(a, list) for a in args_for(getattr(F, n)))
]


@pytest.mark.parametrize("name", WITH_LIST_PARAMS)
def test_differentiating_with_respect_to_x_only(name):
    """The list parameters are constants now; values written into them still depend on x."""
    fn = getattr(F, name)
    assert outcome(fn, args_for(fn), wrt=("x",)) == "ok"


def test_forward_mode_sees_x_written_into_a_list_that_is_not_differentiated():
    """xs[0] = x * xs[1]; return xs[0] * xs[2] + xs[1]: d/dx = xs[1] * xs[2], not 0."""
    xs = [0.3, -0.5, 1.1]
    _, tangent = adcompiler.differentiate(F.list_param_write, wrt=("x",)).jvp((0.7, list(xs)), (1.0,))
    assert tangent == pytest.approx(xs[1] * xs[2])


# ---------------------------------------------------------------- side effects on the caller's arguments

WRITERS = [
    "list_param_write",
    "list_param_augassign",
    "list_param_append",
    "list_param_overwritten_in_loops",
    "alias_write",
    "alias_append",
    "helper_writes_param",
    "rows_parameter_written",
]  # a += x on an array parameter is refused (see the located refusals above), like a[0] = x


@pytest.mark.parametrize("name", WRITERS)
def test_derivative_calls_change_the_arguments_as_the_primal_does(name):
    """jvp, vjp and grad run the primal: the caller's lists end up as the primal leaves them."""
    fn = getattr(F, name)
    df = adcompiler.differentiate(fn)
    after_primal = args_for(fn)
    fn(*after_primal)
    tangents = tuple(leaves_like(a) for a in args_for(fn))
    calls = {
        "jvp": lambda args: df.jvp(args, tangents),
        "vjp": lambda args: df.vjp(args, 1.0),
        "grad": lambda args: df.grad(*args),
    }
    for what, call in calls.items():
        args = args_for(fn)
        call(args)
        assert [leaves(a) for a in args] == [leaves(a) for a in after_primal], what


def leaves_like(value):
    """A tangent of ones shaped like value."""
    if isinstance(value, np.ndarray):
        return np.ones_like(value)
    if isinstance(value, list):
        return [leaves_like(v) for v in value]
    return 1.0


# ---------------------------------------------------------------- random programs

LIST_PROGRAMS, ARRAY_PROGRAMS, POINTS = 40, 25, 5
SEED = 20240917


def _load(tmp_path, stem, functions):
    path = tmp_path / f"{stem}.py"
    path.write_text(alias_gen.module(functions))
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _draw(rng, kind):
    x, y = rng.uniform(-1, 1), rng.uniform(-1, 1)
    if kind == "list":
        return (x, y, [rng.uniform(-1, 1) for _ in range(3)], [rng.uniform(-1, 1) for _ in range(3)])
    return (x, y, np.array([rng.uniform(-1, 1) for _ in range(4)]))


def _campaign(module, sources, kind, points, first_failure=False):
    """Check every function at `points` random points: (counts, failures with their source).

    With first_failure, stop at the first failing program (for the xfail runs of known bugs).
    """
    counts, failures = {"ok": 0, "skipped": 0, "refused": 0}, []
    for k, source in enumerate(sources):
        fn = getattr(module, f"f{k}")
        df = adcompiler.differentiate(fn)  # transformed once, checked at every point
        rng = random.Random(SEED + k)
        for _ in range(points):
            try:
                counts[outcome(fn, _draw(rng, kind), seed=k, df=df)] += 1
            except AssertionError as exc:
                failures.append(f"{exc}\n{source}")
                break
        if failures and first_failure:
            break
    return counts, failures


def test_random_list_aliasing_programs(tmp_path):
    """Aliases, copies, shared rows, helper writes, appends, swaps, loops: a few hundred cases."""
    sources = [alias_gen.list_function(random.Random(SEED + k), f"f{k}") for k in range(LIST_PROGRAMS)]
    counts, failures = _campaign(_load(tmp_path, "alias_lists", sources), sources, "list", POINTS)
    assert not failures, f"{len(failures)} failing programs:\n\n" + "\n\n".join(failures[:3])
    assert counts["ok"] >= 0.8 * LIST_PROGRAMS * POINTS, counts


def test_random_array_aliasing_programs(tmp_path):
    """Local arrays, aliases, element and slice writes, loops (without the ARRAY_BUGS features)."""
    sources = [alias_gen.array_function(random.Random(SEED + k), f"f{k}") for k in range(ARRAY_PROGRAMS)]
    counts, failures = _campaign(_load(tmp_path, "alias_arrays", sources), sources, "array", POINTS)
    assert not failures, f"{len(failures)} failing programs:\n\n" + "\n\n".join(failures[:3])
    assert counts["ok"] >= 0.8 * ARRAY_PROGRAMS * POINTS, counts


def test_random_list_aliasing_programs_with_respect_to_the_floats_only(tmp_path):
    """The random list programs again, differentiated with respect to x and y only (xs and ys constants)."""
    sources = [alias_gen.list_function(random.Random(SEED + k), f"f{k}") for k in range(LIST_PROGRAMS)]
    module = _load(tmp_path, "alias_lists_xy", sources)
    for k, source in enumerate(sources):
        args = _draw(random.Random(SEED + k), "list")
        assert outcome(getattr(module, f"f{k}"), args, wrt=("x", "y"), seed=k) in ("ok", "skipped"), source


FEATURE_BUGS = {
    "aug_alias": None,  # fixed: refused with a located error
    "view_write": None,  # fixed: refused with a located error
    "view_aug": None,  # fixed: refused with a located error
    "view_then_write": None,  # fixed: refused with a located error
    "array_of_floats": None,  # fixed: kept as a check
}


@pytest.mark.parametrize(
    "feature",
    [pytest.param(f, marks=_bug(FEATURE_BUGS[f]) if FEATURE_BUGS[f] else (), id=f) for f in alias_gen.ARRAY_BUGS],
)
def test_random_array_programs_with_a_known_bug_feature(tmp_path, feature):
    """The same generator with one ARRAY_BUGS feature switched on: fails while the bug is there."""
    sources = [alias_gen.array_function(random.Random(SEED + k), f"f{k}", (feature,)) for k in range(15)]
    counts, failures = _campaign(_load(tmp_path, f"alias_{feature}", sources), sources, "array", 2, True)
    assert not failures, f"{len(failures)} failing programs:\n\n" + "\n\n".join(failures[:2])


def test_a_helper_without_return_filling_a_list():
    """A helper that only fills a list it is given (it returns None) is differentiated through."""
    from adcompiler.testing.oracle import check_both_modes

    check_both_modes(F.helper_without_return, (1.5, [0.5, 2.0]))


def test_hessian_vector_products_of_random_array_programs(tmp_path):
    """Forward over reverse (jvp of grad) of the array programs, jointly in the floats and the array, against
    central differences of the gradient: the gradient's code clears and adds into adjoints in place, so each
    tangent of such an adjoint must be its own (it was the tangent of another cotangent: a write into a copy of
    a dropped a curvature of y)."""
    sources = [alias_gen.array_function(random.Random(SEED + k), f"f{k}") for k in range(ARRAY_PROGRAMS)]
    module = _load(tmp_path, "alias_hvp", sources)
    checked = 0
    for k, source in enumerate(sources):
        fn = getattr(module, f"f{k}")
        x, y, a = _draw(random.Random(SEED + k), "array")
        rng = np.random.default_rng(k)
        u, v, w = rng.standard_normal(), rng.standard_normal(), rng.standard_normal(4)
        grad = adcompiler.differentiate(fn).grad
        try:
            _, hv = adcompiler.jvp(grad, (x, y, a), (u, v, w))
        except adcompiler.errors.UnsupportedSyntaxError:
            continue  # (a refusal, located: the first-order checks cover it)
        h = 1e-5
        plus, minus = grad(x + h * u, y + h * v, a + h * w), grad(x - h * u, y - h * v, a - h * w)
        for got, p, m in zip(hv, plus, minus):
            np.testing.assert_allclose(
                got, (np.asarray(p) - np.asarray(m)) / (2 * h), rtol=1e-5, atol=1e-6, err_msg=source
            )
        checked += 1
    assert checked >= 0.8 * ARRAY_PROGRAMS
