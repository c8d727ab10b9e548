"""What a JAX-style transform is handed, made one thing: the ``Differentiable`` to differentiate, its
arguments, and the positions differentiated.

``grad(f)`` may be handed a plain function or a lambda, a ``Differentiable``, a bound method (the
instance its first argument, a constant), a callable object (its ``__call__``, as Flax and Equinox
models are called), a ``functools.partial`` (the arguments it binds are constants), or another
transform (``grad(grad(f))``, ``jacfwd(jacrev(f))``): that is the generated code of the inner one,
itself differentiated (``differentiable.code_of``).  ``argnums`` count the arguments of the call as the user
writes it; ``target`` maps them to parameters of the function underneath.
"""

from __future__ import annotations

import functools
import operator
import threading
import types
import weakref
from dataclasses import dataclass
from typing import Any, Callable

from ..analysis import values as V
from .differentiable import Differentiable, code_of, differentiate
from .methods import BoundMethod, instance_of
from .trees import gradient_of
from .variadic import Variadic

TRANSFORM = "__adc_transform__"  # the attribute naming what a transform was made of (an ``Of``)
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # function -> {(positions, options): Differentiable}
_LOCK = threading.Lock()
_NONE: dict = {}  # (no entry: an empty table, never written)


@dataclass(frozen=True)
class Of:
    """What a transform is: ``kind`` ("grad", "value_and_grad", "jacfwd", "jacrev") of ``f`` at ``argnums``."""

    kind: str
    f: Any
    argnums: Any
    has_aux: bool = False


@dataclass
class Target:
    """``d`` called with ``args`` and ``kwargs``, differentiated at ``positions`` (of its parameters).
    For the code of an inner transform, ``restore`` gives the inner's output its structure again
    (records and tuples as the inner transform gives them) and ``avals`` are its arguments' abstract
    values (records as records)."""

    d: Any
    args: tuple
    kwargs: dict
    positions: tuple
    restore: Callable | None = None
    avals: tuple = ()
    rows: Any = None  # a Jacobian of an output of several numbers: (inner Target, its argnums, its signature)
    unshaped: Callable | None = None  # a cotangent of the restored output -> of the code's (restore undone)


def made(transformed: Callable, kind: str, f, argnums, has_aux: bool = False) -> Callable:
    """``transformed``, marked as ``kind`` of ``f`` so that another transform can differentiate it."""
    callable_or_refused(f, kind)
    setattr(transformed, TRANSFORM, Of(kind, f, argnums, has_aux))
    transformed.__name__ = f"{kind}_of_{name_of(f)}"
    return transformed


def callable_or_refused(f, kind: str) -> None:
    """A TypeError, said as JAX says it, where ``f`` is not a function (``grad(None)``: an AttributeError inside
    the call before)."""
    if not callable(f):
        raise TypeError(f"{kind}: expected a function (a callable) to differentiate, got {type(f).__name__} {f!r}")


