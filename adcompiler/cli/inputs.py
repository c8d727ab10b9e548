"""The files ``adc`` reads: a user's file as a module (read without running it, or imported whole), each
failure a ``LoadError`` naming the file and line; located errors with the file named as the user spelt it."""

from __future__ import annotations

import os
import traceback
from pathlib import Path

from ..errors import UnsupportedSyntaxError
from ..front.files import ReadError, read_definitions
from ..front.parse import load_file


class LoadError(Exception):
    """The input file could not be imported: a syntax error in it, or an exception raised while running its
    top level (an import that fails, a ``raise``, ``sys.exit``). The message names the file (and the line)."""


def import_input(path: str, run: bool):
    """The user's file as a module: read without running any of it (``front.files``), or with ``run``
    (``--import``) imported whole; a failure is a ``LoadError`` saying where and why.  A name the chosen
    functions read that the reader could not know is reported when building meets it.

    Only what loading the file raises is caught here: with ``run`` the user's code and the modules it
    imports run, and whatever they raise is the input's fault, not adcompiler's. KeyboardInterrupt
    still stops adc.
    """
    try:
        if run:
            return load_file(path)
        return read_definitions(path).module
    except ReadError as exc:
        raise LoadError(f"{path}:{exc.line}: importing it raised {describe(exc.exc)}{exc.hint}") from exc
    except SyntaxError as exc:
        if same_file(exc.filename, path):
            where = f"{path}:{exc.lineno}" + (f":{exc.offset}" if exc.offset else "")
            raise LoadError(f"{where}: SyntaxError: {exc.msg}") from exc
        raise LoadError(f"{frame_in(path, exc)}: importing it raised {describe(exc)}") from exc
    except OSError as exc:
        if same_file(exc.filename, path):
            raise LoadError(f"{path}: cannot read it: {exc.strerror or exc}") from exc
        raise LoadError(f"{frame_in(path, exc)}: importing it raised {describe(exc)}") from exc
    except (Exception, SystemExit) as exc:
        raise LoadError(f"{frame_in(path, exc)}: importing it raised {describe(exc)}") from exc


def same_file(name, path: str) -> bool:
    """Whether an exception's ``filename`` is the input file (the loader reports it resolved)."""
    try:
        return name is not None and os.path.samefile(name, path)
    except (OSError, TypeError, ValueError):
        return False


def frame_in(path: str, exc: BaseException) -> str:
    """``path:LINE`` of the input's line that was running when ``exc`` was raised (``path`` alone if none)."""
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if same_file(f.filename, path)]
    return f"{path}:{lines[-1]}" if lines and lines[-1] else path


def describe(exc: BaseException) -> str:
    """``Type: message`` as the last line of a traceback would say it (SyntaxErrors keep their file and line)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def as_spelt(exc: UnsupportedSyntaxError, path: Path) -> str:
    """A located error's message, its place named once as the user would write it: the input file as
    spelt on the command line, another file (a module of the user's) relative to the working directory
    when it is under it."""
    message = exc.msg
    if not exc.filename or not message.startswith(exc.filename):
        return message
    if same_file(exc.filename, path):
        return str(path) + message[len(exc.filename) :]
    try:
        relative = os.path.relpath(exc.filename)
    except ValueError:  # another drive
        return message
    if relative.startswith(os.pardir):
        return message
    return relative + message[len(exc.filename) :]
