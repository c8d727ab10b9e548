"""Vector-valued programs for the reverse Jacobian's rows (tests/test_jacobian_rows.py)."""

import math


def rotate(v, q):
    ux, uy, uz, s = q[0], q[1], q[2], q[3]
    vx, vy, vz = v[0], v[1], v[2]
    a = 2.0 * (ux * vx + uy * vy + uz * vz)
    b = s * s - (ux * ux + uy * uy + uz * uz)
    c = 2.0 * s
    return [a * ux + b * vx + c * (uy * vz - uz * vy), a * uy + b * vy + c * (uz * vx - ux * vz), a * uz + b * vz]


def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


def looped(xs, k):
    """A loop (taped), a float parameter, a list output of a known length."""
    s = 0.0
    p = 1.0
    for i in range(len(xs)):
        s = s + math.sin(xs[i] * k)
        p = p * (1.0 + xs[i] * xs[i])
    return [s, p, s * p]


def scale(x):
    return 2.0 * x


def with_helper(x, y):
    a = scale(x * y)
    return (a + y, math.exp(a), a * a)


def growing(xs):
    """An output of a length the signature does not tell: the Jacobian takes one vjp per row."""
    out = []
    for i in range(len(xs)):
        out.append(xs[i] * xs[i])
    return out


def counted(xs, n):
    """An int parameter (not differentiated)."""
    s = 0.0
    for i in range(n):
        s = s + xs[i]
    return (s, s * s)


def changes_params(xs, k):
    """k is rebound in a loop (taped): the rows cannot share one primal run."""
    for i in range(len(xs)):
        k = math.tanh(k + xs[i])
    return (k, k * k, xs[0])


def overwrite(ws):
    ws[1] = 0.5
    return 0.5


def writes_into(xs):
    """A helper overwrites the element read before it."""
    a = xs[1]
    return overwrite(xs) + math.tanh(a)


def repeated_once(x):
    """A list the function builds of x (its shadow list, made by the primal sweep, each row's adjoint adds
    into): found by the scalar fuzzer (seed 155, program 89), whose second row read the first row's 1.0."""
    ys = [x] * 1
    return (ys[0], 0.5)


def listed_twice(x, y):
    """Shadow lists built, read and added into for every output."""
    zs = [x, y]
    ws = [zs[0] * zs[1]] * 2
    return (ws[0] + zs[1], ws[1] * zs[0], math.sin(zs[0]))
