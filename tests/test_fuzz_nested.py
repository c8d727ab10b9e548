"""The fuzzer's nested check (adcompiler/testing/fuzz/nested.py, ``--nested-every N``).

``differentiate(d.grad).jvp`` of generated programs whose output is a number, built before and after
``d.grad`` ran, against ``d.grad``'s value, central differences of it and the Hessian's symmetry: a
CI-sized run of each kind of program, the command line, the
check failing where the Hessian is wrong, and the bugs it found, each checked now.
"""

import dataclasses

import pytest

import adcompiler
from adcompiler.testing import fuzz

pytest.importorskip("numpy")

CAMPAIGNS = {  # name -> (seed, programs, config, programs checked at least: the run checks 10 and 15)
    "numpy": (20260712, 20, fuzz.NUMPY_SMALL, 8),
    "scalar": (20260711, 20, fuzz.SMALL, 12),
}


def _format(summary):
    lines = [str(summary)]
    for kind, message, spec, point in summary.failures:
        lines += [f"--- {kind} at {point!r}: {message.splitlines()[0]}", spec.source]
    return "\n".join(lines)


@pytest.mark.parametrize("name", sorted(CAMPAIGNS))
def test_nested_ci_campaign(name):
    """Every program's nested check: no mismatch, no crash, and most of those with a number output
    checked (the others return arrays or tuples, or their gradient code is refused)."""
    seed, programs, config, least = CAMPAIGNS[name]
    s = fuzz.run(programs, seed, points=1, stage_every=0, config=config, nested_every=1)
    assert s.mismatches == 0 and s.crashes == 0 and s.refusals == 0, _format(s)
    assert s.nested["checked"] >= least, _format(s)


@pytest.mark.slow
def test_nested_numba_campaign():
    """The same under backend="numba" (a refusal of the nested code, naming backend="python", is
    outside)."""
    pytest.importorskip("numba")
    config = dataclasses.replace(fuzz.NUMPY_SMALL, backend="numba")
    s = fuzz.run(6, 20260712, points=1, stage_every=0, config=config, nested_every=1)
    assert s.mismatches == 0 and s.crashes == 0 and s.refusals == 0, _format(s)
    assert s.nested["checked"] >= 2, _format(s)  # (it checks 3)


def _argv(out):
    """The command line of a run of four scalar programs, each checked nested, writing failures to out."""
    return f"--programs 4 --seed 20260711 --small --points 1 --stage-every 0 --nested-every 1 --out {out}".split()


def test_cli_nested_every(tmp_path, capsys):
    assert fuzz.main(_argv(tmp_path)) == 0
    assert "nested (jvp of grad): checked" in capsys.readouterr().out


_PROGRAM = """
import math


def f(x, y):
    return math.sin(x) * y + x**3 * y
"""
_PARAMS, _POINT = [("float", "x"), ("float", "y")], [0.3, -0.7]


class _Wrong:
    """differentiate(d.grad) whose jvp is wrong in one way: its H v scaled, made asymmetric, or its
    gradient moved."""

    def __init__(self, d2, how):
        self.d2, self.how = d2, how

    def jvp(self, primals, tangents):
        grad, hv = self.d2.jvp(primals, tangents)
        if self.how == "scaled":
            return grad, fuzz.unflat_like(hv, [1.01 * t for t in fuzz.flat_out(hv)])
        if self.how == "asymmetric":
            return grad, (hv[0] + 0.5 * tangents[1], hv[1])
        return fuzz.unflat_like(grad, [g + 1e-3 for g in fuzz.flat_out(grad)]), hv


def _wrong_hessian(monkeypatch, how):
    """adcompiler.differentiate, as the nested check calls it, giving _Wrong(how) for a d.grad."""
    real = adcompiler.differentiate

    def differentiate(fn, **options):
        d = real(fn, **options)
        return _Wrong(d, how) if getattr(fn, "__name__", None) == "grad" else d

    monkeypatch.setattr(adcompiler, "differentiate", differentiate)


@pytest.mark.parametrize(
    "how, expect",
    [("scaled", "finite differences of grad"), ("asymmetric", "<w, H v>"), ("moved", "value != grad")],
)
def test_nested_check_catches_a_wrong_hessian(how, expect, monkeypatch, tmp_path):
    """The check is not vacuous: right, the program is checked; a wrong jvp of d.grad is a mismatch."""
    assert fuzz.check_nested_source(_PROGRAM, _PARAMS, 1, _POINT, directory=str(tmp_path)) == "checked"
    _wrong_hessian(monkeypatch, how)
    res = fuzz.check_nested_source(_PROGRAM, _PARAMS, 1, _POINT, directory=str(tmp_path))
    assert isinstance(res, fuzz.Failure) and (res.kind, res.check) == ("mismatch", "nested"), res
    assert expect in res.message.splitlines()[0], res.message


