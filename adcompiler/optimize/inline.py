"""Tidied program -> the same program with single-use temporaries folded into their one use.

ANF gives every sub-expression a name (``t7 = t6[j]``) and the sweeps give every
partial derivative one (``d_t7 = t8 * d_s``).  Where such a temporary is read
exactly once, soon after it is set, this pass writes its expression at the
use instead, so ``t7 = w[i][j] ... s = s + t7 * t8`` reads again like the
user's line and the loop bodies of derivative code run fewer instructions::

    d_t8 = t7 * d_s                 ->    d_h[j] += t6[j] * d_s
    d_h[j] += d_t8

Only the compiler's own names are folded (``t7``, ``dt7``, ``d_t7``), never a
name derived from the user's; the expression must be pure, the statements it
moves past may only assign plain names (no store, append, pop or call with
effects, so no object the expression reads can change), none of them may
assign a name it reads, and its one use must be in the using statement's own
expression (a branch's test, a for loop's iterable: evaluated once), not
inside a nested block or a while loop's test or header.  The value computed is the
same expression tree on the same values, so the numbers do not change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..ir import expr as E
from ..ir.nodes import Assign, AugAssign, Comment, Def, Do, ForS, IfS, Ret, WhileS
from ..analysis.defuse import read_count, reads
from ..analysis.liveness import forget, live_step, pure, step
from ..analysis.memo import MEMO
from ..analysis.positions import Block
from ..rules import VALUES
from .aliases import IN_PLACE, changed_in_place

TEMPORARY = re.compile(
    r"(d_?)?t\d+(_\d+)*$"
)  # t7 (ANF), dt7 (its tangent), d_t7 (its adjoint); t7_2 (an inlined function's), t7_2_1 (of one inlined in it)
FOLDED_HELPERS = ("array_like", "unbroadcast", "unreduce", "sum_all")  # (rules.VALUES: they change nothing)
# the helpers whose value arithmetic reads (a cotangent made distinct keeps its line: what the function returns)
assert set(FOLDED_HELPERS) <= set(VALUES)
MAX_DEPTH = 12  # a folded expression nests at most this deep: readable, and far from Python's parser limits


@dataclass(frozen=True)
class Folding:
    """Which names a folding folds: the compiler's temporaries (never a name the user's code uses, ``t1``
    say, or a derivative of one, ``dt1``, ``d_t1``); with ``derivatives``, also every tangent and adjoint
    name (``dx``, ``d_x_2``: "d" and the name of a user's variable), folded across the ``# line N:``
    comments too.  The wide folding is the Numba target's: Numba fuses an expression of arrays into
    one loop with one new array, but only within one statement (a named result is an array of its own)."""

    user_names: frozenset = frozenset()
    derivatives: bool = False
    changed: frozenset | None = None  # the names whose arrays the function changes in place (aliases), where known

    def adds_in_place(self, s) -> bool:
        """Whether ``s`` is ``d_2 = scatter_add(d, ...)`` (or another helper adding into an array, of pure
        arguments): it changes the array of ``d`` alone, and ``changed`` holds every name that may hold
        it, so a fold may move an expression that reads none of them past it (``d_proj`` past ``d_rad``'s
        scatters in ba's radial_distort)."""
        if self.changed is None or not (isinstance(s, Assign) and isinstance(s.value, E.Call)):
            return False
        plain = all(
            isinstance(t, str) or isinstance(t, tuple) and all(isinstance(x, str) for x in t) for t in s.targets
        )
        call = s.value
        return plain and call.func.lstrip("@").startswith(IN_PLACE) and all(self.pure(a) for a in call.args)

    def foldable(self, name: str) -> bool:
        """Whether the name may be folded away (it is read once, soon after it is set)."""
        if name in self.user_names:
            return False
        if self.derivatives and name.startswith("d"):
            return True
        return bool(TEMPORARY.match(name)) and not {name[1:], name[2:]} & self.user_names

    def quiet(self, s) -> bool:
        """Whether folds may move an expression past statement ``s`` (see ``_quiet``); ``t = slice(a, b,
        None)`` too, which makes a slice and changes nothing (it is not folded itself: ``x[t]`` reads better
        than ``x[slice(a, b, None)]``), and, in the wide folding, ``d_t = unjoin(...)``, a piece of a join's
        cotangent (a name the Numba target reads element by element, ``by_element``: not folded either)."""
        if self.derivatives and isinstance(s, Comment):
            return True
        value = s.value if isinstance(s, Assign) else None
        if self.derivatives and isinstance(value, E.Call) and value.func == "@unjoin" and all(map(pure, value.args)):
            return _quiet(Assign(s.targets, E.Tuple(value.args), s.line), self.pure)  # (a piece: not folded itself)
        if isinstance(value, E.Call) and value.func == "slice" and all(pure(a) for a in value.args):
            return _quiet(Assign(s.targets, E.Tuple(value.args), s.line), self.pure)
        return _quiet(s, self.pure)

    def pure(self, e) -> bool:
        """Whether evaluating ``e`` changes nothing; in the wide folding, a call of a runtime helper of
        ``FOLDED_HELPERS`` too, so that the adjoints around it fold into one expression (rodrigues's ``d_w``)
        and a line that calls one does not stop the folds past it."""
        if not self.derivatives or pure(e):
            return pure(e)
        if isinstance(e, E.Call) and e.func[:1] == "@" and e.func[1:] in FOLDED_HELPERS:
            return all(self.pure(v) for k, v in vars(e).items() if k != "func")
        if isinstance(e, (tuple, list)):
            return all(self.pure(x) for x in e)
        if isinstance(e, E.Expr) and not isinstance(e, (E.Call, E.Method)):
            return all(self.pure(v) for v in vars(e).values())
        return False


def fold_temporaries(stmts: list, after: set, jump, user_names=frozenset(), folding: Folding | None = None) -> list:
    """The block with its single-use temporaries (and those of its nested blocks) folded; a name the
    user's code uses (``t1``, say), or a derivative of one (``dt1``, ``d_t1``), is not a temporary
    (``folding``, where given, says which names are folded instead)."""
    try:
        return _fold(stmts, after, jump, folding or Folding(frozenset(user_names)))
    finally:
        MEMO.depths.clear()  # (the build's own: see analysis.memo)


def _fold(stmts: list, after: set, jump, folding: Folding) -> list:
    out, live = [], set(after)
    for s in reversed(stmts):  # nested blocks first, each with what is live after it
        s = _nested(s, live, jump, folding)
        out.append(s)
        live = step(s, live, jump)
    block = Block(out[::-1], after, jump)  # where each name is read and written, kept up to date as folds go
    stmts = block.stmts
    soft = [
        p for p, s in enumerate(stmts) if folding.adds_in_place(s)
    ]  # only a fold of what reads changed arrays stops
    loud = [
        p for p, s in enumerate(stmts) if not folding.quiet(s) and not folding.adds_in_place(s)
    ]  # no fold moves past
    readers: dict = {}  # name -> how many statements of the block read it (kept up to date as folds go)
    for s in stmts:
        _count_reads(readers, s, 1)
    for i in range(len(stmts) - 1, -1, -1):  # last first: a chain of temporaries folds into one expression
        k = _use(block, i, (loud, soft), folding, readers)
        while k is not None:
            name, value = stmts[i].targets[0], stmts[i].value
            _count_reads(readers, stmts[i], -1)
            _count_reads(readers, stmts[k], -1)
            block.replace(k, _substitute(stmts[k], name, value))
            _count_reads(readers, stmts[k], 1)
            block.remove(i)
            i, k = k, _use(block, k, (loud, soft), folding, readers)  # d = a; d = d + b; d = d + c: d = a + b + c
    return block.compact()


def _count_reads(readers: dict, s, sign: int) -> None:
    for name in reads(s):
        readers[name] = readers.get(name, 0) + sign


def _nested(s, after: set, jump, folding: Folding):
    if isinstance(s, IfS):
        body = _fold(list(s.body), after, jump, folding)
        orelse = _fold(list(s.orelse), after, jump, folding)
        return IfS(s.test, tuple(body), tuple(orelse), s.line)
    if isinstance(s, ForS):
        head = live_step(s, after, jump)
        return ForS(s.target, s.iterable, tuple(_fold(list(s.body), head, head, folding)), s.line, s.parallel)
    if isinstance(s, WhileS):  # the body (not the header, which runs before every test)
        head = live_step(s, after, jump)
        return WhileS(s.header, s.test, tuple(_fold(list(s.body), head, head, folding)), s.line)
    return s


def _use(block: Block, i: int, walls: tuple, folding: Folding, readers: dict):
    """The position of the one statement the temporary assigned at ``i`` can be folded into, or None;
    ``readers`` counts the statements that read each name (one reader: no later statement reads it);
    ``walls``: the positions no fold moves past, and those only a fold of what reads an array changed
    in place may not (``Folding.adds_in_place``)."""
    loud, soft = walls
    s = block.stmts[i]
    name = s.targets[0] if isinstance(s, Assign) and len(s.targets) == 1 else None
    if not (
        isinstance(name, str) and folding.foldable(name) and not isinstance(s.value, E.Num) and folding.pure(s.value)
    ):
        return None
    needs = reads(s)  # (what its value reads: s assigns a plain name)
    if name in needs:
        return None
    k = block.first(name, i + 1, len(block.stmts))  # the next statement that reads or writes it
    if k is None or name not in reads(block.stmts[k]) or block.next_of(loud, i + 1) < k:
        return None  # nothing reads it, or it is written first, or a statement with effects comes first
    if block.next_of(soft, i + 1) < k and (folding.changed is None or needs & folding.changed):
        return None  # an array it reads may be added into first
    if not _sums_into(block.stmts[k], name) and (name in block.after or readers.get(name, 0) != 1):
        return None  # (read again later: unless k reads it once and binds it again, d = d + e)
    if any(block.first(n, i + 1, k, block.writers) is not None for n in needs):
        return None  # what it reads changes before its use
    own = _own_exprs(block.stmts[k])
    if read_count(own, name) != 1 or name in _nested_reads(block.stmts[k]) or _too_deep(own, s.value):
        return None
    return k


def _sums_into(s, name: str) -> bool:
    """Whether ``s`` reads ``name`` and binds it again, ``d = d + e`` (an accumulator's next sum): what it
    read is read nowhere else."""
    return isinstance(s, Assign) and s.targets == (name,)


def _too_deep(host: list, value) -> bool:
    """Whether folding ``value`` into the expressions ``host`` could nest deeper than ``MAX_DEPTH``: a long
    chain (``- - - x``, a sum of 500 terms) stays a chain of lines, not one expression too deep to read,
    to walk, or for Python to compile."""
    return max((_depth(e) for e in host), default=0) + _depth(value) > MAX_DEPTH


def _depth(e) -> int:
    if isinstance(e, (tuple, list)):
        return max((_depth(x) for x in e), default=0)
    if isinstance(e, E.Expr):
        hit = MEMO.depths.get(id(e))  # a host is asked again after each fold into it
        if hit is not None and hit[0] is e:
            return hit[1]
        depth = 1 + max((_depth(v) for v in vars(e).values()), default=0)
        MEMO.depths[id(e)] = (e, depth)
        return depth
    return 0


def _quiet(s, is_pure=pure) -> bool:
    """An assignment of a pure value to plain names: it changes no object, only what names refer to."""
    if not isinstance(s, Assign):
        return False
    plain = all(isinstance(t, str) or isinstance(t, tuple) and all(isinstance(x, str) for x in t) for t in s.targets)
    return plain and is_pure(s.value)


def _own_exprs(s) -> list:
    """The expressions a statement evaluates once, itself (not in its nested blocks)."""
    if isinstance(s, Assign):
        return [s.value] + [t for t in s.targets if isinstance(t, E.Expr)]
    if isinstance(s, AugAssign):
        return [s.value] + ([s.target] if isinstance(s.target, E.Expr) else [])
    if isinstance(s, (Do, Ret)):
        return [s.value]
    if isinstance(s, IfS):
        return [s.test]
    if isinstance(s, ForS):
        return [s.iterable]
    return []


def _nested_reads(s) -> set:
    if isinstance(s, (IfS, ForS)):
        return set().union(set(), *(reads(x) for x in getattr(s, "body", ()) + getattr(s, "orelse", ())))
    return reads(s) if isinstance(s, WhileS) else set()


def _replace(e, name: str, value, left: list):
    """``e`` with its read of ``name`` replaced by ``value``, while ``left[0]`` (the reads still to replace:
    the using statement reads it once) is not 0: the parts that do not read it are the same objects (what is
    memoised about them, their depth above all, holds for the new expression), those after it not walked."""
    if not left[0]:
        return e
    if isinstance(e, E.Name):
        if e.id != name:
            return e
        left[0] -= 1
        return value
    if isinstance(e, tuple):
        new = tuple(_replace(x, name, value, left) for x in e)
        return e if all(a is b for a, b in zip(new, e)) else new
    if isinstance(e, E.Expr):
        fields = vars(e)
        new = {k: _replace(v, name, value, left) for k, v in fields.items()}
        return e if all(new[k] is v for k, v in fields.items()) else _signs_out(type(e)(**new))
    return e


def _signs_out(e):
    """``e`` with the negations a fold brought together cancelled: ``-(-(a + b))``, ``-(a * -b)`` and ``-(-a / b)``
    are ``a + b``, ``a * b`` and ``a / b`` (``-(-u)`` of a name stays: a new array, where ``u`` would be the
    array itself, which a write into ``u`` later changes); ``a + -b`` is ``a - b`` and ``a - -b`` is ``a + b``; the same numbers (a
    negation is exact), so a fold of ``d = -(u / v * g)`` into ``-(t2 * d)`` reads ``t2 * (u / v * g)``
    (lstm's sigmoids), as the expression constructors write what they build (``ir.expr.neg``, ``add``)."""
    negative = lambda x: isinstance(x, E.Unary) and x.op == "-"  # noqa: E731
    if negative(e):
        inner = e.operand
        if negative(inner):  # (of a computed value only: -(-u) is a new array, u itself an alias of it)
            return inner.operand if isinstance(inner.operand, (E.BinOp, E.Num)) else e
        if isinstance(inner, E.BinOp) and inner.op in ("*", "/") and not inner.lists:
            if negative(inner.left) != negative(inner.right):
                left, right = (x.operand if negative(x) else x for x in (inner.left, inner.right))
                return E.BinOp(inner.op, left, right)
        return e
    if isinstance(e, E.BinOp) and e.op in ("+", "-") and not e.lists and negative(e.right):
        return E.BinOp("-" if e.op == "+" else "+", e.left, e.right.operand)
    return e


def _substitute(s, name: str, value):
    """``s`` with its one read of ``name`` replaced by ``value``; ``d = 0.0 + e`` so made (an accumulator's
    first addition, its start 0.0 propagated) ``d = e`` where ``e`` makes a new value (``_fresh``)."""
    left = [1]
    if isinstance(s, Assign):
        targets = tuple(_replace(t, name, value, left) if isinstance(t, E.Expr) else t for t in s.targets)
        new = _replace(s.value, name, value, left)
        if isinstance(new, E.BinOp) and new.op == "+" and _zero(new.left) and _fresh(new.right):
            new = new.right
        return Assign(targets, new, s.line, s.effect)
    if isinstance(s, AugAssign):
        target = _replace(s.target, name, value, left) if isinstance(s.target, E.Expr) else s.target
        return AugAssign(target, s.op, _replace(s.value, name, value, left), s.line)
    if isinstance(s, (Do, Ret)):
        return type(s)(_replace(s.value, name, value, left), s.line)
    if isinstance(s, IfS):
        return IfS(_replace(s.test, name, value, left), s.body, s.orelse, s.line)
    return ForS(s.target, _replace(s.iterable, name, value, left), s.body, s.line, s.parallel)


def _zero(e) -> bool:
    return isinstance(e, E.Num) and e.text is None and type(e.value) is float and repr(e.value) == "0.0"


def _fresh(e) -> bool:
    """Whether ``e`` makes a new value (``ir.expr.makes_new``), or is ``unbroadcast`` of such (the sum, or that
    value itself).  ``0.0 + e`` of it is the same numbers (but for the sign of a zero: ``-0.0`` stays ``-0.0``,
    as in a hand-written adjoint) without the copy, an array more under Numba (lstm's ``d_x``)."""
    if isinstance(e, E.Call) and e.func == "@unbroadcast" and e.args:
        return _fresh(e.args[0])
    return E.makes_new(e)


def fold_function(d: Def, folding: Folding) -> Def:
    """The function ``d`` with the names ``folding`` allows folded (once more, after tidying); the wide
    folding also past the helpers that add into arrays, for what reads none of the arrays ``d`` changes."""
    if folding.derivatives:
        folding = replace(folding, changed=frozenset(changed_in_place(d.body)))
    body = fold_temporaries(list(d.body), set(), None, folding=folding)
    forget()
    return Def(d.name, d.params, d.defaults, tuple(body), d.doc, d.source)
