"""What every part of the lowering of one function shares: the equations being emitted and the names
they bind.

An ``Emitter`` holds the state of one function's lowering (the parsed function, its namer, the block
of statements being built, the environment of names, the slots and what was read of them) and the
few operations every concept lowers with: ``apply`` (emit ``out = prim(*args)``), ``new_var``,
``atom``, ``element`` (a value made storable), ``read``/``write`` of a slot, ``hidden_slot`` and
``collected`` (the statements a builder emits, as a block of their own).  The concept lowerers
(``anf``'s statements, ``expressions``, ``names``, ``lists``, ``arrays``, ``spellings``, ``idioms``,
``records``, ``nested``) each hold this one emitter and change the state only through it.
"""

from __future__ import annotations

import ast

from ..front.names import Namer, root
from ..front.parse import Parsed
from ..ir.nodes import Eq, Var
from .records import Record


class Emitter:
    """The state of lowering one function, and the operations that emit its equations."""

    def __init__(self, parsed: Parsed, namer: Namer):
        self.parsed = parsed
        self.namer = namer
        self.env: dict = {}  # a name -> its atom or symbolic tuple (a record, a tuple of atoms)
        self.defined: set = set()  # SSA names already given out in this function
        self.slots: set = set()  # the names assigned in several places: read and written, not bound
        self.body: list = []  # the block being built
        self.made_by: dict = {}  # each variable apply made -> the primitive that made it
        self.line = parsed.node.lineno
        self.pinned: dict = {}  # slot -> its value read once before a loop that never assigns it
        self.called: dict = {}  # a loop's name -> the function it stands for (a loop over functions, unrolled)
        self.last_read: dict = {}  # slot -> (the block, its read there): reused until the slot is written
        self.loop_names: set = set()  # every name a for loop binds (read after its loop: refused, ``names``)

    def apply(self, prim: str, args: list, hint: str | None, param=None) -> Var:
        """Emit ``out = prim(*args)`` and return ``out``."""
        for a in args:
            if isinstance(a, tuple):
                raise self.parsed.error(
                    self.here(),
                    "arithmetic on a tuple",
                    "unpack the tuple into names first",
                )
        out = self.new_var(hint)
        self.body.append(Eq((out,), prim, tuple(args), self.line, param))
        self.made_by[out.name] = prim
        return out

    def new_var(self, hint: str | None) -> Var:
        """The user's own name for its first definition, ``z_1``, ``z_2`` after; ``t1`` without a name."""
        if hint is None:
            return Var(self.namer.temp())
        user_name = not self.namer._free(hint)  # a name of the user's, reserved: its first definition keeps it
        name = hint if hint not in self.defined and user_name else self.namer.fresh(hint)
        self.defined.add(name)
        return Var(name)

    def atom(self, value):
        if isinstance(value, tuple):
            raise self.parsed.error(self.here(), "a tuple used as a condition or loop bound", "use a single number")
        return value

    def here(self) -> ast.stmt:
        """A node at the statement being lowered (its line, its indentation), where an error is told."""
        text = self.parsed.source.lines.get(self.line, "")
        return ast.Pass(lineno=self.line, col_offset=len(text) - len(text.lstrip()))

    def element(self, value):
        """A value stored in a container: symbolic tuples become real ones (a record's with its keys)."""
        if isinstance(value, Record):
            value.shared = True
            return self.apply("tuple", [self.element(v) for v in value], None, param=value.fields)
        if isinstance(value, tuple):
            return self.apply("tuple", [self.element(v) for v in value], None)
        return value

    def hidden_slot(self, base: str) -> Var:
        """A slot the user did not name (a return value, a flag, a conditional expression's value)."""
        slot = Var(self.namer.fresh(base))
        self.slots.add(slot.name)
        return slot

    def read(self, slot: Var) -> Var:
        """The slot's value: one read per block until the slot is written (``px * px`` reads px once, so
        reverse mode tapes it once)."""
        last = self.last_read.get(slot.name)
        if last is not None and last[0] is self.body:
            return last[1]
        out = Var(self.namer.fresh(root(slot.name)))
        self.body.append(Eq((out,), "read", (slot,), self.line))
        self.last_read[slot.name] = (self.body, out)
        return out

    def write(self, slot: Var, value, line: int) -> None:
        self.body.append(Eq((slot,), "write", (value,), line))
        self.last_read.pop(slot.name, None)

    def collected(self, build) -> tuple:
        """The statements ``build()`` emits, collected into a separate block."""
        saved = self.body
        self.body = []
        build()
        out, self.body = tuple(self.body), saved
        return out


def leaf_hint(hint, index=None):
    """The single-name part of a name hint (``index``: of a tuple hint, named like the target unpacked)."""
    if index is not None:
        return hint[index] if isinstance(hint, tuple) and index < len(hint) else None
    return hint if isinstance(hint, str) else None
