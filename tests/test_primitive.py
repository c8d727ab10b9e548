"""A primitive is one record (issue 34): the tables the passes read are views of ``rules.primitive``'s
registry, and a primitive written as a record is written nowhere else."""

import importlib.util
import pathlib

import numpy as np
import pytest

import adcompiler
from shared import written
from adcompiler import rules
from adcompiler.analysis import infer_numpy, transfer
from adcompiler.rules import arrays as N
from adcompiler.rules.families import REGISTRY, family, helper_forms
from adcompiler.rules.helpers import HELPER_RULES
from adcompiler.targets.array_api import translate
from adcompiler.targets.array_api.runtime import XP_HELPERS
from adcompiler.targets.numba.runtime import NUMBA_HELPERS
from adcompiler.targets.python.runtime import HELPERS

PACKAGE = pathlib.Path(adcompiler.__file__).parent


def test_the_reductions_family_is_registered():
    names = ["var", "std", "cov", "sum", "mean", "cumsum", "trace", "max", "min", "amax", "amin", "prod", "ptp"]
    assert [p.name for p in family("reductions")] == [f"numpy.{name}" for name in names]


def _log_det_of_inverse(a):
    return np.log(np.abs(np.linalg.det(np.linalg.inv(a) @ a + a)))


def _weighted_inverse(a, b):
    return np.sum(np.linalg.inv(a) * b)


