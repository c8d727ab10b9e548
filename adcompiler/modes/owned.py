"""Adjoints added into an element of a shadow list that are new arrays no other name holds: the
element takes the array itself while it is still the number 0.0 it started as.

A list of arrays (a network's ``[(W1, b1), (W2, b2)]``) has a shadow of numbers, ``[[0.0, 0.0], ...]``;
reading ``W = layers[l][0]`` adds W's adjoint into its element, ``d_t[0] += d_W``.  The first such
addition is ``0.0 + d_W``, a copy of ``d_W`` (for the network's 100 x 50 matrix, as long as the outer
product that made it).  Where ``d_W`` is a new array that nothing else will read (``d_W =
np.outer(d_z, h)``, read once, in the same block), the adjoint sweep writes ``d_t[0] = add_new(d_t[0],
d_W)``: ``d_W`` itself while the element is 0.0, else ``d_t[0] += d_W`` as before (the element then
holds an array of its own, which later additions may change in place).  The one difference from
``0.0 + d_W``: an entry ``-0.0`` stays ``-0.0`` (``0.0 + -0.0`` is ``0.0``), as in a hand-written
adjoint (``optimize.stores`` stores first writes the same way).

``Adjoints`` writes the ``add_new`` line where the element is surely an array; ``owned`` then keeps it
only where the array is provably the adjoint's own, and turns every other one back into ``+=``.
"""

from __future__ import annotations

from ..ir import expr as E
from ..ir.nodes import Assign, AugAssign, ForS, IfS, WhileS, every_statement

ADD_NEW = "@add_new"
# NumPy functions whose result is a new array (or a number), never one of their arguments or a view of one
_NEW = ("numpy.outer", "numpy.dot", "numpy.matmul", "numpy.where", "numpy.multiply", "numpy.add", "numpy.subtract")
_ARITHMETIC = ("+", "-", "*", "/", "@")


def add_new(element: E.Expr, g: E.Expr, line: int) -> Assign:
    """``element = add_new(element, g)``: ``element += g`` that takes ``g`` itself into a 0.0 (see above)."""
    return Assign((element,), E.Call(ADD_NEW, (element, g)), line)


def owned(stmts: list, results=()) -> list:
    """``stmts`` (adjoint code) with each ``add_new`` line kept only where its adjoint is a name assigned
    once, by an expression that makes a new array, earlier in the same block, and read nowhere else (nor
    in ``results``, the expressions returned after ``stmts``); every other one written back as
    ``element += g``."""
    reads: dict = {}
    _count_expr(tuple(results), reads)
    assigned: dict = {}
    for s in every_statement(stmts):
        _count(s, reads)
        if isinstance(s, Assign):
            for t in s.targets:
                if isinstance(t, str):
                    assigned[t] = assigned.get(t, 0) + 1
    return _block(stmts, reads, assigned)


def _block(stmts, reads: dict, assigned: dict) -> list:
    """One block with its ``add_new`` lines checked (and the blocks inside it)."""
    out: list = []
    made: set = set()  # names this block has assigned a new array to, so far
    for s in stmts:
        if isinstance(s, ForS):
            s = ForS(s.target, s.iterable, tuple(_block(s.body, reads, assigned)), s.line)
        elif isinstance(s, IfS):
            s = IfS(s.test, tuple(_block(s.body, reads, assigned)), tuple(_block(s.orelse, reads, assigned)), s.line)
        elif isinstance(s, WhileS):
            s = WhileS(tuple(_block(s.header, reads, assigned)), s.test, tuple(_block(s.body, reads, assigned)), s.line)
        elif isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str) and _makes_new(s.value):
            made.add(s.targets[0])
        elif _is_add_new(s):
            element, g = s.value.args
            own = isinstance(g, E.Name) and g.id in made and reads.get(g.id) == 1 and assigned.get(g.id) == 1
            if not own:
                s = AugAssign(element, "+", g, s.line)
        out.append(s)
    return out


def _is_add_new(s) -> bool:
    return isinstance(s, Assign) and isinstance(s.value, E.Call) and s.value.func == ADD_NEW


def _makes_new(e) -> bool:
    """Whether the value of ``e`` is a new object: arithmetic, or a NumPy function that makes its result."""
    if isinstance(e, E.BinOp):
        return e.op in _ARITHMETIC
    if isinstance(e, E.Unary):
        return e.op == "-"
    return isinstance(e, E.Call) and e.func in _NEW and not e.keywords


def _count(s, reads: dict) -> None:
    """Add the reads of each name in statement ``s`` (not in the blocks inside it) to ``reads``."""
    for field, value in vars(s).items():
        if field in ("body", "orelse", "header") or isinstance(value, str) and field != "target":
            continue
        if isinstance(value, str):  # a target: x += e reads x (a loop's target is only assigned)
            if isinstance(s, AugAssign):
                reads[value] = reads.get(value, 0) + 1
            continue
        _count_expr(value, reads)  # (a string among an Assign's targets is a name assigned, not read)


def _count_expr(e, reads: dict) -> None:
    """Add the reads of each name in expression ``e`` to ``reads``."""
    if isinstance(e, E.Name):
        reads[e.id] = reads.get(e.id, 0) + 1
    elif isinstance(e, (tuple, list)):
        for x in e:
            _count_expr(x, reads)
    elif isinstance(e, E.ListComp):  # its own target's reads are its own
        for x in (e.elt, e.iterable):
            _count_expr(x, reads)
    elif isinstance(e, E.Expr):
        for value in vars(e).values():
            _count_expr(value, reads)
