"""Methods a base class calls on ``self`` that a subclass overrides (the template-method pattern): the
object's own class decides which runs, as in Python (tests/test_dispatch.py)."""

from dataclasses import dataclass


class Base:
    def __init__(self, w):
        self.w = w

    def act(self, z):
        return z

    def __call__(self, x):
        return self.act(self.w * x)


class Cubed(Base):
    def act(self, z):
        return z * z * z


class Doubled(Base):
    def act(self, z):
        return Base.act(self, z) * 2.0  # the base's method named: the base's, not this one again


def built_inside(w, x):
    layer = Cubed(w)
    return layer(x)


def passed_in(layer, x):
    return layer(x)


def in_a_list(w, x):
    layers = [Base(w), Cubed(w), Doubled(w)]
    first, second, third = layers  # (objects of several classes in one list: each named)
    return first(x) + second(x) + third(x)


@dataclass
class Shape:
    a: float

    def area(self):
        return self.a * self.a

    def cost(self):
        return 2.0 * self.area()


@dataclass
class Circle(Shape):
    def area(self):
        return 3.0 * self.a * self.a


def total_cost(r):
    return Circle(r).cost() + Shape(r).cost()


class Late(Base):  # (no override of its own: Base's act)
    pass


def late(layer, x):
    return layer(x)
