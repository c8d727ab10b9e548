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

from ..analysis.defuse import target_names
from ..ir import expr as E
from ..ir.nodes import Assign, AugAssign, ForS, IfS, WhileS, every_statement

ADD_NEW = "@add_new"


def add_new(element: E.Expr, g: E.Expr, line: int) -> Assign:
    """``element = add_new(element, g)``: ``element += g`` that takes ``g`` itself into a 0.0 (see above)."""
    return Assign((element,), E.Call(ADD_NEW, (element, g)), line)


def owned(stmts: list, results=()) -> list:
    """``stmts`` (adjoint code) with each ``add_new`` line kept only where its adjoint is the array the
    last assignment before it in its block made new, and every assignment of that name is such a new
    array read by one such line and nowhere else (nor in ``results``, the expressions returned after
    ``stmts``); every other one written back as ``element += g``.  (A loop modes.versions writes twice
    has each line twice, each with its own assignment.)"""
    reads: dict = {}
    _count_expr(tuple(results), reads)
    assigned: dict = {}
    for s in every_statement(stmts):
        _count(s, reads)
        if isinstance(s, Assign):
            for n in target_names(s.targets):
                assigned[n] = assigned.get(n, 0) + 1
    sites: dict = {}  # id of an add_new line whose adjoint its block has just made -> that name
    _sites(stmts, sites)
    per_name: dict = {}
    for n in sites.values():
        per_name[n] = per_name.get(n, 0) + 1
    kept = {i for i, n in sites.items() if reads.get(n) == per_name[n] == assigned.get(n)}
    return _rewritten(stmts, kept)


def _sites(stmts, sites: dict) -> None:
    """Note, in ``sites``, each ``add_new`` line of these blocks reading the new array the last
    assignment before it in its block made (that assignment then used up)."""
    made: set = set()
    for s in stmts:
        if isinstance(s, (ForS, IfS, WhileS)):
            for block in (getattr(s, f) for f in ("header", "body", "orelse") if hasattr(s, f)):
                _sites(block, sites)
            made.clear()  # (names it assigns are not the ones made here)
        elif _is_add_new(s):
            g = s.value.args[1]
            if isinstance(g, E.Name) and g.id in made:
                sites[id(s)] = g.id
                made.discard(g.id)
        elif isinstance(s, Assign):
            made -= set(target_names(s.targets))
            if len(s.targets) == 1 and isinstance(s.targets[0], str) and E.makes_new(s.value):
                made.add(s.targets[0])


def _rewritten(stmts, kept: set) -> list:
    """The blocks with each ``add_new`` line not in ``kept`` written back as ``element += g``."""
    out: list = []
    for s in stmts:
        if isinstance(s, ForS):
            s = ForS(s.target, s.iterable, tuple(_rewritten(s.body, kept)), s.line, s.parallel)
        elif isinstance(s, IfS):
            s = IfS(s.test, tuple(_rewritten(s.body, kept)), tuple(_rewritten(s.orelse, kept)), s.line)
        elif isinstance(s, WhileS):
            s = WhileS(tuple(_rewritten(s.header, kept)), s.test, tuple(_rewritten(s.body, kept)), s.line)
        elif _is_add_new(s) and id(s) not in kept:
            element, g = s.value.args
            s = AugAssign(element, "+", g, s.line)
        out.append(s)
    return out


def _is_add_new(s) -> bool:
    return isinstance(s, Assign) and isinstance(s.value, E.Call) and s.value.func == ADD_NEW


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
