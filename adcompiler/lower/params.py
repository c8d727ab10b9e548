"""Parameters a function assigns in a loop or a branch made local variables that start as the argument: the parameter itself then keeps the argument, as every mode
needs it to (a cotangent takes its shape and structure from the argument, not from the value the
variable holds at the end: ``for i in range(3): x = x * w`` may leave ``x`` broadcast to ``w``'s
shape, or a list longer than the one given)."""

from __future__ import annotations

import ast

from ..front.scopes import find_slots, loop_targets, nodes


def separate_rebound_params(fdef: ast.FunctionDef, params: tuple, fresh) -> None:
    """Rename, in ``fdef``'s body, each parameter that is a slot to a fresh local (``fresh(base)``),
    first assigned the parameter.  (A parameter that is also a for loop's variable stays: assigning
    to a loop variable is refused, and such a parameter is read as the loop's.)"""
    rebound = [p for p in params if p in find_slots(fdef) - loop_targets(fdef)]
    if not rebound:
        return
    local = {p: fresh(p) for p in rebound}
    own = {id(a) for a in ast.walk(fdef.args)}  # the def's own parameters keep their names
    for node in nodes(fdef):
        if isinstance(node, ast.Name) and node.id in local:
            node.id = local[node.id]
        elif isinstance(node, ast.arg) and node.arg in local and id(node) not in own:  # a lambda's, the same name
            node.arg = local[node.arg]
    at = {"lineno": fdef.body[0].lineno, "col_offset": fdef.body[0].col_offset}
    copies = [ast.Assign([ast.Name(local[p], ast.Store(), **at)], ast.Name(p, ast.Load(), **at), **at) for p in rebound]
    fdef.body[:0] = copies
    fdef.__dict__.pop("_adc_nodes", None)  # the tree changed: scopes.nodes walks it again
