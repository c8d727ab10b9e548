"""Decorated functions and their callers, for tests/test_wrappers.py (the decorators live in another
module: tests/wrapper_decorators.py)."""

import math

import numpy as np

from tests.wrapper_decorators import counted, doubled, logged, offset, shifted


@doubled
def scaled(x):
    return math.sin(x) * x


@logged
def printed(x):
    return math.sin(x) * x


@doubled
def scaled_with_default(x, k=3.0):
    return k * x * x


@doubled
def scaled_pair(x, y):
    return x * y


@shifted
def own_parameters(x):
    return x * x


@counted
def with_state(x):
    return x * x


@doubled
def scaled_array(x):
    return np.sum(np.tanh(x))


@offset
def offset_helper(a, b, ws, c=2.0):
    return a * b + ws[0] * c


def calls_with_keywords(x, y, z):
    return offset_helper(x, y, ws=[z]) + offset_helper(y, x, [z], c=3.0)


def calls_scaled(x, y):
    return scaled_with_default(x) + scaled_with_default(y, k=1.0) + scaled_pair(x, y=y)


def calls_printed(x):
    return printed(x) + 1.0


def calls_own_parameters(x):
    return own_parameters(x) * x


def calls_with_state(x):
    return with_state(x) + x


def calls_scaled_array(x):
    return scaled_array(x) * 3.0
