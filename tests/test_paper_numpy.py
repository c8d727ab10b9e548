"""The NumPy versions of the Smeding & Vakar benchmark programs
(samples/paper_numpy.py), differentiated by adcompiler in both modes.

* small sizes (dot N = 20, sum-mat-vec N = 6, a 5 -> 7 -> 5 network,
  4 particles x 30 steps): the gradient (reverse mode) against the full
  central-difference gradient of the primal, the jvp (forward mode) against
  central differences along random directions, and forward against reverse
  (<u, J v> == <J^T u, v>), also for the vector-valued ``safe_softmax_np``;
* the paper's sizes (dot N = 1000 and 100000, sum-mat-vec N = 100 and 300,
  the 50 -> 100 -> 50 network, 4 particles x 1000 steps): both modes against
  autograd (skipped when autograd is not installed);
* against the scalar-style programs of samples/paper_programs.py, the inputs
  converted to nested lists: the same values, and the same derivatives as
  the hand-written scalar adjoints/tangents of benchmarks/handwritten.py;
* ``adc compile samples/paper_numpy.py``: every function compiles and the
  written module's ``<name>_reverse`` / ``<name>_forward`` agree with the API.

Nothing here uses adcompiler's own output as a reference.
"""

import functools
import importlib.util
import os
import sys

import numpy as np
import pytest

import adcompiler
from shared import adc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _sub in ("samples", "benchmarks"):
    _p = os.path.join(ROOT, _sub)
    if _p not in sys.path:
        sys.path.insert(0, _p)

import handwritten as H  # noqa: E402  (benchmarks/handwritten.py: scalar hand-written derivatives)
import paper_numpy as PN  # noqa: E402  (samples/paper_numpy.py)
import paper_programs as P  # noqa: E402  (samples/paper_programs.py)

SAMPLE = os.path.join(ROOT, "samples", "paper_numpy.py")


@functools.cache
def D(func, wrt=None):
    """adcompiler.differentiate, built once per (function, wrt)."""
    return adcompiler.differentiate(func) if wrt is None else adcompiler.differentiate(func, wrt=wrt)


# ------------------------------------------------- pytrees of arrays


def flat(tree) -> np.ndarray:
    """The floats of a nested list/tuple/array structure, depth first, as a 1-D array."""
    if isinstance(tree, (list, tuple)):
        parts = [flat(t) for t in tree]
        return np.concatenate(parts) if parts else np.zeros(0)
    return np.asarray(tree, dtype=float).ravel()


def unflat(template, vec):
    """Inverse of ``flat``: ``template``'s structure (arrays keep their shapes)."""

    def go(t, i):
        if isinstance(t, (list, tuple)):
            items = []
            for s in t:
                item, i = go(s, i)
                items.append(item)
            return type(t)(items), i
        if isinstance(t, np.ndarray):
            return vec[i : i + t.size].reshape(t.shape).copy(), i + t.size
        return float(vec[i]), i + 1

    out, used = go(template, 0)
    assert used == len(vec)
    return out


def same_structure(a, b):
    """Lists stay lists, tuples stay tuples, arrays keep their shapes."""
    if isinstance(b, (list, tuple)):
        assert type(a) is type(b), (type(a), type(b))
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same_structure(x, y)
    elif isinstance(b, np.ndarray):
        assert np.shape(a) == b.shape, (np.shape(a), b.shape)


def fd_grad(func, args, wrt_idx, h=1e-6):
    """Central differences of a scalar ``func`` in every float of args[wrt_idx]."""
    template = tuple(args[i] for i in wrt_idx)
    x0 = flat(template)

    def f(vec):
        a = list(args)
        for i, v in zip(wrt_idx, unflat(template, vec)):
            a[i] = v
        return float(func(*a))

    g = np.empty_like(x0)
    for k in range(len(x0)):
        step = h * max(1.0, abs(x0[k]))
        xp, xm = x0.copy(), x0.copy()
        xp[k] += step
        xm[k] -= step
        g[k] = (f(xp) - f(xm)) / (2 * step)
    return g


