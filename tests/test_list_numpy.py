"""NumPy functions applied to list parameters (issue 32, item 15): the list is the array NumPy makes of it.

The cross product of 20 NumPy functions, 3 modes (jvp, vjp, grad of the sum) and 3 list parameters (a
list of floats, a list of lists, a list read by NumPy and by index both): 180 cases, each against
central differences of the function itself, each cotangent a list (of lists) as its parameter is.  On
the code before the fix 53 of them raised from generated code (``2 * xs`` repeats a list,
``0.5 > xs`` compares a float with a list, ``xs ** 3``), and np.outer of a matrix had a vector's
adjoint (NumPy ravels its operands).
"""

import importlib
import itertools
import sys

import pytest

np = pytest.importorskip("numpy")

import adcompiler  # noqa: E402
from adcompiler.errors import UnsupportedSyntaxError  # noqa: E402
from adcompiler.testing.oracle import fd_jacobian, leaves, rebuild, structure_problem  # noqa: E402

FUNCTIONS = {
    "square": "np.square(xs)",
    "sin": "np.sin(xs)",
    "exp": "np.exp(xs)",
    "log": "np.log(xs)",
    "sqrt": "np.sqrt(xs)",
    "tanh": "np.tanh(xs)",
    "abs": "np.abs(xs)",
    "power": "np.power(xs, 3)",
    "dot": "np.dot(xs, xs)",
    "maximum": "np.maximum(xs, 0.5)",
    "minimum": "np.minimum(xs, 0.5)",
    "clip": "np.clip(xs, 0.5, 1.0)",
    "sum": "np.sum(xs)",
    "mean": "np.mean(xs)",
    "prod": "np.prod(xs)",
    "max": "np.max(xs)",
    "cumsum": "np.cumsum(xs)",
    "outer": "np.outer(xs, xs)",
    "norm": "np.linalg.norm(xs)",
    "where": "np.where(np.asarray(xs) > 0.5, xs, 0.0)",
}
FLAT = [0.3, 0.7, 1.2]  # away from every kink (0.5, 1.0) and inside every domain
ROWS = [[0.3, 0.7, 1.2], [0.9, 0.4, 1.1], [0.6, 1.3, 0.8]]  # square: np.dot(xs, xs) is a matrix product
KINDS = {"list": ("", FLAT), "rows": ("", ROWS), "mixed": ("_mixed", FLAT)}  # mixed: also read as xs[0]
MODES = ("jvp", "vjp", "grad")


def _source() -> str:
    """Four functions per NumPy function: as it is, summed (for grad), and times xs[0], summed or not."""
    lines = ["import numpy as np", ""]
    for name, call in FUNCTIONS.items():
        for suffix, body in (("", call), ("_mixed", f"{call} * xs[0]")):
            lines += [f"def {name}{suffix}(xs):", f"    return {body}", ""]
            lines += [f"def {name}{suffix}_sum(xs):", f"    return np.sum({body})", ""]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    folder = tmp_path_factory.mktemp("list_numpy")
    (folder / "list_numpy_made.py").write_text(_source())
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("list_numpy_made")
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("list_numpy_made", None)


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_numpy_function_of_a_list_parameter(module, name, mode, kind):
    _check(module, name, mode, kind, "python")


NUMBA_FAST = [("square", "grad", "rows"), ("dot", "vjp", "mixed")]


@pytest.mark.parametrize(
    "name, mode, kind",
    [
        pytest.param(*case, marks=() if case in NUMBA_FAST else (pytest.mark.slow,))
        for case in itertools.product(FUNCTIONS, MODES, KINDS)
    ],
)
def test_numpy_function_of_a_list_parameter_under_numba(module, name, mode, kind):
    """The same under backend="numba" (lists reach compiled code as arrays): a few cases by default, the
    whole cross product with --runslow (a compilation each); outside the target's subset is a refusal
    that names backend="python", never a wrong value."""
    pytest.importorskip("numba")
    try:
        _check(module, name, mode, kind, "numba")
    except UnsupportedSyntaxError as refusal:
        assert 'backend="python"' in str(refusal) and (name, mode, kind) not in NUMBA_FAST, refusal


def _check(module, name, mode, kind, backend):
    suffix, arg = KINDS[kind]
    f = getattr(module, name + suffix + ("_sum" if mode == "grad" else ""))
    J = fd_jacobian(f, [arg], [0])
    rng = np.random.default_rng(len(name))
    d = adcompiler.differentiate(f, backend=backend)
    if mode == "jvp":
        v = rng.uniform(-1, 1, J.shape[1])
        value, tangent = d.jvp((arg,), (rebuild(arg, iter(v)),))
        assert np.shape(tangent) == np.shape(f(arg))
        np.testing.assert_allclose(np.ravel(tangent), J @ v, rtol=1e-6, atol=1e-8)
        return
    if mode == "vjp":
        out = f(arg)
        u = rng.uniform(-1, 1, J.shape[0])
        value, (ct,) = d.vjp((arg,), rebuild(out, iter(u)) if np.ndim(out) else float(u[0]))
        np.testing.assert_allclose(value, out, rtol=1e-14)
    else:
        u, ct = np.ones(1), d.grad(arg)
    assert not structure_problem(ct, arg), structure_problem(ct, arg)  # a list (of lists), as the parameter
    np.testing.assert_allclose(leaves(ct), J.T @ u, rtol=1e-6, atol=1e-8)


def tuple_square(p):
    return np.sum(np.square(p) * p[1])


def array_times_list(a, xs):
    return np.sum(np.maximum(a * xs, 0.5) + np.power(xs, 2) * a)


@pytest.mark.parametrize(
    "f, args", [(tuple_square, ((0.3, 0.7, 1.2),)), (array_times_list, (np.array([1.0, 2.0, 3.0]), [0.3, 0.7, 1.2]))]
)
def test_tuples_and_lists_beside_arrays_in_both_modes(f, args):
    """A tuple NumPy reads is an array too (its cotangent a tuple); a list with an array operand as well."""
    from adcompiler.testing.oracle import check_both_modes

    check_both_modes(f, args)
