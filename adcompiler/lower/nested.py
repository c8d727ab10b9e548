"""Nested AD: a derivative called inside a function being differentiated.

``adcompiler.grad(f)(x, w)``, ``g(x, w)`` for a module-level ``g = adcompiler.grad(f)``,
``adcompiler.value_and_grad(f, argnums=(0, 1))(x, w)``, ``adcompiler.jvp(f, (x, w), (dx, dw))``,
``differentiate(f).grad(x, w)`` and ``d.grad(x, w)`` / ``d.jvp(...)`` of a module-level Differentiable:
the callee is worked out while lowering (the transform called on the functions and constants it is
given), and the call is lowered as a call of the inner derivative's generated code, a function like any
other of the user's, which the outer transformation then differentiates.  The inner derivative is its
own function with its own variables, so no perturbation of the outer derivative can be confused with
the inner one's.

What a callee is, is told by the API (``api.functional`` registers ``INNER``: this room is below it):
a resolver ``(callee, static arguments) -> Inner | None``.  A transform the lowering may call itself
(``adcompiler.grad``, ``differentiate``) carries ``__adc_static__ = "call"``; one whose first argument
is a function given statically and the rest are the call's (``adcompiler.jvp``, ``adcompiler.vjp``)
carries ``"first"``.
"""

from __future__ import annotations

import ast
import contextlib
import types
from dataclasses import dataclass
from typing import Any, Callable

from ..front.environment import Read
from ..ir.nodes import Var

INNER: list = []  # resolvers (callee, static arguments) -> Inner | None, registered by api.functional
_NOT = object()  # not a value the lowering can work out


@dataclass(frozen=True)
class Inner:
    """The generated code a nested derivative call runs: ``function``, called with the call's arguments
    (``kind`` "call") or with the primals and then the tangents of two tuples (``kind`` "jvp"); ``wrap``
    "grad1" / "value_and_grad1": a gradient of a one-position tuple ``argnums`` handed back in a tuple of
    one, as JAX gives.  ``refusal``: (construct, what to write instead) for a spelling not supported."""

    function: Callable[..., Any] | None
    kind: str = "call"
    wrap: str | None = None
    refusal: tuple | None = None
    listed: Callable[[frozenset], Callable[..., Any]] | None = None  # positions -> the code for lists there
    told: Callable[[Callable], Any] = lambda outer: contextlib.nullcontext()  # where the inner code's refusals
    # are told, given the function being lowered (the API's: at the user's line the refused code came from)


