"""The small intermediate form every middle pass reads and writes.

Input side (ANF and dup form): ``Eq(outs, prim, ins)`` applies one primitive to
atoms (``Var`` or ``Const``); ``Return`` ends a function with a (possibly
nested) tuple of atoms.  Every ``Var`` is assigned once (SSA).

Output side (derivative programs): ``Assign``/``AugAssign``/``Ret`` hold
symbolic expressions (``expr.Expr``) and ``Def`` is one generated function.
Both sides print as Python through ``emit``; ``to_def`` turns an input-side
function into an output-side one so each stage prints, and runs, as Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import expr as E


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Const:
    """A literal or an inactive global; ``text`` is how it is written (``math.pi``)."""

    value: object
    text: str | None = None


Atom = Var | Const


@dataclass(frozen=True)
class Eq:
    """``outs = prim(*ins)``; ``param`` holds static data (the callee of a call)."""

    outs: tuple
    prim: str
    ins: tuple
    line: int = 0
    param: object = None


@dataclass(frozen=True)
class Return:
    """Return an atom or a nested tuple of atoms."""

    value: object
    line: int = 0


@dataclass(frozen=True)
class Source:
    """Where a function came from: file, its lines (for comments), its globals."""

    filename: str
    lines: dict
    globals: dict = field(repr=False, hash=False, compare=False)
    module: str | None = None


@dataclass(frozen=True)
class Function:
    """A function in ANF or dup form."""

    name: str
    params: tuple
    defaults: tuple
    body: tuple
    source: Source = field(repr=False, hash=False, compare=False)

    def with_body(self, body) -> "Function":
        return Function(self.name, self.params, self.defaults, tuple(body), self.source)


# ---- output side ---------------------------------------------------------------


@dataclass(frozen=True)
class Assign:
    targets: tuple
    value: E.Expr
    line: int = 0


@dataclass(frozen=True)
class AugAssign:
    target: str
    op: str
    value: E.Expr
    line: int = 0


@dataclass(frozen=True)
class Ret:
    value: E.Expr
    line: int = 0


@dataclass(frozen=True)
class Comment:
    """A comment line between generated statements (a section heading)."""

    text: str


@dataclass(frozen=True)
class Raise:
    """``raise <call>``: argument checks at generated entry points."""

    value: E.Expr
    test: E.Expr | None = None


@dataclass(frozen=True)
class Def:
    name: str
    params: tuple
    defaults: tuple
    body: tuple
    doc: str = ""
    source: Source | None = field(default=None, repr=False, hash=False, compare=False)


# ---- printing the input side as Python -------------------------------------------

BINARY = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "truediv": "/",
    "floordiv": "//",
    "mod": "%",
    "pow": "**",
    "matmul": "@",
}
UNARY = {"neg": "-", "pos": "+"}


def atom(a) -> E.Expr:
    """The expression for an atom or a nested tuple of atoms."""
    if isinstance(a, Var):
        return E.Name(a.name)
    if isinstance(a, Const):
        return E.Num(a.value, a.text)
    if isinstance(a, tuple):
        return E.Tuple(tuple(atom(x) for x in a))
    raise TypeError(f"not an atom: {a!r}")


def prim_expr(eq: Eq, callee_name=None, rename=None) -> E.Expr:
    """The Python expression computing one equation's right-hand side.

    ``callee_name(fn)`` spells a call of a user function; ``rename`` maps
    primitive names to the helper names a printed stage defines (``dup``).
    """
    args = tuple(atom(a) for a in eq.ins)
    if rename and eq.prim in rename:
        return E.Call(rename[eq.prim], args)
    if eq.prim in BINARY:
        return E.BinOp(BINARY[eq.prim], *args)
    if eq.prim in UNARY:
        return E.Unary(UNARY[eq.prim], args[0])
    if eq.prim == "call":
        return E.Call(callee_name(eq.param) if callee_name else eq.param.name, args)
    return E.Call(eq.prim, args)


def to_def(fn: Function, name: str, callee_name=None, rename=None) -> Def:
    """An input-side function as an output-side ``Def`` (for printing a stage)."""
    body = []
    for stmt in fn.body:
        if isinstance(stmt, Eq):
            body.append(
                Assign(
                    tuple(v.name for v in stmt.outs),
                    prim_expr(stmt, callee_name, rename),
                    stmt.line,
                )
            )
        else:
            body.append(Ret(atom(stmt.value), stmt.line))
    return Def(
        name,
        fn.params,
        tuple(atom(d) for d in fn.defaults),
        tuple(body),
        source=fn.source,
    )


def uses(stmt) -> list:
    """The variables a statement reads, in order, with repetition."""
    if isinstance(stmt, Eq):
        return [a for a in stmt.ins if isinstance(a, Var)]
    return [a for a in flatten(stmt.value) if isinstance(a, Var)]


def flatten(value) -> list:
    """The atoms of a nested tuple of atoms, left to right."""
    if isinstance(value, tuple):
        return [a for item in value for a in flatten(item)]
    return [value]


def rebuild(value, atoms):
    """Rebuild a nested tuple's shape from a flat iterator of atoms."""
    if isinstance(value, tuple):
        return tuple(rebuild(item, atoms) for item in value)
    return next(atoms)
