"""The benchmark programs of Smeding & Vakar, "Parallel Dual-Numbers Reverse
AD" (Section 13), as written in samples/paper_programs.py, differentiated by
adcompiler in both modes.

* small sizes: every derivative against central finite differences of the
  primal (one coordinate of the nested-list arguments at a time), forward
  against reverse (<u, J v> == <J^T u, v>), and the cotangents' structure
  against the arguments' (tuples inside lists stay tuples);
* the paper's sizes (dot N = 100000, sum-mat-vec N = 300, 4 particles x 1000
  steps, the 50-100-50 network): against the hand-written adjoints and
  tangents of benchmarks/handwritten.py (themselves checked against finite
  differences by the benchmark harness and, at small sizes, below);
* ``adc compile samples/paper_programs.py``: every function compiles and the
  written module's ``<name>_reverse`` / ``<name>_forward`` agree with the API.

Nothing here uses adcompiler's own output as a reference.
"""

import functools
import importlib.util
import math
import os
import random
import subprocess
import sys
import textwrap

import pytest

import adcompiler
from oracle import check_grads
from shared import adc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _sub in ("samples", "benchmarks"):
    _p = os.path.join(ROOT, _sub)
    if _p not in sys.path:
        sys.path.insert(0, _p)

import handwritten as H  # noqa: E402  (benchmarks/handwritten.py)
import paper_programs as P  # noqa: E402  (samples/paper_programs.py)
import programs as BP  # noqa: E402  (benchmarks/programs.py: input builders)
import quaternion  # noqa: E402  (samples/quaternion.py)

SAMPLE = os.path.join(ROOT, "samples", "paper_programs.py")


@functools.cache
def D(func, wrt=None):
    """adcompiler.differentiate, built once per (function, wrt)."""
    return adcompiler.differentiate(func) if wrt is None else adcompiler.differentiate(func, wrt=wrt)


# ------------------------------------------------- nested lists of floats


def flat(tree):
    """The floats of a nested list/tuple structure, depth first."""
    if isinstance(tree, (list, tuple)):
        return [v for t in tree for v in flat(t)]
    return [float(tree)]


def unflat(template, vec):
    out, used = _unflat(template, list(vec), 0)
    assert used == len(vec)
    return out


def _unflat(t, vec, i):
    if isinstance(t, (list, tuple)):
        items = []
        for s in t:
            item, i = _unflat(s, vec, i)
            items.append(item)
        return type(t)(items), i
    return vec[i], i + 1


def shape(tree):
    """Container types and lengths of a nested structure (floats as 'f')."""
    if isinstance(tree, (list, tuple)):
        return (type(tree).__name__, tuple(shape(t) for t in tree))
    assert isinstance(tree, float), f"{tree!r} is not a float"
    return "f"


def close(got, expected, scale=0.0, rtol=1e-6, atol=1e-8):
    return abs(got - expected) <= atol + rtol * max(abs(expected), scale)


def assert_all_close(got, expected, rtol=1e-9, atol=1e-12, what=""):
    g, e = flat(got), flat(expected)
    assert len(g) == len(e), f"{what}: {len(g)} values, expected {len(e)}"
    bad = [(k, a, b) for k, (a, b) in enumerate(zip(g, e)) if not close(a, b, 0.0, rtol, atol)]
    assert not bad, f"{what}: {len(bad)} of {len(g)} differ, first (index, got, expected): {bad[:3]}"


# ------------------------------------------------- finite-difference check


