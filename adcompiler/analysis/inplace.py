"""Changing NumPy arrays in place: what adcompiler follows, and what it refuses with a located error.

adcompiler follows writes ``a[i] = v`` into an array the function made itself
(and every name bound to that same object), and ``a += v`` where nothing else
still refers to the old ``a``.  NumPy also changes arrays in place through
objects that *share memory* or *share identity* with them, which the
derivative code would silently miss.  So, in a function being differentiated:

* a write or ``+=`` into an array parameter is refused (the caller's array
  would change);
* a write or ``+=`` into a view (a slice, a row ``B[0]``, ``.T``, a reshape) is
  refused: the base array changes too;
* a write or ``+=`` into an array that a list also holds is refused;
* a write into an array after taking a view of it, when the view is used after
  the write, is refused: the view sees the write;
* ``c += v`` when another name still holding the old ``c`` is used afterwards
  (``b = c`` before) is refused: NumPy's ``+=`` changes ``b`` too;
* a write or ``+=`` into an array a helper returned, when that array may be (or
  view) an array handed to the helper that is still used afterwards, a
  parameter, a module's array or an array a list holds, is refused, and so is a
  write into an array handed to a helper while what the helper returned, which
  may be it, is still used: the other name sees the write.  What a helper's
  result may share memory with is worked out from the helper itself
  (``returned_memory``), so a helper that returns a new array is no obstacle.

Each refusal names the file, line and column and what to write instead.
"""

from __future__ import annotations

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import COMPARE, Break, Continue, Eq, For, If, Return, Var, While, blocks, flatten

VIEWS = (
    "getitem",
    "numpy.reshape",
    "numpy.ravel",
    "numpy.transpose",
    "numpy.squeeze",
    "numpy.expand_dims",
    "numpy.swapaxes",
    "numpy.broadcast_to",
)
SAME_OBJECT = ("dup", "read", "write", "numpy.asarray")
STORES = ("list", "tuple", "append", "setitem", "list_repeat")
IN_PLACE = "in place"  # the ``param`` of an operator equation lowered from ``x op= y``


MODULE = -1  # in returned_memory: the helper's result may be (part of) an array of a module


def check_in_place(
    fn, arrays: frozenset, containers: frozenset, array_params=None, holders=frozenset(), call_shares=None
) -> None:
    """Raise UnsupportedSyntaxError for the first in-place change of an array the derivative could miss.

    ``array_params``: the parameters that may arrive as arrays (None: any parameter may);
    ``holders``: the lists and tuples that may hold arrays; ``call_shares(eq)``: for a call, what
    ``returned_memory`` says of its callee (None: not known, as inside a recursion)."""
    if not arrays:
        return
    facts = _Facts(fn, arrays, containers, holders, call_shares)
    facts.array_params = set(fn.params) if array_params is None else set(array_params)
    facts.array_params |= facts.module_arrays
    for eq, pos, loops in facts.eqs:
        target = eq.ins[0].name if eq.prim == "setitem" and isinstance(eq.ins[0], Var) else None
        if target is not None and (target in arrays or any(m in facts.taken for m in facts.members(target))):
            facts.check_change(eq, pos, loops, eq.ins[0].name, "writing into")
        elif eq.param == IN_PLACE and isinstance(eq.ins[0], Var) and facts.may_be_array(eq.ins[0].name):
            facts.check_change(eq, pos, loops, eq.ins[0].name, "an in-place change (+=, *=, ...) of")
            facts.check_stale(eq, pos, loops)


def returned_memory(fn, arrays: frozenset, containers: frozenset, holders=frozenset(), call_shares=None) -> tuple:
    """For each leaf of what ``fn`` (dup form) returns, the positions of the parameters whose memory it
    may share (the parameter itself, a view or row of it, an array a list parameter holds), with
    ``MODULE`` if it may be a module's array: what a caller writing into the result also changes."""
    ret = next(s for s in reversed(fn.body) if isinstance(s, Return))
    leaves = flatten(ret.value)
    if not arrays:
        return tuple(frozenset() for _ in leaves)
    facts = _Facts(fn, arrays, containers, holders, call_shares)
    out = []
    for a in leaves:
        reached = facts.memory_of(a.name) if isinstance(a, Var) and a.name in arrays else set()
        found = {fn.params.index(n) for n in reached if n in fn.params}
        module = MODULE in reached or reached & facts.module_arrays
        out.append(frozenset(found | ({MODULE} if module else set())))
    return tuple(out)


