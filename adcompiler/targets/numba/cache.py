"""Compiled derivatives kept on disk across processes: each generated module of ``backend="numba"``
written once to a cache directory as a file named by a hash of its source and of everything Numba
freezes into the machine code (the values of the globals the code reads, the code of the functions it
calls), loaded from there and compiled by ``numba.njit(cache=True)``, so that Numba's own cache
(beside the file, in ``__pycache__``, keyed by the argument types) serves a later process.

The directory: ``$ADCOMPILER_CACHE_DIR`` (empty: no cache), else ``adcompiler/numba`` under
``$XDG_CACHE_HOME`` or ``~/.cache``.  Nothing is written anywhere else: where the directory cannot be
made or written, or the code reads something without a stable fingerprint (a closure's cell, an
object of a class of the user's), the module is compiled in this process only, as without a cache.
A file is never rewritten (its time stamp is part of Numba's key): a new source, or a changed global
or callee, is a new file.
"""

from __future__ import annotations

import builtins
import hashlib
import os
import symtable
import sys
import tempfile
import types
import warnings

VERSION = "1"  # of the scheme: changing it leaves every older file unused


def _helpers_mark() -> str:
    """A hash of the runtime helpers' texts (``runtime.NUMBA_HELPERS``) and of ``library``'s source: the code
    imports the helpers' stubs from ``live`` and calls ``library``'s stand-ins, whose fingerprints do not
    show the overloads Numba compiles into it."""
    global _HELPERS_MARK
    if _HELPERS_MARK is None:
        from . import library
        from .runtime import NUMBA_HELPERS

        with open(library.__file__, encoding="utf-8") as stand_ins:
            texts = "\0".join(f"{k}\0{v}" for k, v in sorted(NUMBA_HELPERS.items())) + stand_ins.read()
        _HELPERS_MARK = hashlib.sha256(texts.encode()).hexdigest()
    return _HELPERS_MARK


_HELPERS_MARK = None


def directory() -> str | None:
    """The writable directory generated modules are kept in (made if missing), or None."""
    root = os.environ.get("ADCOMPILER_CACHE_DIR")
    if root is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "adcompiler")
    if not root:
        return None
    where = os.path.join(root, "numba")
    try:
        os.makedirs(os.path.join(where, "__pycache__"), exist_ok=True)  # Numba's, which it must write
    except OSError:
        return None
    if not all(os.access(p, os.W_OK | os.X_OK) for p in (where, os.path.join(where, "__pycache__"))):
        return None  # (Numba would then cache elsewhere: not at all instead)
    return where


def place(where: str, source: str, read: dict) -> str | None:
    """The path of the file in ``where`` holding ``source``, named by the hash of it and of ``read``
    (name -> the value the code reads by it), written now if missing; None where a value read has
    no fingerprint or the file cannot be written."""
    import numba  # (its version and optimisation level: code compiled at NUMBA_OPT=0 serves no other)

    digest = hashlib.sha256(f"{VERSION} {numba.__version__} {numba.config.OPT}\0{source}".encode())
    digest.update(
        _helpers_mark().encode()
    )  # (the helpers' overloads are compiled into the code: a new one, a new file)
    for name in sorted(read):
        mark = fingerprint(read[name], set())
        if mark is None:
            return None
        digest.update(f"\0{name}={mark}".encode())
    path = os.path.join(where, f"adc_{digest.hexdigest()[:32]}.py")
    _quiet(numba)  # (the file written now or by an earlier process: the same functions of it)
    try:
        if os.path.exists(path):
            with open(path, encoding="utf-8") as file:
                return path if file.read() == source else None
        fd, temporary = tempfile.mkstemp(suffix=".tmp", dir=where)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(source)
        os.chmod(temporary, 0o644)  # (mkstemp's is 0o600)
        os.replace(temporary, path)  # whole or not at all, for a process reading it at the same time
    except OSError:
        return None
    return path


