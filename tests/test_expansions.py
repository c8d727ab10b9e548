"""NumPy functions lowering writes as other primitives, each by its record's ``expand`` (rules/primitive.py):
np.linalg.multi_dot (np.dot), np.select (np.where), np.linalg.eigvalsh (eigh's eigenvalues), np.append
(np.concatenate) and np.average without weights (np.mean).  Each is differentiated against central
differences of NumPy's own function, in both modes and on both targets, with each cotangent of its operand's
shape and dtype; a sequence an expansion needs written out is refused at the user's line when it is not."""

import importlib.util

import numpy as np
import pytest

import adcompiler
from shared import two_operand_check, written
from adcompiler.errors import UnsupportedSyntaxError
from adcompiler.rules.families import REGISTRY

# (the call, of x and y; x's shape; y's shape)
CASES = {
    "numpy.linalg.multi_dot": [
        ("np.linalg.multi_dot([x, y, x.T])", (2, 3), (3, 3)),
        ("np.linalg.multi_dot((x, y))", (2, 3), (3, 2)),
    ],
    "numpy.select": [
        ("np.select([x > 0.3, x < -0.3], [x * y, np.sin(x)], default=y)", (5,), (5,)),
        ("np.select(condlist=[x > 0.0], choicelist=[x * 2.0 + y])", (4,), (4,)),
    ],
    "numpy.linalg.eigvalsh": [("np.linalg.eigvalsh(x + x.T + 4.0 * np.diag(y))", (3, 3), (3,))],
    "numpy.average": [("np.average(x * y, axis=0)", (3, 2), (3, 2)), ("np.average(x) + y", (2, 2), (3,))],
    "numpy.append": [("np.append(x, y * 2.0)", (2, 2), (3,)), ("np.append(x, y, axis=0)", (2, 3), (1, 3))],
}
NUMBA = importlib.util.find_spec("numba") is not None


def _function(tmp_path, expression: str):
    namespace = written(
        tmp_path, "expanded", f"import numpy as np\n\n\ndef f(x, y, w):\n    return np.sum(np.sin({expression}) * w)\n"
    )
    return namespace["f"]


def test_every_expansion_has_its_cases():
    assert sorted(CASES) == sorted(p.name for p in REGISTRY.values() if p.expand is not None)


@pytest.mark.parametrize("backend", ["python", "numba"] if NUMBA else ["python"])
@pytest.mark.parametrize("case", [(e, x, y) for cases in CASES.values() for e, x, y in cases], ids=str)
def test_each_expansion_differentiates_its_function(tmp_path, case, backend):
    expression, x_shape, y_shape = case
    rng = np.random.default_rng(sum(map(ord, expression)) + len(x_shape))
    x, y = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    f = _function(tmp_path, expression)
    w = rng.standard_normal(np.shape(eval(expression, {"np": np, "x": x, "y": y})))
    d = adcompiler.differentiate(f, wrt=("x", "y"), backend=backend)
    two_operand_check(f, d, x, y, w, expression, rng)


@pytest.mark.parametrize(
    "expression, construct",
    [
        ("np.linalg.multi_dot(xs)", "np.linalg.multi_dot of a computed sequence"),
        ("np.linalg.multi_dot([x])", "np.linalg.multi_dot of a computed sequence"),
        ("np.select(conds, [x, y])", "np.select of computed lists, or lists of different lengths"),
        ("np.select([x > 0, x < 0], [x])", "np.select of computed lists, or lists of different lengths"),
    ],
)
def test_a_sequence_an_expansion_needs_written_out_is_refused_at_its_line(tmp_path, expression, construct):
    namespace = written(
        tmp_path,
        "computed",
        "import numpy as np\n\n\ndef f(x, y):\n    xs = [x, y]\n    conds = [x > 0, x < 0]\n"
        f"    return np.sum({expression})\n",
    )
    with pytest.raises(UnsupportedSyntaxError) as told:
        adcompiler.differentiate(namespace["f"]).grad(np.ones(2), np.ones(2))
    assert "computed.py:7:" in str(told.value) and construct in str(told.value)
