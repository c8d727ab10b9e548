"""jacobian, hessian, hvp, defrule, check_grad and derivatives of derivatives.

Every reference here is independent of adcompiler: analytic derivatives
written by hand, SciPy's own Rosenbrock gradient and Hessian, central finite
differences and the complex step (tests/oracle.py), and algebraic identities
(forward Jacobian == reverse Jacobian, hvp == H @ v, symmetry of H).
"""

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import adcompiler
from shared import written
import higher_funcs as H
from oracle import complex_step, fd_jacobian

RTOL = 1e-10


_CACHE = {}


def D(f, wrt=None):
    """One Differentiable per (function, wrt), so each test file run transforms each function once."""
    key = (f, None if wrt is None else tuple(wrt))
    if key not in _CACHE:
        _CACHE[key] = adcompiler.differentiate(f, wrt=wrt)
    return _CACHE[key]


def jac(f, wrt=None, mode="auto"):
    return adcompiler.jacobian(D(f, wrt), mode=mode)


def hess(f, wrt=None):
    return adcompiler.hessian_matrix(D(f, wrt))


def hvp(f, wrt=None):
    """``(args, v) -> H v`` over every wrt parameter's scalars, ``v`` flat (as ``hess``'s columns) or one
    tangent per wrt parameter: ``adcompiler.hvp`` with those argnums, its products flattened alike."""
    d = f if isinstance(f, adcompiler.Differentiable) else D(f, wrt)

    def product(args, v):
        places = tuple(d.params.index(w) for w in d.wrt)
        values = [args[i] for i in places]
        flat = not (isinstance(v, tuple) and len(v) == len(values))
        if flat:
            items = iter(v)
            v = tuple(adcompiler.api.higher.rebuild(a, items) for a in values)
        out = adcompiler.hvp(d, argnums=places)(tuple(args), v)
        return np.array(adcompiler.api.higher.leaves(list(out))) if flat else out

    return product


def check_close(got, expected, rtol=RTOL, atol=1e-12):
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    assert got.shape == expected.shape, f"shape {got.shape} != {expected.shape}"
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def fd_jac(f, args):
    """The (m, n) Jacobian of a scalar-argument f by central differences (oracle.py)."""
    cols = fd_jacobian(f, list(args), list(range(len(args))))
    return np.array(cols).T


def cs_jac(f, args):
    """The (m, n) Jacobian of an operator-only f by the complex step (oracle.py)."""
    return np.array([complex_step(f, list(args), i) for i in range(len(args))]).T


# ===================================================================== jacobian


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
@pytest.mark.parametrize("r, theta", [(2.0, 0.3), (0.5, 2.5), (3.0, -1.2)])
def test_jacobian_polar(mode, r, theta):
    J = jac(H.polar, mode=mode)(r, theta)
    assert isinstance(J, np.ndarray) and J.shape == (2, 2)
    check_close(J, [[math.cos(theta), -r * math.sin(theta)], [math.sin(theta), r * math.cos(theta)]])
    # the polar Jacobian's determinant is r
    assert abs(np.linalg.det(J) - r) < 1e-12


def _cross_matrix(u):
    return np.array([[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]])


def quat_rotate_jacobian(q, v):
    """Analytic Jacobian of v' = v + 2w(u x v) + 2u(u.v) - 2v|u|^2 with respect to (q, v)."""
    w, u, v = q[0], np.array(q[1:]), np.array(v)
    J = np.zeros((3, 7))
    J[:, 0] = 2.0 * np.cross(u, v)
    for k in range(3):
        e = np.eye(3)[k]
        J[:, 1 + k] = 2.0 * w * np.cross(e, v) + 2.0 * e * (u @ v) + 2.0 * u * v[k] - 4.0 * v * u[k]
    J[:, 4:] = (1.0 - 2.0 * (u @ u)) * np.eye(3) + 2.0 * w * _cross_matrix(u) + 2.0 * np.outer(u, u)
    return J


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
def test_jacobian_quaternion_rotation(mode):
    rng = random.Random(3)
    for _ in range(3):
        q = [rng.uniform(-1, 1) for _ in range(4)]
        norm = math.sqrt(sum(c * c for c in q))
        q = [c / norm for c in q]
        v = [rng.uniform(-2, 2) for _ in range(3)]
        J = jac(H.quat_rotate, mode=mode)(*q, *v)
        assert J.shape == (3, 7)
        check_close(J, quat_rotate_jacobian(q, v))
        # for a unit quaternion the v-block is a rotation matrix
        R = J[:, 4:]
        check_close(R @ R.T, np.eye(3), atol=1e-12)
        assert abs(np.linalg.det(R) - 1.0) < 1e-12
    # a non-unit quaternion too (the formula is a polynomial in q)
    q, v = [0.3, -1.1, 0.7, 2.0], [1.0, -0.5, 0.25]
    check_close(jac(H.quat_rotate, mode=mode)(*q, *v), quat_rotate_jacobian(q, v))


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
def test_jacobian_list_in_list_out_cumprod(mode):
    xs = [1.5, -0.5, 2.0, 0.75]
    J = jac(H.cumprod, mode=mode)(xs)
    prods = np.cumprod(xs)
    expected = np.array([[prods[i] / xs[j] if j <= i else 0.0 for j in range(4)] for i in range(4)])
    check_close(J, expected)


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
def test_jacobian_list_in_list_out_softmax(mode):
    xs = [0.2, -1.0, 2.5, 0.7, 0.0]
    J = jac(H.softmax, mode=mode)(xs)
    s = np.exp(np.array(xs) - max(xs))
    s /= s.sum()
    check_close(J, np.diag(s) - np.outer(s, s))
    check_close(J.sum(axis=0), np.zeros(5), atol=1e-15)  # softmax sums to 1


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
def test_jacobian_list_and_scalar_params(mode):
    xs, a = [1.0, -2.0, 3.0, 0.5], 0.75
    n = len(xs)
    expected = np.zeros((n, n + 1))
    for i in range(n):
        expected[i, i] += 2.0 * a * xs[i]
        expected[i, (i + 1) % n] += 1.0
        expected[i, n] = xs[i] ** 2
    check_close(jac(H.scaled_list, mode=mode)(xs, a), expected)
    # wrt a subset, in a chosen order: (a, xs)
    J = jac(H.scaled_list, wrt=("a", "xs"), mode=mode)(xs, a)
    check_close(J, np.hstack([expected[:, n:], expected[:, :n]]))
    check_close(jac(H.scaled_list, wrt=("a",), mode=mode)(xs, a), expected[:, n:])


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
def test_jacobian_list_of_lists(mode):
    rows = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    xs = [0.5, -1.0]
    J = jac(H.matvec, mode=mode)(rows, xs)
    expected = np.zeros((3, 8))
    for i in range(3):
        for j in range(2):
            expected[i, 2 * i + j] = xs[j]
    expected[:, 6:] = rows
    check_close(J, expected)