def check_list_grads(func, args, wrt=None, rtol=1e-6, atol=1e-8, n_random=2, seed=0, duality_atol=1e-300):
    """Scalar-output ``func`` of (nested lists of) floats, at ``args``:
    reverse (vjp and grad) and forward (jvp along unit-free random
    directions) against central finite differences, <u, J v> == <J^T u, v>,
    and cotangents shaped like the differentiated arguments (``duality_atol``:
    absolute slack for the duality check, for derivatives that are rounding
    noise around 0)."""
    names = list(func.__code__.co_varnames[: func.__code__.co_argcount])
    wrt_names = list(wrt) if wrt is not None else names[: len(args)]
    idx = [names.index(w) for w in wrt_names]
    template = tuple(args[i] for i in idx)
    x0 = flat(template)
    value = func(*args)

    def f(vec):
        a = list(args)
        for i, part in zip(idx, unflat(template, vec)):
            a[i] = part
        return func(*a)

    fd = []
    for k in range(len(x0)):
        h = 6e-6 * max(1.0, abs(x0[k]))
        xp, xm = list(x0), list(x0)
        xp[k] += h
        xm[k] -= h
        fd.append((f(xp) - f(xm)) / (xp[k] - xm[k]))

    df = D(func, None if wrt is None else tuple(wrt))
    fails = []

    # reverse
    val, ct = df.vjp(tuple(args), 1.0)
    if val != value:
        fails.append(f"vjp value {val!r} != primal {value!r}")
    assert isinstance(ct, tuple) and len(ct) == len(idx), f"cotangents {ct!r} not a tuple of {len(idx)}"
    if shape(ct) != shape(template):
        fails.append(f"cotangents have structure {shape(ct)}, arguments {shape(template)}")
    g = flat(ct)
    for k, (a, b) in enumerate(zip(g, fd)):
        if not close(a, b, 0.0, rtol, atol):
            fails.append(f"d/d x[{k}]: reverse {a!r}, finite differences {b!r}")
            if len(fails) > 5:
                break
    grad = df.grad(*args)
    if flat(grad) != g:
        fails.append("grad differs from vjp(1.0)")
    u = 0.7
    _, ct_u = df.vjp(tuple(args), u)

    # forward, along random directions; <u, J v> == <J^T u, v>
    rng = random.Random(seed)
    for _ in range(n_random):
        v = [rng.uniform(-1.0, 1.0) for _ in x0]
        tangents = unflat(template, v)
        val, tan = df.jvp(tuple(args), tuple(tangents))
        if val != value:
            fails.append(f"jvp value {val!r} != primal {value!r}")
        exp = sum(a * b for a, b in zip(fd, v))
        scale = sum(abs(a * b) for a, b in zip(fd, v))
        if not close(tan, exp, scale, rtol, atol):
            fails.append(f"jvp {tan!r}, finite differences {exp!r}")
        lhs = u * tan
        rhs = sum(a * b for a, b in zip(flat(ct_u), v))
        if not close(lhs, rhs, abs(lhs) + abs(rhs), 1e-10, duality_atol):
            fails.append(f"<u, Jv> = {lhs!r} but <J^T u, v> = {rhs!r}")
    assert not fails, f"{func.__name__}:\n  " + "\n  ".join(fails)
    return g


def rand_list(rng, n):
    return [rng.uniform(-1.5, 1.5) for _ in range(n)]


def small_network(seed=3, sizes=(5, 7, 5)):
    """A 5 -> 7 -> 5 network built by the same code as the 50-100-50 one."""
    layers, x, out_w = BP.neural_inputs(seed, list(sizes))
    # keep away from the kink of relu, so finite differences see one branch
    saved, _ = H._net_forward(layers, x)
    assert all(abs(z) > 1e-3 for _, zs in saved for z in zs)
    return layers, x, out_w


# ------------------------------------------------- 1. x * y


def test_scalar_mul():
    check_grads(D(P.scalar_mul), (1.5, -2.25))
    assert D(P.scalar_mul).grad(1.5, -2.25) == (-2.25, 1.5)


# ------------------------------------------------- 2. dot


def test_dot_small_finite_differences():
    rng = random.Random(1)
    xs, ys = rand_list(rng, 20), rand_list(rng, 20)
    g = check_list_grads(P.dot, (xs, ys))
    assert g == flat((ys, xs))  # d/dxs = ys, d/dys = xs, exactly


def test_dot_paper_size_vs_handwritten():
    rng = random.Random(2)
    n = 100000
    xs, ys = rand_list(rng, n), rand_list(rng, n)
    df = D(P.dot)
    val, ct = df.vjp((xs, ys), 1.0)
    hval, hct = H.dot_vjp((xs, ys), 1.0)
    assert close(val, hval, 0.0, 1e-12, 1e-12)
    assert_all_close(ct, hct, what="dot reverse")
    d = (rand_list(rng, n), rand_list(rng, n))
    assert close(df.jvp((xs, ys), d)[1], H.dot_jvp((xs, ys), d)[1], 0.0, 1e-9, 1e-9)


# ------------------------------------------------- 3. sum of M v


def test_sum_mat_vec_small_finite_differences():
    rng = random.Random(3)
    n = 6
    rows, v = [rand_list(rng, n) for _ in range(n)], rand_list(rng, n)
    check_list_grads(P.sum_mat_vec, (rows, v))
    # and the hand-written adjoint at the same point (exact: it is bilinear)
    _, ct = D(P.sum_mat_vec).vjp((rows, v), 1.0)
    assert_all_close(ct, H.sum_mat_vec_vjp((rows, v), 1.0)[1], what="sum_mat_vec vs hand")


