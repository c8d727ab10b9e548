"""Runs of elementwise adjoint lines written as loops under backend="numba" (``targets.numba.element_runs``):
the cotangents only the run reads not made, consecutive scatters one loop.  Each gradient bit for bit against
the Numba target without the rewrite, against the python target and central differences; GradBench ode's RK4
and seeded random programs of joins of elementwise stages."""

import glob
import importlib.util
import os
import sys

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="backend='numba' needs the [numba] extra")

import adcompiler  # noqa: E402
import numba_fusion_funcs as F  # noqa: E402
from adcompiler.targets.numba import translate  # noqa: E402
from oracle import central_grad  # noqa: E402


def _gradient(fn, args, wrt, monkeypatch, directory):
    """The Numba gradient, and the text of the module compiled for it (written to ``directory``)."""
    monkeypatch.setenv("ADCOMPILER_CACHE_DIR", str(directory))
    got = adcompiler.differentiate(fn, wrt=wrt, backend="numba").grad(*args)
    texts = [open(p).read() for p in glob.glob(os.path.join(str(directory), "numba", "adc_*.py"))]
    return (got if len(wrt) > 1 else (got,)), "\n".join(texts)


def _check(fn, args, wrt, monkeypatch, tmp_path, looped=True):
    """Bit for bit against the code without the rewrite; against the python target and central differences."""
    names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    got, text = _gradient(fn, args, wrt, monkeypatch, tmp_path / "with")
    want = adcompiler.differentiate(fn, wrt=wrt).grad(*args)
    want = want if len(wrt) > 1 else (want,)
    for name, g, w in zip(wrt, got, want, strict=True):
        k = names.index(name)
        assert np.shape(g) == np.shape(args[k]), name
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(g, central_grad(fn, args, k), rtol=1e-5, atol=1e-7)
    with monkeypatch.context() as m:
        m.setattr(translate, "fused_runs", lambda function, **helpers: None)
        plain, plain_text = _gradient(fn, args, wrt, m, tmp_path / "without")
    for g, p in zip(got, plain, strict=True):
        np.testing.assert_array_equal(g, p)
    assert "as_line(" not in plain_text
    if looped:
        assert "as_line(" in text, text
    return text


@pytest.mark.parametrize("n, s", [(40, 1), (40, 3), (2, 2), (1, 2), (7, 1)])
def test_ode(n, s, monkeypatch, tmp_path):
    """RK4's adjoint: each stage's cotangent (the join's, cut by unjoin) computed where the stage's scatters read
    it, the two scatters of a stage one loop; one element and two elements too (empty pieces)."""
    rng = np.random.default_rng(n * 10 + s)
    text = _check(F.rk4_last, (rng.random(n), s), ("x",), monkeypatch, tmp_path)
    assert "d_t15 = " in text  # (the line as it was, in the else)


def test_ode_numbers_past_one():
    """Where the state grows past the first element (many steps, x near 1), the gradient is not zero."""
    x = np.linspace(0.5, 1.5, 6)
    got = adcompiler.differentiate(F.rk4_last, wrt="x", backend="numba").grad(x, 4)
    want = adcompiler.differentiate(F.rk4_last, wrt="x").grad(x, 4)
    assert np.count_nonzero(got) == 6 and np.allclose(got, want, rtol=1e-13, atol=0)


def broadcast_number(x, c):
    """A stage whose cotangent is a number's broadcast (c * x's shape) and a division."""
    k = np.concatenate((x[:1], x[1:] / (1.5 + x[:-1] * x[:-1])))
    j = np.concatenate((x[:2] * c, k[2:] * k[:-2]))
    return np.sum(j * j) + c * np.sum(k)


def one_long(x, y):
    """A piece of one element broadcast against a vector: the run's test fails, the lines as they were."""
    k = np.concatenate((x[:1], y[:1] * x[1:]))
    j = np.concatenate((k[:1], k[1:] * x[:-1]))
    return np.sum(j * k)


def stepped(x, y):
    """Parts of every other element (a scatter into zeros whose line is not consecutive: every element zeroed)."""
    k = np.concatenate((x[:1], x[1:] * y[:-1]))
    j = k[::2] * y[::2] - x[::2]
    return np.sum(j * j) + np.sum(k)


