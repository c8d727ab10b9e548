"""What a top-level statement that ``adc compile`` does not run might change, so that no value the
reader computed is used where the program would have changed it first.

A statement the reader skips (``init()``, ``for i in ...: W[i] = ...``, ``DATA = load()``) may:

- bind module names: its assignments, loop targets, imports and definitions;
- change a value in place: a subscript or attribute stored into (``W[0] = 1``, ``f.__defaults__ =
  ...``, ``math.sin = cube``), a method called on it (``W.fill(0)``, ``xs.append(1)``; not methods
  that only read, as ``W.sum()``), or passing it to a function that changes its argument (the few
  library functions that do, as ``np.copyto`` and ``random.shuffle``, any call with ``out=``, a
  function of the file's that changes that parameter, and anything the reader cannot see);
- run functions of the file (every function or class it names, directly or through what they name):
  their ``global`` names are bound, and what they change in place (as above) is changed;
- change anything at all, with ``globals()``, ``vars()``, ``exec``, ``eval``, ``setattr``,
  ``delattr``, ``__import__``, ``__dict__`` or ``sys.modules``.

``changes`` finds those names; the reader then forgets their values (``front.files``), so a function
that reads one gets a located error naming ``--import`` instead of a stale constant.  Library
functions are taken to change none of their arguments except those listed in ``MUTATORS``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

# Methods that only read their object (on arrays, lists, dicts, strings).
READING_METHODS = frozenset(
    "sum mean std var max min prod argmax argmin any all cumsum cumprod copy astype reshape ravel flatten "
    "transpose swapaxes squeeze dot conj conjugate round clip tolist item trace diagonal nonzero view get "
    "keys values items index count format join split strip startswith endswith lower upper replace".split()
)
# Library functions (module, name) that change an argument in place.
MUTATORS = frozenset(
    {
        ("numpy", "copyto"),
        ("numpy", "put"),
        ("numpy", "place"),
        ("numpy", "putmask"),
        ("numpy", "fill_diagonal"),
        ("numpy", "put_along_axis"),
        ("numpy.random", "shuffle"),
        ("random", "shuffle"),
        ("builtins", "setattr"),
        ("builtins", "delattr"),
        ("builtins", "exec"),
        ("builtins", "eval"),
    }
)
EVERYTHING = frozenset({"globals", "locals", "vars", "exec", "eval"})  # called with no namespace: anything may change


@dataclass
class Changes:
    """Per module (keyed by the reader's module record): names bound, and names whose values may be
    changed in place; ``everything``: any name of any module may change."""

    bound: dict = field(default_factory=dict)  # module -> set of names
    changed: dict = field(default_factory=dict)  # module -> names whose values calls may change (arrays, lists)
    stored: dict = field(default_factory=dict)  # module -> names whose values are stored into (any object)
    objects: list = field(default_factory=list)  # library objects changed by an attribute store (math)
    everything: bool = False


class Walker:
    """Finds ``Changes`` of skipped statements.  ``world`` answers for the reader: ``value(module,
    expr)`` (an expression's static value, or None), ``source(obj)`` (a function's or class's
    ``(node, module)`` when it is the user's), ``methods(name)`` (every user method of that name, as
    ``(node, module)``), ``is_user(obj)``."""

    def __init__(self, world):
        self.world = world
        self.found = Changes()
        self.visited: set = set()
        self.pending: list = []
        self.summaries: dict = {}  # id(function node) -> parameters it changes (by name)

    def statement(self, stmt: ast.stmt, module) -> Changes:
        """What ``stmt``, a statement of ``module``'s top level that is not run, may change."""
        self._scope(stmt, module, local=set(), aliases={}, top=True)
        while self.pending:
            node, where = self.pending.pop()
            self._function(node, where)
        return self.found

    # ------------------------------------------------------------------ scopes

    def _function(self, node, module) -> None:
        key = id(node)
        if key in self.visited:
            return
        self.visited.add(key)
        if isinstance(node, ast.ClassDef):
            for stmt in ast.walk(node):
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.pending.append((stmt, module))
            return
        declared = {n for s in ast.walk(node) if isinstance(s, ast.Global) for n in s.names}
        self._bound(module).update(declared)
        local = _params(node) | (_stored(node) - declared)
        self._scope(node, module, local, {}, top=False)

    def _scope(self, node, module, local: set, aliases: dict, top: bool) -> None:
        """Walk one statement (top) or one function's body: record what it binds and changes."""
        if top:
            self._bound(module).update(bound_names(node))
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Assign, ast.For, ast.AsyncFor, ast.With)):
                self._alias(sub, local, aliases)
        scoped = {  # exec(text, ns), eval(text, ns): what they change is ns, handed to them as to any call
            id(c.func)
            for c in ast.walk(node)
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in ("exec", "eval")
            if len(c.args) >= 2 or any(k.arg == "globals" for k in c.keywords)
        }
        for sub in ast.walk(node):
            if id(sub) not in scoped and _changes_everything(sub):
                self.found.everything = True
            if isinstance(sub, (ast.Subscript, ast.Attribute)) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                self._store_into(sub, module, local, aliases)
            elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
                self._change(sub.target.id, module, local, aliases)  # x += ...: in place for arrays and lists
            elif isinstance(sub, ast.Call):
                self._call(sub, module, local, aliases)
            if isinstance(sub, (ast.Name, ast.Attribute)) and isinstance(sub.ctx, ast.Load):
                self._reach(sub, module, local)

    def _alias(self, stmt, local, aliases) -> None:
        """``a = W`` (or ``W[0]``, ``W.T``), ``for row in W``, ``with W as a``: ``a`` may be ``W``."""
        pairs = []
        if isinstance(stmt, ast.Assign):
            pairs = [(t, stmt.value) for t in stmt.targets]
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            pairs = [(stmt.target, stmt.iter)]
        elif isinstance(stmt, ast.With):
            pairs = [(i.optional_vars, i.context_expr) for i in stmt.items if i.optional_vars is not None]
        for target, value in pairs:
            root = _root(value)
            if root is None:
                continue
            for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                if name in local:
                    aliases[name] = aliases.get(root, root)

    # ------------------------------------------------------------------ what changes

    def _store_into(self, node, module, local, aliases) -> None:
        """``X[...] = v``, ``X.attr = v`` (and del): X changes; ``mod.NAME = v`` binds a user module's NAME."""
        root = _root(node.value)
        if root is None:
            return
        target = aliases.get(root, root)
        if target in local:
            self._param(target)
            return
        value = self.world.value(module, ast.Name(target, ast.Load()))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and self.world.user_module(value):
            self._bound(self.world.module_record(value)).add(node.attr)
            return
        if value is not None and not self.world.is_user(value) and not _plain_data(value):
            self.found.objects.append(value)  # math.sin = cube: the library module itself
        self.found.stored.setdefault(module, set()).add(target)

    def _change(self, name, module, local, aliases) -> None:
        target = aliases.get(name, name)
        if target in local:
            self._param(target)
        else:
            self._changed(module).add(target)

    def _call(self, call: ast.Call, module, local, aliases) -> None:
        func = call.func
        callee = self.world.value(module, func) if _root(func) not in local else None
        passed = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
        for k in call.keywords:
            if k.arg == "out":
                self._change_all([k.value], module, local, aliases)
        source = self._source(callee, func, module, local)
        if callee is not None and source is None and not self.world.is_user(callee):  # a library's function
            spelt = (getattr(callee, "__module__", None), getattr(callee, "__name__", None))
            if spelt in (("builtins", "setattr"), ("builtins", "delattr")) and call.args:
                root = _root(call.args[0])
                if root is not None and root not in local:
                    self.found.stored.setdefault(module, set()).add(aliases.get(root, root))
            hands = any(
                self._changed_params(s)
                for s in (self._source(self._value(a, module, local), a, module, local) for a in passed)
                if s
            )
            if spelt in MUTATORS or hands:  # or it calls a function of the file that changes what it is given
                self._change_all(passed, module, local, aliases)
            return
        if source is not None:  # the file's own function or class: the parameters it changes
            changes = self._changed_params(source)
            for i, a in enumerate(call.args):
                param = _param_at(source[0], i, None)
                if param is None or param in changes or isinstance(a, ast.Starred):
                    self._change_all([a.value if isinstance(a, ast.Starred) else a], module, local, aliases)
            self._change_all(
                [k.value for k in call.keywords if k.arg is None or k.arg in changes], module, local, aliases
            )
            return
        if isinstance(func, ast.Attribute):  # a method of a value: it may change it, unless it only reads
            if func.attr in READING_METHODS:
                return
            root = _root(func.value)
            if root is not None:
                self._change(root, module, local, aliases)
            self.pending.extend(self.world.methods(func.attr))
        self._change_all(passed, module, local, aliases)  # a function the reader cannot see may change them

    def _source(self, value, node, module, local):
        """(node, module) of the file's function or class ``node`` names: made (``value``), or a
        definition the reader could not make (an unknown decorator), read all the same."""
        if value is not None and self.world.is_user(value):
            return self.world.source(value)
        if value is None and isinstance(node, ast.Name) and node.id not in local:
            found = self.world.definition(module, node.id)
            return (found, module) if found is not None else None
        return None

    def _value(self, node, module, local):
        return self.world.value(module, node) if _root(node) not in local else None

    def _change_all(self, nodes, module, local, aliases) -> None:
        for node in nodes:
            for name in _names(node):
                self._change(name, module, local, aliases)

    def _reach(self, node, module, local) -> None:
        """A function or class of the file named here may run: walk it too."""
        if _root(node) in local:
            return
        source = self._source(self.world.value(module, node), node, module, local)
        if source is not None:
            self.pending.append(source)

    def _changed_params(self, source) -> set:
        """The parameters the function ``source`` (node, module) may change in place (by name)."""
        node, where = source
        key = id(node)
        if key in self.summaries:
            return self.summaries[key]
        if isinstance(node, ast.ClassDef):  # a class called: its __init__ and what that calls
            init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
            if init is None:
                self.summaries[key] = set()
                return set()
            found = self._changed_params((init, where))
            self.summaries[key] = found
            return found
        self.summaries[key] = set()  # while it is being found (recursion): nothing yet
        inner = Walker(self.world)
        inner.summaries = self.summaries
        inner._param_changes = set()
        declared = {n for s in ast.walk(node) if isinstance(s, ast.Global) for n in s.names}
        local = _params(node) | (_stored(node) - declared)
        inner._scope(node, where, local, {}, top=False)
        found = inner._param_changes & _params(node)
        self.summaries[key] = found
        return found

    def _param(self, name) -> None:
        changes = getattr(self, "_param_changes", None)
        if changes is not None:
            changes.add(name)

    def _bound(self, module) -> set:
        return self.found.bound.setdefault(module, set())

    def _changed(self, module) -> set:
        return self.found.changed.setdefault(module, set())