class _Facts:
    """Positions, loops, object classes, definitions and uses of one function in dup form."""

    def __init__(self, fn, arrays, containers, holders=frozenset(), call_shares=None):
        self.fn, self.arrays, self.containers = fn, arrays, containers
        self.eqs: list = []  # (eq, position, enclosing loops)
        self.defined: dict = {p: (-1, ()) for p in fn.params}  # var -> (position, loops) of its definition
        self.used: dict = {}  # var -> [(position, loops)]
        self.parent: dict = {}
        self.back: dict = {}  # var -> the vars its object may come from (dup, read, write, asarray)
        self.counter = 0
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
            elif eq.prim == "custom":  # a function with rules, not read: its result may be any argument
                self._call(eq, [frozenset(range(len(eq.ins)))] * len(eq.outs))
            if eq.prim in SAME_OBJECT:
                for n in ins + outs:
                    self._union(ins[0] if ins else outs[0], n)
                for o in outs:  # where each name's object may come from (a slot read: the writes reaching it)
                    self.back.setdefault(o, set()).update(reach.get(o, ins))
            elif eq.prim in VIEWS and outs and outs[0] in arrays and ins and (ins[0] in arrays or ins[0] in containers):
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
        return index.name in self.arrays or index.name in self.containers or index.name in self.picks

    def _visit(self, stmts, loops) -> None:
        for stmt in stmts:
            self.counter += 1
            pos = self.counter  # increasing, in program order
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
            for b in blocks(stmt):
                self._visit(b, inner)

    def find(self, n: str) -> str:
        while self.parent.get(n, n) != n:
            n = self.parent[n]
        return n

    def _union(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)

    def members(self, n: str) -> list:
        root = self.find(n)
        return [m for m in set(self.defined) | set(self.used) if self.find(m) == root]

    def used_after(self, names, pos: int, loops: tuple) -> bool:
        """Whether a use of any of ``names`` may run after the statement at ``pos`` inside ``loops``:
        later in program order, or in a later iteration of a loop around both that the name was
        defined outside of."""
        for n in names:
            def_loops = self.defined.get(n, (-1, ()))[1]
            for upos, uloops in self.used.get(n, ()):
                if upos > pos or any(lp in uloops and lp not in def_loops for lp in loops):
                    return True
        return False

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

    def check_change(self, eq, pos, loops, name: str, what: str) -> None:
        members = self.sources(name)
        row = next((m for m in members if m in self.elements), None)
        if row is not None and eq.prim == "setitem":  # written into, a[i] is an array: a row view of a
            self.refuse(
                eq,
                f"{what} a row of another array (B[i] of a 2-D array shares its memory)",
                "copy the row first (r = B[i].copy()) or write into the array itself (B[i, j] = ...)",
                name,
                self.elements[row],
            )
        if any(m in self.array_params for m in members):  # a float parameter is never changed in place
            param = _root(next(m for m in members if m in self.array_params))
            remedy = f"copy it first ({param} = {param}.copy())"
            if eq.prim != "setitem":  # x op= y on a parameter that may arrive as an array (or a NumPy number)
                target, op = _aug_target(self.fn.source.lines.get(eq.line, "")) or (_root(name), "+")
                remedy = f"write {target} = {target} {op} ... (a new value), or copy it first"
            owner = "the array parameter" if param in self.fn.params else "the module's array"
            self.refuse(eq, f"{what} {owner} {param}", remedy, param)
        view = next((m for m in members if m in self.views), None)
        if view is not None:
            base = self.views[view]
            if view in self.taken or base in self.containers:
                self.refuse(eq, f"{what} an array taken from a list", "copy it first (b = rows[i].copy())", name, base)
            self.refuse(
                eq,
                f"{what} a view of another array (a slice, row, .T or reshape shares its memory)",
                "copy the view first (v = a[1:].copy()) or write into the array itself",
                name,
                base,
            )
        if any(self.sources(n) & members for n in self.stored):
            self.refuse(
                eq, f"{what} an array that a list also holds", "store a copy in the list (rows = [b.copy()])", name
            )
        for v, base in self.views.items():  # a view taken earlier, used after this change, would see it
            if self.find(base) == self.find(name):
                vpos = self.defined[v][0]
                if vpos < pos and self.used_after(self.members(v), pos, loops):
                    self.refuse(
                        eq,
                        f"{what} an array while a view of it taken earlier is still used",
                        "copy the view (v = a[1:].copy()) or take it after the last change",
                        name,
                    )
        self.check_through_calls(eq, pos, loops, name, what)

    def check_through_calls(self, eq, pos, loops, name: str, what: str) -> None:
        """A change of an array a helper returned that may be (or view) another array, or of an array
        handed to a helper whose result, which may be it, is still used: the other name sees it."""
        own = {self.find(m) for m in self.sources(name)} | {self.find(name)}
        for m in self.sources(name):
            if m not in self.returned:
                continue
            callee = self.returned[m][0].param.__name__
            result = f"{what} an array {callee} returned"
            remedy = f"copy it first ({_root(m)} = {callee}(...).copy())"
            others = {o for o in self.memory_of(m) if o == MODULE or self.find(o) not in own}
            if MODULE in others or others & self.module_arrays:
                self.refuse(eq, f"{result}, which may be a module's array (or a view of one)", remedy, name)
            param = next((o for o in others if o in self.array_params), None)
            if param is not None:
                self.refuse(
                    eq, f"{result}, which may be the array parameter {_root(param)} (or a view of it)", remedy, name
                )
            held = next((o for o in others if o in self.containers), None)
            if held is not None:
                self.refuse(eq, f"{result}, which may be an array the list {_root(held)} holds", remedy, name)
            alive = next((o for o in others if self.used_after(self._sharing(o), pos, loops)), None)
            if alive is not None:
                construct = f"{result}, which may be {_root(alive)} or a view of it, while {_root(alive)} is still used"
                self.refuse(eq, construct, remedy, name)
        for u, (call, _) in list(self.returned.items()):  # handed to a helper earlier: its result may be it
            if self.find(u) in own or self.defined.get(u, (pos, ()))[0] >= pos:
                continue
            if any(self.find(o) in own for o in self.memory_of(u) if o != MODULE):
                if self.used_after(self._sharing(u), pos, loops):
                    callee = call.param.__name__
                    self.refuse(
                        eq,
                        f"{what} an array handed to {callee} while {_root(u)}, which {callee} returned and which "
                        "may be that array or a view of it, is still used",
                        f"copy what {callee} returns ({_root(u)} = {callee}(...).copy())",
                        name,
                    )

    def _sharing(self, name: str) -> list:
        """The names of ``name``'s object and of the views taken of it: what sees a change of it."""
        root = self.find(name)
        views = [v for v, base in list(self.views.items()) + list(self.elements.items()) if self.find(base) == root]
        return self.members(name) + [m for v in views for m in self.members(v)]

    def check_stale(self, eq, pos, loops) -> None:
        """``c += v``: no other name bound to the old ``c`` may be used afterwards."""
        old = eq.ins[0].name
        target, op = _aug_target(self.fn.source.lines.get(eq.line, "")) or (_root(old), "+")
        numbers = set(self.fn.params) - self.array_params  # arrive as numbers: no other name shares them
        objects = self.sources(old) - numbers  # what c's object may be
        for m in self.members(old):
            if m == old or m in self.fn.slots or not (self.sources(m) & objects):
                continue
            if self.defined.get(m, (-1, ()))[0] < pos and self.used_after([m], pos, loops):
                other = _root(m) if _root(m) != target else "an earlier alias"
                self.refuse(
                    eq,
                    f"the in-place {op}= on {target}, an array that another name ({other}) still refers to",
                    f"write {target} = {target} {op} ... to make a new array",
                    target,
                )

    def refuse(self, eq, construct: str, remedy: str, name: str, also: str | None = None) -> None:
        """Raise the located error; the column is where ``name`` (or else ``also``) is changed on the line."""
        source = self.fn.source
        text = source.lines.get(eq.line, "")
        col = _column(text, _root(name))
        if col == len(text) - len(text.lstrip()) and also is not None:
            col = _column(text, _root(also))
        raise UnsupportedSyntaxError(construct, remedy, source.filename, eq.line, col, text)


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


def _root(name: str) -> str:
    """The user's name behind an SSA name: ``b_2`` -> ``b``."""
    from ..front.names import root

    return root(name)


def _aug_target(text: str):
    """The name an augmented assignment on this source line changes, and its operator: ``(c, +)``."""
    import re

    found = re.match(r"\s*([A-Za-z_]\w*)\s*(\+|-|\*\*|\*|//|/|%|@)=", text)
    return (found.group(1), found.group(2)) if found else None


def _column(text: str, name: str) -> int:
    """Where ``name`` is changed on a source line: ``name[`` or ``name +=`` (else the first word)."""
    for pattern in (f"{name}[", f"{name} +=", f"{name} -=", f"{name} *=", f"{name} /=", f"{name}."):
        k = text.find(pattern)
        while k > 0 and (text[k - 1].isalnum() or text[k - 1] == "_"):
            k = text.find(pattern, k + 1)
        if k >= 0:
            return k
    return len(text) - len(text.lstrip())