def _quiet(numba) -> None:
    """No warning when Numba cannot cache a function of these files (one that holds a typed list, for
    which it uses "dynamic globals"): it is compiled in each process, as without a cache."""
    warnings.filterwarnings(
        "ignore", ".*Cannot cache compiled function", numba.core.errors.NumbaWarning, r".*adc_[0-9a-f]{32}\Z"
    )


def global_reads(source: str) -> set:
    """The names ``source`` reads as globals (at its top level, or from a function) and does not bind at
    its top level: what compiled code freezes."""
    top = symtable.symtable(source, "<adcompiler>", "exec")
    found = {s.get_name() for s in top.get_symbols() if s.is_referenced() and not (s.is_assigned() or s.is_imported())}
    tables = list(top.get_children())
    while tables:
        table = tables.pop()
        tables += table.get_children()
        found |= {s.get_name() for s in table.get_symbols() if s.is_global() and s.is_referenced()}
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    return found - bound


_PLAIN = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis), type(NotImplemented))  # (by repr)


def fingerprint(value, seen: set) -> str | None:
    """A text that stays the same across processes while ``value`` means the same to compiled code,
    or None: numbers and strings by value, arrays by dtype, shape and bytes, modules, classes and
    builtins by name, functions (and Numba dispatchers) by their code, defaults, closure and the
    globals they read, in turn; None for a function of a module ``sys.modules`` lacks (one made
    with ``exec``, or loaded from a path without registering it): Numba could not load its code."""
    if isinstance(value, _PLAIN):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, (tuple, list)):
        parts = [fingerprint(v, seen) for v in value]
        return None if None in parts else f"{type(value).__name__}({','.join(parts)})"
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}"
    if isinstance(value, (type, types.BuiltinFunctionType)):
        return f"{type(value).__name__}:{getattr(value, '__module__', '')}.{value.__qualname__}"
    if type(value).__module__ == "numpy" and hasattr(value, "dtype"):  # an array, a NumPy scalar
        shape = getattr(value, "shape", ())
        data = value.tobytes() if hasattr(value, "tobytes") else repr(value).encode()
        return f"numpy:{value.dtype.str}:{shape}:{hashlib.sha256(data).hexdigest()}"
    py_func = getattr(value, "py_func", None)  # a Numba dispatcher
    if isinstance(py_func, types.FunctionType):
        options = getattr(value, "targetoptions", {})
        inner = fingerprint(py_func, seen)
        return None if inner is None else f"dispatcher:{sorted(options.items())!r}:{inner}"
    if isinstance(value, types.FunctionType):
        if id(value) in seen:  # (recursion: its code is already in)
            return f"function:{value.__qualname__}"
        if value.__globals__.get("__name__") not in sys.modules:  # Numba imports it to load the cached code
            return None
        seen.add(id(value))
        parts = [_code(value.__code__), fingerprint(value.__defaults__, seen)]
        parts += [fingerprint(c.cell_contents, seen) if _filled(c) else "empty" for c in value.__closure__ or ()]
        spaces = (value.__globals__, vars(builtins))
        for name in sorted(_names(value.__code__)):
            found = next((space[name] for space in spaces if name in space), _MISSING)
            parts.append(f"{name}=" + ("-" if found is _MISSING else str(fingerprint(found, seen))))
        return (
            None
            if None in parts
            else f"function:{value.__qualname__}:{hashlib.sha256(''.join(parts).encode()).hexdigest()}"
        )
    return None


_MISSING = object()


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _code(code: types.CodeType) -> str:
    """The code object's bytecode, constants and names (of its inner functions too)."""
    consts = [_code(c) if isinstance(c, types.CodeType) else _const(c) for c in code.co_consts]
    return f"{code.co_code.hex()}|{'|'.join(consts)}|{','.join(code.co_names)}"


def _const(value) -> str:
    """A constant's text, a frozenset's sorted (its order changes with the process's hash seed)."""
    return repr(sorted(map(repr, value))) if isinstance(value, frozenset) else repr(value)


def _names(code: types.CodeType) -> set:
    """The global names a function's code (and the code of functions it defines) reads."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names(c)
    return names