def test_jacobian_scalar_output_is_one_row():
    J = jac(H.rosen2)(1.2, 0.8)
    assert J.shape == (1, 2)
    x, y = 1.2, 0.8
    check_close(J, [[-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x)]])


def test_jacobian_of_differentiated_object_and_bad_mode():
    d = D(H.polar)
    check_close(adcompiler.jacobian(d)(2.0, 0.3), adcompiler.jacobian(H.polar)(2.0, 0.3))
    check_close(adcompiler.jacobian(d, wrt=("theta",))(2.0, 0.3), [[-2.0 * math.sin(0.3)], [2.0 * math.cos(0.3)]])
    with pytest.raises(ValueError):
        jac(H.polar, mode="sideways")


def test_jacobian_against_complex_step():
    args = (0.3, -1.1, 0.7, 2.0, 1.0, -0.5, 0.25)
    check_close(jac(H.quat_rotate, mode="forward")(*args), cs_jac(H.quat_rotate, args), rtol=1e-13)
    check_close(jac(H.vec_out, mode="reverse")(0.7, 1.3), cs_jac(H.vec_out, (0.7, 1.3)), rtol=1e-13)


# forward and reverse Jacobians agree (loops, while, branches, lists) ----------

_BRANCHY_F = jac(H.branchy, mode="forward")
_BRANCHY_R = jac(H.branchy, mode="reverse")
_LISTLOOP_F = jac(H.list_loop, mode="forward")
_LISTLOOP_R = jac(H.list_loop, mode="reverse")

_coord = st.floats(-2.0, 2.0, allow_nan=False)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_coord, _coord, st.floats(0.1, 3.0))
def test_forward_equals_reverse_jacobian_branches_loops(x, y, z):
    Jf, Jr = _BRANCHY_F(x, y, z), _BRANCHY_R(x, y, z)
    assert Jf.shape == Jr.shape == (3, 3)
    np.testing.assert_allclose(Jf, Jr, rtol=1e-11, atol=1e-11 * (1.0 + np.abs(Jf).max()))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(_coord, min_size=1, max_size=6), st.floats(-1.5, 1.5))
def test_forward_equals_reverse_jacobian_list_loop(xs, c):
    Jf, Jr = _LISTLOOP_F(xs, c), _LISTLOOP_R(xs, c)
    m = len(H.list_loop(xs, c)[0]) + 1
    assert Jf.shape == Jr.shape == (m, len(xs) + 1)
    np.testing.assert_allclose(Jf, Jr, rtol=1e-11, atol=1e-11 * (1.0 + np.abs(Jf).max()))


@pytest.mark.parametrize("args", [(0.7, 1.1, 0.4), (1.6, -0.3, 2.2), (-0.4, 0.9, 1.3)])
def test_branchy_jacobian_vs_finite_differences(args):
    check_close(_BRANCHY_F(*args), fd_jac(H.branchy, args), rtol=1e-6, atol=1e-6)


def test_list_loop_jacobian_vs_finite_differences():
    xs, c = [0.3, -1.2, 2.0, 0.5], 0.8

    def flat(*a):
        out, total = H.list_loop(list(a[:-1]), a[-1])
        return tuple(out) + (total,)

    check_close(_LISTLOOP_R(xs, c), fd_jac(flat, xs + [c]), rtol=1e-6, atol=1e-6)


# ====================================================================== hessian


def rosen2_hessian(x, y):
    return np.array([[2.0 - 400.0 * (y - x * x) + 800.0 * x * x, -400.0 * x], [-400.0 * x, 200.0]])


@pytest.mark.parametrize("x, y", [(1.2, 0.8), (-1.0, 2.0), (1.0, 1.0), (0.0, 0.0)])
def test_hessian_rosenbrock_2d(x, y):
    Hm = hess(H.rosen2)(x, y)
    assert isinstance(Hm, np.ndarray) and Hm.shape == (2, 2)
    check_close(Hm, rosen2_hessian(x, y))


