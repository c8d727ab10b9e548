"""The reference harness (``../shared/peers`` beside the checkout): the project's speed is judged by
its Table-1 programs (``programs.py``) and careful hand-written gradients (``handgrad.py``).

Nothing of it is copied here: ``load`` imports the two files from the reference's folder, under names
of their own, so that they do not clash with benchmarks/programs.py (``handgrad.py`` imports
``programs`` by that name).  ``Counterpart`` says how one of bench_scalar.py's cases maps onto a
reference program, for the check that the project's hand-written baselines are at least as fast as
the reference's.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import sys
import types
from typing import Any, Callable

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_dir() -> str | None:
    """``../shared/peers`` relative to the repository's root, if it is there."""
    path = os.path.normpath(os.path.join(ROOT, "..", "shared", "peers"))
    return path if os.path.isdir(path) else None


def _load_file(name: str, path: str) -> types.ModuleType:
    """Import the file ``path`` as a module called ``name`` (registered in sys.modules, so that
    ``inspect`` and adcompiler can read its functions' source)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def load(folder: str) -> types.SimpleNamespace:
    """The reference's ``programs`` and ``handgrad`` modules, as ``reference_programs`` and
    ``reference_handgrad``; ``handgrad``'s ``import programs`` is pointed at the former while it loads."""
    folder = os.path.abspath(folder)
    for name in ("programs.py", "handgrad.py"):
        if not os.path.isfile(os.path.join(folder, name)):
            raise FileNotFoundError(f"{folder} has no {name}: not the reference harness")
    programs = _load_file("reference_programs", os.path.join(folder, "programs.py"))
    saved = sys.modules.get("programs")
    sys.modules["programs"] = programs
    try:
        handgrad = _load_file("reference_handgrad", os.path.join(folder, "handgrad.py"))
    finally:
        if saved is None:
            del sys.modules["programs"]
        else:
            sys.modules["programs"] = saved
    return types.SimpleNamespace(folder=folder, programs=programs, handgrad=handgrad)


def to_arrays(x: Any) -> Any:
    """The reference's "np" inputs from its "py" ones: a list of floats becomes a 1-D array, a list
    of lists of floats a 2-D array; tuples and other lists keep their structure."""
    if isinstance(x, tuple):
        return tuple(to_arrays(e) for e in x)
    if isinstance(x, list) and x and all(isinstance(e, float) for e in x):
        return np.array(x)
    if isinstance(x, list) and x and all(isinstance(e, list) and isinstance(e[0], float) for e in x):
        return np.array(x)
    if isinstance(x, list):
        return [to_arrays(e) for e in x]
    return x


def _same(x):
    return x


@dataclasses.dataclass
class Counterpart:
    """A reference program that computes the same gradient as one of bench_scalar.py's cases.

    key:       the reference's ``handgrad.HAND`` key, e.g. ``("dot", "py")``
    args:      the case's arguments -> the reference gradient's arguments (its layout)
    grad:      the reference's gradient -> the layout of the case's hand-written gradient, so the two
               can be compared entry by entry
    case_args: the case's arguments -> those the project's baseline runs on in this check (the
               reference's ``neural_check`` fixes the output weights to 1, 2, ...)
    """

    key: tuple
    args: Callable = _same
    grad: Callable = _same
    case_args: Callable = _same

    def function(self, reference: types.SimpleNamespace) -> Callable:
        """The reference's hand-written gradient for this program."""
        return reference.handgrad.HAND[self.key]


def _rotate_args(args):
    """(qw, qx, qy, qz, vx, vy, vz) -> the reference's (v, q), q = (x, y, z, w)."""
    qw, qx, qy, qz, vx, vy, vz = args
    return [vx, vy, vz], [qx, qy, qz, qw]


def _rotate_rows(rows):
    """The reference's Jacobian rows ([dv], [dqx, dqy, dqz, dqw]) -> (dqw, dqx, dqy, dqz, dvx, dvy, dvz)."""
    return [(dq[3], dq[0], dq[1], dq[2], *dv) for dv, dq in rows]


def _particles_args(args):
    """(ps, vs) -> the reference's one state list, rows [px, py, vx, vy]."""
    ps, vs = args
    return ([p + v for p, v in zip(ps, vs)],)


def _particles_grad(grad):
    """The reference's (d state,) -> (d ps, d vs)."""
    (d_state,) = grad
    return [row[:2] for row in d_state], [row[2:] for row in d_state]


def _particles_np_args(args):
    ps, vs = args
    return (np.concatenate([ps, vs], axis=1),)


def _particles_np_grad(grad):
    (d_state,) = grad
    return d_state[:, :2], d_state[:, 2:]


def _weights_one_to_n(args):
    """(layers, x, out_w) -> (layers, x, [1, 2, ..., n]): the reference's ``neural_check`` weights."""
    layers, x, out_w = args
    ones = [float(i + 1) for i in range(len(out_w))]
    return layers, x, (np.array(ones) if isinstance(out_w, np.ndarray) else ones)


def _drop_weights(args):
    return args[:2]


def counterparts() -> dict[str, Counterpart]:
    """Case-name prefix -> its reference program (the longest matching prefix wins)."""
    return {
        "scalar_mul": Counterpart(("scalar_mult", "py")),
        "rotate_vec_by_quat": Counterpart(("rotate_vec_by_quat", "py"), _rotate_args, _rotate_rows),
        "dot_list": Counterpart(("dot", "py")),
        "sum_mat_vec_": Counterpart(("sum_mat_vec", "py")),
        "neural_5": Counterpart(("neural", "py")),
        "neural_weighted_5": Counterpart(("neural_check", "py"), _drop_weights, _same, _weights_one_to_n),
        "particles_4": Counterpart(("particles", "py"), _particles_args, _particles_grad),
        "dot_np": Counterpart(("dot", "np")),
        "sum_mat_vec_np": Counterpart(("sum_mat_vec", "np")),
        "neural_np": Counterpart(("neural", "np")),
        "neural_weighted_np": Counterpart(("neural_check", "np"), _drop_weights, _same, _weights_one_to_n),
        "particles_np": Counterpart(("particles", "np"), _particles_np_args, _particles_np_grad),
    }


def counterpart_of(case_name: str) -> Counterpart | None:
    """The reference program of the case called ``case_name``, if the reference has one."""
    table = counterparts()
    prefixes = [p for p in table if case_name.startswith(p)]
    return table[max(prefixes, key=len)] if prefixes else None
