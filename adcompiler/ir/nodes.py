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

import dataclasses
from dataclasses import dataclass, field, replace

from . import expr as E
from .walks import depth_first


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Const:
    """A literal or an inactive global; ``text`` is how it is written (``math.pi``)."""

    value: object
    text: str | None = None


Atom = Var | Const

STORES = ("setitem", "append", "pop", "extend", "insert", "remove", "clear", "dict_set", "setattr")  # equations
# that change the object of their first argument (a list, a dict, an array, an object's attribute)
IN_PLACE = "in place"  # the ``param`` of an operator equation lowered from ``x op= y``
EXTENDED = "+="  # the ``param`` of an append lowered from ``xs += [a, b]`` (refused where xs is an array)
UNPACKED = ("effect", "@check_unpack", ())  # a, b = xs: the ValueError Python raises unless xs holds two items
LIST_SLICE = ("getitem", "list slice")  # xs[a:b] of a list (analysis.specialise): a new list, not a view


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
class If:
    """``if test: body else: orelse``; ``test`` is an atom."""

    test: object
    body: tuple
    orelse: tuple
    line: int = 0


@dataclass(frozen=True)
class For:
    """``for target in range(start, stop, step): body``; other loops are lowered to this."""

    target: Var
    start: object
    stop: object
    step: object
    body: tuple
    line: int = 0
    parallel: bool = False  # ``prange``: iterations independent (checked by analysis.parallel)


@dataclass(frozen=True)
class While:
    """``while True: header; if not test: break; body``."""

    header: tuple
    test: object
    body: tuple
    line: int = 0


@dataclass(frozen=True)
class Break:
    line: int = 0


@dataclass(frozen=True)
class Continue:
    line: int = 0


COMPOUND = (If, For, While)


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
    slots: frozenset = frozenset()  # variables assigned in several places (read/written, never SSA)

    def with_body(self, body) -> "Function":
        return Function(self.name, self.params, self.defaults, tuple(body), self.source, self.slots)


# ---- output side ---------------------------------------------------------------


@dataclass(frozen=True)
class Assign:
    targets: tuple
    value: E.Expr
    line: int = 0
    effect: bool | str = False  # a primal line that may raise: it runs even where its value is not needed (INDEX:
    # it raises only if an int index is out of range of a list, tuple or array)


INDEX = "index"  # Assign.effect of ``x = xs[i]``: it may raise IndexError only


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
class Do:
    """An expression evaluated for its effect (``tape.append(x)``)."""

    value: E.Expr
    line: int = 0


@dataclass(frozen=True)
class Release:
    """``del a, b`` (``bound``), or ``a = b = None`` (names a branch or a loop may have left unbound):
    values the rest of the function never reads, let go around a loop that would otherwise hold their
    memory to the end (``optimize.release``)."""

    names: tuple
    bound: bool = True
    line: int = 0


@dataclass(frozen=True)
class Raise:
    """``raise <call>``: argument checks at generated entry points."""

    value: E.Expr
    test: E.Expr | None = None


@dataclass(frozen=True)
class IfS:
    test: E.Expr
    body: tuple
    orelse: tuple
    line: int = 0


@dataclass(frozen=True)
class ForS:
    """``for target in iterable: body``."""

    target: str
    iterable: E.Expr
    body: tuple
    line: int = 0
    parallel: bool | str = False  # ``prange`` on a target that runs iterations in parallel (Numba), else ``range``;
    # RECOMPUTED: also the primal loop of a parallel adjoint loop that computes each iteration again (modes.parallel)


RECOMPUTED = "recomputed"  # ForS.parallel of a primal loop whose iterations the adjoint computes again: it runs
# only for the values it leaves (its errors are raised again there), so it goes where none of them is read


@dataclass(frozen=True)
class WhileS:
    """``while True:`` + header + ``if not test: break`` + body; ``while test:`` when there is no header."""

    header: tuple
    test: E.Expr
    body: tuple
    line: int = 0


@dataclass(frozen=True)
class Def:
    name: str
    params: tuple
    defaults: tuple
    body: tuple
    doc: str = ""
    source: Source | None = field(default=None, repr=False, hash=False, compare=False)


