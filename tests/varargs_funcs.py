"""Functions taking ``*args`` of floats (issue 18), for test_varargs.py: differentiated once per number
of positional arguments, one derivative per argument as Python passes them."""

import numpy as np


def sum_of_squares(*xs):
    return sum(x * x for x in xs)


def weighted(a, *xs, power=2.0):
    total = 0.0
    for i, x in enumerate(xs):
        total = total + a * x**power / (i + 1)
    return total


def first_times_last(*vs):
    return vs[0] * vs[-1] + np.sin(vs[0]) * len(vs)


def calls_a_variadic_helper(x, y):
    return first_times_last(x, y, x) + first_times_last(y) + sum_of_squares(x, y) * x


def arrays_as_args(*arrays):
    total = 0.0
    for a in arrays:
        total = total + np.sum(np.tanh(a) * a)
    return total
