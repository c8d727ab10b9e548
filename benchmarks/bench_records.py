"""Time per call of gradients through records and small arrays (issue 37 item 6).

- ``logistic_dict``: a logistic-regression loss whose parameters are a dict ``{"w": w, "b": b}``, against
  ``logistic_arrays``, the same loss of ``w`` and ``b`` as two arrays, and the primal: the cost of
  describing the dict at each call (the target: within 1.3x of the arrays).
- ``model_object``: a model object with a list of layer objects (``self.layers``), ``grad`` with respect to
  it, against the same network on a list of (W, b) tuples.
- ``rk4``: an RK4 integrator of a small ODE whose state is a 4-vector unpacked ``a, b, c, d = y`` each
  step, gradient with respect to the initial state and the parameters.

Run ``python benchmarks/bench_records.py`` (``--quick`` for fewer repeats); prints a table of
microseconds per call and the ratios.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples"))

import adcompiler  # noqa: E402
from timing import best  # noqa: E402

import new_user  # noqa: E402  (samples/new_user.py: the programs of the new-user pass)


def _cases(rng):
    X = rng.standard_normal((200, 5))
    y = (rng.random(200) > 0.5).astype(float)
    params = {"w": rng.standard_normal(5) * 0.1, "b": np.array(0.1)}
    w, b = params["w"], float(params["b"])
    layers = [
        new_user.Dense(rng.standard_normal((8, 5)) * 0.3, np.zeros(8)),
        new_user.Dense(rng.standard_normal((1, 8)) * 0.3, np.zeros(1)),
    ]
    model = new_user.Model(layers)
    tuples = [(layer.W, layer.b) for layer in layers]
    x = rng.standard_normal(5)
    state, theta = np.array([1.0, 0.5, -0.3, 0.2]), np.array([0.7, 1.3])
    grad_dict = adcompiler.grad(new_user.logistic_loss)
    grad_arrays = adcompiler.grad(new_user.logistic_loss_arrays, argnums=(0, 1))
    grad_model = adcompiler.grad(new_user.Model.loss)
    grad_tuples = adcompiler.grad(new_user.mlp_loss)
    grad_rk4 = adcompiler.grad(new_user.rk4_loss, argnums=(0, 1))
    return [
        ("logistic_dict", lambda: new_user.logistic_loss(params, X, y), lambda: grad_dict(params, X, y)),
        ("logistic_arrays", lambda: new_user.logistic_loss_arrays(w, b, X, y), lambda: grad_arrays(w, b, X, y)),
        ("model_object", lambda: new_user.Model.loss(model, x), lambda: grad_model(model, x)),
        ("mlp_tuples", lambda: new_user.mlp_loss(tuples, x), lambda: grad_tuples(tuples, x)),
        ("rk4", lambda: new_user.rk4_loss(state, theta), lambda: grad_rk4(state, theta)),
    ]


def main(quick: bool = False) -> None:
    rng = np.random.default_rng(0)
    repeat = 5 if quick else 25
    rows = []
    for name, primal, gradient in _cases(rng):
        p, g = best(primal, repeat=repeat), best(gradient, repeat=repeat)
        rows.append((name, p * 1e6, g * 1e6))
    print(f"{'case':18} {'primal us':>10} {'grad us':>10} {'grad/primal':>12}")
    for name, p, g in rows:
        print(f"{name:18} {p:10.1f} {g:10.1f} {g / p:12.2f}")
    by = {name: g for name, _, g in rows}
    print(f"\nlogistic: dict / arrays = {by['logistic_dict'] / by['logistic_arrays']:.2f}")
    print(f"model: objects / tuples = {by['model_object'] / by['mlp_tuples']:.2f}")


if __name__ == "__main__":
    main("--quick" in sys.argv)
