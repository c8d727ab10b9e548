"""``Source``: generated source text as ``f.source()`` returns it, a ``str`` that Jupyter shows with
syntax highlighting (through Pygments, an optional dependency) and IPython's terminal as plain text."""

from __future__ import annotations

from typing import Any


class Source(str):
    """Python source text (a ``str``): highlighted in Jupyter when Pygments is installed, plain elsewhere."""

    __slots__ = ()

    def _repr_html_(self) -> str | None:
        """The text as highlighted HTML (inline styles, so it needs no stylesheet); None without
        Pygments, and Jupyter then shows the plain text."""
        try:
            from pygments import highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import PythonLexer
        except ImportError:
            return None
        return highlight(str(self), PythonLexer(), HtmlFormatter(noclasses=True))

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's plain-text display: the code as it reads, not a quoted string."""
        printer.text(str(self))