def test_nested_mismatch_fails_the_campaign(monkeypatch, tmp_path, capsys):
    """A nested mismatch is counted, written to --out saying which check found it, and makes the
    command's status nonzero; the minimiser shrinks it with the nested check."""
    _wrong_hessian(monkeypatch, "scaled")
    assert fuzz.main(_argv(tmp_path)) == 1
    assert "nested (jvp of grad): " in capsys.readouterr().out
    reports = sorted(tmp_path.glob("mismatch_*.py"))
    assert reports and all(fuzz.report_check(str(r)) == "nested" for r in reports)
    source, params, outputs, point = fuzz.read_report(str(reports[0]))
    small, _, _, failure = fuzz.minimise(source, params, outputs, point, check=fuzz.check_nested_source)
    assert failure.check == "nested" and len(small) < len(source), small


# Bugs it found that are fixed: each checks now.
FIXED = {
    "float_copied": (  # (distinct copied a number: two zero cotangents may be one float object)
        "import numpy as np\n\n\ndef f(p, q):\n    u4 = np.ones(3)\n    return 0.5\n",
        [("float", "p"), ("float", "q")],
        [0.25094, 0.66991],
        "jvp(d.grad) raised AttributeError: 'float' object has no attribute 'copy'",
    ),
    "shape_like_of_an_active_part": (  # (forward mode gave shape_like(t) a tangent: KeyError for its rule)
        "import numpy as np\n\n\ndef f(y):\n    y = y if True else y * y\n    for i9 in range(3):\n"
        "        return np.sum(y[y > 0.5]) ** 2\n    return 0.5\n",
        [("array", "y", (4,))],
        [[0.739037, 0.504018, -0.801519, -0.754685]],
        "jvp(d.grad) after d.grad ran raised KeyError: 'shape_like' (numpy, seed 611, program 47)",
    ),
    # differentiate(d.grad) made before d.grad ran took d's code for the signature its text suggests
    # (assumed_signature); it now follows the signature of each call (Differentiable._follow):
    "list_gradient_a_number": (
        "import numpy as np\n\n\ndef f(xs):\n    return np.sum(0.5)\n",
        [("list", "xs", 2)],
        [[-0.556623, 0.506703]],
        "the value of jvp(d.grad) is 0.0 where d.grad gives [0.0, 0.0]",
    ),
    "list_gradient_a_number_scalar": (
        "def f(xs):\n    t8 = sorted(xs)\n    return 0.5\n",
        [("list", "xs", 2)],
        [[-1.186415, 0.595004]],
        "the value of jvp(d.grad) is 0.0 where d.grad gives [0.0, 0.0] (code without NumPy too)",
    ),
    "list_as_dtype": (
        "import numpy as np\n\n\ndef f(xs):\n    return xs[0] * np.sum(0.5)\n",
        [("list", "xs", 3)],
        [[-0.048356, -0.087232, -0.124484]],
        "jvp(d.grad) raises TypeError: Field elements must be 2- or 3-tuples",
    ),
    "shape_like_missing": (
        "import numpy as np\n\n\ndef h0(a, b):\n    return a * np.array([0.5, 0.5])\n\n\n"
        "def f(A, B):\n    for i3 in range(len(A)):\n        B = B + 0.5 * h0(B, 0.5)\n    return np.sum(B)\n",
        [("array", "A", (2, 2)), ("array", "B", (2, 2))],
        [[[-1.079947, -0.479649], [-1.101789, 0.527132]], [[0.144268, -0.655372], [-1.16102, 0.107706]]],
        "jvp(d.grad) raises KeyError: 'shape_like'",
    ),
    "list_sliced_twice": (
        "def f(x, xs):\n    xs = xs[1:]\n    xs = xs[1:]\n    return x * x\n",
        [("float", "x"), ("list", "xs", 4)],
        [0.3, [1.0, 2.0, 3.0, 4.0]],
        "jvp(d.grad) raises TypeError: object of type 'float' has no len()",
    ),
    "list_sliced_in_a_loop": (
        "def f(xs):\n    j3 = 0\n    while j3 < 5:\n        j3 += 1\n        xs = xs[4:]\n    return 0.5\n",
        [("list", "xs", 4)],
        [[-0.551775, -0.869988, -0.984046, 0.311621]],
        "differentiate(d.grad) raises RecursionError (analysis/assume.py)",
    ),
}


@pytest.mark.parametrize("name", sorted(FIXED))
def test_nested_fixed_bug(name, tmp_path):
    source, params, point, _ = FIXED[name]
    res = fuzz.check_nested_source(source, params, 1, point, directory=str(tmp_path))
    assert res == "checked", getattr(res, "message", res)
