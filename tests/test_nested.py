"""Nested AD (issue 35): a derivative called inside a function that is differentiated again, in all
four mode pairs (forward over forward, forward over reverse, reverse over forward, reverse over
reverse), checked against autograd's nested derivatives, central differences and analytic values;
GradBench's particle and saddle objectives (benchmarks/gradbench/evals) likewise."""

import pathlib
import sys

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import adcompiler
import nested_funcs as N
from shared import derivative
from adcompiler.errors import UnsupportedSyntaxError

EVALS = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "gradbench" / "evals"


def outer(f, mode, *args):
    """The derivative of f by its first argument (a number), by the outer mode."""
    if mode == "reverse":
        return adcompiler.grad(f)(*args)
    return adcompiler.jvp(f, args, (1.0,) + (0.0,) * (len(args) - 1))[1]


# the inner mode is in the function's name; the outer mode is each test's parameter
CLASSIC = [
    (N.classic_add_reverse, lambda x: 1.0),  # confused: 2
    (N.classic_add_forward, lambda x: 1.0),
    (N.classic_mul_reverse, lambda x: 2.0 * x),  # x * x; confused: 3 x
    (N.classic_mul_forward, lambda x: 2.0 * x),
    (N.classic_module_name, lambda x: 2.0 * x),
    (N.classic_differentiable, lambda x: 2.0 * x + 1.0),  # x * x + x
    (N.classic_differentiable_jvp, lambda x: 2.0 * x),
    (N.classic_value_and_grad, lambda x: 4.0 * x),  # 2 x * x
    (N.closure_add_lambda, lambda x: 1.0),  # the inner function a lambda reading x: confused, 2
    (N.closure_mul_def, lambda x: 2.0 * x),
    (N.closure_named_lambda, lambda x: 2.0 * x),
    (N.closure_value_and_grad, lambda x: 3.0 * x * x + 4.0 * x),
    (N.closure_in_loop, lambda x: 12.0 * x),
]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f, want", CLASSIC, ids=[f.__name__ for f, _ in CLASSIC])
def test_classic_perturbation_confusion(f, want, mode):
    for x in (1.0, -0.7):
        assert outer(f, mode, x) == pytest.approx(want(x), rel=1e-12)


def test_classic_against_autograd():
    """autograd's nested grad gives the same classic values (its own answer, not ours)."""
    ag = autograd.grad(lambda x: x * autograd.grad(lambda y: x + y)(1.0))(1.0)
    assert ag == pytest.approx(1.0)
    assert adcompiler.grad(N.classic_add_reverse)(1.0) == pytest.approx(ag)
    ag = autograd.grad(lambda x: x * autograd.grad(lambda y: x * y)(2.0))(1.5)
    assert adcompiler.grad(N.classic_mul_reverse)(1.5) == pytest.approx(ag)


def _energy(x, w):
    return anp.sum(anp.sin(x) * x[0]) + w * anp.sum(x * x) ** 2


def _grad_norm_reverse(x, w):
    g = autograd.grad(_energy)(x, w)
    return anp.sum(g * g) + w * g[1]


def _grad_norm_both(x, w):
    gx = autograd.grad(_energy, 0)(x, w)
    gw = autograd.grad(_energy, 1)(x, w)
    return anp.sum(gx * gx) * gw


def _directional_forward(x, w):
    g = autograd.grad(_energy)(x, w)
    return g[0] * g[0] + anp.sin(g[1]) * w


def _curvature(x, w):
    v = np.array([1.0, -2.0, 0.5])
    return anp.sum(v * (autograd.jacobian(autograd.grad(_energy))(x, w) @ v))


ARRAYS = [
    (N.curvature_forward_over_reverse, _curvature),  # third order: the outer mode over jvp over grad
    (N.grad_norm_reverse, _grad_norm_reverse),
    (N.grad_norm_both, _grad_norm_both),
    (N.directional_forward, _directional_forward),
]


@pytest.mark.parametrize("f, oracle", ARRAYS, ids=[f.__name__ for f, _ in ARRAYS])
def test_arrays_all_mode_pairs_against_autograd(f, oracle):
    x, w = np.array([0.3, -1.2, 0.8]), 0.4
    assert f(x, w) == pytest.approx(oracle(x, w), rel=1e-12)
    want_x, want_w = autograd.grad(oracle, 0)(x, w), autograd.grad(oracle, 1)(x, w)
    d = adcompiler.differentiate(f)
    gx, gw = d.grad(x, w)  # reverse over the inner mode
    np.testing.assert_allclose(gx, want_x, rtol=1e-10)
    assert gw == pytest.approx(want_w, rel=1e-10)
    for i, e in enumerate(np.eye(3)):  # forward over the inner mode
        _, t = d.jvp((x, w), (e, 0.0))
        assert t == pytest.approx(want_x[i], rel=1e-10)
    assert d.jvp((x, w), (np.zeros(3), 1.0))[1] == pytest.approx(want_w, rel=1e-10)


