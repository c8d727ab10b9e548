"""The GradBench harness's plumbing (benchmarks/gradbench): the protocol round trip through the relay,
and each eval module's primal against an independent implementation, on small inputs.

No JAX or PyTorch needed (the peers' ports are checked only where they are installed).
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HARNESS = Path(__file__).resolve().parent.parent / "benchmarks" / "gradbench"
sys.path.insert(0, str(HARNESS))

import native  # noqa: E402
import relay  # noqa: E402
from evals import ba, det, gmm, ht, kmeans, llsq, lse, lstm, ode, particle, saddle  # noqa: E402

RNG = np.random.default_rng(7)


def run_relay(eval_name, eval_args, tool_args):
    argv, cwd, env = relay.eval_command(eval_name, None, sys.executable, eval_args)
    tool = relay.Tool([sys.executable, str(HARNESS / "tool.py"), *tool_args], relay.tool_env(), relay.REPO, None, None)
    try:
        return relay.relay(argv, cwd, env, tool, "adcompiler", timeout=120)
    finally:
        tool.kill()


def test_relay_round_trip_lse():
    records = run_relay("lse", "-n 30 60 --min-runs 2 --min-seconds 0 --oracle numpy".split(), ["--backend", "python"])
    assert [(r.function, r.description, r.success, r.valid, len(r.timings_ns)) for r in records] == [
        ("primal", "n=30", True, True, 2),
        ("gradient", "n=30", True, True, 2),
        ("primal", "n=60", True, True, 2),
        ("gradient", "n=60", True, True, 2),
    ]


def test_relay_reports_a_wrong_answer_as_invalid(tmp_path):
    """The eval's verdict reaches the record: a tool that answers 0 for the gradient is invalid."""
    fake = tmp_path / "fake_tool.py"
    fake.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    r = {'id': m['id']}\n"
        "    if m['kind'] == 'define': r['success'] = True\n"
        "    if m['kind'] == 'evaluate':\n"
        "        x = m['input']['x']\n"
        "        r.update(success=True, output=[0.0] * len(x), timings=[{'name': 'evaluate', 'nanoseconds': 5}])\n"
        "    print(json.dumps(r), flush=True)\n"
    )
    argv, cwd, env = relay.eval_command("lse", None, sys.executable, "-n 5 --oracle numpy".split())
    tool = relay.Tool([sys.executable, str(fake)], relay.tool_env(), relay.REPO, None, None)
    try:
        records = relay.relay(argv, cwd, env, tool, "fake")
    finally:
        tool.kill()
    assert [(r.function, r.valid) for r in records] == [("primal", False), ("gradient", False)]


def test_tool_answers_a_refusal_with_its_error():
    """A function adcompiler refuses is ``success: false`` with the located error, not a crash."""
    messages = [
        {"id": 0, "kind": "start"},
        {"id": 1, "kind": "define", "module": "det"},
        {"id": 2, "kind": "evaluate", "module": "det", "function": "nonexistent", "input": {"A": [1.0], "ell": 1}},
        {
            "id": 3,
            "kind": "evaluate",
            "module": "det",
            "function": "primal",
            "input": {"A": [2.0, 1.0, 1.0, 3.0], "ell": 2, "min_runs": 1, "min_seconds": 0},
        },
    ]
    out = subprocess.run(
        [sys.executable, str(HARNESS / "tool.py")],
        input="".join(json.dumps(m) + "\n" for m in messages),
        capture_output=True,
        text=True,
        env=relay.tool_env(),
        timeout=120,
    )
    responses = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["id"] for r in responses] == [0, 1, 2, 3]
    assert responses[2]["success"] is False and "KeyError" in responses[2]["error"]
    assert responses[3]["success"] is True and responses[3]["output"] == pytest.approx(5.0)


