"""Depth-first walks over nested blocks of statements, with a stack rather than nested generators.

A generator that delegates to one per nested block passes each statement up through one generator per
level: a walk of code nested d deep costs d times its length, and an elif chain of two hundred branches
is two hundred ifs deep.  ``depth_first`` costs the same for every statement, however deep.
"""

from __future__ import annotations

from itertools import chain


def depth_first(stmts, blocks):
    """Each statement of ``stmts`` in program order, each followed by the statements of its blocks
    (``blocks(statement)``: a tuple of blocks, empty for a simple statement), depth first."""
    stack = [iter(stmts)]
    while stack:
        for s in stack[-1]:
            yield s
            inner = blocks(s)
            if inner:
                stack.append(chain.from_iterable(inner))
                break
        else:
            stack.pop()