def test_jvp_of_grad_at_runtime_is_a_hessian_vector_product():
    """Called directly too (differentiate what runs): jvp(grad(f)) is forward mode over f's gradient code."""
    x, w, v = np.array([0.3, -1.2, 0.8]), 0.4, np.array([1.0, -2.0, 0.5])
    _, hv = adcompiler.jvp(adcompiler.grad(N.energy), (x, w), (v, 0.0))
    np.testing.assert_allclose(hv, autograd.jacobian(autograd.grad(_energy))(x, w) @ v, rtol=1e-12)


def test_jvp_of_a_differentiables_grad_gives_the_gradient_and_the_hessian_vector_product():
    """``adcompiler.jvp(d.grad, ...)``, as ``jax.jvp(jax.grad(f), ...)``: the gradient and H v in one forward
    pass over d's gradient code, shaped as ``d.grad`` gives them (one array for one wrt parameter), the same
    for ``d.value_and_grad`` and ``jacfwd(d.grad)``; it differentiated adcompiler's own method before, and
    stopped at its line ("calling the result of an expression", differentiable.py)."""
    x, w, v = np.array([0.3, -1.2, 0.8]), 0.4, np.array([1.0, -2.0, 0.5])
    hessian = autograd.jacobian(autograd.grad(_energy))(x, w)
    d = adcompiler.differentiate(N.energy, wrt=("x",))
    g, hv = adcompiler.jvp(d.grad, (x, w), (v, 0.0))
    np.testing.assert_allclose(g, autograd.grad(_energy)(x, w), rtol=1e-13)
    np.testing.assert_allclose(hv, hessian @ v, rtol=1e-12)
    np.testing.assert_allclose(hv, adcompiler.hvp(d, wrt="x")((x, w), v), rtol=1e-13)
    np.testing.assert_allclose(adcompiler.jacfwd(d.grad)(x, w), hessian, rtol=1e-12)
    both = adcompiler.differentiate(N.energy)
    (value, (gx, gw)), (dvalue, (hx, hw)) = adcompiler.jvp(both.value_and_grad, (x, w), (v, 0.0))
    assert value == pytest.approx(_energy(x, w), rel=1e-14) and dvalue == pytest.approx(gx @ v, rel=1e-12)
    np.testing.assert_allclose(hx, hessian @ v, rtol=1e-12)
    with pytest.raises(TypeError, match="energy.jvp cannot be differentiated: differentiate energy.grad"):
        adcompiler.jvp(d.jvp, (x, w), (v, 0.0))


def _rolled(x, y, p):
    u = x
    for _ in range(3):
        u = anp.arctan(anp.arctan(y[:, None] * x) - u)
        p = 4.0 * anp.tanh(p + p)
    return anp.sum(u * u) / (2.0 + anp.sin(p))


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_gradient_code_that_lets_arrays_go_differentiated_again(backend):
    """``differentiate(d.grad)`` of a gradient whose code has ``del`` statements (arrays a loop no longer
    reads let go: ``optimize.release``) was refused at its first ``del``; the statements change no value and
    are dropped when that code is read again. H v (forward over reverse) against autograd's and against
    central differences of the gradient."""
    if backend == "numba":
        pytest.importorskip("numba")
    x, y, p = np.array([[0.3, -0.2], [0.5, 0.1]]), np.array([0.4, -0.7]), 0.3
    v = np.array([[1.0, -0.5], [0.2, 0.3]])
    d = adcompiler.differentiate(N.rolled, wrt=("x",), backend=backend)
    d.grad(x, y, p)
    if backend == "python":
        assert "del u" in str(d.source("grad")), d.source("grad")
    h = adcompiler.differentiate(d.grad, wrt=("x",), backend=backend)
    g, hv = h.jvp((x, y, p), (v,))
    hessian = autograd.jacobian(autograd.grad(_rolled))(x, y, p)
    np.testing.assert_allclose(g, autograd.grad(_rolled)(x, y, p), rtol=1e-12)
    np.testing.assert_allclose(hv, np.tensordot(hessian, v, axes=2), rtol=1e-10, atol=1e-12)
    eps = 1e-5  # (and against central differences of the gradient)
    np.testing.assert_allclose(hv, (d.grad(x + eps * v, y, p) - d.grad(x - eps * v, y, p)) / (2 * eps), rtol=1e-6)


