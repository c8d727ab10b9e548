"""Everyday Python in differentiated functions (issue 18's idioms), one function per idiom, for
test_idioms.py.  Each is plain Python: autograd runs the same code (``math`` rebound where it must be)."""

import logging
import math

import numpy as np


def genexp_sum(xs):
    return sum(x * x for x in xs)


def genexp_sum_filtered(xs, c):
    return sum(math.sin(x) * c for x in xs if x > 0.0)


def genexp_nested(xs, ys):
    return sum(x * y for x in xs for y in ys)


def genexp_max_min(xs):
    return max(x * x for x in xs) - min(math.sin(x) for x in xs)


def sum_with_start(xs, s):
    return sum(xs, s) * sum([x * s for x in xs], start=1.5)


def genexp_sum_start(xs, s):
    return sum((x * x for x in xs), s)


def any_all_tests(xs, c):
    y = c
    if any(x > 2.0 for x in xs):
        y = y * 3.0
    if all(x > 0.0 for x in xs):
        y = y + xs[0]
    if any(xs) and not all(x < 0.5 for x in xs):
        y = y * xs[1]
    return y


def max_key_lambda(xs, c):
    best = max(xs, key=lambda v: (v - c) ** 2)
    worst = min(xs, key=lambda v: abs(v - c))
    return best * worst + c


def max_key_function(xs):
    return max(xs, key=abs) * min(xs, key=math.cos)


def sorted_list(xs):
    ys = sorted(xs)
    return ys[0] * 3.0 + ys[1] * ys[-1]


def sorted_key_reverse(xs, c):
    ys = sorted(xs, key=lambda v: (v - c) ** 2, reverse=True)
    return ys[0] * 2.0 + ys[1] - ys[2] * c


def sorted_returned(xs):
    return sorted([x * x for x in xs])


def sorted_genexp(xs):
    ys = sorted(math.sin(x) for x in xs)
    return ys[-1] - ys[0]


def reversed_list(xs):
    ys = list(reversed(xs))
    total = 0.0
    for k, y in enumerate(ys):
        total = total + (k + 1) * y
    return total * sum(reversed(xs))


def enumerate_start(xs):
    s = 0.0
    for i, x in enumerate(xs, 1):
        s = s + i * x * x
    for i, x in enumerate(xs, start=-2):
        s = s + i * x
    return s


def nested_unpacking(xs, ys):
    s = 0.0
    for i, (a, b) in enumerate(zip(xs, ys)):
        s = s + (i + 1) * a * b
    for k, (a, (b, c)) in enumerate(zip(xs, zip(ys, xs))):
        s = s + a * b * c * k
    return s


def starred_unpacking(xs, ys):
    first, *rest = xs  # rest: a new list (appending to it leaves xs alone)
    *init, last = ys
    a, *mid, b = (first, last, xs[1], ys[0])
    rest.append(a * b)
    s = first * sum(rest) + last * sum(init) + mid[0] * mid[1]
    for k in range(2):
        head, *tail = init
        s = s + head * tail[0] * (k + 1)
    return s + len(xs) + xs[-1]


def tuple_in_loop(x, y):
    a, b = x, y
    for _ in range(4):
        a, b = b, a * b + x
    return a + b


def swap_in_list(xs):
    a = list(xs)
    for i in range(len(a) - 1):
        if a[i] > a[i + 1]:
            a[i], a[i + 1] = a[i + 1], a[i]
    return a[0] * 2.0 + a[-1] * a[1]


def print_and_fstring(x, y):
    print("x is", x, sep=" ")
    z = x * y
    label = f"z = {z:.3f}, x = {x!r:>12}, {'nested'}, {{braces}}"
    print(label, f"{y=}", end="\n")
    "a string as a comment"
    return z + x


def logging_calls(x):
    logging.info("x = %s", x)
    y = math.exp(x)
    logging.debug(f"y = {y}")
    return y * x


def asserts(x, y):
    assert x > 0.0, f"x must be positive, not {x}"
    assert y != 0.0
    return x / y


def assert_fails(x):
    assert x > 10.0, "x is small"
    return x


def float_inf(xs):
    best = float("inf")
    worst = -float("inf")
    for x in xs:
        if x < best:
            best = x
        if x > worst:
            worst = x
    return best * worst


def keyword_only(x, *, scale=2.0, shift=0.5):
    return x * scale + shift


def calls_keyword_only(x):
    return keyword_only(x, shift=x) * keyword_only(x, scale=x)


def for_else(xs, c):
    s = 0.0
    for x in xs:
        if x > c:
            s = x
            break
    else:
        s = c * c
    return s + xs[0]


def while_else(x):
    k = 0
    y = x
    while k < 5:
        y = y * 1.5
        if y > 10.0:
            break
        k += 1
    else:
        y = -y
    return y


def logging_module(x):
    logging.warning("value %s", x)
    return x * x


def list_extend_insert_pop(xs, y):
    ys = [y]
    ys.extend(xs)
    ys.insert(1, y * y)
    ys.insert(-1, 2.0)
    z = ys.pop(0)
    w = ys.pop(-1)
    return sum(ys) * z + w


def list_copy_method(xs):
    ys = xs.copy()
    ys[0] = 2.0 * ys[0]
    zs = list(ys)
    zs[1] = zs[1] * zs[0]
    return ys[0] + xs[0] * zs[1]


def _scale_in_place(values, c):
    for i in range(len(values)):
        values[i] = values[i] * c


def helper_changes_list(xs, c):
    ys = list(xs)
    _scale_in_place(ys, c)
    return ys[0] * ys[1] + sum(ys)


def math_sums(xs):
    return math.fsum(xs) * math.prod(xs) + math.prod(xs, start=2.0)


def math_dist(p, q):
    return math.dist(p, q) + math.dist([p[0], 1.0], [q[0], -1.0])


def math_gamma(x):
    return math.lgamma(x) + math.gamma(x) * 0.5


def math_lgamma_negative(x):
    return math.lgamma(x)


def math_angles(x, y):
    return math.degrees(x) * math.radians(y) + math.cbrt(x) + math.exp2(y)


def math_copysign_fmod(x, y):
    return math.copysign(x, y) * math.fmod(x, y) + math.copysign(y, -1.0)


def math_tests(x, y):
    z = x * y * 1e300
    if math.isfinite(z) and not math.isnan(z) and not math.isinf(x):
        return z * x
    return x


def comprehension_names_are_their_own(xs, x):
    if x > 0.0:
        x = x * 2.0
    s = sum(x * x for x in xs)
    t = [x * 3.0 for x in xs if x > 0.0]
    u = any(x > 5.0 for x in xs)
    return s + x * t[0] + u + max(xs, key=lambda x: -x)


def sum_start_of_arrays(a, c):
    return np.sum(sum(a, c) ** 2) + sum((np.sin(r) for r in a), c)[0]


def min_max_of_arguments_with_key(x, y):
    """min and max of several arguments by a key (refused before: 'pass the arguments positionally')."""
    near = min(x, y, key=lambda v: v * v)
    far = max(x, y, x * y, key=lambda v: abs(v - 0.3))
    return near * far


def tuples_joined(x, y):
    """Tuples joined and repeated (refused before: 'arithmetic on a tuple')."""
    t = (x, y)
    u = t + (x * y,)
    w = 2 * (u[2],) + u
    return u[2] * u[0] + w[1] * w[4]
