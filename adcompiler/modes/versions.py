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
from ..ir.nodes import Assign, AugAssign, Comment, Do, ForS, IfS, free_names
from .plan import Keeping, Kept, TapePlan, Version, body_of


def versioned_adjoint(plan: TapePlan, keeping: Keeping, table, namer, loop, site: tuple, generic: ForS, looped: bool):
    """The adjoint loop ``generic`` of the loop at ``site``, or both versions under the check's result
    (the short one alone where the check cannot fail: a single array); ``table`` maps each
    ``unbroadcast`` call the short version drops to the cotangent it is given (``Adjoints.same_calls``)."""
    if not table:
        return [generic]
    first = body_of(loop, site) + (0,)
    key = ("run", first)
    saved = keeping.runs.get(first, ())
    body = [_mapped(s, table) for s in generic.body]
    if any(s is None for s in body):
        return [generic]
    at = generic.body.index(keeping.pop(saved, key)) if saved else None
    kept = [n for n in saved if n in set(free_names(body[:at] + body[at + 1 :] if saved else body))]
    short = key + ("same shapes",)
    if saved:
        body[at : at + 1] = [keeping.pop(kept, short)] if kept else []
    version = ForS(generic.target, generic.iterable, tuple(body), generic.line, generic.parallel)
    check = None if len(plan.same_shapes[site].entry) == 1 else namer.fresh("same_shapes")
    keeping.versions[site] = Version(check, tuple(kept), short, looped or plan.split)
    if check is None:
        return [version]
    test = E.Method(keeping.tape(("shapes", site)), "pop", ()) if looped or plan.split else E.Name(check)
    return [IfS(test, (version,), (generic,), loop.line)]


def versioned_primal(plan: TapePlan, kept: Kept, loop, site: tuple, generic) -> list:
    """The primal loop ``generic``, or the check and both versions under it (see ``versioned_adjoint``)."""
    if site not in kept.versions:
        return [generic]
    version_of = kept.versions[site]
    first = body_of(loop, site) + (0,)
    saved = kept.runs.get(first, ())
    body = list(generic.body)
    if saved:
        at = body.index(kept.push([E.Name(n) for n in saved], ("run", first)))
        body[at : at + 1] = (
            [kept.push([E.Name(n) for n in version_of.kept], version_of.site)] if version_of.kept else []
        )
    version = ForS(generic.target, generic.iterable, tuple(body), generic.line, generic.parallel)
    check = version_of.check
    if check is None:
        return [version]
    shapes = [E.Call("numpy.shape", (E.Name(n),)) for n in plan.same_shapes[site].entry]
    tests = tuple(E.Compare("==", shapes[0], s) for s in shapes[1:])
    code = [Assign((check,), tests[0] if len(tests) == 1 else E.BoolOp("and", tests), loop.line)]
    if version_of.pushed:
        code.append(kept.push([E.Name(check)], ("shapes", site)))
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
