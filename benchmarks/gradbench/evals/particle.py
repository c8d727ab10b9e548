"""Charged particle trajectory (GradBench eval ``particle``; Pearlmutter and Siskind's benchmark).

A particle starts at (0, 8) with velocity (0.75, 0) in the field of two unit charges at (10, 0) and
(10, 10 - w).  Naive Euler steps (dt = 0.1) run until it crosses the x axis, where the crossing
point x_0(t_f) follows by linear interpolation; the control ``w`` is chosen by gradient descent to
minimise x_0(t_f)^2.  The force is minus the gradient of the potential, so the Euler loop holds a
derivative (the inner AD) and the descent differentiates through it (the outer AD): nested AD.

The eval's four functions name the mode of each: the first letter the argmin's (outer), the second
the Euler loop's (inner); ``f`` is forward mode (one ``jvp`` per direction), ``r`` reverse mode.

Alternative spellings of the inner derivative, for when one is refused (see the report in
``docs/performance.md``): a module-level ``grad_potential = adcompiler.grad(potential)`` called
in the loop; ``adcompiler.differentiate(potential).grad(x, w)``; ``adcompiler.value_and_grad``;
or no inner AD at all (``force_analytic``), which checks the algorithm but is not the eval.
"""

import numpy as np

import adcompiler

from .kept import differentiated

DELTA_T = 1e-1


def potential(x, w):
    """Electric potential at ``x`` of the unit charges at (10, 10 - w) and (10, 0)."""
    return 1.0 / np.linalg.norm(x - np.array([10.0, 10.0 - w])) + 1.0 / np.linalg.norm(x - np.array([10.0, 0.0]))


def force_reverse(x, w):
    """-grad_x potential, by reverse mode."""
    return -adcompiler.grad(potential)(x, w)


def force_forward(x, w):
    """-grad_x potential, by forward mode: one jvp per coordinate direction."""
    _, dx = adcompiler.jvp(potential, (x, w), (np.array([1.0, 0.0]), 0.0))
    _, dy = adcompiler.jvp(potential, (x, w), (np.array([0.0, 1.0]), 0.0))
    return -np.array([dx, dy])


def force_analytic(x, w):
    """-grad_x potential written out by hand (no AD; for checking the rest of the algorithm)."""
    d1 = x - np.array([10.0, 10.0 - w])
    d2 = x - np.array([10.0, 0.0])
    return d1 / np.linalg.norm(d1) ** 3 + d2 / np.linalg.norm(d2) ** 3


def naive_euler(w, inner_forward):
    """x_0(t_f)^2, where the particle's path crosses the x axis at t_f."""
    x = np.array([0.0, 8.0])
    xdot = np.array([0.75, 0.0])
    while True:
        if inner_forward:
            xddot = force_forward(x, w)
        else:
            xddot = force_reverse(x, w)
        x_new = x + DELTA_T * xdot
        if x_new[1] > 0.0:
            x = x_new
            xdot = xdot + DELTA_T * xddot
        else:
            break
    delta_t_f = -x[1] / xdot[1]
    x_t_f = x + delta_t_f * xdot
    return x_t_f[0] * x_t_f[0]


def naive_euler_analytic(w):
    """naive_euler with the analytic force: the same numbers without the inner AD."""
    x = np.array([0.0, 8.0])
    xdot = np.array([0.75, 0.0])
    while True:
        xddot = force_analytic(x, w)
        x_new = x + DELTA_T * xdot
        if x_new[1] > 0.0:
            x = x_new
            xdot = xdot + DELTA_T * xddot
        else:
            break
    delta_t_f = -x[1] / xdot[1]
    x_t_f = x + delta_t_f * xdot
    return x_t_f[0] * x_t_f[0]


def argmin(f, g, x):
    """Gradient descent with an adaptive step (GradBench's ``multivariate_argmin``): ``g`` is the
    gradient of ``f``; stops when the gradient or the step is below 1e-5."""
    fx = f(x)
    gx = g(x)
    eta = 1e-5
    i = 0
    while np.linalg.norm(gx) > 1e-5:
        if i == 10:
            eta = 2.0 * eta
            i = 0
            continue
        x_prime = x - eta * gx
        if np.linalg.norm(x - x_prime) <= 1e-5:
            break
        fx_prime = f(x_prime)
        if fx_prime < fx:
            x, fx, gx = x_prime, fx_prime, g(x_prime)
            i += 1
        else:
            eta = eta / 2.0
            i = 0
    return x


def solve(w0, outer_forward, inner_forward, backend="python"):
    """The w that minimises x_0(t_f)^2, from ``w0``; ``backend`` is adcompiler's for the outer
    derivative."""
    d = differentiated(naive_euler, ("w",), backend)

    def objective(w):
        return d.value(w[0], inner_forward)  # (compiled under numba, as JAX's port jits its objective)

    def gradient(w):
        if outer_forward:
            _, dw = d.jvp((w[0], inner_forward), (1.0,))
        else:
            dw = d.grad(w[0], inner_forward)
        return np.array([dw])

    return argmin(objective, gradient, np.array([w0]))[0]


def rr(w0, backend="python"):
    return solve(w0, outer_forward=False, inner_forward=False, backend=backend)


def rf(w0, backend="python"):
    return solve(w0, outer_forward=False, inner_forward=True, backend=backend)


def fr(w0, backend="python"):
    return solve(w0, outer_forward=True, inner_forward=False, backend=backend)


def ff(w0, backend="python"):
    return solve(w0, outer_forward=True, inner_forward=True, backend=backend)
