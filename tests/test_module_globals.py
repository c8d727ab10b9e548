"""A function of another module than the one differentiated reads its own module's numbers and arrays
(``model.py``'s constants, called from ``train.py``): generated code runs in the differentiated
function's module, so such a global is handed to the code (a number written as itself, an array by a
name made for it), never read there by its name, where it is missing (NameError) or another value of
the same name.  Checked against central differences, on each backend."""

import importlib
import sys

import numpy as np
import pytest

import adcompiler
from shared import BACKENDS

HELPERS = """import math
import numpy as np

LIMIT = 4.0
W = np.array([1.0, 2.0, 3.0])
STEPS = (0.5, 0.25)


def scaled(x):
    return np.sum(W * np.minimum(x, np.inf)) * LIMIT + math.pi + STEPS[1] * np.sum(x * x)
"""

USER = """import numpy as np
from {helpers} import scaled

LIMIT = 100.0  # the same names, other values: the helper's own are the ones it reads
W = np.array([-7.0, -7.0, -7.0])


def loss(x):
    return scaled(x) * np.sum(x) + LIMIT
"""


@pytest.fixture
def modules(tmp_path, request):
    tag = request.node.name.replace("[", "_").replace("]", "").replace("-", "_")
    helpers, user = f"adc_helpers_{tag}", f"adc_user_{tag}"
    (tmp_path / f"{helpers}.py").write_text(HELPERS)
    (tmp_path / f"{user}.py").write_text(USER.format(helpers=helpers))
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(user)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(helpers, None)
        sys.modules.pop(user, None)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_helper_of_another_module_reads_its_own_globals(modules, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    x, h = np.array([0.3, -0.4, 0.9]), 1e-6
    d = adcompiler.differentiate(modules.loss, backend=backend)
    want = np.array([(modules.loss(x + h * e) - modules.loss(x - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(d.grad(x), want, rtol=1e-7)
    value, tangent = d.jvp((x,), (np.ones(3),))
    assert value == pytest.approx(modules.loss(x), rel=1e-14)
    assert tangent == pytest.approx(np.sum(want), rel=1e-7)


def test_a_list_of_functions_or_keys_of_the_module_changed_builds_again(tmp_path):
    """``for g in FS: x = g(x)`` and ``for k in KEYS: ... p[k]``: the code has each function and each key in
    it, so the list rebound, or changed in place, is a change (it compared the items' types only: the old
    functions' derivative, 21.0 where it is 9.0)."""
    from shared import written

    namespace = written(
        tmp_path,
        "changed_lists",
        "def a(x):\n    return x * 3.0\n\n\ndef b(x):\n    return x + x * x\n\n\nFS = [a, b]\nKEYS = ('u', 'v')\n\n\n"
        "def f(x):\n    for g in FS:\n        x = g(x)\n    return x\n\n\n"
        "def h(p):\n    s = 0.0\n    for k in KEYS:\n        s = s * 3.0 + p[k]\n    return s\n",
    )
    d, e = adcompiler.differentiate(namespace["f"]), adcompiler.differentiate(namespace["h"])
    assert d.grad(1.0) == 21.0 and e.grad({"u": 1.0, "v": 2.0}) == {"u": 3.0, "v": 1.0}
    namespace["FS"] = [namespace["b"], namespace["a"]]
    namespace["KEYS"] = ("v", "u")
    assert d.grad(1.0) == 9.0 and e.grad({"u": 1.0, "v": 2.0}) == {"u": 1.0, "v": 3.0}
    namespace["FS"][0] = namespace["a"]  # (in place: a(a(x)))
    assert d.grad(1.0) == 9.0 and d.grad(2.0) == 9.0