def test_sum_mat_vec_non_square():
    rng = random.Random(4)
    rows, v = [rand_list(rng, 4) for _ in range(3)], rand_list(rng, 4)
    check_list_grads(P.sum_mat_vec, (rows, v))


def test_sum_mat_vec_paper_size_vs_handwritten():
    rng = random.Random(5)
    n = 300
    rows, v = [rand_list(rng, n) for _ in range(n)], rand_list(rng, n)
    df = D(P.sum_mat_vec)
    val, ct = df.vjp((rows, v), 1.0)
    hval, hct = H.sum_mat_vec_vjp((rows, v), 1.0)
    assert close(val, hval, 0.0, 1e-12, 1e-12)
    assert_all_close(ct, hct, what="sum_mat_vec reverse")
    d = ([rand_list(rng, n) for _ in range(n)], rand_list(rng, n))
    assert close(df.jvp((rows, v), d)[1], H.sum_mat_vec_jvp((rows, v), d)[1], 0.0, 1e-9, 1e-9)


def sum_mat_vec_via_dot(rows, v):
    """The paper's formulation, sum (map (dotp v) rows): a helper on lists."""
    total = 0.0
    for i in range(len(rows)):
        total = total + P.dot(rows[i], v)
    return total


def test_sum_mat_vec_via_list_helper():
    rng = random.Random(9)
    rows, v = [rand_list(rng, 4) for _ in range(5)], rand_list(rng, 4)
    g = check_list_grads(sum_mat_vec_via_dot, (rows, v))
    assert_all_close(g, H.sum_mat_vec_vjp((rows, v), 1.0)[1], what="via dot helper vs hand")


# ------------------------------------------------- 4. rotate_vec_by_quat

QUAT_POINT = (0.9, 0.1, -0.3, 0.3, 1.0, 2.0, -0.5)


def test_rotate_vec_by_quat_is_the_quaternion_sample():
    assert P.rotate_vec_by_quat(*QUAT_POINT) == quaternion.rotate_vec_by_quat(*QUAT_POINT)


def test_rotate_vec_by_quat_finite_differences():
    check_grads(D(P.rotate_vec_by_quat), QUAT_POINT)


def test_rotate_vec_by_quat_jacobian_three_reverse_passes_equal_forward_passes():
    df = D(P.rotate_vec_by_quat)
    rows = [df.vjp(QUAT_POINT, tuple(1.0 if j == i else 0.0 for j in range(3)))[1] for i in range(3)]
    cols = [df.jvp(QUAT_POINT, tuple(1.0 if j == k else 0.0 for j in range(7)))[1] for k in range(7)]
    for i in range(3):
        for k in range(7):
            assert close(rows[i][k], cols[k][i], 0.0, 1e-12, 1e-14)
        hand = H.rotate_vec_by_quat_vjp(QUAT_POINT, tuple(1.0 if j == i else 0.0 for j in range(3)))[1]
        assert_all_close(rows[i], hand, what=f"row {i} vs hand-written")


# ------------------------------------------------- 5. neural network


def test_relu_helper():
    check_grads(D(P.relu), (0.7,))
    check_grads(D(P.relu), (-0.7,))
    assert D(P.relu).grad(-0.7) == 0.0 and D(P.relu).grad(0.7) == 1.0


def test_network_outputs_is_a_softmax():
    layers, x, _ = small_network()
    probs = P.network_outputs(layers, x)
    assert len(probs) == 5 and all(p > 0.0 for p in probs)
    assert close(sum(probs), 1.0, 0.0, 1e-14, 1e-14)
    assert P.neural(layers, x) == sum(probs)


def test_neural_weighted_small_finite_differences():
    layers, x, out_w = small_network()
    g = check_list_grads(P.neural_weighted, (layers, x, out_w), wrt=("layers", "x"))
    assert max(abs(v) for v in g) > 1e-3  # a real test: the gradient is not ~0
    hand = H.neural_weighted_vjp((layers, x, out_w), 1.0)[1]
    assert_all_close(g, hand, rtol=1e-9, atol=1e-14, what="neural_weighted vs hand")


def test_neural_weighted_relu_kills_negative_units():
    # a unit whose pre-activation is negative passes no gradient to its row
    layers, x, out_w = small_network()
    saved, _ = H._net_forward(layers, x)
    dead = [i for i, z in enumerate(saved[0][1]) if z < 0.0]
    assert dead, "want a dead unit in the first layer at this seed"
    d_layers, _ = D(P.neural_weighted, ("layers", "x")).vjp((layers, x, out_w), 1.0)[1]
    for i in dead:
        assert d_layers[0][0][i] == [0.0] * len(x) and d_layers[0][1][i] == 0.0


