"""IR statements and expressions -> lines of Python source, as ``ast.unparse`` spells them.

``emit`` could build an ``ast`` node for every line and hand it to ``ast.unparse``,
and did: that was most of its time, a tenth of a transformation.  This module
writes the same text directly from the IR, following ``ast.unparse``'s rules
(its precedence levels and where they ask for parentheses, ``repr`` for
literals, a one-element tuple's comma, ``emit.to_ast``'s spelling of negative
numbers, infinities and NaN), and calls ``Namespace.render`` in the order
``to_ast`` does, so the same names are imported in the same order.  What it
does not know raises ``Unprintable``; ``emit`` then takes the ``ast`` way.
"""

from __future__ import annotations

import builtins

from ..ir import expr as E
from ..ir.nodes import Assign, AugAssign, Do, Raise, Release, Ret

# ast.unparse's precedence levels (ast._Precedence): a sub-expression is parenthesised when the level its
# place asks for is above its own.
TUPLE, YIELD, TEST, OR, AND, NOT, CMP, BOR, BXOR, BAND = 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
ARITH, TERM, FACTOR, POWER, ATOM = 13, 14, 15, 16, 18
_BINARY = {"+": ARITH, "-": ARITH, "*": TERM, "@": TERM, "/": TERM, "%": TERM, "//": TERM, "**": POWER}
_BINARY.update({"|": BOR, "^": BXOR, "&": BAND})
_UNARY = {"-": FACTOR, "+": FACTOR, "not": NOT, "~": FACTOR}
_COMPARE = {"<", "<=", ">", ">=", "==", "!=", "is", "is not"}
_BOOL = {"and": AND, "or": OR}


class Unprintable(Exception):
    """A statement or expression this module leaves to ``ast.unparse``."""


def line(s, ns) -> str:
    """``ast.unparse(emit.statement(s, ns))``: one simple statement (a checked raise: two lines)."""
    if isinstance(s, Assign):
        target = _target(s.targets[0], ns, TUPLE) if len(s.targets) == 1 else _target(s.targets, ns, TUPLE)
        return f"{target} = {text(s.value, ns)}"
    if isinstance(s, AugAssign):
        if s.op not in _BINARY:
            raise Unprintable
        target = _target(s.target, ns, TEST)
        return f"{target} {s.op}= {text(s.value, ns)}"
    if isinstance(s, Ret) and s.value is not None:
        return "return " + text(s.value, ns)
    if isinstance(s, Do):
        return text(s.value, ns, YIELD)
    if isinstance(s, Release):
        return "del " + ", ".join(s.names) if s.bound else " = ".join(s.names) + " = None"
    if isinstance(s, Raise):
        value = text(s.value, ns)  # (to_ast's order: the exception, then the test)
        return f"raise {value}" if s.test is None else f"if {text(s.test, ns)}:\n    raise {value}"
    raise Unprintable


def _target(t, ns, level: int) -> str:
    if isinstance(t, tuple):
        if not t:
            raise Unprintable
        parts = [_target(x, ns, TEST) for x in t]
        joined = parts[0] + "," if len(parts) == 1 else ", ".join(parts)
        return joined if level <= TUPLE else f"({joined})"
    if isinstance(t, E.Subscript):
        return _subscript(t, ns)
    if isinstance(t, str):
        return t
    raise Unprintable