def uses(stmt) -> list:
    """The variables a simple statement reads, in order, with repetition (compound: its own atoms)."""
    if isinstance(stmt, Eq):
        return [a for a in stmt.ins if isinstance(a, Var)]
    if isinstance(stmt, If):
        return [stmt.test] if isinstance(stmt.test, Var) else []
    if isinstance(stmt, For):
        return [a for a in (stmt.start, stmt.stop, stmt.step) if isinstance(a, Var)]
    if isinstance(stmt, (While, Break, Continue)):
        return []
    return [a for a in flatten(stmt.value) if isinstance(a, Var)]


def blocks(stmt) -> tuple:
    """The nested blocks of a compound statement."""
    if isinstance(stmt, If):
        return (stmt.body, stmt.orelse)
    if isinstance(stmt, For):
        return (stmt.body,)
    if isinstance(stmt, While):
        return (stmt.header, stmt.body)
    return ()


def segments(stmts) -> list:
    """Runs of equations (lists) and single other statements, in order."""
    out: list = []
    for stmt in stmts:
        if isinstance(stmt, Eq):
            if out and isinstance(out[-1], list):
                out[-1].append(stmt)
            else:
                out.append([stmt])
        else:
            out.append(stmt)
    return out


def jumps(stmt) -> bool:
    """Whether a branch statement contains a break or continue of the enclosing loop (remembered: asked of
    each branch of a nest, it would otherwise walk the nest again at each level)."""
    hit = _JUMPS.get(id(stmt))
    if hit is None or hit[0] is not stmt:
        if len(_JUMPS) > 50_000:  # (it keeps what it answered for alive: let them go now and then)
            _JUMPS.clear()
        found = any(isinstance(s, (Break, Continue)) or isinstance(s, If) and jumps(s) for b in blocks(stmt) for s in b)
        hit = _JUMPS[id(stmt)] = (stmt, found)
    return hit[1]


_JUMPS: dict = {}  # id(branch) -> (it, whether it jumps)


def map_equations(stmts, f) -> tuple:
    """``stmts`` with each equation ``e`` (in branches and loops too) replaced by ``f(e)``: a statement,
    or a list of statements written in its place."""
    out: list = []
    for s in stmts:
        if isinstance(s, Eq):
            made = f(s)
            if isinstance(made, list):
                out.extend(made)
            else:
                out.append(made)
        elif isinstance(s, If):
            out.append(If(s.test, map_equations(s.body, f), map_equations(s.orelse, f), s.line))
        elif isinstance(s, For):
            out.append(For(s.target, s.start, s.stop, s.step, map_equations(s.body, f), s.line, s.parallel))
        elif isinstance(s, While):
            out.append(While(map_equations(s.header, f), s.test, map_equations(s.body, f), s.line))
        else:
            out.append(s)
    return tuple(out)


def substituted(stmts, atoms: dict) -> tuple:
    """``stmts`` with each read of a variable named in ``atoms`` (name -> atom) reading that atom instead."""

    def atom(a):
        if isinstance(a, Var):
            return atoms.get(a.name, a)
        return tuple(map(atom, a)) if isinstance(a, tuple) else a

    out: list = []
    for s in stmts:
        if isinstance(s, Eq):
            s = replace(s, ins=atom(s.ins))
        elif isinstance(s, Return):
            s = replace(s, value=atom(s.value))
        elif isinstance(s, If):
            s = replace(s, test=atom(s.test), body=substituted(s.body, atoms), orelse=substituted(s.orelse, atoms))
        elif isinstance(s, For):
            s = replace(s, start=atom(s.start), stop=atom(s.stop), step=atom(s.step), body=substituted(s.body, atoms))
        elif isinstance(s, While):
            s = replace(s, header=substituted(s.header, atoms), test=atom(s.test), body=substituted(s.body, atoms))
        out.append(s)
    return tuple(out)


def copies_of(eqs, names) -> set:
    """``names`` and the variables their values are read, written or copied into (``dup``, ``read``,
    ``write``) by the equations ``eqs``, transitively."""
    names, size = set(names), -1
    while size != len(names):
        size = len(names)
        for eq in eqs:
            if eq.prim in ("dup", "read", "write") and isinstance(eq.ins[0], Var) and eq.ins[0].name in names:
                names |= {v.name for v in eq.outs}
    return names


