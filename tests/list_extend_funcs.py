"""``xs += [...]`` of a list extends that list, as Python does (tests/test_list_extend.py)."""

import numpy as np


def through_another_name(x):
    xs = [x]
    ys = xs
    ys += [x * x]  # xs is [x, x*x] now
    return sum(xs)


def of_an_argument(xs, y):
    ys = xs
    ys += [y * y]  # the caller's list grows
    return sum(xs) * y


def of_a_row(x):
    rows = [[x]]
    r = rows[0]
    r += [x * x]
    return sum(rows[0])


def by_a_comprehension_and_a_copy(x, ws):
    acc = [x]
    acc += [x * w for w in ws]
    acc += list((x, 2.0 * x))
    return sum(acc) * acc[1]


def in_a_loop(x):
    acc = []
    for i in range(4):
        acc += [x * i, x**2]
    return sum(acc)


def of_an_array(x):
    a = x * 2.0
    a += [1.0, 2.0]
    return np.sum(a * a)


def repeated(x):
    xs = [x, 1.0]
    ys = xs
    ys *= 2
    return sum(xs)
