"""The minimiser: minimise shrinks a failing program, one edit at a time, while it fails the same way.

Edits delete or inline statements, replace expressions by a part or a constant, and drop unused
parameters; a candidate whose check runs past CANDIDATE_S (a loop whose counter an edit deleted) is
dropped.
"""

from __future__ import annotations

import ast
import functools
import re
import signal
import tempfile
import threading
import time

from .check import Failure, check_source

CANDIDATE_S = 60.0  # seconds a candidate's check may run (a generated program's is checked in one or two)

# What the first line of a mismatch's message says went wrong (the last two: the nested check's)
_MISMATCHES = (
    "tangent",
    "has not the structure",
    "cotangents",
    "finite differences",
    "<u, J v>",
    "!= primal",
    "<w, H v>",
    "!= grad",
)


def _signature(f: Failure) -> tuple:
    """What must stay the same while minimising: the kind and what exactly went wrong.

    crash: the stage and exception type, and its message without numbers (shapes shrink as the program
    does); refusal: the construct refused; mismatch: which check failed (a duality mismatch must not
    turn into, say, a tangent of the wrong shape).
    """
    first = f.message.splitlines()[0] if f.message else ""
    if f.kind == "crash":
        head, _, rest = first.partition(": ")
        return ("crash", head, re.sub(r"[-+.\d(), ]+", " ", rest).strip())  # e.g. "vjp raised NameError"
    if f.kind == "refusal":
        m = re.search(r":\d+:\d+: (.*?) is not supported", first)
        return ("refusal", m.group(1) if m else first)
    what = re.match(r"[a-z_]*(\('[a-z]+'\))?", first).group(0)
    for key in _MISMATCHES:
        if key in first:
            return ("mismatch", what, key)
    return ("mismatch", what)


def _stmt_lists(tree):
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            seq = getattr(node, field, None)
            if isinstance(seq, list) and seq and isinstance(seq[0], ast.stmt):
                yield node, field, seq


def _edits(tree) -> list:
    """Candidate simplifications as (description, function mutating a fresh copy)."""
    edits = []
    # statements: delete, or replace a compound statement by its body
    for li, (node, field, seq) in enumerate(_stmt_lists(tree)):
        for si, st in enumerate(seq):
            if isinstance(node, ast.Module) and isinstance(st, ast.FunctionDef) and st.name == "f":
                continue
            if isinstance(node, ast.Module) and isinstance(st, (ast.Import, ast.ImportFrom)):
                continue
            edits.append(("delete", li, si))
            if isinstance(st, (ast.If, ast.For, ast.While)):
                edits.append(("inline", li, si))
                if isinstance(st, ast.If) and st.orelse:
                    edits.append(("inline-else", li, si))
                    edits.append(("drop-else", li, si))
    # expressions: replace by a child, or by a constant (a comparison by True only where it is a condition:
    # a mask a[a > 0] must not become a[True])
    tests = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            tests.add(id(node.test))
        elif isinstance(node, ast.BoolOp):
            tests.update(id(v) for v in node.values)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            tests.add(id(node.operand))
    for ei, node in enumerate(n for n in ast.walk(tree) if isinstance(n, ast.expr)):
        if isinstance(node, ast.Compare) and id(node) not in tests:
            continue
        if isinstance(node, (ast.BinOp, ast.Call, ast.IfExp, ast.UnaryOp, ast.BoolOp, ast.Compare)) or (
            isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Load) and _expr_children(node)
        ):
            edits.append(("const", ei, None))
            for ci, child in enumerate(_expr_children(node)):
                if not isinstance(child, (ast.List, ast.Tuple)):  # np.array([..]) -> [..] leaves the subset
                    edits.append(("child", ei, ci))
        elif isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value not in (0.5, 1.0):
            edits.append(("const", ei, None))
    return edits


def _expr_children(node) -> list:
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Compare):
        return []
    if isinstance(node, ast.Call):
        args = [a for a in node.args if not isinstance(a, ast.Starred)]
        if isinstance(node.func, ast.Attribute) and not isinstance(node.func.value, ast.Name):
            args.append(node.func.value)  # a method of a computed array: x.sum() -> x
        elif isinstance(node.func, ast.Attribute) and node.func.attr in _RECEIVER_METHODS:
            args.append(node.func.value)
        return args
    if isinstance(node, ast.Subscript):
        return [node.value]  # A[i, :] -> A (shapes may change: the failure must stay the same)
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return [node.value]
    return []


_RECEIVER_METHODS = {"sum", "mean", "max", "min", "copy", "ravel", "reshape", "dot", "cumsum", "clip", "trace"}


