"""`adc compile FILE.py --target numba`: a standalone module of @numba.njit(cache=True) derivatives,
imported in a fresh process (no adcompiler there) and checked against central differences of the
user's own functions, forward against reverse.  Skipped without Numba."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

numba = pytest.importorskip("numba")
np = pytest.importorskip("numpy")

from oracle import central_grad, imported_modules  # noqa: E402
from shared import adc  # noqa: E402

SAMPLE = textwrap.dedent("""\
    import math

    import numba
    import numpy as np

    DAMPING = 0.5


    def rosen(xs):
        s = 0.0
        for i in range(len(xs) - 1):
            s = s + 100.0 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1.0 - xs[i]) ** 2
        return s


    @numba.njit
    def scale(u, v):
        return u * math.exp(-DAMPING * v * v)


    def newton(a, x0):
        x = x0
        while abs(x * x - a) > 1e-12 * a:
            x = 0.5 * (x + a / x)
        return scale(x, a)


    def net(W, x):
        return np.sum(np.tanh(np.dot(W, x)) ** 2)


    def power(x, n):
        if n == 0:
            return 1.0
        return x * power(x, n - 1)


    def joined(x, y):
        ys = [x * 3.0]
        ys = ys + [y * y]
        ws = ys * 2
        return ws[len(ws) - 1] * ws[0]


    def leapfrog(x0, w):
        v = x0 * 0.0
        x = x0
        for t in range(4):
            force = np.zeros(x0.shape[0])
            for c in range(w.shape[0]):
                force = force + w[c] * np.sin(x + c)
            v = v + 0.1 * force
            x = x + 0.1 * v
        return np.sum(x * x)
    """)

# Run in a fresh process beside the written module: each function named on its command line, its value and
# gradient (reverse) and its tangent along the gradient itself (forward), as JSON.
DRIVER = textwrap.dedent("""\
    import json, sys
    import numpy as np
    import sample_ad as m

    xs = np.array([0.3, -1.2, 0.8, 1.5])
    W = np.array([[0.2, -0.4, 0.1], [0.5, 0.3, -0.7]])
    x = np.array([0.9, -0.6, 0.4])
    out, names = {}, sys.argv[1:]  # the functions to call (each compiled in both modes at its first call)
    if "rosen" in names:
        v, (g,) = m.rosen_reverse(xs)
        out["rosen"] = [v, g.tolist(), m.rosen_forward(xs, g)[1]]
    if "newton" in names:
        v, (ga, gx0) = m.newton_reverse(2.0, 1.0)
        out["newton"] = [v, [ga, gx0], m.newton_forward(2.0, 1.0, ga, gx0)[1]]
    if "net" in names:
        v, (gW, gx) = m.net_reverse(W, x)
        out["net"] = [v, [gW.tolist(), gx.tolist()], m.net_forward(W, x, gW, gx)[1]]
    if "power" in names:
        out["power"] = [m.power_reverse(1.3, 7)[1][0], m.power_forward(1.3, 7, 1.0, 0)[1]]
    if "joined" in names:
        out["joined"] = [m.joined_reverse(1.5, 0.5)[1], m.joined_forward(1.5, 0.5, 1.0, 0.0)[1]]
    if "leapfrog" in names:
        x0, w = np.array([0.3, -0.8, 1.1]), np.array([0.5, -1.2])
        v, (gx0, gw) = m.leapfrog_reverse(x0, w)
        out["leapfrog"] = [v, [gx0.tolist(), gw.tolist()], m.leapfrog_forward(x0, w, gx0, gw)[1]]
    out["mods"] = sorted(k.split(".")[0] for k in sys.modules if k.startswith("adcompiler"))
    print(json.dumps(out))
    """)


ALL = ("rosen", "newton", "net", "power", "joined", "leapfrog")
FEW = ("net", "joined")  # by default: NumPy code and lists joined (the rest, a compile each, with --runslow)


def _written(folder, names):
    """The sample, its module written by adc compile --target numba, and what the driver printed for ``names``."""
    (folder / "sample.py").write_text(SAMPLE)
    done = adc("compile", "sample.py", "--target", "numba", "-o", "sample_ad.py", cwd=folder)
    assert done.returncode == 0, done.stderr
    (folder / "driver.py").write_text(DRIVER)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the module stands alone
    run = subprocess.run([sys.executable, "driver.py", *names], cwd=folder, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    sys.path.insert(0, str(folder))
    try:
        import sample
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("sample", None)
    return folder, sample, json.loads(run.stdout)


@pytest.fixture(scope="module", params=[FEW, pytest.param(ALL, marks=pytest.mark.slow)], ids=["few", "all"])
def written(request, tmp_path_factory):
    return _written(tmp_path_factory.mktemp("numba_cli"), request.param)


def test_module_stands_alone_and_every_derivative_is_njit_cached(written):
    folder, _, out = written
    text = (folder / "sample_ad.py").read_text()
    assert imported_modules(text) == {"math", "numba", "numpy"}
    assert out["mods"] == []  # adcompiler was not imported by the driver
    for name in ("rosen", "newton", "net", "scale", "power", "joined", "leapfrog"):
        for mode in ("forward", "reverse"):
            assert f'@numba.njit(cache=True, error_model="numpy")\ndef {name}_{mode}(' in text
    assert any(f.endswith(".nbi") for f in os.listdir(folder / "__pycache__"))  # Numba's cache, as asked


def test_gradients_against_central_differences_and_forward_against_reverse(written):
    _, sample, out = written
    assert set(out) - {"mods"} in (set(FEW), set(ALL))
    if "rosen" in out:
        xs = [0.3, -1.2, 0.8, 1.5]
        value, g, tangent = out["rosen"]
        assert value == pytest.approx(sample.rosen(xs), rel=1e-14)
        assert np.allclose(g, central_grad(sample.rosen, (np.array(xs),), 0), rtol=1e-7, atol=1e-6)
        assert tangent == pytest.approx(np.dot(g, g), rel=1e-12)  # <g, J g> = |g|^2 for a scalar f
    if "newton" in out:
        newton = sample.newton
        value, (ga, gx0), tangent = out["newton"]
        assert value == pytest.approx(newton(2.0, 1.0), rel=1e-14)
        assert ga == pytest.approx(central_grad(newton, (2.0, 1.0), 0), rel=1e-6)
        assert abs(gx0) < 1e-6  # a converged Newton iteration forgets its start
        assert tangent == pytest.approx(ga * ga + gx0 * gx0, rel=1e-10)
    if "net" in out:
        W = np.array([[0.2, -0.4, 0.1], [0.5, 0.3, -0.7]])
        x = np.array([0.9, -0.6, 0.4])
        value, (gW, gx), tangent = out["net"]
        assert value == pytest.approx(sample.net(W, x), rel=1e-14)
        assert np.array(gW).shape == W.shape and np.array(gx).shape == x.shape
        assert np.allclose(gW, central_grad(sample.net, (W, x), 0), rtol=1e-7, atol=1e-8)
        assert np.allclose(gx, central_grad(sample.net, (W, x), 1), rtol=1e-7, atol=1e-8)
        assert tangent == pytest.approx(np.sum(np.square(gW)) + np.sum(np.square(gx)), rel=1e-12)
    if "power" in out:
        assert out["power"] == pytest.approx([7 * 1.3**6] * 2, rel=1e-12)  # recursion, both modes
    if "joined" in out:
        (gx, gy), tangent = out["joined"]  # lists joined with + and repeated with *: y*y * 3x
        assert [gx, gy, tangent] == pytest.approx([3 * 0.25, 2 * 0.5 * 4.5, 3 * 0.25], rel=1e-14)
    if "leapfrog" in out:
        # arrays carried by loops, whose adjoints are reset in each reversed iteration: zeros typed from
        # the arrays (zero_of), as the module is written without argument types (found on the paper's particles)
        x0, w = np.array([0.3, -0.8, 1.1]), np.array([0.5, -1.2])
        value, (gx0, gw), tangent = out["leapfrog"]
        assert value == pytest.approx(sample.leapfrog(x0, w), rel=1e-14)
        assert np.allclose(gx0, central_grad(sample.leapfrog, (x0, w), 0), rtol=1e-7, atol=1e-8)
        assert np.allclose(gw, central_grad(sample.leapfrog, (x0, w), 1), rtol=1e-7, atol=1e-8)
        assert tangent == pytest.approx(np.sum(np.square(gx0)) + np.sum(np.square(gw)), rel=1e-12)


def test_the_written_module_is_the_same_text_whatever_the_hash_seed(tmp_path):
    """The runtime helpers a Numba module needs are written in order of name, not in a set's order
    (found comparing the samples' modules between two runs)."""
    sample = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "samples", "paper_numpy.py")
    texts = []
    for seed in ("0", "1"):
        out = tmp_path / f"m{seed}.py"
        env = dict(os.environ, PYTHONHASHSEED=seed)
        proc = subprocess.run(
            [sys.executable, "-m", "adcompiler", "compile", sample, "--target", "numba", "-o", str(out)],
            capture_output=True,
            text=True,
            env=env,
        )
        assert proc.returncode == 0, proc.stderr
        texts.append(out.read_text())
    assert texts[0] == texts[1]
    assert texts[0].count("@numba.extending.overload(") >= 3  # (several helpers, so their order matters)


