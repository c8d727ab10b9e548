"""Reading list elements again in the adjoint sweep (and hoisting shared reads out of adjoint loops)
gives the same gradients as central finite differences, including when the primal reads a row only
on some paths: a zero-trip inner loop, a branch, a break, a continue."""

import copy
import random
import re

import numpy as np
import pytest

import adcompiler
from oracle import central_grad
from tests import reread_funcs as R


def _leaves(tree, path=()):
    """(path, value) for every float in a nested list."""
    if isinstance(tree, list):
        for i, x in enumerate(tree):
            yield from _leaves(x, path + (i,))
    elif isinstance(tree, float):
        yield path, tree


def _set(tree, path, value):
    for i in path[:-1]:
        tree = tree[i]
    tree[path[-1]] = value


def _get(tree, path):
    for i in path:
        tree = tree[i]
    return tree


def check_gradient_vs_fd(fn, args, wrt):
    """Every entry of f.grad (and of the reverse vjp) against a central difference."""
    f = adcompiler.differentiate(fn, wrt=wrt)
    grads = f.grad(*copy.deepcopy(args))
    grads = grads if isinstance(grads, tuple) else (grads,)
    names = list(fn.__code__.co_varnames[: fn.__code__.co_argcount])
    checked = 0
    for name, g in zip(wrt, grads):
        k = names.index(name)
        for path, x in _leaves(args[k]):
            h = 1e-6 * max(1.0, abs(x))
            plus, minus = copy.deepcopy(list(args)), copy.deepcopy(list(args))
            for point, value in ((plus, x + h), (minus, x - h)):
                if path:
                    _set(point[k], path, value)
                else:
                    point[k] = value
            fd = (fn(*plus) - fn(*minus)) / (2 * h)
            got = _get(g, path) if path else g
            assert got == pytest.approx(fd, rel=1e-5, abs=1e-7), (name, path)
            checked += 1
    value, vjp = f.vjp(copy.deepcopy(args), 1.0)
    assert value == pytest.approx(fn(*copy.deepcopy(args)))
    got, want = list(_leaves(vjp[0])), list(_leaves(grads[0]))
    assert [p for p, _ in got] == [p for p, _ in want]
    assert [x for _, x in got] == pytest.approx([x for _, x in want])
    assert checked > 0


def _matrix(rng, n, m):
    return [[rng.uniform(-1, 1) for _ in range(m)] for _ in range(n)]


def test_zero_trip_inner_loop_never_reads_a_missing_row():
    rng = random.Random(1)
    check_gradient_vs_fd(R.ragged_counts, (_matrix(rng, 2, 3), [0.3, -0.7, 1.1], [2, 1, 0, 0]), ("rows", "v"))


def test_row_read_under_a_branch_is_not_hoisted_out_of_it():
    rng = random.Random(2)
    check_gradient_vs_fd(R.guarded_rows, (_matrix(rng, 2, 4), [0.3, -0.7, 1.1, 0.4]), ("rows", "v"))


def test_loop_that_breaks_before_its_first_read():
    rng = random.Random(3)
    check_gradient_vs_fd(R.breaking_rows, (_matrix(rng, 3, 3), [0.3, -0.7, 1.1], 0), ("rows", "v"))
    check_gradient_vs_fd(R.breaking_rows, (_matrix(rng, 3, 3), [0.3, -0.7, 1.1], 2), ("rows", "v"))


def test_loop_that_continues_past_its_read():
    rng = random.Random(4)
    check_gradient_vs_fd(R.continuing_rows, (_matrix(rng, 3, 3), [0.3, -0.7, 1.1], 0.5), ("rows", "v"))


def test_three_nested_loops_share_rows():
    rng = random.Random(5)
    cube = [_matrix(rng, 2, 3), _matrix(rng, 3, 3)]
    check_gradient_vs_fd(R.nested_three, (cube, [0.3, -0.7, 1.1]), ("cube", "v"))


def test_layered_network_on_lists():
    rng = random.Random(6)
    layers = [[_matrix(rng, 4, 3), [rng.uniform(-1, 1) for _ in range(4)]], [_matrix(rng, 2, 4), [0.1, -0.2]]]
    check_gradient_vs_fd(R.layered, (layers, [0.5, -0.25, 0.75]), ("layers", "x"))


def test_shared_reads_are_hoisted_and_rows_are_not_taped():
    """The adjoint of sum_mat_vec tapes nothing: rows and len(v) are read again, row i once per i."""
    src = adcompiler.differentiate(R.ragged_counts, wrt=("rows", "v")).source("reverse")
    assert "tape" not in src.split("def ragged_counts_reverse")[1]


GROWING = [
    (R.recurrence, (0.7, 5)),
    (R.last_while_growing, (0.4, 4)),
    (R.read_then_pop, (0.3, 3)),
    (R.read_then_store, (0.6, 4)),
    (R.countdown_reads, (0.5, 4)),
    (R.swapped_lists, (0.8, 4)),
]


