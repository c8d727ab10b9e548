"""Two versions of a loop whose arrays may all have one shape (``analysis.loop_shapes``): one for runs
where a check at the loop's entry shows they do, whose adjoint has no ``unbroadcast`` of those arrays
and so tapes none of them, and the loop as it is for the other runs.

In the first version a cotangent the adjoint would have given an operand's shape with ``unbroadcast``
is used as it is: an array of that shape already, or the number 0.0 where no use of the result has
run yet.  The number flows through the body's adjoints, which are arithmetic only, as the array of
zeros would (the same value in every entry), and the accumulators, the only adjoints that leave the
body, may hold the number 0.0 anyway.  The primal sweep computes the check, runs the version it
picks, and, where the adjoint sweep cannot read the result again (inside another loop, or in a split
sweep), pushes it; the adjoint sweep runs the adjoint of the same version.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace

from ..ir import expr as E
from ..analysis.loop_shapes import ELEMENTWISE, same_shape_loop
from ..ir.nodes import Assign, AugAssign, Comment, Do, For, ForS, IfS, free_names, walk


class Versions:
    """Loop versioning by shape, mixed into ``Sweeps``: ``find_same_shapes`` before the sweeps are built,
    ``note_same_shape`` from each adjoint of arithmetic, ``versioned_adjoint`` and ``versioned_primal``
    where a loop's two sweeps are written."""

    def find_same_shapes(self) -> None:
        """The shape facts of every loop that may have them (see ``analysis.loop_shapes``)."""
        self.same_shapes: dict = {}  # id(loop) -> SameShape
        self.loop_of_eq: dict = {}  # id(equation in such a loop) -> id(loop)
        self.same_calls: dict = {}  # id(loop) -> {unbroadcast call that returns its cotangent: the cotangent}
        self.versions: dict = {}  # id(loop) -> (check's name or None, names the short version pushes, its site)
        if not getattr(self.program, "versioned_loops", True) or getattr(self.program, "checkpoint", None):
            return
        for loop in walk(self.fn.body):
            facts = same_shape_loop(loop, self.facts.of, self.alias) if isinstance(loop, For) else None
            if facts is not None:
                self.same_shapes[id(loop)] = facts
                self.loop_of_eq.update((id(eq), id(loop)) for eq in loop.body)

    def note_same_shape(self, eq, a, c, summed) -> None:
        """Note that ``summed``, the cotangent ``c`` of the operand ``a`` of ``eq`` summed to its shape, is
        ``c`` itself where the loop around ``eq`` has one shape for all its arrays."""
        loop = self.loop_of_eq.get(id(eq))
        if loop is None or summed is c or not isinstance(summed, E.Call) or summed.func != "@unbroadcast":
            return
        arrays = self.same_shapes[loop].arrays
        if eq.prim in ELEMENTWISE and a.name in arrays and eq.outs[0].name in arrays:
            self.same_calls.setdefault(loop, {})[summed] = c

    def versioned_adjoint(self, loop, generic: ForS, looped: bool) -> list:
        """The adjoint loop ``generic``, or both versions under the check's result (the short one alone
        where the check cannot fail: a single array)."""
        table = self.same_calls.get(id(loop))
        if not table:
            return [generic]
        site = ("run", id(loop.body[0]))
        saved = self.pushes.get(id(loop.body[0]), [])
        body = [_mapped(s, table) for s in generic.body]
        if any(s is None for s in body):
            return [generic]
        at = generic.body.index(self.pop(saved, site)) if saved else None
        kept = [n for n in saved if n in set(free_names(body[:at] + body[at + 1 :] if saved else body))]
        short = site + ("same shapes",)
        if saved:
            body[at : at + 1] = [self.pop(kept, short)] if kept else []
        version = ForS(generic.target, generic.iterable, tuple(body), generic.line)
        check = None if len(self.same_shapes[id(loop)].entry) == 1 else self.namer.fresh("same_shapes")
        self.versions[id(loop)] = (check, kept, short, looped or self.split)
        if check is None:
            return [version]
        test = E.Method(self.tape(("shapes", id(loop))), "pop", ()) if looped or self.split else E.Name(check)
        return [IfS(test, (version,), (generic,), loop.line)]

    def versioned_primal(self, loop, generic) -> list:
        """The primal loop ``generic``, or the check and both versions under it (see ``versioned_adjoint``)."""
        if id(loop) not in self.versions:
            return [generic]
        check, kept, short, pushed = self.versions[id(loop)]
        saved = self.pushes.get(id(loop.body[0]), [])
        body = list(generic.body)
        if saved:
            at = body.index(self.push([E.Name(n) for n in saved], ("run", id(loop.body[0]))))
            body[at : at + 1] = [self.push([E.Name(n) for n in kept], short)] if kept else []
        version = ForS(generic.target, generic.iterable, tuple(body), generic.line)
        if check is None:
            return [version]
        shapes = [E.Call("numpy.shape", (E.Name(n),)) for n in self.same_shapes[id(loop)].entry]
        tests = tuple(E.Compare("==", shapes[0], s) for s in shapes[1:])
        code = [Assign((check,), tests[0] if len(tests) == 1 else E.BoolOp("and", tests), loop.line)]
        if pushed:
            code.append(self.push([E.Name(check)], ("shapes", id(loop))))
        return code + [IfS(E.Name(check), (version,), (generic,), loop.line)]


def _mapped(stmt, table: dict):
    """A straight-line adjoint statement with the calls in ``table`` replaced; None for another kind."""
    if isinstance(stmt, Comment):
        return stmt
    if isinstance(stmt, (Assign, AugAssign, Do)):
        return replace(stmt, value=_expr(stmt.value, table))
    return None


def _expr(e, table: dict):
    if isinstance(e, tuple):
        return tuple(_expr(x, table) for x in e)
    if not isinstance(e, E.Expr):
        return e
    if e in table:
        return table[e]
    return replace(e, **{f.name: _expr(getattr(e, f.name), table) for f in fields(e)}) if is_dataclass(e) else e
