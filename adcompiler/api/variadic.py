"""A function with ``*args`` (``def f(*xs)``): differentiated once per number of positional arguments.

``Variadic`` stands where a ``Differentiable`` would (``differentiate`` makes one for such a function):
called with n positional arguments, it differentiates ``front.callables.fixed_arity(f, n)``, the function
with n parameters in place of ``*xs`` whose body packs them back into ``xs``, so each positional
argument gets its own derivative, as Python passes them: ``grad(1.0, 2.0, 3.0)`` is a tuple of three.
``wrt`` may name the ``*`` parameter (all of its arguments) or positions as passed.
"""

from __future__ import annotations

import functools
import inspect
import types

from ..front.callables import fixed_arity, what_runs


def has_varargs(fn) -> bool:
    """Whether ``fn`` is a plain function with a ``*args`` parameter (its own code's: a ``functools.wraps``
    wrapper's, unless it stands for the parameters it declares, ``front.callables.declared``)."""
    if not (isinstance(fn, types.FunctionType) and fn.__code__.co_flags & inspect.CO_VARARGS):
        return False  # (not a method, d.grad, nor a partial)
    fn = what_runs(fn)
    return bool(fn.__code__.co_flags & inspect.CO_VARARGS)


class NotVariadic(AttributeError, TypeError):
    """What a ``Variadic`` has not: a TypeError for its caller, an AttributeError for ``getattr(v, name, default)``."""


class Variadic:
    """A function with ``*args`` and its derivatives, one ``Differentiable`` per number of arguments."""

    def __init__(self, fn, wrt=None, checkpoint=None, backend="python", arrays="numpy", *, make):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.wrt, self.checkpoint, self.backend, self.arrays = wrt, checkpoint, backend, arrays
        self._make = make  # Differentiable's constructor (api imports this module, not the other way)
        self._fixed: dict = {}
        self._last = None
        code = self.fn.__code__
        self.first = code.co_argcount  # positional parameters before *xs
        self.star = code.co_varnames[code.co_argcount + code.co_kwonlyargcount]

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    @property
    def __adc_runs__(self):
        """What a call runs (``Differentiable.__adc_runs__``)."""
        return self.fn

    def fixed(self, count: int):
        """The ``Differentiable`` of the function called with ``count`` positional arguments."""
        if count < self.first:
            raise TypeError(f"{self.fn.__name__} takes at least {self.first} positional arguments ({count} given)")
        extra = count - self.first
        if extra not in self._fixed:
            g = fixed_arity(self.fn, extra)
            self._fixed[extra] = self._make(g, self._wrt(g, extra), self.checkpoint, self.backend, self.arrays)
        self._last = self._fixed[extra]
        return self._last

    def _wrt(self, g, extra: int):
        """``wrt`` for the fixed function: the ``*`` parameter's name stands for all its arguments."""
        if self.wrt is None:
            return None
        wrt = (self.wrt,) if isinstance(self.wrt, (str, int)) else tuple(self.wrt)
        names = list(inspect.signature(g).parameters)
        out: list = []
        for w in wrt:
            out += names[self.first : self.first + extra] if w == self.star else [w]
        return tuple(out)

    def grad(self, *args, **kwargs):
        return self.fixed(len(args)).grad(*args, **kwargs)

    def value_and_grad(self, *args, **kwargs):
        return self.fixed(len(args)).value_and_grad(*args, **kwargs)

    def jvp(self, primals, tangents):
        return self.fixed(len(primals)).jvp(primals, tangents)

    def vjp(self, primals, ct):
        return self.fixed(len(primals)).vjp(primals, ct)

    def value(self, *args, **kwargs):
        return self.fixed(len(args)).value(*args, **kwargs)

    def __getattr__(self, name: str):
        """What a Differentiable has and this does not (jacfwd, check_grad, hvp reach for it): said plainly."""
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotVariadic(
            f"{self.fn.__name__} takes *{self.star}: differentiate it with grad, value_and_grad, jvp, vjp, value, hessian or "
            f"jacobian, or take differentiate({self.fn.__name__}).fixed(n), its Differentiable for n arguments"
        )

    def source(self, stage: str = "reverse", html: bool = False):
        """The generated code for the last number of arguments called with (``html``: as a page, see
        ``Differentiable.source``)."""
        if self._last is None:
            raise ValueError(f"{self.fn.__name__} takes *args: call it (grad, jvp, ...) first, then ask for its source")
        return self._last.source(stage, html=html)


__all__ = ["Variadic", "has_varargs"]
