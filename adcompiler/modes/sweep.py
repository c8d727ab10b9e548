"""Dup form -> the two sweeps of reverse mode.

The *primal sweep* runs the function, saving on a tape what the adjoints will
need and the loops and branches will have overwritten; the *adjoint sweep*
walks the program backwards: for each line, in reverse order, the adjoint rule
of its primitive; for a branch, the branch that was taken; for a loop, the
iterations in reverse.

Adjoints come in two kinds.  A variable used only in the block that defines it
gets its adjoint ``d_x`` by one plain assignment (dup form guarantees one use,
so one definition), or is an alias of another adjoint.  A variable used inside
a nested block, and every slot, has an *accumulator*: ``d_x = 0.0`` where the
adjoint sweep enters the defining block, then ``d_x += ...`` per use.

The tape is a list.  Inside a loop, each run of lines pushes the values its
adjoints read, once, at its end; each branch pushes which way it went (before
a ``break`` or ``continue`` too, so the tape stays balanced); a loop whose trip
count is not its ``range`` pushes the count.  The adjoint sweep pops them in
the mirror order.  Outside loops nothing is overwritten and nothing is pushed.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import expr as E
from .. import rules
from ..analysis import values as V
from .checkpoint import Checkpoints
from ..analysis.facts import check_values, mutable_arrays
from ..back.runtime import CHANGES
from ..analysis.activity import active, slots
from ..ir.dup import DUP, value_reads
from ..errors import UnsupportedSyntaxError
from ..ir.nodes import (
    Assign,
    AugAssign,
    Break,
    Const,
    Continue,
    Do,
    Eq,
    For,
    ForS,
    If,
    IfS,
    Return,
    Var,
    While,
    WhileS,
    atom,
    blocks,
    flatten,
    free_names,
    prim_expr,
    primal_stmt,
    range_expr,
    rebuild,
    uses,
    walk,
)


class Sweeps(Checkpoints):
    """Builds both sweeps of one function in dup form; see the module docstring."""

    def __init__(self, facts, active_params: tuple, program, namer, seed=None, split=False):
        fn = facts.fn
        self.fn, self.facts, self.program, self.namer, self.split = fn, facts, program, namer, split
        self.containers = facts.containers
        self.arrays = facts.arrays  # may be arrays: their adjoint code is shape-generic
        self.mutable = mutable_arrays(fn, facts.numeric_arrays)  # written array -> the variable whose adjoint it shares
        containers = self.containers | set(self.mutable)
        self.act = active(fn, active_params, program.outputs_of(facts), containers, facts.shared)
        check_values(facts, self.act)
        self.shadow: dict = {}  # container variable -> its shadow list of adjoints
        self.shared: dict = {}  # dup copy of a container -> the variable whose shadow it shares
        self.alias: dict = {}  # dup copy -> the primal name it reuses
        self.adj: dict = {}  # var name -> adjoint expression (assigned once)
        self.acc: dict = {}  # var name -> accumulator name
        self.zeroes: set = set()  # adjoint names that may still be the number 0.0 (from an accumulator no use added to)
        self.adjoint_names: set = set()
        self.saved: dict = {}  # call equation -> name of its residuals
        self.pushes: dict = {}  # id(first statement of a run) -> names pushed after it
        self.decisions: set = set()  # ids of branches whose direction is pushed
        self.loops: dict = {}  # id(loop) -> (counter or None, names pushed after it)
        self.tapes: dict = {}  # push site -> the name of its tape (one list per site: its entries alike)
        self.checkpointed: dict = {}  # id(loop) -> its checkpointing plan (see checkpoint.py)
        self.frames: list = []  # the adjoint loops being built, outermost first (see rereads)
        self.floor = 0  # the shallowest loop depth a value read again may be hoisted to
        self._analyse()
        self.ct = namer.fresh("ct") if seed is None else None
        if seed is None:
            self.adjoint_names.add(self.ct)
        self.adjoint = self.rev_block(fn.body, False, seed if seed is not None else E.Name(self.ct))
        self.primal = self.fwd_block(fn.body, False, ())
        lists = [p for p in active_params if p in self.containers]
        self.shadow_params = [self.shadow_of(p) for p in lists] if split else []
        # a list parameter not differentiated may still receive active values: it gets a shadow too
        unasked = [p for p in fn.params if p in self.containers and p in self.act and p not in active_params]
        entry = [
            Assign((self.shadow_of(p),), self.zeros(p, E.Name(p)))
            for p in ([] if split else [p for p in lists if p in self.act]) + unasked
        ]
        entry[:0] = [Assign((name,), E.List(())) for name in self.tapes.values()]
        self.primal[:0] = entry
        self.snapshots = {}  # written arrays that are returned: copied before the reverse sweep restores them
        ret = next(s for s in reversed(fn.body) if isinstance(s, Return))
        for a in flatten(ret.value):
            # a returned array may be a written one, or a view of it (u[:], u.reshape(4)): copied either way
            if isinstance(a, Var) and (self.written or self.mutable) and a.name in self.arrays:
                self.snapshots[a.name] = namer.fresh(a.name + "_out")
                self.primal.append(Assign((self.snapshots[a.name],), E.Call("numpy.copy", (self.ref(a),))))
        scalars = [p for p in active_params if not (split and p in self.containers)]
        self.cotangents = [self.cotangent(p) for p in scalars]

    # ---- analysis ---------------------------------------------------------------------

    def _analyse(self) -> None:
        """Where each variable is defined and used; which live in loops; which need accumulators."""
        self.home: dict = {p: id(self.fn.body) for p in self.fn.params}
        self.in_loop: set = set()
        self.targets: set = set()
        used_in: dict = {}

        self.loop_of: dict = {}  # id(block) -> the innermost loop around it (None outside loops)
        self.parent_loop: dict = {}  # id(loop) -> the loop around it
        self.outer_saved: dict = {}  # id(loop) -> values from outside it its adjoint needs: taped once per run
        self.counts_up: dict = {}  # loop target -> whether its loop counts up from a constant >= 0
        self._defined_inside: dict = {}
        self.assigned: set = set()  # names an equation other than a dup assigns
        self._reassigned = None  # the same, dup copies resolved (made on first use)

        def visit(stmts, looped, loop=None):
            self.loop_of[id(stmts)] = loop
            for stmt in stmts:
                for v in value_reads(stmt):
                    used_in.setdefault(v.name, set()).add(id(stmts))
                if isinstance(stmt, Eq) and stmt.prim == DUP:
                    for v in stmt.outs:
                        self.alias[v.name] = self.alias.get(stmt.ins[0].name, stmt.ins[0].name)
                        self.shared[v.name] = self.shared.get(stmt.ins[0].name, stmt.ins[0].name)
                if isinstance(stmt, Eq) and stmt.prim != "write":
                    if stmt.prim != DUP:
                        self.assigned.update(v.name for v in stmt.outs)
                    for v in stmt.outs:
                        self.home[v.name] = id(stmts)
                        if looped:
                            self.in_loop.add(v.name)
                if isinstance(stmt, For):
                    self.home[stmt.target.name] = id(stmt.body)
                    self.targets.add(stmt.target.name)
                    up = all(
                        isinstance(a, Const) and type(a.value) is int and a.value >= low
                        for a, low in ((stmt.start, 0), (stmt.step, 1))
                    )
                    self.counts_up[stmt.target.name] = up and self.counts_up.get(stmt.target.name, True)
                if isinstance(stmt, (For, While)):
                    self.parent_loop[id(stmt)] = loop
                for b in blocks(stmt):
                    # a split sweep returns its residuals, so values a branch may not define go on the tape too
                    visit(
                        b,
                        looped or isinstance(stmt, (For, While)) or self.split,
                        stmt if isinstance(stmt, (For, While)) else loop,
                    )

        visit(self.fn.body, False)
        self.accumulated = {v for v, homes in used_in.items() if homes - {self.home.get(v)}} | set(self.fn.slots)
        self.accumulated -= self.containers
        self.written = {
            eq.ins[0].name
            for eq in walk(self.fn.body)
            if isinstance(eq, Eq)
            and eq.prim == "setitem"
            and isinstance(eq.ins[0], Var)
            and eq.ins[0].name in self.arrays
        }
        self.accumulated |= set(self.mutable)  # cleared and refilled in place: never an alias
        self.rereadable = self._rereadable()
        self.defined_in: dict = {}
        for v, home in self.home.items():
            self.defined_in.setdefault(home, []).append(v)

    def _rereadable(self) -> dict:
        """Values the adjoint sweep can compute again instead of taping them (to-be-recorded analysis:
        only what is overwritten and needed is taped): ``t = xs[i]`` -> ("getitem", xs, i) and
        ``n = len(xs)`` -> ("len", xs), for a list that nothing in the function changes, itself known in
        the adjoint sweep (defined outside loops, or rereadable: rows of a nested list), at an index
        that is known there too (a constant, a value defined outside loops, a loop index, or rereadable).

        A number read at a non-negative index of a list that is only ever appended to is read again
        too: an element, once there, never changes.  Such a list rebound by an enclosing loop (a
        layer's input ``h``, then ``h = out``) is taped itself, once per run of the innermost loop
        around the read, instead of every element it gives (see ``rereads``)."""
        from ..analysis.activity import Classes

        classes = Classes(self.fn, self.containers, self.facts.shared)
        eqs = [e for e in walk(self.fn.body) if isinstance(e, Eq)]

        def touched(prims) -> set:
            return {classes.find(a.name) for e in eqs if e.prim in prims for a in e.ins if isinstance(a, Var)}

        changed = touched(("setitem", "pop", "call", "custom") + CHANGES)
        appended = touched(("append",))
        found: dict = {}

        def known(a) -> bool:
            name = self.alias.get(a.name, a.name) if isinstance(a, Var) else None
            return name is None or name not in self.in_loop or name in self.targets or name in found

        for e in eqs:
            if (
                e.prim not in ("getitem", "len")
                or not isinstance(e.ins[0], Var)
                or e.ins[0].name not in self.containers
            ):
                continue
            xs, out = e.ins[0], e.outs[0].name
            cls = classes.find(xs.name)
            if out in self.arrays or xs.name in self.fn.slots or cls in changed:
                continue
            if cls not in appended and known(xs):
                if e.prim == "len":
                    found[out] = ("len", xs)
                elif known(e.ins[1]):
                    found[out] = ("getitem", xs, e.ins[1])
            elif e.prim == "getitem" and out not in self.containers and self._grown_only(e, xs) and known(e.ins[1]):
                found[out] = ("getitem", xs, e.ins[1])
        return found

    def _grown_only(self, e: Eq, xs: Var) -> bool:
        """Whether ``e``, reading a list only ever appended to, reads an element that stays where it is
        (a non-negative index) of a list object the adjoint sweep can have: one the innermost loop
        around the read does not rebind (taped per run of that loop), in a sweep that is not split
        (a split sweep's caller may change its lists between the two sweeps)."""
        loop = self.loop_of.get(self.home.get(e.outs[0].name))
        if self.split or loop is None or not self._non_negative(e.ins[1]):
            return False
        name = self.alias.get(xs.name, xs.name)
        return name not in self.defined_inside(loop)

    def _non_negative(self, a) -> bool:
        """Whether an index is surely >= 0: a constant, or the target of a loop counting up from one."""
        if isinstance(a, Var):
            name = self.alias.get(a.name, a.name)
            if self._reassigned is None:  # once the dup copies are all known
                self._reassigned = {self.alias.get(v, v) for v in self.assigned}
            return self.counts_up.get(name, False) and name not in self._reassigned
        return type(a.value) is int and a.value >= 0

    def defined_inside(self, loop) -> set:
        """The names (dup copies resolved) a loop's body assigns, however deep, dup copies aside."""
        if id(loop) not in self._defined_inside:
            names = set()
            for s in (s for b in blocks(loop) for s in walk(b)):
                if isinstance(s, Eq) and s.prim != DUP:
                    names.update(self.alias.get(v.name, v.name) for v in s.outs)
                elif isinstance(s, For):
                    names.add(s.target.name)
            self._defined_inside[id(loop)] = names
        return self._defined_inside[id(loop)]

    def reread(self, name: str):
        """How the adjoint sweep computes ``name`` again, or None: (expression, names it needs first)."""
        if name in self.rereadable:
            kind, xs, *index = self.rereadable[name]
            needs = [self.alias.get(a.name, a.name) for a in [xs, *index] if isinstance(a, Var)]
            if kind == "len":
                return E.Call("len", (self.ref(xs),)), needs
            return E.Subscript(self.ref(xs), self.ref(index[0])), needs
        row = next((c for c, d in self.shadow.items() if d == name and c in self.rereadable), None)
        if row is not None and self.rereadable[row][0] == "getitem":  # the shadow of a row: a row of the shadow
            _, xs, index = self.rereadable[row]
            parent = self.shadow_of(xs.name)
            needs = [parent] + ([self.alias.get(index.name, index.name)] if isinstance(index, Var) else [])
            return E.Subscript(E.Name(parent), self.ref(index)), needs
        return None

    def rereads(self, names, out: list) -> list:
        """Assignments computing ``names`` again (what they need first); returns the names left to tape.

        A value that does not change across the iterations of enclosing adjoint loops (its list and
        index are fixed there: a row ``rows[i]`` inside a loop over ``j``) is computed once before the
        outermost such loop (loop-invariant code motion), under a test that the loop runs at all, so
        it is read only when the primal read it too."""
        depth = len(self.frames)

        def level(n) -> int:
            for k in range(depth - 1, -1, -1):
                if self.frames[k]["target"] == n:
                    return k + 1
            if n in self.targets:
                return depth
            if n not in self.in_loop:
                return 0
            if self.reread(n) is not None:
                return emit(n)
            if n not in taped:  # a list only appended to, rebound by an enclosing loop: taped itself
                taped.append(n)
            return depth

        def emit(n) -> int:
            value, needs = self.reread(n)
            at = max([self.floor] + [level(m) for m in needs])
            frame = self.frames[at] if at < depth else self.segment
            if n not in frame["names"]:
                frame["names"].add(n)
                (frame["hoisted"] if at < depth else out).append(Assign((n,), value))
            return at

        self.segment = {"names": set()}
        taped = [n for n in names if self.reread(n) is None]
        for n in names:
            if n not in taped:
                level(n)
        return taped

    # ---- adjoint sweep ----------------------------------------------------------------

    def fresh_adjoint(self, base: str) -> str:
        name = self.namer.fresh(base)
        self.adjoint_names.add(name)
        return name

    def shadow_of(self, name: str) -> str:
        """The name of a container's shadow: a list of the adjoints of its elements, built in the primal sweep."""
        name = self.shared.get(name, name)
        if name not in self.shadow:
            self.shadow[name] = self.namer.fresh("d_" + name)
            if name in self.in_loop:
                self.in_loop.add(self.shadow[name])
        return self.shadow[name]

    def zeros(self, name: str, value: E.Expr) -> E.Expr:
        """A shadow of zeros for the list ``value`` (held by ``name``), written out from its abstract
        value where that says it holds lists and numbers only (``[0.0] * len(xs)``,
        ``[[0.0] * len(r) for r in rows]``), else the helper that walks it."""
        aval = self.facts.avals.get(name)
        if _lists_of_numbers(aval):
            return self._zeros_of(aval, value)
        return E.Call(self.program.helper("zeros_like"), (value,))

    def _zeros_of(self, aval: V.Seq, value: E.Expr) -> E.Expr:
        if _numbers_only(aval):
            return E.BinOp("*", E.List((E.Num(0.0),)), E.Call("len", (value,)))
        row = self.namer.fresh("row")
        return E.ListComp(self._zeros_of(aval.elem, E.Name(row)), row, value)

    def cotangent(self, p: str) -> E.Expr:
        if p in self.containers:
            aval = self.facts.avals.get(p, V.TOP)
            shadow = E.Name(self.shadow_of(p)) if p in self.act else self.zeros(p, E.Name(p))
            if _numbers_only(aval) and aval.kind == "tuple":
                return E.Call("tuple", (shadow,))
            if _lists_of_numbers(aval):  # the shadow is the cotangent
                return shadow
            like = "like_arrays" if V.leaves_may_be_arrays(aval) else "like"
            return E.Call(self.program.helper(like), (shadow, E.Name(p)))
        if p in self.arrays:
            d = self.adjoint_of(p)
            aval = self.facts.avals.get(p)
            float64 = isinstance(aval, V.Arr) and aval.dtype == "float64" and aval.ndim != 0  # 0-D: not a NumPy scalar
            if isinstance(d, E.Name) and d.id not in self.zeroes and float64:
                return d  # surely an array of p's shape (and dtype) already
            return E.Call("@array_like", (d or E.Num(0.0), E.Name(p)))
        if self.adjoint_of(p) is None and p not in self.act:  # unused: a zero shaped like whatever was passed
            return E.Call("@zeros_like", (E.Name(p),))
        d = self.adjoint_of(p) or E.Num(0.0)
        aval = self.facts.avals.get(p)
        if isinstance(aval, V.Num) and aval.dtype not in ("float", "int", "bool"):  # a NumPy float32: its type
            return E.Call(f"numpy.{aval.dtype}", (d,))
        return d

    def adjoint_of(self, name: str):
        return E.Name(self.acc[name]) if name in self.acc else self.adj.get(name)

    def contribute(self, var, c, line: int, out: list, copy: bool = False) -> None:
        """Add ``c`` to the adjoint of ``var``: accumulate, or define it (once).  A list read as an array
        (``np.dot(w, xs)``, or a slot holding a list, then arrays) gets the cotangent in its shadow."""
        if c is None or not isinstance(var, Var) or var.name not in self.act:
            return
        if var.name in self.containers:
            shadow = E.Name(self.shadow_of(var.name))
            out.append(Do(E.Call(self.program.helper("add_into"), (shadow, c)), line))
            return
        if var.name in self.acc:
            if var.name in self.arrays:  # never in place: the adjoint array may be shared
                out.append(Assign((self.acc[var.name],), E.Name(self.acc[var.name]) + c, line))
            else:
                out.append(AugAssign(self.acc[var.name], "+", c, line))
            return
        assert var.name not in self.adj, f"{var.name} used twice in dup form"
        if isinstance(c, (E.Name, E.Num)) and not copy:
            self.adj[var.name] = c
        else:
            self.adj[var.name] = E.Name(self.fresh_adjoint("d_" + var.name))
            out.append(Assign((self.adj[var.name].id,), c, line))
        shaped = isinstance(c, E.Call) and c.func in ("@unbroadcast", "@array_like")  # an array of var's shape
        if not shaped and any(n in self.zeroes for n in free_names([Do(c)])):
            self.zeroes.add(self.adj[var.name].id)

    def alias_atom(self, a):
        """An atom with dup copies replaced by the name they reuse."""
        return Var(self.alias.get(a.name, a.name)) if isinstance(a, Var) else a

    def ref(self, a) -> E.Expr:
        if isinstance(a, Var):
            return E.Name(self.alias.get(a.name, a.name))
        return atom(a)

    def tape(self, site) -> E.Name:
        """The tape of one push site (a run of lines, a branch, a loop, an array write): a list whose
        entries are all alike, popped by the site's adjoint in reverse order."""
        if site not in self.tapes:
            self.tapes[site] = self.namer.fresh("tape")
        return E.Name(self.tapes[site])

    def pop(self, names: list, site) -> Assign:
        target = names[0] if len(names) == 1 else tuple(names)
        return Assign((target,), E.Method(self.tape(site), "pop", ()))

    def rev_block(self, stmts, looped: bool, seed=None) -> list:
        out = []
        for v in self.defined_in.get(id(stmts), []) + (sorted(self.fn.slots) if stmts is self.fn.body else []):
            if v in self.accumulated and v in self.act and v not in self.acc and self.mutable.get(v, v) == v:
                self.acc[v] = self.fresh_adjoint("d_" + v)
                self.zeroes.add(self.acc[v])
                out.append(Assign((self.acc[v],), E.Num(0.0)))
                for member, rep in self.mutable.items():  # one object, one adjoint array
                    if rep == v:
                        self.acc[member] = self.acc[v]
        for seg in reversed(_segments(stmts)):
            if isinstance(seg, list):
                code = [line for eq in reversed(seg) for line in self.rev_eq(eq)]
                if looped:
                    saved = [
                        n
                        for n in free_names(code)
                        if n in self.in_loop and n not in self.adjoint_names and n not in self.targets
                    ]
                    rereads: list = []
                    saved = [n for n in self.rereads(saved, rereads) if not self.taped_outside(n, stmts)]
                    if saved:
                        self.pushes[id(seg[0])] = saved
                        out.append(self.pop(saved, ("run", id(seg[0]))))
                    out.extend(rereads)
                out.extend(code)
            elif isinstance(seg, Return):
                leaves = flatten(seg.value)
                if not isinstance(seg.value, tuple):
                    self.seed(seg.value, seed, seg.line, out)
                    continue
                names = [
                    (
                        self.fresh_adjoint("ct_" + a.name)
                        if isinstance(a, Var) and a.name in self.act
                        else self.program.discard
                    )
                    for a in leaves
                ]
                if any(n != self.program.discard for n in names):
                    out.append(Assign((rebuild(seg.value, iter(names)),), seed, seg.line))
                for a, n in zip(leaves, names, strict=True):
                    if n != self.program.discard:
                        self.seed(a, E.Name(n), seg.line, out)
            elif isinstance(seg, If):
                looped_here = looped or self.split
                floor, self.floor = self.floor, len(self.frames)  # a branch's reads stay inside it
                body, orelse = self.rev_block(seg.body, looped_here), self.rev_block(seg.orelse, looped_here)
                self.floor = floor
                if body or orelse:
                    if looped_here:
                        self.decisions.add(id(seg))
                    test = E.Method(self.tape(("branch", id(seg))), "pop", ()) if looped_here else self.ref(seg.test)
                    out.append(IfS(test, tuple(body), tuple(orelse), seg.line))
            elif isinstance(seg, (For, While)):
                out.extend(self.rev_loop(seg, looped))
        return out

    def taped_outside(self, name: str, stmts) -> bool:
        """Whether ``name``, needed by the adjoint of a run of lines in ``stmts``, is defined outside the
        innermost loop around them (in an enclosing loop's body): then the loop just inside its home
        tapes it once, after that loop runs, instead of every iteration taping it again."""
        inner = self.loop_of.get(id(stmts))
        home = self._home_of(name)
        if inner is None or home is None or home not in self.loop_of:
            return False
        outer = self.loop_of[home]
        if inner is outer:
            return False
        loop = inner
        while self.parent_loop.get(id(loop)) is not outer:
            loop = self.parent_loop.get(id(loop))
            if loop is None:
                return False
        found = self.outer_saved.setdefault(id(loop), [])
        if name not in found:
            found.append(name)
        return True

    def _home_of(self, name: str):
        """The block that defines ``name``: a value's, or for a shadow list that of its list."""
        if name in self.home:
            return self.home[name]
        owner = next((c for c, d in self.shadow.items() if d == name), None)
        return self.home.get(owner) if owner is not None else None

    def seed(self, a, ct, line: int, out: list) -> None:
        """The output cotangent flows into a returned value (added into a returned list's shadow; a
        number given to vjp for a returned array is that number in every entry, like a tangent 0 in jvp;
        grad seeds 1.0 into the scalar output it needs)."""
        if isinstance(a, Var) and a.name in self.arrays and self.ct is not None and not self.split:
            ct = E.Call("@array_like", (ct, self.ref(a)))
        if isinstance(a, Var) and a.name in self.arrays and self.split and isinstance(ct, E.Name):
            self.zeroes.add(ct.id)  # a caller that used only another output passes the number 0.0 for this one
        if isinstance(a, Var) and a.name in self.containers:
            if a.name in self.act and not self.split:  # a caller adds into the shadow a split sweep returns
                out.append(Do(E.Call(self.program.helper("add_into"), (E.Name(self.shadow_of(a.name)), ct)), line))
            return
        self.contribute(a, ct, line, out)

    def rev_loop(self, loop, looped: bool) -> list:
        frame = {"target": loop.target.name if isinstance(loop, For) else None, "hoisted": [], "names": set()}
        floor = self.floor
        if isinstance(loop, While) or any(_jumps(s) for s in loop.body if isinstance(s, If)):
            self.floor = len(self.frames) + 1  # an iteration may stop early: nothing is hoisted out of it
        self.frames.append(frame)
        body = self.rev_block(loop.body, True)
        self.frames.pop()
        self.floor = floor
        if not body:
            return []
        counter = None
        if isinstance(loop, While) or _breaks(loop.body):
            counter = self.namer.fresh("n_" + (loop.target.name if isinstance(loop, For) else "iter"))
        if isinstance(loop, For):
            start, stop, step = (self.ref(a) for a in (loop.start, loop.stop, loop.step))
            if counter:  # the iterations that ran: start, start + step, ... (count of them)
                stop = E.Name(counter) if start == E.Num(0) and step == E.Num(1) else start + E.Name(counter) * step
            args = (
                (stop,)
                if start == E.Num(0) and step == E.Num(1)
                else (start, stop) if step == E.Num(1) else (start, stop, step)
            )
            iterable = E.Call("reversed", (E.Call("range", args),))
            target = loop.target.name
            needed = [
                self.alias.get(a.name, a.name)  # the name the code uses for it
                for a in (loop.start, loop.step) + (() if counter else (loop.stop,))
                if isinstance(a, Var) and self.alias.get(a.name, a.name) in self.in_loop
            ]
        else:
            iterable, target, needed = E.Call("range", (E.Name(counter),)), self.program.discard, []
        rereads: list = []
        needed += [n for n in self.outer_saved.get(id(loop), []) if n not in needed]
        saved = ([counter] if counter else []) + self.rereads(needed, rereads) if looped else []
        self.loops[id(loop)] = (counter, saved)
        already = self.segment["names"] if looped else set()
        hoisted = [a for a in frame["hoisted"] if a.targets[0] not in already]
        guard = None
        if hoisted:  # values the loop's iterations share, read once if it runs at all
            guard = _nonempty(iterable.args[0].args if isinstance(loop, For) else iterable.args)
        popped = [self.pop(saved, ("loop", id(loop)))] if saved else []
        wanted = not counter and getattr(self.program, "checkpoint", None)
        plan = self.checkpoint_plan(loop, body, self.fwd_block(loop.body, True, ())) if wanted else None
        if plan:
            plan["looped"] = looped
            snapshots = [self.pop([plan["snapshots"]], ("snapshots", id(loop)))] if looped else []
            return (
                popped
                + snapshots
                + rereads
                + _guarded(guard, hoisted, self.rev_checkpointed(loop, plan, body, self.fwd_block(loop.body, True, ())))
            )
        return popped + rereads + _guarded(guard, hoisted, [ForS(target, iterable, tuple(body), loop.line)])

    def rev_eq(self, eq: Eq) -> list:
        out: list = []
        if eq.prim in HELPERS:
            return self.helper_adjoint(eq)
        if eq.prim == "write":
            slot = eq.outs[0].name
            if slot in self.acc:
                self.contribute(eq.ins[0], E.Name(self.acc[slot]), eq.line, out, copy=True)
                out.append(Assign((self.acc[slot],), E.Num(0.0), eq.line))
            return out
        if eq.prim == "getitem" and isinstance(eq.ins[0], Var) and eq.ins[0].name in self.arrays:
            return self.array_getitem_adjoint(eq)
        if eq.prim == "setitem" and isinstance(eq.ins[0], Var) and eq.ins[0].name in self.arrays:
            return self.array_setitem_adjoint(eq)
        if eq.prim in CONTAINER_ADJOINTS:
            return self.container_adjoint(eq)
        if eq.prim == "call":
            if self.touches(eq):
                self.call_adjoint(eq, out)
            return out
        if eq.prim == "custom":
            return self.custom_adjoint(eq)
        if any(v.name in self.containers for v in eq.outs):
            return out
        gs = [self.adjoint_of(v.name) for v in eq.outs]
        mask = self.mask(eq)
        if all(g is None for g in gs) or not any(mask):
            return out
        if eq.prim in (DUP, "read") and eq.ins[0].name in self.mutable:
            return out  # the same array object: its adjoint is already shared
        if eq.prim in (DUP, "read"):
            self.contribute(eq.ins[0], E.sum_exprs(gs), eq.line, out)
        else:
            args = [self.ref(a) for a in eq.ins]
            z = eq.outs[0].name
            prim = rules.ARRAY_VARIANTS.get(eq.prim, eq.prim) if z in self.arrays else eq.prim
            g = gs[0]
            maybe_number = g == E.Num(0.0) if isinstance(g, E.Num) else g.id in self.zeroes  # not grad's seed 1.0
            if z in self.arrays and maybe_number and prim not in rules.PARTIALS and prim not in BROADCASTING:
                g = E.Call("@array_like", (g, E.Name(z)))  # still the number 0.0 if no use of z ran: give it z's shape
            for a, c in zip(eq.ins, self._merged(eq.ins, rules.vjp(prim, args, E.Name(z), g, list(mask))), strict=True):
                self.contribute(a, self.unbroadcast(eq, a, c), eq.line, out)
        return out

    def _merged(self, ins, cotangents: list) -> list:
        """Equal cotangents of two copies of one value (``x * x``) sent to the first as one term, 2 * c."""
        cotangents = list(cotangents)
        for i, j in ((0, 1),) if len(ins) == 2 else ():
            a, b = ins[i], ins[j]
            same = (
                isinstance(a, Var)
                and isinstance(b, Var)
                and self.alias.get(a.name, a.name) == self.alias.get(b.name, b.name)
            )
            if same and cotangents[i] is not None and cotangents[i] == cotangents[j]:
                cotangents[i], cotangents[j] = E.mul(E.Num(2), cotangents[i]), None
        return cotangents

    def unbroadcast(self, eq: Eq, a, c):
        """An array result's cotangent, summed back to the shape of an argument NumPy broadcast."""
        if c is None or eq.prim not in BROADCASTING or eq.outs[0].name not in self.arrays or not isinstance(a, Var):
            return c
        if a.name in self.arrays:
            return E.Call("@unbroadcast", (c, self.ref(a)))
        if a.name in self.containers:  # a list NumPy read as an array
            return E.Call("@unbroadcast", (c, E.Call("numpy.asarray", (self.ref(a),))))
        return E.Call("numpy.sum", (c,))

    def array_setitem_adjoint(self, eq: Eq) -> list:
        """``x[index] = v`` of an array: v's cotangent is what x[index] had, which is then cleared;
        the overwritten values come back from the tape so earlier adjoints see the array as it was."""
        x, index, v = eq.ins
        out: list = []
        pieces = self.namer.fresh("d_" + x.name + "_part")
        if x.name in self.acc:
            d = self.acc[x.name]
            out.append(
                Assign(((d, pieces),), E.Call("@take_and_clear", (E.Name(d), self.ref(x), self.ref(index))), eq.line)
            )
            self.contribute(v, self.unbroadcast_to(E.Name(pieces), v), eq.line, out)
        popped = E.Method(self.tape(("write", id(eq))), "pop", ())
        out.append(Assign((E.Subscript(self.ref(x), self.ref(index)),), popped, eq.line))
        return out

    def unbroadcast_to(self, c, a):
        """``c`` summed down to the shape of the value ``a`` (a number or an array)."""
        if not isinstance(a, Var):
            return c
        if a.name in self.arrays:
            return E.Call("@unbroadcast", (c, self.ref(a)))
        if a.name in self.containers:  # a list NumPy read as an array
            return E.Call("@unbroadcast", (c, E.Call("numpy.asarray", (self.ref(a),))))
        return E.Call("numpy.sum", (c,))

    def array_getitem_adjoint(self, eq: Eq) -> list:
        """``x[index]`` of an array: the cotangent is scattered back, repeated indices adding up."""
        out: list = []
        g = self.adjoint_of(eq.outs[0].name)
        x = eq.ins[0]
        if g is None or not (isinstance(x, Var) and x.name in self.act):
            return out
        current = E.Name(self.acc[x.name]) if x.name in self.acc else E.Num(0.0)
        value = E.Call("@scatter_add", (current, self.ref(x), self.ref(eq.ins[1]), g))
        if x.name in self.acc:
            out.append(Assign((self.acc[x.name],), value, eq.line))
        else:
            self.contribute(x, value, eq.line, out)
        return out

    def helper_adjoint(self, eq: Eq) -> list:
        """Adjoints of the runtime helpers, when derivative code is itself differentiated."""
        if eq.prim in ("like", "like_arrays") and eq.outs[0].name in self.act and eq.ins[0].name in self.act:
            return [
                Do(
                    E.Call(
                        self.program.helper("add_into"),
                        (E.Name(self.shadow_of(eq.ins[0].name)), E.Name(self.shadow_of(eq.outs[0].name))),
                    ),
                    eq.line,
                )
            ]
        if eq.prim in ("add_into", "add_scalars_into") and all(
            isinstance(a, Var) and a.name in self.act for a in eq.ins
        ):
            acc, src = (E.Name(self.shadow_of(a.name)) for a in eq.ins)
            return [Do(E.Call(self.program.helper(eq.prim), (src, acc)), eq.line)]
        if eq.prim == "add_slice_into" and all(isinstance(a, Var) and a.name in self.act for a in eq.ins[:2]):
            acc, src = (E.Name(self.shadow_of(a.name)) for a in eq.ins[:2])  # part's adjoint: acc's at index
            return [Do(E.Call(self.program.helper("add_into"), (src, E.Subscript(acc, self.ref(eq.ins[2])))), eq.line)]
        return []

    def scalar(self, a) -> bool:
        return isinstance(a, Var) and a.name in self.act and a.name not in self.containers

    def container_adjoint(self, eq: Eq) -> list:
        """Adjoints of list primitives: element adjoints live in the shadow lists."""
        out: list = []
        if eq.prim == "list_concat":
            return self.concat_adjoint(eq)
        target = eq.ins[0] if eq.prim in ("setitem", "append", "getitem", "sum", "list_copy", "pop") else eq.outs[0]
        if not isinstance(target, Var) or target.name not in self.act:
            return out
        d = E.Name(self.shadow_of(target.name))
        if eq.prim == "getitem" and V.is_slice(self.facts.of(eq.ins[1])):  # xs[a:b]: a new list of xs's elements
            if eq.outs[0].name in self.act:
                part = E.Name(self.shadow_of(eq.outs[0].name))
                out.append(Do(E.Call(self.program.helper("add_slice_into"), (d, part, self.ref(eq.ins[1]))), eq.line))
        elif eq.prim == "getitem" and self.scalar(eq.outs[0]) and self.adjoint_of(eq.outs[0].name) is not None:
            out.append(AugAssign(E.Subscript(d, self.ref(eq.ins[1])), "+", self.adjoint_of(eq.outs[0].name), eq.line))
        elif (
            eq.prim == "setitem"
            and eq.ins[2] not in ()
            and not (isinstance(eq.ins[2], Var) and eq.ins[2].name in self.containers)
        ):
            element = E.Subscript(d, self.ref(eq.ins[1]))
            self.contribute(eq.ins[2], element, eq.line, out, copy=True)
            out.append(Assign((element,), E.Num(0.0), eq.line))
        elif eq.prim == "pop":  # the element goes back, with its adjoint
            element = (
                self.shadow_value(eq.outs[0])
                if eq.outs[0].name in self.containers
                else self.adjoint_of(eq.outs[0].name)
            )
            out.append(Do(E.Method(d, "append", (element if element is not None else E.Num(0.0),)), eq.line))
        elif eq.prim == "append":
            popped = E.Method(d, "pop", ())
            if self.scalar(eq.ins[1]):
                self.contribute(eq.ins[1], popped, eq.line, out, copy=True)
            else:
                out.append(Do(popped, eq.line))
        elif eq.prim in ("list", "tuple"):
            for k, a in enumerate(eq.ins):
                if self.scalar(a):
                    self.contribute(a, E.Subscript(d, E.Num(k)), eq.line, out, copy=True)
        elif eq.prim == "list_repeat" and self.scalar(eq.ins[0]):
            self.contribute(eq.ins[0], E.Call("sum", (d,)), eq.line, out)
        elif eq.prim == "list_times" and eq.ins[0].name in self.act:
            source = E.Name(self.shadow_of(eq.ins[0].name))
            out.append(Do(E.Call(self.program.helper("add_tiled_into"), (source, d)), eq.line))
        elif eq.prim == "list_copy" and eq.outs[0].name in self.act:
            out.append(
                Do(
                    E.Call(self.program.helper("add_scalars_into"), (d, E.Name(self.shadow_of(eq.outs[0].name)))),
                    eq.line,
                )
            )
        elif eq.prim == "sum" and self.adjoint_of(eq.outs[0].name) is not None:
            k = self.namer.fresh("k")
            body = (AugAssign(E.Subscript(d, E.Name(k)), "+", self.adjoint_of(eq.outs[0].name), eq.line),)
            out.append(ForS(k, E.Call("range", (E.Call("len", (d,)),)), body, eq.line))
        return out

    def concat_adjoint(self, eq: Eq) -> list:
        """``u = a + b`` of lists: u's number adjoints go back to a's (from the start) and b's (after a's)."""
        out: list = []
        if eq.outs[0].name not in self.act:
            return out
        whole = E.Name(self.shadow_of(eq.outs[0].name))
        a, b = eq.ins
        for part, start in ((a, E.Num(0)), (b, None)):
            if isinstance(part, Var) and part.name in self.act:
                d = E.Name(self.shadow_of(part.name))
                if start is None:  # the shadows have their lengths of then: lists grown since have been popped
                    start = E.BinOp("-", E.Call("len", (whole,)), E.Call("len", (d,)))
                out.append(Do(E.Call(self.program.helper("add_part_into"), (d, whole, start)), eq.line))
        return out

    def call_adjoint(self, eq: Eq, out: list) -> None:
        """``d_a, d_b = g_reverse_sweep(g_res, ct)`` for a differentiated call.

        Lists a callee reads or fills have their shadows passed in the primal
        sweep, so only number arguments get cotangents back here.
        """
        mask = self.mask(eq)
        gs = [None if v.name in self.containers else self.adjoint_of(v.name) for v in eq.outs]
        shape = self.program.shape(eq.param)
        ct = _expr(rebuild(shape, iter(g if g is not None else E.Num(0.0) for g in gs)))
        sig = self.facts.call_sig(eq)
        as_list = [V.is_seq(a) for a in sig.avals]  # list arguments: their shadows are passed in the primal sweep
        scalars = [a for a, on, lst in zip(eq.ins, mask, as_list, strict=True) if on and not lst]
        names = [self.fresh_adjoint("d_" + a.name) for a in scalars]
        call = E.Call(self.program.reverse_sweep(eq.param, mask, sig), (E.Name(self.saved_name(eq)), ct))
        if not names:
            out.append(Do(call, eq.line))
            return
        out.append(Assign((names[0] if len(names) == 1 else tuple(names),), call, eq.line))
        for a, n in zip(scalars, names, strict=True):
            self.contribute(a, E.Name(n), eq.line, out)

    def custom_adjoint(self, eq: Eq) -> list:
        """``d_a, d_b = rule_vjp(a, b, d_y)`` for a function with a user-supplied rule."""
        out: list = []
        g = self.adjoint_of(eq.outs[0].name)
        mask = self.mask(eq)
        if g is None or not any(mask):
            return out
        vjp = rules.CUSTOM[eq.param][1]
        if vjp is None:
            raise TypeError(
                f"{eq.param.__name__} has a jvp rule but no vjp rule: reverse mode needs defrule(..., vjp=...)"
            )
        names = [
            self.fresh_adjoint("d_" + a.name) if on else self.program.discard
            for a, on in zip(eq.ins, mask, strict=True)
        ]
        call = E.Call(self.program.primal_name(vjp), tuple(self.ref(a) for a in eq.ins) + (g,))
        out.append(Assign((tuple(names),), call, eq.line))
        for a, n in zip(eq.ins, names, strict=True):
            if n != self.program.discard:
                self.contribute(a, E.Name(n), eq.line, out)
        return out

    def touches(self, eq: Eq) -> bool:
        """Whether a call needs differentiating: it has active inputs and active outputs or list arguments."""
        mask = self.mask(eq)
        lists = any(on and a.name in self.containers for a, on in zip(eq.ins, mask, strict=True))
        return any(mask) and (lists or any(v.name in self.act for v in eq.outs))

    def saved_name(self, eq: Eq) -> str:
        if eq not in self.saved:
            self.saved[eq] = self.namer.fresh(f"{eq.param.__name__}_res")
            if any(eq.outs[0].name in s for s in (self.in_loop,)):
                self.in_loop.add(self.saved[eq])
        return self.saved[eq]

    def mask(self, eq: Eq) -> tuple:
        return tuple(isinstance(a, Var) and a.name in self.act and s for a, s in zip(eq.ins, slots(eq), strict=True))

    # ---- primal sweep -----------------------------------------------------------------

    def push(self, values, site) -> Do:
        value = values[0] if len(values) == 1 else E.Tuple(tuple(values))
        return Do(E.Method(self.tape(site), "append", (value,)))

    def fwd_block(self, stmts, looped: bool, exits: tuple) -> list:
        """The primal code of a block with its pushes; ``exits`` are pushes owed before a jump out of it."""
        out = []
        for seg in _segments(stmts):
            if isinstance(seg, list):
                for eq in seg:
                    out.extend(self.primal_eq(eq))
                if id(seg[0]) in self.pushes:
                    out.append(self.push([E.Name(n) for n in self.pushes[id(seg[0])]], ("run", id(seg[0]))))
            elif isinstance(seg, If):
                owed = exits if _jumps(seg) else ()  # a branch that jumps out pays the enclosing block's pushes first
                if id(seg) in self.decisions:
                    branches = [
                        self.fwd_block(b, looped, (self.push([E.Num(d)], ("branch", id(seg))),) + owed)
                        for b, d in ((seg.body, True), (seg.orelse, False))
                    ]
                else:
                    branches = [self.fwd_block(b, looped, owed) for b in (seg.body, seg.orelse)]
                out.append(IfS(self.ref(seg.test), tuple(branches[0]), tuple(branches[1]), seg.line))
                if _jumps(seg):
                    return out
            elif isinstance(seg, (For, While)):
                out.extend(self.fwd_loop(seg))
            elif isinstance(seg, (Break, Continue)):
                return out + list(exits) + [seg]
        return out + list(exits)

    def fwd_loop(self, loop) -> list:
        counter, saved = self.loops.get(id(loop), (None, []))
        plan = self.checkpointed.get(id(loop))
        if plan:
            code = self.fwd_checkpointed(loop, plan, self.fwd_block(loop.body, True, ()))
            if plan["looped"]:  # each run of the loop has its own snapshots
                code.append(self.push([E.Name(plan["snapshots"])], ("snapshots", id(loop))))
            return code + ([self.push([E.Name(n) for n in saved], ("loop", id(loop)))] if saved else [])
        count = [AugAssign(counter, "+", E.Num(1), loop.line)] if counter else []
        body = tuple(count + self.fwd_block(loop.body, True, ()))
        if isinstance(loop, For):
            bounds = For(loop.target, *(self.alias_atom(a) for a in (loop.start, loop.stop, loop.step)), (), loop.line)
            stmt = ForS(loop.target.name, range_expr(bounds), body, loop.line)
        else:
            stmt = WhileS(tuple(self.fwd_block(loop.header, True, ())), self.ref(loop.test), body, loop.line)
        init = [Assign((counter,), E.Num(0), loop.line)] if counter else []
        return init + [stmt] + ([self.push([E.Name(n) for n in saved], ("loop", id(loop)))] if saved else [])

    def primal_eq(self, eq: Eq) -> list:
        if eq.prim == DUP:
            return []
        args = tuple(self.ref(a) for a in eq.ins)
        if eq.prim == "call" and eq in self.saved:
            mask = self.mask(eq)
            value = rebuild(self.program.shape(eq.param), iter(v.name for v in eq.outs))
            sig = self.facts.call_sig(eq)
            as_list = [V.is_seq(a) for a in sig.avals]
            shadows = tuple(
                E.Name(self.shadow_of(a.name))
                for a, on, lst in zip(eq.ins, mask, as_list, strict=True)
                if on and a.name in self.containers and lst
            )
            returned = tuple(self.shadow_of(v.name) for v in eq.outs if v.name in self.containers)
            sweep = self.program.forward_sweep(eq.param, mask, sig)
            targets = (value, returned, self.saved[eq]) if returned else (value, self.saved[eq])
            return [Assign(targets, E.Call(sweep, args + shadows), eq.line)]
        primal = primal_stmt(Eq(eq.outs, eq.prim, args_to_atoms(args), eq.line, eq.param), self.program.primal_name)
        if isinstance(primal, Assign) and self.facts.may_raise(eq):
            primal = replace(primal, effect=True)
        if eq.prim == "call":  # not differentiated (its arguments are constants): a list it returns that gets
            shadows = [  # active values afterwards (u = h([0.0, 0.0]); u[1] = x) starts with zero adjoints
                Assign((self.shadow_of(v.name),), self.zeros(v.name, E.Name(v.name)), eq.line)
                for v in eq.outs
                if v.name in self.containers and v.name in self.act
            ]
            return [primal] + shadows
        if eq.prim == "setitem" and isinstance(eq.ins[0], Var) and eq.ins[0].name in self.arrays:
            old = E.Call("numpy.copy", (E.Subscript(args[0], args[1]),))
            return [Do(E.Method(self.tape(("write", id(eq))), "append", (old,)), eq.line), primal]
        return [primal] + self.shadow_code(eq, args)

    def shadow_code(self, eq: Eq, args) -> list:
        """Keep shadow lists shaped like their lists: built, stored, appended and copied alongside."""
        names = [v.name for v in eq.outs]
        if eq.prim == "pop" and isinstance(eq.ins[0], Var) and eq.ins[0].name in self.act:
            popped = E.Method(E.Name(self.shadow_of(eq.ins[0].name)), "pop", ())
            if eq.outs[0].name in self.containers and eq.outs[0].name in self.act:
                return [Assign((self.shadow_of(eq.outs[0].name),), popped, eq.line)]
            return [Do(popped, eq.line)]
        if eq.prim in ("setitem", "append"):
            xs = eq.ins[0]
            if not (isinstance(xs, Var) and xs.name in self.act):
                return []
            d = E.Name(self.shadow_of(xs.name))
            value = self.shadow_value(eq.ins[-1])
            if eq.prim == "append":
                return [Do(E.Method(d, "append", (value,)), eq.line)]
            return (
                [Assign((E.Subscript(d, args[1]),), value, eq.line)]
                if isinstance(eq.ins[2], Var) and eq.ins[2].name in self.containers
                else []
            )
        if not names or names[0] not in self.containers or names[0] not in self.act:
            return []
        out = self.shadow_of(names[0])
        if eq.prim in ("zeros_like", "like", "like_arrays"):
            value = self.zeros(names[0], E.Name(names[0]))
        elif eq.prim in ("list", "tuple"):
            value = E.List(tuple(self.shadow_value(a) for a in eq.ins))
        elif eq.prim == "list_repeat":  # [r] * n repeats r itself: its shadow repeats r's shadow
            value = E.BinOp("*", E.List((self.shadow_value(eq.ins[0]),)), args[1])
        elif eq.prim == "list_concat":  # a new list of both lists' elements: a new shadow of both shadows'
            value = E.BinOp("+", *(self.shadow_of_list(a) for a in eq.ins))
        elif eq.prim == "list_times":
            value = E.BinOp("*", self.shadow_of_list(eq.ins[0]), args[1])
        elif eq.prim == "list_copy":  # a copy of a list whose elements are constants starts with zero adjoints
            source = eq.ins[0].name
            value = (
                E.Call("list", (E.Name(self.shadow_of(source)),)) if source in self.act else self.zeros(source, args[0])
            )
        elif eq.prim == "getitem":
            value = E.Subscript(E.Name(self.shadow_of(eq.ins[0].name)), args[1])
        elif eq.prim in ("read", "write"):
            value = E.Name(self.shadow_of(eq.ins[0].name))
        else:
            return []
        return [Assign((out,), value, eq.line)]

    def shadow_of_list(self, a) -> E.Expr:
        """The shadow of a list operand: its own, or zeros shaped like it where it is constant."""
        if isinstance(a, Var) and a.name in self.act:
            return E.Name(self.shadow_of(a.name))
        return (
            self.zeros(a.name, self.ref(a))
            if isinstance(a, Var)
            else E.Call(self.program.helper("zeros_like"), (self.ref(a),))
        )

    def shadow_value(self, a) -> E.Expr:
        """What a shadow list holds for a stored value: its shadow if it is a list, else a zero adjoint."""
        if isinstance(a, Var) and a.name in self.containers:
            if a.name in self.act:
                return E.Name(self.shadow_of(a.name))
            return self.zeros(a.name, E.Name(a.name))
        return E.Num(0.0)

    def value(self) -> E.Expr:
        ret = next(s for s in reversed(self.fn.body) if isinstance(s, Return))
        refs = (
            E.Name(self.snapshots[a.name]) if isinstance(a, Var) and a.name in self.snapshots else self.ref(a)
            for a in flatten(ret.value)
        )
        return _expr(rebuild(ret.value, iter(refs)))


HELPERS = ("zeros_like", "like", "like_arrays", "reject_ints") + CHANGES
BROADCASTING = ("add", "sub", "mul", "truediv", "pow", "mod", "numpy.arctan2", "numpy.hypot", "numpy.power")
BROADCASTING += ("numpy.logaddexp", "numpy.maximum", "numpy.minimum", "numpy.where", "numpy.clip")
BROADCASTING += ("numpy.add", "numpy.subtract", "numpy.multiply", "numpy.divide", "numpy.true_divide")
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


def _lists_of_numbers(aval) -> bool:
    """Whether a value is a list (or a list of lists, ...) of numbers, read by position only where
    its elements are alike: its shadow is its cotangent."""
    if not isinstance(aval, V.Seq) or aval.kind == "tuple" and not _numbers_only(aval):
        return False
    if _numbers_only(aval):
        return True
    return aval.items is None and aval.kind == "list" and _lists_of_numbers(aval.elem)


def _numbers_only(aval) -> bool:
    """Whether a list's every element is a number (its shadow a flat list of number adjoints)."""
    if not isinstance(aval, V.Seq):
        return False
    return all(isinstance(a, V.Num) for a in (aval.items if aval.items is not None else (aval.elem,)))


def args_to_atoms(args) -> tuple:
    """Expressions of references back to atoms (after dup copies were renamed)."""
    return tuple(Var(a.id) if isinstance(a, E.Name) else _const(a) for a in args)


def _const(e):
    from ..ir.nodes import Const

    return Const(e.value, e.text)


def _segments(stmts) -> list:
    """Runs of equations (lists) and single other statements, in order."""
    out: list = []
    for stmt in stmts:
        if isinstance(stmt, Eq):
            if out and isinstance(out[-1], list):
                out[-1].append(stmt)
            else:
                out.append([stmt])
        else:
            out.append(stmt)
    return out


def _jumps(stmt) -> bool:
    """Whether a branch statement contains a break or continue of the enclosing loop."""
    return any(isinstance(s, (Break, Continue)) or (isinstance(s, If) and _jumps(s)) for b in blocks(stmt) for s in b)


def _guarded(guard, hoisted: list, loop: list) -> list:
    """``loop`` preceded by the reads hoisted out of it, all under ``if guard:`` (it runs at all)."""
    return [IfS(guard, tuple(hoisted + loop), (), None)] if hoisted else loop


def _nonempty(args) -> E.Expr:
    """Whether ``range(*args)`` has any element."""
    if len(args) == 1:
        return E.Compare(">", args[0], E.Num(0))
    if len(args) == 2:
        return E.Compare("<", args[0], args[1])
    return E.Call("len", (E.Call("range", args),))


def _breaks(stmts) -> bool:
    return any(isinstance(s, Break) or (isinstance(s, If) and _breaks(s.body + s.orelse)) for s in stmts)


def _expr(value) -> E.Expr:
    if isinstance(value, tuple):
        return E.Tuple(tuple(_expr(v) for v in value))
    return value
