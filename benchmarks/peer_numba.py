"""adcompiler's Numba target as one more peer of the reference harness (../shared/peers/bench_peers.py),
so that its gradients are timed in the same run as the hand-written adjoints and jax.jit:

    python ../shared/peers/bench_peers.py --extra-peer benchmarks/peer_numba.py \\
        -P hand,adcompiler,adcompiler_numba,jax_jit --tag numba

``adcompiler_numba`` is ``differentiate(fn, backend="numba").grad(*args)`` (rotate:
``jacobian(fn, mode="reverse")`` of the same object), through the public API as a user calls it: the
arguments as the harness gives them (lists of floats for the "py" variants, which the entry converts
to arrays on each call), the result in their structure.  The first call (generation and Numba's
compilation) is the compile time the harness reports apart.
"""

import time

import programs
from bench_peers import Prepared


class AdcNumbaPeer:
    name = "adcompiler_numba"

    def __init__(self):
        import adcompiler

        self.adc = adcompiler
        self.version = getattr(adcompiler, "__version__", "?")

    def skip_reason(self, case):
        try:
            import numba  # noqa: F401
        except ImportError:
            return "numba is not installed"
        return None

    def prepare(self, case, which):
        fn = getattr(programs, case.fn(which))
        args = tuple(case.inputs)
        t0 = time.perf_counter()
        d = self.adc.differentiate(fn, backend="numba")
        if case.output == "vector":
            jac = self.adc.jacobian(d, mode="reverse")
            jac(*args)
            return Prepared(lambda: jac(*args), compile_s=time.perf_counter() - t0, note="jacobian(mode='reverse')")
        d.grad(*args)  # the first call makes d.grad the fast entry: read it after
        grad = d.grad
        compile_s = time.perf_counter() - t0
        if case.nargs == 1:
            return Prepared(lambda: (grad(*args),), compile_s=compile_s)
        return Prepared(lambda: grad(*args), compile_s=compile_s)


PEERS = {"adcompiler_numba": AdcNumbaPeer}
