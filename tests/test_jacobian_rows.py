"""adcompiler.jacobian in reverse mode through one generated function (modes.reverse.jacobian):
one primal sweep and one adjoint sweep per output number, the seed's zeros flowing nowhere.  Every
Jacobian is checked against autograd's and against adcompiler's forward-mode Jacobian."""

import math
import types

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import adcompiler
from adcompiler.compile import emit
from tests import jacobian_funcs as J

V3, Q4 = [1.0, -2.0, 0.5], [0.3, 0.4, -0.6, 0.7]
CASES = {
    "rotate": (J.rotate, (V3, Q4)),
    "rotate_tuples": (J.rotate, (tuple(V3), tuple(Q4))),
    "polar": (J.polar, (1.5, 0.3)),
    "looped": (J.looped, ([0.2, -0.7, 1.1], 0.9)),
    "with_helper": (J.with_helper, (0.4, -0.8)),
    "growing": (J.growing, ([0.2, -0.7, 1.1],)),
    "counted": (J.counted, ([0.2, -0.7, 1.1], 2)),
    "aliased": (J.rotate, (V3, V3 + [0.5])),
    "repeated_once": (J.repeated_once, (0.9,)),
    "listed_twice": (J.listed_twice, (0.9, -0.4)),
}


def _autograd_jacobian(fn, args, wrt):
    """Autograd's Jacobian of the flattened output with respect to the flattened ``wrt`` arguments."""
    fn = types.FunctionType(fn.__code__, {**fn.__globals__, "math": anp}, fn.__name__)
    flat = [np.atleast_1d(np.asarray(args[i], dtype=float)).ravel() for i in wrt]
    sizes = np.cumsum([0] + [len(f) for f in flat])

    def on_flat(z):
        new = list(args)
        for k, i in enumerate(wrt):
            part = z[sizes[k] : sizes[k + 1]]
            new[i] = part[0] if isinstance(args[i], float) else [part[j] for j in range(len(part))]
        out = fn(*new)
        return anp.array(list(out) if isinstance(out, (list, tuple)) else [out])

    return autograd.jacobian(on_flat)(np.concatenate(flat))


@pytest.mark.parametrize("name", CASES)
def test_reverse_jacobian_matches_autograd_and_forward(name):
    fn, args = CASES[name]
    wrt = tuple(i for i, a in enumerate(args) if not isinstance(a, int))
    jac = adcompiler.jacobian(fn, mode="reverse")
    first, again = jac(*args), jac(*args)  # the second call goes through the entry
    assert first.dtype == np.float64 and np.array_equal(first, again)
    np.testing.assert_allclose(first, _autograd_jacobian(fn, args, wrt), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(first, adcompiler.jacobian(fn, mode="forward")(*args), rtol=1e-12, atol=1e-14)


def test_other_arguments_after_the_entry_exists():
    jac = adcompiler.jacobian(J.rotate, mode="reverse")
    jac(V3, Q4)
    for args in [(V3[:2] + [4.0], Q4), (V3, Q4), (np.array(V3), Q4)]:  # a different list, an array
        want = adcompiler.jacobian(J.rotate, mode="forward")(*args)
        np.testing.assert_allclose(jac(*args), want, rtol=1e-12)


def _rows_source(fn, args):
    d = adcompiler.differentiate(fn)
    _, sig = d._bound(args)
    built = d.program.build(fn, "jacobian", d.wrt, sig)
    return emit.render_module(built, d.program.ns, lambda: d.program.helper_sources(built))


def _code_lines(text, function):
    """The lines of ``function`` in ``text`` without comments."""
    body = text[text.index(f"def {function}(") :]
    return [line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_straight_line_code_runs_its_primal_once():
    lines = _code_lines(_rows_source(J.rotate, (V3, Q4)), "rotate_jacobian")
    assert sum(line.startswith("a = 2.0 *") for line in lines) == 1, lines
    assert not any("* 1.0" in line or "1.0 *" in line or "0.0 *" in line or "* 0.0" in line for line in lines)


def test_taped_code_runs_both_sweeps_per_row():
    lines = _code_lines(_rows_source(J.looped, ([0.2, -0.7, 1.1], 0.9)), "looped_jacobian")
    assert sum(line.startswith("for i in range(") for line in lines) == 3, lines
    assert not any("* 1.0" in line for line in lines), lines


def test_rows_of_code_that_changes_its_parameters():
    """Each row's primal starts from the arguments, not from what the first row's primal left."""
    args = ([0.2, -0.7, 1.1], 0.9)
    np.testing.assert_allclose(
        adcompiler.jacobian(J.changes_params, mode="reverse")(*args),
        adcompiler.jacobian(J.changes_params, mode="forward")(*args),
        rtol=1e-12,
    )


def test_functions_that_change_their_list_argument():
    """Each pass runs from the arguments as given (a vjp per row, a jvp per direction), not from
    what the previous pass left in the list (fuzz seed 2521 program 27)."""
    xs = [0.622764, 1.060478]
    want = [[0.0, 1.0 - math.tanh(xs[1]) ** 2]]
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(adcompiler.jacobian(J.writes_into, mode=mode)(list(xs)), want, rtol=1e-12)
    H = adcompiler.hessian_matrix(J.writes_into)(list(xs))
    np.testing.assert_allclose(H, [[0.0, 0.0], [0.0, -2 * math.tanh(xs[1]) * (1 - math.tanh(xs[1]) ** 2)]], atol=1e-12)


def test_vjp_of_a_list_output_after_its_entry_exists():
    """f.vjp with a list cotangent gets a fast entry too: same answers as the checking path, other
    cotangents (a tuple, ints, a wrong length) handled as that path handles them."""
    d = adcompiler.differentiate(J.rotate)
    first = d.vjp((V3, Q4), [1.0, 0.0, 0.0])
    again = d.vjp((V3, Q4), [1.0, 0.0, 0.0])
    assert first == again
    rows = adcompiler.jacobian(J.rotate, mode="forward")(V3, Q4)
    for k, ct in enumerate([[0.0, 1.0, 0.0], (0.0, 0.0, 1.0), [0, 1, 0]]):
        _, (dv, dq) = d.vjp((V3, Q4), ct)
        want = rows[[1, 2, 1][k]]
        np.testing.assert_allclose(dv + dq, want, rtol=1e-12)
    with pytest.raises(ValueError):
        d.vjp((V3, Q4), [0.0, 1.0])
