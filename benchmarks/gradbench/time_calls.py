"""Per-call times of two GradBench derivatives through the adapter's own calls, in one process:

    python benchmarks/gradbench/time_calls.py ba --backend numba     # one Jacobian per observation
    python benchmarks/gradbench/time_calls.py lstm --c 1024          # lstm's gradient, l = 2, b = 7

ba: ``adcompiler.jacobian`` of ``reproj_err`` (wrt cam, X, w) once per observation, as the adapter
calls it, against the two ``vjp`` calls it needs, and the adapter's whole sparse Jacobian, each per
observation (``--p`` observations, best of 5).  lstm: the objective and ``d.grad`` (best of 7).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import adapters  # noqa: E402
import adcompiler  # noqa: E402


def best(fn, rounds: int) -> float:
    """The least wall time of ``rounds`` calls of ``fn``, in seconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def ba(backend: str, p: int) -> None:
    mod = adapters.eval_module("ba")
    cam = [0.1, -0.2, 0.05, 1.0, 2.0, -3.0, 500.0, 0.01, -0.02, 1e-3, 1e-6]
    raw = {"n": 49, "m": 7776, "p": p, "cam": cam, "x": [0.3, 0.7, 5.0], "w": 0.8, "feat": [1.0, 2.0]}
    cams, X, w, obs, feats = adapters.ba_inputs(raw)
    d = adcompiler.differentiate(mod.reproj_err, wrt=("cam", "X", "w"), backend=backend)
    jac = adcompiler.jacobian(d)
    cts = (np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    each = [(cams[obs[j, 0]], X[obs[j, 1]], w[j], feats[j]) for j in range(p)]
    jac(*each[0]), d.vjp(each[0], cts[0])  # (the first calls transform and compile)
    whole = adapters.ba(backend)["jacobian"].run
    whole(cams, X, w, obs, feats)
    t_jac = best(lambda: [jac(*a) for a in each], 5) / p
    t_vjp = best(lambda: [d.vjp(a, ct) for a in each for ct in cts], 5) / p
    t_whole = best(lambda: whole(cams, X, w, obs, feats), 3) / p
    print(
        f"ba {backend}: jacobian {t_jac * 1e6:.1f} us per observation; two vjps {t_vjp * 1e6:.1f} us; "
        f"the adapter's whole Jacobian {t_whole * 1e6:.1f} us per observation"
    )


def lstm(backend: str, c: int, b: int = 7, layers: int = 2) -> None:
    mod = adapters.eval_module("lstm")
    rng = np.random.default_rng(0)
    main, extra = rng.uniform(-1, 1, (2 * layers, 4 * b)), rng.uniform(-1, 1, (3, b))
    state, sequence = rng.uniform(-1, 1, (2 * layers, b)), rng.uniform(0, 1, (c, b))
    d = adcompiler.differentiate(mod.objective, wrt=("main_params", "extra_params"), backend=backend)
    d.grad(main, extra, state, sequence)
    t_primal = best(lambda: mod.objective(main, extra, state, sequence), 7)
    t_grad = best(lambda: d.grad(main, extra, state, sequence), 7)
    print(
        f"lstm {backend} l={layers} b={b} c={c}: primal {t_primal * 1e3:.2f} ms, gradient {t_grad * 1e3:.2f} ms "
        f"({t_grad / t_primal:.2f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("eval", choices=("ba", "lstm"))
    parser.add_argument("--backend", default="python", choices=("python", "numba"))
    parser.add_argument("--p", type=int, default=2000, help="ba: observations")
    parser.add_argument("--c", type=int, default=1024, help="lstm: characters")
    args = parser.parse_args()
    ba(args.backend, args.p) if args.eval == "ba" else lstm(args.backend, args.c)


if __name__ == "__main__":
    main()