def as_argnums(argnums):
    """``argnums`` as the transforms take it: an int or a tuple of ints, a NumPy integer taken as an int (as
    JAX takes it); a TypeError for anything else."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        return argnums
    if isinstance(argnums, (tuple, list)) and argnums and all(_integer(a) for a in argnums):
        return tuple(operator.index(a) for a in argnums)
    if _integer(argnums):
        return operator.index(argnums)
    raise TypeError(f"argnums must be an int or a tuple of ints (the arguments' positions), not {argnums!r}")


def _integer(a) -> bool:
    return hasattr(a, "__index__") and not isinstance(a, (bool, str))


def positions(argnums) -> tuple:
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


def target(f, places: tuple, args: tuple, kwargs: dict, every: bool = False) -> Target:
    """The ``Target`` of ``f`` called with ``args`` and ``kwargs``, differentiated at the positional
    arguments ``places``; ``every``: with respect to every one of them, an integer left out (jvp, vjp)."""
    if type(f) is types.FunctionType:  # a plain function seen before (an inner grad called in a loop): its entry
        d = _CACHE.get(f, _NONE).get((places, "every" if every else "given", ()))
        if type(d) is Differentiable and TRANSFORM not in f.__dict__:
            return Target(d, tuple(args), kwargs, places)
    of = getattr(f, TRANSFORM, None)
    if of is None and type(f) is types.MethodType and isinstance(f.__self__, Differentiable):
        of = _derivative_method(f, args, kwargs)
    if isinstance(of, Of):
        return _code(of, places, args, kwargs, every)
    callable_or_refused(f, "adcompiler")
    fn, obj = instance_of(f)
    if obj is not None:  # model.loss: the instance is the function's first argument
        return target(fn, tuple(p + 1 for p in places), (obj, *args), kwargs, every)
    if isinstance(f, functools.partial):  # the arguments it binds come first, constants
        return target(f.func, tuple(p + len(f.args) for p in places), f.args + tuple(args), f.keywords | kwargs, every)
    if _callable_object(f):  # model(x): its class's __call__, the model a constant
        return target(f.__call__, places, args, kwargs, every)
    d = differentiable(f, places, every)
    if isinstance(d, Variadic):  # def f(*xs): the Differentiable for this many arguments
        d = d.fixed(len(args))
    return Target(d, tuple(args), kwargs, places)


def _derivative_method(f: types.MethodType, args: tuple, kwargs: dict) -> Of:
    """``d.grad`` or ``d.value_and_grad`` of a Differentiable ``d``, differentiated (``jvp(d.grad, ...)``, a
    Hessian-vector product with the gradient, as ``jax.jvp(jax.grad(f), ...)``): the transform of ``d`` at
    its wrt parameters for these arguments, so that its generated code is differentiated, not the method's
    own (which is adcompiler's).  Its other methods take tuples of primals and tangents: refused."""
    d, kind = f.__self__, f.__name__
    if kind not in ("grad", "value_and_grad"):
        raise TypeError(
            f"{d.fn.__name__}.{kind} cannot be differentiated: differentiate {d.fn.__name__}.grad or "
            f"{d.fn.__name__}.value_and_grad (or adcompiler.grad({d.fn.__name__}), adcompiler.jacrev(...))"
        )
    if d.wrt_given:  # (its parameters as named: no need to bind the arguments for them)
        places = d._positions
    else:
        places = d._positions_of(d._bound(tuple(args), kwargs)[1])
    return Of(kind, d, places[0] if len(places) == 1 else places)  # (one wrt parameter: its gradient alone)


def _callable_object(f) -> bool:
    """An instance whose class defines ``__call__`` as a function (a model, a layer)."""
    if isinstance(f, (types.FunctionType, Differentiable, Variadic, BoundMethod, type)):
        return False
    return isinstance(getattr(type(f), "__call__", None), types.FunctionType)


def differentiable(f, places: tuple, every: bool = False) -> Differentiable:
    """The one ``Differentiable`` of ``f`` (a function, or a Differentiable's function with its options)
    with respect to the parameters at ``places``; ``every``: those of every primal (jvp, vjp), an integer
    left out as by default (``api.Differentiable._wrt_of``)."""
    options = {}
    if isinstance(f, Differentiable):
        options = dict(checkpoint=f.checkpoint, backend=f.backend, arrays=f.arrays)
        f = f.fn
    key = (places, "every" if every else "given", tuple(sorted(options.items(), key=lambda kv: kv[0])))
    if not isinstance(f, types.FunctionType):  # (np.sin, a ufunc, cannot be a weak key): told as differentiate tells it
        return differentiate(f, wrt=places, **options)
    with _LOCK:
        table = _CACHE.setdefault(f, {})
        if key not in table:
            table[key] = d = differentiate(f, wrt=places, **options)
            d.wrt_given = not every
        return table[key]


def _code(of: Of, places: tuple, args: tuple, kwargs: dict, every: bool) -> Target:
    """The target of a transform of a transform: the inner one's generated code for these arguments
    (``differentiable.code_of``), differentiated at the parameters the outer ``places`` name."""
    if of.has_aux:
        raise TypeError(
            f"{of.kind}_of_{name_of(of.f)} has has_aux=True: differentiate it with has_aux=True on the outer "
            "transform only, and return (output, aux) from the inner function of one transform"
        )
    if of.kind == "hessian":  # jacfwd(jacrev(f)), as JAX defines it
        of = Of("jacfwd", _Marked(Of("jacrev", of.f, of.argnums)), of.argnums)
    inner = target(of.f, positions(of.argnums), args, kwargs)
    outer = target(of.f, places, args, kwargs)
    d = inner.d
    full, sig = d._bound(inner.args, inner.kwargs)
    mode = _mode(of, d, sig)
    # (a target whose code cannot be differentiated hands the python target's gradient code: Numba's)
    if not (d.target.second_order and (d.target.nests or d.target.reverse_code is not None and mode == "grad")):
        raise NotImplementedError(
            f"{of.kind} of {name_of(of.f)} under backend={d.backend!r}, arrays={d.arrays!r} cannot be differentiated "
            "again; differentiate the function with the default backend for derivatives of derivatives "
            "(adcompiler.hvp and adcompiler.hessian of it run under this backend)"
        )
    avals = [sig.avals[i] for i in d._positions_of(sig)]
    wrt = tuple(d.params[i] for i in outer.positions)
    code = code_of(d, mode, sig, wrt)
    code.wrt_given = not every
    if mode == "reverse":  # the Jacobian's rows: the reverse code with each unit cotangent (functional)
        return Target(code, full, {}, outer.positions, None, sig.avals, (inner, of.argnums, sig))

    def restore(out):
        if mode == "value_and_grad":
            return out[0], shaped(gradient_of(out[1], avals), of.argnums)
        return shaped(gradient_of(out, avals), of.argnums)

    def unshaped(ct):  # (the one gradient of argnums=(k,): a tuple of one around it, as JAX gives it)
        one = not isinstance(of.argnums, int) and len(of.argnums) == 1
        if mode == "value_and_grad":
            return (ct[0], ct[1][0]) if one and isinstance(ct[1], tuple) and len(ct[1]) == 1 else ct
        return ct[0] if one and isinstance(ct, tuple) and len(ct) == 1 else ct

    return Target(code, full, {}, outer.positions, restore, sig.avals, unshaped=unshaped)


class _Marked:
    """A transform known only by what it is (``hessian``'s inner ``jacrev``)."""

    def __init__(self, of: Of):
        setattr(self, TRANSFORM, of)
        self.__name__ = f"{of.kind}_of_{name_of(of.f)}"


def _mode(of: Of, d: Differentiable, sig: V.Sig) -> str:
    """The generated code that computes the inner transform: a gradient (grad, and jacfwd and jacrev of
    a function with one number as its output), or value and gradient."""
    if of.kind in ("grad", "value_and_grad"):
        d._require_scalar(of.kind, sig)
        return of.kind
    out = d._built.facts(sig).summary.out
    if d._built.output_shape() is None and (isinstance(out, V.Num) or isinstance(out, V.Arr) and out.ndim == 0):
        return "grad"
    return "reverse"


def refuse_rows(t: Target, what: str) -> None:
    """Refuse ``what`` of the Jacobian of a function of several output numbers: only its Jacobian
    (``jacfwd``, ``jacrev``, ``hessian`` of one number's Jacobian) is made."""
    if t.rows is not None:
        inner = t.rows[0].d.fn.__name__
        raise NotImplementedError(
            f"{what} of the Jacobian of {inner}, whose output is not one number: take its Jacobian (jacfwd or "
            f"jacrev of it), or differentiate a function of one number"
        )


def shaped(g, argnums):
    """One gradient for an int ``argnums``, a tuple of them for a tuple (even of one), as JAX gives."""
    if isinstance(argnums, int):
        return g
    return g if len(argnums) > 1 else (g,)


def name_of(f) -> str:
    return getattr(f, "__name__", None) or type(f).__name__
