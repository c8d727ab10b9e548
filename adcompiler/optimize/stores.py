"""Gradient code's adjoint loops made as cheap as a hand-written adjoint's: the seed folded in, and
the one contribution each element of a fresh shadow list gets stored instead of added to 0.0.

Both rewrites need to know which values are Python floats (the names whose abstract value is a
float, and the lists of floats), because ``x * 1.0`` and ``0.0 + x`` turn
an int into a float and ``x`` does not; an expression is *surely a float* when a float takes part
in every way it can be computed (``int * float`` is a float).

- **The seed.** ``d_s = 1.0`` assigned once, never changed: its reads become ``1.0``, and
  ``x * 1.0`` becomes ``x`` where ``x`` is surely a float (the same number, bit for bit).
- **First writes.** ``d_xs = [0.0] * len(xs)`` then, in ``for i in reversed(range(n))`` run once,
  ``d_xs[i] += e``, the only write of ``d_xs``: each element gets one contribution, so
  ``d_xs[i] = e``, which allocates no sum (the only difference is ``0.0 + -0.0 == 0.0``; a
  store keeps the ``-0.0``, as a hand-written adjoint does).  The same for the rows of
  ``d_M = [[0.0] * len(r) for r in M]`` read as ``d_row = d_M[i]`` in a loop over ``i`` run once,
  around a loop over ``j`` writing ``d_row[j] += e``; and straight-line ``d_v[0] += e`` at literal
  indices, each once.
"""

from __future__ import annotations

from collections import Counter

from ..analysis import values as V
from ..ir import expr as E
from .bounds import hoist_index_checks
from ..ir.nodes import Assign, AugAssign, Def, Do, ForS, IfS, Ret, WhileS, free_names

_BUILD = {"+": E.add, "-": E.sub, "*": E.mul, "/": E.div, "**": E.power}


def fold_seed_and_stores(d: Def, avals: dict) -> Def:
    """``d`` (code with a literal seed: a gradient, a Jacobian's rows) with its loops that only check
    indices hoisted (``bounds``), its float constants folded and its first writes into fresh shadows
    stored; ``avals``: the abstract values of the primal's variables."""
    d = hoist_index_checks(d)
    body = d.body
    float_lists = frozenset(n for n, a in avals.items() if isinstance(a, V.Seq) and a.elem == V.FLOAT)
    floats = _float_names(body, {n for n, a in avals.items() if a == V.FLOAT}, float_lists)
    for name, value in _constants(body).items():
        body = tuple(_substitute(s, name, value, floats, float_lists) for s in body)
        if name not in free_names([s for s in body if not (isinstance(s, Assign) and s.targets == (name,))]):
            body = tuple(s for s in body if not (isinstance(s, Assign) and s.targets == (name,)))
        floats.add(name)
    body = _stores(body, floats, float_lists)
    return d if body == d.body else Def(d.name, d.params, d.defaults, body, d.doc, d.source)


# ---- which values are floats --------------------------------------------------------------


def surely_float(e, floats, float_lists) -> bool:
    """Whether ``e`` is a Python float whatever ints the names not in ``floats`` hold."""
    if isinstance(e, E.Num):
        return isinstance(e.value, float)
    if isinstance(e, E.Name):
        return e.id in floats
    if isinstance(e, E.Subscript):
        return isinstance(e.value, E.Name) and e.value.id in float_lists
    if isinstance(e, E.Unary):
        return e.op == "-" and surely_float(e.operand, floats, float_lists)
    if isinstance(e, E.BinOp) and e.op in ("+", "-", "*"):
        return surely_float(e.left, floats, float_lists) or surely_float(e.right, floats, float_lists)
    if isinstance(e, E.IfExp):
        return surely_float(e.body, floats, float_lists) and surely_float(e.orelse, floats, float_lists)
    if isinstance(e, E.Call):  # math's functions of real numbers return floats, but for these
        return e.func.startswith("math.") and e.func[5:] not in _MATH_NOT_FLOAT
    return False


