"""Plain functions for tests/test_higher.py (jacobian, hessian, hvp, defrule,
check_grad and derivatives of derivatives).

adcompiler reads source through inspect, so these live in a file.  Every
function here stays inside the supported subset (floats, math, if/for/while,
lists).  The ``*_target`` functions are the ones tests give rules with
``adcompiler.defrule``; each is registered by exactly one test, since rules
are global, keyed by the function object.
"""

import math

import adcompiler

# ------------------------------------------------------------- Jacobians


def polar(r, theta):
    """Polar to Cartesian coordinates."""
    return r * math.cos(theta), r * math.sin(theta)


def quat_rotate(qw, qx, qy, qz, vx, vy, vz):
    """Rotate v by the quaternion q: v + 2 w (u x v) + 2 u x (u x v), u = (qx, qy, qz)."""
    cx = qy * vz - qz * vy
    cy = qz * vx - qx * vz
    cz = qx * vy - qy * vx
    ccx = qy * cz - qz * cy
    ccy = qz * cx - qx * cz
    ccz = qx * cy - qy * cx
    return (
        vx + 2.0 * qw * cx + 2.0 * ccx,
        vy + 2.0 * qw * cy + 2.0 * ccy,
        vz + 2.0 * qw * cz + 2.0 * ccz,
    )


def cumprod(xs):
    """Running products of a list: a list in, a list out."""
    out = []
    p = 1.0
    for x in xs:
        p = p * x
        out.append(p)
    return out


def softmax(xs):
    """Softmax of a list (a list out), shifted by the maximum."""
    m = max(xs)
    es = [math.exp(x - m) for x in xs]
    s = sum(es)
    return [e / s for e in es]


def scaled_list(xs, a):
    """A list parameter and a scalar parameter; a list out."""
    n = len(xs)
    out = [0.0] * n
    for i in range(n):
        out[i] = a * xs[i] ** 2 + xs[(i + 1) % n]
    return out


def branchy(x, y, z):
    """Loops, a while loop with a data-dependent trip count and branches; tuple out."""
    acc = 0.0
    for i in range(4):
        if x > 0.5 * i:
            acc += x * y ** (i + 1)
        else:
            acc -= math.sin(z * i)
    t = z
    k = 0
    while t < 10.0 and k < 20:
        t = t * 1.7 + y * y
        k += 1
    if acc > t:
        w = acc - t
    else:
        w = t * math.cos(x)
    return acc * z, w, math.exp(-x * x) * t


def list_loop(xs, c):
    """A list input, early break, max and abs; a tuple of a list and a scalar out."""
    out = []
    total = 0.0
    for i, x in enumerate(xs):
        if total > 50.0:
            break
        v = abs(x) * c + max(x, c) * xs[len(xs) - 1 - i]
        total += v * v
        out.append(math.tanh(v))
    return out, total


def matvec(rows, xs):
    """A list of lists times a list (linear in each argument)."""
    out = []
    for row in rows:
        s = 0.0
        for a, x in zip(row, xs):
            s += a * x
        out.append(s)
    return out


# ------------------------------------------------------------- Hessians


def rosen2(x, y):
    return (1.0 - x) ** 2 + 100.0 * (y - x * x) ** 2


def rosen_n(xs):
    total = 0.0
    for i in range(len(xs) - 1):
        total += 100.0 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1.0 - xs[i]) ** 2
    return total


def quad_form(xs, A):
    """x^T A x with x a list and A a list of lists."""
    n = len(xs)
    total = 0.0
    for i in range(n):
        for j in range(n):
            total += xs[i] * A[i][j] * xs[j]
    return total


def logsumexp(xs):
    m = max(xs)
    s = 0.0
    for x in xs:
        s += math.exp(x - m)
    return m + math.log(s)


def mixed_scalar(x, ys, z):
    """A scalar function of a scalar, a list and a scalar."""
    s = 0.0
    for i in range(len(ys)):
        s += math.sin(x * ys[i]) + ys[i] ** 3 * z
    return s * z + math.exp(x * z)


# ----------------------------------------------------- third derivatives


def poly(x):
    return 3.0 * x**4 - 2.0 * x**3 + x - 5.0


def sin_x3(x):
    return math.sin(x) * x**3


def exp_over_x(x):
    return math.exp(x) / x


# --------------------------------------------------------------- defrule


def softplus_target(x):
    """softplus, written stably; its derivative comes from a rule (the sigmoid)."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def uses_softplus(x, y):
    return softplus_target(x * y) + 0.5 * softplus_target(y - x)


def newton_sqrt_target(a):
    """sqrt(a) by Newton's iteration (a > 0); given an implicit derivative rule."""
    x = a if a > 1.0 else 1.0
    k = 0
    while abs(x * x - a) > 1e-15 * a and k < 100:
        x = 0.5 * (x + a / x)
        k += 1
    return x


