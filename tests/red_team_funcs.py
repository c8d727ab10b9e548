"""Programs a red-team session (2026-12-02) found silently wrong, for test_red_team.py."""

import copy
import dataclasses
import math
import statistics
from typing import NamedTuple

import numpy as np

import red_team_weights
from red_team_weights import by_its_dict, weighted
import scipy.special

import adcompiler


def column_view_scaled(A):
    B = A * 1.0
    col = B[:, 1]
    col *= 5.0
    return B * A


def diagonal_then_base_scaled(a):
    B = np.outer(a, a)
    dg = np.diag(B)  # of a matrix: a read-only view, which sees B's change below
    B *= 2.0
    return dg * a


def diag_of_a_vector_then_vector_scaled(a):
    v = a * 1.0
    D = np.diag(v)  # of a vector: a new matrix, which v's change below leaves as it is
    v *= 2.0
    return np.sum(D * np.outer(a, a)) + v


def split_piece_then_base_written(a):
    a = a * 1.0
    p, q = np.split(a, 2)
    a[0] = 5.0
    return p * q


def rows_of_a_copy_written(x):
    rows = [[x, 1.0], [2.0, 3.0]]
    ys = list(rows)
    ys[0][0] = x * x
    return rows[0][0] + rows[1][1] * x


def rows_written_through_a_loop_over_a_copy(x):
    rows = [[x, 1.0], [2.0, x]]
    for r in rows.copy():
        r[0] = r[0] * x
    return rows[0][0] + rows[1][0]


def loop_over_a_growing_list(x):
    xs = [x]
    s = 0.0
    for v in xs:
        s += v
        if len(xs) < 3:
            xs.append(v * x)
    return s


def cube_root(x):
    return math.cbrt(x)


def power(x, y):
    return x**y


def third_power(x):
    return x ** (1 / 3)


class Pair(NamedTuple):
    x: float
    y: float

    def sum(self):
        return self.x - self.y

    def mean(self):
        return self.x * self.y


class Sized(NamedTuple):
    size: float
    ndim: float


def own_sum_of_a_pair_built_here(a, b):
    return Pair(a, b).sum() + 2.0 * Pair(b, a).mean()


def own_fields_named_like_numpys(a, b):
    n = Sized(a, b)
    return n.size * 2.0 + n.ndim


def own_sum_of_a_pair_handed_in(p):
    return p.sum()


class Counted:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __len__(self):
        return 5

    def __lt__(self, other):
        return self.y < other.y


def length_of_an_object_with_its_own_len(a):
    return len(Counted(a, 1.0)) * a


def least_of_objects_with_their_own_order(a, b):
    return min([Counted(a, 3.0), Counted(b, 1.0)]).x


def least_of_objects_by_a_field(a, b):
    return min([Counted(a, 3.0), Counted(b, 1.0)], key=lambda o: o.y).x


def column_written_from_columns(A):
    B = A * 1.0
    B[:, 0] = B[:, 1] * B[:, 2]
    B[0, :] = B[1, :] * B[2, :]
    B[:, 1] += B[:, 2] ** 2
    B[1:, 1:] = B[:-1, :-1] * 0.5
    return np.sum(np.linalg.inv(B + 3 * np.eye(3)) ** 2)


class Layer:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def __call__(self, h):
        return math.tanh(self.w * h + self.b)


class Net:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        h = x
        for layer in self.layers:
            h = layer(h)
        return h

    def loss(self, x):
        return self(x) ** 2


NET = Net([Layer(0.5, 0.1), Layer(-1.2, 0.3)])


def loss_of_the_modules_network(x):
    return NET.loss(x) + NET(x)


def appended_to_its_default(x, acc=[]):  # noqa: B006 (the Python pitfall the test is about)
    acc.append(x)
    return sum(acc)


def calls_with_the_default(x):
    return appended_to_its_default(x) + appended_to_its_default(x * 2.0)


def reads_its_default(x, weights=[0.5, 2.0]):  # noqa: B006 (read only: one list for every call is right)
    return weights[0] * x + weights[1]


def calls_with_a_default_read(x):
    return reads_its_default(x) * x


def scales_a_row(rows, x):
    rows[0][0] = rows[0][0] * x
    return rows[1][0] * x


def pair_chosen_by_a_condition(x, y):
    p, q = (x * y, math.sin(x)) if x > y else (y, x * x)
    return p * q


def integers_of_ranges(x, n):
    return x * max(range(n)) + min(range(1, n)) + sum(range(2, n, 2)) * x * x


class Tripler:
    def scaled(self, x):
        return x * 3.0

    @classmethod
    def doubled(cls, x):
        return x * 2.0


TRIPLER = Tripler()


def method_of_an_object_with_no_attributes(x):
    return TRIPLER.scaled(x) * x


