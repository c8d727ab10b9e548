"""Which names of a function (dup form) may be the same array or share its memory: one object through
copies, views, rows, lists that hold it and helpers' results; and where each is used."""

from __future__ import annotations

from ..ir.nodes import Break, Continue, Eq, For, If, Return, Var, While, blocks, flatten
from ..ir.printing import COMPARE


class Memory:
    """The memory facts of one function: objects (``find``, ``members``), what each may share memory with
    (``memory_of``, ``sources``), and uses (``used_after``); ``inplace`` checks writes against them."""

    def __init__(self, fn, arrays, containers, holders=frozenset(), call_shares=None, vectors=frozenset()):
        self.fn, self.arrays, self.containers = fn, arrays, containers
        self.eqs: list = []  # (eq, position, enclosing loops)
        self.defined: dict = {p: (-1, ()) for p in fn.params}  # var -> (position, loops) of its definition
        self.used: dict = {}  # var -> [(position, loops)]
        self.parent: dict = {}
        self.back: dict = {}  # var -> the vars its object may come from (dup, read, write, asarray)
        self.counter = 0
        self.branches: dict = {}  # position -> the branches of ifs around it
        self._visit(fn.body, ())
        self.made_by = {v.name: eq.prim for eq, _, _ in self.eqs for v in eq.outs}  # var -> its primitive
        self.views: dict = {}  # view var -> the var it views
        self.elements: dict = {}  # a[i] with no slice in i -> a: a view only where it is written into
        self.slices: set = set()  # index values holding a slice (or None, a new axis)
        self.picks: set = set()  # index tuples holding an array or list (advanced indexing: a copy)
        self.taken: set = set()  # arrays read out of a list
        self.stored: set = set()  # arrays put into a list
        self.held: dict = {}  # list -> the arrays put into it
        # an array a call returned -> (the call, the names of the arguments it may share memory with)
        self.returned: dict = {}
        self.module_arrays = {eq.outs[0].name for eq, _, _ in self.eqs if eq.prim == "global"}
        holders = set(holders)  # lists holding arrays
        reach = reaching_writes(fn)
        for eq, _, _ in self.eqs:
            ins = [a.name for a in eq.ins if isinstance(a, Var)]
            outs = [v.name for v in eq.outs]
            if eq.prim == "call":
                self._call(eq, call_shares(eq) if call_shares is not None else None)
            elif eq.prim in ("custom", "library"):  # a function not read: its result may be any argument
                self._call(eq, [frozenset(range(len(eq.ins)))] * len(eq.outs))
            if eq.prim in SAME_OBJECT:
                for n in ins + outs:
                    self._union(ins[0] if ins else outs[0], n)
                for o in outs:  # where each name's object may come from (a slot read: the writes reaching it)
                    self.back.setdefault(o, set()).update(reach.get(o, ins))
            elif (
                _viewing(eq.prim, ins, vectors)
                and outs
                and outs[0] in arrays
                and (ins[0] in arrays or ins[0] in containers)
            ):
                if eq.prim == "getitem" and self._advanced(eq.ins[1]):
                    pass  # x[[0, 2]], x[mask]: NumPy copies what an array or list index picks
                elif eq.prim == "getitem" and ins[0] in arrays and not self._sliced(eq.ins[1]):
                    self.elements[outs[0]] = ins[0]  # a[i]: a number of a 1-D array, a row view of a 2-D one
                else:
                    self.views[outs[0]] = ins[0]
            if eq.prim == "slice" or eq.prim == "tuple" and any(self._sliced(a) for a in eq.ins):
                self.slices |= set(outs)
            if eq.prim == "tuple" and any(self._advanced(a) for a in eq.ins):
                self.picks |= set(outs)
            if eq.prim in COMPARE and any(n in arrays for n in ins):  # a mask
                self.picks |= set(outs)
            if eq.prim in STORES and not (eq.prim == "setitem" and ins and ins[0] in arrays):  # into a list
                held = ins[1:] if eq.prim in ("append", "setitem") else ins
                self.stored |= {n for n in held if n in arrays}
                into = ins[0] if eq.prim in ("append", "setitem") else outs[0]
                self.held.setdefault(into, set()).update(n for n in held if n in arrays or n in containers)
                if any(n in arrays for n in held):  # the list now holds arrays
                    holders.add(ins[0] if eq.prim in ("append", "setitem") else outs[0])
        holders = {self.find(n) for n in holders}
        for eq, _, _ in self.eqs:  # an element of a list holding arrays is an array, whatever kinds says
            if (
                eq.prim == "getitem"
                and isinstance(eq.ins[0], Var)
                and self.find(eq.ins[0].name) in holders
                and eq.outs[0].name not in containers
            ):
                self.views[eq.outs[0].name] = eq.ins[0].name
                self.taken.add(eq.outs[0].name)

    def _call(self, eq, shares) -> None:
        """What each array a call returns may share memory with: the arguments at the positions
        ``shares`` gives (None: every array or list argument, and a module's array)."""
        args = [
            a.name if isinstance(a, Var) and (a.name in self.arrays or a.name in self.containers) else None
            for a in eq.ins
        ]
        if shares is not None and len(shares) != len(eq.outs):
            shares = None  # not the call's outputs one for one: assume the worst
        for k, v in enumerate(eq.outs):
            if v.name not in self.arrays:
                continue
            if shares is None:
                known = {n for n in args if n is not None} | {MODULE}
            else:
                known = {args[i] if i != MODULE else MODULE for i in shares[k] if i == MODULE or args[i] is not None}
            if known:
                self.returned[v.name] = (eq, known)

    def memory_of(self, name: str) -> set:
        """Every name whose array (or list) ``name``'s memory may be part of, ``name`` included: the
        objects it may be (copies, slot reads), what it is a view or row of, the list it was read from
        and what was put into that list, and what a call that returned it was handed."""
        found, todo = set(), [name]
        while todo:
            n = todo.pop()
            if n in found or n == MODULE:
                continue
            found.add(n)
            todo += self.sources(n)
            todo += [m for m in self.members(n) if m in self.containers]  # one list, many names
            for table in (self.views, self.elements):
                if n in table:
                    todo.append(table[n])
            todo += self.held.get(n, ())
            if n in self.returned:
                known = self.returned[n][1]
                todo += [m for m in known if m != MODULE]
                if MODULE in known:
                    found.add(MODULE)
        return found

    def _sliced(self, index) -> bool:
        """Whether an index keeps dimensions (a slice, None, or a tuple holding one): the result is a view."""
        if isinstance(index, Var):
            return index.name in self.slices
        return getattr(index, "value", 0) is None or getattr(index, "value", 0) is Ellipsis

    def _advanced(self, index) -> bool:
        """Whether an index holds an array or a list: NumPy's advanced indexing, whose result is a copy."""
        if not isinstance(index, Var):
            return False
        if self.made_by.get(index.name) == "tuple":  # B[:, 1]: basic unless an item is an array or a list
            return index.name in self.picks
        return index.name in self.arrays or index.name in self.containers or index.name in self.picks

    def _visit(self, stmts, loops, branches=()) -> None:
        """Number the statements in program order, recording definitions and uses with the loops and the
        branches (``(id(if), 0 or 1)``, outermost first) around each."""
        for stmt in stmts:
            self.counter += 1
            pos = self.counter  # increasing, in program order
            self.branches[pos] = branches
            if isinstance(stmt, Eq):
                self.eqs.append((stmt, pos, loops))
                for v in stmt.outs:
                    self.defined.setdefault(v.name, (pos, loops))
                reads = stmt.ins
            elif isinstance(stmt, (If, While)):
                reads = (stmt.test,)
            elif isinstance(stmt, For):
                reads = (stmt.start, stmt.stop, stmt.step)
            elif isinstance(stmt, Return):
                reads = tuple(flatten(stmt.value))
            else:
                reads = ()
            for a in reads:
                if isinstance(a, Var):
                    self.used.setdefault(a.name, []).append((pos, loops))
            inner = loops + ((id(stmt),) if isinstance(stmt, (For, While)) else ())
            for k, b in enumerate(blocks(stmt)):
                self._visit(b, inner, branches + ((id(stmt), k),) if isinstance(stmt, If) else branches)

    def find(self, n: str) -> str:
        while self.parent.get(n, n) != n:
            n = self.parent[n]
        return n

    def _union(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)

    def members(self, n: str) -> list:
        root = self.find(n)
        return [m for m in set(self.defined) | set(self.used) if self.find(m) == root]

    def holding(self, n: str) -> list:
        """The names that may hold ``n``'s object: those of its class whose sources it is among (a slot read after
        ``v = B[i]`` in one branch and ``v = a`` in the other holds the view; ``a``, of the same class, does not)."""
        return [m for m in self.members(n) if n in self.sources(m)]

    def used_after(self, names, pos: int, loops: tuple) -> bool:
        """Whether a use of any of ``names`` may run after the statement at ``pos`` inside ``loops``:
        later in program order, or in a later iteration of a loop around both that the name was
        defined outside of."""
        for n in names:
            def_loops = self.defined.get(n, (-1, ()))[1]
            for upos, uloops in self.used.get(n, ()):
                later = upos > pos and not self.exclusive(pos, upos)
                if later or any(lp in uloops and lp not in def_loops for lp in loops):
                    return True
        return False

    def exclusive(self, a: int, b: int) -> bool:
        """Whether the statements at positions ``a`` and ``b`` lie in different branches of one ``if``
        (the code after an early return is written into both branches): one never runs after the other,
        but for a loop around the ``if``, which ``used_after`` asks about apart."""
        taken = dict(self.branches.get(a, ()))
        return any(taken.get(branch, k) != k for branch, k in self.branches.get(b, ()))

    def may_be_array(self, name: str) -> bool:
        """Whether ``name`` may hold an array where it is read: the kinds say so, and unless it is a slot
        read, so does some value written to the slot that reaches the read (p = math.asinh(...) then
        p += ... is a float, whatever else p holds elsewhere)."""
        if name not in self.arrays:
            return False
        made_by = self.made_by
        origins = [m for m in self.sources(name) if made_by.get(m) not in SAME_OBJECT]  # not copies of others
        return not origins or any(
            m in self.array_params or m in self.arrays and not made_by.get(m, "").startswith("math.") for m in origins
        )

    def sources(self, name: str) -> set:
        """Every name whose object ``name`` may be (following copies backwards; a slot read to the values
        written to the slot that reach it, a parameter's slot to its argument)."""
        found, todo = {name}, [name]
        while todo:
            n = todo.pop()
            for m in self.back.get(n, ()) if n not in self.fn.slots else ():
                if m not in found:
                    found.add(m)
                    todo.append(m)
        return found

    def sharing(self, name: str) -> list:
        """The names of ``name``'s object and of the views taken of it: what sees a change of it."""
        root = self.find(name)
        views = [v for v, base in list(self.views.items()) + list(self.elements.items()) if self.find(base) == root]
        return self.members(name) + [m for v in views for m in self.members(v)]


