"""Differentiable methods: ``model.loss.grad(x)`` differentiates with respect to the method's other
arguments, ``self``'s attributes read as constants; with ``wrt`` naming ``self`` it is differentiated
too, and its gradient is an object of its class (a dataclass, a NamedTuple, a dict, or an instance of
a plain class whose attributes hold the gradient; see ``trees``).

``self.forward(x)`` inside the method is the defining class's method (``lower.records``); an instance
of a subclass that overrides a method of that class is refused, since the derivative would differentiate
the method the class defines, not the one Python would call.
"""

from __future__ import annotations

import functools
import inspect
import types

from ..lower.records import defining_class
from .arguments import wrt_names


def method_of(fn, differentiable: type, again, wrt=None):
    """``differentiate(fn, wrt=wrt)`` of a bound method (``model.forward``: the function bound to its instance)
    or of a static method (static still, ``again(function, wrt)`` applied to its function); None for anything
    else.  A bound method's positions in ``wrt`` count the arguments after ``self`` (``positions_named``)."""
    if isinstance(fn, types.MethodType) and not isinstance(fn.__self__, differentiable):
        return bind(again(fn.__func__, positions_named(fn, wrt)), fn.__self__)
    if isinstance(fn, staticmethod):
        return staticmethod(again(fn.__func__))
    return None


def positions_named(method, wrt):
    """``wrt`` of a bound method with each position (an ``int``) as the name of the parameter it is: positions
    count the arguments a call passes, after ``self`` (as ``inspect.signature`` of the method and
    ``grad``'s ``argnums`` count them), where the function the method binds has ``self`` first."""
    items = (wrt,) if isinstance(wrt, (str, int)) else wrt
    if not isinstance(items, (tuple, list)):
        return wrt  # (None, or what wrt_names refuses with its message)
    position = lambda w: isinstance(w, int) and not isinstance(w, bool)  # noqa: E731
    ints = tuple(w for w in items if position(w))
    if not ints:
        return wrt
    signature = inspect.signature(method)
    names = dict(zip(ints, wrt_names(ints, tuple(signature.parameters), method, signature)))
    named = tuple(names[w] if position(w) else w for w in items)
    return named[0] if isinstance(wrt, (str, int)) else named


def bind(d, obj):
    """``d.__get__(obj)``: ``d`` (a Differentiable made from a method) bound to the instance ``obj``."""
    view = d.derived.get(("method", None))
    if view is None:
        first = d.params[0] if d.params else None
        others = tuple(w for w in d.wrt if w != first)
        view = d if d.wrt_given or not others else type(d)(d.fn, others, d.checkpoint, d.backend, d.arrays)
        view.wrt_given = d.wrt_given  # (by default, an integer argument is a constant: api.Differentiable._wrt_of)
        d.derived[("method", None)] = view
    return BoundMethod(d, obj, view)


class BoundMethod:
    """A differentiable method bound to an instance: ``grad``, ``value_and_grad``, ``value``, ``jvp``, ``vjp``
    and ``source`` of the method with the instance as ``self`` (see the module docstring)."""

    def __init__(self, d, obj, view):
        self.function, self.obj, self.view = d, obj, view
        functools.update_wrapper(self, d.fn)

    def __call__(self, *args, **kwargs):
        return self.function.fn(self.obj, *args, **kwargs)

    def grad(self, *args, **kwargs):
        """The gradient with respect to the method's arguments (and ``self`` where ``wrt`` names it)."""
        return self.view.grad(self._instance(), *args, **kwargs)

    def value_and_grad(self, *args, **kwargs):
        return self.view.value_and_grad(self._instance(), *args, **kwargs)

    def value(self, *args, **kwargs):
        return self.view.value(self._instance(), *args, **kwargs)

    def jvp(self, primals, tangents):
        """``primals`` are the arguments after ``self``; ``tangents`` one per wrt parameter."""
        return self.view.jvp((self._instance(), *primals), tangents)

    def vjp(self, primals, ct):
        return self.view.vjp((self._instance(), *primals), ct)

    def source(self, stage: str = "reverse") -> str:
        return self.view.source(stage)

    def _instance(self):
        return checked(self.function.fn, self.obj)


def instance_of(f) -> tuple:
    """``(function, instance)`` of a bound method (a ``BoundMethod`` or Python's), the instance checked
    (see ``checked``); ``(f, None)`` for anything else."""
    if isinstance(f, BoundMethod):
        return f.function.fn, checked(f.function.fn, f.obj)
    if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType):
        return f.__func__, checked(f.__func__, f.__self__)
    return f, None


def checked(fn, obj):
    """``obj`` as ``self`` of ``fn``, refused when its class overrides a method of the class that
    defines ``fn``: the derivative reads ``self.method`` from the defining class."""
    cls, kind = defining_class(fn), type(obj)
    if cls is None or kind is cls:
        return obj
    for name, value in vars(cls).items():
        if isinstance(value, (types.FunctionType, staticmethod)) and inspect.getattr_static(kind, name) is not value:
            raise TypeError(
                f"{kind.__name__} overrides {name} of {cls.__name__}, where {fn.__qualname__} is defined: "
                f"its derivative would differentiate {cls.__name__}.{name}; differentiate a method of "
                f"{kind.__name__} instead (decorate it there)"
            )
    return obj