def test_refusals_are_located():
    remedy = "adcompiler.grad(f)"
    refused = [(N.uses_vjp, "adcompiler.vjp", remedy), (N.uses_has_aux, "has_aux", remedy)]
    refused += [(N.uses_hessian, "hessian", remedy)]
    refused += [(N.uses_a_dict, "reads its parameter d by key (d['a'])", "hand _keyed the values as parameters")]
    for f, what, instead in refused:  # (a dict handed in was "the index ['a'] of a list or tuple of floats")
        with pytest.raises(UnsupportedSyntaxError) as info:
            adcompiler.grad(f)(1.0)
        message = str(info.value)
        assert what in message and "nested_funcs.py" in message and instead in message


@pytest.fixture(scope="module")
def evals():
    sys.path.insert(0, str(EVALS.parent))  # (as the tool imports them: the package evals)
    try:
        from evals import particle, saddle

        yield particle, saddle
    finally:
        sys.path.remove(str(EVALS.parent))


@pytest.mark.parametrize("inner_forward", [False, True], ids=["inner_reverse", "inner_forward"])
def test_particle_objective_all_mode_pairs(evals, inner_forward):
    """GradBench particle: d/dw of x_0(t_f)^2, through the Euler loop whose force is the inner
    derivative, against central differences of the analytic-force objective (no AD at all)."""
    particle, _ = evals
    d = adcompiler.differentiate(particle.naive_euler, wrt=("w",))
    for w in (0.0, 0.2):
        h = 1e-6
        want = (particle.naive_euler_analytic(w + h) - particle.naive_euler_analytic(w - h)) / (2 * h)
        assert d(w, inner_forward) == pytest.approx(particle.naive_euler_analytic(w), rel=1e-12)
        assert d.grad(w, inner_forward) == pytest.approx(want, rel=1e-6)
        assert d.jvp((w, inner_forward), (1.0,))[1] == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("inner_forward", [False, True], ids=["inner_reverse", "inner_forward"])
def test_saddle_cost_all_mode_pairs(evals, inner_forward):
    """GradBench saddle: the gradient of the inner maximisation's value (which takes the inner
    derivative in its loop) with respect to x, against central differences."""
    _, saddle = evals
    start, x, h = np.array([1.0, 1.0]), np.array([0.5, 0.7]), 1e-6
    d = adcompiler.differentiate(saddle.inner_max, wrt=("x",))
    want = [
        (saddle.inner_max(x + h * e, start, inner_forward) - saddle.inner_max(x - h * e, start, inner_forward))
        / (2 * h)
        for e in np.eye(2)
    ]
    np.testing.assert_allclose(d.grad(x, start, inner_forward), want, rtol=1e-6)
    forward = [d.jvp((x, start, inner_forward), (e,))[1] for e in np.eye(2)]
    np.testing.assert_allclose(forward, want, rtol=1e-6)


@pytest.mark.parametrize("name", ["fr"] + [pytest.param(n, marks=pytest.mark.slow) for n in ("rr", "rf", "ff")])
def test_saddle_solves(evals, name):
    """The whole eval, each mode pair: the saddle point of f is the origin.  (Each pair's derivatives are
    checked in test_saddle_cost_all_mode_pairs; the solve in the other three pairs, 3-5 s each of a
    hundred thousand inner derivative calls, runs with --runslow.)"""
    _, saddle = evals
    found = getattr(saddle, name)([1.0, 1.0])
    np.testing.assert_allclose(found, np.zeros(4), atol=1e-3)


def test_array_of_a_list_unused_in_the_last_pass():
    """Found through particle's reverse over forward: the zero adjoint of np.array([...]) made in the
    pass a break leaves was added into the list's shadow as if it were a list (len of a float)."""
    assert adcompiler.grad(N.last_pass_unused)(0.5) == pytest.approx(-3.0, rel=1e-12)  # s = -3 x w


NUMBA_OUTER = ()  # (each one long compile) with --runslow: test_numba_forward_over_an_inner_derivative_against_differences
# and test_numba_runs_a_helper_holding_an_inner_derivative_that_is_not_differentiated by default


@pytest.mark.parametrize(
    "f, oracle",
    [pytest.param(f, o, marks=[] if f in NUMBA_OUTER else [pytest.mark.slow], id=f.__name__) for f, o in ARRAYS],
)
def test_arrays_outer_numba_against_autograd(f, oracle):
    """backend="numba" for the outer derivative: the gradient code's helpers differentiated in reverse
    mode (rebroadcast, unreduce_vjp, gather_like) compiled by Numba too."""
    pytest.importorskip("numba")
    x, w = np.array([0.3, -1.2, 0.8]), 0.4
    gx, gw = adcompiler.differentiate(f, backend="numba").grad(x, w)
    np.testing.assert_allclose(gx, autograd.grad(oracle, 0)(x, w), rtol=1e-10)
    assert gw == pytest.approx(autograd.grad(oracle, 1)(x, w), rel=1e-10)


