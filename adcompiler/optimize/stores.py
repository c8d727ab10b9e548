"""Gradient code's adjoint loops made as cheap as a hand-written adjoint's (code with a literal
seed: a gradient, the rows of a Jacobian): loops that only check indices hoisted (``bounds``),
float constants such as the seed propagated (``constants``), and the one contribution each element
of a fresh shadow list gets stored instead of added to 0.0.

``d_xs = [0.0] * len(xs)`` then, in ``for i in reversed(range(n))`` run once, ``d_xs[i] += e``, the
only write of ``d_xs``: each element gets one contribution, so ``d_xs[i] = e``, which allocates no
sum (exact where ``e`` is surely a float, see ``floats``; the only difference is ``0.0 + -0.0 ==
0.0``: a store keeps the ``-0.0``, as a hand-written adjoint does).  The same for the rows of
``d_M = [[0.0] * len(r) for r in M]`` read as ``d_row = d_M[i]`` in a loop over ``i`` run once,
around a loop over ``j`` writing ``d_row[j] += e``; and straight-line ``d_v[0] += e`` at literal
indices, each once.
"""

from __future__ import annotations

from ..analysis import values as V
from ..analysis.defuse import binds, writes_block
from ..ir import expr as E
from .bounds import hoist_index_checks
from .copies import slice_copies
from .constants import propagate_constants
from .known_arrays import simplify_known_arrays
from .release import release_dead
from .floats import float_names, surely_float
from ..ir.nodes import Assign, AugAssign, Def, Do, ForS, IfS, Ret, WhileS, every_statement, free_names, shell

_FLOATING = ("float64", "float32", "float16", "longdouble", "float128")  # NumPy dtypes 1.0 * x keeps


def fold_seed_and_stores(d: Def, avals: dict, releases: bool = True) -> Def:
    """``d`` (code with a literal seed: a gradient, a Jacobian's rows) with its loops that only check
    indices hoisted (``bounds``), its float constants folded, its first writes into fresh shadows
    stored, and (``releases``) what it no longer reads let go around its loops (``release``);
    ``avals``: the abstract values of the primal's variables."""
    d = hoist_index_checks(d)
    body = d.body
    float_lists = frozenset(n for n, a in avals.items() if isinstance(a, V.Seq) and a.elem == V.FLOAT)
    floats = float_names(body, {n for n, a in avals.items() if a == V.FLOAT}, float_lists)
    float_arrays = {n for n, a in avals.items() if isinstance(a, V.Arr) and a.dtype in _FLOATING}
    body = propagate_constants(body, floats, float_lists, float_arrays)
    body = simplify_known_arrays(body, avals)
    body = _stores(body, floats, float_lists)
    body = slice_copies(body, *_fresh(body))
    if releases:
        arrays = frozenset(n for n, a in avals.items() if isinstance(a, (V.Arr, V.Numeric)))
        body = release_dead(body, arrays, frozenset(n for n, a in avals.items() if isinstance(a, (V.Num, V.Static))))
    return d if body == d.body else Def(d.name, d.params, d.defaults, body, d.doc, d.source)


# ---- which values are floats --------------------------------------------------------------


# ---- the seed ---------------------------------------------------------------------------------


# ---- first writes -----------------------------------------------------------------------------


def _stores(body, floats, float_lists) -> tuple:
    """``body`` with each single contribution to an element of a fresh shadow list stored."""
    places = _places(body)
    for s in body:
        if not (isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str)):
            continue
        d = s.targets[0]
        if _zeros(s.value) and _top_level_writes(places, d):
            for site in _top_level_writes(places, d):
                if surely_float(site.value, floats, float_lists) and d not in free_names([Do(site.value)]):
                    body = _replace(body, site, Assign((site.target,), site.value, site.line))
            places = _places(body)
            continue
        if _zeros(s.value):
            site = _single_write(places, d, ())
        elif (
            isinstance(s.value, E.ListComp)
            and _zeros(s.value.elt)
            and s.value.elt.right.args == (E.Name(s.value.target),)
        ):
            site = _row_write(places, d)
        else:
            continue
        if site is not None and surely_float(site.value, floats, float_lists) and d not in free_names([Do(site.value)]):
            body = _replace(body, site, Assign((site.target,), site.value, site.line))
            places = _places(body)
    return body