@pytest.mark.parametrize("n", [2, 3, 6])
def test_hessian_rosenbrock_nd_list(n):
    from scipy.optimize import rosen, rosen_der, rosen_hess

    rng = random.Random(n)
    xs = [rng.uniform(-1.5, 1.5) for _ in range(n)]
    assert abs(H.rosen_n(xs) - rosen(np.array(xs))) <= 1e-12 * max(1.0, abs(rosen(np.array(xs))))
    d = D(H.rosen_n)
    check_close(d.grad(xs), rosen_der(np.array(xs)))
    check_close(hess(H.rosen_n)(xs), rosen_hess(np.array(xs)))


def test_hessian_quadratic_form_list():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((4, 4)).tolist()
    xs = rng.standard_normal(4).tolist()
    Hm = hess(H.quad_form, wrt=("xs",))(xs, A)
    check_close(Hm, np.array(A) + np.array(A).T)
    # the gradient is (A + A^T) x
    check_close(D(H.quad_form, wrt=("xs",)).grad(xs, A), (np.array(A) + np.array(A).T) @ xs)


def _lse_hessian(xs):
    s = np.exp(np.array(xs) - max(xs))
    s /= s.sum()
    return np.diag(s) - np.outer(s, s)


def test_hessian_logsumexp_loop_max():
    xs = [1.0, 2.0, 0.5, -0.3]
    check_close(hess(H.logsumexp_loopmax)(xs), _lse_hessian(xs), atol=1e-14)


def test_hessian_logsumexp_list_max():
    xs = [1.0, 2.0, 0.5, -0.3]
    check_close(hess(H.logsumexp)(xs), _lse_hessian(xs), atol=1e-14)


def test_hessian_mixed_list_and_scalars_analytic():
    x, ys, z = 0.3, [1.0, 2.0, -0.5], 0.7
    Hm = hess(H.mixed_scalar)(x, ys, z)
    assert Hm.shape == (5, 5)
    check_close(Hm, Hm.T, atol=1e-13)

    # the exact Hessian, by hand: f = z * sum(sin(x y_i) + y_i^3 z) + exp(x z)
    exz = math.exp(x * z)
    E = np.zeros((5, 5))
    E[0, 0] = z * sum(-(y**2) * math.sin(x * y) for y in ys) + z * z * exz
    for i, y in enumerate(ys):
        E[0, 1 + i] = E[1 + i, 0] = z * (math.cos(x * y) - x * y * math.sin(x * y))
        E[1 + i, 1 + i] = z * (-(x**2) * math.sin(x * y) + 6.0 * y * z)
        E[1 + i, 4] = E[4, 1 + i] = math.cos(x * y) * x + 6.0 * y * y * z
    E[0, 4] = E[4, 0] = sum(y * math.cos(x * y) for y in ys) + exz + x * z * exz
    E[4, 4] = 2.0 * sum(y**3 for y in ys) + x * x * exz
    check_close(Hm, E)


def test_hessian_wrt_subset_and_tuple_output_rejected():
    Hm = hess(H.rosen2, wrt=("y",))(1.2, 0.8)
    check_close(Hm, [[200.0]])
    with pytest.raises(TypeError):
        hess(H.polar)(1.0, 0.5)


def _calls_helper_hessian(a, b):
    # f = a^2 sin b + a b^2
    return [
        [2.0 * math.sin(b), 2.0 * a * math.cos(b) + 2.0 * b],
        [2.0 * a * math.cos(b) + 2.0 * b, -a * a * math.sin(b) + 2.0 * a],
    ]


def test_grad_of_function_calling_helper():
    a, b = 1.2, 0.7
    check_close(
        D(H.calls_helper).grad(a, b), (2 * a * math.sin(b) + b * b, a * a * math.cos(b) + 2 * a * b), rtol=1e-14
    )


def test_hessian_of_function_calling_helper():
    check_close(hess(H.calls_helper)(1.2, 0.7), _calls_helper_hessian(1.2, 0.7), rtol=1e-12)


def test_hvp_of_function_calling_helper():
    check_close(hvp(H.calls_helper)((1.2, 0.7), [1.0, -2.0]), np.array(_calls_helper_hessian(1.2, 0.7)) @ [1.0, -2.0])


def test_second_derivative_of_grad_calling_helper():
    d2 = adcompiler.differentiate(D(H.calls_helper).grad)
    _, row = d2.vjp((1.2, 0.7), (1.0, 0.0))
    check_close(row, _calls_helper_hessian(1.2, 0.7)[0], rtol=1e-12)


# ========================================================================== hvp


@pytest.mark.parametrize(
    "f, args, wrt",
    [
        (H.rosen2, (1.2, 0.8), None),
        (H.rosen_n, ([1.2, 0.8, -0.5, 0.3],), None),
        (H.quad_form, ([0.5, -1.0, 2.0], [[1.0, 2.0, 0.0], [-3.0, 4.0, 1.0], [0.5, 0.0, 2.0]]), ("xs",)),
        (H.mixed_scalar, (0.3, [1.0, 2.0, -0.5], 0.7), None),
        (H.logsumexp_loopmax, ([1.0, 2.0, 0.5],), None),
    ],
)
def test_hvp_equals_hessian_times_v(f, args, wrt):
    Hm = hess(f, wrt=wrt)(*args)
    n = Hm.shape[0]
    prod = hvp(f, wrt=wrt)
    rng = np.random.default_rng(n)
    for v in [np.eye(n)[0], rng.standard_normal(n), rng.standard_normal(n)]:
        got = prod(args, list(v))
        assert isinstance(got, np.ndarray) and got.shape == (n,)
        check_close(got, Hm @ v, rtol=1e-11, atol=1e-11)