# ---------------------------------------------------------------------- small helpers


def bound_names(stmt: ast.stmt) -> set:
    """The module names a top-level statement binds (nested function and class bodies left out)."""
    out: set = set()
    pending = [stmt]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            pending.extend(getattr(node, "decorator_list", []))
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            out.update(n.target.id for n in ast.walk(node) if isinstance(n, ast.NamedExpr))
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, ast.alias):
            out.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            out.add(node.name)
        pending.extend(ast.iter_child_nodes(node))
    return out


def _params(node) -> set:
    args = node.args
    every = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
    return {a.arg for a in every}


def _param_at(node, i, default):
    if isinstance(node, ast.ClassDef):
        init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
        if init is None:
            return default
        i += 1  # self
        node = init
    positional = node.args.posonlyargs + node.args.args
    return positional[i].arg if i < len(positional) else default


def _stored(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _root(node):
    """The name at the root of ``a.b[c].d`` (None for anything else)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _names(node) -> set:
    """The names an argument expression may hand over: its root, or the items of a display."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_names(e) for e in node.elts)) if node.elts else set()
    if isinstance(node, ast.Dict):
        return set().union(*(_names(v) for v in node.values)) if node.values else set()
    root = _root(node)
    return {root} if root is not None else set()


def _changes_everything(node) -> bool:
    """``globals()``, ``vars()``, ``exec(text)`` (without a namespace of its own), ``x.__dict__``,
    ``sys.modules``: a way to bind any name.  (``setattr(x, ...)``, ``exec(text, ns)`` change what they
    are given, as any call may.)"""
    if isinstance(node, ast.Attribute):
        return (
            node.attr == "__dict__"
            or node.attr == "modules"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        )
    if isinstance(node, ast.Name) and node.id in EVERYTHING:
        return True  # named: it may be called anywhere, or handed on
    return False


def _plain_data(value) -> bool:
    return isinstance(value, (int, float, complex, str, bytes, tuple, type(None)))
