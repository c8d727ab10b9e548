"""compile.load parses a generated module's runtime helpers once a process (``_parsed``): the tree it
gives must be the tree of the whole text, positions and all, and where the helpers' lines cannot be
cut out (inside a statement of the rest, or not parsing alone) it parses the whole text."""

import ast

from adcompiler.compile.load import _parsed, load
from adcompiler.front.scopes import every_node, name_ids

HELPER = 'def helper(x):\n    """A helper."""\n    return x + one\n'
MODULE = HELPER + "\n\none = 1.0\n\n\ndef f(y):\n    # a comment\n    return helper(y) * 2\n"
QUOTED = "text = '''\n" + HELPER + "'''\n\n\ndef f(y):\n    return len(text) + y\n"


def _same(source: str, generated: set) -> bool:
    tree, names = _parsed(source, "<test>", generated)
    whole = ast.parse(source)
    same_names = [names[id(s)] for s in tree.body] == [name_ids(s) for s in whole.body]
    return same_names and ast.dump(tree, include_attributes=True) == ast.dump(whole, include_attributes=True)


def test_helpers_parsed_apart_give_the_whole_tree():
    assert _same(MODULE, {"f"}) and _same(MODULE, {"f", "helper"}) and _same(MODULE, set())


def test_a_helper_line_inside_a_string_is_the_string():
    assert _same(QUOTED, {"f"})
    assert load(QUOTED, {}, "test", generated={"f"})["f"](1) == len(HELPER) + 2


def test_name_ids_are_the_names_of_every_node():
    tree = ast.parse(MODULE + QUOTED + "import numpy as np\nz = [a for a in np.r_[b:c]]\nclass K(B):\n    w: int = q\n")
    assert name_ids(tree) == {n.id for n in every_node(tree) if n.__class__ is ast.Name}


def test_helper_made_apart_reads_its_constant():
    namespace = load(MODULE, {}, "test", generated={"f"})
    assert namespace["f"](1.0) == 4.0 and namespace["helper"].__globals__ is not namespace