@pytest.mark.parametrize("inner_forward", [False, True], ids=["inner_reverse", "inner_forward"])
def test_numba_forward_over_an_inner_derivative_against_differences(inner_forward):
    """backend="numba" for the outer forward mode over particle's inner derivative: the tangent of the
    inner code's np.array([...], dtype=float) (an array of an array, its dtype by name, which Numba
    did not take) compiles, and agrees with the python backend and central differences.  (The outer
    reverse mode is still refused: an array's adjoint reset to 0.0 in a loop is two types to Numba.)"""
    pytest.importorskip("numba")
    w, h = 0.3, 1e-6
    numba_d = derivative(N.euler_with_inner_forces, wrt=("w",), backend="numba")  # (inner_forward: an argument)
    python_d = derivative(N.euler_with_inner_forces, wrt=("w",))
    value, tangent = numba_d.jvp((w, inner_forward), (1.0,))
    want = (N.euler_with_inner_forces(w + h, inner_forward) - N.euler_with_inner_forces(w - h, inner_forward)) / (2 * h)
    assert value == pytest.approx(N.euler_with_inner_forces(w, inner_forward), rel=1e-12)
    assert tangent == pytest.approx(want, rel=1e-4)  # (a small tangent: the differences carry about 4e-5 of it)
    assert tangent == pytest.approx(python_d.jvp((w, inner_forward), (1.0,))[1], rel=1e-12)


@pytest.mark.slow  # (one long compile: GradBench's particle, whose parts the tests above cover)
@pytest.mark.parametrize(
    "inner_forward",
    [False, True],  # (one compiled derivative serves both: inner_forward is an argument)
    ids=["inner_reverse", "inner_forward"],
)
def test_numba_reverse_over_particles_inner_derivative(evals, inner_forward):
    """backend="numba" for the outer reverse mode of GradBench's particle (its rr and rf): the Euler
    loop's x = x_new in one branch resets x's adjoint there, which must stay an array (zero_array), and
    the code's names must not collide with the names Numba gives a variable's versions."""
    pytest.importorskip("numba")
    particle, _ = evals
    w, h = 0.0, 1e-6
    numba_d = derivative(particle.naive_euler, wrt=("w",), backend="numba")  # (inner_forward: an argument)
    python_d = derivative(particle.naive_euler, wrt=("w",))
    want = (particle.naive_euler(w + h, inner_forward) - particle.naive_euler(w - h, inner_forward)) / (2 * h)
    got = numba_d.grad(w, inner_forward)
    assert got == pytest.approx(want, rel=1e-6)
    assert got == pytest.approx(python_d.grad(w, inner_forward), rel=1e-12)


@pytest.mark.slow  # (an inner derivative under Numba: test_numba_forward_over_an_inner_derivative_against_differences by default)
def test_numba_runs_a_helper_holding_an_inner_derivative_that_is_not_differentiated():
    """backend="numba" where a helper holding an inner derivative (``charge_force``: ``adcompiler.grad``
    inside) is called on values that are not differentiated: the call runs the helper's generated code
    (Numba cannot compile the helper as written, a call of adcompiler's API); it was refused.  Checked
    against autograd, the python backend, and with nothing differentiated at all (wrt=())."""
    pytest.importorskip("numba")
    v, w = np.array([0.3, -0.7]), 0.4

    def oracle(v, w):
        force = -autograd.grad(lambda x: 1.0 / anp.linalg.norm(x - anp.array([10.0, 10.0 - w])))(np.array([1.0, 2.0]))
        return anp.sum(v * force) + anp.sum(v * v)

    numba_d = adcompiler.differentiate(N.pushed_by_a_constant_field, wrt=("v",), backend="numba")
    python_d = adcompiler.differentiate(N.pushed_by_a_constant_field, wrt=("v",))
    got = numba_d.grad(v, w)
    np.testing.assert_allclose(got, autograd.grad(oracle)(v, w), rtol=1e-12)
    np.testing.assert_allclose(got, python_d.grad(v, w), rtol=1e-14)
    value, tangent = numba_d.jvp((v, w), (np.array([1.0, 0.5]),))
    assert value == pytest.approx(oracle(v, w), rel=1e-14)
    assert tangent == pytest.approx(got @ np.array([1.0, 0.5]), rel=1e-12)
    nothing = adcompiler.differentiate(N.pushed_by_a_constant_field, wrt=(), backend="numba")
    assert nothing.jvp((v, w), ())[0] == pytest.approx(oracle(v, w), rel=1e-14)