def _fresh(body) -> tuple:
    """``(zeros, rows)``: the names only ever assigned a new flat list of zeros, and those only ever
    assigned new rows of zeros (``[[0.0] * len(r) for r in M]``, each row a new list)."""
    kinds: dict = {}
    for s in every_statement(body):
        for t in binds(s):
            plain = not isinstance(s, Assign) or t in s.targets  # (not one unpacked from a tuple)
            kind = (
                "zeros"
                if isinstance(s, Assign) and plain and _zeros(s.value)
                else "rows" if plain and _rows(s) else None
            )
            kinds[t] = kind if kinds.get(t, kind) == kind else None
    return ({n for n, k in kinds.items() if k == "zeros"}, {n for n, k in kinds.items() if k == "rows"})


def _rows(s) -> bool:
    """``d = [[0.0] * len(r) for r in M]``."""
    e = s.value if isinstance(s, Assign) else None
    return isinstance(e, E.ListComp) and _zeros(e.elt) and e.elt.right.args == (E.Name(e.target),)


def _zeros(e) -> bool:
    """``[0.0] * len(x)``."""
    return (
        isinstance(e, E.BinOp)
        and e.op == "*"
        and e.left == E.List((E.Num(0.0),))
        and isinstance(e.right, E.Call)
        and e.right.func == "len"
        and len(e.right.args) == 1
    )


def _places(body) -> dict:
    """Each statement (by id) -> ``(statement, the loops around it, outermost first, and the blocks
    holding it)``: where it runs."""
    out: dict = {}

    def visit(stmts, loops):
        for s in stmts:
            out[id(s)] = (s, loops, stmts)
            if isinstance(s, ForS):
                visit(s.body, loops + (s,))
            elif isinstance(s, IfS):
                visit(s.body, loops)
                visit(s.orelse, loops)
            elif isinstance(s, WhileS):
                visit(s.header, loops + (s,))
                visit(s.body, loops + (s,))

    visit(body, ())
    return out


def _mentions(places, name) -> list:
    """The statements that read or write ``name`` (a compound statement by its own parts only)."""
    found = []
    for s, loops, block in places.values():
        own = s if not isinstance(s, (ForS, IfS, WhileS)) else shell(s)
        if name in free_names([own]) or isinstance(own, Assign) and name in own.targets:
            found.append((s, loops, block))
    return found


def _single_write(places, d, outer: tuple):
    """The one ``d[j] += e`` if every other mention of ``d`` is its definition or a return, and it
    runs once per iteration of a loop over distinct ``j`` itself inside the loops ``outer`` only."""
    site, defined = None, 0
    for s, loops, _ in _mentions(places, d):
        if isinstance(s, Assign) and s.targets == (d,) and loops == outer:
            defined += 1  # its definition (for a row: its read from the shadow of the rows), once
            if defined > 1:
                return None
            continue
        if _hands_back(s, d):
            continue
        if site is not None or not _counted_write(s, d, loops, outer):
            return None
        site = s
    return site


def _top_level_writes(places, d) -> list:
    """The writes ``d[k] += e`` of straight-line code, each at its own literal index ``k >= 0`` after
    the definition before it, if every other mention of ``d`` is a definition or a return; else [].
    (More than one definition, each row's of a Jacobian say: only where every mention is in one block,
    in the order it runs.)"""
    mentions = _mentions(places, d)
    sites, seen, defined = [], set(), 0
    for s, loops, block in mentions:
        if isinstance(s, Assign) and s.targets == (d,) and loops == ():
            defined += 1  # a definition: its fresh zeros take one contribution each
            if defined > 1 and any(b is not block for _, _, b in mentions):
                return []
            seen = set()
            continue
        if _hands_back(s, d):
            continue
        if loops or not (isinstance(s, AugAssign) and s.op == "+" and isinstance(s.target, E.Subscript)):
            return []
        k = s.target.index
        if s.target.value != E.Name(d) or not (isinstance(k, E.Num) and type(k.value) is int and k.value >= 0):
            return []
        if k.value in seen:
            return []
        seen.add(k.value)
        sites.append(s)
    return sites


def _counted_write(s, d, loops, outer) -> bool:
    """Whether ``s`` is ``d[j] += e`` in a loop over distinct ``j`` directly inside ``outer``."""
    if not (isinstance(s, AugAssign) and s.op == "+" and isinstance(s.target, E.Subscript)):
        return False
    if s.target.value != E.Name(d) or not isinstance(s.target.index, E.Name):
        return False
    if loops[:-1] != outer or not loops or not isinstance(loops[-1], ForS):
        return False
    loop = loops[-1]
    return loop.target == s.target.index.id and _distinct(loop.iterable) and loop.target not in writes_block(loop.body)


