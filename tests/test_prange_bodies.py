"""What a ``prange`` loop's body holds beyond straight lines: an inner loop that breaks or continues (its own
loop's jump, not the prange loop's: refused before 2026-12-03 as "break in a prange loop"), a while loop, an
inner loop with a number carried along; first derivatives on both targets and Hessians (forward over reverse,
which differentiates the generated parallel code again: under Numba refused before, for a helper that reads an
array for its shape, a slot the adjoint loop assigns first (in a branch on the primal's test, too), and ``_``
both discarded and a loop's variable).
Oracles: central differences of the function, first and second order."""

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

import adcompiler  # noqa: E402
from shared import defined  # noqa: E402

PRANGE = "import numpy as np\nfrom numba import prange\n\n\n"

BODIES = {
    "inner_break": [
        "s = 0.0",
        "for j in range(6):",
        "    if s > 3.0:",
        "        break",
        "    s = s + x[i] * x[i] * j",
        "out[i] = s",
    ],
    "inner_continue": [
        "s = x[i]",
        "for j in range(5):",
        "    if j % 2 == 1:",
        "        continue",
        "    s = s * np.cos(x[i]) + j",
        "out[i] = s",
    ],
    "while_loop": ["s = x[i]", "k = 0", "while k < 4:", "    s = np.sin(s) * x[i]", "    k += 1", "out[i] = s"],
    "straight": ["out[i] = np.sin(x[i]) * x[i] ** 2"],
    "if_else": ["if x[i] > 0.0:", "    out[i] = x[i] ** 2", "else:", "    out[i] = np.sin(x[i]) * x[i] ** 3"],
    "if_else_value": ["if x[i] > 0.5:", "    t = x[i] ** 2", "else:", "    t = np.cos(x[i])", "out[i] = t * x[i]"],
    "carried": ["s = 1.0", "for j in range(3):", "    s = s * x[i] + np.tanh(x[i] * j)", "out[i] = s * x[i]"],
}


def _load(tmp_path, body: str):
    lines = ["def f(x):", "    out = np.zeros(x.shape[0])", "    for i in prange(x.shape[0]):"]
    lines += ["        " + line for line in BODIES[body]]
    lines.append("    return np.sum(out ** 2) + np.sum(out * x)")
    return defined(tmp_path, f"prange_{body}", "\n".join(lines) + "\n", PRANGE).f


X = np.array([0.3, -0.5, 0.9, 1.2])


def _gradient(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


def _hessian(f, x, h=1e-4):
    n, eye = len(x), np.eye(len(x))
    out = np.empty((n, n))
    for a in range(n):
        for b in range(n):
            ea, eb = h * eye[a], h * eye[b]
            out[a, b] = (f(x + ea + eb) - f(x + ea - eb) - f(x - ea + eb) + f(x - ea - eb)) / (4 * h * h)
    return out


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("body", sorted(BODIES))
def test_prange_body_first_and_second_derivatives(tmp_path, backend, body):
    f = _load(tmp_path, body)
    d = adcompiler.differentiate(f, backend=backend)
    np.testing.assert_allclose(d.grad(X), _gradient(f, X), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(adcompiler.hessian(d)(X), _hessian(f, X), rtol=1e-4, atol=1e-4)


def test_a_break_of_the_prange_loop_itself_is_still_refused(tmp_path):
    module = defined(
        tmp_path,
        "prange_own_break",
        "def f(x):\n    out = np.zeros(x.shape[0])\n    for i in prange(x.shape[0]):\n        if x[i] > 1.0:\n"
        "            break\n        out[i] = x[i] ** 2\n    return np.sum(out)\n",
        PRANGE,
    )
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match="break in a prange loop") as refused:
        adcompiler.differentiate(module.f).grad(X)
    assert "prange_own_break.py:9:" in str(refused.value)


def test_discarded_underscore_and_a_loop_over_it_python_and_numba(tmp_path):
    """``for _ in range(3)`` and ``a, _ = helper(x)`` in one function (refused before: "assigning to '_', which
    is also a for-loop variable"); a name read is still refused where a loop also binds it."""
    module = defined(
        tmp_path,
        "underscore",
        "def helper(x):\n    return x * x, x + 1.0\n\n\ndef f(x):\n    total = 0.0\n    for _ in range(3):\n"
        "        a, _ = helper(x)\n        total = total + a * x\n    return total\n",
        "",
    )
    for backend in ("python", "numba"):
        d = adcompiler.differentiate(module.f, backend=backend)
        assert d.grad(1.5) == pytest.approx(9 * 1.5**2, rel=1e-12)
        assert d.jvp((1.5,), (1.0,))[1] == pytest.approx(9 * 1.5**2, rel=1e-12)