def uses_newton_sqrt(a, b):
    return newton_sqrt_target(a * b) + a * newton_sqrt_target(b)


def newton_sqrt_wrong_target(a):
    """The same solver as newton_sqrt_target, a separate function object: given a wrong rule."""
    x = a if a > 1.0 else 1.0
    k = 0
    while abs(x * x - a) > 1e-15 * a and k < 100:
        x = 0.5 * (x + a / x)
        k += 1
    return x


def uses_newton_sqrt_wrong(a, b):
    return newton_sqrt_wrong_target(a * b) + a * newton_sqrt_wrong_target(b)


def newton_sqrt_plain(a):
    """The same solver without any rule: differentiated through its loop."""
    x = a if a > 1.0 else 1.0
    k = 0
    while abs(x * x - a) > 1e-15 * a and k < 100:
        x = 0.5 * (x + a / x)
        k += 1
    return x


# ------------------------------------------------------------ check_grad


def rational(x, y):
    """Operators only (** and /): the complex step applies."""
    return (x**3 - 2.0 * x * y + y**2) / (1.0 + x**2) + y**4 / 3.0


def rational_list(xs):
    total = 0.0
    for i in range(len(xs)):
        total += xs[i] ** 3 / (2.0 + xs[i] ** 2) - xs[i] * xs[(i + 1) % len(xs)]
    return total


def trig(x, y):
    """Uses math: the complex step does not apply (math.sin rejects complex)."""
    return math.sin(x * y) + math.exp(x) * math.cos(y)


def vec_out(x, y):
    return x * y, x / y, x**2 - y


def logsumexp_loopmax(xs):
    """log-sum-exp with the shift found by two-argument max in a loop."""
    m = xs[0]
    for x in xs:
        m = max(m, x)
    s = 0.0
    for x in xs:
        s += math.exp(x - m)
    return m + math.log(s)


def scale_target(x, c):
    """x * c; given a rule that records the tangents it is passed."""
    return x * c


def uses_scale(x, c):
    return scale_target(x * x, c) + c


def lambda_rule_target(x):
    """3 x; given rules written as lambdas."""
    return 3.0 * x


def uses_lambda_rule(x):
    return lambda_rule_target(x) * x / x


def helper_poly(x, y):
    return x * math.sin(y) + y * y


def calls_helper(a, b):
    """A scalar function that calls another user function."""
    return helper_poly(a, b) * a


def scales_in_place(xs, c):
    """Writes into its list argument: a Hessian or H v must leave the caller's list as it was."""
    for i in range(len(xs)):
        xs[i] = xs[i] * c
    s = 0.0
    for x in xs:
        s = s + x * x * x
    return s


import numpy as np  # noqa: E402  (the matrices a helper builds as nested displays, below)


def row_of(t):
    return np.array([[t, t]])


def cubes_of_a_row(t):
    return np.sum(row_of(t) ** 3)  # 2 t^3: its second derivative 12 t


def rotation(theta):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def pose_residual(theta, p, q):
    return np.sum((rotation(theta) @ p - q) ** 2)


def ridge(w, X, y):
    r = X @ w - y
    return r @ r + 0.1 * (w @ w)  # (a vector dot: the gradient code checks the lengths, w @ w, for its error)


def weighted_square(x, reg=1.0):
    return reg * np.sum(x**2)


def weighted_square_no_default(x, reg):
    return reg * np.sum(x**2)


def cubes_of_a_display(a):
    M = np.array([a, 2.0 * a])
    return np.sum(M**3)  # 9 a^3: its second derivative 54 a


def joined_times(x):
    c = [x] + [1.0]
    return c[0] * x  # x**2


def joined_with_itself(x):
    b = [x]
    c = b + b
    return c[0] * c[1]  # x**2


def repeated(x):
    t = [x, x * x]
    u = t * 3
    return u[0] * u[5] + sum(u[1:4])  # x**3 + 2 x**2 + x


def grown(x):
    acc = [x]
    for _ in range(2):
        acc = acc + [acc[-1] * x]
    return acc[-1]  # x**3


def derivative_inside(x):
    return adcompiler.grad(joined_times)(x) * x  # 2 x**2


def _lin(y, cs):
    s = 0.0
    for i in range(2):
        s = s + cs[i] * y**i
    return s


def inner_gradient_over_a_list(x):
    g = adcompiler.grad(_lin, argnums=1)(x, [1.0, 2.0])  # [1, x]
    return g[1] * g[1]  # x**2


def _lsum(xs, c):
    s = 0.0
    for v in xs:
        s = s + c * v * v
    return s


def inner_gradient_summed_in_a_loop(x):
    g = adcompiler.grad(_lsum)([x, x * x], 2.0)  # [4 x, 4 x**2]
    s = 0.0
    for v in g:
        s = s + v * x
    return s  # 4 x**2 + 4 x**3
