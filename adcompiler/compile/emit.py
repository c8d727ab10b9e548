"""IR -> Python source: ``ast.unparse`` for each line, comments for source lines, then black.

Canonical global names in expressions (``math.cos``) are spelt through a
``names.Namespace`` so generated code uses the user's own aliases.
"""

from __future__ import annotations

import ast
import textwrap

from ..ir import expr as E
from ..ir.nodes import Assign, AugAssign, Break, Comment, Continue, Def, Do, ForS, IfS, Raise, Release, Ret, WhileS
from ..ir.supplied import Supplied
from ..front.names import Namespace
from .lines import Unprintable, named_arguments, text
from .nesting import flattened
from .lines import line as line_text
from .formatting import format_source
from .origins import Origin, carried

_BINOPS = {
    "+": ast.Add,
    "-": ast.Sub,
    "*": ast.Mult,
    "/": ast.Div,
    "//": ast.FloorDiv,
    "%": ast.Mod,
    "**": ast.Pow,
    "@": ast.MatMult,
    "&": ast.BitAnd,
    "|": ast.BitOr,
    "^": ast.BitXor,
}
_UNARY = {"-": ast.USub, "+": ast.UAdd, "not": ast.Not, "~": ast.Invert}
_CMPS = {
    "<": ast.Lt,
    "<=": ast.LtE,
    ">": ast.Gt,
    ">=": ast.GtE,
    "==": ast.Eq,
    "!=": ast.NotEq,
    "is": ast.Is,
    "is not": ast.IsNot,
}
_BOOL = {"and": ast.And, "or": ast.Or}


def to_ast(e: E.Expr, ns: Namespace | None) -> ast.expr:
    """The ``ast`` expression for a symbolic expression."""
    r = lambda x: to_ast(x, ns)  # noqa: E731
    if isinstance(e, E.Name):
        return ast.Name(e.id, ast.Load())
    if isinstance(e, E.Num):
        if isinstance(e.value, Supplied):  # an array default: the name the code is handed it by
            return ast.Name(ns.constant(e.value) if ns else e.value.hint, ast.Load())
        if e.text is not None:
            return _dotted(ns.render(e.text) if ns else e.text)
        if isinstance(e.value, float) and e.value != e.value:
            return ast.parse("float('nan')", mode="eval").body
        if isinstance(e.value, float) and abs(e.value) == float("inf"):  # math.inf: code adcompiler reads again
            inf = _dotted(ns.render("math.inf") if ns else "math.inf")
            return inf if e.value > 0 else ast.UnaryOp(ast.USub(), inf)
        if isinstance(e.value, (int, float)) and not isinstance(e.value, bool) and e.value < 0:
            return ast.UnaryOp(ast.USub(), ast.Constant(-e.value))
        return ast.Constant(e.value)
    if isinstance(e, E.BinOp):
        return ast.BinOp(r(e.left), _BINOPS[e.op](), r(e.right))
    if isinstance(e, E.Unary):
        return ast.UnaryOp(_UNARY[e.op](), r(e.operand))
    if isinstance(e, E.Compare):
        return ast.Compare(r(e.left), [_CMPS[e.op]()], [r(e.right)])
    if isinstance(e, E.BoolOp):
        return ast.BoolOp(_BOOL[e.op](), [r(v) for v in e.values])
    if isinstance(e, E.Call):
        e = named_arguments(e)
        func = _dotted(ns.render(e.func) if ns else e.func)
        return ast.Call(func, [r(a) for a in e.args], [ast.keyword(k, r(v)) for k, v in e.keywords])
    if isinstance(e, E.Method):
        keywords = [ast.keyword(k, r(v)) for k, v in e.keywords]
        return ast.Call(ast.Attribute(r(e.obj), e.name, ast.Load()), [r(a) for a in e.args], keywords)
    if isinstance(e, E.Attr):
        return ast.Attribute(r(e.obj), e.name, ast.Load())
    if isinstance(e, E.Subscript):
        return ast.Subscript(r(e.value), r(e.index), ast.Load())
    if isinstance(e, E.Slice):
        return ast.Slice(*(None if x is None else r(x) for x in (e.lower, e.upper)))  # None: left out
    if isinstance(e, E.Tuple):
        return ast.Tuple([r(x) for x in e.elts], ast.Load())
    if isinstance(e, E.List):
        return ast.List([r(x) for x in e.elts], ast.Load())
    if isinstance(e, E.IfExp):
        return ast.IfExp(r(e.test), r(e.body), r(e.orelse))
    if isinstance(e, E.ListComp):
        loop = ast.comprehension(ast.Name(e.target, ast.Store()), r(e.iterable), [], 0)
        return ast.ListComp(r(e.elt), [loop])
    raise TypeError(f"cannot emit {e!r}")


