"""The adjoints of reverse mode and the adjoint of one equation, by the kind of its primitive: numbers
and arrays by the rule tables; containers, array reads and writes, runtime helpers and calls by the
methods here.

Adjoints come in two kinds.  A variable used only in the block that defines it gets its adjoint
``d_x`` by one plain assignment (dup form guarantees one use, so one definition), or is an alias of
another adjoint.  A variable used inside a nested block, and every slot, has an *accumulator*:
``d_x = 0.0`` where the adjoint sweep enters the defining block (``sweep``), then ``d_x += ...`` per
use.  The copies one block makes of an array (``X_1, X_2 = dup(X)``, ``X_3, X_4 = dup(X_2)``, each read
in a branch) share one accumulator, which the first dup hands on once (``shared_once``): one array of
zeros, not one per copy added up after.
"""

from __future__ import annotations

from ..ir import expr as E
from .. import rules
from ..analysis import values as V
from ..rules import CHANGES
from ..rules.families import family
from ..rules.arrays import ARRAY_G
from ..lower.dup import DUP
from .calls import written_arguments
from .handed import handed
from .owned import add_new
from .plan import Keeping, TapePlan, recomputed, shares_tapes
from .shadows import Shadows
from ..analysis.loop_shapes import ELEMENTWISE
from ..errors import at_line
from ..ir.nodes import Assign, AugAssign, Do, Eq, ForS, Var, free_names, rebuild


