"""Calls through objects: ``layer(h)``, ``layer.forward(h)`` and ``self.scale`` (a property) of a value
whose class is known from its abstract value: an object passed in (a record of its class, see
``trees``), or one read out of a list, tuple, dict or attribute of them (``for layer in self.layers``).

Lowering cannot know the class (``layer`` is a local), so it writes ``out = method(obj, *args)`` with the
method's name as the equation's parameter.  The analysis reads the class from ``obj``'s abstract value
and makes the equation the call of the class's function with ``obj`` first (a static method without
it), its defaults filled in: from then on it is a call of a user function like any other, so the
object's gradient comes back as an object of its class.  What cannot be called so is refused with its
location: the class has no such method, the object is no object of a class (an array, a dict), or the
method returns a tuple (one output only, through an object).
"""

from __future__ import annotations

import functools
import inspect
import linecache
import types

from . import values as V
from .show import show
from ..errors import at_line
from ..ir.nodes import Const, Eq
from ..ir.supplied import constant
from ..lower.records import METHOD
from ..front.environment import Read
from ..ir.nodes import walk


def as_call(e: Eq, ins: list) -> Eq | None:
    """The call ``e`` stands for, given its arguments' abstract values ``ins``: a method of the
    receiver's class, the getter of a property read as an attribute, or a class attribute read through
    an object (``self.factor``: the object's class's, read as the code runs); None where there is none."""
    if (
        e.prim == METHOD
        and isinstance(ins[0], V.Static)
        and ins[0].what == "str"
        and callable(getattr(str, e.param, None))
    ):
        method = getattr(str, e.param)  # kind.startswith("ab") of a string: computed as the primal computes it
        return Eq(
            e.outs, "library", e.ins, e.line, ("library", f"builtins.str.{e.param}", (), method, f"str.{e.param}")
        )
    if e.prim == METHOD and V.is_record(ins[0]):
        found = _function(ins[0].cls, e.param)
        if found is None and _callable_field(ins[0], e.param):  # self.l1(x): l1 a layer the object holds
            return Eq(e.outs, "call", e.ins, e.line, field_caller(ins[0].cls, e.param, len(e.ins) - 1))
        if found is None:
            return None
        fn, bound = found
        args = e.ins if bound else e.ins[1:]
        return Eq(e.outs, "call", _filled(fn, args), e.line, fn)
    if e.prim == "getitem" and _attribute(e) and V.is_record(ins[0]) and e.ins[1].value not in ins[0].keys:
        prop = inspect.getattr_static(ins[0].cls, e.ins[1].value, None)
        if isinstance(prop, property) and isinstance(prop.fget, types.FunctionType):
            return Eq(e.outs, "call", (e.ins[0],), e.line, prop.fget)
        if _class_constant(ins[0].cls, e.ins[1].value):  # getattr(Cls, "factor") as the code runs, Cls handed
            cls, name = ins[0].cls, e.ins[1].value  # to it (from any module), a constant of no derivative
            args = (constant(cls, cls.__name__), Const(name))
            return Eq(e.outs, "library", args, e.line, ("library", "builtins.getattr", (), getattr, "getattr"))
    return None


def method_reads(fn, of) -> list:
    """What resolving the method calls of ``fn`` (an IR function before ``as_call``) read, as ``Read``s: for
    ``obj.step(x)`` of a record of class ``C``, the function ``step`` in the dictionary of the class of ``C``'s
    MRO that defines it, so that the code is built again once that class's ``step`` is replaced (``Body.f =
    new_f`` after a first call: the derivative kept calling the old one)."""
    found = []
    for e in walk(fn.body):
        if not (isinstance(e, Eq) and e.prim == METHOD):
            continue
        obj = of(e.ins[0])
        if not V.is_record(obj) or obj.cls is None or obj.cls is dict:
            continue
        owner = next((k for k in obj.cls.__mro__ if e.param in vars(k)), None)
        if owner is not None and owner.__module__ != "builtins":
            found.append(Read(vars(owner), e.param, vars(owner)[e.param]))
    return found


def _class_constant(cls, name: str) -> bool:
    """Whether ``name`` is a class attribute of ``cls`` holding a number, an array or a string (``factor = 3.0``
    in the class body)."""
    if cls is None or cls is dict or name.startswith("__"):
        return False
    value = inspect.getattr_static(cls, name, None)
    return isinstance(value, (int, float, str)) or type(value).__name__ == "ndarray"


def _function(cls, name: str):
    """``(function, whether the object is its first argument)`` of ``cls``'s method ``name``; None."""
    if cls is None or cls is dict:
        return None
    found = inspect.getattr_static(cls, name, None)
    found = getattr(found, "__adc_runs__", found)  # a method decorated with @adcompiler.differentiate: its function
    if isinstance(found, staticmethod) and isinstance(found.__func__, types.FunctionType):
        return found.__func__, False
    if isinstance(found, types.FunctionType):
        return found, True
    return None


