"""Rename a program's identifiers to the names generated code uses (for test_hygiene.py).

``rename(source, rng)`` parses a module, and with an ``ast.NodeTransformer``
renames every parameter and local variable of every function, and every
module-level function except the entry ``f``, to adversarial names: the
names adcompiler's generated code is built from (``dx``, ``d_x``, ``t1``,
``dup``, ``tape``, ``ct``, ``residuals``, the runtime helpers ``zeros_like``,
``add_into``, ``unbroadcast``..., derived names ``x_1``, ``d_x_part``,
``n_k``, ``h_res``, ``f_forward``, ``g_reverse_sweep``) and builtins reused as
local variables (``sum``, ``list``, ``float``...), each only where the
program does not itself need what it shadows.  Names are also derived from
the names already chosen (``tape`` then ``d_tape``, ``tape_1``), so generated
names built on them collide too.  The renaming keeps Python's meaning: it is
injective within each scope and never shadows a name the scope reads.

Names that break adcompiler would go in ``KNOWN_BAD_LOCALS`` and
``KNOWN_BAD_GLOBALS`` (left out, so that the campaign can find other bugs);
there are none now: builtins reused as locals or module-level functions work.
"""

from __future__ import annotations

import ast
import keyword
import random

# Names generated code and the runtime helpers use.
GENERATED = [
    "dx",
    "dy",
    "d_x",
    "d_y",
    "d_xs",
    "dup",
    "dup_1",
    "tape",
    "_tape",
    "ct",
    "ct_1",
    "residuals",
    "t1",
    "t2",
    "t3",
    "_t0",
    "x_1",
    "x_2",
    "k",
    "n_iter",
    "_",
    "zeros_like",
    "add_into",
    "add_scalars_into",
    "like",
    "argmax",
    "argmin",
    "reject_ints",
    "unbroadcast",
    "unreduce",
    "scatter_add",
    "array_like",
    "take_and_clear",
    "f_forward",
    "f_reverse",
    "f_grad",
    "f_value_and_grad",
    "f_forward_sweep",
    "f_reverse_sweep",
    "grad",
    "jvp",
    "vjp",
    "value_and_grad",
    "numpy",
    "np",
]

# Builtins a program may reuse as local variables when it does not call them.
BUILTINS_AS_LOCALS = [
    "sum",
    "abs",
    "min",
    "max",
    "list",
    "tuple",
    "float",
    "int",
    "zip",
    "type",
    "isinstance",
    "enumerate",
    "round",
    "pow",
    "TypeError",
    "ValueError",
]

# Patterns of derived names; {s} is a stem.
PATTERNS = [
    "{s}",
    "d{s}",
    "d_{s}",
    "{s}_1",
    "{s}_2",
    "{s}_out",
    "d_{s}_part",
    "n_{s}",
    "{s}_res",
    "{s}_forward",
    "{s}_reverse",
    "{s}_forward_sweep",
    "{s}_reverse_sweep",
    "_{s}",
    "d_{s}_1",
]
STEMS = ["x", "t", "ct", "tape", "dup", "k", "iter", "residuals", "t1", "xs", "f"]

# Local names adcompiler mishandles (none since builtins are spelt builtins.len where user code binds them).
KNOWN_BAD_LOCALS: frozenset = frozenset()
# Module-level function names that break generated code (none: loaded code restores the builtins).
KNOWN_BAD_GLOBALS: frozenset = frozenset()


def _scope(fn: ast.FunctionDef) -> tuple[set, set]:
    """(names a function binds, names it reads without binding)."""
    bound = {a.arg for a in fn.args.args}
    read = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else read).add(node.id)
    return bound, read - bound


class _Apply(ast.NodeTransformer):
    """Rewrite names: per function for locals, module-wide for functions; keywords of calls follow."""

    def __init__(self, functions: dict, locals_: dict):
        self.functions = functions  # old function name -> new
        self.locals = locals_  # old function name -> {old local -> new}
        self.callee = {new: old for old, new in functions.items()}
        self.current: dict = {}

    def visit_FunctionDef(self, node):
        self.current = self.locals[node.name]
        node.name = self.functions.get(node.name, node.name)
        for a in node.args.args:
            a.arg = self.current[a.arg]
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        node.id = self.current.get(node.id, self.functions.get(node.id, node.id))
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        old = self.callee.get(getattr(node.func, "id", None))
        for kw in node.keywords:
            if old is not None:
                kw.arg = self.locals[old].get(kw.arg, kw.arg)
        return node


def rename(source: str, rng: random.Random, entry: str = "f") -> tuple[str, dict]:
    """(the renamed source, {old name -> new name} for the entry function's parameters)."""
    tree = ast.parse(source)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    module_names = {n.name for n in defs}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module_names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Assign):
            module_names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    scopes = {fn.name: _scope(fn) for fn in defs}
    read_anywhere = set().union(*(read for _, read in scopes.values()))
    chosen: list[str] = []

    def pick(avoid: set) -> str:
        if rng.random() < 0.45:
            pool = GENERATED + BUILTINS_AS_LOCALS
        else:
            pool = [p.format(s=s) for s in STEMS + chosen[-6:] for p in PATTERNS]
        pool = [n for n in pool if n not in avoid and n.isidentifier() and not keyword.iskeyword(n)]
        name = rng.choice(pool) if pool else f"v{len(chosen)}_{rng.randrange(10**6)}"
        chosen.append(name)
        return name

    functions: dict[str, str] = {}
    taken = module_names | read_anywhere | KNOWN_BAD_GLOBALS | {entry}
    for fn in defs:
        if fn.name != entry:
            functions[fn.name] = pick(taken | set(functions.values()) | {fn.name})
    module_new = (module_names - set(functions)) | set(functions.values())
    locals_: dict[str, dict] = {}
    for fn in defs:
        bound, read = scopes[fn.name]
        avoid = {functions.get(n, n) for n in read} | module_new | module_names | KNOWN_BAD_LOCALS
        mapping: dict[str, str] = {}
        for name in sorted(bound):
            mapping[name] = pick(avoid | set(mapping.values()) | {name})
        locals_[fn.name] = mapping
    _Apply(functions, locals_).visit(tree)
    return ast.unparse(tree) + "\n", dict(locals_[entry])