def test_neural_sum_of_softmax_has_zero_gradient():
    layers, x, _ = small_network()
    # the exact gradient is 0: only rounding noise (~1e-17) is left in either mode
    g = check_list_grads(P.neural, (layers, x), duality_atol=1e-14)
    assert max(abs(v) for v in g) < 1e-12
    _, tan = D(P.neural).jvp((layers, x), (layers, x))  # along the point itself
    assert abs(tan) < 1e-12


def test_neural_running_max_starts_at_zero():
    # all outputs negative: the paper's max stays 0.0, and the value is still a softmax
    layers = [([[1.0, 0.0], [0.0, 1.0]], [-5.0, -6.0])]
    x = [0.5, 0.25]
    assert close(P.neural(layers, x), 1.0, 0.0, 1e-15, 1e-15)
    check_list_grads(P.neural_weighted, (layers, x, [0.3, -1.2]), wrt=("layers", "x"))


def test_neural_paper_size_vs_handwritten():
    layers, x, out_w = BP.neural_inputs(0, [50, 100, 50])
    args = (layers, x, out_w)
    df = D(P.neural_weighted, ("layers", "x"))
    val, ct = df.vjp(args, 1.0)
    hval, hct = H.neural_weighted_vjp(args, 1.0)
    assert close(val, hval, 0.0, 1e-12, 1e-15)
    assert shape(ct) == shape((layers, x))
    assert_all_close(ct, hct, rtol=1e-9, atol=1e-14, what="neural_weighted reverse")
    rng = random.Random(6)
    d = unflat((layers, x), [rng.uniform(-1, 1) for _ in flat((layers, x))])
    assert close(df.jvp(args, d)[1], H.neural_weighted_jvp(args, d)[1], 0.0, 1e-9, 1e-14)
    # the paper's program: the sum of the softmax, gradient ~0
    _, ct0 = D(P.neural).vjp((layers, x), 1.0)
    assert max(abs(v) for v in flat(ct0)) < 1e-12


def neural_via_list_helper(layers, x):
    """The paper's program with the network in a helper that returns a list."""
    return sum(P.network_outputs(layers, x))


def test_neural_via_list_helper():
    layers, x, _ = small_network()
    check_list_grads(neural_via_list_helper, (layers, x), duality_atol=1e-14)


# ------------------------------------------------- 6. particles