def fd_directional(func, args, wrt_idx, direction, h=1e-6):
    """(f(x + h d) - f(x - h d)) / 2h along a direction of the wrt arguments."""
    template = tuple(args[i] for i in wrt_idx)
    x0, d = flat(template), flat(direction)
    step = h * max(1.0, float(np.abs(x0).max())) / max(1.0, float(np.abs(d).max()))

    def f(vec):
        a = list(args)
        for i, v in zip(wrt_idx, unflat(template, vec)):
            a[i] = v
        return flat(func(*a))

    return (f(x0 + step * d) - f(x0 - step * d)) / (2 * step)


def random_like(rng, tree):
    return unflat(tree, rng.standard_normal(len(flat(tree))))


# ------------------------------------------------- inputs


def layers_np(rng, sizes):
    """Dense layers [(W, b), ...]: W of shape (n_out, n_in) ~ N(0, 1/n_in), b ~ N(0, 0.1^2)."""
    return [
        (rng.standard_normal((n_out, n_in)) / np.sqrt(n_in), 0.1 * rng.standard_normal(n_out))
        for n_in, n_out in zip(sizes, sizes[1:])
    ]


def net_inputs(seed, sizes):
    rng = np.random.default_rng(seed)
    layers = layers_np(rng, sizes)
    return layers, rng.standard_normal(sizes[0]), rng.uniform(-1.0, 1.0, sizes[-1])


def small_cases():
    """name -> (function, args, wrt or None, indices of the wrt args)."""
    rng = np.random.default_rng(7)
    layers, x, out_w = net_inputs(3, [5, 7, 5])
    ps, vs = rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    return {
        "dot_np": (PN.dot_np, (rng.standard_normal(20), rng.standard_normal(20)), None, (0, 1)),
        "sum_mat_vec_np": (PN.sum_mat_vec_np, (rng.standard_normal((6, 6)), rng.standard_normal(6)), None, (0, 1)),
        "neural_np": (PN.neural_np, (layers, x), None, (0, 1)),
        "neural_weighted_np": (PN.neural_weighted_np, (layers, x, out_w), ("layers", "x"), (0, 1)),
        "particles_np": (PN.particles_np, (ps, vs, 30), ("ps", "vs"), (0, 1)),
    }


SMALL = small_cases()

# Known adcompiler bugs (see test_bug_* at the bottom for minimal reproducers).
BIAS_BUG = (
    "adcompiler bug: an array read out of a list/tuple parameter (b = layers[l][1]) is taken for a "
    "float, so reverse mode sums its cotangent to a number (d_b = np.sum(d_z)) instead of an array"
)
CLI_ARRAY_BUG = (
    "adc compile bug: without a call site it does not know which parameters are arrays, so a "
    "parameter met only by arithmetic/indexing is taken for a float (or list) in reverse mode"
)
REVERSE_BIAS = {"neural_np", "neural_weighted_np", "neural_np_50_100_50", "neural_weighted_np_50_100_50"}


def names(cases, xfail=(), reason=BIAS_BUG):
    """pytest params for the case names, strict xfail for those in ``xfail``."""
    return [
        pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=reason)] if n in xfail else []) for n in cases
    ]  # noqa


# ------------------------------------------------- small sizes: finite differences


