"""Records and objects as users build them (issue 37 items 3-4, tests/test_objects.py): NamedTuples and
dataclasses made inside the function, properties read through self, closures over a dict of parameters
or a list of functions, and calls through objects (``layer(h)``, ``layer.forward(h)``) held in lists,
tuples, dicts and attributes."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

import adcompiler

# ---- records made in the function ----------------------------------------------------------------


class Stats(NamedTuple):
    mean: float
    var: float


@dataclass
class Pair:
    a: np.ndarray
    scale: float = 2.0


def stats_local(x):
    s = Stats(np.mean(x), np.var(x))
    return s.mean * s.var + s[0]


def stats_keywords(x):
    s = Stats(var=np.var(x), mean=np.mean(x))
    m, v = s
    return m * np.sin(v)


def stats_result(x):
    return Stats(np.mean(x), np.var(x))


def pair_default(x):
    p = Pair(x * 2.0)
    return np.sum(p.a**2) * p.scale


def pair_passed(x, k):
    p = Pair(np.sin(x), k)
    return _pair_energy(p)


def _pair_energy(p):
    return np.sum(p.a * p.a) * p.scale


# ---- properties and closures ---------------------------------------------------------------------


class Scaled:
    def __init__(self, w, shift):
        self.w, self.shift = w, shift

    @property
    def doubled(self):
        return self.w * 2.0 + self.shift

    def loss(self, x):
        return np.sum(self.doubled * x**2)


def property_loss(model, x):
    return model.loss(x)


PARAMS = {"W": np.array([[1.0, 0.5, -0.3], [0.2, 0.1, 0.4]]), "b": np.array([0.1, -0.2])}


def module_dict(x):
    return np.sum(np.tanh(PARAMS["W"] @ x + PARAMS["b"]))


def closure_over(params):
    def loss(x):
        return np.sum(np.tanh(params["W"] @ x + params["b"]) ** 2)

    return loss


ACTIVATIONS = [np.sin, np.tanh, np.exp]


def chain_of_functions(x):
    for fn in ACTIVATIONS:
        x = fn(x)
    return np.sum(x)


@functools.partial(adcompiler.custom_jvp, nondiff_argnums=(1,))
def scaled_sin(x, k):
    return np.sin(k * x)


@scaled_sin.defjvp
def _scaled_sin_jvp(k, primals, tangents):
    (x,), (dx,) = primals, tangents
    return np.sin(k * x), k * np.cos(k * x) * dx


def uses_scaled_sin(x):
    return np.sum(scaled_sin(x, 3.0) ** 2)


@functools.partial(adcompiler.custom_vjp, nondiff_argnums=(0,))
def power_sum(n, x):
    return np.sum(x**n)


def _power_sum_fwd(n, x):
    return power_sum(n, x), x


def _power_sum_bwd(n, x, g):
    return (g * n * x ** (n - 1),)


power_sum.defvjp(_power_sum_fwd, _power_sum_bwd)


def uses_power_sum(x):
    return power_sum(3, x) * 0.5


# ---- calls through objects -----------------------------------------------------------------------


class Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, h):
        return np.tanh(self.W @ h + self.b)

    def forward(self, h):
        return self(h)

    @staticmethod
    def square(h):
        return h * h


class Shifted(Dense):
    """Inherits ``forward``; its own ``__call__``."""

    def __call__(self, h):
        return self.W @ h + self.b


class Model:
    def __init__(self, layers, scale):
        self.layers, self.scale = layers, scale

    def __call__(self, x):
        h = x
        for layer in self.layers:
            h = layer(h)
        return np.sum(h**2) * self.scale


class Net:
    """Holds its layers as attributes and calls them, as PyTorch's modules are written."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def __call__(self, x):
        return np.sum(self.second(self.first(x)) ** 2)

    def embed(self, x):
        return self.first.forward(x)


def net_call(net, x):
    return net(x) + np.sum(net.first(x)) + np.sum(net.embed(x))


NET = Net(
    Dense(np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]]), np.array([0.05, -0.1])),
    Dense(np.array([[0.7, -0.3]]), np.array([0.2])),
)


def module_net(x):
    return NET(x) + np.sum(NET.embed(x)) + np.sum(NET.second.W @ np.tanh(x[:2]))


def layers_forward(layers, x):
    h = x
    for layer in layers:
        h = layer.forward(h)
    return np.sum(h**2)


def layers_unpacked(layers, x):
    first, second = layers
    return np.sum(Dense.square(second(first(x))))


def layers_indexed(layers, x):
    return np.sum(layers[1](layers[0](x)) ** 2)


def layers_by_name(named, x):
    return np.sum(named["second"].forward(named["first"](x)) ** 2)


def model_call(model, x):
    return model(x)


def static_through_object(layer, x):
    return np.sum(layer.square(x) + layer(x))


# ---- refused -------------------------------------------------------------------------------------