def text(e, ns, level: int = TEST) -> str:
    """``ast.unparse(emit.to_ast(e, ns))`` in a place that asks for precedence ``level``."""
    cls = e.__class__
    if cls is E.Name:
        return e.id
    if cls is E.BinOp:
        own = _BINARY.get(e.op)
        if own is None:
            raise Unprintable
        left, right = (own + 1, own) if e.op == "**" else (own, own + 1)
        out = f"{text(e.left, ns, left)} {e.op} {text(e.right, ns, right)}"
        return f"({out})" if level > own else out
    if cls is E.Num:
        return _number(e, ns, level)
    if cls is E.Call:
        e = named_arguments(e)
        func = ns.render(e.func) if ns else e.func
        args = [text(a, ns) for a in e.args]
        for k, v in e.keywords:
            if not isinstance(k, str):
                raise Unprintable
            args.append(f"{k}={text(v, ns)}")
        return f"{func}({', '.join(args)})"
    if cls is E.Subscript:
        return _subscript(e, ns)
    if cls is E.Unary:
        own = _UNARY.get(e.op)
        if own is None:
            raise Unprintable
        out = e.op + ("" if own == FACTOR else " ") + text(e.operand, ns, own)
        return f"({out})" if level > own else out
    if cls is E.Compare:
        if e.op not in _COMPARE:
            raise Unprintable
        out = f"{text(e.left, ns, CMP + 1)} {e.op} {text(e.right, ns, CMP + 1)}"
        return f"({out})" if level > CMP else out
    if cls is E.Tuple:
        if not e.elts:
            return "()"
        parts = [text(x, ns) for x in e.elts]
        joined = parts[0] + "," if len(parts) == 1 else ", ".join(parts)
        return joined if level <= TUPLE else f"({joined})"
    if cls is E.List:
        return "[" + ", ".join(text(x, ns) for x in e.elts) + "]"
    if cls is E.Method and e.obj.__class__ is not E.Num:  # (a number's method: ast.unparse's "1 .real")
        obj = text(e.obj, ns, ATOM)
        args = [text(a, ns) for a in e.args] + [f"{k}={text(v, ns)}" for k, v in e.keywords]
        return f"{obj}.{e.name}({', '.join(args)})"
    if cls is E.Attr and e.obj.__class__ is not E.Num:
        return f"{text(e.obj, ns, ATOM)}.{e.name}"
    if cls is E.Slice:
        return f"{text(e.lower, ns)}:{text(e.upper, ns)}"
    if cls is E.IfExp:
        test = text(e.test, ns, OR)  # (to_ast's order: the test, the value, the other value)
        body = text(e.body, ns, OR)
        out = f"{body} if {test} else {text(e.orelse, ns)}"
        return f"({out})" if level > TEST else out
    if cls is E.BoolOp:
        own = _BOOL.get(e.op)
        if own is None or not e.values:
            raise Unprintable
        parts = [text(v, ns, min(own + 1 + i, ATOM)) for i, v in enumerate(e.values)]  # (as ast.unparse rises)
        out = f" {e.op} ".join(parts)
        return f"({out})" if level > own else out
    if cls is E.ListComp and isinstance(e.target, str):
        iterable = text(e.iterable, ns, OR)  # (to_ast's order: the iterable, then the element)
        return f"[{text(e.elt, ns)} for {e.target} in {iterable}]"
    raise Unprintable


def named_arguments(e: E.Call) -> E.Call:
    """A NumPy call as a person writes it: optional arguments by name, and only when not the default."""
    from ..rules.arrays import SIGNATURES

    signature = SIGNATURES.get(e.func)
    if signature is None or e.keywords or len(e.args) != len(signature):
        return e
    positional = [a for a, (_, default) in zip(e.args, signature) if default is None]
    keywords = tuple((name, a) for a, (name, default) in zip(e.args, signature) if default is not None and a != default)
    return E.Call(e.func, tuple(positional), keywords)


def _subscript(e: E.Subscript, ns) -> str:
    value = text(e.value, ns, ATOM)
    index = e.index
    if index.__class__ is E.Num and isinstance(index.value, str) and index.text == "." + index.value:
        return f"{value}.{index.value}"  # an object's attribute (lower.records: its key is the field's name)
    if index.__class__ is E.Tuple and index.elts:  # x[i, j]: the tuple without parentheses
        parts = [text(x, ns) for x in index.elts]
        return f"{value}[{parts[0] + ',' if len(parts) == 1 else ', '.join(parts)}]"
    return f"{value}[{text(index, ns)}]"


def _number(e: E.Num, ns, level: int) -> str:
    if e.text is not None:  # math.pi, a builtin (float), or a global of the user's module read by its name
        builtin = "." not in e.text and getattr(builtins, e.text, None) is e.value
        return ns.render(e.text) if ns and ("." in e.text or builtin) else e.text
    v = e.value
    if v.__class__ is float and v != v:
        return "float('nan')"
    if v.__class__ is float and abs(v) == float("inf"):
        inf = ns.render("math.inf") if ns else "math.inf"
        return inf if v > 0 else (f"(-{inf})" if level > FACTOR else f"-{inf}")
    if v.__class__ in (int, float) and v < 0:
        out = "-" + _literal(-v)
        return f"({out})" if level > FACTOR else out
    return _literal(v)


def _literal(v) -> str:
    """``repr``, as ``ast.unparse`` writes a constant (of the kinds generated code holds)."""
    if v is None or v.__class__ in (bool, int, float, str):
        return repr(v)
    raise Unprintable