@pytest.mark.parametrize("fn, args", GROWING, ids=[f.__name__ for f, _ in GROWING])
def test_lists_that_only_grow(fn, args):
    """Elements of a list only ever appended to are read again where that is sound (a non-negative
    index, a list no later store or pop changes) and taped where it is not."""
    check_gradient_vs_fd(fn, args, ("x",))
    f = adcompiler.differentiate(fn, wrt="x")
    x, n = args
    assert f.jvp((x, n), (1.0,))[1] == pytest.approx(f.grad(x, n), rel=1e-12)


def test_rebound_list_read_in_a_while_loop():
    rng = random.Random(7)
    check_gradient_vs_fd(R.rebound_in_while, (_matrix(rng, 3, 3), [0.3, -0.7, 1.1]), ("rows", "x"))


def _loop_bodies(src: str, header: str) -> list:
    """The lines of every loop whose header line starts with ``header`` (after indentation)."""
    lines, bodies = src.splitlines(), []
    for k, line in enumerate(lines):
        if line.strip().startswith(header):
            indent = len(line) - len(line.lstrip())
            body = []
            for inner in lines[k + 1 :]:
                if inner.strip() and len(inner) - len(inner.lstrip()) <= indent:
                    break
                body.append(inner.strip())
            bodies.append(body)
    return bodies


def test_rebound_layer_input_is_taped_once_per_layer_not_per_element():
    """layered's adjoint reads h[j] again from the layer's input list (taped once per layer)."""
    src = adcompiler.differentiate(R.layered, wrt=("layers", "x")).source("reverse")
    primal_j, adjoint_j = _loop_bodies(src.split("def layered_reverse")[1], "for j in ")
    assert not any("tape" in line for line in primal_j)
    assert any(re.search(r"\bh_\d+\[j\]", line) for line in adjoint_j)  # the layer's input, popped once
    assert re.search(r"tape(_\d+)?\.append\(\(d_out, d_h, h\)\)", src)  # once per layer, on its own tape


def test_arithmetic_of_module_numbers_is_computed_again_not_taped():
    """1.0 / MASS and damping * 2.0 in the loop: the adjoint computes them again (once, before its
    loops); only what the loop overwrites is taped."""
    args = ([[0.3, -0.2], [1.1, 0.4]], 0.7)
    check_gradient_vs_fd(R.springs, args, ("state", "damping"))
    f = adcompiler.differentiate(R.springs)
    f.grad(*copy.deepcopy(args))
    text = f.source("grad")
    pushes = re.findall(r"tape\w*\.append\((.*)\)", text)
    assert len(pushes) == 2, text  # the inner loop's overwritten values each step, (v, x) per particle
    assert "1.0 / MASS" in text.split("reversed(")[0].split("if t1 > 0:")[-1], text  # computed before the loops
    assert all("MASS" not in p and "damping" not in p for p in pushes), pushes


CALLERS = [R.writes_after_a_call, R.pops_after_a_call, R.changes_a_layer_input_after_the_call]


@pytest.mark.parametrize("fn", CALLERS + [R.only_appends_after_a_call], ids=lambda f: f.__name__)
def test_callee_reads_survive_what_the_caller_does_to_the_list_afterwards(fn):
    """A split sweep's caller changes a list after the call and, needing no old value itself, does not
    undo it before the reverse sweep: the callee's adjoint must not read that list again (it did, and
    the gradient was silently wrong)."""
    check_gradient_vs_fd(fn, (0.7, 1.3), ("a", "w"))


def test_callee_of_a_program_that_only_appends_reads_its_lists_again():
    """Without in-place changes anywhere, the layer input is taped once per layer, not per element."""
    f = adcompiler.differentiate(R.only_appends_after_a_call)
    f.grad(0.7, 1.3)
    sweep = f.source("grad").split("def _layers_of_forward_sweep")[1].split("\ndef ")[0]
    lines = sweep.splitlines()
    start = next(k for k, line in enumerate(lines) if line.lstrip().startswith("for j in range("))
    indent = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for line in lines[start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    assert "h[j]" in "\n".join(body) and "append" not in "\n".join(body), sweep


def test_an_index_computed_from_the_loop_index_is_computed_again():
    """``w[i + 1]``, ``x[i - 1]``: the integer index is arithmetic of values the adjoint sweep knows, so it and the
    entry it reads are computed again there: the loop tapes only what it computes, ``np.sin(x[i + 1])`` (it taped
    each index and each entry read at one too)."""
    rng = np.random.default_rng(7)
    x, w = rng.normal(size=6), rng.normal(size=6)
    f = adcompiler.differentiate(R.neighbours)
    gx, gw = f.grad(x, w)
    np.testing.assert_allclose(gx, central_grad(R.neighbours, (x, w), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw, central_grad(R.neighbours, (x, w), 1), rtol=1e-6, atol=1e-8)
    pushes = re.findall(r"\.append\((.*)\)$", f.source("grad"), flags=re.M)
    assert pushes == ["np.sin(x[i + 1])"], pushes