class Adjoints:
    """The adjoints of one function's variables as the adjoint sweep writes them, and the adjoint of
    one equation (``equation``), which reads them and adds to them."""

    def __init__(self, plan: TapePlan, shadows: Shadows, keeping: Keeping, program, namer):
        self.plan, self.shadows, self.keeping, self.program, self.namer = plan, shadows, keeping, program, namer
        self.adj: dict = {}  # var name -> adjoint expression (assigned once)
        self.acc: dict = {}  # var name -> accumulator name
        self.shared: set = set()  # copies of a value (dup) whose accumulator the other copies may add into too
        self.shared_accs: set = set()  # the accumulators two or more copies of one value add into
        self.copies: dict = {}  # a copy of a value -> the other copies in its group (sweep._copies)
        self.zeroes: set = set()  # adjoint names that may still be the number 0.0 (from an accumulator no use added to)
        self.names: set = set()  # every adjoint name made
        self.same_calls: dict = {}  # loop site -> {unbroadcast call that returns its cotangent: the cotangent}
        self.made: set = set()  # the joined copies (plan.joined_copies) whose shadow a join's adjoint has made
        self.parallel = False  # inside the body of a parallel adjoint loop (modes.parallel): no accumulator handed

    def fresh(self, base: str) -> str:
        name = self.namer.fresh(base)
        self.names.add(name)
        return name

    def of(self, name: str):
        """The adjoint of ``name`` so far (its accumulator, if it has one), or None."""
        return E.Name(self.acc[name]) if name in self.acc else self.adj.get(name)

    def contribute(self, var, c, line: int, out: list, copy: bool = False, element: bool = False) -> None:
        """Add ``c`` to the adjoint of ``var``: accumulate, or define it (once).  A list read as an array
        (``np.dot(w, xs)``, or a slot holding a list, then arrays) gets the cotangent in its shadow.
        ``element``: ``c`` is an element of a shadow list (``d_t[0]`` of ``t = [x, v]``), which is still the
        number 0.0 where no use of it added into it, unless the target's shadows hold zeros of the arrays'
        shapes."""
        if c is None or not isinstance(var, Var) or var.name not in self.plan.act:
            return
        if var.name in self.plan.containers:
            shadow = E.Name(self.shadows.of(var.name))
            if var.name in self.plan.joined_copies:  # the one thing added into it: the shadow itself
                self.made.add(var.name)
                self.names.add(shadow.id)  # (made here, not read of the primal sweep)
                out.append(Assign((shadow.id,), c, line))
                return
            out.append(Do(E.Call(self.program.helper("add_into"), (shadow, c)), line))
            return
        if var.name in self.acc:
            if var.name in self.plan.arrays:  # never in place: the adjoint array may be shared
                out.append(Assign((self.acc[var.name],), E.Name(self.acc[var.name]) + c, line))
            else:
                out.append(AugAssign(self.acc[var.name], "+", c, line))
            return
        assert var.name not in self.adj, f"{var.name} used twice in dup form"
        if isinstance(c, (E.Name, E.Num)) and not copy:
            self.adj[var.name] = c
        else:
            self.adj[var.name] = E.Name(self.fresh("d_" + var.name))
            out.append(Assign((self.adj[var.name].id,), c, line))
        shaped = isinstance(c, E.Call) and c.func in ("@unbroadcast", "@array_like")  # an array of var's shape
        if not shaped and any(n in self.zeroes for n in free_names([Do(c)])):
            self.zeroes.add(self.adj[var.name].id)
        if element and var.name in self.plan.arrays and not self.plan.options.shaped_zeros:
            self.zeroes.add(self.adj[var.name].id)

    def equation(self, eq: Eq, site: tuple) -> list:
        """The adjoint lines of the equation ``eq`` at ``site``."""
        out: list = []
        if eq.prim in HELPERS:
            return self.helper_adjoint(eq)
        if eq.prim == "write":
            slot = eq.outs[0].name
            if slot in self.acc:
                self.contribute(eq.ins[0], E.Name(self.acc[slot]), eq.line, out, copy=True)
                out.append(Assign((self.acc[slot],), E.Num(0.0), eq.line))
            return out
        if eq.prim == "getitem" and isinstance(eq.ins[0], Var) and eq.ins[0].name in self.plan.arrays:
            return self.array_getitem_adjoint(eq)
        if eq.prim == "setitem" and isinstance(eq.ins[0], Var) and eq.ins[0].name in self.plan.arrays:
            return self.array_setitem_adjoint(eq, site)
        if eq.prim in CONTAINER_ADJOINTS:
            return self.container_adjoint(eq)
        if eq.prim == "call":
            if self.touches(eq):
                self.call_adjoint(eq, site, out)
            else:
                out += self.restored(eq, site)
            return out
        if eq.prim == "custom":
            return self.custom_adjoint(eq)
        if eq.prim == "library":  # (never differentiated: activity analysis refuses one with a derivative)
            return self.restored(eq, site)
        if any(v.name in self.plan.containers for v in eq.outs):
            return out
        gs = [self.of(v.name) for v in eq.outs]
        if eq.prim == DUP:
            gs = self.shared_once(eq, gs)
        mask = self.plan.mask(eq)
        if all(g is None for g in gs) or not any(mask):
            return out
        if eq.prim in (DUP, "read") and eq.ins[0].name in self.plan.mutable:
            return out  # the same array object: its adjoint is already shared
        if eq.prim in (DUP, "read"):
            self.contribute(eq.ins[0], E.sum_exprs(gs), eq.line, out)
        else:
            args = [self.plan.ref(a) for a in eq.ins]
            z = eq.outs[0].name
            prim = rules.ARRAY_VARIANTS.get(eq.prim, eq.prim) if z in self.plan.arrays else eq.prim
            g = gs[0]
            maybe_number = g == E.Num(0.0) if isinstance(g, E.Num) else g.id in self.zeroes  # not grad's seed 1.0
            if z in self.plan.arrays and maybe_number and prim not in rules.PARTIALS and prim not in BROADCASTING:
                g = E.Call("@array_like", (g, E.Name(z)))  # still the number 0.0 if no use of z ran: give it z's shape
            if isinstance(g, E.Name) and not maybe_number:  # surely an array: rules that index it
                prim = ARRAY_G.get(prim, prim)
            try:
                cotangents = [self.shaped(c) for c in rules.vjp(prim, args, E.Name(z), g, list(mask))]
            except rules.NotDifferentiatedAgain as e:  # (derivative code in reverse mode: told at its line)
                raise at_line(self.plan.facts.fn.source, eq.line, str(e), "use forward mode (hessian, hvp)") from None
            for a, c in zip(eq.ins, self._merged(eq.ins, cotangents), strict=True):
                shaped = isinstance(g, E.Name) and not maybe_number or eq.prim in _SELECTIONS  # (a where: any g)
                same = shaped and self.shaped_like_result(eq, a)
                summed = c if same else self.unbroadcast(eq, a, c)
                if isinstance(g, E.Name):  # not a literal 0.0, which would leave no name in the zeroes
                    self.note_same_shape(site, eq, a, c, summed)
                self.contribute(a, summed, eq.line, out)
        return out

    def shared_once(self, eq: Eq, gs: list) -> list:
        """The cotangents of the copies ``eq`` (a dup) makes, with an accumulator copies of the value share
        (``sweep``) counted once: by the first copy of the value, whose input is no copy in the group; the
        lines that copy a copy again hand on the rest."""
        group = (eq.outs[0].name,) + self.copies.get(eq.outs[0].name, ())
        accs = sorted({self.acc[w] for w in group if w in self.shared and self.acc[w] in self.shared_accs})
        if not accs:
            return gs
        gs = [g for g in gs if not (isinstance(g, E.Name) and g.id in accs)]
        return gs + [E.Name(a) for a in accs] if eq.ins[0].name not in group else gs

    def _merged(self, ins, cotangents: list) -> list:
        """Equal cotangents of two copies of one value (``x * x``) sent to the first as one term, 2 * c."""
        cotangents = list(cotangents)
        for i, j in ((0, 1),) if len(ins) == 2 else ():
            a, b = ins[i], ins[j]
            same = (
                isinstance(a, Var)
                and isinstance(b, Var)
                and self.plan.alias.get(a.name, a.name) == self.plan.alias.get(b.name, b.name)
            )
            if same and cotangents[i] is not None and cotangents[i] == cotangents[j]:
                cotangents[i], cotangents[j] = E.mul(E.Num(2), cotangents[i]), None
        return cotangents

    def shaped_like_result(self, eq: Eq, a) -> bool:
        """Whether argument ``a`` of the arithmetic ``eq`` surely has the result's shape: an array whose
        other operand is a number or a 0-d array (then ``unbroadcast`` would hand the cotangent back
        as it is, and ``a`` need not be kept for its shape)."""
        if eq.prim not in _SCALAR_BROADCAST or len(eq.ins) != 2 or not isinstance(self.plan.facts.of(a), V.Arr):
            return False
        other = self.plan.facts.of(eq.ins[1] if a is eq.ins[0] else eq.ins[0])
        return isinstance(other, V.Num) or isinstance(other, V.Arr) and other.ndim == 0

    def unbroadcast(self, eq: Eq, a, c):
        """An array result's cotangent, summed back to the shape of an argument NumPy broadcast."""
        if c is None or eq.prim not in BROADCASTING or eq.outs[0].name not in self.plan.arrays:
            return c
        return self.unbroadcast_to(c, a)

    def array_setitem_adjoint(self, eq: Eq, site: tuple) -> list:
        """``x[index] = v`` of an array: v's cotangent is what x[index] had, which is then cleared;
        the overwritten values come back from the tape so earlier adjoints see the array as it was."""
        x, index, v = eq.ins
        out: list = []
        pieces = self.namer.fresh("d_" + x.name + "_part")
        if x.name in self.acc:
            d = self.acc[x.name]
            out.append(
                Assign(
                    ((d, pieces),),
                    E.Call("@take_and_clear", (E.Name(d), self.plan.ref(x), self.plan.ref(index))),
                    eq.line,
                )
            )
            self.contribute(v, self.unbroadcast_to(E.Name(pieces), v), eq.line, out)
        if x.name in self.plan.unread_writes:  # (what it overwrote nothing reads: not kept, not put back)
            return out
        popped = E.Method(self.keeping.tape(("write", site)), "pop", ())
        out.append(Assign((E.Subscript(self.plan.ref(x), self.plan.ref(index)),), popped, eq.line))
        return out

    def unbroadcast_to(self, c, a):
        """``c`` summed down to the shape of the value ``a`` (a number or an array)."""
        if not isinstance(a, Var):
            return c
        if a.name in self.plan.arrays:
            summed = lambda g: self.shaped(E.Call("@unbroadcast", (g, self.plan.ref(a))))  # noqa: E731
            return self.linear(summed, c) if isinstance(self._core(c), E.Name) else summed(c)
        if a.name in self.plan.containers:  # a list NumPy read as an array
            return E.Call("@unbroadcast", (c, E.Call("numpy.asarray", (self.plan.ref(a),))))
        return self.linear(lambda g: E.Call("@sum_all", (g,)), c)  # numpy.sum(c), without numpy.sum's dispatch

    def shaped(self, c):
        """``c`` with the arrays it reads only for their shape (``unbroadcast(g, x)``, ``unreduce(g, x)``,
        ``array_like(g, x)``) read of their representatives (``analysis.same_shapes``: ``X`` for ``t3 = X *
        costheta``), so that the primal need not keep them."""
        if isinstance(c, E.Call) and c.func in _SHAPE_ONLY and len(c.args) >= 2 and isinstance(c.args[1], E.Name):
            rep = self.plan.shapes.get(c.args[1].id)
            args = (self.shaped(c.args[0]),) + ((E.Name(rep),) if rep else c.args[1:2]) + c.args[2:]
            return E.Call(c.func, args, c.keywords)
        if isinstance(c, E.Expr):
            return type(c)(**{k: self.shaped(v) for k, v in vars(c).items()})
        if isinstance(c, tuple):
            return tuple(self.shaped(x) for x in c)
        return c

    def linear(self, f, c) -> E.Expr:
        """``f(c)`` for ``f`` linear (``unbroadcast``, ``sum_all``), with the negation of ``c`` and the numbers it
        is multiplied or divided by taken out: ``-(sum_all(w * d_w) / theta)`` for the adjoint
        ``sum_all(-(w / theta * d_w))`` of the number ``theta`` in ``w = rot / theta``, which makes no array
        but the product's (the Numba target sums that too without one: ``sum_product``), and
        ``-(2.0 * unbroadcast(d_dist2, t12))`` for ``2.0 * unbroadcast(-d_dist2, t12)``, one expression
        (Numba makes one array of it; see ``_core`` for when ``unbroadcast``'s are taken out)."""
        if isinstance(c, E.Unary) and c.op == "-":
            return E.neg(self.linear(f, c.operand))
        if isinstance(c, E.BinOp) and c.op == "/" and self._number(c.right):
            return E.div(self.linear(f, c.left), c.right)
        if isinstance(c, E.BinOp) and c.op == "*":
            if self._number(c.left):
                return E.mul(c.left, self.linear(f, c.right))
            if self._number(c.right):
                return E.mul(self.linear(f, c.left), c.right)
            quotient = c.left
            if isinstance(quotient, E.BinOp) and quotient.op == "/" and self._number(quotient.right):
                return E.div(self.linear(f, E.mul(quotient.left, c.right)), quotient.right)
        return f(c)

    def _core(self, c):
        """What ``linear`` hands ``f``: ``c`` without the sign and the numbers it takes out.  Of ``unbroadcast``
        they are taken out only where that leaves a name (``-d_dist2``: the product outside then folds with
        what reads it), never from arithmetic that would be one expression inside (``2 * (diff * d)``)."""
        if isinstance(c, E.Unary) and c.op == "-":
            return self._core(c.operand)
        if isinstance(c, E.BinOp) and c.op == "/" and self._number(c.right):
            return self._core(c.left)
        if isinstance(c, E.BinOp) and c.op == "*" and (self._number(c.left) or self._number(c.right)):
            return self._core(c.right if self._number(c.left) else c.left)
        return c

    def _number(self, e) -> bool:
        """Whether ``e`` is surely one number: a numeric literal, or a primal variable whose abstract value is a number."""
        if isinstance(e, E.Num):
            return isinstance(e.value, (int, float)) and not isinstance(e.value, bool)
        return isinstance(e, E.Name) and isinstance(self.plan.facts.avals.get(e.id), V.Num)

    def array_getitem_adjoint(self, eq: Eq) -> list:
        """``x[index]`` of an array: the cotangent is scattered back, repeated indices adding up."""
        out: list = []
        g = self.of(eq.outs[0].name)
        x = eq.ins[0]
        if g is None or not (isinstance(x, Var) and x.name in self.plan.act):
            return out
        current = E.Name(self.acc[x.name]) if x.name in self.acc else E.Num(0.0)
        value = E.Call("@scatter_add", (current, self.plan.ref(x), self.plan.ref(eq.ins[1]), g))
        if x.name in self.acc:
            out.append(Assign((self.acc[x.name],), value, eq.line))
        else:
            self.contribute(x, value, eq.line, out)
        return out

    def helper_adjoint(self, eq: Eq) -> list:
        """Adjoints of the runtime helpers, when derivative code is itself differentiated."""
        if eq.prim in ("like", "like_arrays") and eq.outs[0].name in self.plan.act and eq.ins[0].name in self.plan.act:
            return [
                Do(
                    E.Call(
                        self.program.helper("add_into"),
                        (E.Name(self.shadows.of(eq.ins[0].name)), E.Name(self.shadows.of(eq.outs[0].name))),
                    ),
                    eq.line,
                )
            ]
        if eq.prim == "add_into" and all(isinstance(a, Var) and a.name in self.plan.act for a in eq.ins):
            if eq.ins[1].name not in self.plan.containers:  # an array added into a list's shadow (np.array of a
                # list's adjoint): its cotangent is the shadow's, as an array
                out: list = []
                whole = E.Call("numpy.array", (E.Name(self.shadows.of(eq.ins[0].name)),))
                self.contribute(eq.ins[1], whole, eq.line, out)
                return out
        if eq.prim in ("add_into", "add_scalars_into") and all(
            isinstance(a, Var) and a.name in self.plan.act for a in eq.ins
        ):
            acc, src = (E.Name(self.shadows.of(a.name)) for a in eq.ins)
            return [Do(E.Call(self.program.helper(eq.prim), (src, acc)), eq.line)]
        if eq.prim == "add_slice_into" and all(isinstance(a, Var) and a.name in self.plan.act for a in eq.ins[:2]):
            acc, src = (E.Name(self.shadows.of(a.name)) for a in eq.ins[:2])  # part's adjoint: acc's at index, for
            into = E.Subscript(acc, self.plan.ref(eq.ins[2]))  # the numbers only: add_slice_into skips the lists,
            # which the part shares with the whole (their shadows are shared too: adding them would count twice)
            return [Do(E.Call(self.program.helper("add_scalars_into"), (src, into)), eq.line)]
        if eq.prim == "add_part_into" and all(isinstance(a, Var) and a.name in self.plan.act for a in eq.ins[:2]):
            acc, whole = (E.Name(self.shadows.of(a.name)) for a in eq.ins[:2])  # whole[start + j]'s adjoint: acc's [j]
            start = self.plan.ref(eq.ins[2])
            part = E.Call("slice", (start, E.BinOp("+", start, E.Call("len", (acc,)))))
            return [Do(E.Call(self.program.helper("add_slice_into"), (whole, acc, part)), eq.line)]
        if eq.prim == "add_tiled_into" and all(isinstance(a, Var) and a.name in self.plan.act for a in eq.ins):
            acc, whole = (E.Name(self.shadows.of(a.name)) for a in eq.ins)  # whole[j]'s adjoint: acc's [j % n]
            tiles = E.BinOp("//", E.Call("len", (whole,)), E.Call("len", (acc,)))
            return [
                Do(E.Call(self.program.helper("add_scalars_into"), (whole, E.BinOp("*", acc, tiles, True))), eq.line)
            ]
        return []

    def scalar(self, a) -> bool:
        return isinstance(a, Var) and a.name in self.plan.act and a.name not in self.plan.containers

    def container_adjoint(self, eq: Eq) -> list:
        """Adjoints of list primitives: element adjoints live in the shadow lists."""
        out: list = []
        if eq.prim == "list_concat":
            return self.concat_adjoint(eq)
        target = eq.ins[0] if eq.prim in ("setitem", "append", "getitem", "sum", "list_copy", "pop") else eq.outs[0]
        if not isinstance(target, Var) or target.name not in self.plan.act or target.name in self.keeping.seeded:
            return out
        d = E.Name(self.shadows.of(target.name))
        if eq.prim == "getitem" and V.is_slice(self.plan.facts.of(eq.ins[1])):  # xs[a:b]: a new list of xs's elements
            if eq.outs[0].name in self.plan.act:
                part = E.Name(self.shadows.of(eq.outs[0].name))
                out.append(
                    Do(E.Call(self.program.helper("add_slice_into"), (d, part, self.plan.ref(eq.ins[1]))), eq.line)
                )
        elif eq.prim == "getitem" and self.scalar(eq.outs[0]) and self.of(eq.outs[0].name) is not None:
            element, g = E.Subscript(d, self.plan.ref(eq.ins[1])), self.of(eq.outs[0].name)
            if self.array_element(eq.outs[0].name) and isinstance(g, E.Name):  # g itself into a 0.0, if its own
                out.append(add_new(element, g, eq.line))
            else:
                out.append(AugAssign(element, "+", g, eq.line))
        elif (
            eq.prim == "setitem"
            and eq.ins[2] not in ()
            and not (isinstance(eq.ins[2], Var) and eq.ins[2].name in self.plan.containers)
        ):
            element = E.Subscript(d, self.plan.ref(eq.ins[1]))
            self.contribute(eq.ins[2], element, eq.line, out, copy=True, element=True)
            out.append(Assign((element,), E.Num(0.0), eq.line))
        elif eq.prim == "pop":  # the element goes back, with its adjoint
            element = (
                self.shadows.value(eq.outs[0]) if eq.outs[0].name in self.plan.containers else self.of(eq.outs[0].name)
            )
            out.append(Do(E.Method(d, "append", (element if element is not None else E.Num(0.0),)), eq.line))
        elif eq.prim == "append":
            popped = E.Method(d, "pop", ())
            if self.scalar(eq.ins[1]):
                self.contribute(eq.ins[1], popped, eq.line, out, copy=True, element=True)
            else:
                out.append(Do(popped, eq.line))
        elif eq.prim in ("list", "tuple"):
            for k, a in enumerate(eq.ins):
                if self.scalar(a):
                    self.contribute(a, E.Subscript(d, E.Num(k)), eq.line, out, copy=True, element=True)
        elif eq.prim == "list_repeat" and self.scalar(eq.ins[0]):
            self.contribute(eq.ins[0], E.Call("sum", (d,)), eq.line, out)
        elif eq.prim == "list_times" and eq.ins[0].name in self.plan.act:
            source = E.Name(self.shadows.of(eq.ins[0].name))
            out.append(Do(E.Call(self.program.helper("add_tiled_into"), (source, d)), eq.line))
        elif (
            eq.prim == "list_copy"
            and self.plan.last_copies.get(self.plan.shared.get(target.name, target.name)) == eq.outs[0].name
        ):
            copy = eq.outs[0].name  # the list's shadow is the copy's (zeros where the join's adjoint made none)
            made = (
                E.Name(self.shadows.of(copy))
                if copy in self.made
                else self.shadows.zeros(copy, self.plan.ref(eq.outs[0]))
            )
            self.names.add(d.id)
            out.append(Assign((d.id,), made, eq.line))
        elif eq.prim == "list_copy" and eq.outs[0].name in self.plan.joined_copies and eq.outs[0].name not in self.made:
            pass  # (the join's cotangent reached nothing: no shadow was made, nothing to add)
        elif eq.prim == "list_copy" and eq.outs[0].name in self.plan.act:
            out.append(
                Do(
                    E.Call(self.program.helper("add_scalars_into"), (d, E.Name(self.shadows.of(eq.outs[0].name)))),
                    eq.line,
                )
            )
        elif eq.prim == "sum" and self.of(eq.outs[0].name) is not None:
            k = self.namer.fresh("k")
            g = self.of(eq.outs[0].name)
            if eq.outs[0].name in self.plan.arrays:  # each element gets g summed to its own shape ([c] + rows)
                g = E.Call("@unbroadcast", (g, E.Subscript(self.plan.ref(eq.ins[0]), E.Name(k))))
            body = (AugAssign(E.Subscript(d, E.Name(k)), "+", g, eq.line),)
            out.append(ForS(k, E.Call("range", (E.Call("len", (d,)),)), body, eq.line))
        return out

    def array_element(self, name: str) -> bool:
        """Whether ``name``, read from a list, surely holds an array (not a number): an adjoint added into
        its element of the shadow may be stored there (``owned``); the Numba target's code keeps ``+=``."""
        a = self.plan.facts.avals.get(name)
        return isinstance(a, V.Arr) and a.ndim != 0 and self.plan.options.new_array_stores

    def concat_adjoint(self, eq: Eq) -> list:
        """``u = a + b`` of lists: u's number adjoints go back to a's (from the start) and b's (after a's)."""
        out: list = []
        if eq.outs[0].name not in self.plan.act:
            return out
        whole = E.Name(self.shadows.of(eq.outs[0].name))
        a, b = eq.ins
        for part, start in ((a, E.Num(0)), (b, None)):
            if isinstance(part, Var) and part.name in self.plan.act:
                d = E.Name(self.shadows.of(part.name))
                if start is None:  # the shadows have their lengths of then: lists grown since have been popped
                    start = E.BinOp("-", E.Call("len", (whole,)), E.Call("len", (d,)))
                out.append(Do(E.Call(self.program.helper("add_part_into"), (d, whole, start)), eq.line))
        return out

    def call_adjoint(self, eq: Eq, site: tuple, out: list) -> None:
        """``d_a, d_b = g_reverse_sweep(g_res, ct)`` for a differentiated call.

        Lists a callee reads or fills have their shadows passed in the primal
        sweep, so only number arguments get cotangents back here.
        """
        mask = self.plan.mask(eq)
        gs = [None if v.name in self.plan.containers else self.of(v.name) for v in eq.outs]
        shape = self.program.shape(eq.param)
        ct = E.tuple_of(rebuild(shape, iter(g if g is not None else E.Num(0.0) for g in gs)))
        sig = self.plan.facts.call_sig(eq)
        as_list = [V.is_seq(a) for a in sig.avals]  # list arguments: their shadows are passed in the primal sweep
        scalars = [a for a, on, lst in zip(eq.ins, mask, as_list, strict=True) if on and not lst]
        given, into = self.handed_to(eq, mask, as_list)
        names = [into.get(k) or self.fresh("d_" + a.name) for k, a in enumerate(scalars)]
        made = eq.outs or [a for a in eq.ins if isinstance(a, Var)]  # (a call whose result is a list it fills:
        # no output, its arguments read where it is)
        residuals = E.Name(self.keeping.residual(site, eq, any(v.name in self.plan.in_loop for v in made)))
        if shares_tapes(self.plan, self.program, eq):  # it calls itself: its level's residuals are on its tapes
            residuals = E.Name(self.keeping.own_tapes(self.plan, self.program))
        elif recomputed(self.plan, self.program, eq):  # the call run again from its arguments, for its residuals
            kept = tuple(E.Subscript(residuals, E.Num(k)) for k in range(len(eq.ins)))
            residuals = E.Subscript(E.Call(self.program.forward_sweep(eq.param, mask, sig), kept), E.Num(1))
        lists = (
            ()
            if shares_tapes(self.plan, self.program, eq)
            else tuple(  # the shadows of its list arguments,
                E.Name(self.shadows.of(a.name))  # as its forward sweep was handed them (modes.reverse.split)
                for a, on, lst in zip(eq.ins, mask, as_list, strict=True)
                if on and a.name in self.plan.containers and lst
            )
        )
        call = E.Call(self.program.reverse_sweep(eq.param, mask, sig), (residuals, ct) + given + lists)
        if not names:
            out.append(Do(call, eq.line))
            return
        out.append(Assign((names[0] if len(names) == 1 else tuple(names),), call, eq.line))
        for k, (a, n) in enumerate(zip(scalars, names, strict=True)):
            if k not in into:  # (an accumulator handed in: the call added into it)
                self.contribute(a, E.Name(n), eq.line, out)

    def handed_to(self, eq: Eq, mask, as_list) -> tuple:
        """``(arguments, into)`` for the accumulators a call's reverse sweep takes (``handed``): for each, the
        accumulator of the argument where it has one it may hand (then ``into`` maps the argument's place
        among the cotangents to it), else zeros; the number 0.0, or, where a variable has one type, an array
        (``array_like(d_A, A)``: the accumulator itself where it is one already)."""
        sig = self.plan.facts.call_sig(eq)
        places = [k for k, (on, lst) in enumerate(zip(mask, as_list, strict=True)) if on and not lst]
        given, into = [], {}
        for k in handed(self.program, eq.param, mask, sig):
            a = eq.ins[k]
            acc = self.acc.get(a.name) if isinstance(a, Var) else None
            own = acc is not None and not self.parallel and acc not in into.values()
            own = own and a.name not in self.plan.mutable and a.name not in self.plan.written
            if own:
                into[places.index(k)] = acc
            start = E.Name(acc) if own else E.Num(0.0)
            if self.plan.options.typed_zeros:  # an array, whatever the accumulator still is (0.0 propagated)
                start = self.shaped(E.Call("@array_like", (start, self.plan.ref(a))))
            given.append(start)
        return tuple(given), into

    def custom_adjoint(self, eq: Eq) -> list:
        """``d_a, d_b = rule_vjp(a, b, d_y)`` for a function with a user-supplied rule."""
        out: list = []
        g = self.of(eq.outs[0].name)
        if len(eq.outs) > 1:  # a tuple of values (rules.output_size): the tuple of their cotangents
            gs = [self.of(v.name) for v in eq.outs]
            g = None if all(c is None for c in gs) else E.Tuple(tuple(c or E.Num(0.0) for c in gs))
        mask = self.plan.mask(eq)
        if g is None or not any(mask):
            return out
        vjp = rules.CUSTOM[eq.param][1]
        if vjp is None:
            raise TypeError(
                f"{eq.param.__name__} has a jvp rule but no vjp rule: reverse mode needs defrule(..., vjp=...)"
            )
        names = [self.fresh("d_" + a.name) if on else self.program.discard for a, on in zip(eq.ins, mask, strict=True)]
        call = E.Call(self.program.primal_name(vjp), tuple(self.plan.ref(a) for a in eq.ins) + (g,))
        out.append(Assign((tuple(names),), call, eq.line))
        for a, n in zip(eq.ins, names, strict=True):
            if n != self.program.discard:
                self.contribute(a, E.Name(n), eq.line, out)
        return out

    def restored(self, eq: Eq, site: tuple) -> list:
        """A call not differentiated that writes into arrays it is handed (integer arrays a helper writes into:
        ``Program.writes_into``; the array ``np.put`` changes): each put back as it was before the call, so that
        earlier adjoints read it as the primal did (``x[p]``'s, for a permutation ``p`` a helper then changes); a
        call differentiated puts back its own writes."""
        out = []
        for k in written_arguments(self.program, self.plan.facts, eq):
            popped = E.Method(self.keeping.tape(("write", site, k)), "pop", ())
            out.append(Assign((E.Subscript(self.plan.ref(eq.ins[k]), E.Slice(None, None)),), popped, eq.line))
        return out

    def touches(self, eq: Eq) -> bool:
        """Whether a call needs differentiating: it has active inputs and active outputs or list arguments."""
        mask = self.plan.mask(eq)
        lists = any(on and a.name in self.plan.containers for a, on in zip(eq.ins, mask, strict=True))
        return any(mask) and (lists or any(v.name in self.plan.act for v in eq.outs))

    def note_same_shape(self, site: tuple, eq, a, c, summed) -> None:
        """Note that the ``unbroadcast`` call in ``summed``, the cotangent ``c`` of the operand ``a`` of ``eq``
        (at ``site``) summed to its shape (its sign and numbers taken out: ``linear``), gives back what it is
        handed where the loop around ``eq`` has one shape for all its arrays (see ``versions``)."""
        loop = self.plan.shape_loop(site)
        if loop is None or summed is c:
            return
        while isinstance(summed, (E.Unary, E.BinOp)):  # (the call within: numbers and a sign taken out, linear)
            summed = (
                summed.operand
                if isinstance(summed, E.Unary)
                else summed.left if self._number(summed.right) else summed.right
            )
        if not isinstance(summed, E.Call) or summed.func != "@unbroadcast":
            return
        arrays = self.plan.same_shapes[loop].arrays
        if eq.prim in ELEMENTWISE and a.name in arrays and eq.outs[0].name in arrays:
            self.same_calls.setdefault(loop, {})[summed] = summed.args[0]