def test_numba_jvp_of_a_differentiables_grad_runs_its_gradient_code_forward():
    """Under backend="numba", jvp(d.grad) is the forward mode of the python target's gradient code, compiled
    by Numba (as hvp is): the gradient and H v together, also with the other argument bound by a partial
    (JAX's closure); it stopped in adcompiler's Numba entry (backend.py) before. value_and_grad's code is
    not made that way: refused, naming hvp."""
    import functools

    pytest.importorskip("numba")
    x, w, v = np.array([0.3, -1.2, 0.8]), 0.4, np.array([1.0, -2.0, 0.5])
    hessian = autograd.jacobian(autograd.grad(_energy))(x, w)
    d = adcompiler.differentiate(N.energy, wrt=("x",), backend="numba")
    for g, hv in (adcompiler.jvp(d.grad, (x, w), (v, 0.0)), adcompiler.jvp(functools.partial(d.grad, w=w), (x,), (v,))):
        np.testing.assert_allclose(g, autograd.grad(_energy)(x, w), rtol=1e-13)
        np.testing.assert_allclose(hv, hessian @ v, rtol=1e-12)
    with pytest.raises(NotImplementedError, match="adcompiler.hvp") as info:
        adcompiler.jvp(adcompiler.differentiate(N.energy, backend="numba").value_and_grad, (x, w), (v, 0.0))
    assert "backend.py" not in str(info.value)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
def test_reverse_transforms_of_a_differentiables_grad_are_the_hessian(backend):
    """The variants a user writes next: jacrev(d.grad) is the Hessian and vjp(d.grad) its transpose times
    a vector, on either backend (Numba's runs the python target's gradient code compiled by Numba)."""
    if backend == "numba":
        pytest.importorskip("numba")
    x, w = np.array([0.3, -1.2, 0.8]), 0.4
    hessian = autograd.jacobian(autograd.grad(_energy))(x, w)
    d = adcompiler.differentiate(N.energy, wrt=("x",), backend=backend)
    np.testing.assert_allclose(adcompiler.jacrev(d.grad)(x, w), hessian, rtol=1e-12)
    u = np.array([0.5, 1.0, -2.0])
    g, pullback = adcompiler.vjp(d.grad, x, w)
    np.testing.assert_allclose(g, autograd.grad(_energy)(x, w), rtol=1e-13)
    np.testing.assert_allclose(pullback(u)[0], hessian.T @ u, rtol=1e-12)


def test_temporaries_fold_beside_an_inner_derivative():
    """The inner derivative's generated code has temporaries of its own (t1, t4, ...), which the outer
    code's user names once counted: a list read once (``t1 = [1.0, 0.0]`` then ``np.array(t1)``) stayed a
    line of its own, a list and an array in compiled code instead of one array (particle's forward over
    forward). Folded now, as in any function; the values are checked against central differences."""
    import re

    d = adcompiler.differentiate(N.directional_forward, wrt=("x", "w"))
    forward = d.source("forward")
    own = forward[forward.index("def directional_forward_forward") :].split("\n\n\n")[0]
    assert not re.search(r"^\s*t\d+ = \[", own, re.M), own
    x, w = np.array([0.3, -0.2, 0.5]), 0.7
    _, dw = adcompiler.jvp(N.directional_forward, (x, w), (np.zeros(3), 1.0))
    h = 1e-6
    central = (N.directional_forward(x, w + h) - N.directional_forward(x, w - h)) / (2 * h)
    assert dw == pytest.approx(central, rel=1e-7)


def _sum_squares_listed(xs, s):
    return s * sum(x * x for x in xs) if isinstance(xs, list) else s * anp.sum(xs * xs)


