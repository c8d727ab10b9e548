"""Saddle point by nested gradient descent (GradBench eval ``saddle``; Pearlmutter and Siskind).

min over x of max over y of f(x, y) = (x_1^2 + y_1^2) - (x_2^2 + y_2^2), every descent starting at
``start``, where the README's (x_1, y_1) is the first point and (x_2, y_2) the second (as
GradBench's implementations read it: ``f x1 y1 x2 y2`` applied to ``p1[0] p1[1] p[0] p[1]``).  The cost of a point x is the value of the inner maximisation over y, which takes
gradients of f with respect to y (the inner AD); the outer descent takes the gradient of that cost
with respect to x, through the inner descent (the outer AD): nested AD.  Then y maximises f at the
found x.  The eval's four functions name the modes: first letter the outer (argmin and the final
argmax), second the inner; ``f`` forward mode (one ``jvp`` per direction), ``r`` reverse mode.

The inner ascent is written out in ``inner_max`` (the function the outer AD differentiates)
rather than as a call of the generic ``argmin`` with lambdas, which is the more usual Python; see
``r1_cost_higher_order`` for that spelling.
"""

import numpy as np

import adcompiler

from .kept import differentiated


def f(x, y):
    """The function whose saddle point is sought."""
    return (x[0] * x[0] + x[1] * x[1]) - (y[0] * y[0] + y[1] * y[1])


def grad_y(x, y, forward):
    """df/dy, by forward mode (a jvp per direction) or reverse mode."""
    if forward:
        _, d0 = adcompiler.jvp(f, (x, y), (np.zeros(2), np.array([1.0, 0.0])))
        _, d1 = adcompiler.jvp(f, (x, y), (np.zeros(2), np.array([0.0, 1.0])))
        return np.array([d0, d1])
    return adcompiler.grad(f, argnums=1)(x, y)


def inner_max(x, start, inner_forward):
    """max over y of f(x, y), by gradient ascent from ``start`` (the steps of ``argmin`` on -f)."""
    y = start
    fy = -f(x, y)
    gy = -grad_y(x, y, inner_forward)
    eta = 1e-5
    i = 0
    while np.linalg.norm(gy) > 1e-5:
        if i == 10:
            eta = 2.0 * eta
            i = 0
            continue
        y_prime = y - eta * gy
        if np.linalg.norm(y - y_prime) <= 1e-5:
            break
        fy_prime = -f(x, y_prime)
        if fy_prime < fy:
            y = y_prime
            fy = fy_prime
            gy = -grad_y(x, y, inner_forward)
            i += 1
        else:
            eta = eta / 2.0
            i = 0
    return f(x, y)


def argmin(f, g, x):
    """Gradient descent with an adaptive step (GradBench's ``multivariate_argmin``)."""
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


def outer_gradient(d, x, args, forward):
    """The gradient of ``d`` (a differentiated function of a 2-vector first) at ``x``."""
    if forward:
        _, d0 = d.jvp((x,) + args, (np.array([1.0, 0.0]),))
        _, d1 = d.jvp((x,) + args, (np.array([0.0, 1.0]),))
        return np.array([d0, d1])
    return d.grad(x, *args)


def solve(start, outer_forward, inner_forward, backend="python"):
    """(x, y) at the saddle point, concatenated."""
    start = np.asarray(start, dtype=float)
    cost = differentiated(inner_max, ("x",), backend)
    x = argmin(
        lambda x: cost.value(x, start, inner_forward),  # (compiled under numba, as JAX's port jits its objective)
        lambda x: outer_gradient(cost, x, (start, inner_forward), outer_forward),
        start,
    )
    ascent = differentiated(f, ("y",), backend)
    y = argmin(
        lambda y: -ascent.value(x, y),
        lambda y: -outer_gradient_y(ascent, x, y, outer_forward),
        start,
    )
    return np.concatenate((x, y))


def outer_gradient_y(d, x, y, forward):
    """df/dy of ``d`` (f differentiated with respect to y) at (x, y)."""
    if forward:
        _, d0 = d.jvp((x, y), (np.array([1.0, 0.0]),))
        _, d1 = d.jvp((x, y), (np.array([0.0, 1.0]),))
        return np.array([d0, d1])
    return d.grad(x, y)


def r1_cost_higher_order(x, start, inner_forward):
    """inner_max spelt with the generic solver and lambdas (the usual Python; not used by the tool)."""
    y = argmin(lambda y: -f(x, y), lambda y: -grad_y(x, y, inner_forward), start)
    return f(x, y)


def rr(start, backend="python"):
    return solve(start, outer_forward=False, inner_forward=False, backend=backend)


def rf(start, backend="python"):
    return solve(start, outer_forward=False, inner_forward=True, backend=backend)


def fr(start, backend="python"):
    return solve(start, outer_forward=True, inner_forward=False, backend=backend)


def ff(start, backend="python"):
    return solve(start, outer_forward=True, inner_forward=True, backend=backend)