_MATH_NOT_FLOAT = {"floor", "ceil", "trunc", "factorial", "comb", "perm", "gcd", "lcm", "isqrt", "prod"}
_MATH_NOT_FLOAT |= {"isfinite", "isinf", "isnan", "isclose", "frexp", "modf"}


def _float_names(body, floats: set, float_lists) -> set:
    """``floats`` with every name each of whose assignments is surely a float (``d = d + x`` and
    ``d += x`` keep a float a float), to a fixpoint."""
    assigned: dict = {}
    for s in _walk(body):
        if isinstance(s, Assign):
            for t in s.targets:
                if isinstance(t, str):
                    assigned.setdefault(t, []).append(s.value)
                elif not isinstance(t, E.Subscript):
                    for n in free_names([Do(t)]):
                        assigned.setdefault(n, []).append(None)  # unpacked: not known
        elif isinstance(s, AugAssign) and isinstance(s.target, str):
            assigned.setdefault(s.target, []).append(E.BinOp(s.op, E.Name(s.target), s.value))
        elif isinstance(s, ForS):
            assigned.setdefault(s.target, []).append(None)
    changed = True
    while changed:
        changed = False
        for name, values in assigned.items():
            if name in floats or name in float_lists:
                continue
            if all(v is not None and _float_or_self(v, name, floats, float_lists) for v in values):
                floats.add(name)
                changed = True
    return floats


def _float_or_self(e, name, floats, float_lists) -> bool:
    """Whether ``e`` is surely a float once ``name`` is (``d + x`` with ``d`` a float so far)."""
    return (
        surely_float(e, floats, float_lists)
        or surely_float(e, floats | {name}, float_lists)
        and (isinstance(e, E.BinOp) and E.Name(name) in (e.left, e.right) and e.op in ("+", "-"))
    )


def _walk(stmts):
    for s in stmts:
        yield s
        if isinstance(s, ForS):
            yield from _walk(s.body)
        elif isinstance(s, IfS):
            yield from _walk(s.body + s.orelse)
        elif isinstance(s, WhileS):
            yield from _walk(s.header + s.body)


# ---- the seed ---------------------------------------------------------------------------------


def _constants(body) -> dict:
    """Names assigned a float literal once, at the top level, and never written otherwise."""
    once = {
        s.targets[0]: s.value
        for s in body
        if isinstance(s, Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], str)
        and isinstance(s.value, E.Num)
        and isinstance(s.value.value, float)
    }
    writes = Counter()
    for s in _walk(body):
        if isinstance(s, Assign):
            for t in s.targets:
                writes.update(
                    [t] if isinstance(t, str) else free_names([Do(t)]) if not isinstance(t, E.Subscript) else []
                )
        elif isinstance(s, AugAssign) and isinstance(s.target, str):
            writes[s.target] += 2
        elif isinstance(s, ForS):
            writes[s.target] += 2
    return {n: v for n, v in once.items() if writes[n] == 1}


def _substitute(s, name, value, floats, float_lists):
    """Statement ``s`` with ``name`` read as ``value`` (and its own assignment dropped)."""
    if isinstance(s, Assign) and s.targets == (name,):
        return s  # kept for now: tidy's liveness is not run again, so the last use decides below

    def sub(e):
        if isinstance(e, E.Name):
            return value if e.id == name else e
        if isinstance(e, E.BinOp):
            left, right = sub(e.left), sub(e.right)
            if (left, right) == (e.left, e.right):
                return e
            if e.op == "*" and (left == value or right == value) and value.value == 1.0:
                other = right if left == value else left
                return other if surely_float(other, floats, float_lists) else E.BinOp("*", left, right)
            return _BUILD[e.op](left, right) if e.op in _BUILD and e.op != "*" else E.BinOp(e.op, left, right)
        if isinstance(e, tuple):
            return tuple(sub(x) for x in e)
        if isinstance(e, E.Expr):
            return type(e)(**{k: sub(v) for k, v in vars(e).items()})
        return e

    if isinstance(s, Assign):
        return Assign(tuple(sub(t) if isinstance(t, E.Expr) else t for t in s.targets), sub(s.value), s.line, s.effect)
    if isinstance(s, AugAssign):
        return AugAssign(sub(s.target) if isinstance(s.target, E.Expr) else s.target, s.op, sub(s.value), s.line)
    if isinstance(s, (Ret, Do)):
        return type(s)(sub(s.value), s.line)
    if isinstance(s, IfS):
        return IfS(
            sub(s.test),
            tuple(_substitute(x, name, value, floats, float_lists) for x in s.body),
            tuple(_substitute(x, name, value, floats, float_lists) for x in s.orelse),
            s.line,
        )
    if isinstance(s, ForS):
        return ForS(
            s.target, sub(s.iterable), tuple(_substitute(x, name, value, floats, float_lists) for x in s.body), s.line
        )
    if isinstance(s, WhileS):
        return WhileS(
            tuple(_substitute(x, name, value, floats, float_lists) for x in s.header),
            sub(s.test),
            tuple(_substitute(x, name, value, floats, float_lists) for x in s.body),
            s.line,
        )
    return s


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
        own = s if not isinstance(s, (ForS, IfS, WhileS)) else _own(s)
        if name in free_names([own]) or isinstance(own, Assign) and name in own.targets:
            found.append((s, loops, block))
    return found


