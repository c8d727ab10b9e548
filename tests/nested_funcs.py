"""Functions that call a derivative inside themselves (nested AD, issue 35): each is differentiated
again by tests/test_nested.py, in forward and in reverse mode.  The inner derivative is spelt every
way the API gives one: ``adcompiler.grad(f)(...)``, ``adcompiler.jvp(f, primals, tangents)``,
``adcompiler.value_and_grad``, a module-level ``g = adcompiler.grad(f)``, ``differentiate(f).grad``
and a module-level Differentiable's ``.grad`` / ``.jvp``."""

import math

import numpy as np

import adcompiler


def add(x, y):
    return x + y


def mul(x, y):
    return x * y


# The classic perturbation-confusion cases (Siskind and Pearlmutter): d/dx (x * d/dy (x + y)) = 1 and
# d/dx (x * d/dy (x * y)) = 2x; a derivative that confused the two perturbations gives 2 and 3x.


def classic_add_reverse(x):
    return x * adcompiler.grad(add, argnums=1)(x, 1.0)


def classic_add_forward(x):
    _, d = adcompiler.jvp(add, (x, 1.0), (0.0, 1.0))
    return x * d


def classic_mul_reverse(x):
    return x * adcompiler.grad(mul, argnums=1)(x, 2.0)


def classic_mul_forward(x):
    _, d = adcompiler.jvp(mul, (x, 2.0), (0.0, 1.0))
    return x * d


grad_mul_y = adcompiler.grad(mul, argnums=1)  # a module-level derivative, called inside


def classic_module_name(x):
    return x * grad_mul_y(x, 2.0)


d_mul = adcompiler.differentiate(mul, wrt=("y",))


def classic_differentiable(x):
    return x * d_mul.grad(x, 2.0) + adcompiler.differentiate(mul, wrt=("y",)).grad(x, 3.0)


def classic_differentiable_jvp(x):
    _, d = d_mul.jvp((x, 2.0), (1.0,))
    return x * d


def classic_value_and_grad(x):
    v, (g,) = adcompiler.value_and_grad(mul, argnums=(1,))(x, 2.0)
    return v * g  # 2x * x


# Arrays: the gradient of a function of a vector, used inside another.


def energy(x, w):
    return np.sum(np.sin(x) * x[0]) + w * np.sum(x * x) ** 2


def grad_norm_reverse(x, w):
    g = adcompiler.grad(energy)(x, w)
    return np.sum(g * g) + w * g[1]


def grad_norm_both(x, w):
    gx, gw = adcompiler.grad(energy, argnums=(0, 1))(x, w)
    return np.sum(gx * gx) * gw


def directional_forward(x, w):
    _, d0 = adcompiler.jvp(energy, (x, w), (np.array([1.0, 0.0, 0.0]), 0.0))
    _, d1 = adcompiler.jvp(energy, (x, w), (np.array([0.0, 1.0, 0.0]), 0.0))
    return d0 * d0 + np.sin(d1) * w


# Refused spellings (located, saying what to write instead)


def uses_vjp(x):
    out, pullback = adcompiler.vjp(mul, x, 2.0)
    return out


def uses_has_aux(x):
    return adcompiler.grad(mul, has_aux=True)(x, 2.0)[0]


def _keyed(d):
    return d["a"] * d["b"] ** 2


def uses_a_dict(x):
    g = adcompiler.grad(_keyed)({"a": x, "b": 2.0 * x})
    return g["a"] + g["b"]


def curvature_forward_over_reverse(x, w):
    """v . H v by a jvp of the gradient (forward over reverse inside), differentiated again outside."""
    v = np.array([1.0, -2.0, 0.5])
    _, hv = adcompiler.jvp(adcompiler.grad(energy), (x, w), (v, 0.0))
    return np.sum(v * hv)


def uses_hessian(x):
    return adcompiler.hessian(mul, argnums=0)(x, 2.0)


def pair(x, w):
    return -np.array([x * w, x + w])


def last_pass_unused(w):
    """A list made an array in a loop pass that break leaves before using it: its adjoint stays 0.0."""
    x, s, i = 1.0, 0.0, 0
    while True:
        a = pair(x, w)
        if i > 2:
            break
        s = s + a[0]
        i += 1
    return s


def charge_potential(x, w):
    """particle's potential: a charge placed by w (its position an array of a list)."""
    return 1.0 / np.linalg.norm(x - np.array([10.0, 10.0 - w]))


def euler_with_inner_forces(w, inner_forward):
    """particle's naive Euler loop in small (three steps): the force is the inner derivative, by
    forward mode (a jvp per direction) or by reverse mode."""
    x = np.array([0.0, 8.0])
    xdot = np.array([0.75, 0.0])
    for step in range(3):
        if inner_forward:
            _, fx = adcompiler.jvp(charge_potential, (x, w), (np.array([1.0, 0.0]), 0.0))
            _, fy = adcompiler.jvp(charge_potential, (x, w), (np.array([0.0, 1.0]), 0.0))
            xddot = -np.array([fx, fy])
        else:
            xddot = -adcompiler.grad(charge_potential)(x, w)
        x = x + 0.1 * xdot
        xdot = xdot + 0.1 * xddot
    return x[0] * x[0] + x[1]


def charge_force(x, w):
    """The force of charge_potential: a helper holding an inner derivative."""
    return -adcompiler.grad(charge_potential)(x, w)


def pushed_by_a_constant_field(v, w):
    """A helper holding an inner derivative called on values that are not differentiated (``w`` and
    the fixed point): a call of its value only, beside the differentiated ``v``."""
    f = charge_force(np.array([1.0, 2.0]), w)
    return np.sum(v * f) + np.sum(v * v)