HELPERS = ("zeros_like", "like", "like_arrays", "reject_ints") + CHANGES
_SHAPE_ONLY = ("@unbroadcast", "@unreduce", "@array_like")  # read their second argument's shape (and dtype) alone


# Functions of arguments broadcast together (a cotangent is summed back to each argument's shape): Python's
# operators and NumPy's elementwise functions of several arguments (np.arctan2, np.maximum, np.where, ...)
BROADCASTING = ("add", "sub", "mul", "truediv", "pow", "mod")
BROADCASTING += tuple(p.name for p in family("ufuncs") if not p.inactive and len(p.signature) > 1)


CONTAINER_ADJOINTS = (
    "pop",
    "getitem",
    "setitem",
    "append",
    "list",
    "tuple",
    "list_repeat",
    "list_concat",
    "list_times",
    "list_copy",
    "sum",
    "len",
    "argmax",
    "argmin",
)


# binary arithmetic whose result has its array operand's shape when the other is a number
_SCALAR_BROADCAST = ("add", "sub", "mul", "truediv", "pow", "numpy.add", "numpy.subtract", "numpy.multiply")
_SCALAR_BROADCAST += ("numpy.divide", "numpy.true_divide", "numpy.power")
# selections of one operand against a number: np.where(b > a, 0.0, g) has a's shape, g a number or of the result's
_SELECTIONS = ("numpy.maximum", "numpy.minimum", "numpy.fmax", "numpy.fmin")
_SCALAR_BROADCAST += _SELECTIONS
