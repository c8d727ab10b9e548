"""jax.jit's gradient of the NumPy variants of Table 1 (../shared/peers/programs.py), for
bench_numba.py's comparison: run it with a Python that has JAX (the peers' venv).

Each program is run with ``np`` bound to ``jax.numpy`` (the same code), its gradient compiled by
``jax.jit(jax.grad(f))``, one thread; times are the best of several rounds of blocking calls, the
first call (trace and XLA compile) apart.  particles_np is left out: its 1000-step Python loop
unrolls into one XLA graph that does not finish compiling in minutes (the reference harness skips
it for the same reason).

    PYTHON_WITH_JAX benchmarks/bench_numba_jax.py [--peers ../shared/peers]
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
os.environ.setdefault("JAX_ENABLE_X64", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402

from timing import best  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", default=os.path.join(HERE, "..", "..", "shared", "peers"))
    options = parser.parse_args(argv)
    sys.path.insert(0, os.path.abspath(options.peers))
    import jax
    import jax.numpy as jnp
    import numpy as np
    import programs as P

    def on_jax(fn):
        scope = dict(fn.__globals__, np=jnp)
        for name, value in fn.__globals__.items():
            if isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:
                scope[name] = types.FunctionType(value.__code__, scope, name)
        return scope[fn.__name__]

    layers, x = P.inputs_neural()
    cases = [
        ("dot_np", P.dot_np, tuple(map(np.array, P.inputs_dot(100000)))),
        ("sum_mat_vec_np", P.sum_mat_vec_np, tuple(map(np.array, P.inputs_sum_mat_vec(300)))),
        ("neural_check_np", P.neural_check_np, ([(np.array(W), np.array(b)) for W, b in layers], np.array(x))),
    ]
    for name, fn, args in cases:
        f = on_jax(fn)
        args = jax.tree_util.tree_map(jnp.asarray, args)  # on the device once, as JAX users hold them
        argnums = tuple(range(len(args)))
        grad = jax.jit(jax.grad(f, argnums=argnums))
        primal = jax.jit(f)
        start = time.perf_counter()
        jax.block_until_ready(grad(*args))
        compile_s = time.perf_counter() - start
        t_grad = best(lambda: jax.block_until_ready(grad(*args)))
        t_primal = best(lambda: jax.block_until_ready(primal(*args)))
        print(
            f"{name:16s} jax.jit grad {t_grad * 1e6:9.2f} us  primal {t_primal * 1e6:9.2f} us  compile {compile_s:.2f} s"
        )


if __name__ == "__main__":
    main()
