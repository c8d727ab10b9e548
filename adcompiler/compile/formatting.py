"""Generated modules formatted by black, one top-level definition at a time.

A generated module is mostly the same text again and again: the runtime helpers its code calls
(``unbroadcast``, ``scatter_add``, ..., written in this package at its own line length) come with
every module, and black took most of a transformation's time reformatting them (a fuzz campaign of
NumPy programs spent half its time there).  Black lays out each top-level definition on its own and
puts two blank lines between them, so the module is formatted as its parts: the statements before
the first definition, then each definition (its decorators and the comments above it with it), each
part formatted once a process (``_formatted``, keyed by its text) and joined by two blank lines.
What this layout cannot promise black's (a definition whose body is ``...``, which black may keep
closer to its neighbour; text CPython does not parse) is formatted whole, as before.
"""

from __future__ import annotations

import ast
import functools


def format_source(src: str) -> str:
    """Format with black; generated code must read like code a person wrote.  Then compile it: black's
    parser accepts what CPython's refuses (more than 200 nested parentheses), and a module that does
    not import must never be written."""
    parts = _parts(src)
    if parts is None:
        text = _formatted(src)
    else:
        text = "\n\n\n".join(_formatted(part).rstrip("\n") for part in parts if part.strip()) + "\n"
    compile(text, "<generated module>", "exec")
    return text


@functools.lru_cache(maxsize=1024)
def _formatted(text: str) -> str:
    import black

    return black.format_str(text, mode=_black_mode(black))


@functools.cache
def _black_mode(black):
    """Black's default style, for the Python versions adcompiler runs on (pyproject's requires-python):
    told rather than inferred from each text, which black otherwise does by walking it (a tenth of its time)."""
    return black.Mode(target_versions={v for v in black.TargetVersion if v.value >= 11})


def _parts(src: str) -> list | None:
    """``src`` cut before each top-level definition (at its first decorator, or the first line after the
    statement before it, so that comments above it go with it): the statements before the first one
    stay together, as do those between two definitions.  None where the module is formatted whole."""
    try:
        tree = ast.parse(src)
    except SyntaxError:  # (black's error, or the compiler's, is the one to give)
        return None
    lines = src.splitlines(keepends=True)
    cuts, previous_end, previous_def = [], 0, False
    for node in tree.body:
        is_def = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if is_def and _stub(node):
            return None
        if is_def or previous_def:  # a definition, or the first statement after one: a part starts
            cuts.append(previous_end)  # (the line after the statement before: comments above go with it)
        previous_end, previous_def = node.end_lineno, is_def
    bounds = cuts + [len(lines)]
    return ["".join(lines[: bounds[0]])] + ["".join(lines[a:b]) for a, b in zip(bounds, bounds[1:])]


def _stub(node) -> bool:
    """A definition whose body is only ``...`` (or a docstring and ``...``): black's "dummy
    implementations", which it may keep without blank lines around them."""
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return not body or all(isinstance(s, ast.Pass) for s in body)
