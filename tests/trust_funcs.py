"""Functions for test_trust.py: each item of the trust issue (reverse mode silently wrong, or an
internal error), written as users write them, with variations."""

import math

import numpy as np

# 1. and 8. layers of (W, b) arrays handed to helpers; arrays in flat lists and tuples


def _layers(layers, x):
    h = x
    for l in range(len(layers)):
        W = layers[l][0]
        b = layers[l][1]
        h = np.tanh(W @ h + b)
    return h


def net_helper(layers, x):
    return np.sum(_layers(layers, x) ** 2)


def net_inline(layers, x):
    h = x
    for W, b in layers:
        h = np.tanh(W @ h + b)
    return np.sum(h**2)


def _softmax_sum(h, w):
    m = max(0.0, np.max(h))
    e = np.exp(h - m)
    return np.sum(w * e / np.sum(e))


def neural_np_helper(layers, x, w):
    """Table 1's network with the layer loop and the softmax in helpers."""
    h = x
    for l in range(len(layers)):
        h = np.maximum(layers[l][0] @ h + layers[l][1], 0.0)
    return _softmax_sum(h, w)


def _first(bs, h):
    return h + bs[0]


def flat_list_broadcast(bs, h):
    return np.sum(_first(bs, h) ** 2)


def _second(t, h):
    a, s, c = t
    return a * h + s * c


def tuple_of_arrays(t, h):
    return np.sum(_second(t, h) ** 2)


def _inner_level(p, h):
    return np.tanh(p[0] @ h + p[1][0])


def _outer_level(params, h):
    return _inner_level(params[1], _inner_level(params[0], h))


def two_levels(params, h):
    return np.sum(_outer_level(params, h))


def mixed_list(xs, h):
    return np.sum(xs[0] * h + xs[1]) * xs[2]


# 2. list slices


def slice_tail(x):
    u = [x, 2.0 * x, 3.0 * x]
    v = u[1:]
    return v[0] * v[1]


def sum_of_tail(xs):
    return sum(xs[1:])


def reversed_slice(xs):
    ys = xs[::-1]
    return ys[0] * 2.0 + ys[1] * ys[2]


def stepped_slices(xs):
    a = xs[::2]
    b = xs[1:-1:2]
    c = xs[-2:0:-1]
    return sum(a) * b[0] + c[0] * c[-1]


def slice_then_write(xs):
    ys = xs[1:]
    ys[0] = ys[0] * ys[1]
    return ys[0] + xs[1]


def _prod2(r):
    return r[0] * r[1]


def slice_to_helper(xs):
    return _prod2(xs[1:3]) + _prod2(xs[:2])


def slices_of_rows(m):
    rows = [row[1:] for row in m[1:]]
    return rows[0][0] * m[0][0] + rows[1][1] * rows[0][1]


def slice_of_arrays(xs):
    ys = xs[1:]
    return np.sum(ys[0] * ys[1])


# 3. the same list passed twice


def _scale(dst, src, c):
    for i in range(len(dst)):
        dst[i] = src[i] * c
    return dst


def same_list_twice(xs, c):
    ys = list(xs)
    _scale(ys, ys, c)
    return sum(ys)


def _shift(dst, src):
    for i in range(1, len(dst)):
        dst[i] = dst[i] + src[i - 1]


def same_list_shifted(xs):
    ys = list(xs)
    _shift(ys, ys)
    return ys[-1] * ys[1]


def reads_twice(xs, ys):
    s = 0.0
    for i in range(len(xs)):
        s = s + xs[i] * ys[i]
    return s


def writes_one(xs, ys):
    xs[0] = xs[0] * 2.0
    return xs[0] * ys[0]


def same_array_twice(a, b):
    return np.sum(a * b + np.sin(a))


# 4. and 5. products of every ndim


def matmul_op(a, b):
    return np.sum(np.sin(a @ b))


def matmul_fn(a, b):
    return np.sum(np.sin(np.matmul(a, b)))


def dot_fn(a, b):
    return np.sum(np.sin(np.dot(a, b)))


def inner_fn(a, b):
    return np.sum(np.sin(np.inner(a, b)))


# 6. linspace


def linspace_ends(x, y):
    return np.sum(np.linspace(x, y, 5) ** 2)


def linspace_open(x, y):
    return np.sum(np.sin(np.linspace(x, y, 4, endpoint=False)))


def linspace_arrays(a, b):
    return np.sum(np.linspace(a, b, 3) ** 3)


# 7. crashes


def mod_both(x, y):
    return x % y + y % 1.5


def sum_of_list(a):
    return np.sum([a, a])


def concat(x):
    u = [x] + [x * x]
    return u[0] + u[1]


def concat_lists(xs, ys):
    zs = xs + ys + [xs[0] * ys[0]]
    return zs[0] * zs[-1] + sum(zs)


def times(xs):
    ys = xs * 2
    return ys[0] * ys[-1]


def _double_first(xs):
    xs[0] = xs[0] * 2.0
    return xs


def returns_argument(xs):
    ys = _double_first(xs)
    return ys[0] + ys[1]