def _written_against_backend_numba(tmp_path, seed: int, wanted: int, first: int = 0) -> int:
    """Generated NumPy programs with loops (the fuzzer's small NumPy mode, seed ``seed``): for each that
    ``backend="numba"`` accepts, the module ``adc compile --target numba`` writes (no argument types
    known) gives the same value and cotangents; from program ``first`` on, stops after ``wanted`` such
    programs.  How many ran."""
    import importlib.util
    import random

    import adcompiler
    from adcompiler.cli.main import main
    from adcompiler.errors import UnsupportedSyntaxError
    from adcompiler.testing.fuzz.config import NUMPY_SMALL
    from adcompiler.testing.fuzz.programs import generate, program_seed

    def loaded(name, path):
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    ran = 0
    for index in range(first, first + 60):
        spec = generate(random.Random(program_seed(seed, index)), NUMPY_SMALL)
        if "for " not in spec.source:  # (arrays carried by loops: what the written module got wrong)
            continue
        stem = f"gen_{seed}_{index}"
        (tmp_path / f"{stem}.py").write_text(spec.source)
        fn = getattr(loaded(stem, tmp_path / f"{stem}.py"), spec.entry)
        rng = np.random.default_rng(index)
        kinds = {"array": lambda p: rng.uniform(-1, 1, p[2]), "float": lambda p: rng.uniform(-1, 1)}
        kinds.update({"int": lambda p: 3, "list": lambda p: list(rng.uniform(-1, 1, p[2]))})
        args = tuple(kinds[p[0]](p) for p in spec.params)
        value = fn(*args)
        ct = tuple(rng.uniform(-1, 1, np.shape(v)) for v in value) if spec.outputs > 1 else 1.0
        try:
            want = adcompiler.differentiate(fn, backend="numba").vjp(args, ct)
        except (UnsupportedSyntaxError, numba.core.errors.TypingError):
            continue  # (outside the Numba subset: refused with its location, as the tests of the subset check)
        assert (
            main(["compile", str(tmp_path / f"{stem}.py"), "--target", "numba", "-o", str(tmp_path / f"{stem}_ad.py")])
            == 0
        )
        written = loaded(f"{stem}_ad", tmp_path / f"{stem}_ad.py")
        got = getattr(written, f"{spec.entry}_reverse")(
            *(np.asarray(a) if isinstance(a, list) else a for a in args), ct
        )
        values = zip(got[0], want[0]) if spec.outputs > 1 else [(got[0], want[0])]  # (outputs of two shapes)
        assert all(np.allclose(g, w, rtol=1e-12, atol=1e-14) for g, w in values), spec.source
        for g, w in zip(got[1], want[1]):  # (the module also gives a cotangent of an int parameter: last)
            assert np.shape(g) == np.shape(w) and np.allclose(g, w, rtol=1e-10, atol=1e-12), spec.source
        ran += 1
        if ran == wanted:
            break
    return ran