def _row_write(places, d):
    """For ``d = [[0.0] * len(r) for r in M]``: the one write into a row ``a = d[i]`` read once per
    iteration of a loop over distinct ``i`` run once, if ``d`` is mentioned nowhere else."""
    alias, defined = None, 0
    for s, loops, block in _mentions(places, d):
        if isinstance(s, Assign) and s.targets == (d,) and loops == ():
            defined += 1
            if defined > 1:
                return None
            continue
        if _hands_back(s, d):
            continue
        if alias is not None or not _row_read(s, d, loops):
            return None
        alias = (s, loops, block)
    if alias is None:
        return None
    s, loops, block = alias
    a = s.targets[0]
    site = _single_write(places, a, loops)
    if site is None:
        return None
    loop = places[id(site)][1][-1]
    if places[id(loop)][2] is not block or block.index(loop) < block.index(s):
        return None  # the loop over the row must follow the read of the row in the same block
    return site


def _row_read(s, d, loops) -> bool:
    """Whether ``s`` is ``a = d[i]`` directly in a loop over distinct ``i`` that runs once."""
    if not (isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str)):
        return False
    v = s.value
    if not (isinstance(v, E.Subscript) and v.value == E.Name(d) and isinstance(v.index, E.Name)):
        return False
    if len(loops) != 1 or not isinstance(loops[0], ForS):
        return False
    loop = loops[0]
    return loop.target == v.index.id and _distinct(loop.iterable) and loop.target not in writes_block(loop.body)


def _hands_back(s, d) -> bool:
    """Whether ``s`` only reads ``d`` whole: returns it, or copies it into a Jacobian's row (the shadows
    one after another, ``row_0 = d_v + d_q``).  A copy reads each element as it is when ``s`` runs,
    which a store instead of ``0.0 + e`` changes only in a ``-0.0``; a plain ``r = d`` would be a
    second name to write ``d`` through, so it is not one."""
    if isinstance(s, Ret):
        return _returned(s.value, d)
    return isinstance(s, Assign) and len(s.targets) == 1 and isinstance(s.targets[0], str) and _concatenated(s.value, d)


def _concatenated(value, d) -> bool:
    """Whether ``value`` is lists added one after another, ``d`` one of them by name: a new list."""
    leaves, todo = [], [value]
    while todo:
        e = todo.pop()
        if isinstance(e, E.BinOp) and e.op == "+":
            todo += [e.left, e.right]
        else:
            leaves.append(e)
    if len(leaves) < 2 or E.Name(d) not in leaves:
        return False
    return all(isinstance(e, E.Name) or isinstance(e, E.List) and d not in free_names([Do(e)]) for e in leaves)


def _returned(value, d) -> bool:
    """Whether ``value`` is ``d`` or a tuple holding it (a return that only hands it back)."""
    if value == E.Name(d):
        return True
    if isinstance(value, E.BinOp) and value.op == "+":  # a row of a Jacobian: the shadows one after another
        return _returned(value.left, d) or _returned(value.right, d)
    return isinstance(value, E.Tuple) and any(_returned(v, d) for v in value.elts)


def _distinct(iterable) -> bool:
    """``range(...)`` or ``reversed(range(...))``: every value once."""
    if isinstance(iterable, E.Call) and iterable.func == "reversed" and len(iterable.args) == 1:
        iterable = iterable.args[0]
    return isinstance(iterable, E.Call) and iterable.func == "range" and not iterable.keywords


def _replace(stmts, old, new) -> tuple:
    """``stmts`` with statement ``old`` (by identity) replaced by ``new``."""
    out = []
    for s in stmts:
        if s is old:
            out.append(new)
        elif isinstance(s, ForS):
            out.append(ForS(s.target, s.iterable, _replace(s.body, old, new), s.line, s.parallel))
        elif isinstance(s, IfS):
            out.append(IfS(s.test, _replace(s.body, old, new), _replace(s.orelse, old, new), s.line))
        elif isinstance(s, WhileS):
            out.append(WhileS(_replace(s.header, old, new), s.test, _replace(s.body, old, new), s.line))
        else:
            out.append(s)
    return tuple(out)