def array_read_twice(x):
    a = np.array([x, x + 1.0])
    return np.sum(a * a) + a[0]


def power_zero(x):
    return np.sum(np.power(x, 0.0) * x)


def pow_zero(x):
    return x**0.0 * x + pow(x, 0) * 2.0


def einsum_ellipsis(a, b):
    return np.sum(np.einsum("...ij,...jk->...ik", a, b) ** 2)


def einsum_trace(a):
    return np.einsum("ii", a) ** 2 + np.sum(np.einsum("ii->i", a) ** 3)


def einsum_implicit(a, b):
    return np.sum(np.einsum("ij,jk", a, b) ** 2)


def row_stack(a, b):
    return np.sum(np.row_stack([a, b]) ** 2)  # NumPy's older name of vstack


def power_by_recursion(x, n):
    if n == 0:
        return 1.0
    return x * power_by_recursion(x, n - 1)


def linear_in_list(xs):
    s = 0.0
    for i in range(len(xs)):
        s = s + (i + 1.0) * xs[i]
    return s


def determinant(m):
    """Laplace expansion along the first row, recursively."""
    n = len(m)
    if n == 1:
        return m[0][0]
    total = 0.0
    for j in range(n):
        minor = [row[:j] + row[j + 1 :] for row in m[1:]]
        sign = 1.0 if j % 2 == 0 else -1.0
        total = total + sign * m[0][j] * determinant(minor)
    return total


# 9. NumPy's write semantics


def write_repeated(v):
    y = np.zeros(3)
    y[np.array([1, 1])] = v
    return np.sum(y * np.arange(1.0, 4.0))


def add_repeated(v):
    y = np.zeros(3)
    y[np.array([0, 0])] += v
    return np.sum(y * y)


def read_repeated(x):
    return np.sum(x[np.array([0, 0, 2])] ** 2)


# 10.


def cumsum_flat(x):
    return np.sum(np.cumsum(x) ** 2)


def cumsum_reused(x):
    return np.sum(np.cumsum(x) * x.ravel()[::-1])


def full_fill(s):
    return np.sum(np.full(3, s) ** 2) + np.sum(np.full((2, 2), s))


def full_like_fill(x, s):
    return np.sum(np.full_like(x, s) * x)


def mixed_precision(a, b):
    return np.sum(a @ b)


def builtin_sum_of_array(x):
    return sum(x**2)


def builtin_sum_of_rows(m):
    return np.sum(sum(m) ** 2)


def clip_upper(x):
    return np.sum(np.clip(x, None, 0.5) ** 2)


def clip_lower(x):
    return np.sum(np.clip(x, -0.1, None) ** 2)


# 11.


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


# 12. primal failures the derivative must share


def unused_log(x):
    y = math.log(x - 5.0)
    return x * 2.0


def unused_sqrt(x):
    y = math.sqrt(-x)
    return x * 3.0


def unused_division(x, y):
    z = x / (y - y)
    return x * y


def unused_index(xs):
    t = xs[len(xs)]
    return xs[0] * 2.0


def max_of_nothing(x):
    xs = []
    return max(xs) * x  # ValueError (the derivative's argmax read xs[0]: an IndexError)


def missing_key(x):
    d = {"a": x}
    return d["b"]  # KeyError (located, a KeyError too)


def divided_by_one_less(x):
    y = x - 1.0
    return x / y


def squares_summed(x):
    return np.sum(x * x)


def doubled(x):
    return x * 2.0


def two_entries(x):
    return x[0] * x[1]


def truth(x):
    return x > 0.0


def text(x):
    return "abc"


def unbound_after_branch(x):
    if x > 10.0:
        y = x
    return y * 2.0  # UnboundLocalError at x <= 10: a gradient needs no value, and gave 0.0


def unbound_after_loop(x, n):
    for i in range(n):
        y = x * i
    return x + y  # n = 0: y never bound


def unbound_after_break(x):
    while True:
        if x > 0.0:
            break
        y = x
        x = x + 1.0
    return x * y  # (x > 0 at once: y never bound)


# 13. loop targets


def enumerate_zip(xs, ys):
    s = 0.0
    for i, (a, b) in enumerate(zip(xs, ys)):
        s = s + a * b * (i + 1.0)
    return s


def zip_pairs(xs, ys):
    s = 0.0
    for pair in zip(xs, ys):
        s = s + pair[0] * pair[1]
    return s


def tuple_in_branch(x):
    if x > 0.0:
        t = (x, 2.0 * x)
    else:
        t = (x * x, x)
    a, b = t
    return a * b


# found by running autograd's own test functions through adcompiler


def array_fanout(x):
    a = np.array([x, x * 1.0, x + 2.5])
    return a + a


def slice_of_record(xs):
    return xs[1:][0] * 2.0


def mixed_list_returned(x, i):
    xs = [x, [x, x]]
    return xs[i]


doubled = lambda x: x * 2.0  # noqa: E731


def mixed_precision_scalar(s, x):
    return np.sum(s * x) + s * s