def test_hvp_structured_v():
    x, ys, z = 0.3, [1.0, 2.0, -0.5], 0.7
    v = (0.5, [1.0, -2.0, 0.25], -1.5)
    flat_v = [0.5, 1.0, -2.0, 0.25, -1.5]
    expected = hess(H.mixed_scalar)(x, ys, z) @ flat_v
    got = hvp(H.mixed_scalar)((x, ys, z), v)
    assert isinstance(got, tuple) and len(got) == 3 and len(got[1]) == 3
    check_close([got[0], *got[1], got[2]], expected, rtol=1e-11, atol=1e-11)
    check_close(hvp(H.mixed_scalar)((x, ys, z), flat_v), expected, rtol=1e-11, atol=1e-11)


def test_hvp_rosenbrock_vs_scipy():
    from scipy.optimize import rosen_hess_prod

    xs = [1.2, 0.8, -0.5, 0.3, 1.1]
    v = [0.1, -0.2, 0.3, 0.4, -0.5]
    check_close(hvp(H.rosen_n)((xs,), v), rosen_hess_prod(np.array(xs), np.array(v)))


# ============================================================ third derivatives


def _third(f, x):
    d1 = adcompiler.differentiate(f)
    d1.grad(x)
    d2 = adcompiler.differentiate(d1.grad)
    d2.grad(x)
    d3 = adcompiler.differentiate(d2.grad)
    return d1, d2, d3


POINTS = [0.4, 0.9, 1.7, 2.5]

THIRD = [
    (H.poly, lambda x: 12 * x**3 - 6 * x**2 + 1, lambda x: 36 * x**2 - 12 * x, lambda x: 72 * x - 12),
    (
        H.sin_x3,
        lambda x: math.cos(x) * x**3 + 3 * x**2 * math.sin(x),
        lambda x: -math.sin(x) * x**3 + 6 * x**2 * math.cos(x) + 6 * x * math.sin(x),
        lambda x: -(x**3) * math.cos(x) - 9 * x**2 * math.sin(x) + 18 * x * math.cos(x) + 6 * math.sin(x),
    ),
    (
        H.exp_over_x,
        lambda x: math.exp(x) * (1 / x - 1 / x**2),
        lambda x: math.exp(x) * (1 / x - 2 / x**2 + 2 / x**3),
        lambda x: math.exp(x) * (1 / x - 3 / x**2 + 6 / x**3 - 6 / x**4),
    ),
]


@pytest.mark.parametrize("f, d1f, d2f, d3f", THIRD, ids=["poly", "sin_x3", "exp_over_x"])
def test_third_derivative(f, d1f, d2f, d3f):
    d1, d2, d3 = _third(f, 1.0)
    for x in POINTS:
        assert d1.grad(x) == pytest.approx(d1f(x), rel=1e-12, abs=1e-12)
        assert d2.grad(x) == pytest.approx(d2f(x), rel=1e-12, abs=1e-12)
        assert d3.grad(x) == pytest.approx(d3f(x), rel=1e-11, abs=1e-11)
        # the hessian of a one-argument function is [[f'']]
        check_close(hess(f)(x), [[d2f(x)]], rtol=1e-12)


def test_third_derivative_plain_call_is_lower_derivative():
    # calling d2 itself evaluates f' (it wraps d1.grad), and d3 evaluates f''
    d1, d2, d3 = _third(H.poly, 1.0)
    assert d2(1.5) == pytest.approx(12 * 1.5**3 - 6 * 1.5**2 + 1, rel=1e-14)
    assert d3(1.5) == pytest.approx(36 * 1.5**2 - 12 * 1.5, rel=1e-14)


# ====================================================================== defrule


def _sigmoid(x):
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    return math.exp(x) / (1.0 + math.exp(x))


def _softplus_jvp(x, t):
    return _sigmoid(x) * t


def _softplus_vjp(x, g):
    return (_sigmoid(x) * g,)


adcompiler.defrule(H.softplus_target, jvp=_softplus_jvp, vjp=_softplus_vjp)


def _uses_softplus_grad(x, y):
    return (y * _sigmoid(x * y) - 0.5 * _sigmoid(y - x), x * _sigmoid(x * y) + 0.5 * _sigmoid(y - x))


@pytest.mark.parametrize("x, y", [(2.0, 0.5), (-1.0, 3.0), (800.0, 2.0), (-800.0, 2.0), (0.0, 0.0)])
def test_defrule_softplus_both_modes(x, y):
    d = D(H.uses_softplus)
    expected = _uses_softplus_grad(x, y)
    check_close(d.grad(x, y), expected, rtol=1e-14)
    for k, direction in enumerate([(1.0, 0.0), (0.0, 1.0)]):
        value, tangent = d.jvp((x, y), direction)
        assert value == H.uses_softplus(x, y)
        assert tangent == pytest.approx(expected[k], rel=1e-14, abs=1e-300)
    check_close(jac(H.uses_softplus, mode="forward")(x, y), [expected], rtol=1e-14)
    check_close(jac(H.uses_softplus, mode="reverse")(x, y), [expected], rtol=1e-14)
    assert all(math.isfinite(g) for g in expected)


def test_defrule_softplus_hessian_differentiates_the_rule():
    x, y = 2.0, 0.5
    s1, s2 = _sigmoid(x * y), _sigmoid(y - x)
    p1, p2 = s1 * (1 - s1), s2 * (1 - s2)
    expected = [
        [y * y * p1 + 0.5 * p2, s1 + x * y * p1 - 0.5 * p2],
        [s1 + x * y * p1 - 0.5 * p2, x * x * p1 + 0.5 * p2],
    ]
    check_close(hess(H.uses_softplus)(x, y), expected, rtol=1e-12)
    assert adcompiler.check_grad(H.uses_softplus, x, y) < 1e-6


