"""Functions for test_composition.py: what a JAX user hands grad, jacfwd and hessian (lambdas at module
level, returned by factories, built in comprehensions; partials; callable objects)."""

import functools
import math
from typing import NamedTuple

import numpy as np


def cubic_sin(x):
    return math.sin(x) * x**3


def loss(w, X, y):
    return np.sum((X @ w - y) ** 2) + 0.1 * np.sum(w**4)


def loss_data_first(X, y, w):
    return loss(w, X, y)


def vector_out(x, y):
    return np.sin(x) * y[:2] ** 2 + x[::-1] * y[2]


def mixed(x, p):
    """A number and a dict of parameters."""
    return np.sum(np.tanh(p["W"] @ (x * p["b"]))) * x[0] ** 2


squared = lambda x: x * x * 3.0  # noqa: E731
pair = (lambda x: x**3), (lambda x: x * 2.0)  # two lambdas on one line


def scaled_sin(k):
    return lambda x: np.sin(k * x) * x


by_default = [lambda x, k=k: math.cos(k * x) for k in (1.0, 2.0, 3.0)]
by_closure = [scaled_sin(k) for k in (0.5, 1.5)]

split_lines = lambda w: (np.sum(w**2) + np.prod(w))  # noqa: E731


class Model:
    """A model called as a function (Flax and Equinox models are): its attributes are constants."""

    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return np.sum(np.tanh(self.W @ x + self.b) ** 2)


class Metrics(NamedTuple):
    mse: float
    scale: float


def with_dict_aux(w, x):
    loss = np.sum((w * x) ** 2)
    return loss, {"loss": loss, "n": 3, "pred": w * x}


def with_record_aux(w):
    return w**2, Metrics(w**2, 2.0)


def with_nested_aux(w):
    return np.sum(w**2), [w * 2.0, (np.sum(w), "name"), None]


def vector_with_aux(x):
    return np.sin(x) * x, {"norm": np.sum(x**2)}


partial_kw = functools.partial(loss, X=np.eye(3)[:, :2] + 0.5, y=np.array([1.0, -1.0, 0.5]))
partial_pos = functools.partial(loss_data_first, np.eye(3)[:, :2] + 0.5, np.array([1.0, -1.0, 0.5]))


def _wrapped(fn):
    def wrapper(a, b):
        return fn(a, b)

    return wrapper


def _mul(x, y):
    return x * y


wrapped_mul = _wrapped(_mul)


def through_a_wrapper(x, y):
    return wrapped_mul(x, y) * x  # x**2 y


def _nested_result(a):
    return a, (a * 2, a * 3)


def nested_result_of_constants(x):
    p, (q, r) = _nested_result(2.0)  # a call not differentiated (its arguments are constants)
    return x * q + r * p * x * x