def rows(m, v):
    """A join's piece read from a row of a matrix (its cotangent a row of the matrix's: the lines as they were)."""
    k = np.concatenate((v[:1], m[1] * v[1:]))
    return np.sum(k * k * m[0, 0])


@pytest.mark.parametrize(
    "fn, args, wrt",
    [
        (broadcast_number, (np.linspace(0.1, 0.9, 6), 0.7), ("x", "c")),
        (one_long, (np.linspace(0.1, 0.9, 5), np.linspace(1.0, 2.0, 5)), ("x", "y")),
        (stepped, (np.linspace(0.1, 0.9, 7), np.linspace(1.0, 2.0, 7)), ("x", "y")),
        (rows, (np.linspace(0.1, 0.9, 12).reshape(3, 4), np.linspace(1.0, 2.0, 5)), ("m", "v")),
    ],
    ids=["broadcast_number", "one_long", "stepped", "rows"],
)
def test_other_programs(fn, args, wrt, monkeypatch, tmp_path):
    _check(fn, args, wrt, monkeypatch, tmp_path, looped=False)


# ---- seeded random programs: stages of joins of elementwise arithmetic -------------------------------


def _program(rng, k: int) -> str:
    """A function of vectors a, b and a number s: in a loop, stages each a join of a slice and elementwise
    arithmetic of slices of the earlier stages, the state and a, with sums of the stages into the state."""

    def expr(names, depth):
        return F.random_expr(rng, names, depth, 0.35)

    lines, stages = [], []
    cut = int(rng.integers(1, 3))
    for j in range(int(rng.integers(2, 5))):
        inner = f"(y - {expr(['y', 'a'] + stages, 2)})"
        if stages and rng.random() < 0.7:
            inner = f"(y + {rng.choice(['s', '0.5'])} * {rng.choice(stages)})"
        head = rng.choice(["a", "y", "b"])
        lines.append(f"k{j} = np.concatenate(({head}[:{cut}], a[{cut}:] * {inner}[:-{cut}]))")
        stages.append(f"k{j}")
    update = " + ".join(f"{rng.choice(['1.0', '2.0', 's'])} * {name}" for name in stages)
    lines.append(f"y = y + 0.25 * ({update})")
    body = "\n".join("        " + line for line in lines)
    return (
        f"def prog{k}(a, b, s, n):\n    y = b * 0.5\n    for _ in range(n):\n{body}\n"
        f"    return np.sum(y * y) + y[-1]\n"
    )


@pytest.mark.parametrize("seed", range(4))
def test_random_stages(seed, monkeypatch, tmp_path):
    rng = np.random.default_rng(5100 + seed)
    source = "import numpy as np\n\n\n" + "\n\n".join(_program(rng, k) for k in range(3))
    path = tmp_path / f"element_runs_random_{seed}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"element_runs_random_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    n = int(rng.integers(3, 8))
    args = (rng.normal(size=n) * 0.5, rng.normal(size=n) * 0.5, 0.7, int(rng.integers(1, 3)))
    monkeypatch.setitem(sys.modules, module.__name__, module)  # (its derivatives' code then cached: read here)
    texts = [
        _check(getattr(module, f"prog{k}"), args, ("a", "b", "s"), monkeypatch, tmp_path / f"p{k}", looped=False)
        for k in range(3)
    ]
    assert any("as_line(" in text for text in texts), source


def test_an_element_added_at_a_loop_counter_is_added_as_it_is(monkeypatch, tmp_path):
    """``d_x[i] += ...`` at a loop's counter into the adjoint of a vector is one number: it was written as a run
    of element loops, each iteration testing lengths and making views (``line_of``): 200 times the primal at
    n = 100000 (20 ms; 0.34 ms as it is).  The same numbers as the python target's and central differences."""
    x = np.linspace(-1.0, 1.0, 7)
    (got,), text = _gradient(F.accumulated_squares, (x,), ("x",), monkeypatch, tmp_path)
    np.testing.assert_allclose(got, adcompiler.grad(F.accumulated_squares)(x), rtol=1e-13)
    np.testing.assert_allclose(got, central_grad(F.accumulated_squares, (x,), 0), rtol=1e-6)
    assert "def accumulated_squares_" in text and "line_of(" not in text