def _callable_field(obj: V.Seq, name: str) -> bool:
    """Whether the attribute ``name`` of the object ``obj`` holds an object whose class defines ``__call__``
    (an attribute the object holds comes before a method of its class, as in Python)."""
    if obj.keys is None or name not in obj.keys:
        return False
    held = obj.items[obj.keys.index(name)] if obj.items is not None else obj.elem
    return V.is_record(held) and _function(held.cls, "__call__") is not None


@functools.cache
def field_caller(cls: type, name: str, count: int):
    """The function ``Net_l1(obj, a0, ...)`` that reads the attribute ``name`` of an object of ``cls`` and
    calls it with ``count`` arguments (``self.l1(x)``, ``l1`` a layer the object holds): lowered like a
    function of the user's, so its call is that of the layer's class's ``__call__``.  Made once per class,
    attribute and count (the same function for every build: what is known of a function is kept by it), its
    text held by ``linecache`` where the parser reads a function's source."""
    args = ", ".join(f"a{k}" for k in range(count))
    qualname = f"{cls.__name__}_{name}"
    filename = f"<adcompiler: {cls.__qualname__}.{name}(...), an attribute of a {cls.__name__} called>"
    text = f"def {qualname}(obj{', ' if count else ''}{args}):\n    {name} = obj.{name}\n    return {name}({args})\n"
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    namespace: dict = {}
    exec(compile(text, filename, "exec"), namespace)
    return namespace[qualname]


def _filled(fn, args: tuple) -> tuple:
    """``args`` with ``fn``'s defaults after them (the parameters the call does not pass)."""
    params = list(inspect.signature(fn).parameters.values())
    rest = [constant(p.default, f"{p.name}_default") for p in params[len(args) :] if p.default is not p.empty]
    return tuple(args) + tuple(rest)


def _attribute(e: Eq) -> bool:
    key = e.ins[1]
    return isinstance(key, Const) and isinstance(key.value, str) and key.text == "." + key.value


_LIST_REMEDIES = {  # a list's methods outside the subset: what to write instead
    "sort": "make a sorted list: xs = sorted(xs) (key= and reverse= as sort takes them)",
    "reverse": "make a reversed list: xs = xs[::-1]",
    "index": "find it with a loop over range(len(xs)), or min(range(len(xs)), key=lambda i: abs(xs[i] - v))",
    "count": "count with sum(1 for v in xs if v == w)",
    "remove": "make a new list: xs = [v for v in xs if v != w]",
}


def refuse(e: Eq, ins: list, summary_out, source) -> None:
    """Refuse, at its line, a call through an object that is no call of a method (see the module
    docstring); ``summary_out``: the output of the method called, when it was found."""
    if e.prim != METHOD:
        return
    obj, name = ins[0], e.param
    called = "calling" if name == "__call__" else f"the method .{name}() of"
    if isinstance(obj, V.Top):  # objects of several classes joined (one list, one loop variable)
        raise at_line(
            source,
            e.line,
            f"{called} a local variable whose class is not known (objects of several classes in one list?)",
            "keep objects of one class in a list that is looped over, or name each: first, second = layers",
        )
    if not V.is_record(obj) or obj.cls is dict:
        remedy = (
            "call functions defined with def, or objects whose class defines __call__"
            if name == "__call__"
            else (
                _LIST_REMEDIES.get(name, "build a new list: ys = xs + [v], sorted(xs), xs[:k]")
                if isinstance(obj, V.Seq) and obj.keys is None
                else "use .sum .mean .max .min .reshape .ravel .dot .copy .transpose .T or the numpy function"
            )
        )
        raise at_line(source, e.line, f"{called} a local variable holding {show(obj)}", remedy)
    found = _function(obj.cls, name)
    cls = obj.cls.__name__
    if found is None and name in obj.keys:
        raise at_line(
            source,
            e.line,
            f"calling .{name}, an attribute of a {cls} object (a value held in it, not a method of {cls})",
            f"call the function by its own name, or define a method of {cls} that calls it",
        )
    if found is None and (getattr(obj.cls, "__module__", None) or "").split(".")[0] in ("numpy", "builtins"):
        raise at_line(
            source, e.line, f"calling a {cls} held in a local variable", "call the function by its own name: np.tanh(h)"
        )
    if found is None and isinstance(inspect.getattr_static(obj.cls, name, None), classmethod):
        raise at_line(
            source,
            e.line,
            f"the class method .{name}() of {cls} (its class handed to it as cls)",
            f"make it a @staticmethod, or a function of the module taking what it reads of {cls}",
        )
    if found is None:
        what = f"calling a {cls}" if name == "__call__" else f"the method .{name}() of a {cls}"
        raise at_line(source, e.line, f"{what}, a class with no method {name},", "check its spelling")
    if isinstance(summary_out, tuple):
        raise at_line(
            source,
            e.line,
            f"{obj.cls.__name__}.{name}, which returns a tuple, called through an object",
            "return one value from it (a list or an array), or call the class's function: "
            f"{obj.cls.__name__}.{name}(obj, ...)",
        )