@pytest.mark.slow  # (the module of this file's sample carries an array in a loop by default)
@pytest.mark.filterwarnings("ignore:Cannot cache")
def test_written_modules_agree_with_backend_numba_on_generated_loops(tmp_path):
    assert _written_against_backend_numba(tmp_path, 12, 1, first=13) == 1  # (the program that found zero_of's bug)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Cannot cache")
def test_written_modules_agree_with_backend_numba_on_more_generated_loops(tmp_path):
    assert _written_against_backend_numba(tmp_path, 12, 8) == 8


@pytest.mark.filterwarnings("ignore:Cannot cache")
def test_written_module_of_an_adjoint_accumulator_typed_from_a_later_residual(tmp_path):
    """GradBench's lstm written with no argument types: the accumulator of the state's adjoint, set at the top
    of the adjoint loop, took its type from the state's version popped later in that loop (zero_of(state__2):
    'not defined', Numba refused the module); it takes the parameter's now.  Against the python target."""
    import importlib.util

    import adcompiler
    from adcompiler.cli.main import main

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    source = os.path.join(root, "benchmarks", "gradbench", "evals", "lstm.py")
    out = tmp_path / "lstm_numba.py"
    assert (
        main(["compile", source, "--target", "numba", "--mode", "reverse", "--function", "objective", "-o", str(out)])
        == 0
    )
    spec = importlib.util.spec_from_file_location("lstm_numba", out)
    written = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(written)
    plain = importlib.util.spec_from_file_location("lstm_plain", source)
    user = importlib.util.module_from_spec(plain)
    plain.loader.exec_module(user)
    rng = np.random.default_rng(5)
    args = (rng.normal(size=(4, 8)), rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), (rng.random((5, 2)) < 0.4) * 1.0)
    value, cts = written.objective_reverse(*args)
    assert value == pytest.approx(user.objective(*args), rel=1e-12)
    for got, want in zip(cts, adcompiler.grad(user.objective, argnums=(0, 1, 2, 3))(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-13)


GLOBAL_LISTS = textwrap.dedent("""\
    OFFS = [0.1, 0.2]
    STEPS = [1, 2, 3]
    ROWS = [[1.0, 2.0], [0.5, -1.0]]


    def f(x):
        z = x * x
        for o in OFFS:
            z = z + o * x
        for k in range(len(STEPS)):
            z = z + STEPS[k] * x * x
        return z + ROWS[1][0] * x + ROWS[0][1]
""")


@pytest.mark.filterwarnings("ignore:Cannot cache")
def test_a_module_list_constant_is_written_as_compiled_code_takes_it(tmp_path):
    """A list of the file the code reads (OFFS = [0.1, 0.2]) was written as the list, which Numba refuses as a
    global (the module was written, and its call failed: "reflected list ... in globals"); it is written as the
    array the code compiled in the process is handed (a list of numbers as a 1-D array, of rows as a 2-D one)."""
    import importlib.util

    import adcompiler
    from adcompiler.cli.main import main

    (tmp_path / "lists_mod.py").write_text(GLOBAL_LISTS)
    assert (
        main(["compile", str(tmp_path / "lists_mod.py"), "--target", "numba", "-o", str(tmp_path / "lists_ad.py")]) == 0
    )
    text = (tmp_path / "lists_ad.py").read_text()
    assert "OFFS = numpy.array([0.1, 0.2], dtype=numpy.float64)" in text, text
    loaded = {}
    for name in ("lists_mod", "lists_ad"):
        spec = importlib.util.spec_from_file_location(name, tmp_path / f"{name}.py")
        loaded[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loaded[name])
    f, x = loaded["lists_mod"].f, 0.7
    value, (got,) = loaded["lists_ad"].f_reverse(x)
    assert value == pytest.approx(f(x), rel=1e-14)
    assert got == pytest.approx(adcompiler.differentiate(f, backend="numba").grad(x), rel=1e-14)
    assert got == pytest.approx((f(x + 1e-6) - f(x - 1e-6)) / 2e-6, rel=1e-7)


SPRING = """\
class Spring:
    k = 3.0  # a class attribute, read through the object (self.k)

    def __init__(self, x0):
        self.x0 = x0

    def energy(self, x):
        return 0.5 * self.k * (x - self.x0) ** 2


SPRING = Spring(0.5)


def energy(x: float) -> float:
    return SPRING.energy(x)
"""


def test_a_class_attribute_read_through_an_object_compiles(tmp_path):
    """``self.k`` of ``k = 3.0`` in the class body is ``getattr(Spring, "k")`` in the code, which Numba does not
    type of a class: refused under backend="numba" with Numba's own words ("Untyped global name 'Spring_1'"), and
    the module adc compile wrote (a SimpleNamespace of the class's numbers) failed at its first call.  Compiled
    code reads a named tuple of the class's numbers."""
    import importlib.util

    import adcompiler
    from adcompiler.cli.main import main

    (tmp_path / "spring_mod.py").write_text(SPRING)
    out = tmp_path / "spring_ad.py"
    assert main(["compile", str(tmp_path / "spring_mod.py"), "--target", "numba", "--import", "-o", str(out)]) == 0
    loaded = {}
    for name in ("spring_mod", "spring_ad"):
        spec = importlib.util.spec_from_file_location(name, tmp_path / f"{name}.py")
        loaded[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loaded[name])
    x = 1.7
    assert loaded["spring_ad"].energy_reverse(x) == (pytest.approx(2.16, rel=1e-14), (pytest.approx(3.6, rel=1e-14),))
    assert adcompiler.differentiate(loaded["spring_mod"].energy, backend="numba").grad(x) == pytest.approx(3.6)
