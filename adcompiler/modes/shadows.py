"""The shadow lists of reverse mode: a list's adjoints, element by element, built alongside it in the
primal sweep and read and added into in the adjoint sweep.

Both sweeps, and the cotangents after them, ask ``Shadows`` for a list's shadow by the list's name:
the shadow gets its name on first use, whichever sweep asks first (a dup copy of a list shares the
shadow of the list it copies)."""

from __future__ import annotations

from ..analysis import values as V
from ..ir import expr as E
from ..ir.nodes import Var
from . import structures
from .plan import TapePlan


class Shadows:
    """The names of the shadows of one function's lists, and the values a shadow holds."""

    def __init__(self, plan: TapePlan, program, namer):
        self.plan, self.program, self.namer = plan, program, namer
        self.names: dict = {}  # list (the one whose shadow a dup copy shares) -> the name of its shadow
        self.owner: dict = {}  # the name of a shadow -> its list

    def of(self, name: str) -> str:
        """The name of a container's shadow: a list of the adjoints of its elements."""
        name = self.plan.shared.get(name, name)
        if name not in self.names:
            self.names[name] = self.namer.fresh("d_" + name)
            self.owner[self.names[name]] = name
        return self.names[name]

    def looped(self) -> set:
        """The shadows of lists defined inside loops."""
        return {d for d, name in self.owner.items() if name in self.plan.in_loop}

    def zeros(self, name: str, value: E.Expr) -> E.Expr:
        """A shadow of zeros for the list ``value`` (held by ``name``), written out from its abstract
        value where that says it holds lists and numbers only (``[0.0] * len(xs)``,
        ``[[0.0] * len(r) for r in rows]``), else the helper that walks it."""
        aval = self.plan.facts.avals.get(name)
        written = structures.lists_of_numbers(aval) or self.plan.options.written_shadows
        made = structures.zeros(aval, value, self.namer.fresh) if written else None
        return made if made is not None else E.Call(self.program.helper("zeros_like"), (value,))

    def value(self, a) -> E.Expr:
        """What a shadow list holds for a stored value: its shadow if it is a list, else a zero adjoint
        (0.0; zeros of an array's shape where the target types a list's elements alike: Numba)."""
        if isinstance(a, Var) and a.name in self.plan.containers:
            if a.name in self.plan.act:
                return E.Name(self.of(a.name))
            return self.zeros(a.name, self.plan.ref(a))  # (a dup copy by the name it reuses)
        aval = self.plan.facts.avals.get(a.name) if isinstance(a, Var) else None
        if self.plan.options.shaped_zeros and isinstance(aval, V.Arr) and aval.ndim != 0:
            return E.Call(self.program.helper("zeros_like"), (self.plan.ref(a),))
        return E.Num(0.0)

    def changes_in_place(self, a) -> bool:
        """Whether the zero a shadow list holds for the stored value ``a`` is an array (``value``), which an
        adjoint is added into in place: one shadow list holds it once (``[r] * n``'s shadow is n arrays)."""
        aval = self.plan.facts.avals.get(a.name) if isinstance(a, Var) else None
        if isinstance(a, Var) and a.name in self.plan.containers:
            return False
        return self.plan.options.shaped_zeros and isinstance(aval, V.Arr) and aval.ndim != 0

    def of_list(self, a) -> E.Expr:
        """The shadow of a list operand: its own, or zeros shaped like it where it is constant."""
        if isinstance(a, Var) and a.name in self.plan.act:
            return E.Name(self.of(a.name))
        if isinstance(a, Var):
            return self.zeros(a.name, self.plan.ref(a))
        return E.Call(self.program.helper("zeros_like"), (self.plan.ref(a),))
