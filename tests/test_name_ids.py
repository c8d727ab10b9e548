"""front.scopes.name_ids (the names load hands generated code) finds the names every_node finds."""

import ast
import inspect

import adcompiler.compile.load as load_module
from adcompiler.front.scopes import every_node, name_ids

SOURCE = """
import numpy as np
z = [a for a in np.r_[b:c] if a > lo] + {k: v for k, v in d.items()}.get(key, f"{w!r:>{width}}")
class K(B):
    w: int = q
async def g(x, *rest, y=default, **kw):
    async with m as (u, v):
        del t[i]
    match x:
        case [p, *others] if guard:
            return lambda s: s + p
"""


def test_name_ids_are_the_names_of_every_node():
    for tree in (ast.parse(SOURCE), ast.parse(inspect.getsource(load_module))):
        for s in tree.body:
            assert name_ids(s) == {n.id for n in every_node(s) if n.__class__ is ast.Name}
