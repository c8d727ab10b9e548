"""Closures and nested functions (issue 18), one function per use, for test_closures.py: local
functions (nested ``def`` and named ``lambda``) reading the enclosing function's variables, and
functions a factory returns, reading what the factory captured.  Plain Python and NumPy: autograd
runs the same code (``np`` rebound)."""

import numpy as np

OFFSETS = [0.1, -0.4, 0.9]
PAIRS = ((1.0, 2.0), (0.5, -1.0))


def reads_module_list(x):
    """A module's list and tuple of numbers, read (never changed) as constants."""
    t = 0.0
    for o in OFFSETS:
        t = t + np.sin(x + o)
    a, b = PAIRS[1]
    return t * x + a * b * x + OFFSETS[-1] * x + np.sum(np.array(OFFSETS) * x) * len(OFFSETS)


def nested_reads_active(x, y):
    a = x * y

    def g(t):  # (np.sum: a call, not written in place as a helper of elementwise functions is)
        return t * a + np.sum(np.sin(x))

    return g(x) + g(y) * y


def local_function_fills_a_list(xs, w):
    out = []

    def add(v):
        out.append(v * w)

    for x in xs:
        add(x * x)
    return sum(out)


def apply_twice(fn, x, scale=1.0):
    return fn(fn(x)) * scale


def total_of(fn, xs):
    return sum(fn(v) for v in xs)


def passes_on(fn, x):
    return apply_twice(fn, x) + fn(x)


def local_functions_passed_to_helpers(x, w):
    """Local functions handed to functions of the module, which call them (and hand them on)."""

    def act(z):
        return np.tanh(z * w)

    sq = lambda u: u * u * x  # noqa: E731
    return apply_twice(act, x) + total_of(sq, [x, w]) + passes_on(act, w) + apply_twice(act, x, 2.0)


def named_lambda(x, y):
    sq = lambda u: u * u * y  # noqa: E731
    return sq(x) + sq(x + y)


def nested_with_control_flow(xs, c):
    def clipped(v):
        if v > c:
            return c + 0.1 * (v - c)
        out, power = 0.0, 1.0
        for k in range(3):
            power = power * v
            out = out + power / (k + 1)
        return out

    return sum(clipped(x) for x in xs)


def nested_in_loop(xs, w):
    total = 0.0
    for i, x in enumerate(xs):
        scale = w * (i + 1)

        def term(u):
            return scale * u * u

        total = total + term(x)
    return total


def key_of_local_function(xs, w):
    def score(v):
        return (v - w) ** 2

    best = min(xs, key=score)
    ranked = sorted(xs, key=score)
    return best * w + ranked[-1] * ranked[0] + max(xs, key=lambda v: v * w)


def local_calls_local(x, y):
    def inner(u):
        return u * y

    def outer(u, scale=2.0):
        return inner(u) * scale + x

    return outer(x) + outer(y, scale=0.5)


def nested_twice(x, y):
    def outer(u):
        def inner(v):
            return v * u + y

        return inner(u) * inner(x)

    return outer(y)


def mlp(W1, b1, W2, x):
    def layer(W, b, h):
        return np.tanh(W @ h + b)

    act = lambda z: z / (1.0 + np.abs(z))  # noqa: E731
    return np.sum(act(W2 @ layer(W1, b1, x)) ** 2)


def captured_array(A, v):
    def quad(u):
        return u @ A @ u

    return quad(v) + quad(np.sin(v))


def quad_form(A, u):
    return u @ A @ u


def quad_through_helper(A, v):
    """Not a closure: the module-level twin of captured_array (its Hessian in A once failed: the zero
    tangent of the residual u was 0.0, not an array, and the tangent of u @ A's adjoint took its shape)."""
    return quad_form(A, v) + quad_form(A, np.sin(v))


def make_loss(data, targets):
    """A factory: the function it returns reads ``data`` and ``targets`` from its closure."""

    def loss(w, b):
        pred = np.tanh(data @ w + b)
        return np.mean((pred - targets) ** 2)

    return loss


def make_regularised(data, lam):
    """A factory whose function has a local function reading both what it captured and its own variables."""

    def loss(w):
        scale = np.sum(w * w)

        def penalty(v):
            return lam * scale * np.sum(v * v) + np.sum(data * v)

        return np.sum((data @ w) ** 2) + penalty(w)

    return loss


def softplus(z):
    return np.log1p(np.exp(z))


def make_with_activation(act, w):
    """A captured function (called, and differentiated through) and a captured number read by a key lambda."""

    def f(x):
        return act(x * w) + max([x, w], key=lambda v: v * w) * x

    return f


def comprehension_scope(y):
    """The local function reads the module's x: the comprehension's x is its own."""
    zs = [x * x for x in [y, 2.0 * y]]

    def g(t):
        return t * x

    return g(y) + zs[1]


x = 10.0


def make_indexed(k):
    """A captured integer that chooses an element."""

    def pick(xs):
        return xs[k] * xs[k] + xs[0]

    return pick


def make_scaled(scale, offsets):
    """Captured numbers and a list of numbers, read as constants."""

    def scaled(x):
        total = 0.0
        for o in offsets:
            total = total + scale * np.sin(x + o)
        return total * x

    return scaled


def make_counter_in_cell():
    """A closure whose captured value is changed after the function was differentiated."""
    k = 2.0

    def f(x):
        return k * x * x

    def set_k(value):
        nonlocal k
        k = value

    return f, set_k


def twice(fn):  # a decorator wrapping each function it decorates (its own fn in each wrapper)
    def wrapper(x):
        return 2.0 * fn(x)

    return wrapper


@twice
def doubled_square(x):
    return x * x


@twice
def doubled_cube(x):
    return x * x * x


def both_doubled(x):
    return doubled_square(x) + doubled_cube(x)


def scaled(k):  # a factory: each wrapper reads its own k by that one name
    def deco(fn):
        def wrapper(x):
            return k * fn(x)

        return wrapper

    return deco


def scaled_bound(k):  # the same, k bound as the wrapper's default
    def deco(fn):
        def wrapper(x, k=k):
            return k * fn(x)

        return wrapper

    return deco


square_by_two, cube_by_three = scaled(2.0)(lambda x: x * x), scaled(3.0)(lambda x: x * x * x)
square_by_two_bound, cube_by_three_bound = scaled_bound(2.0)(lambda x: x * x), scaled_bound(3.0)(lambda x: x * x * x)


def both_scaled(x):
    return square_by_two(x) + cube_by_three(x)


def both_scaled_bound(x):
    return square_by_two_bound(x) + cube_by_three_bound(x)
