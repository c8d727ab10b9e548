"""Where ``adc compile`` writes its module, and how: never over anything it was not asked to write.

``-o PATH`` is written according to what PATH is:

- a regular file, or a name not yet taken: the module is written to a temporary file beside it and
  renamed over it, so readers see the old file or the new one, never a part;
- a symbolic link: followed, as the shell's ``>`` follows it; the file it points to is written as
  above and the link stays a link;
- ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``: adc's own descriptor, written into as it is (a pipe,
  a terminal, a file the shell opened for appending);
- a character device or a FIFO (``/dev/null``, a named pipe): written into, as ``>`` writes into it;
  it is never replaced by a regular file;
- anything else (a directory, a block device, a socket): refused, and nothing is written.

The temporary files are named ``.NAME.adc-PID-TOKEN.tmp``.  One that a killed run left beside NAME is
removed by the next write of NAME once the process that made it has gone; no other file is removed.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from pathlib import Path


class OutputRefused(Exception):
    """``-o`` names something adc does not write (a directory, a block device, a socket, an input)."""


def write_output(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` as the module docstring says; ``OutputRefused`` or ``OSError`` when it cannot."""
    descriptor = _descriptor(path)
    if descriptor is not None:  # /dev/stdout: adc's own output, wherever it goes (a pipe, a file appended to)
        with open(os.dup(descriptor), "w", encoding="utf-8") as stream:
            stream.write(text)
        return
    try:
        mode = os.stat(path).st_mode  # through any symbolic link
    except FileNotFoundError:
        mode = None
    if mode is not None and (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
        with open(fd, "w", encoding="utf-8") as stream:  # it exists: no O_CREAT, no O_TRUNC, no rename over it
            stream.write(text)
        return
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputRefused(f"it is {_kind(mode)}; adc writes regular files, character devices and FIFOs")
    write_atomic(Path(os.path.realpath(path)), text)  # a link (or a chain of them) followed to the file it names


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to the regular file ``path`` through a temporary file in the same directory and a rename.

    On failure ``path`` is untouched and the temporary file removed. The file gets the permissions an
    ordinary ``open(path, "w")`` would give: the permission bits of the file it replaces, else ``0o666``
    less the umask (not ``0o600``, as a ``tempfile.mkstemp`` file would have, which only its owner could read).
    """
    try:
        old = os.stat(path)
        mode = old.st_mode & 0o777 if stat.S_ISREG(old.st_mode) else None
    except OSError:  # no such file yet (or unreadable metadata): a new file's permissions
        mode = None
    remove_stale_temporaries(path)
    tmp, fd = _create_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:  # Python reads source files as UTF-8
            if mode is not None:
                os.chmod(f.fileno() if os.chmod in os.supports_fd else tmp, mode)
            f.write(text)
        try:  # replaced between the check and now by something that is not a regular file: keep it
            now = os.lstat(path).st_mode
        except FileNotFoundError:
            now = None
        if now is not None and not stat.S_ISREG(now):
            raise OutputRefused(f"it became {_kind(now)} while the module was written; it was left as it is")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def temporary_name(path: Path, pid: int, token: str) -> Path:
    """The temporary file a write of ``path`` by process ``pid`` uses."""
    return path.parent / f".{path.name}.adc-{pid}-{token}.tmp"


def remove_stale_temporaries(path: Path) -> list:
    """Remove the temporary files beside ``path`` that a write by a process now gone left (killed
    mid-write); only names of this tool's pattern, never another file.  The paths removed."""
    pattern = re.compile(re.escape(f".{path.name}.adc-") + r"(\d+)-[0-9a-f]{16}\.tmp")
    removed = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    for entry in entries:
        found = pattern.fullmatch(entry.name)
        if found is None or _alive(int(found[1])):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            pass
    return removed


def _descriptor(path) -> int | None:
    """The open descriptor ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N`` or ``/proc/self/fd/N`` names: written
    into as it is (a pipe, a socket, a file opened for appending), never reopened or replaced."""
    spelt = os.path.normpath(str(path))
    if spelt in ("/dev/stdout", "/dev/stderr"):
        return {"/dev/stdout": 1, "/dev/stderr": 2}[spelt]
    for prefix in ("/dev/fd/", "/proc/self/fd/", f"/proc/{os.getpid()}/fd/"):
        number = spelt[len(prefix) :]
        if spelt.startswith(prefix) and number.isdigit():
            return int(number)
    return None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError, OSError):
        return True  # someone else's process: not ours to judge
    return True


def _create_beside(path: Path) -> tuple[Path, int]:
    """A new, empty, hidden file next to ``path`` (same directory, so the rename is atomic): its path and
    an open descriptor. Created with mode ``0o666`` and ``O_EXCL``, so the umask applies and no existing
    file is ever opened."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp = temporary_name(path, os.getpid(), secrets.token_hex(8))
        try:
            return tmp, os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (the same path once resolved, or another link to it)."""
    if Path(os.path.realpath(a)) == Path(os.path.realpath(b)):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    return "not a regular file"