VIEWS = (
    "getitem",
    "numpy.reshape",
    "numpy.ravel",
    "numpy.transpose",
    "numpy.squeeze",
    "numpy.expand_dims",
    "numpy.swapaxes",
    "numpy.broadcast_to",
    "numpy.flip",
    "numpy.fliplr",
    "numpy.flipud",
    "numpy.moveaxis",
    "numpy.rollaxis",
    "numpy.rot90",
    "numpy.atleast_1d",
    "numpy.atleast_2d",
    "numpy.atleast_3d",
    "numpy.diagonal",
    "numpy.split/part",
)


def _viewing(prim: str, ins: list, vectors: frozenset) -> bool:
    """Whether ``prim`` of ``ins`` may return a view of ``ins[0]``: np.diag of a matrix is its diagonal, read-only
    but changed by a write into the matrix (of a vector, surely 1-D, a new matrix)."""
    return bool(ins) and (prim in VIEWS or prim == "numpy.diag" and ins[0] not in vectors)


SAME_OBJECT = (
    "dup",
    "read",
    "write",
    "numpy.asarray",
    "numpy.asarray/dtype",
    "numpy.real",
    "numpy.real_if_close",
)  # (a cast may copy)


STORES = ("list", "tuple", "append", "setitem", "list_repeat")


