"""Deep nesting (issue 32, item 16): long elif chains, chains of conditional expressions and of ``and``
tests, and loop nests as deep as Python allows, differentiated in every mode.

Before: an elif chain of about 95 branches (or a 100-way conditional expression) raised IndentationError
from generated code (each link nested one level deeper; Python's parser stops at 100), and building time
doubled with each level of loop nesting (optimize/constants.py: 14 levels took 25 s).  Now an elif alone
in an else is written ``elif``, deeper chains are flattened (back/nesting.py), the constant propagation
remembers each loop's result for each state of its names (linear in the nest), and the passes have room
for deep recursion while they run (adcompiler/compile/building.py).  No test asserts on time: the deep cases are
sized so that they must finish (the old code took minutes for the loop nest, and could not run the rest).

References: analytic derivatives and central differences.
"""

import ast
import importlib.util

import pytest

import adcompiler
from adcompiler.compile import nesting
from adcompiler.compile.nesting import LINKS, flattened
from adcompiler.ir import expr as E
from adcompiler.ir.nodes import Assign, IfS
from oracle import central_grad


def _module(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nesting(source: str) -> int:
    """The deepest nesting of blocks in ``source`` (an elif adds none, as Python counts indentation)."""

    def depth(node, level):
        inner = [level]
        for field in ("body", "orelse", "handlers", "finalbody"):
            block = getattr(node, field, None) or []
            if field == "orelse" and len(block) == 1 and isinstance(block[0], ast.If):
                inner.append(depth(block[0], level))  # an elif
                continue
            inner += [depth(child, level + 1) for child in block if isinstance(child, ast.stmt)]
        return max(inner)

    return max(depth(node, 0) for node in ast.parse(source).body)


def _elif_chain(n: int) -> str:
    lines = ["def f(x):", "    if x < 0.0:", "        y = x * 1.0"]
    for k in range(1, n):
        lines += [f"    elif x < {k}.0:", f"        y = x * {k + 1}.0"]
    return "\n".join(lines + ["    else:", "        y = x", "    return y * x", ""])


def test_a_two_hundred_branch_elif_chain_in_every_mode(tmp_path):
    f = _module(tmp_path, "chain", _elif_chain(200)).f
    d = adcompiler.differentiate(f)
    for x in (-0.5, 0.3, 57.5, 198.5, 250.0):
        k = next((k for k in range(200) if x < k), None)  # y = x * (k + 1), or x past the last test
        slope = 2 * x * (k + 1) if k is not None else 2 * x
        assert d.grad(x) == pytest.approx(slope, rel=1e-13)
        assert d.jvp((x,), (1.0,)) == pytest.approx((f(x), slope), rel=1e-13)
        assert d.vjp((x,), 2.0)[1] == pytest.approx((2.0 * slope,), rel=1e-13)
    for stage in ("forward", "reverse", "grad"):
        assert _nesting(d.source(stage)) < 2 * LINKS, stage  # the generated nesting does not grow with the chain


@pytest.mark.slow  # conditional expressions nested: test_chains_through_the_body_and_of_and_tests by default
def test_a_two_hundred_way_conditional_expression_and_its_hessian(tmp_path):
    expr = "x"
    for k in range(200):
        expr = f"x * x * {k}.0 if x < {k}.5 else {expr}"
    f = _module(tmp_path, "ifexp", f"def f(x):\n    return {expr}\n").f
    d = adcompiler.differentiate(f)
    for x in (-3.0, 0.25, 77.0):  # the last test written is the first taken: x * x * 199
        assert d.grad(x) == pytest.approx(2 * 199.0 * x, rel=1e-13)
        assert d.jvp((x,), (1.0,))[1] == pytest.approx(2 * 199.0 * x, rel=1e-13)
    assert adcompiler.hessian(f)(0.5) == pytest.approx(2 * 199.0, rel=1e-13)
    assert _nesting(d.source("forward")) < 2 * LINKS


def test_chains_through_the_body_and_of_and_tests(tmp_path):
    """Conditional expressions nested in the body position, and 150 tests joined with ``and``."""
    body = "x"
    for k in range(150):
        body = f"({body} if x > {-k}.5 else x * {k}.0)"
    conj = " and ".join(f"x > {-k}.0" for k in range(150))
    source = f"def b(x):\n    return {body}\n\n\ndef a(x):\n    if {conj}:\n        return x * x\n    return 3.0 * x\n"
    m = _module(tmp_path, "bodies", source)
    for fn, points in ((m.b, (0.75, 0.25, -7.25)), (m.a, (0.5, -149.5))):
        d = adcompiler.differentiate(fn)
        for x in points:
            expected = float(central_grad(fn, (x,), 0))
            assert d.grad(x) == pytest.approx(expected, rel=1e-7, abs=1e-9)
            assert d.jvp((x,), (1.0,))[1] == pytest.approx(expected, rel=1e-7, abs=1e-9)
        assert _nesting(d.source("grad")) < 2 * LINKS


def _loop_nest(depth: int) -> str:
    """``depth`` loops (for and while alternately), each level updating s before going in: Python allows
    twenty nested blocks."""
    lines, indent = ["def h(x, xs):", "    s = x", "    t = 0.0"], "    "
    for k in range(depth):
        lines.append(f"{indent}s = s * x + 0.1")
        if k % 2 == 0:
            lines.append(f"{indent}for i{k} in range(1):")
        else:
            lines += [f"{indent}j{k} = 0", f"{indent}while j{k} < 1:", f"{indent}    j{k} += 1"]
        indent += "    "
    lines += [f"{indent}s = s * xs[0] + 0.5", f"{indent}t = t + s", "    return s + t", ""]
    return "\n".join(lines)


def test_twenty_nested_loops_in_every_mode(tmp_path):
    h = _module(tmp_path, "loops", _loop_nest(20)).h
    x, xs = 0.3, [0.7]
    gx = float(central_grad(lambda x: h(x, xs), (x,), 0))
    gxs = float(central_grad(lambda v: h(x, [v]), (xs[0],), 0))
    d = adcompiler.differentiate(h)
    got = d.grad(x, xs)
    assert got[0] == pytest.approx(gx, rel=1e-7) and got[1] == pytest.approx([gxs], rel=1e-7)
    assert d.value_and_grad(x, xs)[0] == h(x, xs)
    assert d.jvp((x, xs), (1.0, [2.0]))[1] == pytest.approx(gx + 2.0 * gxs, rel=1e-7)
    checkpointed = adcompiler.differentiate(h, checkpoint=True).grad(x, xs)
    assert checkpointed[0] == pytest.approx(gx, rel=1e-7)
    expected = float(central_grad(lambda x: adcompiler.differentiate(h).grad(x, xs)[0], (x,), 0))
    assert adcompiler.hessian(h)(x, xs) == pytest.approx(expected, rel=1e-6)


def test_a_flattened_chain_runs_as_the_nest_did(monkeypatch):
    """The flattening itself, on generated statements: each link's else assigns, goes on, then appends to
    a log (what follows an if in a branch runs after everything deeper, deepest first, and only where its
    branch ran); the flat code returns what the nest returns, wherever the chain stops."""
    body = (Assign(("y",), E.Num(-1.0)),)
    for k in range(LINKS + 4, 0, -1):
        logged = Assign(("log",), E.BinOp("+", E.BinOp("*", E.Name("log"), E.Num(100.0)), E.Num(float(k))))
        rest = (Assign((f"t_{k}",), E.Num(0.0)),) + body + (logged,)
        body = (IfS(E.Compare("<", E.Name("x"), E.Num(float(k))), (Assign(("y",), E.Num(float(k))),), rest),)
    flat = _function(flattened(body, ("x",)))
    monkeypatch.setattr(nesting, "LINKS", 10**6)  # (the emitter flattens too: not this time)
    nest = _function(body)
    assert _nesting(flat[1]) <= 4 and _nesting(nest[1]) >= LINKS + 4
    for x in (0.5, 3.5, 13.5, 100.0):
        assert flat[0](x) == nest[0](x)


def _function(body):
    """(the function ``g(x)`` made of ``body``, returning y and log, its source)."""
    from adcompiler.compile.emit import render_def
    from adcompiler.ir.nodes import Def, Ret

    start, end = Assign(("log",), E.Num(0.0)), Ret(E.Tuple((E.Name("y"), E.Name("log"))))
    source = render_def(Def("g", ("x",), (), (start,) + tuple(body) + (end,)), None)
    namespace: dict = {}
    exec(source, namespace)
    return namespace["g"], source


@pytest.mark.slow
def test_a_long_chain_under_numba(tmp_path):
    pytest.importorskip("numba")
    f = _module(tmp_path, "numba_chain", _elif_chain(LINKS + 8)).f
    d = adcompiler.differentiate(f, backend="numba")
    for x in (-0.5, 5.5, 30.0):
        k = next((k for k in range(LINKS + 8) if x < k), None)
        slope = 2 * x * (k + 1) if k is not None else 2 * x
        assert d.grad(x) == pytest.approx(slope, rel=1e-13)
        assert d.jvp((x,), (1.0,))[1] == pytest.approx(slope, rel=1e-13)