def rolled(x, y, p):
    """A loop whose gradient code lets arrays go around it (``del``): that code differentiated again."""
    u = x
    for _ in range(3):
        u = np.arctan(np.arctan(y[:, None] * x) - u)
        p = 4.0 * np.tanh(p + p)
    return np.sum(u * u) / (2.0 + np.sin(p))


def sum_squares(xs, s):
    """A sum over a list or an array alike: s * sum of squares (the code of either signature)."""
    total = 0.0
    for i in range(len(xs)):
        total = total + xs[i] * xs[i]
    return s * total


# ---- the inner derivative of a local function: a lambda or def closing over the enclosing function's
# variables (lifted by front.closures: what it reads first, then its own parameters)


def closure_add_lambda(x):
    return x * adcompiler.grad(lambda y: x + y)(1.0)  # d/dx = 1 (confused: 2)


def closure_mul_def(x):
    def inner(y):
        return x * y

    return x * adcompiler.grad(inner)(2.0)  # x * x


def closure_named_lambda(x):
    h = lambda t, s: t * s * x  # noqa: E731
    return adcompiler.grad(h, argnums=1)(x, 2.0)  # x * x


def closure_value_and_grad(x):
    v, g = adcompiler.value_and_grad(lambda t: t * t * x)(x)
    return v + g  # x**3 + 2 x**2


def closure_tuple_argnums(x, y):
    ga, gb = adcompiler.grad(lambda a, b: a * b * y + a, argnums=(0, 1))(x, 2.0)
    return ga * gb  # (2 y + 1) x y


def closure_in_loop(x):
    total = 0.0
    for k in range(3):
        total = total + adcompiler.grad(lambda t: t**2 * k)(x)  # 2 x k
    return total * x  # 6 x**2


def closure_over_arrays(w, data):
    v, g = adcompiler.value_and_grad(lambda p: np.sum((p * data) ** 2))(w)
    return v + np.sum(g * w)  # 3 sum(w**2 data**2)


def spectral_norm(A):
    return np.linalg.norm(A, ord=2)


def nuclear_norm(A):
    return np.linalg.norm(A, "nuc")


def outer_of_spectral_norm(A):
    return np.sum(adcompiler.grad(spectral_norm)(A) * A)


def outer_of_nuclear_norm(A):
    return np.sum(adcompiler.grad(nuclear_norm)(A) * A)


def cube(t):
    return t**3


def quartic_energy(x, a):
    return a * x**4 / 4.0 - x * x / 2.0


def local_alias_of_grad(x):
    g = adcompiler.grad(cube)
    return g(x) * x


def local_alias_of_differentiate(x):
    d = adcompiler.differentiate(cube)
    return d.grad(x) * x


def local_alias_of_a_lambdas_grad(x):
    g = adcompiler.grad(lambda y: x + y)  # d/dx (x * d/dy (x + y)) = 1: no perturbation confusion
    return x * g(1.0)


def curvature(a):
    return adcompiler.grad(adcompiler.grad(quartic_energy))(1.5, a)  # a * 3 * 1.5**2 - 1


def jvp_of_a_local_def(x, y):
    def q(s):
        return s * s * y + np.sin(s)

    v, t = adcompiler.jvp(q, (x,), (1.0,))
    return t * y


def _indexed(xs):
    return xs[0] * xs[1] + xs[1] ** 2


def grad_of_a_list_made_here(a):
    g = adcompiler.grad(_indexed)([a, 2.0 * a])  # a list only indexed: the inner code for a list
    return g[0] + g[1] * a


def grad_of_a_list_in_a_loop(a):
    xs = [a, 2.0 * a]
    s = 0.0
    for k in range(2):
        g = adcompiler.grad(_indexed)(xs)
        s = s + g[0] * g[1] * (k + 1)
    return s


def value_and_grad_of_a_list_copied(a):
    xs = [a]
    xs.append(3.0)
    v, g = adcompiler.value_and_grad(_indexed)(list(xs))
    return v * g[1]


def jvp_of_a_list(a):
    v, t = adcompiler.jvp(_indexed, ([a, 1.0],), ([1.0, a],))
    return v * t


def grad_of_a_list_argument(xs):
    g = adcompiler.grad(_indexed)(xs)
    return g[0] * g[1]


def _products(x):
    m = x.reshape(2, 2)
    return np.sum(m @ m * x[0]) + np.mean(np.exp(x[1:]) * x[:-1])


def gradient_of_products(a):
    g = adcompiler.grad(_products)(np.array([a, 2.0 * a, 0.5, a * a]))
    return g[0] * g[1] + np.sum(g)


def _covariance(x):
    return np.sum(np.cov(x.reshape(2, 2)))


def gradient_of_a_covariance(a):
    g = adcompiler.grad(_covariance)(np.array([a, 2.0 * a, 0.5, a * a]))
    return g[0] * g[1]


def loop_over_a_slice_of_rows(ps, x):
    h = x
    for p in ps[1:]:  # a slice of a list of lists: a new list sharing the rows
        h = math.tanh(p[0] * h + p[1])
    return h * h


def _rotation(t):
    return np.array([[np.cos(t), np.sin(t)], [t, t * t]])  # np.array of nested lists, in a helper


def rotated(t, p):
    return np.sum(_rotation(t) @ p * p) * t


def self_product(d):
    """d @ d: an array, though no NumPy function is called (the inner code's signature: numbers or arrays)."""
    return d @ d


def of_the_gradient_of_a_product(q):
    g = adcompiler.grad(self_product)(q)  # 2 q
    return np.sum(g**2)  # 4 |q|^2
