"""Functions for tests/test_api_boundary.py: what crosses the API boundary (integers in records, record
outputs, float32, array defaults, custom rules returning tuples)."""

import dataclasses
import math
from typing import NamedTuple

import numpy as np

import adcompiler


def scaled_sum(p, x):
    return np.sum(p["w"] * x) * p["n"]


@dataclasses.dataclass
class Params:
    w: np.ndarray
    n_iter: int


def dataclass_loss(p, x):
    return np.sum(p.w * x) * p.n_iter


class Model:
    def __init__(self, w, n):
        self.w = w
        self.n = n

    @adcompiler.differentiate(wrt=("self", "x"))
    def loss(self, x):
        return np.sum(self.w * x) * self.n


def tuple_with_int(t, x):
    return np.sum(t[0] * x) * t[1]


def pend(theta, n=200):
    dt = 1.0 / n
    for i in range(n):
        theta = theta + dt * math.sin(theta)
    return theta


def times_count(x, n):
    return x * n + x * x


def scale_by_float(a, x):
    return np.sum(np.sin(a * x))


def record_of_mixed(p, x):
    return np.sum(p["a"] * x) * p["s"]


def list_of_floats(xs, a):
    return np.sum(a * xs[0]) + xs[1] * np.sum(a * a)


def by_numpy_scalar(x, s):
    return x * s + x


def dict_out(x):
    return {"b": x * 2.0, "a": x * x}


def arrays_dict_out(x, y):
    return {"sum": np.sum(x * y), "prod": x * np.sin(y)}


def list_out(x):
    return [np.sin(x), np.sum(x) * 2.0]


def nested_out(x):
    return x * 2.0, (np.sum(x * x), np.cos(x))


class State(NamedTuple):
    a: float
    b: np.ndarray


def with_dict_aux(x):
    return np.sum(x * x), {"n": 3, "label": "aux", "v": x * 2.0}


def with_state_aux(x, st):
    return np.sum(x * st.b) * st.a, st


def sin_float32(x):
    return np.sin(x) * 2.0


def sum_sin(x):
    return np.sum(np.sin(x))


def sum_sin_times(x, c):
    return np.sum(np.sin(x)) * c


W0 = np.array([1.0, 2.0, 3.0])


def with_array_default(x, W=W0):
    return np.sum(W * x * x)


def calls_array_default(x):
    return with_array_default(x) * 2.0


def make_scaled(a):
    def scaled(x, a=a):
        return np.sum(a * np.sin(x))

    return scaled


@adcompiler.custom_vjp
def pair_rule(x, y):
    return (x * y, np.sin(x) + y)


def _pair_fwd(x, y):
    return pair_rule(x, y), (x, y)


def _pair_bwd(residuals, g):
    x, y = residuals
    return (g[0] * y + g[1] * np.cos(x), g[0] * x + g[1])


pair_rule.defvjp(_pair_fwd, _pair_bwd)


def uses_pair_rule(x, y):
    a, b = pair_rule(x, y)
    return np.sum(a * b)


@adcompiler.custom_jvp
def double_and_square(x):
    return (x * 2.0, x * x)


@double_and_square.defjvp
def _double_and_square_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return double_and_square(x), (2.0 * t, 2.0 * x * t)


def uses_double_and_square(x):
    a, b = double_and_square(x)
    return np.sum(a * b)


@adcompiler.custom_vjp
def wrong_square(x):
    return x * x


def _wrong_square_fwd(x):
    return x * x, x


def _wrong_square_bwd(x, g):
    return (3.0 * x * g,)  # should be 2 x g


wrong_square.defvjp(_wrong_square_fwd, _wrong_square_bwd)


def uses_wrong_square(x):
    return wrong_square(x) + x


@adcompiler.custom_vjp
def right_square(x):
    return x * x


def _right_square_bwd(x, g):
    return (2.0 * x * g,)


right_square.defvjp(_wrong_square_fwd, _right_square_bwd)


def uses_right_square(x):
    return np.sum(right_square(x)) + np.sum(x)


def strict_sin_of_number(x):
    return np.sum(np.sin(0.5) * x)


def strict_scalar_param(x, c):
    return np.sum(np.sin(c) * x + np.exp(c))


def strict_maximum_of_numbers(x, c):
    return np.sum(np.maximum(c, 0.5) * x)


def strict_clip(x):
    return np.sum(np.clip(x, 0.5, 1.5) * x)


def sine(x):
    return np.sin(x)


def two_keys(p):
    return p["a"] * 2.0 + p["b"] * p["a"]


class Scaled:
    def __init__(self, w):
        self.w = w

    @adcompiler.differentiate
    def loss(self, x, n):
        return np.sum(self.w * x) * n


def maximum_of_floats(x, ys):
    return np.sum(np.maximum(x, ys[0]) * ys[0] ** 2)