class Pairs:
    def __init__(self, w):
        self.w = w

    def both(self, h):
        return h * self.w, h

    def __call__(self, h):
        return self.w * h


def array_method(x):
    return np.sum(x.foo())


def array_called(x):
    g = x
    return np.sum(g(x))


def no_such_method(obj, x):
    return np.sum(obj.bar(x))


def method_returning_tuple(obj, x):
    a, b = obj.both(x)
    return np.sum(a + b)


def keyword_through_object(obj, x):
    return np.sum(obj(h=x))


def through_the_class(obj, x):
    a, b = Pairs.both(obj, x)  # a method returning a tuple: called through its class
    return np.sum(a * b) + np.sum(Dense.square(x))


def function_attribute(obj, x):
    return np.sum(obj.act(x))


class Activated:
    def __init__(self, w):
        self.w, self.act = w, np.tanh


# ---- records entries (issue 37 item 6: tests/test_record_entries.py) -----------------------------


def logistic(params, X, y):
    z = X @ params["w"] + params["b"]
    return np.mean(np.logaddexp(0.0, z) - y * z) + 0.01 * np.sum(params["w"] ** 2)


def squash(z):
    return np.tanh(z)


def through_helper(params, x):
    return np.sum(squash(params["w"] * x) ** 2)


# ---- plain classes built in the function ---------------------------------------------------------


class Body:
    """A plain class whose ``__init__`` stores its arguments and a constant: a record of its attributes."""

    def __init__(self, pos, vel, mass=2.0):
        self.pos = pos
        self.vel = vel
        self.mass = mass
        self.kind = "rock"

    def kinetic(self):
        return 0.5 * self.mass * np.sum(self.vel**2)


class Heavy(Body):
    """Body's ``__init__``, a method of its own."""

    def kinetic(self):
        return self.mass * np.sum(self.vel**2) + np.sum(self.pos)


class Box:
    """A plain class with a property."""

    def __init__(self, w, h):
        self.w = w
        self.h = h

    @property
    def area(self):
        return self.w * self.h


@dataclass
class Rect:
    """A dataclass with a property."""

    w: float
    h: float

    @property
    def area(self):
        return self.w * self.h


def box_area(w, h):
    return Box(w, h).area  # a property of an object built here (refused before: "of a dict or tuple")


def rect_area_held(w, h):
    r = Rect(w, h)
    return r.area * r.w + np.sum(Box(np.array([w, h]), h).area)


class Doubled:
    """An ``__init__`` that computes: its objects are not records of the arguments."""

    def __init__(self, a):
        self.a = a * 2.0


def body_fields(x, v):
    b = Body(x, v)
    return np.sum(b.pos * b.mass) + b.kinetic()


def body_keywords(x, v):
    b = Body(vel=v, pos=x, mass=3.0)  # x stored, never read: its cotangent zeros of its shape
    return b.kinetic()


def bodies_in_list(x, v):
    bodies = [Body(x * k, v) for k in (1.0, 2.0, 3.0)]
    return sum(b.kinetic() + np.sum(b.pos) for b in bodies)


def heavy_body(x, v):
    return Heavy(x, v).kinetic() * 0.5


def dense_built(W, b, x):
    layer = Dense(W, b)  # self.W, self.b = W, b
    return np.sum(layer(x) ** 2)


def body_returned(x, v):
    return Body(x * v, v)


def scalar_body(x, v):
    b = Body(x, v)
    return b.kinetic() * b.pos


def doubled(x):
    return Doubled(x).a * x


# ---- items never read of structures built in the function ------------------------------------------


def unread_list(x, v):
    t = [x, v]
    return np.sum(t[1] ** 2)


def unread_tuple_handed(x, v):
    return _second_squared((x, v))


def _second_squared(p):
    return np.sum(p[1] ** 2)


def unread_dataclass(x, v):
    return np.sum(Pair(x, v).scale ** 2)


def dense_list_built(W1, b1, W2, b2, x):
    layers = [Dense(W1, b1), Dense(W2, b2)]  # plain objects holding arrays, in a list built here
    h = x
    for layer in layers:
        h = layer(h)
    return np.sum(h**2)


class Offset(Body):
    """A method calling its base class's through super()."""

    def kinetic(self):
        return super().kinetic() + 1.0


def offset_kinetic(x, v):
    return Offset(x, v).kinetic()


class Scaler:
    """A class attribute read through ``self`` (and overridden by a subclass)."""

    factor = 3.0

    def __init__(self, s):
        self.s = s

    def apply(self, x):
        return x * x * self.s * self.factor


class Tripled(Scaler):
    factor = 5.0


def scaled_apply(sc, x):
    return sc.apply(x) + sc.factor * x


def misspelt_attribute(sc, x):
    return x * sc.factr


def replaced(p, x):
    q = dataclasses.replace(p, a=p.a * 2.0)
    return q.a * x