def _newton_sqrt_jvp(a, t):
    return t / (2.0 * math.sqrt(a))


def _newton_sqrt_vjp(a, g):
    return (g / (2.0 * math.sqrt(a)),)


def _newton_sqrt_wrong_jvp(a, t):
    return t / math.sqrt(a)  # deliberately wrong: a factor 2 too large


def _newton_sqrt_wrong_vjp(a, g):
    return (g / math.sqrt(a),)


adcompiler.defrule(H.newton_sqrt_target, jvp=_newton_sqrt_jvp, vjp=_newton_sqrt_vjp)
adcompiler.defrule(H.newton_sqrt_wrong_target, jvp=_newton_sqrt_wrong_jvp, vjp=_newton_sqrt_wrong_vjp)


@pytest.mark.parametrize("a, b", [(1.5, 2.0), (0.25, 9.0), (30.0, 0.1)])
def test_defrule_implicit_newton_sqrt(a, b):
    assert H.newton_sqrt_target(a * b) == pytest.approx(math.sqrt(a * b), rel=1e-15)
    d = D(H.uses_newton_sqrt)
    expected = (
        b / (2 * math.sqrt(a * b)) + math.sqrt(b),
        a / (2 * math.sqrt(a * b)) + a / (2 * math.sqrt(b)),
    )
    check_close(d.grad(a, b), expected, rtol=1e-13)
    check_close([d.jvp((a, b), (1.0, 0.0))[1], d.jvp((a, b), (0.0, 1.0))[1]], expected, rtol=1e-13)
    # the rule replaces differentiation through the loop: the generated code calls it
    assert "_newton_sqrt_vjp" in d.source("reverse")
    assert "_newton_sqrt_jvp" in d.source("forward")
    assert adcompiler.check_grad(H.uses_newton_sqrt, a, b) < 1e-6
    # forward over reverse goes through the (differentiable) vjp rule
    fab = 1 / (4 * math.sqrt(a * b)) + 1 / (2 * math.sqrt(b))
    expected_h = [
        [-(b**2) / (4 * (a * b) ** 1.5), fab],
        [fab, -(a**2) / (4 * (a * b) ** 1.5) - a / (4 * b**1.5)],
    ]
    check_close(hess(H.uses_newton_sqrt)(a, b), expected_h, rtol=1e-12)


def test_defrule_wrong_rule_caught_by_check_grad():
    a, b = 1.5, 2.0
    with pytest.raises(AssertionError) as info:
        adcompiler.check_grad(H.uses_newton_sqrt_wrong, a, b)
    msg = str(info.value)
    for word in ("reverse", "forward", "central", "uses_newton_sqrt_wrong"):
        assert word in msg
    table = [line for line in msg.splitlines() if line.strip().startswith(("a ", "b "))]
    assert len(table) == 2 and all(line.rstrip().endswith("<-") for line in table)
    # forward and reverse agree with each other (both use the wrong rule) but not with differences
    d = D(H.uses_newton_sqrt_wrong)
    assert d.grad(a, b)[1] == pytest.approx(a / math.sqrt(a * b) + a / math.sqrt(b), rel=1e-13)


def test_no_rule_differentiates_through_the_solver():
    # the same solver without a rule: differentiated through the while loop, still close to 1/(2 sqrt a)
    d = D(H.newton_sqrt_plain)
    for a in (0.3, 2.0, 50.0):
        assert d.grad(a) == pytest.approx(1 / (2 * math.sqrt(a)), rel=1e-9)


SCALE_TANGENTS = []


def _scale_jvp(x, c, tx, tc):
    SCALE_TANGENTS.append((tx, tc))
    return tx * c + x * tc


def _scale_vjp(x, c, g):
    return (g * c, g * x)


adcompiler.defrule(H.scale_target, jvp=_scale_jvp, vjp=_scale_vjp)


def test_defrule_inactive_tangent_is_zero():
    x, c = 1.5, -2.0
    d = D(H.uses_scale, wrt=("x",))
    SCALE_TANGENTS.clear()
    value, tangent = d.jvp((x, c), (1.0,))
    assert value == H.uses_scale(x, c)
    assert tangent == pytest.approx(2 * x * c)
    assert SCALE_TANGENTS and SCALE_TANGENTS[-1][1] == 0.0
    assert d.grad(x, c) == pytest.approx(2 * x * c)
    full = D(H.uses_scale)
    check_close(full.grad(x, c), (2 * x * c, x * x + 1.0), rtol=1e-15)
    check_close(jac(H.uses_scale, mode="forward")(x, c), [[2 * x * c, x * x + 1.0]], rtol=1e-15)


def test_defrule_with_lambda_rules():
    adcompiler.defrule(H.lambda_rule_target, jvp=lambda x, t: 3.0 * t, vjp=lambda x, g: (3.0 * g,))
    d = D(H.uses_lambda_rule)  # 3 x * x / x = 3 x
    assert d.grad(2.0) == pytest.approx(3.0)
    assert d.jvp((2.0,), (1.0,))[1] == pytest.approx(3.0)


# =================================================================== check_grad


def test_check_grad_small_on_correct_functions():
    assert adcompiler.check_grad(H.trig, 0.7, 1.3) < 1e-8
    assert adcompiler.check_grad(H.rosen_n, [1.2, 0.8, -0.5]) < 1e-8
    assert adcompiler.check_grad(H.branchy, 0.7, 1.1, 0.4) < 1e-6
    assert adcompiler.check_grad(H.list_loop, [0.3, -1.2, 2.0, 0.5], 0.8) < 1e-6
    assert adcompiler.check_grad(H.trig, 0.7, 1.3, wrt=("y",)) < 1e-8
    assert adcompiler.check_grad(D(H.trig), 0.7, 1.3) < 1e-8
    assert adcompiler.check_grad(H.mixed_scalar, 0.3, [1.0, 2.0, -0.5], 0.7) < 1e-8


