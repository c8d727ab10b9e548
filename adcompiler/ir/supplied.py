"""Constants generated code reads that no literal writes: an array as a parameter's default.  Lowering
makes one a ``Const`` holding a ``Supplied`` (compared by identity, as an array cannot be); the
analysis reads the value inside; the emitter writes a name (``front.names.Namespace.constant``) under
which the code is handed the value when it is loaded, or which a written module defines."""

from __future__ import annotations

from dataclasses import dataclass

from .nodes import Const


@dataclass(frozen=True, eq=False)
class Supplied:
    """A constant handed to generated code under a name made from ``hint``."""

    value: object
    hint: str = "constant"


def constant(value, hint: str = "constant") -> Const:
    """The atom of a constant value: itself where it is a literal, else ``Supplied`` under ``hint``."""
    return Const(value if _literal(value) else Supplied(value, hint))


def known(a: Const):
    """A constant's value (a ``Supplied`` one's own)."""
    return a.value.value if isinstance(a.value, Supplied) else a.value


def _literal(value) -> bool:
    if isinstance(value, tuple):
        return all(_literal(v) for v in value)
    return value is None or value is Ellipsis or type(value) in (int, float, bool, complex, str, bytes)
