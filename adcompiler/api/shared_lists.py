"""The tests a fast entry makes of which lists its arguments share (``api.entries``): the same arguments share a
list as when the code was built (``x + y`` of two lists that are one list has no derivative with respect to each),
and an argument the function changes holds no list twice (``[row] * n``: a change of one row changes them all)."""

from __future__ import annotations

from ..analysis import values as V
from ..analysis.holds import written_ids


def shared_list_tests(owner, values, sig, g, space) -> list:
    """The guard's tests of the arguments ``values`` (their names in the entry) for signature ``sig``; ``g``: the
    entry's names, ``space``: what the entry is handed."""
    return _alias_test(values, sig, g, space) + _repeat_test(owner, values, sig, g, space)


def _alias_test(values, sig, g, space) -> list:
    """Where several arguments hold lists, the test that the same ones share a list as before."""
    if sum(1 for a in sig.avals if isinstance(a, V.Seq)) < 2:
        return []
    lists = [i for i, a in enumerate(sig.avals) if isinstance(a, V.Seq) and a.kind != "tuple"]
    if all(V.flat(a) for a in sig.avals if isinstance(a, V.Seq)):  # numbers only: the same list or not, each pair
        return [
            f"{values[i]} {'is' if sig.alias[i] == sig.alias[j] else 'is not'} {values[j]}"
            for k, i in enumerate(lists)
            for j in lists[k + 1 :]
        ]
    written = _written_alias_test(values, sig, g, space)
    if written is not None:
        return written
    space[g["alias"]], space[g["pattern"]], space[g["avals"]] = V.alias_pattern, sig.alias, sig.avals
    return [f"{g['alias']}(({', '.join(values)},), {g['avals']}) == {g['pattern']}"]


def _repeat_test(owner, values, sig, g, space) -> list:
    """Where the function changes a list of lists it is handed, the test that the argument holds no list twice
    (``[row] * n``: a change of one row is a change of every one, which the code was not made for; the checking
    path refuses it)."""
    nested = [i for i, a in enumerate(sig.avals) if V.nested_lists(a) and i not in sig.repeated]
    if not nested:
        return []
    try:
        written = owner._built.facts(sig).summary.written
    except Exception:  # (refused: the checking path says so)
        written = (True,) * len(sig.avals)
    space[g["repeats"]] = V.repeats_a_list
    tests = []
    for i in (i for i in nested if written[i]):
        space[g[f"rows{i}"]] = sig.avals[i]
        tests.append(f"not {g['repeats']}({values[i]}, {g[f'rows{i}']})")
    return tests


def _written_alias_test(values, sig, g, space) -> list | None:
    """Where no two arguments shared a list, the test that none do now: the ids of the lists each
    reaches, gathered by a function written out from its abstract value (``analysis.holds``), are
    disjoint.  None where they shared one, or an abstract value has no such function."""
    holders = [i for i, a in enumerate(sig.avals) if V.holds_list(a)]
    if any(sig.alias[i] != i for i in holders):
        return None
    sets = []
    for i in holders:
        ids = written_ids(sig.avals[i])
        if ids is None:
            return None
        space[g[f"ids{i}"]] = ids
        sets.append(f"{g[f'ids{i}']}({values[i]})")
    return [f"{a}.isdisjoint({b})" for k, a in enumerate(sets) for b in sets[k + 1 :]]
