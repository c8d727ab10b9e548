"""Source -> callables: compile under a unique filename registered in ``linecache``.

Registering the text means tracebacks, ``inspect.getsource`` and pdb show the
generated code, and that generated functions can themselves be differentiated.
"""

from __future__ import annotations

import itertools
import linecache
import glob
import os
import secrets
import stat
import time
from pathlib import Path

_counter = itertools.count(1)


def load(source: str, namespace: dict, label: str) -> dict:
    """Execute generated ``source`` in ``namespace`` and return the namespace."""
    filename = f"<adcompiler {label} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and a rename.

    Readers see the old file or the new one, never a part; on failure ``path`` is untouched and the
    temporary file removed. The file gets the permissions an ordinary ``open(path, "w")`` would give:
    the permission bits of the file it replaces, else ``0o666`` less the umask (not ``0o600``, as a
    ``tempfile.mkstemp`` file would have, which only its owner could read).
    """
    path = Path(path)
    try:
        old = os.stat(path)
        mode = old.st_mode & 0o777 if stat.S_ISREG(old.st_mode) else None
    except OSError:  # no such file yet (or unreadable metadata): a new file's permissions
        mode = None
    _remove_stale_temporaries(path)
    tmp, fd = _create_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:  # Python reads source files as UTF-8
            if mode is not None:
                os.chmod(f.fileno() if os.chmod in os.supports_fd else tmp, mode)
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _remove_stale_temporaries(path: Path, age: float = 60.0) -> None:
    """Remove the temporary files an earlier write of ``path`` left when it was killed mid-write (older
    than ``age`` seconds, so a write running now keeps its own)."""
    now = time.time()
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        try:
            if now - tmp.stat().st_mtime > age:
                tmp.unlink()
        except OSError:
            pass


def _create_beside(path: Path) -> tuple[Path, int]:
    """A new, empty, hidden file next to ``path`` (same directory, so the rename is atomic): its path and
    an open descriptor. Created with mode ``0o666`` and ``O_EXCL``, so the umask applies and no existing
    file is ever opened."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
        try:
            return tmp, os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")