def test_the_linalg_records_give_the_derivatives_of_their_definitions():
    """np.linalg.inv and np.linalg.det as records: Jacobi's formula (d log|det A| = A^-T) and d(A^-1) =
    -A^-1 dA A^-1, through both modes and both targets; refused under arrays="any" (np.linalg is not the
    standard's), at the user's line."""
    names = (
        "slogdet",
        "eigh",
        "eigvalsh",
        "svd",
        "qr",
        "lstsq",
        "matrix_power",
        "norm",
        "solve",
        "inv",
        "det",
        "cholesky",
        "pinv",
    )
    assert [p.name for p in family("linalg")] == [f"numpy.linalg.{n}" for n in names]
    a = np.array([[2.0, 0.3, -0.4], [0.1, 1.5, 0.2], [-0.3, 0.4, 1.8]])
    want = np.linalg.inv(np.eye(3) + a).T  # log|det(I + A)|' = (I + A)^-T
    d = adcompiler.differentiate(_log_det_of_inverse)
    np.testing.assert_allclose(d.grad(a), want, rtol=1e-12)
    v = np.arange(9.0).reshape(3, 3) / 9.0
    assert d.jvp((a,), (v,))[1] == pytest.approx(float(np.sum(want * v)), rel=1e-12)
    inverse = np.linalg.inv(a)  # sum(A^-1 * B)' = -A^-T B A^-T
    for backend in ("python", "numba") if importlib.util.find_spec("numba") else ("python",):
        got = adcompiler.differentiate(_weighted_inverse, wrt="a", backend=backend).grad(a, v)
        np.testing.assert_allclose(got, -inverse.T @ v @ inverse.T, rtol=1e-12)
    with pytest.raises(adcompiler.UnsupportedSyntaxError, match="test_primitive.py"):
        adcompiler.differentiate(_log_det_of_inverse, arrays="any").grad(a)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_record_fills_the_tables_the_passes_read(name):
    prim = REGISTRY[name]
    if prim.expanded:  # written as other primitives where lowering binds it: in no table of rules or values
        assert name in N.EXPANDED and N.SIGNATURES[name] == prim.signature and name not in infer_numpy._RULES
        assert name not in rules.FORWARD and name not in rules.PARTIALS and name not in N.INACTIVE
        return
    if prim.partials is not None:  # elementwise: both modes apply its partials
        assert rules.PARTIALS[name] is prim.partials and name not in rules.FORWARD and name not in N.SLOTS
        slots = tuple(p is not None for p in prim.partials)
    elif prim.linear is not None:  # linear in its first argument
        assert N.LINEAR[name] is prim.linear and name not in rules.FORWARD and name not in rules.PARTIALS
        slots = (True,) + (False,) * (len(prim.signature) - 1)
    elif prim.bilinear is not None:  # a product of its two arguments
        assert N.BILINEAR[name] is prim.bilinear and name not in rules.FORWARD and name not in rules.PARTIALS
        slots = (True, True)
    elif prim.parts or prim.split:  # computed once (no derivative), then one primitive per array it returns
        assert name in N.INACTIVE and name not in rules.FORWARD and name not in rules.PARTIALS
        assert N.PARTS.get(name, 0) == len(prim.parts) and (name in N.SPLITS) == prim.split
        slots = (False,) * len(prim.signature)
        for i, part in enumerate(prim.parts):
            part_name = f"{name}[{i}]"
            assert f"{name}[{i}]" in infer_numpy._RULES
            assert (part_name in N.NOT_DIFFERENTIATED) == part.refused
            if part.jvp is None:
                assert part_name in N.INACTIVE and part_name not in rules.FORWARD
            else:
                assert rules.FORWARD[part_name] is part.jvp and rules.REVERSE[part_name] is part.vjp
                assert rules.differentiable_slots(part_name, len(part.slots)) == part.slots
    elif prim.inactive:  # no derivative: a constructor of a shape, a test, an index
        assert name in N.INACTIVE and name not in rules.FORWARD and name not in rules.PARTIALS
        slots = (False,) * len(prim.signature or (None, None))  # (called as written: any number of arguments)
    else:
        assert rules.FORWARD[name] is prim.jvp and rules.REVERSE[name] is prim.vjp and N.SLOTS[name] == prim.slots
        slots = prim.slots(len(prim.signature)) if callable(prim.slots) else prim.slots  # (of any number: a join's)
    if prim.joined:  # a join: lowering passes its sequence's arrays as its first arguments
        assert name in N.SEQUENCE and N.SEQUENCE_AXIS[name] == (
            prim.signature[1][1].value if slots[-1:] == (False,) else None
        )
    for kind, variant in prim.variants.items():  # for operands of one kind, also where called by its operator
        for called in filter(None, (name, prim.operator)):
            assert rules.FORWARD[f"{called}/{kind}"] is variant.jvp and rules.REVERSE[f"{called}/{kind}"] is variant.vjp
            assert N.SLOTS[f"{called}/{kind}"] == variant.slots
            assert (f"{called}/{kind}/array g" in rules.REVERSE) == (variant.array_g is not None)
        assert f"{name}/{kind}" in infer_numpy._RULES and (variant.value or prim.value) is not None
    if prim.operator is not None:
        assert N.BILINEAR[prim.operator] is prim.bilinear
    assert N.SIGNATURES.get(name) == prim.signature
    assert rules.differentiable_slots(name, len(slots)) == slots
    assert all(N.METHODS[m] == name for m in prim.methods) and all(N.ATTRIBUTES[a] == name for a in prim.attributes)
    assert N.POSITIONAL.get(name) == prim.positional
    assert name in infer_numpy._RULES
    for helper, forms in prim.helpers.items():
        assert HELPERS.get(helper) == forms.python and XP_HELPERS.get(helper) == forms.array_api
        assert NUMBA_HELPERS.get(helper) == forms.numba
        assert HELPER_RULES.get(helper) == forms.linear
        assert transfer.LIKE_ARGUMENT.get(helper) == (forms.like if isinstance(forms.like, int) else None)
    if prim.array_api is not None and prim.array_api.startswith("xp."):
        assert translate.RENAMED[prim.numpy_name] == prim.array_api[3:]
    elif prim.array_api is not None:
        assert translate.BY_HELPER[prim.numpy_name] == prim.array_api and prim.array_api in XP_HELPERS


def test_a_record_is_the_only_place_of_its_helpers():
    """Each helper of a record is defined in its family module only (no copy left in a target's table)."""
    for name, family_name in {h: p.family for p in REGISTRY.values() for h in p.helpers}.items():
        where = [
            path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py") if f"def {name}(" in path.read_text()
        ]
        assert where == [f"rules/{family_name}.py"], (name, where)
    assert set(helper_forms("python")) <= set(HELPERS)


def test_a_refusal_of_the_array_api_target_is_said_at_the_users_line(tmp_path, monkeypatch):
    """A record's ``refusals["array_api"]`` is what the array-API target says of a call of it."""
    monkeypatch.setitem(translate.REFUSALS, "var", "its correction is not the standard's here")
    monkeypatch.delitem(translate.RENAMED, "var")
    path = tmp_path / "refused.py"
    namespace = written(tmp_path, "refused", "import numpy as np\n\n\ndef f(x):\n    return np.var(x) * np.sum(x)\n")
    with pytest.raises(adcompiler.UnsupportedSyntaxError) as info:
        adcompiler.differentiate(namespace["f"], arrays="any").grad(np.ones(3))
    assert "np.var (its correction is not the standard's here)" in str(info.value)
    assert info.value.filename == str(path) and info.value.lineno == 5
