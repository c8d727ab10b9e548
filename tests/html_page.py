"""Reading a side-by-side page (adcompiler/compile/page.py) back with the standard library's html.parser, for
tests/test_html_view.py: its elements, whether they nest properly, its links, and the code it shows."""

from __future__ import annotations

import re
from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "embed", "source", "track", "wbr"}


class Page(HTMLParser):
    """A parsed page: ``ids`` (id -> attributes), ``lines`` (line id -> its code as text), ``hrefs``,
    ``problems`` (tags that do not nest), ``styles`` and ``scripts`` (their text)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.stack: list = []
        self.problems: list = []
        self.ids: dict = {}
        self.hrefs: list = []
        self.urls: list = []  # every src, href, action, ... value
        self.lines: dict = {}
        self.order: list = []  # line ids, in document order
        self.listing_of: dict = {}  # generated line id -> its listing's title
        self.titles: dict = {}  # listing id -> its title
        self.styles: list = []
        self.scripts: list = []
        self.doctype = False
        self._line = None  # the line whose code is being read (in its span class="src")
        self._depth_in_src = 0
        self._text: list = []
        self._listing = None
        self.feed(text)
        self.close()
        if self.stack:
            self.problems.append(f"unclosed: {self.stack}")

    def handle_decl(self, decl):
        self.doctype = decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name, value in attrs:
            if value is not None and name in ("src", "href", "action", "data", "poster", "srcset", "formaction"):
                self.urls.append(value)
        if "id" in a:
            if a["id"] in self.ids:
                self.problems.append(f"duplicate id {a['id']}")
            self.ids[a["id"]] = a
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])
        if tag not in VOID:
            self.stack.append(tag)
        classes = (a.get("class") or "").split()
        if tag == "div" and "listing" in classes:
            self._listing = a["id"]
        if tag == "div" and "line" in classes:
            self._line = a["id"]
            self.order.append(a["id"])
            self.lines[a["id"]] = ""
            if self._listing:
                self.listing_of[a["id"]] = self._listing
        if tag == "span" and "src" in classes and self._line:
            self._depth_in_src = 1
        elif tag == "span" and self._depth_in_src:
            self._depth_in_src += 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()
        if tag == "span" and self._depth_in_src:
            self._depth_in_src -= 1
        if tag == "style":
            self.styles.append("".join(self._text))
        if tag == "script":
            self.scripts.append("".join(self._text))
        self._text = []

    def handle_data(self, data):
        self._text.append(data)
        if self._depth_in_src and self._line:
            self.lines[self._line] += data

    # ---- what the tests ask ----------------------------------------------------------------

    def code(self, listing: str) -> str:
        """The code a listing shows, as text (one line per line element)."""
        ids = [i for i in self.order if self.listing_of.get(i) == f"tab-{listing}"]
        return "".join(self.lines[i] + "\n" for i in ids)

    def user_lines(self) -> list:
        """The ids of the user's lines (every line outside a listing)."""
        return [i for i in self.order if i not in self.listing_of]

    def targets(self, line_id: str) -> list:
        return (self.ids[line_id].get("data-to") or "").split()

    def generated(self, listing: str) -> list:
        return [i for i in self.order if self.listing_of.get(i) == f"tab-{listing}"]


def external(page: Page, text: str) -> list:
    """What in the page would be fetched from elsewhere: URLs that are not fragments, ``@import``, ``url(``."""
    found = [u for u in page.urls if not u.startswith("#")]
    found += re.findall(r"@import|url\(|https?://", " ".join(page.styles + page.scripts))
    found += re.findall(r"<link\b|<script[^>]*\bsrc=|<iframe\b|<img\b", text)
    return found