def test_native_inputs_are_gradbench_s():
    """The native driver draws what GradBench's det driver draws (seed 31337, rand(ell * ell))."""
    np.random.seed(31337)
    expected = np.random.rand(25).tolist()
    assert native.inputs("det", {"l": [5]})[0] == ("5", {"A": expected, "ell": 5})


def test_comparison_rule():
    assert native.mismatches([1.0, 2.0], [1.0, 2.0 + 1e-5]) == []
    assert native.mismatches({"a": 1.0}, {"a": 1.1}) == ["a: 1.0 != 1.1"]
    assert native.mismatches([1.0], [1.0, 2.0]) != []


# --------------------------------------------------------------------------- primals against references


def test_lse_primal():
    from scipy.special import logsumexp

    x = RNG.normal(size=20) * 30
    assert lse.logsumexp(x) == pytest.approx(logsumexp(x), rel=1e-13)


def test_det_primal():
    A = RNG.normal(size=(6, 6))
    assert det.det(A) == pytest.approx(np.linalg.det(A), rel=1e-11)


def test_llsq_primal():
    x, n = RNG.normal(size=5), 11
    total = 0.0
    for i in range(n):  # cmpad's loop: s_i - x_0 - x_1 t_i - ...
        t = -1 + i * 2 / (n - 1)
        r = (t > 0) - (t < 0)
        for j in range(len(x)):
            r -= x[j] * t**j
        total += r * r
    assert llsq.llsq(x, n) == pytest.approx(total / 2, rel=1e-12)


def test_ode_primal():
    x, s = RNG.uniform(size=6), 4
    n, h = len(x), 2.0 / s
    y = [0.0] * n

    def fun(y):
        return [x[0]] + [x[i] * y[i - 1] for i in range(1, n)]

    for _ in range(s):  # the C++ reference's loops
        k1 = fun(y)
        k2 = fun([y[i] + h * k1[i] / 2 for i in range(n)])
        k3 = fun([y[i] + h * k2[i] / 2 for i in range(n)])
        k4 = fun([y[i] + h * k3[i] for i in range(n)])
        y = [y[i] + h * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]) / 6 for i in range(n)]
    assert ode.solve(x, s) == pytest.approx(y, rel=1e-13)
    assert ode.last(x, s) == pytest.approx(y[-1], rel=1e-13)


def test_kmeans_primal():
    from scipy.spatial.distance import cdist

    points, centroids = RNG.uniform(size=(30, 3)), RNG.uniform(size=(4, 3))
    expected = np.sum(np.min(cdist(points, centroids, "sqeuclidean"), axis=1))
    assert kmeans.cost(points, centroids) == pytest.approx(expected, rel=1e-12)
    assert kmeans.cost_matmul(points, centroids) == pytest.approx(expected, rel=1e-10)


def test_gmm_primal():
    """Against the definition: mixture of Gaussians with precision Q^T Q, Wishart prior (SciPy)."""
    from scipy.stats import multivariate_normal, wishart

    d, k, n, m, gamma = 3, 2, 7, 1, 0.7
    raw = native.gmm_input(5, d, k, n, m, gamma)
    alpha, mu, q = (np.array(raw[key]) for key in ("alpha", "mu", "q"))
    l, x = np.array(raw["l"]), np.array(raw["x"])
    phi = np.exp(alpha) / np.sum(np.exp(alpha))
    precisions = []
    for j in range(k):
        Q = np.diag(np.exp(q[j]))
        ii = 0
        for col in range(d):
            for row in range(col + 1, d):
                Q[row, col] = l[j][ii]
                ii += 1
        precisions.append(Q.T @ Q)
    likelihood = sum(
        np.log(sum(phi[j] * multivariate_normal.pdf(x[i], mu[j], np.linalg.inv(precisions[j])) for j in range(k)))
        for i in range(n)
    )
    prior = sum(wishart.logpdf(P, df=d + m + 1, scale=np.eye(d) / gamma**2) for P in precisions)
    assert gmm.log_posterior(alpha, mu, q, l, x, gamma, m) == pytest.approx(likelihood + prior, rel=1e-10)