def walk(stmts):
    """Every statement, depth first, in program order (``walks``: as fast however deep)."""
    return depth_first(stmts, lambda s: blocks(s) if s.__class__ in _COMPOUND else ())


_COMPOUND = frozenset((If, For, While))


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


def calls(obj):
    """Every ``expr.Call`` inside statements or expressions (generated code included)."""
    if isinstance(obj, E.Call):
        yield obj
    if isinstance(obj, (tuple, list)):
        for x in obj:
            yield from calls(x)
    elif hasattr(obj, "__dataclass_fields__"):
        for value in vars(obj).values():
            yield from calls(value)


def with_calls(obj, f):
    """``obj`` (statements or expressions, generated code included) with each ``expr.Call`` ``c`` in it
    replaced by ``f(c)`` (its arguments first: innermost calls first); parts with no call in them are
    returned as they are."""
    if isinstance(obj, (tuple, list)):
        mapped = [with_calls(x, f) for x in obj]
        return obj if all(m is x for m, x in zip(mapped, obj)) else type(obj)(mapped)
    if not hasattr(obj, "__dataclass_fields__"):
        return obj
    changed = {}
    for part in dataclasses.fields(obj):
        value = getattr(obj, part.name)
        mapped = with_calls(value, f)
        if mapped is not value:
            changed[part.name] = mapped
    made = dataclasses.replace(obj, **changed) if changed else obj
    return f(made) if isinstance(made, E.Call) else made


def free_names(stmts: list) -> list:
    """Names the statements read, in order of first use."""
    seen: dict = {}  # (a dict: ordered, and a look-up rather than a scan per name)
    for s in stmts:
        targets = getattr(s, "targets", ()) + ((s.target,) if isinstance(getattr(s, "target", None), E.Expr) else ())
        _names([t for t in targets if isinstance(t, E.Expr)], seen)
        for part in (
            getattr(s, "value", None),
            getattr(s, "test", None),
            getattr(s, "iterable", None),
            getattr(s, "body", None),
            getattr(s, "orelse", None),
        ):
            if isinstance(part, tuple) and part and not isinstance(part[0], E.Expr):
                seen.update((n, None) for n in free_names(list(part)))
            elif part is not None:
                _names(part, seen)
    return list(seen)


def _names(e, seen: dict) -> None:
    """``free_names`` of an expression, added to ``seen`` (a function of the module, not a closure that
    calls itself: a cycle per call, which only the garbage collector frees)."""
    cls = e.__class__  # the common kinds first, by class: the passes over gradient code call this per statement
    if cls is E.Name:
        seen[e.id] = None
    elif cls is str:
        pass
    elif cls is E.BinOp:
        _names(e.left, seen)
        _names(e.right, seen)
    elif isinstance(e, E.ListComp):  # its target is its own
        _names(e.iterable, seen)
        inner = free_names([Ret(e.elt)])
        seen.update((n, None) for n in inner if n != e.target)
    elif isinstance(e, (tuple, list)):
        for x in e:
            _names(x, seen)
    elif isinstance(e, E.Expr):
        for value in vars(e).values():
            _names(value, seen)


# ---- generated statements, nested ------------------------------------------------------------


def inner_blocks(s) -> tuple:
    """The blocks of a generated compound statement (``ForS``, ``IfS``, ``WhileS``); () for others."""
    if isinstance(s, ForS):
        return (s.body,)
    if isinstance(s, IfS):
        return (s.body, s.orelse)
    if isinstance(s, WhileS):
        return (s.header, s.body)
    return ()


def shell(s):
    """A generated statement without its blocks: what a compound statement reads itself."""
    if isinstance(s, ForS):
        return ForS(s.target, s.iterable, ())
    if isinstance(s, IfS):
        return IfS(s.test, (), ())
    if isinstance(s, WhileS):
        return WhileS((), s.test, ())
    return s


def every_statement(stmts):
    """Each generated statement, nested ones after the statement holding them (``walks``)."""
    return depth_first(stmts, inner_blocks)