def small_particles():
    rng = random.Random(7)
    ps = [[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(4)]
    vs = [[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(4)]
    return ps, vs


def test_particles_small_finite_differences():
    ps, vs = small_particles()
    g = check_list_grads(P.particles, (ps, vs, 50), wrt=("ps", "vs"))
    hand = H.particles_vjp((ps, vs, 50), 1.0)[1]
    assert_all_close(g, hand, rtol=1e-10, atol=1e-14, what="particles vs hand")


def test_particles_zero_steps():
    ps, vs = small_particles()
    g = check_list_grads(P.particles, (ps, vs, 0), wrt=("ps", "vs"))
    assert g == flat(([[y, x] for x, y in ps], [[0.0, 0.0] for _ in vs]))


def test_particles_int_parameter_left_out_by_default_and_refused_when_asked_for():
    ps, vs = small_particles()
    d = adcompiler.differentiate(P.particles)
    assert d.wrt == ("ps", "vs")  # n_steps is read only by range(): an integer
    assert shape(d.grad(ps, vs, 5)) == shape(D(P.particles, ("ps", "vs")).grad(ps, vs, 5))
    with pytest.raises(TypeError, match=r"wrt=\('ps', 'vs'\)"):
        adcompiler.differentiate(P.particles, wrt=("ps", "vs", "n_steps")).grad(ps, vs, 5)


def test_particles_paper_size_vs_handwritten():
    ps, vs = P.particles_input(4)
    df = D(P.particles, ("ps", "vs"))
    val, ct = df.vjp((ps, vs), 1.0)  # n_steps left to its default, 1000
    hval, hct = H.particles_vjp((ps, vs), 1.0)
    assert close(val, hval, 0.0, 1e-12, 1e-15)
    assert shape(ct) == shape((ps, vs))
    assert_all_close(ct, hct, rtol=1e-9, atol=1e-15, what="particles reverse")
    d = ([[0.3, -0.2]] * 4, [[0.1, 0.5]] * 4)
    assert close(df.jvp((ps, vs), d)[1], H.particles_jvp((ps, vs), d)[1], 0.0, 1e-9, 1e-15)


# ------------------------------------------------- adc compile


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("paper") / "paper_programs_ad.py"
    proc = adc("compile", SAMPLE, "-o", out)
    assert proc.returncode == 0, proc.stderr
    spec = importlib.util.spec_from_file_location("paper_programs_ad", out)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_compiled_module_imports_only_math(compiled):
    from oracle import imported_modules

    with open(compiled.__file__) as fh:
        assert imported_modules(fh.read()) <= {"math"}


def test_compiled_module_agrees_with_api(compiled):
    rng = random.Random(8)
    layers, x, out_w = small_network()
    ps, vs = small_particles()
    xs, ys = rand_list(rng, 9), rand_list(rng, 9)
    rows, v = [rand_list(rng, 5) for _ in range(5)], rand_list(rng, 5)
    cases = [
        ("scalar_mul", (1.5, -2.25), 1.0),
        ("dot", (xs, ys), 1.0),
        ("sum_mat_vec", (rows, v), 1.0),
        ("rotate_vec_by_quat", QUAT_POINT, (0.3, -1.0, 2.0)),
        ("relu", (0.4,), 1.0),
        ("neural", (layers, x), 1.0),
        ("neural_weighted", (layers, x, out_w), 1.0),
        ("particles", (ps, vs, 30), 1.0),
    ]
    for name, args, ct in cases:
        func = getattr(P, name)
        val, cts = getattr(compiled, f"{name}_reverse")(*args, ct=ct)
        assert val == func(*args), name
        if name == "particles":  # the CLI differentiates n_steps too; its cotangent is 0
            api_cts = D(func, ("ps", "vs")).vjp(args, ct)[1] + (0.0,)
        else:  # neural_weighted: out_w is differentiated too, as a list of floats
            api_cts = D(func).vjp(args, ct)[1]
        assert_all_close(cts, api_cts, what=f"{name}_reverse")
        # forward: tangent along the arguments themselves (zero for ints)
        tangents = tuple(0.0 if isinstance(a, int) else a for a in args)
        fval, ftan = getattr(compiled, f"{name}_forward")(*args, *tangents)
        assert fval == func(*args), name
        dot_rev = sum(a * b for a, b in zip(flat(cts), flat(tangents)))
        dot_fwd = sum(a * b for a, b in zip(flat(ct), flat(ftan)))
        assert close(dot_fwd, dot_rev, abs(dot_rev), 1e-10, 1e-14), name


def test_compiled_network_outputs_list_output(compiled):
    # network_outputs returns the softmax as a list: its reverse takes a list ct
    layers, x, _ = small_network()
    ct = [1.0, -0.5, 0.25, 0.0, 2.0]
    val, (d_layers, d_x) = compiled.network_outputs_reverse(layers, x, ct=ct)
    assert val == P.network_outputs(layers, x)
    hand = H.neural_weighted_vjp((layers, x, ct), 1.0)[1]
    assert_all_close((d_layers, d_x), hand, rtol=1e-9, atol=1e-14, what="network_outputs_reverse")


def test_main_demo_runs_without_adcompiler(tmp_path):
    # importing or running the sample never needs adcompiler
    code = textwrap.dedent(f"""
        import sys
        sys.modules["adcompiler"] = None  # make `import adcompiler` fail
        sys.argv = ["paper_programs.py"]
        import runpy
        runpy.run_path({SAMPLE!r}, run_name="__main__")
        """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "skipping the derivative demo" in proc.stdout


# ------------------------------------------------- adc compile: module constants


def test_cli_copies_module_constants_read_inside_a_loop(tmp_path):
    # Regression: up to commit 43c0129, adc compile copied a module constant into
    # the written module only when it was read outside loops and branches, so a
    # constant read only inside a loop body was undefined (NameError).
    src = tmp_path / "const_in_loop.py"
    src.write_text("K = 2.0\n\n\ndef f(x):\n    for _ in range(3):\n        x = K * x\n    return x\n")
    out = tmp_path / "const_in_loop_ad.py"
    proc = adc("compile", src, "-o", out)
    assert proc.returncode == 0, proc.stderr
    spec = importlib.util.spec_from_file_location("const_in_loop_ad", out)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.f_reverse(1.5) == (12.0, (8.0,))
    assert mod.f_forward(1.5, 1.0) == (12.0, 8.0)
