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
  (``memory.returned_memory``), so a helper that returns a new array is no obstacle.

The facts about objects and shared memory these checks read are ``memory.Memory``'s.

Each refusal names the file, line and column and what to write instead.
"""

from __future__ import annotations

import ast
import re

from ..errors import UnsupportedSyntaxError
from ..ir.nodes import IN_PLACE, Var
from .memory import MODULE, SAME_OBJECT, STORES, Memory
from ..lower.library import library_changes


def check_in_place(
    fn,
    arrays: frozenset,
    containers: frozenset,
    array_params=None,
    holders=frozenset(),
    call_shares=None,
    generated: bool = False,
    vectors=frozenset(),
    index_params=frozenset(),
    callee_writes=None,
) -> dict:
    """Raise UnsupportedSyntaxError for the first in-place change of an array the derivative could miss; return
    the parameters whose arrays ``fn`` writes into (``index_params``, integer arrays: no derivative to follow, so
    a helper may write into them, as GradBench det's reference formulation does its row and column links; or
    a list or tuple holding one), itself or by handing them to a helper that does (``callee_writes(eq)``: the
    positions of a call's arguments its callee writes into), each to the first equation that does
    (``entry_writes`` refuses them in the function differentiated: a derivative must leave the caller's arrays
    as the primal does).

    ``array_params``: the parameters that may arrive as arrays (None: any parameter may);
    ``holders``: the lists and tuples that may hold arrays; ``call_shares(eq)``: for a call, what
    ``returned_memory`` says of its callee (None: not known, as inside a recursion); ``generated``: ``fn`` is
    adcompiler's own derivative code, differentiated again, whose views read after a write are right by
    construction (its adjoint sweep puts back what each write changed before the adjoints that read earlier
    views: ``t3 = B[:, 1]``, ``B[:, 0] = t7`` and ``B[:, 0] = tape.pop()``, then ``t3`` read); ``vectors``: the
    names surely holding 1-D arrays (``np.diag`` of anything else may be a view)."""
    if not arrays:
        return {}
    facts = _Facts(fn, arrays, containers, holders, call_shares, vectors)
    facts.generated = generated
    facts.array_params = set(fn.params) if array_params is None else set(array_params)
    facts.array_params |= facts.module_arrays
    written: dict = {}
    for eq, pos, loops in facts.eqs:
        target = eq.ins[0].name if eq.prim == "setitem" and isinstance(eq.ins[0], Var) else None
        if target is not None and (target in arrays or any(m in facts.taken for m in facts.members(target))):
            facts.check_rebound(eq, pos, target)
            facts.check_change(eq, pos, loops, eq.ins[0].name, "writing into")
            changed = [eq.ins[0]]
        elif eq.param == IN_PLACE and isinstance(eq.ins[0], Var) and facts.may_be_array(eq.ins[0].name):
            facts.check_change(eq, pos, loops, eq.ins[0].name, "an in-place change (+=, *=, ...) of")
            facts.check_stale(eq, pos, loops)
            changed = [eq.ins[0]]
        elif eq.prim == "call" and callee_writes is not None:
            changed = [eq.ins[k] for k in callee_writes(eq) if k < len(eq.ins)]
            facts.check_handed(eq, changed)
        elif library_changes(eq):  # np.put(p, ...) of an integer array: a write into p (of a float array with a
            changed = [eq.ins[k] for k in library_changes(eq)]  # derivative: refused as a call with no rule)
        else:
            continue
        params = set(fn.params) if eq.prim != "library" else index_params
        for a in changed:  # the parameters whose arrays it may be (or a view of, or an array they hold)
            for p in (facts.memory_of(a.name) | facts.sources(a.name)) & params if isinstance(a, Var) else ():
                written.setdefault(p, eq)
    return written


def entry_writes(fn, writes: dict) -> None:
    """Refuse, located, a write into an integer-array parameter of the function differentiated (``writes``, as
    ``check_in_place`` returns them): its reverse sweep puts back each write as it passes it, so a gradient
    would leave the caller's array other than the primal does."""
    for param, eq in writes.items():
        text = fn.source.lines.get(eq.line, "")
        name = _root(param)
        if eq.prim == "call":
            callee = _callee_name(eq)
            construct = f"handing the array parameter {name} (or a view of it, or an array it holds) to {callee}, which writes into it,"
            remedy = f"hand {callee} a copy of the array (its .copy())"
        else:
            construct = f"writing into the array parameter {name}"
            remedy = f"copy it first ({name} = {name}.copy())"
        col = _word_column(text, name) if eq.prim == "call" else _column(text, name)
        raise UnsupportedSyntaxError(construct, remedy, fn.source.filename, eq.line, col, text)


class _Facts(Memory):
    """Positions, loops, object classes, definitions and uses of one function in dup form."""

    def check_change(self, eq, pos, loops, name: str, what: str) -> None:
        members = self.sources(name)
        row = next((m for m in members if m in self.elements), None)
        if row is not None and (eq.prim == "setitem" or row in self.arrays):  # a[i] written into or changed
            # in place (r += 1.0 where r = B[i] is an array): a row view of a
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
        if any(self.sources(n) & members for n in self.stored) and self.held_when_written(members, pos, loops):
            self.refuse(
                eq, f"{what} an array that a list also holds", "store a copy in the list (rows = [b.copy()])", name
            )
        if eq.prim == "setitem":  # another name of the same object (np.asarray(a)), used after: it sees the write
            fresh = self.made_this_iteration(members, pos, loops)
            for m in self.members(name):
                if not (self.sources(m) & members):  # may share the class, never the object written
                    continue
                if fresh and not self.reaches_this_iteration(m, fresh, pos):  # (an earlier iteration's object)
                    continue
                if _root(m) != _root(name) and m not in self.fn.slots and self.defined.get(m, (-1, ()))[0] < pos:
                    if self.used_after([m], pos, loops):
                        remedy = f"copy it ({_root(m)} = {_root(name)}.copy()) or write through one name"
                        self.refuse(eq, f"{what} an array that another name ({_root(m)}) still refers to", remedy, name)
        rows = [(v, b) for v, b in self.elements.items() if v in self.arrays]  # a[i] of a 2-D array: a view too
        pairs = list(self.views.items()) + rows
        viewed = {v for v, base in pairs if self.find(base) == self.find(name)}
        grown = True
        while grown:  # views of those views (B[1:2][0], np.transpose(B)[0]): they see the write too
            more = {v for v, base in pairs if base in viewed or any(self.find(base) == self.find(w) for w in viewed)}
            grown = not more <= viewed
            viewed |= more
        held = {t for t in self.taken if self.memory_of(t) & viewed}  # views read out of a list (p, q = np.split(a,
        held |= {lst for lst, items in self.held.items() if items & viewed}  # 2)), and the lists holding views
        for v in sorted(viewed | held) if not self.generated else ():  # a view taken earlier, used after, sees it
            if self.defined[v][0] < pos and self.used_after(self.holding(v), pos, loops):
                self.refuse(
                    eq,
                    f"{what} an array while a view of it taken earlier is still used",
                    "copy the view (v = a[1:].copy()) or take it after the last change",
                    name,
                )
        self.check_through_calls(eq, pos, loops, name, what)

    def check_handed(self, eq, changed: list) -> None:
        """A module's integer array handed to a helper that writes into it: the reverse sweep would put it back,
        leaving the module's array other than the primal does.  A list, tuple or dict handed to a helper that
        writes into an array it holds: what the reverse sweep keeps and puts back is an array, not the list."""
        callee, text = _callee_name(eq), self.fn.source.lines.get(eq.line, "")

        def refused(construct: str, remedy: str, column: int):
            return UnsupportedSyntaxError(construct, remedy, self.fn.source.filename, eq.line, column, text)

        for a in changed:
            if isinstance(a, Var) and a.name in self.containers:
                raise refused(
                    f"handing {callee} a list, tuple or dict holding an array it writes into",
                    f"hand {callee} the array itself (one parameter each), or copy the arrays into the list",
                    len(text) - len(text.lstrip()),
                )
        for a in changed:
            module = (self.memory_of(a.name) & self.module_arrays) if isinstance(a, Var) else set()
            if module:
                name = _root(min(module))
                raise refused(
                    f"handing the module's array {name} to {callee}, which writes into it,",
                    f"copy it first ({name.lower()}_copy = {name}.copy()) and hand {callee} the copy",
                    _word_column(text, name),
                )

    def check_rebound(self, eq, pos: int, target: str) -> None:
        """A write into the array a name took from another (``v = u``) after that other name was bound anew in
        between (``u = u * 2.0`` in a loop or branch): the two names' adjoints would be taken for one array's
        (the write's adjoint cleared the new array's entries: a gradient entry lost).  Refused, located."""
        read = next((e for e, at, _ in self.eqs if at == self.defined.get(target, (-1,))[0] and e.outs), None)
        if read is None or read.prim != "read" or not isinstance(read.ins[0], Var):
            return
        slot, start = read.ins[0].name, self.defined[target][0]
        if any(e.prim == "write" and e.outs and e.outs[0].name == slot and start < at < pos for e, at, _ in self.eqs):
            written = _written_name(self.fn.source.lines.get(eq.line, "")) or _root(target)  # (the user's v)
            self.refuse(
                eq,
                f"writing into {written}, an array {_root(slot)} held, after {_root(slot)} was bound anew (in a loop"
                " or branch between them)",
                f"copy it where {written} is made ({written} = {_root(slot)}.copy()), or write into it before"
                f" {_root(slot)} is bound anew",
                written,
            )

    def held_when_written(self, members: set, pos: int, loops: tuple) -> bool:
        """Whether a list, tuple or dict may hold the array written at ``pos`` (its object class ``members``) when
        the write runs: put there before it, or in a loop around both (a later iteration writes after this one's
        store), unless the array is made anew in each iteration of every loop around both, before the write
        (``h = np.zeros(2); h[0] = ...; hs.append(h)``: the list holds earlier iterations' arrays, never the one
        written).  A store after the write, outside its loops, holds the array as the writes left it (``return
        {"a": a}``)."""
        fresh = self.made_this_iteration(members, pos, loops)
        start = min(fresh.values()) if fresh else -1
        made_in = min(len(self.defined[m][1]) for m in fresh) if fresh else 0  # the loops around the making
        for eq, at, around in self.eqs:
            if (
                eq.prim not in STORES
                or eq.prim == "setitem"
                and isinstance(eq.ins[0], Var)
                and eq.ins[0].name in self.arrays
            ):
                continue
            names = [a.name for a in eq.ins if isinstance(a, Var)]
            held = names[1:] if eq.prim in ("append", "setitem") else names
            if not any(self.sources(n) & members for n in held if n in self.arrays):
                continue
            common = next((k for k, (a, b) in enumerate(zip(around, loops)) if a != b), min(len(around), len(loops)))
            if fresh and (start < at < pos or at > pos and common > made_in):
                return True
            if not fresh and (at < pos or common):
                return True
        return False

    def made_this_iteration(self, members: set, pos: int, loops: tuple) -> dict:
        """Where the object written at ``pos`` is made anew in every iteration of a loop around the write,
        before it and whatever branch runs (``un = np.zeros(n)`` first in a Jacobi step): each making name ->
        its position; empty where it may be an object made elsewhere (a parameter, a copy of one)."""
        made = {m for m in members if self.made_by.get(m) not in SAME_OBJECT}
        if not made or made & self.array_params or any(m not in self.made_by for m in made):
            return {}
        out = {}
        for m in made:
            at, around = self.defined.get(m, (-1, ()))
            inside = around and loops[: len(around)] == around  # (in a loop, at the write's level or above)
            unbranched = set(self.branches.get(at, ())) <= set(self.branches.get(pos, ()))
            if not (inside and 0 <= at < pos and unbranched):
                return {}
            out[m] = at
        return out

    def reaches_this_iteration(self, name: str, fresh: dict, pos: int) -> bool:
        """Whether ``name`` may hold the object one of ``fresh`` made in this iteration: following copies back
        only through names defined after the making and before ``pos`` (one defined later in the loop holds
        an earlier iteration's object)."""
        start = min(fresh.values())
        writes: dict = {}  # a value -> the positions where it is written into a slot
        for eq, at, _ in self.eqs:
            if eq.prim == "write" and isinstance(eq.ins[0], Var):
                writes.setdefault(eq.ins[0].name, []).append(at)
        found, todo = {name}, [name]
        while todo:
            n = todo.pop()
            if n in fresh:
                return True
            at = self.defined.get(n, (-1, ()))[0]
            if not start < at <= pos:
                continue
            for m in self.back.get(n, ()):
                written = writes.get(m, ()) if self.made_by.get(n) == "read" else ()
                if written and not any(start < w < at for w in written):  # (written into the slot later: by
                    continue  # an earlier iteration, or not yet)
                if m not in found:
                    found.add(m)
                    todo.append(m)
        return False

    def check_through_calls(self, eq, pos, loops, name: str, what: str) -> None:
        """A change of an array a helper returned that may be (or view) another array, or of an array
        handed to a helper whose result, which may be it, is still used: the other name sees it."""
        own = {self.find(m) for m in self.sources(name)} | {self.find(name)}
        for m in self.sources(name):
            if m not in self.returned:
                continue
            call = self.returned[m][0]
            callee = _callee_name(call)
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
            alive = next((o for o in others if self.used_after(self.sharing(o), pos, loops)), None)
            if alive is not None:
                construct = f"{result}, which may be {_root(alive)} or a view of it, while {_root(alive)} is still used"
                self.refuse(eq, construct, remedy, name)
        for u, (call, _) in list(self.returned.items()):  # handed to a helper earlier: its result may be it
            if self.find(u) in own or self.defined.get(u, (pos, ()))[0] >= pos:
                continue
            if any(self.find(o) in own for o in self.memory_of(u) if o != MODULE):
                if self.used_after(self.sharing(u), pos, loops):
                    callee = _callee_name(call)
                    self.refuse(
                        eq,
                        f"{what} an array handed to {callee} while {_root(u)}, which {callee} returned and which "
                        "may be that array or a view of it, is still used",
                        f"copy what {callee} returns ({_root(u)} = {callee}(...).copy())",
                        name,
                    )

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


def _callee_name(call) -> str:
    """The name of what a call equation calls: a user function's, or a library function's (its spelling)."""
    name = getattr(call.param, "__name__", None)
    if name is None and isinstance(call.param, tuple) and len(call.param) > 4:  # ("library", path, ..., spelt)
        name = call.param[4]
    return name or call.prim.rpartition(".")[2]


def _written_name(text: str) -> str | None:
    """The name written into on the line ``text`` (``v`` of ``v[1] = 3.0``), or None."""
    try:
        stmt = ast.parse(text.strip()).body[0]
    except (SyntaxError, IndexError):
        return None
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    for t in targets:
        while isinstance(t, ast.Subscript):
            t = t.value
        if isinstance(t, ast.Name):
            return t.id
    return None


def _root(name: str) -> str:
    """The user's name behind an SSA name: ``b_2`` -> ``b``."""
    from ..front.names import root

    return root(name)


def _aug_target(text: str):
    """The name an augmented assignment on this source line changes, and its operator: ``(c, +)``."""
    import re

    found = re.match(r"\s*([A-Za-z_]\w*)\s*(\+|-|\*\*|\*|//|/|%|@)=", text)
    return (found.group(1), found.group(2)) if found else None


def _word_column(text: str, name: str) -> int:
    """Where ``name`` stands as a word of its own on a source line (an argument: ``bump(idx, 0)``), else
    ``_column``'s answer."""
    found = re.search(rf"(?<![\w.]){re.escape(name)}\b", text)
    return found.start() if found else _column(text, name)


def _column(text: str, name: str) -> int:
    """Where ``name`` is changed on a source line: ``name[`` or ``name +=`` (else the first word)."""
    for pattern in (f"{name}[", f"{name} +=", f"{name} -=", f"{name} *=", f"{name} /=", f"{name}."):
        k = text.find(pattern)
        while k > 0 and (text[k - 1].isalnum() or text[k - 1] == "_"):
            k = text.find(pattern, k + 1)
        if k >= 0:
            return k
    return len(text) - len(text.lstrip())