class NestedLowering:
    """The lowering of calls of derivatives; see the module docstring."""

    def __init__(self, lower):
        self.lower, self.emit, self.parsed = lower, lower.emit, lower.emit.parsed  # (see anf.Lowering)

    def nested_call(self, node: ast.Call, hint):
        """The lowered call when ``node`` calls a derivative (None for any other call)."""
        func, args = node.func, list(node.args)
        if isinstance(func, ast.Name) and (
            func.id in self.emit.env or func.id in self.emit.slots or func.id in self.emit.pinned
        ):
            return None
        if isinstance(func, ast.Name) and func.id in self.parsed.local_functions:
            return None
        if not isinstance(func, (ast.Name, ast.Attribute, ast.Call)):
            return None
        closed = self.closed_over(func)
        if closed is not None:  # adcompiler.grad(inner)(x) of a local function or a lambda: its free variables first
            callee, frees = closed
            args = [ast.copy_location(ast.Name(v, ast.Load()), node) for v in frees] + args
        else:
            callee = self.static_value(func)
        if callee is _NOT or not callable(callee):
            return None
        given: tuple = ()
        if getattr(callee, "__adc_static__", None) == "first":  # adcompiler.jvp(f, primals, tangents)
            if not args:
                return None
            first = self.static_value(args[0])
            local = isinstance(args[0], ast.Name) and args[0].id in self.parsed.local_functions
            if first is _NOT and (local or isinstance(args[0], ast.Lambda)):
                raise self.parsed.error(
                    args[0],
                    f"{ast.unparse(func)} of a local function or lambda (reading the enclosing function's variables)",
                    "define it at module level and hand it those variables, or take adcompiler.grad of it",
                )
            if first is _NOT:
                raise self.parsed.error(
                    args[0], f"the function given to {ast.unparse(func)}", "name a function defined with def"
                )
            given, args = (first,), args[1:]
        inner = next((i for i in (r(callee, given) for r in INNER) if i is not None), None)
        if inner is None:
            return None
        if inner.refusal is not None:
            raise self.parsed.error(node, *inner.refusal)
        if inner.kind == "jvp":
            if len(args) != 2 or node.keywords or not all(isinstance(a, ast.Tuple) for a in args):
                raise self.parsed.error(
                    node,
                    f"{ast.unparse(func)} with primals and tangents other than two tuples written out",
                    f"write {ast.unparse(func)}(..., (x, w), (dx, dw)) with the tuples in the call",
                )
            args = list(args[0].elts) + list(args[1].elts)
        call = ast.copy_location(ast.Call(func, args, [] if inner.kind == "jvp" else node.keywords), node)
        function = inner.function
        lists = frozenset(
            k % (len(args) // 2 if inner.kind == "jvp" else len(args) or 1)
            for k, a in enumerate(args)
            if self.made_list(a)
        )
        if lists and inner.listed is not None:  # a list the function makes, passed: the inner code for a list there
            function = inner.listed(lists)
        with inner.told(self.parsed.obj):  # a refusal of the inner code: told at the user's line it came from
            out = self.lower.expressions.user_call(call, function, hint if inner.wrap is None else None)
        if inner.wrap == "grad1":
            return (out,)
        if inner.wrap == "value_and_grad1":
            return (out[0], (out[1],))
        return out

    def made_list(self, node) -> bool:
        """Whether ``node`` is a list the function makes: a display, a comprehension, ``list(...)``, or a
        name bound to one of those (its lowered value made by a list's equation)."""
        if isinstance(node, (ast.List, ast.ListComp)):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "list":
            return node.func.id not in self.emit.env and self.lower.names.resolve(node.func) is list
        if isinstance(node, ast.Name) and isinstance(self.emit.env.get(node.id), Var):
            return self.emit.made_by.get(self.emit.env[node.id].name) in ("list", "list_copy", "list_repeat")
        return False

    def closed_over(self, func) -> tuple | None:
        """``(callee, free variables)`` where ``func`` is ``adcompiler.grad(g, ...)`` (``value_and_grad``,
        ``hessian``) of a local function ``g`` (a ``def`` or lambda in the function, lifted by
        ``front.closures`` to take what it reads of the enclosing one first): the transform of the lifted
        function, its ``argnums`` moved past those; None for any other call."""
        if not (isinstance(func, ast.Call) and func.args and isinstance(func.args[0], ast.Name)):
            return None
        local = self.parsed.local_functions.get(func.args[0].id)
        if local is None or func.args[0].id in self.emit.env or func.args[0].id in self.emit.slots:
            return None
        transform = self.static_value(func.func)
        if getattr(transform, "__adc_closes__", False) is not True:
            return None
        lifted, frees = local
        construct = f"{ast.unparse(func.func)} with options known only when the code runs"
        options, keywords = self.static_arguments(
            func, func.args[1:], construct, "give it constant options (argnums=1)"
        )
        if options:
            keywords["argnums"], options = options[0], options[1:]
        argnums = keywords.get("argnums", 0)
        shifted = (lambda k: k + len(frees) if k >= 0 else k) if frees else (lambda k: k)  # noqa: E731
        keywords["argnums"] = tuple(map(shifted, argnums)) if isinstance(argnums, tuple) else shifted(argnums)
        return transform(lifted, *options, **keywords), tuple(frees)

    def static_arguments(self, call: ast.Call, args: list, construct: str, remedy: str) -> tuple:
        """The values of ``args`` and of ``call``'s keywords while the code is lowered (``static_value``), or
        the refusal of ``construct`` at the call."""
        values = [self.static_value(a) for a in args]
        keywords = {k.arg: self.static_value(k.value) for k in call.keywords}
        if None in keywords or any(v is _NOT for v in values) or any(v is _NOT for v in keywords.values()):
            raise self.parsed.error(call, construct, remedy)
        return values, keywords

    def static_value(self, node) -> Any:
        """The object an expression of globals, module attributes, constants and calls of transforms
        (``adcompiler.grad(f, argnums=1)``) is while the code is lowered; ``_NOT`` for anything else."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Tuple):
            items = [self.static_value(e) for e in node.elts]
            return _NOT if any(i is _NOT for i in items) else tuple(items)
        if isinstance(node, ast.Name):
            if node.id in self.emit.env or node.id in self.emit.slots or node.id in self.emit.pinned:
                return _NOT
            glob = self.parsed.source.globals
            if node.id not in glob:
                return _NOT
            value = glob[node.id]
            self.parsed.reads.append(Read(glob, node.id, value))  # built again when the module changes it
            return value
        if isinstance(node, ast.Attribute):
            base = self.static_value(node.value)
            if base is _NOT:
                return _NOT
            if isinstance(base, types.ModuleType):
                if not hasattr(base, node.attr):
                    return _NOT
                value = getattr(base, node.attr)
                self.parsed.reads.append(Read(vars(base), node.attr, value))
                return value
            if node.attr in ("grad", "value_and_grad", "jvp", "vjp"):  # of a Differentiable, told by the resolvers
                method = getattr(base, node.attr, _NOT)
                return method if getattr(method, "__self__", None) is base else _NOT
            return _NOT
        if isinstance(node, ast.Call):
            transform = self.static_value(node.func)
            if transform is _NOT or getattr(transform, "__adc_static__", None) != "call":
                return _NOT
            args, keywords = self.static_arguments(
                node,
                node.args,
                f"{ast.unparse(node.func)} of values known only when the code runs",
                "give it a function defined with def and constant options (argnums=1, wrt=('x',))",
            )
            return transform(*args, **keywords)
        return _NOT


__all__ = ["INNER", "Inner", "NestedLowering"]
