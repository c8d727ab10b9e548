"""ast -> A-normal form.

Accepts a fenced ``parse.Parsed`` function.  Returns an ``ir.Function`` whose
body is a list of ``Eq`` (one primitive applied to atoms) ending in a
``Return``.  Every nested sub-expression gets its own variable: named after the
user's variable when it is the whole right-hand side (``z``; a reassigned ``z``
becomes ``z_1``), a numbered temporary ``t1`` otherwise.  Tuples are kept
symbolic (a tuple of atoms), so ``a, b = b, a`` and ``p = g(x); p[0]``-free
tuple code needs no tuple objects at all.
"""

from __future__ import annotations

import ast
import builtins
import types

from . import rules
from .errors import MissingRuleError
from .ir import Const, Eq, Function, Return, Var, flatten
from .names import Namer, is_builtin
from .parse import BINOPS, UNARYOPS, Parsed


def lower(parsed: Parsed, namer: Namer, callee_shape) -> Function:
    """Lower one parsed function to ANF; ``callee_shape(fn)`` gives a callee's output shape."""
    return _Lowering(parsed, namer, callee_shape).run()


class _Lowering:
    def __init__(self, parsed: Parsed, namer: Namer, callee_shape):
        self.parsed = parsed
        self.namer = namer
        self.callee_shape = callee_shape
        self.env: dict = {}
        self.defined: set = set()  # SSA names already given out in this function
        self.body: list = []
        self.line = parsed.node.lineno

    # ---- statements -------------------------------------------------------------

    def run(self) -> Function:
        fdef = self.parsed.node
        params = tuple(a.arg for a in fdef.args.args)
        for p in params:
            self.env[p] = Var(p)
            self.defined.add(p)
        defaults = tuple(Const(v) for v in (self.parsed.obj.__defaults__ or ()))
        statements = [
            s
            for s in fdef.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        ]
        for i, stmt in enumerate(statements):
            self.line = stmt.lineno
            if isinstance(stmt, ast.Return):
                if i != len(statements) - 1:
                    raise self.parsed.error(
                        statements[i + 1],
                        "code after return",
                        "remove the unreachable lines",
                    )
                if stmt.value is None:
                    break
                self.body.append(Return(self.expr(stmt.value), stmt.lineno))
                return Function(
                    fdef.name, params, defaults, tuple(self.body), self.parsed.source
                )
            self.statement(stmt)
        raise self.parsed.error(
            fdef,
            f"the function {fdef.name} without a return value",
            "end it with return <value>",
        )

    def statement(self, stmt) -> None:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if not isinstance(target, (ast.Name, ast.Tuple)):
                    raise self.parsed.error(
                        target,
                        "assignment to this target",
                        "assign to a plain name or a tuple of names",
                    )
            value = self.expr(stmt.value, hint=_hint(stmt.targets[-1]))
            for target in stmt.targets:
                self.bind(target, value)
        elif isinstance(stmt, ast.AugAssign):
            if not isinstance(stmt.target, ast.Name):
                raise self.parsed.error(
                    stmt.target,
                    "augmented assignment to this target",
                    "use a plain name: x += y",
                )
            current = self.name(stmt.target)
            right = self.expr(stmt.value)
            self.bind(
                stmt.target,
                self.apply(BINOPS[type(stmt.op)], [current, right], stmt.target.id),
            )
        elif isinstance(stmt, ast.Pass):
            pass
        else:
            raise self.parsed.error(
                stmt,
                f"the statement {type(stmt).__name__}",
                "use assignments and return",
            )

    def bind(self, target, value) -> None:
        """Give a user name (or a tuple of names) the value of an atom or symbolic tuple."""
        if isinstance(target, ast.Name):
            self.env[target.id] = value
            return
        if not isinstance(value, tuple) or len(value) != len(target.elts):
            size = len(value) if isinstance(value, tuple) else 1
            raise self.parsed.error(
                target,
                f"unpacking {size} value(s) into {len(target.elts)} names",
                "unpack exactly as many names as there are values",
            )
        for elt, item in zip(target.elts, value, strict=True):
            if not isinstance(elt, (ast.Name, ast.Tuple)):
                raise self.parsed.error(
                    elt, "unpacking into this target", "unpack into plain names"
                )
            self.bind(elt, item)

    # ---- expressions ------------------------------------------------------------

    def expr(self, node, hint: str | None = None):
        """Lower an expression to an atom or a tuple of atoms, emitting equations."""
        if isinstance(node, ast.Constant):
            return Const(node.value)
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.Tuple):
            return tuple(
                self.expr(elt, _leaf_hint(hint, i)) for i, elt in enumerate(node.elts)
            )
        if isinstance(node, ast.Attribute):
            return self.global_constant(node)
        if isinstance(node, ast.UnaryOp):
            operand = self.expr(node.operand)
            if (
                isinstance(operand, Const)
                and isinstance(operand.value, (int, float))
                and operand.text is None
            ):
                return Const(
                    -operand.value if isinstance(node.op, ast.USub) else +operand.value
                )
            return self.apply(UNARYOPS[type(node.op)], [operand], _leaf_hint(hint))
        if isinstance(node, ast.BinOp):
            left = self.expr(node.left)
            right = self.expr(node.right)
            return self.apply(BINOPS[type(node.op)], [left, right], _leaf_hint(hint))
        if isinstance(node, ast.Call):
            return self.call(node, hint)
        raise self.parsed.error(
            node,
            f"the expression {type(node).__name__}",
            "use arithmetic, math functions and calls",
        )

    def name(self, node: ast.Name):
        if node.id in self.env:
            return self.env[node.id]
        value = self.resolve(node)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return Const(value, node.id)
        raise self.parsed.error(
            node,
            f"the global {node.id!r} ({type(value).__name__})",
            "use numbers, math functions and functions defined with def",
        )

    def global_constant(self, node: ast.Attribute):
        value = self.resolve(node)
        text = ast.unparse(node)
        canonical = next(
            (
                c
                for c, v in rules.CONSTANTS.items()
                if v == value or (v != v and value != value)
            ),
            None,
        )
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return Const(value, canonical or text)
        raise self.parsed.error(
            node, f"the attribute {text}", "use numbers and math functions"
        )

    def resolve(self, node):
        """The object a global name or dotted module attribute refers to."""
        if isinstance(node, ast.Name):
            glob = self.parsed.source.globals
            if node.id in glob:
                return glob[node.id]
            if hasattr(builtins, node.id):
                return getattr(builtins, node.id)
            raise self.parsed.error(
                node, f"the undefined name {node.id!r}", "define it before use"
            )
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if not isinstance(base, types.ModuleType):
                raise self.parsed.error(
                    node,
                    f"the attribute access {ast.unparse(node)}",
                    "only module attributes such as math.pi or math.sin are supported",
                )
            if not hasattr(base, node.attr):
                raise self.parsed.error(
                    node,
                    f"{ast.unparse(node)} (no such attribute)",
                    "check the spelling",
                )
            return getattr(base, node.attr)
        raise self.parsed.error(
            node, "calling the result of an expression", "call a named function"
        )

    def call(self, node: ast.Call, hint):
        if isinstance(node.func, ast.Name) and node.func.id in self.env:
            raise self.parsed.error(
                node.func,
                f"calling the local variable {node.func.id!r}",
                "call a function defined at module level",
            )
        target = self.resolve(node.func)
        text = ast.unparse(node.func)
        if isinstance(target, types.FunctionType) and not is_builtin(text, target):
            return self.user_call(node, target, hint)
        hint = _leaf_hint(hint)
        prim = _prim_of(target)
        if prim is None:
            raise self.parsed.error(
                node,
                f"{text}, which has no derivative rule",
                f"call only math functions, abs/min/max/pow/round/int/float and your own Python functions",
                MissingRuleError,
            )
        if node.keywords:
            raise self.parsed.error(
                node, f"keyword arguments to {text}", "pass the arguments positionally"
            )
        args = [self.expr(a) for a in node.args]
        if any(isinstance(a, tuple) for a in args):
            raise self.parsed.error(node, f"a tuple passed to {text}", "pass numbers")
        if prim in ("max", "min"):
            if len(args) < 2:
                raise self.parsed.error(
                    node,
                    f"{prim} of a single iterable",
                    f"pass two or more numbers: {prim}(a, b)",
                )
            result = args[0]
            for i, arg in enumerate(args[1:]):
                result = self.apply(
                    prim, [result, arg], hint if i == len(args) - 2 else None
                )
            return result
        if not rules.has_rule(prim, len(args)):
            raise self.parsed.error(
                node,
                f"{text} with {len(args)} arguments",
                "check the call against the function's documentation",
                MissingRuleError,
            )
        return self.apply(prim, args, hint)

    def user_call(self, node: ast.Call, target, hint):
        """A call of another user function: bind arguments, fill defaults."""
        import inspect

        try:
            bound = inspect.signature(target).bind(
                *node.args, **{k.arg: k.value for k in node.keywords}
            )
        except TypeError as exc:
            raise self.parsed.error(
                node,
                f"the call {ast.unparse(node)} ({exc})",
                "pass one argument per parameter",
            ) from None
        values = []
        defaults = dict(
            zip(
                target.__code__.co_varnames[: target.__code__.co_argcount][
                    -len(target.__defaults__ or ()) :
                ],
                target.__defaults__ or (),
            )
        )
        for name in inspect.signature(target).parameters:
            if name in bound.arguments:
                arg = self.expr(bound.arguments[name])
                if isinstance(arg, tuple):
                    raise self.parsed.error(
                        node,
                        f"a tuple argument to {target.__name__}",
                        "pass numbers (unpack the tuple first)",
                    )
                values.append(arg)
            else:
                values.append(Const(defaults[name]))
        shape = self.callee_shape(target, node)
        hints = _shaped_hints(shape, hint)
        outs = [self.new_var(h) for h in hints]
        self.body.append(Eq(tuple(outs), "call", tuple(values), self.line, target))
        if not isinstance(shape, tuple):
            return outs[0]
        from .ir import rebuild

        return rebuild(shape, iter(outs))

    def apply(self, prim: str, args: list, hint: str | None) -> Var:
        """Emit ``out = prim(*args)`` and return ``out``."""
        for a in args:
            if isinstance(a, tuple):
                raise self.parsed.error(
                    self.parsed.node,
                    "arithmetic on a tuple",
                    "unpack the tuple into names first",
                )
        out = self.new_var(hint)
        self.body.append(Eq((out,), prim, tuple(args), self.line))
        return out

    def new_var(self, hint: str | None) -> Var:
        """The user's own name for its first definition, ``z_1``, ``z_2`` after; ``t1`` without a name."""
        if hint is None:
            return Var(self.namer.temp())
        name = hint if hint not in self.defined else self.namer.fresh(hint)
        self.defined.add(name)
        return Var(name)


def _hint(target):
    """The user's name(s) for a value: a name, or a tuple shaped like the target."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Tuple):
        return tuple(_hint(elt) for elt in target.elts)
    return None


def _leaf_hint(hint, index=None):
    """The single-name part of a hint (``None`` for tuple hints)."""
    if index is not None:
        return hint[index] if isinstance(hint, tuple) and index < len(hint) else None
    return hint if isinstance(hint, str) else None


def _shaped_hints(shape, hint) -> list:
    """One name hint per output leaf, taken from a target of the same shape."""
    if shape is None:
        return [hint if isinstance(hint, str) else None]
    parts = (
        hint
        if isinstance(hint, tuple) and len(hint) == len(shape)
        else (None,) * len(shape)
    )
    return [
        h for s, part in zip(shape, parts, strict=True) for h in _shaped_hints(s, part)
    ]


def _prim_of(obj):
    try:
        return rules.PRIMS.get(obj)
    except TypeError:
        return None


def output_shape(fn: Function):
    """The shape of a function's return value: None for one value, nested tuples otherwise."""
    value = fn.body[-1].value

    def shape(v):
        return tuple(shape(x) for x in v) if isinstance(v, tuple) else None

    return shape(value)