def test_ba_primal():
    from scipy.spatial.transform import Rotation

    cams, X = RNG.normal(size=(3, 11)) * 0.3, RNG.normal(size=(4, 3)) + [0, 0, 5]
    cams[:, 3:6] *= 0.1
    cams[2, 0:3] = 0.0  # the small-angle branch
    obs = np.array([[0, 1], [1, 3], [2, 0], [0, 2]])
    w, feats = RNG.uniform(size=4), RNG.normal(size=(4, 2))
    errs, werrs = ba.objective(cams, X, w, obs, feats)
    for j, (c, p) in enumerate(obs):
        cam = cams[c]
        Xcam = Rotation.from_rotvec(cam[0:3]).apply(X[p] - cam[3:6])
        proj = Xcam[:2] / Xcam[2]
        r2 = proj @ proj
        expected = w[j] * (proj * (1 + cam[9] * r2 + cam[10] * r2 * r2) * cam[6] + cam[7:9] - feats[j])
        assert errs[j] == pytest.approx(expected, rel=1e-12)
        assert werrs[j] == pytest.approx(1 - w[j] ** 2)
    batched_errs, batched_werrs = ba.objective_batched(cams, X, w, obs, feats)
    np.testing.assert_allclose(batched_errs, errs, rtol=1e-13)
    np.testing.assert_allclose(batched_werrs, werrs, rtol=1e-13)


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("peers", [False, True])
def test_ba_jacobian_blocks_against_central_differences(backend, peers):
    """The tool's sparse Jacobian of both formulations (per observation, and the observations batched
    as JAX's vmap batches them), every block against central differences of the one-observation
    error, a camera with a zero rotation (the other branch) among them."""
    if backend == "numba":
        pytest.importorskip("numba")
    import adapters

    rng = np.random.default_rng(8)
    n, m, p = 3, 4, 7
    cams, X = rng.normal(size=(n, 11)) * 0.3, rng.normal(size=(m, 3)) + [0, 0, 5]
    cams[2, 0:3] = 0.0
    w, feats = rng.uniform(size=p), rng.normal(size=(p, 2))
    obs = np.stack((np.arange(p) % n, np.arange(p) % m), axis=1)
    rows, cols, vals = (np.asarray(a) for a in adapters.ba(backend, peers)["jacobian"].run(cams, X, w, obs, feats))
    assert len(rows) == 3 * p + 1 and len(cols) == len(vals) == 31 * p
    h = 1e-6
    for j, (c, k) in enumerate(obs):
        point = np.concatenate((cams[c], X[k], [w[j]]))

        def errs(z):
            return ba.reproj_err(z[:11], z[11:14], z[14], feats[j])

        numeric = np.array([(errs(point + h * e) - errs(point - h * e)) / (2 * h) for e in np.eye(15)]).T
        for r in range(2):
            start = rows[2 * j + r]
            assert rows[2 * j + r + 1] - start == 15
            np.testing.assert_allclose(vals[start : start + 15], numeric[r], rtol=1e-6, atol=1e-8)
            want = list(range(11 * c, 11 * c + 11)) + list(range(11 * n + 3 * k, 11 * n + 3 * k + 3))
            assert list(cols[start : start + 15]) == want + [11 * n + 3 * m + j]
    np.testing.assert_allclose(vals[30 * p :], -2 * w, rtol=1e-14)


