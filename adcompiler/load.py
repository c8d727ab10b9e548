"""Source -> callables: compile under a unique filename registered in ``linecache``.

Registering the text means tracebacks, ``inspect.getsource`` and pdb show the
generated code, and that generated functions can themselves be differentiated.
"""

from __future__ import annotations

import itertools
import linecache
import os
import tempfile
from pathlib import Path

_counter = itertools.count(1)


def load(source: str, namespace: dict, label: str) -> dict:
    """Execute generated ``source`` in ``namespace`` and return the namespace."""
    filename = f"<adcompiler {label} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