@pytest.mark.parametrize(
    "f, args",
    [
        (H.rational, (0.7, 1.3)),
        (H.rational, (-2.5, 0.1)),
        (H.rational_list, ([0.7, 1.3, -0.4],)),
        (H.vec_out, (0.7, 1.3)),
        (H.poly, (1.7,)),
        (H.quad_form, ([0.5, -1.0], [[1.0, 2.0], [3.0, 4.0]])),
    ],
)
def test_check_grad_complex_step_is_tiny(f, args):
    err = adcompiler.check_grad(f, *args)
    assert 0.0 <= err < 1e-14


def _table(f, *args, **kw):
    """check_grad's per-input table, forced out with a negative tolerance."""
    with pytest.raises(AssertionError) as info:
        adcompiler.check_grad(f, *args, tol=-1.0, **kw)
    lines = str(info.value).splitlines()
    header = lines[1].split()
    return header, [line.split() for line in lines[2:]]


def test_check_grad_table_shows_complex_step_only_where_it_applies():
    header, rows = _table(H.rational, 0.7, 1.3)
    assert "central" in header and "reverse" in header and "forward" in header
    assert [r[0] for r in rows] == ["x", "y"]
    for r in rows:
        assert r[4] != "-"  # complex step column filled in
        assert float(r[4]) == pytest.approx(float(r[1]), rel=1e-6)
    _, rows = _table(H.trig, 0.7, 1.3)
    assert [r[4] for r in rows] == ["-", "-"]  # math.sin rejects complex numbers
    _, rows = _table(H.rational_list, [0.7, 1.3, -0.4])
    assert [r[0] for r in rows] == ["xs[0]", "xs[1]", "xs[2]"]


# ============================================ list parameters: jacobian/hessian


def test_jacobian_of_gradient_is_hessian_for_list_params():
    # jacobian in both modes of a function with a list parameter vs the hessian
    xs = [1.2, 0.8, -0.5, 0.3]
    Hm = hess(H.rosen_n)(xs)
    check_close(Hm, Hm.T)
    J = jac(H.rosen_n)(xs)
    assert J.shape == (1, 4)
    from scipy.optimize import rosen_der

    check_close(J[0], rosen_der(np.array(xs)))


def test_hessian_rosen_n_vs_finite_differences_of_gradient():
    xs = [1.2, 0.8, -0.5]
    g = D(H.rosen_n)

    def grad_tuple(*a):
        return tuple(g.grad(list(a)))

    check_close(hess(H.rosen_n)(xs), fd_jac(grad_tuple, xs), rtol=1e-6, atol=1e-5)


def test_second_derivatives_leave_a_written_list_argument_alone():
    """f writes into its list argument: hessian and hvp run it on copies, and still agree with the
    Hessian of the same function written without the write (autograd)."""
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    xs, c = [0.5, -1.25, 2.0], 1.5
    want = autograd.hessian(lambda v: anp.sum((v[:-1] * v[-1]) ** 3))(np.array(xs + [c]))
    f = adcompiler.differentiate(H.scales_in_place)
    got = adcompiler.hessian_matrix(f)(xs, c)
    assert xs == [0.5, -1.25, 2.0]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    v = [1.0, 0.5, -2.0, 0.25]
    np.testing.assert_allclose(hvp(f)((xs, c), v), want @ np.array(v), rtol=1e-12)
    assert xs == [0.5, -1.25, 2.0]


def test_second_derivatives_through_a_helper_building_a_matrix_display():
    """A helper returning np.array([[t, t]]) (or a rotation [[c, -s], [s, c]]) keeps the shadows of the matrix
    and of its rows as residuals of one call, one list inside the other: forward mode over the reverse code
    gives them zeros together, one list (a Hessian of 0, and -19.0 for -9.3 of a pose fit, before)."""
    t = 0.3
    for second in (
        adcompiler.hessian(H.cubes_of_a_row)(t),
        adcompiler.hvp(H.cubes_of_a_row)(t, 1.0),
        adcompiler.jvp(adcompiler.grad(H.cubes_of_a_row), (t,), (1.0,))[1],
        adcompiler.jacfwd(adcompiler.jacrev(H.cubes_of_a_row))(t),
    ):
        assert float(second) == pytest.approx(12 * t, rel=1e-12)
    theta, p, q = 0.7, np.array([1.5, -0.4]), np.array([0.2, 0.9])
    # d/dtheta of |R p - q|^2 = 2 (R p - q) . R' p; again: 2 |R' p|^2 + 2 (R p - q) . R'' p, R'' = -R
    r, r1 = H.rotation(theta), np.array([[-np.sin(theta), -np.cos(theta)], [np.cos(theta), -np.sin(theta)]])
    want = 2 * (r1 @ p) @ (r1 @ p) - 2 * (r @ p - q) @ (r @ p)
    assert adcompiler.hessian(H.pose_residual)(theta, p, q) == pytest.approx(want, rel=1e-12)
    blocks = adcompiler.hessian(H.pose_residual, argnums=(0, 1))(theta, p, q)
    np.testing.assert_allclose(blocks[1][1], 2 * r.T @ r, rtol=1e-12, atol=1e-14)  # d2/dp2 = 2 R^T R = 2 I
    np.testing.assert_allclose(blocks[0][1], 2 * (r1.T @ (r @ p - q) + r.T @ (r1 @ p)), rtol=1e-12)


