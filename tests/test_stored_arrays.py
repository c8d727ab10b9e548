"""Arrays written in place and put into a list, tuple or dict: where the container may hold the array when it
is written (stored before the write, or in a loop around both), refused at the write; where it cannot (the
array made anew each iteration before the write and stored after it, ``h = np.zeros(2); h[0] = ...;
hs.append(h)``; or stored once after the loop, ``return {"a": a}``), differentiated.  Every placement of the
making, the write and the store, generated: an accepted program's gradient and jvp against central
differences, on both targets; the placements that are safe must be accepted (before 2026-12-03 every one of
them was refused)."""

import importlib.util
import itertools

import pytest

np = pytest.importorskip("numpy")

import adcompiler  # noqa: E402

MAKING = ("outside", "inside")  # h = np.zeros(2) before the loop only, or again first in each iteration
STORE = ("before_making", "between", "after_write", "after_loop")  # where the container takes h
HOLDER = ("append", "display", "tuple", "dict")


def _source(making, store, holder) -> str:
    put = {
        "append": "hs.append(h)",
        "display": "hs = hs + [h]",
        "tuple": "hs = hs + [(h, 1.0)]",
        "dict": 'hs = hs + [{"h": h}]',
    }[holder]
    take = {"append": "v", "display": "v", "tuple": "v[0]", "dict": 'v["h"]'}[holder]
    body = ["h = np.zeros(2)"] if making == "inside" else []
    write = ["h[0] = h[0] + x[t] * 2.0", "h[1] = x[t] ** 2 + h[1]"]
    if store == "before_making":
        body = [put] + body + write
    elif store == "between":
        body = body + [put] + write
    else:
        body = body + write + ([put] if store == "after_write" else [])
    lines = ["def f(x):", "    hs = []", "    h = np.zeros(2)", "    for t in range(x.shape[0]):"]
    lines += ["        " + b for b in body]
    if store == "after_loop":
        lines.append("    " + put)
    lines += [
        "    total = 0.0",
        "    for v in hs:",
        f"        total = total + np.sum({take} ** 2) * x[0]",
        "    return total",
    ]
    return "\n".join(lines) + "\n"


def _safe(making, store) -> bool:
    """Whether the container can never hold h when h is written (the derivative must then be taken)."""
    return store == "after_loop" or making == "inside" and store in ("before_making", "after_write")


CASES = list(itertools.product(MAKING, STORE, HOLDER))


def _load(tmp_path, making, store, holder):
    path = tmp_path / f"stored_{making}_{store}_{holder}.py"
    path.write_text("import numpy as np\n\n\n" + _source(making, store, holder))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("making, store, holder", CASES, ids=["-".join(c) for c in CASES])
def test_stored_arrays_are_refused_or_right(tmp_path, backend, making, store, holder):
    if backend == "numba":
        pytest.importorskip("numba")
    f = _load(tmp_path, making, store, holder)
    x = np.array([0.5, -1.0, 2.0])
    d = adcompiler.differentiate(f, backend=backend)
    try:
        g = d.grad(x)
        _, tangent = d.jvp((x,), (np.array([0.3, -0.2, 0.7]),))
    except adcompiler.UnsupportedSyntaxError as refused:
        message = str(refused)
        assert f"stored_{making}_{store}_{holder}.py:" in message, message  # (located at the user's line)
        if backend == "numba" and holder != "append":
            return  # (Numba's own limits, each refused by its target: a list of (array, number) tuples in reverse
            # mode, a list of dicts, a list rebound by + in a loop)
        assert not _safe(making, store), message
        assert "a list also holds" in message, message
        return
    h = 1e-6
    want = np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8)
    assert tangent == pytest.approx(float(want @ [0.3, -0.2, 0.7]), rel=1e-6, abs=1e-8)
