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

``Sweeps`` holds the adjoints and the adjoint sweep's blocks and loops; it is
made of four parts, one job each: ``taping.Taping`` (what to tape or read
again), ``adjoints.Adjoints`` (the adjoint of one equation), ``primal.PrimalSweep``
(the primal sweep with its pushes) and ``checkpoint.Checkpoints``.
"""

from __future__ import annotations


from ..ir import expr as E
from ..analysis import values as V
from .checkpoint import Checkpoints
from .adjoints import Adjoints
from .primal import PrimalSweep
from .taping import Taping
from .versions import Versions
from .guards import distinct
from .owned import owned
from . import structures
from .structures import numbers_only
from ..analysis.facts import check_values, mutable_arrays
from ..analysis.activity import active
from ..ir.nodes import segments, jumps, Assign, AugAssign, Break, Do, Eq, For
from ..ir.nodes import ForS, If, IfS, Return, Var, While, flatten, free_names, rebuild
from ..ir.printing import atom


class Sweeps(Taping, Adjoints, PrimalSweep, Checkpoints, Versions):
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
        self.analyse()
        self.find_same_shapes()
        self.seeded: set = set()  # lists whose elements a literal seed reached directly (seeds_elements)
        self.built_at_top = {  # list -> the equation building it of its elements, at the function's top level
            eq.outs[0].name: eq for eq in fn.body if isinstance(eq, Eq) and eq.prim in ("list", "tuple")
        }
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
        self.entry = entry  # the tapes and shadows the primal sweep starts with
        self.primal[:0] = entry
        self.snapshots = {}  # written arrays that are returned: copied before the reverse sweep restores them
        ret = next(s for s in reversed(fn.body) if isinstance(s, Return))
        for a in flatten(ret.value):
            # a returned array may be a written one, or a view of it (u[:], u.reshape(4)): copied either way
            if isinstance(a, Var) and (self.written or self.mutable) and a.name in self.arrays:
                self.snapshots[a.name] = namer.fresh(a.name + "_out")
                self.primal.append(Assign((self.snapshots[a.name],), E.Call("numpy.copy", (self.ref(a),))))
        scalars = [p for p in active_params if not (split and p in self.containers)]
        self.cotangents = distinct(
            scalars, [self.cotangent(p) for p in scalars], self.arrays, self.adjoint, self.fresh_adjoint
        )
        self.adjoint = owned(self.adjoint, self.cotangents)  # arrays stored into shadows where their own

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
        written = _lists_of_numbers(aval) or getattr(self.program, "written_shadows", True)
        made = structures.zeros(aval, value, self.namer.fresh) if written else None
        return made if made is not None else E.Call(self.program.helper("zeros_like"), (value,))

    def cotangent(self, p: str) -> E.Expr:
        if p in self.containers:
            aval = self.facts.avals.get(p, V.TOP)
            shadow = E.Name(self.shadow_of(p)) if p in self.act else self.zeros(p, E.Name(p))
            if _lists_of_numbers(aval) and _lists_all_down(aval):  # the shadow is the cotangent
                return shadow
            made = structures.like(aval, shadow, E.Name(p), self.namer.fresh)
            if made is not None and (numbers_only(aval) or getattr(self.program, "written_shadows", True)):
                return made
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
        if self.arrays and not isinstance(d, E.Num):  # arrays' cotangents reached it: a 0-d array made a number
            return E.Call("@array_like", (d, E.Name(p)))
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
                self.program.accumulators[self.acc[v]] = self.alias.get(v, v)  # Numba: an array's a type of its own
                out.append(Assign((self.acc[v],), E.Num(0.0)))
                for member, rep in self.mutable.items():  # one object, one adjoint array
                    if rep == v:
                        self.acc[member] = self.acc[v]
        for seg in reversed(segments(stmts)):
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
                if isinstance(seed, E.Tuple) and len(seed.elts) == len(leaves):  # a literal seed (jacobian)
                    for a, g in zip(leaves, seed.elts):
                        self.seed(a, g, seg.line, out)
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

    def seed(self, a, ct, line: int, out: list) -> None:
        """The output cotangent flows into a returned value (added into a returned list's shadow; a
        number given to vjp for a returned array is that number in every entry, like a tangent 0 in jvp;
        grad seeds 1.0 into the scalar output it needs)."""
        if isinstance(a, Var) and a.name in self.arrays and self.ct is not None and not self.split:
            ct = E.Call("@array_like", (ct, self.ref(a)))
        if isinstance(a, Var) and a.name in self.arrays and self.split and isinstance(ct, E.Name):
            self.zeroes.add(ct.id)  # a caller that used only another output passes the number 0.0 for this one
        if _literal_zero(ct):  # a literal seed's zero (jacobian): nothing flows back
            return
        if isinstance(a, Var) and a.name in self.containers and self.seeds_elements(a, ct, line, out):
            return
        if isinstance(a, Var) and a.name in self.containers:
            if a.name in self.act and not self.split:  # a caller adds into the shadow a split sweep returns
                out.append(Do(E.Call(self.program.helper("add_into"), (E.Name(self.shadow_of(a.name)), ct)), line))
            return
        self.contribute(a, ct, line, out)

    def seeds_elements(self, a: Var, ct, line: int, out: list) -> bool:
        """A literal seed for a list the function builds of numbers at its top level and returns
        (``return [rx, ry, rz]``, a row of a Jacobian): each number gets its element of the seed
        directly, and the list's own adjoint is left out (True); else False."""
        build = self.built_at_top.get(a.name)
        if not (isinstance(ct, (E.List, E.Tuple)) and build is not None and len(build.ins) == len(ct.elts)):
            return False
        if any(isinstance(x, Var) and x.name in self.containers for x in build.ins):
            return False
        self.seeded.add(a.name)
        for x, g in zip(build.ins, ct.elts):
            if not _literal_zero(g):
                self.contribute(x, g, line, out)
        return True

    def rev_loop(self, loop, looped: bool) -> list:
        frame = {"target": loop.target.name if isinstance(loop, For) else None, "hoisted": [], "names": set()}
        floor = self.floor
        if isinstance(loop, While) or any(jumps(s) for s in loop.body if isinstance(s, If)):
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
        loops = self.versioned_adjoint(loop, ForS(target, iterable, tuple(body), loop.line), looped)
        return popped + rereads + _guarded(guard, hoisted, loops)


def _literal_zero(e) -> bool:
    return isinstance(e, E.Num) and e.text is None and e.value == 0 and not isinstance(e.value, bool)


def _lists_of_numbers(aval) -> bool:
    """Whether a value is a list (or a list of lists, ...) of numbers, read by position only where
    its elements are alike: its shadow is its cotangent."""
    if not isinstance(aval, V.Seq) or aval.kind == "tuple" and not numbers_only(aval):
        return False
    if numbers_only(aval):
        return True
    return aval.items is None and aval.kind == "list" and _lists_of_numbers(aval.elem)


def _lists_all_down(aval) -> bool:
    """Whether every sequence in a value is a list: its shadow (lists of adjoints) is then its cotangent;
    a tuple inside (a list of ``(x,)`` records) gets its cotangent rebuilt by ``like``, as a tuple."""
    if not isinstance(aval, V.Seq):
        return True
    inner = aval.items if aval.items is not None else (aval.elem,)
    return aval.kind == "list" and all(_lists_all_down(a) for a in inner)


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
