"""Values read out of a view of an array the function then writes into.

``v = B[i, :]``, ``e = v[1]``, then ``B[i] = ...``: the adjoint sweep read ``e`` again at the top of the iteration
(``modes.rereadable``), where the iteration's write has been made and not yet put back, so it read the entry
written, not the one the primal read: a wrong gradient on both targets, silently.  A view of an array written in
place (however deep: a view of a view, a copy of one) now has its values taped instead.  The generator below
crosses the views users take with the reads and the writes that follow, each against central differences,
in both modes.
"""

import itertools

import numpy as np
import pytest

import adcompiler
from shared import written

VIEWS = {
    "row": "v = B[i, :]",
    "row by index": "v = B[i]",
    "column": "v = B[:, 1]",
    "transposed": "v = B.T[1]",
    "tail of a row": "v = B[i, 1:]",
    "view of a view": "w = B[i]\n        v = w[0:3]",
    "reshaped": "v = np.reshape(B, (-1,))[3 * i : 3 * i + 3]",
}
READS = {
    "entry": "e = v[1]",
    "last": "e = v[-1]",
    "sum": "e = np.sum(v)",
    "product": "e = v[0] * v[1]",
}
WRITES = {
    "row": "B[i] = np.tanh(B[i])",
    "entry": "B[i, 1] = np.sin(e) + B[i, 1]",
    "row of the view's numbers": "B[i, : len(v)] = v * 0.5 + e",
}


def _program(view: str, read: str, write: str, branch: bool) -> str:
    taken = VIEWS[view]
    if branch:  # the view in one branch, a new array in the other: a slot that may hold either
        taken = (
            "if c:\n            "
            + taken.replace("\n        ", "\n            ")
            + "\n        else:\n            v = B[0, :3] * 2.0"
        )
    return (
        "import numpy as np\n\n\ndef f(u, c):\n    B = u.copy()\n    s = 0.0\n    for i in range(B.shape[0]):\n"
        f"        {taken}\n        {READS[read]}\n        s = s + e * e * e\n        {WRITES[write]}\n"
        "    return np.sum(B ** 2) + s\n"
    )


def _central(f, u, c, h=1e-6):
    g = np.zeros_like(u)
    for k in np.ndindex(u.shape):
        up, down = u.copy(), u.copy()
        up[k] += h
        down[k] -= h
        g[k] = (f(up, c) - f(down, c)) / (2 * h)
    return g


CASES = [
    (view, read, write, branch)
    for view, read, write in itertools.product(VIEWS, READS, WRITES)
    for branch in (False, True)
    if not (branch and view not in ("row", "tail of a row", "view of a view"))  # (the branch's other value: 3 numbers)
]


def _check(tmp_path, view, read, write, branch, backend):
    f = written(tmp_path, "viewed", _program(view, read, write, branch))["f"]
    u = np.random.default_rng(7).uniform(0.2, 0.9, (3, 3))
    for c in (True, False) if branch else (True,):
        want = _central(f, u, c)
        d = adcompiler.differentiate(f, wrt=("u",), backend=backend)
        np.testing.assert_allclose(d.grad(u, c), want, rtol=1e-6, atol=1e-7)
        t = np.random.default_rng(8).standard_normal(u.shape)
        value, tangent = d.jvp((u, c), (t,))
        assert value == pytest.approx(f(u, c), rel=1e-12)
        assert tangent == pytest.approx(float(np.sum(want * t)), rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("view, read, write, branch", CASES, ids=lambda v: str(v).replace(" ", "-"))
def test_a_view_read_before_a_write_into_its_array(tmp_path, view, read, write, branch):
    _check(tmp_path, view, read, write, branch, "python")


NUMBA_CASES = [c for k, c in enumerate(CASES) if k % 5 == 0] + [("row", "entry", "row", True)]


@pytest.mark.parametrize("view, read, write, branch", NUMBA_CASES, ids=lambda v: str(v).replace(" ", "-"))
def test_a_view_read_before_a_write_into_its_array_numba(tmp_path, view, read, write, branch):
    pytest.importorskip("numba")
    _check(tmp_path, view, read, write, branch, "numba")