def test_a_derivative_of_grad_made_before_any_call_follows_each_calls_signature():
    """``differentiate(d.grad)`` made before ``d.grad`` ran took the gradient code of the signature d's text
    suggests (``assumed_signature``), and kept it: called with a list, its jvp lost the list's structure
    (0.0 for [0.0, 0.0]) or failed (the nested fuzz check's bugs).  It now takes d's code for the arguments of
    each call, a list, an array, a list again, each against autograd's Hessian and central differences."""
    d = adcompiler.differentiate(N.sum_squares)
    h = adcompiler.differentiate(d.grad)
    for xs, v in (
        ([0.3, -1.2, 0.8], [1.0, -2.0, 0.5]),
        (np.array([0.3, -1.2, 0.8]), np.array([1.0, -2.0, 0.5])),
        ([0.5, 0.25], [0.5, 1.0]),
    ):
        (gx, gs), (hx, hs) = h.jvp((xs, 1.5), (v, 0.25))
        assert type(gx) is type(xs) and type(hx) is type(xs)
        hessian = autograd.hessian(lambda z: _sum_squares_listed(z, 1.5))(np.array(xs, dtype=float))
        want = hessian @ np.array(v) + 0.25 * 2 * np.array(xs)  # (and s's part: d/ds of s * 2 x)
        np.testing.assert_allclose(np.array(hx), want, rtol=1e-13)
        eps = 1e-6
        ahead = d.grad([a + eps * b for a, b in zip(xs, v)] if isinstance(xs, list) else xs + eps * v, 1.5 + eps * 0.25)
        behind = d.grad(
            [a - eps * b for a, b in zip(xs, v)] if isinstance(xs, list) else xs - eps * v, 1.5 - eps * 0.25
        )
        np.testing.assert_allclose(np.array(hx), (np.array(ahead[0]) - np.array(behind[0])) / (2 * eps), rtol=1e-7)
        assert hs == pytest.approx(sum(2 * a * b for a, b in zip(xs, v)), rel=1e-13)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_closures_over_the_enclosing_functions_variables(backend):
    """A nested derivative of a lambda or local def reading the enclosing function's arrays and numbers:
    against the analytic derivatives and central differences (and under Numba, the python target's)."""
    if backend == "numba":
        pytest.importorskip("numba")
    w, data = np.array([0.5, 1.0, -0.3]), np.array([2.0, -1.0, 0.7])
    g_w, g_data = adcompiler.differentiate(N.closure_over_arrays, backend=backend).grad(w, data)
    np.testing.assert_allclose(g_w, 6.0 * w * data**2, rtol=1e-12)
    np.testing.assert_allclose(g_data, 6.0 * w**2 * data, rtol=1e-12)
    g = adcompiler.differentiate(N.closure_tuple_argnums, backend=backend).grad(0.7, 1.3)
    np.testing.assert_allclose(g, ((2 * 1.3 + 1) * 1.3, 0.7 * (4 * 1.3 + 1)), rtol=1e-12)
    eps = 1e-6
    fd = (N.closure_tuple_argnums(0.7 + eps, 1.3) - N.closure_tuple_argnums(0.7 - eps, 1.3)) / (2 * eps)
    assert g[0] == pytest.approx(fd, rel=1e-7)


def test_a_nested_matrix_norm_of_an_unknown_ndim_is_refused_not_a_vector_norm():
    """The inner derivative of ``np.linalg.norm(A, ord=2)`` is built before A's ndim is known: it took the vector
    rule, a wrong value and derivative of the outer function (5.93 for 4.64); refused at the norm's line now.
    ``"nuc"`` is a matrix's only: the outer gradient against central differences."""
    A = np.random.default_rng(3).normal(size=(3, 4))
    with pytest.raises(UnsupportedSyntaxError, match=r"np.linalg.norm\(x, ord=2\) of an array whose number"):
        adcompiler.differentiate(N.outer_of_spectral_norm).jvp((A,), (A,))
    E = np.eye(3, 4)
    g = adcompiler.differentiate(N.outer_of_nuclear_norm).grad(A)
    fd = (N.outer_of_nuclear_norm(A + 1e-6 * E) - N.outer_of_nuclear_norm(A - 1e-6 * E)) / 2e-6
    np.testing.assert_allclose(np.sum(g * E), fd, rtol=1e-6)


@pytest.mark.parametrize(
    "name, x, expected",
    [
        ("local_alias_of_grad", 1.1, 9 * 1.1**2),  # of 3 x^2 * x
        ("local_alias_of_differentiate", 1.1, 9 * 1.1**2),
        ("local_alias_of_a_lambdas_grad", 0.7, 1.0),
        ("curvature", 2.0, 3 * 1.5**2),
    ],
)
def test_derivatives_held_in_local_names_and_derivatives_of_derivatives_inside(name, x, expected):
    """``g = adcompiler.grad(cube); g(x)`` and ``d = differentiate(cube); d.grad(x)`` inside a differentiated
    function were refused ("the global 'cube' (function) is not supported ... functions defined with def");
    ``grad(grad(energy))(1.5, a)`` inside one raised NotVariadic, unlocated.  Both modes, central differences."""
    f = getattr(N, name)
    for mode in ("forward", "reverse"):
        d = adcompiler.differentiate(f)
        got = d.jvp((x,), (1.0,))[1] if mode == "forward" else d.grad(x)
        assert got == pytest.approx(expected, rel=1e-9), mode
    assert (f(x + 1e-6) - f(x - 1e-6)) / 2e-6 == pytest.approx(expected, rel=1e-6)