def small_hand(n_bones=22, n_vertices=9, n_points=5):
    """A random hand model of ADBench's shape: bones in a tree, rigid base transforms, weights."""
    from scipy.spatial.transform import Rotation

    parents = np.array([-1] + [int(RNG.integers(0, i)) for i in range(1, n_bones)])

    def rigid():
        T = np.eye(4)
        T[:3, :3] = Rotation.from_rotvec(RNG.normal(size=3)).as_matrix()
        T[:3, 3] = RNG.normal(size=3)
        return T

    base_relatives = np.array([rigid() for _ in range(n_bones)])
    inverse_base_absolutes = np.array([rigid() for _ in range(n_bones)])
    base_positions = np.column_stack((RNG.normal(size=(n_vertices, 3)), np.ones(n_vertices)))
    weights = RNG.uniform(size=(n_vertices, n_bones))
    points = RNG.normal(size=(n_points, 3))
    correspondences = RNG.integers(0, n_vertices, size=n_points)
    return parents, base_relatives, inverse_base_absolutes, base_positions, weights, False, points, correspondences


def test_ht_primal():
    """Against a loop over bones and vertices with SciPy's rotations (extrinsic x, y, z Euler
    angles: R_z R_y R_x; the global rotation from its rotation vector)."""
    from scipy.spatial.transform import Rotation

    model = small_hand()
    parents, rel, inv, pos, weights, _, points, corr = model
    theta = RNG.normal(size=26) * 0.5
    pose = np.zeros((len(parents) + 3, 3))
    pose[0], pose[1], pose[2] = theta[0:3], 1.0, theta[3:6]
    slots = [(5 + 4 * f + j, c) for f in range(5) for j in range(3) for c in ((0, 1) if j == 0 else (0,))]
    for i, (row, col) in enumerate(slots):
        pose[row, col] = theta[6 + i]
    absolutes = []
    for b in range(len(parents)):
        T = np.eye(4)
        tx, tz, ty = pose[3 + b]
        T[:3, :3] = Rotation.from_euler("xyz", [tx, ty, tz]).as_matrix()
        R = rel[b] @ T
        absolutes.append(R if parents[b] == -1 else absolutes[parents[b]] @ R)
    vertices = np.zeros((len(pos), 3))
    for v in range(len(pos)):
        for b in range(len(parents)):
            vertices[v] += weights[v, b] * (absolutes[b] @ inv[b] @ pos[v])[:3]
    global_rotation = Rotation.from_rotvec(pose[0]).as_matrix()
    vertices = vertices @ global_rotation.T + pose[2]
    expected = np.concatenate([points[i] - vertices[corr[i]] for i in range(len(points))])
    assert ht.objective_simple(theta, *model) == pytest.approx(expected, rel=1e-10, abs=1e-12)

    triangles = RNG.integers(0, len(pos), size=(6, 3))
    tri_corr = RNG.integers(0, 6, size=len(points))
    us = RNG.uniform(size=(len(points), 2)) * 0.5
    args = model[:7] + (tri_corr, triangles)
    hand = [
        us[i, 0] * vertices[triangles[tri_corr[i], 0]]
        + us[i, 1] * vertices[triangles[tri_corr[i], 1]]
        + (1 - us[i, 0] - us[i, 1]) * vertices[triangles[tri_corr[i], 2]]
        for i in range(len(points))
    ]
    expected = np.concatenate([points[i] - hand[i] for i in range(len(points))])
    assert ht.objective_complicated(theta, us, *args) == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_lstm_primal():
    """Against ADBench's C++ loops, one hidden unit at a time."""
    layers, b, c = 2, 3, 5
    main, extra = RNG.uniform(size=(2 * layers, 4 * b)), RNG.uniform(size=(3, b))
    state, sequence = RNG.uniform(size=(2 * layers, b)), RNG.integers(0, 2, size=(c, b)).astype(float)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    s = state.copy()
    total = 0.0
    for t in range(c - 1):
        x = [sequence[t][i] * extra[0][i] for i in range(b)]
        for lay in range(layers):
            w, bias, hidden, cell = main[2 * lay], main[2 * lay + 1], s[2 * lay], s[2 * lay + 1]
            for i in range(b):
                forget = sig(x[i] * w[i] + bias[i])
                ingate = sig(hidden[i] * w[b + i] + bias[b + i])
                outgate = sig(x[i] * w[2 * b + i] + bias[2 * b + i])
                change = np.tanh(hidden[i] * w[3 * b + i] + bias[3 * b + i])
                cell[i] = cell[i] * forget + ingate * change
                hidden[i] = outgate * np.tanh(cell[i])
            x = list(hidden)
        ypred = [x[i] * extra[1][i] + extra[2][i] for i in range(b)]
        norm = np.log(sum(np.exp(v) for v in ypred) + 2)
        total += sum(sequence[t + 1][i] * (ypred[i] - norm) for i in range(b))
    assert lstm.objective(main, extra, state, sequence) == pytest.approx(-total / ((c - 1) * b), rel=1e-12)


