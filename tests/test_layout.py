"""The package's layout, checked from its imports: the pipeline's layers import only layers below them,
no import cycle, no private name imported across modules, no module much above 400 lines.

See docs/architecture.md for the picture this test holds the code to."""

from __future__ import annotations

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "adcompiler"

# Bottom to top: a unit may import only units listed before it (and itself).
LAYERS = [
    ("errors", "collector", "fields", "building"),
    ("ir",),
    ("front",),
    ("rules",),
    ("lower",),
    ("analysis",),
    ("modes",),
    ("optimize",),
    ("back",),
    ("pipeline",),
    ("written", "inputs", "outputs", "numba_subset", "iterables"),
    ("entries",),
    ("trees", "pickling", "methods"),
    ("arguments",),
    ("numba_backend", "arrays_backend", "variadic", "runs"),
    ("api",),
    ("higher",),
    ("targets", "blocks"),
    ("check", "functional", "custom_rules"),
    ("cli_check", "cli_many"),
    ("cli",),
    ("__init__",),
    ("__main__", "testing"),
]
RANK = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}
MAX_LINES = 600  # a smell detector, not a cut line (issue 34): a module past it probably holds two concepts


def _modules() -> dict:
    """Dotted module name (relative to the package, '' for its __init__) -> path."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(name: str, path: pathlib.Path, node: ast.ImportFrom) -> list:
    """The package modules an import names (the module itself, or the submodules it imports by name)."""
    here = list(path.relative_to(PACKAGE).parent.parts)
    base = here[: len(here) - (node.level - 1)] if node.level else []
    if not node.level:
        if not (node.module or "").startswith("adcompiler"):
            return []
        base, module = [], node.module.split(".", 1)[1] if "." in node.module else ""
    else:
        module = node.module or ""
    target = ".".join(base + ([module] if module else []))
    found = []
    for alias in node.names:
        sub = f"{target}.{alias.name}" if target else alias.name
        found.append((sub if sub in MODULES else target, alias.name))
    return found


def _edges() -> list:
    """(importer, imported module, imported name) for every import of a package module, lazy ones too."""
    out = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                out += [(name, target, imported) for target, imported in _resolve(name, path, node)]
            elif isinstance(node, ast.Import):
                out += [
                    (name, a.name.split(".", 1)[1] if "." in a.name else "", a.name)
                    for a in node.names
                    if a.name.startswith("adcompiler")
                ]
    return out


def _unit(module: str) -> str:
    return module.split(".")[0] if module else "__init__"


def test_every_unit_has_a_layer():
    assert {_unit(m) for m in MODULES} <= set(RANK), {_unit(m) for m in MODULES} - set(RANK)


def test_layers_import_only_layers_below():
    upward = [
        (a, b)
        for a, b, _ in _edges()
        if _unit(a) != _unit(b) and RANK[_unit(b)] >= RANK[_unit(a)] and b in MODULES and b != ""
    ]
    assert not upward, upward


def test_no_import_cycle():
    graph: dict = {}
    for a, b, _ in _edges():
        if a != b and b in MODULES and not (b and a.startswith(b + ".")):  # a package's own __init__ is its facade
            graph.setdefault(a, set()).add(b)
    state: dict = {}

    def visit(m, stack):
        state[m] = 1
        for n in graph.get(m, ()):
            if state.get(n) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(n) :] + [n]))
            if n not in state:
                visit(n, stack + [n])
        state[m] = 2

    for m in list(graph):
        if m not in state:
            visit(m, [m])
    assert all(done == 2 for done in state.values()) and len(state) >= len(graph)


def test_no_private_name_imported_across_modules():
    crossing = [(a, b, n) for a, b, n in _edges() if n.startswith("_") and not n.startswith("__") and a != b]
    assert not crossing, crossing


def test_modules_stay_small():
    big = {name: n for name, path in MODULES.items() if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not big, big


def test_every_module_says_its_job():
    missing = [name for name, path in MODULES.items() if not ast.get_docstring(ast.parse(path.read_text()))]
    assert not missing, missing