def test_transforms_of_transforms_through_a_vector_dot():
    """w @ w of vectors: the gradient code runs the product for its error only (known_arrays), an expression
    statement, which differentiating that code again refused at a line of the generated code."""
    rng = np.random.default_rng(4)
    w, X, y = rng.standard_normal(3), rng.standard_normal((5, 3)), rng.standard_normal(5)
    want = 2 * X.T @ X + 0.2 * np.eye(3)
    for second in (
        adcompiler.jacfwd(adcompiler.jacrev(H.ridge))(w, X, y),
        adcompiler.jacfwd(adcompiler.grad(H.ridge))(w, X, y),
        adcompiler.jacrev(adcompiler.jacfwd(H.ridge))(w, X, y),
        adcompiler.hessian(H.ridge)(w, X, y),
    ):
        np.testing.assert_allclose(second, want, rtol=1e-12)
    v = rng.standard_normal(3)
    np.testing.assert_allclose(adcompiler.jvp(adcompiler.grad(H.ridge), (w, X, y), (v, 0 * X, 0 * y))[1], want @ v)


def test_check_grad_keeps_a_small_tolerance_positive(tmp_path):
    """A Newton iteration's tolerance (tol=1e-12) checked by central differences: no step reaches half of it,
    so the while loop testing ``> tol * a`` ends (it ran forever with tol - 1e-2)."""
    namespace = written(
        tmp_path,
        "newton",
        "def newton_sqrt(a, tol=1e-12):\n    x = a if a > 1 else 1.0\n    while abs(x * x - a) > tol * a:\n"
        "        x = 0.5 * (x + a / x)\n    return x\n",
    )
    assert adcompiler.check_grad(namespace["newton_sqrt"], 7.0, 1e-12) < 1e-6


def test_infinite_derivatives_where_the_function_is_defined(tmp_path):
    """sqrt at 0, x ** 0.5 at 0, asin and acos at 1, acosh at 1: the function is defined there and its
    derivative infinite, +-inf as JAX gives it (Python's division raised ZeroDivisionError in generated
    code); elsewhere the derivative as before."""
    namespace = written(
        tmp_path,
        "poles",
        "import math\n\n\ndef root(x):\n    return math.sqrt(x)\n\n\ndef half(x):\n    return x ** 0.5\n\n\n"
        "def arcs(x):\n    return math.asin(x) - math.acos(x)\n\n\ndef hyper(x):\n    return math.acosh(x)\n",
    )
    for name, at, want in (
        ("root", 0.0, math.inf),
        ("half", 0.0, math.inf),
        ("arcs", 1.0, math.inf),
        ("hyper", 1.0, math.inf),
    ):
        f = namespace[name]
        assert adcompiler.grad(f)(at) == want and adcompiler.jvp(f, (at,), (1.0,)) == (f(at), want)
    assert adcompiler.grad(namespace["root"])(4.0) == 0.25 and adcompiler.grad(namespace["half"])(4.0) == 0.25
    assert adcompiler.grad(namespace["arcs"])(0.6) == pytest.approx(2 / math.sqrt(1 - 0.36), rel=1e-14)


def test_check_grad_of_a_function_taking_a_nested_derivative(tmp_path):
    """The complex step, pushed through a derivative adcompiler takes inside the function, is refused there (a
    complex argument): the check falls back to central differences (it raised the inner refusal)."""
    namespace = written(
        tmp_path,
        "nested_check",
        "import adcompiler\n\n\ndef energy(x, k):\n    return 0.5 * k * x ** 4\n\n\n"
        "def work(x, k):\n    return -adcompiler.grad(energy)(x, k) * x\n",
    )
    assert adcompiler.check_grad(namespace["work"], 0.7, 1.3) < 1e-6


def test_a_transform_of_a_transform_of_a_fresh_array_written_by_a_slice(tmp_path):
    """jacfwd(jacrev(heat)) of a time step writing a slice of a fresh array: refused before 2026-12-03 (the
    gradient code's tapes held the array written, which its own derivative then wrote into); the write's old
    entries are read by nothing, so nothing is kept (modes.plan.unread_writes) and the Hessian is taken."""
    namespace = written(
        tmp_path,
        "heat",
        "import numpy as np\n\n\ndef heat(u):\n    for _ in range(3):\n        lap = np.zeros_like(u)\n"
        "        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]\n        u = u + 0.1 * lap\n    return np.sum(u ** 3)\n",
    )
    u, heat, h = np.linspace(0.0, 1.0, 6) ** 2, namespace["heat"], 1e-4
    got = adcompiler.jacfwd(adcompiler.jacrev(heat))(u)
    eye = np.eye(len(u)) * h
    want = [
        [(heat(u + a + b) - heat(u + a - b) - heat(u - a + b) + heat(u - a - b)) / (4 * h * h) for b in eye]
        for a in eye
    ]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_hvp_of_a_partial_takes_its_keywords():
    """hvp(functools.partial(f, reg=3.0)): the bound keyword, not f's default (it used reg=1.0, with no
    error), and of a parameter with no default (a TypeError before)."""
    import functools

    x, v = np.array([1.0, 2.0]), np.array([1.0, 0.0])
    for f in (H.weighted_square, H.weighted_square_no_default):
        p = functools.partial(f, reg=3.0)
        np.testing.assert_allclose(adcompiler.hvp(p)(x, v), [6.0, 0.0])
        np.testing.assert_allclose(adcompiler.hessian(p)(x) @ v, [6.0, 0.0])