def test_jvp_of_a_local_function_is_refused_saying_what_to_write():
    """``adcompiler.jvp(q, ...)`` of a local ``def`` was refused as "the function given to adcompiler.jvp ...
    name a function defined with def", though q is one: it says what is refused and what to write."""
    with pytest.raises(UnsupportedSyntaxError, match=r"adcompiler.jvp of a local function or lambda .* module level"):
        adcompiler.grad(N.jvp_of_a_local_def, argnums=(0, 1))(0.7, 1.1)


LISTS = [  # an inner derivative of a list the function makes and only indexes: d/da by hand
    (N.grad_of_a_list_made_here, lambda a: 2.0 + 10.0 * a),  # 2a + 5a * a
    (N.grad_of_a_list_in_a_loop, lambda a: 60.0 * a),  # 3 * 2a * 5a
    (N.value_and_grad_of_a_list_copied, lambda a: 6.0 * a + 27.0),  # (3a + 9)(a + 6)
    (N.jvp_of_a_list, lambda a: 3.0 * (a + 1.0) ** 2),  # (a + 1)(1 + a(a + 2))
]


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f, want", LISTS, ids=[f.__name__ for f, _ in LISTS])
def test_inner_derivatives_of_lists_made_here(f, want, mode, backend):
    if backend == "numba":
        pytest.importorskip("numba")
        d = adcompiler.differentiate(f, backend="numba")
        got = d.grad(1.3) if mode == "reverse" else d.jvp((1.3,), (1.0,))[1]
    else:
        got = outer(f, mode, 1.3)
    assert got == pytest.approx(want(1.3), rel=1e-12)
    assert (f(1.3 + 1e-6) - f(1.3 - 1e-6)) / 2e-6 == pytest.approx(want(1.3), rel=1e-6)


def test_inner_derivative_of_a_list_argument_is_refused_saying_what_to_pass():
    with pytest.raises(UnsupportedSyntaxError) as info:
        adcompiler.grad(N.grad_of_a_list_argument)([1.3, 2.0])
    assert "nested_funcs.py" in str(info.value) and "np.array(xs)" in str(info.value)
    got = adcompiler.grad(N.grad_of_a_list_argument)(np.array([1.3, 2.0]))
    np.testing.assert_allclose(got, [2.0, 9.3], rtol=1e-12)


def _gradient_of_products(a):
    def products(x):
        m = x.reshape(2, 2)
        return anp.sum(anp.dot(m, m) * x[0]) + anp.mean(anp.exp(x[1:]) * x[:-1])

    g = autograd.grad(products)(anp.array([a, 2.0 * a, 0.5, a * a]))
    return g[0] * g[1] + anp.sum(g)


THIRD = {  # the second derivative of a function taking a gradient inside: every chain of three modes
    "reverse over reverse over reverse": lambda f, a: adcompiler.grad(adcompiler.grad(f))(a),
    "forward over reverse over reverse": lambda f, a: adcompiler.jvp(adcompiler.grad(f), (a,), (1.0,))[1],
    "reverse over forward over reverse": lambda f, a: adcompiler.grad(lambda t: adcompiler.jvp(f, (t,), (1.0,))[1])(a),
}


@pytest.mark.parametrize("chain", THIRD)
def test_third_derivatives_through_an_inner_gradient_of_array_code(chain):
    # (the adjoints of gradient code's helpers, rebroadcast, gather_like, unreduce_vjp, matmul_vjp_a/b, had no
    # rules of their own: 'rebroadcast with 2 arguments is not supported', told in generated code)
    want = autograd.grad(autograd.grad(_gradient_of_products))(0.7)
    assert THIRD[chain](N.gradient_of_products, 0.7) == pytest.approx(want, rel=1e-10)


def test_a_refusal_in_an_inner_derivatives_code_is_told_at_the_users_line():
    with pytest.raises(adcompiler.MissingRuleError) as info:
        adcompiler.grad(N.gradient_of_a_covariance)(0.7)
    line = N._covariance.__code__.co_firstlineno + 1
    assert f"nested_funcs.py:{line}:" in str(info.value) and "cov_vjp" in str(info.value)


