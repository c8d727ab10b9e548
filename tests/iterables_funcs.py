"""Functions given generators, ranges, deques and sets (tests/test_other_iterables.py)."""


def total(xs):
    s = 0.0
    for x in xs:
        s = s + x * x
    return s


def first_two(xs):
    return xs[0] * xs[1]


def scaled_sum(xs, y):
    return sum(xs) * y


def through_a_helper(y, idx):
    return first_two(idx) * y


def measured(x, idx):
    return x * len(idx)