def _own(s):
    if isinstance(s, ForS):
        return ForS(s.target, s.iterable, ())
    if isinstance(s, IfS):
        return IfS(s.test, (), ())
    return WhileS((), s.test, ())


def _single_write(places, d, outer: tuple):
    """The one ``d[j] += e`` if every other mention of ``d`` is its definition or a return, and it
    runs once per iteration of a loop over distinct ``j`` itself inside the loops ``outer`` only."""
    site = None
    for s, loops, _ in _mentions(places, d):
        if isinstance(s, Assign) and s.targets == (d,) and loops == outer:
            continue  # its definition (for a row: its read from the shadow of the rows)
        if isinstance(s, Ret) and _returned(s.value, d):
            continue
        if site is not None or not _counted_write(s, d, loops, outer):
            return None
        site = s
    return site


def _top_level_writes(places, d) -> list:
    """The writes ``d[k] += e`` of straight-line code, each at its own literal index ``k >= 0``, if
    every other mention of ``d`` is its definition or a return; else []."""
    sites, seen = [], set()
    for s, loops, _ in _mentions(places, d):
        if isinstance(s, Assign) and s.targets == (d,) and loops == ():
            continue
        if isinstance(s, Ret) and _returned(s.value, d):
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
    return loop.target == s.target.index.id and _distinct(loop.iterable) and not _assigns(loop.body, loop.target)


def _row_write(places, d):
    """For ``d = [[0.0] * len(r) for r in M]``: the one write into a row ``a = d[i]`` read once per
    iteration of a loop over distinct ``i`` run once, if ``d`` is mentioned nowhere else."""
    alias = None
    for s, loops, block in _mentions(places, d):
        if isinstance(s, Assign) and s.targets == (d,) and loops == ():
            continue
        if isinstance(s, Ret) and _returned(s.value, d):
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
    return loop.target == v.index.id and _distinct(loop.iterable) and not _assigns(loop.body, loop.target)


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


def _assigns(stmts, name) -> bool:
    for s in _walk(stmts):
        if isinstance(s, Assign) and any(
            name == t or not isinstance(t, (str, E.Subscript)) and name in free_names([Do(t)]) for t in s.targets
        ):
            return True
        if isinstance(s, (AugAssign, ForS)) and s.target == name:
            return True
    return False


def _replace(stmts, old, new) -> tuple:
    """``stmts`` with statement ``old`` (by identity) replaced by ``new``."""
    out = []
    for s in stmts:
        if s is old:
            out.append(new)
        elif isinstance(s, ForS):
            out.append(ForS(s.target, s.iterable, _replace(s.body, old, new), s.line))
        elif isinstance(s, IfS):
            out.append(IfS(s.test, _replace(s.body, old, new), _replace(s.orelse, old, new), s.line))
        elif isinstance(s, WhileS):
            out.append(WhileS(_replace(s.header, old, new), s.test, _replace(s.body, old, new), s.line))
        else:
            out.append(s)
    return tuple(out)
