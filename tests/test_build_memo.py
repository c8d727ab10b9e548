"""The memo tables of tidying and liveness belong to the build running in each thread
(``analysis.memo``): two threads tidying at once, with no lock, each get the single-threaded result;
and building changes no table of rules (a variadic primitive's rule is made apart, once)."""

import math
import sys
import threading

import adcompiler
from adcompiler import rules
from adcompiler.ir import expr as E
from adcompiler.ir.nodes import Assign, Def, Do, Ret
from adcompiler.optimize.tidy import tidy


def _body(in_place: bool, n: int) -> tuple:
    """``d = 0.0; d = d + e`` n times: folded to ``d = e`` unless the function changes an adjoint array
    in place (a call of ``scatter_add``, which tidy looks for in the function it is tidying)."""
    stmts = []
    for k in range(n):
        d, e = f"d{k}", f"e{k}"
        stmts += [
            Assign((e,), E.Call("math.sin", (E.Name("x"),))),
            Assign((d,), E.Num(0.0)),
            Assign((d,), E.BinOp("+", E.Name(d), E.Name(e))),
            Do(E.Call("print", (E.Name(d),))),
        ]
    if in_place:
        stmts.append(Do(E.Call("@scatter_add", (E.Name("q"), E.Name("x")))))
    return tuple(stmts) + (Ret(E.Name("x")),)


def test_tidying_from_four_threads_at_once():
    defs = [Def(f"f{k}", ("x", "q"), (), _body(k % 2 == 0, 40)) for k in range(4)]
    expected = [tidy(d) for d in defs]
    assert expected[0] != expected[1]  # the in-place call changes what tidy may do
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    wrong = 0
    try:
        for _ in range(10):
            results = [None] * len(defs)
            start = threading.Barrier(len(defs))

            def run(i):
                start.wait()
                results[i] = tidy(defs[i])

            threads = [threading.Thread(target=run, args=(i,)) for i in range(len(defs))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wrong += sum(r != e for r, e in zip(results, expected))
    finally:
        sys.setswitchinterval(old)
    assert wrong == 0


def _hypot3(x, y, z):
    return math.hypot(x, y, z) * x


def test_a_variadic_call_leaves_the_rule_tables_as_they_were():
    """``math.hypot`` of three arguments gets its rule made for three (once), outside the tables every
    thread reads: building changes no table of rules."""
    before = dict(rules.PARTIALS)
    d = adcompiler.differentiate(_hypot3)
    g = d.grad(1.0, 2.0, 2.0)
    assert abs(g[0] - (3.0 + 1.0 / 3.0)) < 1e-12 and abs(g[1] - 2.0 / 3.0) < 1e-12
    assert rules.PARTIALS == before