def _dotted(name: str) -> ast.expr:
    """``a.b.c`` as an ``ast`` attribute chain."""
    head, *rest = name.split(".")
    node = ast.Name(head, ast.Load())
    for attr in rest:
        node = ast.Attribute(node, attr, ast.Load())
    return node


def _target(t, ns=None) -> ast.expr:
    if isinstance(t, tuple):
        return ast.Tuple([_target(x, ns) for x in t], ast.Store())
    if isinstance(t, E.Subscript):
        return ast.Subscript(to_ast(t.value, ns), to_ast(t.index, ns), ast.Store())
    return ast.Name(t, ast.Store())


def statement(s, ns: Namespace | None) -> ast.stmt:
    if isinstance(s, Assign):
        target = _target(s.targets[0], ns) if len(s.targets) == 1 else _target(s.targets, ns)
        return ast.Assign([target], to_ast(s.value, ns), lineno=0)
    if isinstance(s, AugAssign):
        return ast.AugAssign(_target(s.target, ns), _BINOPS[s.op](), to_ast(s.value, ns))
    if isinstance(s, Ret):
        return ast.Return(to_ast(s.value, ns))
    if isinstance(s, Do):
        return ast.Expr(to_ast(s.value, ns))
    if isinstance(s, Release) and s.bound:
        return ast.Delete([ast.Name(n, ast.Del()) for n in s.names])
    if isinstance(s, Release):
        return ast.Assign([ast.Name(n, ast.Store()) for n in s.names], ast.Constant(None), lineno=0)
    if isinstance(s, Raise):
        raise_stmt = ast.Raise(to_ast(s.value, ns), None)
        return ast.If(to_ast(s.test, ns), [raise_stmt], []) if s.test is not None else raise_stmt
    raise TypeError(f"cannot emit {s!r}")


def render_def(d: Def, ns: Namespace | None, origins: list | None = None) -> str:
    """One generated function as (unformatted) Python source with source-line comments; ``origins``, when
    given, gets the ``Origin`` of each line written (None for a line no user line made)."""
    params = list(d.params)
    defaults = [ast.unparse(to_ast(x, ns)) for x in d.defaults]
    offset = len(params) - len(defaults)
    sig = ", ".join(p if i < offset else f"{p}={defaults[i - offset]}" for i, p in enumerate(params))
    out = [f"def {d.name}({sig}):"]
    if d.doc:
        out.append(f'    """{d.doc}"""')
    lines = d.source.lines if d.source is not None else {}
    trace = None
    if origins is not None:
        origins.extend([None] * len(out))
        trace = _Trace(d.source, origins, out)
    _block(flattened(d.body, d.params), "    ", ns, lines, out, [None], trace)
    return "\n".join(out) + "\n"


def render_body(d: Def, ns: Namespace | None, origins: list | None = None) -> list:
    """The statements of one generated function as lines of source, unindented (for an entry that
    holds a small derivative's body itself: see ``adcompiler.api.entries``); ``origins``, when given, gets the
    ``Origin`` of each line of their text, as ``render_def`` gives them."""
    out: list = []
    _block(
        flattened(d.body, d.params),
        "",
        ns,
        {},
        out,
        [None],
        _Trace(d.source, origins, out) if origins is not None else None,
    )
    return out


class _Trace:
    """The origins of the lines one function's rendering appends to ``out``, one per line of text (an
    element of ``out`` may hold two: a checked raise)."""

    def __init__(self, source, origins: list, out: list):
        self.source, self.origins, self.out = source, origins, out
        self.seen = len(out)  # the elements of out whose lines origins already holds
        self.section = ""

    def note(self, line: int) -> None:
        """The lines appended since the last note come from ``line`` (0: from no user line)."""
        known = self.source is not None and line in self.source.lines
        origin = Origin(self.source.filename, line, self.section, self.source) if known else None
        for element in self.out[self.seen :]:
            self.origins.extend([origin] * (element.count("\n") + 1))
        self.seen = len(self.out)