@pytest.mark.parametrize(
    "f, args",
    [
        (N.loop_over_a_slice_of_rows, ([[0.3, 0.1], [0.7, -0.2], [0.5, 0.4]], 0.9)),  # rows counted twice: 2x
        (N.rotated, (0.7, np.array([0.4, -1.1]))),  # the rows of a residual list handed apart: 0 for p
    ],
)
def test_reverse_over_reverse_of_lists_of_rows_is_forward_over_reverse(f, args):
    """vjp(grad(f)) pulls a direction w back through the gradient code: H w, as jvp(grad(f)) pushes it (and as
    central differences of the gradient give it)."""
    grad = adcompiler.grad(f, argnums=(0, 1))
    w = args
    _, forward = adcompiler.jvp(grad, args, w)
    _, pullback = adcompiler.vjp(grad, *args)
    backward = pullback(w)
    h = 1e-6
    plus = grad(
        *[
            (
                np.add(a, np.multiply(h, b))
                if not isinstance(a, list)
                else [list(np.add(r, np.multiply(h, s))) for r, s in zip(a, b)]
            )
            for a, b in zip(args, w)
        ]
    )
    minus = grad(
        *[
            (
                np.subtract(a, np.multiply(h, b))
                if not isinstance(a, list)
                else [list(np.subtract(r, np.multiply(h, s))) for r, s in zip(a, b)]
            )
            for a, b in zip(args, w)
        ]
    )
    central = [(np.asarray(p) - np.asarray(m)) / (2 * h) for p, m in zip(plus, minus)]
    for got, want, fd in zip(backward, forward, central):
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(np.asarray(got, float), fd, rtol=1e-5, atol=1e-7)


def test_a_function_of_adcompilers_api_other_than_the_derivatives_is_refused_at_the_users_call(tmp_path):
    """check_grad inside a differentiated function was refused at adcompiler's own file (api/check.py, "a
    *args parameter"); it is refused at the user's call, naming what is differentiated there."""
    from adcompiler.errors import UnsupportedSyntaxError
    from shared import written

    ns = written(
        tmp_path,
        "checked_inside",
        "import adcompiler\n\n\ndef inner(x, y):\n    return x * y * y\n\n\n"
        "def outer(x):\n    return adcompiler.check_grad(inner, x, x) + x\n",
    )
    with pytest.raises(UnsupportedSyntaxError, match=r"checked_inside\.py:9:12: calling adcompiler\.check_grad inside"):
        adcompiler.grad(ns["outer"])(0.7)


CALLS_KEEPING_NOTHING = """\
import numpy as np


def _h1(q):
    return np.sum(q[0] ** 2)


def _h2(q):
    return np.sum(np.sin(q[1]))


def _h3(q):
    return 2.0 * _h2(q)


def f(p0, p1):
    return _h1(p0) + _h3(p1)


def g(p0, p1):
    return _h3(p1) + _h1(p0)
"""


@pytest.mark.parametrize("name", ["f", "g"])
def test_reverse_over_reverse_of_two_helpers_whose_reverse_sweeps_keep_nothing(tmp_path, name):
    """The gradient code calls each helper's reverse sweep for what it adds into the shadows (a call with no
    outputs); the analysis knew calls by their outputs, so the two were one, and the second sweep was
    specialised on the first's residuals: a TypeError in the generated code (f), or a refusal (g).  Found by
    the structures fuzzer (seed 20261203, program 18).  Reverse over reverse and forward over reverse against
    the Hessian-vector product worked by hand (w the point itself)."""
    from shared import written

    fn = written(tmp_path, f"keeping_nothing_{name}", CALLS_KEEPING_NOTHING)[name]
    p0, p1 = [np.array([[0.06], [0.8]])], [np.ones((2, 3)), np.array([-0.5, -0.04, -0.44])]
    grad = adcompiler.grad(fn, argnums=(0, 1))
    _, pullback = adcompiler.vjp(grad, p0, p1)
    backward = pullback((p0, p1))
    _, forward = adcompiler.jvp(grad, (p0, p1), (p0, p1))
    expected = ([2 * p0[0]], [np.zeros((2, 3)), -2.0 * np.sin(p1[1]) * p1[1]])  # H w, w = the point
    for got in (backward, forward):
        for g_part, e_part in zip(got, expected, strict=True):
            for a, b in zip(g_part, e_part, strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_an_inner_gradient_of_a_matrix_product_takes_arrays(backend):
    """adcompiler.grad(lambda d: d @ d) inside a differentiated function: the inner code was generated for numbers
    (no NumPy call in it) and refused the array it was handed, from generated code ("generated for numbers")."""
    if backend == "numba":
        pytest.importorskip("numba")
    q = np.array([0.3, -0.2])
    d = adcompiler.differentiate(N.of_the_gradient_of_a_product, backend=backend)
    np.testing.assert_allclose(d.grad(q), 8.0 * q, rtol=1e-12)
    assert d.jvp((q,), (np.ones(2),))[1] == pytest.approx(8.0 * q.sum(), rel=1e-12)
