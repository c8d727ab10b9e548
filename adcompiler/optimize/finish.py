"""The last passes over generated functions, chosen by their kind: the literal seed's (``stores``) for
gradients and the rows of Jacobians, and NumPy's reductions of arrays as the arrays' methods
(``known_arrays.reductions_as_methods``) and the adjoints of an array's reads added up in one array
(``scatters``) and numbers not spread into arrays where broadcasting spreads them (``spread``) and rows
summed before a product, not after it (``sums_first``) for every kind, forward mode and vjps included."""

from __future__ import annotations

from ..ir.nodes import Def
from .known_arrays import reductions_as_methods
from .scatters import chained_scatters
from .spread import spread_numbers
from .sums_first import sums_first
from .stores import fold_seed_and_stores

SEEDED = ("grad", "value_and_grad", "jacobian")  # kinds whose code starts from a literal seed


def finished(defs: list, kind: str, avals: dict, releases: bool = True) -> list:
    """``defs`` (tidied, of ``kind``) after the last passes; ``avals``: the abstract values of the primal's
    variables; ``releases``: whether arrays no longer read may be let go (``release``)."""
    defs = [_with_scatters(d) for d in defs]
    if kind in SEEDED:  # literal seeds: adjoint loops as cheap as by hand
        defs = [fold_seed_and_stores(d, avals, releases) for d in defs]
    else:
        defs = [_with_methods(d, avals) for d in defs]
    return [_spread(d, avals) for d in defs]


def _spread(d: Def, avals: dict) -> Def:
    body = sums_first(spread_numbers(d.body, avals), avals)
    return d if body == d.body else Def(d.name, d.params, d.defaults, body, d.doc, d.source)


def _with_scatters(d: Def) -> Def:
    body = chained_scatters(d.body)
    return d if body == d.body else Def(d.name, d.params, d.defaults, body, d.doc, d.source)


def _with_methods(d: Def, avals: dict) -> Def:
    body = reductions_as_methods(d.body, avals)
    return d if body == d.body else Def(d.name, d.params, d.defaults, body, d.doc, d.source)