def _block(stmts, indent: str, ns, lines: dict, out: list, last: list, trace: _Trace | None = None) -> None:
    """Append the lines of a block; ``last`` remembers the source line last commented; ``trace``, when
    given, records where each line comes from."""
    if not stmts:
        out.append(indent + "pass")
        trace and trace.note(0)
        return
    for s in stmts:
        if isinstance(s, Comment):
            out.append(f"{indent}# {s.text}")
            last[0] = None
            if trace:
                trace.note(0)
                trace.section = s.text
            continue
        line = getattr(s, "line", 0)
        _comment(s, indent, lines, out, last)
        if isinstance(s, IfS):
            out.append(f"{indent}if {_expr(s.test, ns)}:")
            trace and trace.note(line)
            _block(s.body, indent + "    ", ns, lines, out, last, trace)
            while len(s.orelse) == 1 and isinstance(s.orelse[0], IfS):  # an if alone in an else: elif
                s = s.orelse[0]
                out.append(f"{indent}elif {_expr(s.test, ns)}:")
                _comment(s, indent + "    ", lines, out, last)
                trace and trace.note(getattr(s, "line", 0))
                _block(s.body, indent + "    ", ns, lines, out, last, trace)
            if s.orelse:
                out.append(f"{indent}else:")
                trace and trace.note(line)
                _block(s.orelse, indent + "    ", ns, lines, out, last, trace)
        elif isinstance(s, ForS):
            iterable = _expr(s.iterable, ns)
            if s.parallel and iterable.startswith("range("):  # (a target that runs iterations at once: Numba)
                iterable = "p" + iterable
            out.append(f"{indent}for {s.target} in {iterable}:")
            trace and trace.note(line)
            _block(s.body, indent + "    ", ns, lines, out, last, trace)
        elif isinstance(s, WhileS):
            if s.header:
                out.append(f"{indent}while True:")
                trace and trace.note(line)
                _block(s.header, indent + "    ", ns, lines, out, last, trace)
                out.append(f"{indent}    if not {_expr(s.test, ns)}:")
                out.append(f"{indent}        break")
            else:
                out.append(f"{indent}while {_expr(s.test, ns)}:")
            trace and trace.note(line)
            _block(s.body, indent + "    ", ns, lines, out, last, trace)
        elif isinstance(s, Break):
            out.append(indent + "break")
        elif isinstance(s, Continue):
            out.append(indent + "continue")
        else:
            try:
                source = line_text(s, ns)  # (the text ast.unparse would give, written directly: lines.py)
            except Unprintable:
                source = ast.unparse(statement(s, ns))
            out.append(indent + source if "\n" not in source else textwrap.indent(source, indent))
        trace and trace.note(line)
        last[0] = last[0] if not isinstance(s, (IfS, ForS, WhileS)) else None


def _comment(s, indent: str, lines: dict, out: list, last: list) -> None:
    """The comment naming the source line of ``s``, where it is not the line last commented."""
    line = getattr(s, "line", 0)
    if line and line != last[0] and line in lines:
        out.append(f"{indent}# line {line}: {lines[line].strip()}")
        last[0] = line


def _expr(e: E.Expr, ns) -> str:
    try:
        return text(e, ns)
    except Unprintable:
        return ast.unparse(to_ast(e, ns))


def render_module(
    defs: list, ns: Namespace | None, header=(), formatted: bool = True, origins: list | None = None
) -> str:
    """Several generated functions (and import lines) as one black-formatted module.

    ``header`` (lines, or a function returning them once the body is rendered,
    when rendering decides which helpers are needed) goes first.  Code that is
    only loaded, not shown, may skip black (``formatted=False``): black is most
    of the transformation's time, and ``source()`` formats what people read.
    ``origins``, when given, gets the ``back.origins.Origin`` of each line of the text (None for a
    line no user line made): the side-by-side page reads them (``back.page``).
    """
    traced: list | None = [] if origins is not None else None
    rendered = []
    for k, d in enumerate(defs):
        if traced is not None and k:
            traced.extend([None, None])  # the two blank lines "\n\n".join puts between functions
        rendered.append(render_def(d, ns, traced))
    body = "\n\n".join(rendered)
    parts = list(header() if callable(header) else header)
    if ns is not None:
        parts.extend(f"import {m}" if alias == m else f"import {m} as {alias}" for m, alias in ns.imports.items())
    head = "\n".join(parts) + ("\n\n\n" if parts else "")
    text = head + body
    result = format_source(text) if formatted else text
    if origins is not None:
        traced = [None] * head.count("\n") + traced
        origins.extend(carried(text, traced, result) if formatted else traced)
    return result
