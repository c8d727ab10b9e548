"""What a call runs is what is differentiated, after the module's objects change too: random sequences of
changes made between calls (an attribute an object sets that shadows its class's, a class attribute's value,
a method replaced on its class, the object's class changed, the module's object rebound, one of its fields set,
a module constant rebound), each followed by the derivative in both modes against central differences of the
function as it now is.  (An object's attribute shadowing its class's and a method replaced on its class were
missed: the derivative kept the code built for the first call.)"""

import importlib.util
import math
import random

import pytest

import adcompiler

MODULE = """
import math

K = 1.5


class Model:
    scale = 2.0

    def __init__(self, a, b):
        self.a = a
        self.b = b

    def term(self, x):
        return self.scale * self.a * x * x

    def other(self, x):
        return self.b * math.sin(x)

    def val(self, x):
        return self.term(x) + self.other(x)


class Cubic(Model):
    def term(self, x):
        return self.a * x ** 3


def linear_term(self, x):
    return self.scale * self.a * x


def cosine_other(self, x):
    return self.b * math.cos(x)


M = Model(0.7, -1.3)


def loss(x):
    return M.val(x) * K
"""


def _changes(m, rng):
    """The changes a step may make to module ``m`` (each a function of no argument)."""
    value = round(rng.uniform(-3, 3), 3)
    return [
        lambda: setattr(m.M, "scale", value),  # the object's own, shadowing the class's
        lambda: setattr(m.Model, "scale", value),
        lambda: setattr(m.Model, "term", m.linear_term),
        lambda: setattr(m.Model, "other", m.cosine_other),
        lambda: setattr(m.M, "__class__", m.Cubic),
        lambda: setattr(m, "M", m.Model(value, -value)),
        lambda: setattr(m.M, "a", value),
        lambda: setattr(m, "K", value),
    ]


def _load(tmp_path, k):
    path = tmp_path / f"changes_{k}.py"
    path.write_text(MODULE)
    spec = importlib.util.spec_from_file_location(f"changes_{k}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("seed", range(12))
def test_random_changes_between_calls(tmp_path, seed):
    rng = random.Random(seed)
    m = _load(tmp_path, seed)
    d = adcompiler.differentiate(m.loss)
    x = rng.uniform(0.3, 1.2)
    made = []
    for _ in range(4):
        expected = _central(m.loss, x)
        assert d.grad(x) == pytest.approx(expected, rel=1e-6, abs=1e-8), made
        value, tangent = d.jvp((x,), (1.0,))
        assert value == pytest.approx(m.loss(x), rel=1e-14), made
        assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-8), made
        k = rng.randrange(8)
        _changes(m, rng)[k]()
        made.append(k)
    assert math.isfinite(d.grad(x))
