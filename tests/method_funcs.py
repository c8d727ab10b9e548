"""Methods as users write models (tests/test_methods.py): attributes of self read as constants or
differentiated (wrt="self"), methods calling methods of self, static methods, dataclass models."""

from dataclasses import dataclass

import numpy as np

import adcompiler


class Model:
    def __init__(self, layers, scale):
        self.layers, self.scale, self.name = layers, scale, "mlp"

    def act(self, z):
        return np.tanh(z)

    def forward(self, x):
        h = x
        for W, b in self.layers:
            h = self.act(W @ h + b)
        return h

    @staticmethod
    def penalty(h):
        return 0.5 * np.sum(h * h)

    @adcompiler.differentiate
    def loss(self, x, y):
        h = self.forward(x)
        return self.penalty(h - y) * self.scale

    def misfit(self, x, y):  # not decorated: differentiate(m.misfit, wrt=...) of Python's bound method
        return self.penalty(self.forward(x) - y) * self.scale

    @adcompiler.differentiate(wrt=("self", "x"))
    def loss_all(self, x, y):
        return self.penalty(self.forward(x) - y) * self.scale

    @staticmethod
    @adcompiler.differentiate
    def static_first(x):
        return x * np.sin(x)

    @adcompiler.differentiate
    @staticmethod
    def static_second(x):
        return x * np.cos(x)


class Linear(Model):
    """Overrides act: Model's methods differentiated on it would differentiate Model.act."""

    def act(self, z):
        return z


class Same(Model):
    """Overrides nothing: Model's methods are its methods."""


@dataclass
class Affine:
    a: float
    w: np.ndarray

    @adcompiler.differentiate(wrt=("self", "x"))
    def energy(self, x):
        return self.a * np.sum(np.sin(self.w * x))
