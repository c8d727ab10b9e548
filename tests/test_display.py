"""``f.source()`` in Jupyter: a str whose HTML display is the code highlighted by Pygments (when
installed), and whose IPython plain-text display is the code as it reads."""

import sys

import pytest

import adcompiler
import e2e_funcs as E


def _source():
    return adcompiler.differentiate(E.op_mul).source("reverse")


def test_source_is_a_str_with_the_code():
    src = _source()
    assert isinstance(src, str)
    assert src.startswith("def ") or "\ndef " in src
    assert str(src) == src and src + "" == str(src)


def test_html_display_is_highlighted():
    pytest.importorskip("pygments")
    html = _source()._repr_html_()
    assert html.startswith("<div") and "<span" in html and "style=" in html
    assert ">def<" in html  # the keyword in a span of its own


def test_html_display_without_pygments_is_left_to_the_plain_text(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygments", None)  # an import of it raises ImportError
    assert _source()._repr_html_() is None


def test_ipython_plain_text_is_the_code_itself():
    printed = []

    class Printer:
        def text(self, s):
            printed.append(s)

    src = _source()
    src._repr_pretty_(Printer(), False)
    assert printed == [str(src)]