def class_method_through_an_object(x):
    return TRIPLER.doubled(x)


def shallow_copy_by_the_copy_module(x):
    rows = [[x, 1.0], [2.0, 3.0]]
    c = copy.copy(rows)
    return c[0][0] * x


def mean_of_a_constant_list_by_statistics(x):
    return statistics.mean([1.0, 2.0, 4.5]) * x


def typed_by_isinstance(x):
    if isinstance(x, np.ndarray):
        return np.sum(x * x)
    if isinstance(x, float):
        return x * x * x
    return 0.0


def mapped_and_filtered(x, y):
    a = list(map(lambda s, t: s * t, [x, y], [y, 2.0]))
    b = sum(map(math.exp, a))
    return b + sum(filter(None, [x, 0.0, y])) + sum(filter(lambda t: t > 0.6, [x, y]))


def sorts_in_place(x, y):
    xs = [y, x]
    xs.sort()
    return xs[0]


def argmax_and_argmin_over_a_range(x):
    xs = [x, 3.0, x * x]
    i = max(range(3), key=lambda k: xs[k])
    j = min(range(3), key=lambda k: xs[k])
    return xs[i] * xs[j]


@dataclasses.dataclass
class WithAList:
    a: float
    xs: list = dataclasses.field(default_factory=list)


def fills_a_default_factory_list(x, y):
    w = WithAList(x)
    w.xs.append(y)
    return w.xs[0] * w.a


def weighted_by_another_modules_array(x):
    return np.sum(red_team_weights.W * x * x)


def parallel_by_the_attribute_spelling(x, c):
    t = 0.0
    for i in adcompiler.prange(x.shape[0]):
        t += math.exp(x[i] * c) * x[i]
    return t


def sum_of_xlogy(x):
    return np.sum(scipy.special.xlogy(x, x**2 + 1.0))


def calls_another_modules_helper(x):
    return weighted(x) * 2.0


def cubed_after_an_entry_of_a_copy_is_set(x, y):
    t = x * 1.0
    t[0] = 2.0
    return np.sum((y + t) ** 3)


D = {"W": np.array([10.0, 10.0, 10.0]), "s": 3.0}  # (not the D red_team_weights.by_its_dict reads)


def calls_a_helper_reading_its_own_dict(x):
    return by_its_dict(x) * 2.0


def mixed_precision_product(x32, w64):
    return np.dot(x32, w64)


def sum_of_a_generator_of_arrays_kept(x, w):
    s = sum(np.sin(x * k) * w[k] for k in range(3))
    return np.sum(s * s) + np.sum(sum([x * w, x - w]))


def squared_sum_of_two(x, y):
    return np.sum((x + y) ** 2)


def doubled_in_place(xs):
    for i in range(len(xs)):
        xs[i] = xs[i] * 2.0
    return xs[0] * xs[1]


def rows_doubled_in_place(rows):
    for r in rows:
        r[0] = r[0] * 2.0
    return rows[0][0] * rows[1][0]


class Scaled:
    factor = 2.0  # a class attribute, which an object may shadow later with one of its own

    def __init__(self, a):
        self.a = a

    def val(self, x):
        return self.factor * self.a * x * x


SCALED = Scaled(3.0)


def scaled_loss(x):
    return SCALED.val(x)


class Quadratic:
    def __init__(self, w):
        self.w = w

    def f(self, x):
        return self.w * x * x


QUADRATIC = Quadratic(2.0)


def quadratic_loss(x):
    return QUADRATIC.f(x)


class Squash:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(self.W @ x + self.b)


SQUASHES = [Squash(np.eye(2), np.zeros(2)), Squash(2.0 * np.eye(2), np.ones(2))]


def through_the_modules_layers(x):
    for layer in SQUASHES:
        x = layer(x)
    return np.sum(x**2)


class Act:
    scale = 2.0

    @classmethod
    def g(cls, z):
        return cls.scale * z


def through_a_class_method(x):
    return Act.g(x)


class Node:
    def __init__(self, w, child=None):
        self.w = w
        self.child = child


def depth_eval(node, x):
    if node is None:
        return x
    return node.w * depth_eval(node.child, x)


def make_poly(c):
    def poly(x):
        return c[0] + c[1] * x + c[2] * x * x

    return poly


POLY = make_poly([1.0, 2.0, 3.0])  # a factory's closure over a list of numbers


def through_a_factorys_closure(x):
    return POLY(x) * x


WEIGHTS = {"W": np.array([[1.0, 2.0], [0.5, -1.0]]), "b": np.array([0.1, 0.2])}


def reads_the_modules_dict(x):
    return np.tanh(WEIGHTS["W"] @ x + WEIGHTS["b"])


def through_a_helper_reading_the_modules_dict(x):
    return np.sum(reads_the_modules_dict(x) ** 2)
