"""The targets as registered objects (issue 34): what ``differentiate(backend=..., arrays=...)`` and
the higher derivatives ask of the place generated code runs, so that the API never compares a target's
name.

A ``Target`` holds the driver it builds with, how it makes the entry function of a mode from the
generated functions (None: the python target's plain loading, which the API does), what a Hessian
differentiates in forward mode and how it assembles the rows, whether its derivatives may be generated
code a derivative calls (``lower.nested``), and what ``adc compile`` does to the module it writes and to
the user's functions it copies there.  What ``f.source()`` prints is the code its passes built.
``of(backend, arrays)`` is the one place the user's two options choose one.
"""

from __future__ import annotations

import types

from dataclasses import dataclass
from typing import Callable

from ..compile.pipeline import PYTHON_PASSES, Program, TargetPasses
from ..options import Options
from .array_api import backend as array_api
from .numba import backend as numba


@dataclass(frozen=True)
class Target:
    """One place generated code runs (see the module docstring)."""

    name: str
    passes: TargetPasses = PYTHON_PASSES  # what it adds to the driver (Numba's: its options and refusals)
    load: Callable | None = None  # (owner, program, built, mode, sig) -> the entry function
    reverse_code: Callable | None = (
        None  # (d, sig, mode) -> the reverse (or grad) code a Hessian (hvp) runs forward mode over
    )
    hessian_rows: Callable | None = None  # (r, args, zeros, written) -> the Hessian's rows, one pass each
    nests: bool = True  # whether its generated code may be called inside a differentiated function
    second_order: bool = True  # whether its code can be differentiated again (hessian, jacfwd(jacrev))
    dispatchers: bool = False  # its entries hold the compiled dispatchers njit code calls (``compiled()``)
    small_rows: bool = False  # its code is built for the length of short rows, held as numbers (lower.small_arrays)
    numpy_only: bool = True  # its code takes NumPy arrays only (others refused at the call; fast entries test them)
    unwrap: Callable | None = None  # fn -> the function it differentiates (a @numba.njit one's Python function)
    finish_defs: Callable | None = None  # the generated functions of a written module (adc compile), on the IR
    write: Callable | None = None  # (text, program, path, the file's names, the lines' origins) -> adc compile's module
    copied: Callable | None = None  # (functions, program, the file's names) -> the user's functions adc compile copies
    constant: Callable = lambda value: value  # noqa: E731 - a global's value as adc compile writes it for the code

    def program(self, globals_, options: Options) -> Program:
        """A driver that builds this target's code for a function reading ``globals_``."""
        return Program(globals_, options, self.passes)

    def unwrapped(self, fn):
        """The function this target differentiates for ``fn`` (what ``differentiate`` is handed)."""
        return fn if self.unwrap is None else self.unwrap(fn)

    def __str__(self) -> str:
        return self.name


def _python_of(fn):
    """A ``@numba.njit`` dispatcher's Python function (what the dispatcher runs, compiled), differentiated as
    Python code by the targets that do not compile (docs/numba.md's prange example with ``backend="python"``,
    which every refusal of the Numba target suggests); anything else as it is.  Numba is not imported."""
    py_func = getattr(fn, "py_func", None)
    compiled = type(fn).__module__.split(".")[0] == "numba"
    return py_func if compiled and isinstance(py_func, types.FunctionType) else fn


PYTHON = Target("python", unwrap=_python_of)
NUMBA = Target(
    "numba",
    passes=numba.PASSES,
    load=numba.build,
    reverse_code=numba.reverse_code,
    hessian_rows=numba.hessian_rows,
    nests=False,
    dispatchers=True,
    small_rows=True,
    unwrap=lambda fn: numba.for_backend(fn, "numba"),
    finish_defs=numba.finished_defs,
    write=numba.written,
    constant=numba.written_constant,
)
ARRAY_API = Target(
    "array_api",
    passes=array_api.PASSES,
    load=lambda owner, program, built, mode, sig: array_api.build(owner, program, built, mode),
    nests=False,
    second_order=False,
    numpy_only=False,
    copied=array_api.copied,
    unwrap=_python_of,
)
_REGISTERED = {t.name: t for t in (PYTHON, NUMBA, ARRAY_API)}


def register(target: Target) -> None:
    """Make ``target`` one ``of`` may choose (by its name, as ``backend=``)."""
    _REGISTERED[target.name] = target


def backends() -> tuple:
    """The names ``backend=`` (and ``adc compile --target``) takes."""
    return tuple(n for n in _REGISTERED if n != ARRAY_API.name)


def of(backend: str, arrays: str) -> Target:
    """The target ``differentiate(backend=..., arrays=...)`` asks for: the array API's for ``arrays="any"``,
    else the one registered under ``backend``."""
    array_api.check(arrays, backend)
    if arrays == "any":
        return ARRAY_API
    if backend not in backends():
        names = ", ".join(map(repr, backends()))
        raise ValueError(f"backend={backend!r}: choose one of {names}")
    return _REGISTERED[backend]
