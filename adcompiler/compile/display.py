"""``Source``: generated source text as ``f.source()`` returns it, a ``str`` that Jupyter shows with
syntax highlighting (through Pygments, an optional dependency) and IPython's terminal as plain text;
``Page``: the page ``f.source(html=True)`` returns, shown by Jupyter in a frame."""

from __future__ import annotations

from html import escape
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


class Page(str):
    """A whole HTML page (a ``str``, ``back.page``): Jupyter shows it in a frame of its own."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        """The page in an ``iframe`` (its styles and script kept to itself)."""
        return f'<iframe srcdoc="{escape(str(self), quote=True)}" style="width:100%;height:36em;border:0"></iframe>'
