"""Errors that point at the user's source: file, line, column, construct, remedy."""

from __future__ import annotations


class UnsupportedSyntaxError(SyntaxError):
    """A construct outside the differentiable subset, located in the user's file.

    It is a SyntaxError so that tracebacks and editors show the file and line;
    the message says what the construct is and what to write instead.
    """

    def __init__(
        self,
        construct: str,
        remedy: str,
        filename: str,
        lineno: int,
        col: int,
        text: str | None = None,
    ):
        self.construct = construct
        self.remedy = remedy
        message = f"{filename}:{lineno}:{col + 1}: {construct} is not supported; {remedy}"
        super().__init__(message, (filename, lineno, col + 1, text))


def at_line(source, line: int, construct: str, remedy: str, cls=None) -> UnsupportedSyntaxError:
    """The located error (``cls``, by default ``UnsupportedSyntaxError``) for a construct on ``line`` of a
    function's ``source`` (a ``front.parse.Source``), at the line's first column: what the analysis, which
    has lines but no ast nodes, refuses."""
    text = source.lines.get(line, "")
    cls = cls or UnsupportedSyntaxError
    return cls(construct, remedy, source.filename, line, len(text) - len(text.lstrip()), text)


class MissingKeyError(UnsupportedSyntaxError, KeyError):
    """A read of a dict (or record) by a key it does not have: the primal's KeyError, located."""


class UnknownKindError(UnsupportedSyntaxError):
    """An active value whose kind (a list, a number, None) the arguments' kinds do not decide: a list where the
    function multiplies numbers, None, a string.  Where the function itself raises for the arguments of the call
    (Python's ``TypeError``), the call raises that error instead, as every derivative raises its primal's."""


class MissingRuleError(UnsupportedSyntaxError):
    """A call to a function that has neither a derivative rule nor Python source."""


class ReverseOnlyError(MissingRuleError):
    """Forward mode of a function whose rule is a vjp only (``custom_vjp``): reverse mode has it."""


class StaleSourceError(UnsupportedSyntaxError):
    """A function whose source, as its file holds it now, is not the code it runs (the file edited
    after the module was imported, or ``__code__`` replaced): never differentiated."""


def located(
    node,
    filename: str,
    lines: dict[int, str],
    construct: str,
    remedy: str,
    cls=UnsupportedSyntaxError,
):
    """Build a located error for an `ast` node whose line numbers are file-absolute."""
    lineno = getattr(node, "lineno", 0)
    col = getattr(node, "col_offset", 0)
    return cls(construct, remedy, filename, lineno, col, lines.get(lineno))