@pytest.mark.parametrize("name", names(SMALL))
def test_reverse_against_finite_differences(name):
    func, args, wrt, idx = SMALL[name]
    f = D(func, wrt)
    value, cts = f.vjp(args, 1.0)
    assert value == pytest.approx(float(func(*args)), rel=1e-12, abs=1e-14)
    wrt_args = tuple(args[i] for i in idx)
    same_structure(cts, wrt_args)
    grad = f.grad(*args)
    np.testing.assert_allclose(flat(grad), flat(cts), rtol=1e-12, atol=1e-15)
    expected = fd_grad(func, args, idx)
    np.testing.assert_allclose(flat(cts), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", list(SMALL))
def test_forward_against_finite_differences(name):
    func, args, wrt, idx = SMALL[name]
    f = D(func, wrt)
    rng = np.random.default_rng(11)
    wrt_args = tuple(args[i] for i in idx)
    for _ in range(3):
        direction = random_like(rng, wrt_args)
        value, tangent = f.jvp(args, direction)
        assert value == pytest.approx(float(func(*args)), rel=1e-12, abs=1e-14)
        expected = fd_directional(func, args, idx, direction)
        np.testing.assert_allclose(flat(tangent), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", names(SMALL))
def test_forward_reverse_inner_product(name):
    """<u, J v> == <J^T u, v> for random u (the output cotangent) and v."""
    func, args, wrt, idx = SMALL[name]
    f = D(func, wrt)
    rng = np.random.default_rng(13)
    wrt_args = tuple(args[i] for i in idx)
    for _ in range(3):
        v = random_like(rng, wrt_args)
        u = float(rng.standard_normal())
        _, jv = f.jvp(args, v)
        _, jtu = f.vjp(args, u)
        lhs, rhs = u * float(jv), float(flat(jtu) @ flat(v))
        assert lhs == pytest.approx(rhs, rel=1e-10, abs=1e-13)


def test_safe_softmax_vector_output():
    """The vector-valued helper: the full Jacobian by one vjp per output and by
    one jvp per input, against central differences and against each other;
    its rows sum to zero (softmax sums to 1)."""
    rng = np.random.default_rng(5)
    h = np.array([0.3, -1.2, 2.0, 0.7, -0.1])
    f = D(PN.safe_softmax_np)
    n = len(h)
    eye = np.eye(n)
    jac_rev = np.array([f.vjp((h,), eye[i])[1] for i in range(n)]).reshape(n, n)
    jac_fwd = np.array([f.jvp((h,), (eye[j],))[1] for j in range(n)]).T
    jac_fd = np.array([fd_directional(PN.safe_softmax_np, (h,), (0,), (eye[j],)) for j in range(n)]).T
    np.testing.assert_allclose(jac_rev, jac_fd, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(jac_fwd, jac_fd, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(jac_rev.sum(axis=0), 0.0, atol=1e-12)
    # analytic: diag(p) - p p^T
    p = np.exp(h - max(0.0, h.max()))
    p /= p.sum()
    np.testing.assert_allclose(jac_rev, np.diag(p) - np.outer(p, p), rtol=1e-12, atol=1e-15)
    for _ in range(3):
        u, v = rng.standard_normal(n), rng.standard_normal(n)
        _, jv = f.jvp((h,), (v,))
        _, (jtu,) = f.vjp((h,), u)
        assert float(u @ jv) == pytest.approx(float(jtu @ v), rel=1e-10, abs=1e-13)


def test_safe_softmax_all_negative_keeps_zero_shift():
    """With every h_i < 0 the running max stays at 0.0 (the paper's start
    value): still a softmax, and the derivative is the softmax Jacobian."""
    h = np.array([-0.5, -2.0, -1.0])
    f = D(PN.safe_softmax_np)
    value, _ = f.vjp((h,), np.ones(3))
    np.testing.assert_allclose(value, np.exp(h) / np.exp(h).sum(), rtol=1e-14)
    u = np.array([1.0, -2.0, 0.5])
    _, (jtu,) = f.vjp((h,), u)
    p = np.exp(h) / np.exp(h).sum()
    np.testing.assert_allclose(jtu, (np.diag(p) - np.outer(p, p)) @ u, rtol=1e-12, atol=1e-15)


# ------------------------------------------------- the paper's sizes: autograd


def ag_programs():
    """The same programs written with autograd.numpy (an independent oracle)."""
    anp = pytest.importorskip("autograd.numpy")

    def dot(x, y):
        return anp.dot(x, y)

    def sum_mat_vec(m, v):
        return anp.sum(anp.dot(m, v))

    def net(layers, x, out_w=None):
        h = x
        for w, b in layers:
            h = anp.maximum(anp.dot(w, h) + b, 0.0)
        m = max(0.0, anp.max(h))
        e = anp.exp(h - m)
        p = e / anp.sum(e)
        return anp.sum(p) if out_w is None else anp.sum(out_w * p)

    def particles(ps, vs, n_steps=1000):
        p, v = ps, vs
        for _ in range(n_steps):
            a = (-0.5 * p - 0.2 * v) / 1.0
            p, v = p + 0.05 * v, v + 0.05 * a
        return anp.sum(p[:, 0] * p[:, 1])

    return {"dot": dot, "sum_mat_vec": sum_mat_vec, "net": net, "particles": particles}


def paper_cases():
    rng = np.random.default_rng(0)
    layers, x, out_w = net_inputs(0, [50, 100, 50])
    ps, vs = PN.particles_input_np(4)
    cases = {}
    for n in (1000, 100000):
        cases[f"dot_np_{n}"] = (PN.dot_np, "dot", (rng.standard_normal(n), rng.standard_normal(n)), None, 2)
    for n in (100, 300):
        cases[f"sum_mat_vec_np_{n}"] = (
            PN.sum_mat_vec_np,
            "sum_mat_vec",
            (rng.standard_normal((n, n)), rng.standard_normal(n)),
            None,
            2,
        )
    cases["neural_np_50_100_50"] = (PN.neural_np, "net", (layers, x), None, 2)
    cases["neural_weighted_np_50_100_50"] = (PN.neural_weighted_np, "net", (layers, x, out_w), ("layers", "x"), 2)
    cases["particles_np_4x1000"] = (PN.particles_np, "particles", (ps, vs), ("ps", "vs"), 2)
    return cases


PAPER = paper_cases()


@pytest.mark.parametrize("name", names(PAPER))
def test_paper_sizes_against_autograd(name):
    autograd = pytest.importorskip("autograd")
    func, ag_name, args, wrt, n_wrt = PAPER[name]
    ag_fn = ag_programs()[ag_name]
    f = D(func, wrt)
    ag_value = ag_fn(*args)
    ag_grad = autograd.grad(ag_fn, argnum=tuple(range(n_wrt)))(*args)
    wrt_args = args[:n_wrt]
    # reverse
    value, cts = f.vjp(args, 1.0)
    assert value == pytest.approx(float(ag_value), rel=1e-12, abs=1e-12)
    same_structure(cts, wrt_args)
    scale = max(1.0, float(np.abs(flat(ag_grad)).max()))
    np.testing.assert_allclose(flat(cts), flat(ag_grad), rtol=1e-9, atol=1e-12 * scale)
    # forward, along a random direction, against <autograd gradient, direction>
    rng = np.random.default_rng(17)
    direction = random_like(rng, wrt_args)
    value_f, tangent = f.jvp(args, direction)
    assert value_f == pytest.approx(float(ag_value), rel=1e-12, abs=1e-12)
    expected = float(flat(ag_grad) @ flat(direction))
    assert float(tangent) == pytest.approx(expected, rel=1e-9, abs=1e-11 * scale * len(flat(direction)) ** 0.5)


@pytest.mark.parametrize("name", ["neural_np_50_100_50", "neural_weighted_np_50_100_50"])
def test_paper_network_forward_against_autograd(name):
    """Forward mode alone (reverse mode of the network is xfailed above):
    jvps along random directions against <autograd gradient, direction>."""
    autograd = pytest.importorskip("autograd")
    func, ag_name, args, wrt, n_wrt = PAPER[name]
    ag_fn = ag_programs()[ag_name]
    ag_grad = flat(autograd.grad(ag_fn, argnum=tuple(range(n_wrt)))(*args))
    rng = np.random.default_rng(19)
    for _ in range(2):
        direction = random_like(rng, args[:n_wrt])
        _, tangent = D(func, wrt).jvp(args, direction)
        assert float(tangent) == pytest.approx(float(ag_grad @ flat(direction)), rel=1e-9, abs=1e-13)


def test_network_weight_and_input_cotangents():
    """The cotangents the bias bug does not touch (every W, and x) against
    central differences (small network) and autograd (the paper's)."""
    for args in (SMALL["neural_weighted_np"][1], PAPER["neural_weighted_np_50_100_50"][2]):
        layers, x, out_w = args
        _, (d_layers, d_x) = D(PN.neural_weighted_np, ("layers", "x")).vjp(args, 1.0)
        if len(x) == 5:
            expected = unflat((layers, x), fd_grad(PN.neural_weighted_np, args, (0, 1)))
            tol = dict(rtol=1e-6, atol=1e-8)
        else:
            autograd = pytest.importorskip("autograd")
            expected = autograd.grad(ag_programs()["net"], argnum=(0, 1))(*args)
            tol = dict(rtol=1e-9, atol=1e-13)
        for (dw, _), (ew, _) in zip(d_layers, expected[0]):
            np.testing.assert_allclose(dw, ew, **tol)
        np.testing.assert_allclose(d_x, expected[1], **tol)


def test_neural_np_gradient_is_zero_up_to_rounding():
    """The paper's ``neural`` sums a softmax (identically 1): its gradient is ~0."""
    func, _, args, wrt, _ = PAPER["neural_np_50_100_50"]
    value, cts = D(func, wrt).vjp(args, 1.0)
    assert value == pytest.approx(1.0, abs=1e-14)
    assert np.abs(flat(cts)).max() < 1e-12


# ------------------------------------------------- against the scalar-style programs


def to_lists(tree):
    """Arrays to nested lists of floats (tuples stay tuples)."""
    if isinstance(tree, tuple):
        return tuple(to_lists(t) for t in tree)
    if isinstance(tree, list):
        return [to_lists(t) for t in tree]
    return np.asarray(tree, dtype=float).tolist()


def test_particles_input_matches_scalar_version():
    ps, vs = PN.particles_input_np(4)
    assert to_lists((ps, vs)) == tuple(P.particles_input(4))


@pytest.mark.parametrize("n_steps", [30, 1000])
def test_particles_against_scalar_version(n_steps):
    """The (4, 2)-array simulation against the scalar one (the inputs as
    lists), and both modes against the hand-written scalar adjoint/tangent."""
    ps, vs = PN.particles_input_np(4)
    if n_steps == 30:  # a less symmetric input as well as the paper's
        rng = np.random.default_rng(23)
        ps, vs = ps + 0.3 * rng.standard_normal((4, 2)), vs + 0.3 * rng.standard_normal((4, 2))
    lps, lvs = to_lists(ps), to_lists(vs)
    value = PN.particles_np(ps, vs, n_steps)
    assert float(value) == pytest.approx(P.particles(lps, lvs, n_steps), rel=1e-12, abs=1e-15)
    f = D(PN.particles_np, ("ps", "vs"))
    _, (d_ps, d_vs) = f.vjp((ps, vs, n_steps), 1.0)
    h_value, (h_ps, h_vs) = H.particles_vjp((lps, lvs, n_steps), 1.0)
    assert float(value) == pytest.approx(h_value, rel=1e-12, abs=1e-15)
    np.testing.assert_allclose(d_ps, np.array(h_ps), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(d_vs, np.array(h_vs), rtol=1e-10, atol=1e-14)
    rng = np.random.default_rng(29)
    t_ps, t_vs = rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    _, tangent = f.jvp((ps, vs, n_steps), (t_ps, t_vs))
    _, h_tangent = H.particles_jvp((lps, lvs, n_steps), (to_lists(t_ps), to_lists(t_vs)))
    assert float(tangent) == pytest.approx(h_tangent, rel=1e-10, abs=1e-14)


def test_dot_and_sum_mat_vec_against_scalar_versions():
    rng = np.random.default_rng(31)
    x, y = rng.standard_normal(200), rng.standard_normal(200)
    m, v = rng.standard_normal((30, 30)), rng.standard_normal(30)
    assert float(PN.dot_np(x, y)) == pytest.approx(P.dot(x.tolist(), y.tolist()), rel=1e-12)
    assert float(PN.sum_mat_vec_np(m, v)) == pytest.approx(P.sum_mat_vec(m.tolist(), v.tolist()), rel=1e-12)
    tx, ty = rng.standard_normal(200), rng.standard_normal(200)
    tm, tv = rng.standard_normal((30, 30)), rng.standard_normal(30)
    # reverse
    _, (dx, dy) = D(PN.dot_np).vjp((x, y), 1.0)
    _, (hx, hy) = H.dot_vjp((x.tolist(), y.tolist()), 1.0)
    np.testing.assert_allclose(dx, hx, rtol=1e-14)
    np.testing.assert_allclose(dy, hy, rtol=1e-14)
    _, (dm, dv) = D(PN.sum_mat_vec_np).vjp((m, v), 1.0)
    _, (hm, hv) = H.sum_mat_vec_vjp((m.tolist(), v.tolist()), 1.0)
    np.testing.assert_allclose(dm, np.array(hm), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dv, np.array(hv), rtol=1e-12, atol=1e-13)
    # forward
    _, t = D(PN.dot_np).jvp((x, y), (tx, ty))
    _, ht = H.dot_jvp((x.tolist(), y.tolist()), (tx.tolist(), ty.tolist()))
    assert float(t) == pytest.approx(ht, rel=1e-12)
    _, t = D(PN.sum_mat_vec_np).jvp((m, v), (tm, tv))
    _, ht = H.sum_mat_vec_jvp((m.tolist(), v.tolist()), (tm.tolist(), tv.tolist()))
    assert float(t) == pytest.approx(ht, rel=1e-12)


def test_neural_against_scalar_version():
    """The 50 -> 100 -> 50 network on arrays against the scalar one on lists
    (value, and both modes against the hand-written scalar derivatives)."""
    layers, x, out_w = net_inputs(0, [50, 100, 50])
    l_layers, lx, low = to_lists(layers), x.tolist(), out_w.tolist()
    value = PN.neural_weighted_np(layers, x, out_w)
    assert float(value) == pytest.approx(P.neural_weighted(l_layers, lx, low), rel=1e-12, abs=1e-15)
    assert float(PN.neural_np(layers, x)) == pytest.approx(P.neural(l_layers, lx), rel=1e-12)
    f = D(PN.neural_weighted_np, ("layers", "x"))
    _, cts = f.vjp((layers, x, out_w), 1.0)
    _, h_cts = H.neural_weighted_vjp((l_layers, lx, low), 1.0)
    np.testing.assert_allclose(flat(cts), flat(h_cts), rtol=1e-9, atol=1e-14)
    rng = np.random.default_rng(37)
    d_layers, d_x = random_like(rng, (layers, x))
    _, tangent = f.jvp((layers, x, out_w), (d_layers, d_x))
    _, h_tangent = H.neural_weighted_jvp((l_layers, lx, low), (to_lists(d_layers), d_x.tolist()))
    assert float(tangent) == pytest.approx(h_tangent, rel=1e-9, abs=1e-14)


# ------------------------------------------------- adc compile samples/paper_numpy.py


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("paper_numpy") / "paper_numpy_ad.py"
    proc = adc("compile", SAMPLE, "-o", out)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "adcompiler" not in "\n".join(line for line in text.splitlines() if line.startswith(("import", "from")))
    spec = importlib.util.spec_from_file_location("paper_numpy_ad", out)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


MODULE_CASES = {
    # name -> (args, indices of the differentiated args the API is compared on)
    "dot_np": (SMALL["dot_np"][1], (0, 1)),
    "sum_mat_vec_np": (SMALL["sum_mat_vec_np"][1], (0, 1)),
    "neural_np": (SMALL["neural_np"][1], (0, 1)),
    "neural_weighted_np": (SMALL["neural_weighted_np"][1], (0, 1, 2)),
    "particles_np": (SMALL["particles_np"][1], (0, 1)),
}

MODULE_XFAIL: dict = {}  # (function, mode) -> known bug; none open


def _module_params(name, mode):
    marks = []
    if (name, mode) in MODULE_XFAIL:
        marks.append(pytest.mark.xfail(strict=True, reason=MODULE_XFAIL[name, mode]))
    return pytest.param(name, mode, marks=marks, id=f"{name}-{mode}")


def test_every_function_compiles(compiled):
    for name in ["dot_np", "sum_mat_vec_np", "safe_softmax_np", "neural_np", "neural_weighted_np", "particles_np"]:
        assert callable(getattr(compiled, f"{name}_reverse"))
        assert callable(getattr(compiled, f"{name}_forward"))


@pytest.mark.parametrize(
    "name,mode",
    [_module_params(n, m) for n in MODULE_CASES for m in ("reverse", "forward")],
)
def test_module_matches_api(compiled, name, mode):
    """The written module's functions against the API (every parameter
    differentiated: the module's signature), on the small inputs; the API
    itself is checked against finite differences above."""
    args, idx = MODULE_CASES[name]
    func = getattr(PN, name)
    wrt_names = tuple(func.__code__.co_varnames[i] for i in idx)
    f = D(func, wrt_names)
    if mode == "reverse":
        value, cts = getattr(compiled, f"{name}_reverse")(*args)
        exp_value, exp_cts = f.vjp(args, 1.0)
        assert float(value) == pytest.approx(float(exp_value), rel=1e-13, abs=1e-15)
        cts = tuple(cts[i] for i in idx)
        same_structure(cts, tuple(args[i] for i in idx))
        np.testing.assert_allclose(flat(cts), flat(exp_cts), rtol=1e-12, atol=1e-15)
    else:
        rng = np.random.default_rng(41)
        direction = random_like(rng, tuple(args[i] for i in idx))
        tangents = [0 if isinstance(a, int) else None for a in args]
        for i, d in zip(idx, direction):
            tangents[i] = d
        value, tangent = getattr(compiled, f"{name}_forward")(*args, *tangents)
        exp_value, exp_tangent = f.jvp(args, direction)
        assert float(value) == pytest.approx(float(exp_value), rel=1e-13, abs=1e-15)
        assert float(tangent) == pytest.approx(float(exp_tangent), rel=1e-11, abs=1e-14)


SOFTMAX_H = np.array([0.3, -1.2, 2.0, 0.7, -0.1])


def test_module_safe_softmax_reverse(compiled):
    h = SOFTMAX_H
    u = np.array([1.0, -0.5, 0.25, 2.0, -1.0])
    value, (jtu,) = compiled.safe_softmax_np_reverse(h, ct=u)
    exp_value, (exp_jtu,) = D(PN.safe_softmax_np).vjp((h,), u)
    np.testing.assert_allclose(value, exp_value, rtol=1e-14)
    np.testing.assert_allclose(jtu, exp_jtu, rtol=1e-12, atol=1e-15)


def test_module_safe_softmax_forward(compiled):
    h = SOFTMAX_H
    v = np.array([0.5, 1.0, -1.0, 0.3, 0.2])
    _, jv = compiled.safe_softmax_np_forward(h, v)
    _, exp_jv = D(PN.safe_softmax_np).jvp((h,), (v,))
    np.testing.assert_allclose(jv, exp_jv, rtol=1e-12, atol=1e-15)


# ------------------------------------------------- minimal reproducers of the bugs above


def _bias_bug(layers, x):
    b = layers[0]
    return np.sum(x * b)


def test_bug_array_in_list_parameter_gets_number_cotangent():
    layers, x = [np.array([1.0, 2.0, 3.0])], np.array([1.0, 1.0, 1.0])
    d_layers, d_x = D(_bias_bug).grad(layers, x)
    np.testing.assert_allclose(d_x, [1.0, 2.0, 3.0])
    assert np.shape(d_layers[0]) == (3,)  # adcompiler gives the number 3.0
    np.testing.assert_allclose(d_layers[0], [1.0, 1.0, 1.0])


CLI_REPRO = """
import numpy as np


def scale(h, s):
    return np.sum(h * s)


def doubling(a):
    for _ in range(2):
        a = a + a
    return np.sum(a[:, 0])
"""


@pytest.fixture(scope="module")
def cli_repro(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli_repro")
    (d / "repro.py").write_text(CLI_REPRO)
    out = d / "repro_ad.py"
    assert adc("compile", d / "repro.py", "-o", out).returncode == 0
    spec = importlib.util.spec_from_file_location("repro_ad", out)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bug_cli_float_cotangent_of_array_product(cli_repro):
    _, (d_h, d_s) = cli_repro.scale_reverse(np.array([1.0, 2.0]), 3.0)
    np.testing.assert_allclose(d_h, [3.0, 3.0])
    assert np.shape(d_s) == ()  # adc compile gives array([1., 2.]), h * ct unsummed
    assert float(d_s) == 3.0


def test_bug_cli_array_parameter_in_loop(cli_repro):
    _, (d_a,) = cli_repro.doubling_reverse(np.ones((2, 2)))
    np.testing.assert_allclose(d_a, [[4.0, 0.0], [4.0, 0.0]])