def _apply(source: str, edit) -> str | None:
    tree = ast.parse(source)
    kind, a, b = edit
    if kind in ("delete", "inline", "inline-else", "drop-else"):
        node, field, seq = list(_stmt_lists(tree))[a]
        st = seq[b]
        if kind == "delete":
            new = []
        elif kind == "inline":
            new = st.body
        elif kind == "inline-else":
            new = st.orelse
        else:
            st.orelse = []
            new = [st]
        seq[b : b + 1] = new
        if not seq:
            seq.append(ast.Pass())
    else:
        # the expression index counts nodes in ast.walk order; map it to the node
        nodes = [n for n in ast.walk(tree) if isinstance(n, ast.expr)]
        target = nodes[a]

        def make(node):
            if kind == "const":
                if isinstance(node, ast.Compare):
                    return ast.Constant(True)
                return ast.Constant(0.5)
            return _expr_children(node)[b]

        class R(ast.NodeTransformer):
            def visit(self, node):
                if node is target:
                    return make(node)
                return super().visit(node)

        tree = R().visit(tree)
    ast.fix_missing_locations(tree)
    try:
        # the program's own imports (math, numpy under its alias) first, as generated
        imports = [ast.unparse(n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        rest = [ast.unparse(n) for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
        return "\n".join(imports or ["import math"]) + "\n\n\n" + "\n\n\n".join(rest) + "\n"
    except Exception:  # noqa: BLE001
        return None


def minimise(
    source: str,
    params,
    outputs: int,
    point,
    seed: int = 0,
    budget_s: float = 300.0,
    verbose=False,
    tolerate: bool = True,
    check=None,
):
    """Greedily simplify a failing program while it fails the same way; returns (source, Failure).

    tolerate: see past the symptoms of known bugs, as the campaigns do (else a program a campaign
    reported for a crash may first fail on a known bug, and shrink to that).  check: the oracle,
    called as check_source is (nested.check_nested_source for a failure of the nested check); by
    default check_source, tolerating as asked.
    """
    import warnings

    check = _bounded(check or functools.partial(check_source, tolerate=tolerate))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # candidates like 0.5[i] compile with a warning, then fail
        return _minimise(source, params, outputs, point, seed, budget_s, verbose, check)


def _minimise(source, params, outputs, point, seed, budget_s, verbose, check):
    directory = tempfile.mkdtemp(prefix="adc_fuzz_min_")
    first = check(source, params, outputs, point, seed, directory)
    if not isinstance(first, Failure):
        raise ValueError(f"the program does not fail at {point!r}: {first}")
    sig = _signature(first)
    best, best_f = source, first
    t0 = time.time()
    i, progress = 0, False
    while time.time() - t0 < budget_s:
        edits = _edits(ast.parse(best))
        if i >= len(edits):
            if not progress:
                break
            i, progress = 0, False
            continue
        cand = _apply(best, edits[i])
        if cand is None or len(cand) >= len(best):
            i += 1
            continue
        try:
            res = check(cand, params, outputs, point, seed, directory)
        except Exception:  # noqa: BLE001 - the primal broke: not this bug
            res = None
        if isinstance(res, Failure) and _signature(res) == sig:
            if verbose:
                print(f"  {edits[i][0]}: {len(best)} -> {len(cand)} chars", flush=True)
            best, best_f, progress = cand, res, True
        else:
            i += 1
    best, params, point, best_f = _drop_unused_params(best, params, outputs, point, seed, directory, sig, best_f, check)
    return best, params, point, best_f


class _Overtime(Exception):
    """A candidate's check ran past CANDIDATE_S."""


def _bounded(check):
    """check, raising _Overtime once it runs past CANDIDATE_S (by SIGALRM: in the main thread; in
    another, check itself)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return check

    def overtime(signum, frame):
        raise _Overtime(f"checked for more than {CANDIDATE_S} s")

    def bounded(*args):
        previous = signal.signal(signal.SIGALRM, overtime)
        signal.setitimer(signal.ITIMER_REAL, CANDIDATE_S)
        try:
            return check(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    return bounded


def _drop_unused_params(source, params, outputs, point, seed, directory, sig, failure, check):
    """Remove parameters of f that its body never reads (and their entries in the point)."""
    for k in reversed(range(len(params))):
        tree = ast.parse(source)
        f = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
        name = params[k][1]
        used = any(isinstance(n, ast.Name) and n.id == name for st in f.body for n in ast.walk(st))
        if used or len(params) == 1 or all(p[0] == "int" for i, p in enumerate(params) if i != k):
            continue
        f.args.args = [a for a in f.args.args if a.arg != name]
        cand = ast.unparse(tree) + "\n"
        p2, pt2 = params[:k] + params[k + 1 :], point[:k] + point[k + 1 :]
        try:
            res = check(cand, p2, outputs, pt2, seed, directory)
        except Exception:  # noqa: BLE001
            continue
        if isinstance(res, Failure) and _signature(res) == sig:
            source, params, point, failure = cand, p2, pt2, res
    return source, params, point, failure