def test_reverse_over_reverse_through_an_array_display():
    """grad(grad(f)) of a function of a number building np.array([a, 2a]): the adjoint of the gradient code's
    add_into(d_t, d_M), an array added into a list's shadow, is the shadow's adjoint as an array (a NameError
    in generated code, d_d_M, before)."""
    a = 0.3
    assert adcompiler.grad(adcompiler.grad(H.cubes_of_a_display))(a) == pytest.approx(54 * a, rel=1e-12)
    d = adcompiler.differentiate(adcompiler.differentiate(H.cubes_of_a_display).grad)
    assert d.grad(a) == pytest.approx(54 * a, rel=1e-12)


def test_a_hessian_through_a_nested_derivative_of_numpy_code(tmp_path):
    """hessian of a gradient-norm penalty (adcompiler.grad inside): a third derivative of NumPy code, refused
    before (the adjoints of gradient code's helpers had no rules), against the analytic 480 x^4."""
    namespace = written(
        tmp_path,
        "penalty",
        "import numpy as np\nimport adcompiler\n\n\ndef energy(x):\n    return np.sum(x ** 4)\n\n\n"
        "def penalty(x):\n    g = adcompiler.grad(energy)(x)\n    return np.sum(g ** 2)\n",
    )
    x = np.array([0.3, -0.8, 1.1])
    np.testing.assert_allclose(adcompiler.hessian(namespace["penalty"])(x), np.diag(480.0 * x**4), rtol=1e-12)


def test_hvp_takes_keywords_at_the_call():
    """hvp(f)(x, v, reg=3.0), as hessian(f)(x, reg=3.0) takes them (an unexpected keyword before), of a
    function and of a Differentiable."""
    x, v = np.array([1.0, 2.0]), np.array([1.0, 1.0])
    want = adcompiler.hessian(H.weighted_square)(x, reg=3.0) @ v
    np.testing.assert_allclose(want, [6.0, 6.0])
    np.testing.assert_allclose(adcompiler.hvp(H.weighted_square)(x, v, reg=3.0), want)
    d = adcompiler.differentiate(H.weighted_square, wrt=("x",))
    np.testing.assert_allclose(adcompiler.hvp(d)(x, v, reg=3.0), want)


@pytest.mark.parametrize(
    "f, second, third",
    [
        (H.joined_times, lambda x: 2.0, lambda x: 0.0),
        (H.joined_with_itself, lambda x: 2.0, lambda x: 0.0),
        (H.repeated, lambda x: 6 * x + 4, lambda x: 6.0),
        (H.grown, lambda x: 6 * x, lambda x: 6.0),
        (H.derivative_inside, lambda x: 4.0, lambda x: 0.0),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_reverse_over_reverse_through_joins_and_repeats_of_lists(f, second, third):
    """grad(grad(f)) where f joins or repeats lists: the first derivative's code adds parts of the join's
    adjoint into each list's (``add_part_into``, ``add_tiled_into``), which reverse mode over it dropped (1.0
    for 2.0, 0.0 for 2.0, 1.4 for 4.2); the third derivative too, and against the Hessian (forward over reverse)."""
    x = 0.7
    assert adcompiler.grad(adcompiler.grad(f))(x) == pytest.approx(second(x), rel=1e-12, abs=1e-12)
    assert adcompiler.hessian(f)(x) == pytest.approx(second(x), rel=1e-12, abs=1e-12)
    if f is not H.derivative_inside:
        assert adcompiler.grad(adcompiler.grad(adcompiler.grad(f)))(x) == pytest.approx(third(x), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    "f, second",
    [(H.inner_gradient_over_a_list, lambda x: 2.0), (H.inner_gradient_summed_in_a_loop, lambda x: 8 + 24 * x)],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_reverse_over_reverse_of_an_inner_gradient_over_a_list(f, second):
    """An inner ``adcompiler.grad`` with respect to a list, inside the function: its forward sweep returns the
    gradient's list and keeps it in its residuals, one object; its shadow was two lists of zeros, and reverse
    mode over the code lost what the caller added into one (grad(grad) 0.0 for 2.0, 15.2 for 24.8)."""
    x = 0.7
    assert adcompiler.grad(adcompiler.grad(f))(x) == pytest.approx(second(x), rel=1e-12)
    assert adcompiler.vjp(adcompiler.grad(f), x)[1](1.0)[0] == pytest.approx(second(x), rel=1e-12)
    assert adcompiler.hessian(f)(x) == pytest.approx(second(x), rel=1e-12)


@pytest.mark.parametrize("third", ["jacfwd of hessian", "hessian of grad"])
def test_a_third_derivative_refused_is_told_at_the_users_line(tmp_path, third):
    """A third derivative through ``np.prod`` (its second derivative's code calls ``prod_vjp_jvp``, which has no
    rule): refused at the user's line with the order named, not at a line of the second derivative's code."""
    path = tmp_path / "products.py"
    path.write_text("import numpy as np\n\n\ndef p(x):\n    y = x * 2.0\n    return np.prod(y)\n")
    namespace = written(tmp_path, "products", path.read_text())
    x = np.array([0.3, 0.5, 0.7])
    make = {
        "jacfwd of hessian": lambda f: adcompiler.jacfwd(adcompiler.hessian(f)),
        "hessian of grad": lambda f: adcompiler.hessian(adcompiler.grad(f)),
    }[third]
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as e:
        make(namespace["p"])(x)
    assert e.value.filename == str(path) and e.value.lineno == 6
    assert "a third derivative" in str(e.value) and "prod_vjp_jvp" in str(e.value)
    assert "<adcompiler" not in str(e.value)