MODULE = -1  # in returned_memory: the helper's result may be (part of) an array of a module


def returned_memory(
    fn, arrays: frozenset, containers: frozenset, holders=frozenset(), call_shares=None, vectors=frozenset()
) -> tuple:
    """For each leaf of what ``fn`` (dup form) returns, the positions of the parameters whose memory it
    may share (the parameter itself, a view or row of it, an array a list parameter holds), with
    ``MODULE`` if it may be a module's array: what a caller writing into the result also changes."""
    ret = next(s for s in reversed(fn.body) if isinstance(s, Return))
    leaves = flatten(ret.value)
    if not arrays:
        return tuple(frozenset() for _ in leaves)
    facts = Memory(fn, arrays, containers, holders, call_shares, vectors)
    out = []
    for a in leaves:
        reached = facts.memory_of(a.name) if isinstance(a, Var) and a.name in arrays else set()
        found = {fn.params.index(n) for n in reached if n in fn.params}
        module = MODULE in reached or reached & facts.module_arrays
        out.append(frozenset(found | ({MODULE} if module else set())))
    return tuple(out)


def reaching_writes(fn) -> dict:
    """For each read of a slot, the names of the values written to it that may reach the read (a
    parameter's own name for its argument): a forward dataflow over branches and loops."""
    reach: dict = {}

    def block(stmts, state: dict, loop: dict | None) -> dict | None:
        for stmt in stmts:
            if state is None:  # after a break or continue: unreachable
                return None
            if isinstance(stmt, Eq) and stmt.prim == "write" and stmt.outs[0].name in fn.slots:
                value = stmt.ins[0]
                state = {**state, stmt.outs[0].name: {value.name} if isinstance(value, Var) else set()}
            elif isinstance(stmt, Eq) and stmt.prim == "read" and stmt.ins[0].name in fn.slots:
                reach.setdefault(stmt.outs[0].name, set()).update(state.get(stmt.ins[0].name, ()))
            elif isinstance(stmt, If):
                state = _merge(block(stmt.body, state, loop), block(stmt.orelse, state, loop))
            elif isinstance(stmt, (For, While)):
                state = run_loop(stmt, state)
            elif isinstance(stmt, (Break, Continue)):
                key = "breaks" if isinstance(stmt, Break) else "continues"
                loop[key] = _merge(loop[key], state)
                state = None
        return state

    def run_loop(stmt, state: dict) -> dict:
        head = state
        while True:
            loop = {"breaks": None, "continues": None}
            entry = block(stmt.header, head, loop) if isinstance(stmt, While) else head
            end = _merge(block(stmt.body, entry, loop), loop["continues"])
            grown = _merge(head, end)
            if grown == head:
                exit_ = entry if isinstance(stmt, While) else head  # a for loop may run zero times
                return _merge(exit_, loop["breaks"])
            head = grown

    start = {p: {p} for p in fn.params if p in fn.slots}
    block(fn.body, start, None)
    return reach


def _merge(a: dict | None, b: dict | None) -> dict | None:
    """Values a slot may hold after either of two paths (None: a path that does not get there)."""
    if a is None or b is None:
        return b if a is None else a
    return {k: a.get(k, set()) | b.get(k, set()) for k in set(a) | set(b)}