def test_particle_primal():
    """The Euler loop with adcompiler's inner gradient (either mode) is the loop with the force
    written out; the outer descent is GradBench's solver (checked on the analytic force)."""
    for w in (0.0, 0.3):
        expected = particle.naive_euler_analytic(w)
        assert particle.naive_euler(w, False) == pytest.approx(expected, rel=1e-12)
        assert particle.naive_euler(w, True) == pytest.approx(expected, rel=1e-12)


def test_saddle_primal():
    """The inner maximisation with adcompiler's gradient of f is the ascent with df/dy = -2y."""
    start = np.array([1.0, 1.0])
    x = np.array([0.3, -0.2])
    y = saddle.argmin(lambda y: -saddle.f(x, y), lambda y: 2 * y, start)
    for forward in (False, True):
        assert saddle.inner_max(x, start, forward) == pytest.approx(saddle.f(x, y), rel=1e-12)


# ---------------------------------------------------------------------- the peers' ports, where installed


def test_jax_port_matches_the_modules():
    pytest.importorskip("jax")
    from peers import jax_port
    from protocol import evaluate

    raw = {"x": RNG.normal(size=7).tolist(), "n": 9, "min_runs": 1, "min_seconds": 0}
    assert evaluate(jax_port.functions("llsq")["primal"], raw)["output"] == pytest.approx(
        llsq.llsq(np.array(raw["x"]), 9), rel=1e-12
    )
    raw = native.gmm_input(3, 3, 2, 6, 0, 1.0) | {"min_runs": 1, "min_seconds": 0}
    args = [np.array(raw[k]) for k in ("alpha", "mu", "q", "l", "x")]
    assert evaluate(jax_port.functions("gmm")["objective"], raw)["output"] == pytest.approx(
        gmm.log_posterior(*args, 1.0, 0), rel=1e-12
    )


@pytest.mark.parametrize("peers", [False, True])
def test_kmeans_direction_of_the_tool_is_gradient_over_hessian_diagonal(peers):
    """The tool's kmeans ``dir`` (adcompiler's gradient and Hessian-vector product of the eval's cost)
    against the analytic one: each centroid's gradient 2 (n_k c_k - sum of its points), its diagonal
    2 n_k (it gave a ValueError when hvp took JAX's argnums=0, the points, for the adapter's wrt)."""
    _kmeans_direction_checked("python", peers)


def _kmeans_direction_checked(backend, peers):
    import adapters

    rng = np.random.default_rng(4)
    direction = adapters.kmeans(backend, peers)["dir"]
    for n in (60, 90):  # (a second call: the derivative of the gradient made at the first, called as it is)
        points, centroids = rng.random((n, 3)), rng.random((4, 3))
        got = direction.run(points, centroids)
        nearest = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(-1).argmin(1)
        want = np.zeros_like(centroids)
        for k in range(len(centroids)):
            mine = nearest == k
            want[k] = 2 * (centroids[k] * mine.sum() - points[mine].sum(0)) / (2 * mine.sum())
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_numba_kmeans_direction_of_the_tool_is_gradient_over_hessian_diagonal():
    pytest.importorskip("numba")
    _kmeans_direction_checked("numba", True)
