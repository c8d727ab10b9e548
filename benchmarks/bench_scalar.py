#!/usr/bin/env python3
"""Benchmark harness for adcompiler: the straight-line programs of Table 1 of
Smeding & Vakar, "Parallel Dual-Numbers Reverse AD".

    python benchmarks/bench_scalar.py            # full run: about 9 min (14 min with jax and torch)
    python benchmarks/bench_scalar.py --quick    # about 35 s (70 s with jax and torch), rougher numbers

For every case, in the same process, it times

* the primal program;
* adcompiler reverse mode (``f.grad`` for a scalar output, otherwise the full
  Jacobian with one ``f.vjp`` per output) and forward mode (one ``f.jvp``
  along a fixed direction);
* the hand-written gradient and tangent from benchmarks/handwritten.py
  (checked against central finite differences at start-up);
* peer AD tools where importable: autograd, jax (eager and jax.jit), torch.

Every derivative is checked against the hand-written one (np.allclose)
before it is timed; a wrong one is reported as 'WRONG' and not timed.  The
time adcompiler takes to transform a function (source to a loaded callable,
on first use) is reported too.  With the reference harness present
(``--reference DIR``, default ../shared/peers), each hand-written gradient
is also timed against the reference's ``handgrad.py`` for the same program
("baseline vs reference", flagged above 1.05x).  Results go to
benchmarks/out/ (ignored by git): latest.json, latest.md and (with
matplotlib) latest.png; ``--out benchmarks/results`` writes a run to commit.
See benchmarks/README.md.

To add a program: put the primal in benchmarks/programs.py, its hand-written
vjp/jvp in benchmarks/handwritten.py, and a ``Case`` in ``make_cases()``.
"""

from __future__ import annotations

import onethread  # noqa: F401  (first: one BLAS thread, set before NumPy loads)
import options  # noqa: E402
import argparse
import dataclasses
import datetime
import importlib.metadata
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
import traceback
from typing import Any, Callable

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import handwritten  # noqa: E402
import programs  # noqa: E402
import reference  # noqa: E402

SLOWER_THAN_REFERENCE = 1.05  # a baseline above this ratio to the reference's is flagged

# ----------------------------------------------------------------------------
# pytrees of floats: tuples / lists / numpy arrays / floats


def flatten(tree: Any) -> np.ndarray:
    """All the floats of a nested tuple/list/array structure, as a 1-D array."""
    if isinstance(tree, (tuple, list)):
        if not tree:
            return np.zeros(0)
        return np.concatenate([flatten(t) for t in tree])
    if hasattr(tree, "detach"):  # torch tensor
        tree = tree.detach().cpu().numpy()
    return np.asarray(tree, dtype=float).ravel()


def unflatten(template: Any, vec: np.ndarray) -> Any:
    """Inverse of ``flatten``: rebuild ``template``'s structure from ``vec``."""
    out, used = _unflatten(template, np.asarray(vec, dtype=float), 0)
    assert used == len(vec)
    return out


def _unflatten(t, vec, i):
    if isinstance(t, (tuple, list)):
        items = []
        for s in t:
            item, i = _unflatten(s, vec, i)
            items.append(item)
        return type(t)(items), i
    if isinstance(t, np.ndarray):
        n = t.size
        return vec[i : i + n].reshape(t.shape).copy(), i + n
    return float(vec[i]), i + 1


# ----------------------------------------------------------------------------
# cases


@dataclasses.dataclass
class Case:
    """One benchmark program.

    primal:    plain Python function (in a real file, for inspect)
    args:      example arguments (floats, or lists/arrays for later programs)
    hand_vjp:  (args, ct) -> (value, cotangents), one cotangent per parameter
    hand_jvp:  (args, tangents) -> (value, tangent)
    hand_grad: (*args) -> the gradient, one entry per differentiated parameter (a vector output:
               the Jacobian's rows, one such tuple per output); the reverse-mode baseline
    out_dim:  None for a scalar output, else the length of the output tuple
    peers:    name -> builder(case) -> PeerImpl; the default uses the primal
              itself, which works for programs made of arithmetic only
    """

    name: str
    description: str
    primal: Callable
    args: tuple
    hand_vjp: Callable
    hand_jvp: Callable
    hand_grad: Callable
    out_dim: int | None = None
    wrt: tuple | None = None
    peers: dict | None = None

    @property
    def n_in(self) -> int:
        return len(self.args)

    def wrt_index(self) -> list[int]:
        """Positions in ``args`` of the differentiated parameters."""
        if self.wrt is None:
            return list(range(len(self.args)))
        import inspect

        names = list(inspect.signature(self.primal).parameters)
        return [names.index(w) for w in self.wrt]

    def wrt_args(self) -> tuple:
        """The differentiated arguments (all of ``args`` unless ``wrt``)."""
        return tuple(self.args[i] for i in self.wrt_index())

    def direction(self) -> tuple:
        """A fixed, non-trivial tangent direction with the structure of the
        differentiated args (one tangent per wrt parameter)."""
        template = self.wrt_args()
        n = len(flatten(template))
        vec = np.array([(1.0 + 0.25 * (i % 5)) * (-1.0) ** i for i in range(n)])
        return unflatten(template, vec)

    def cotangents(self) -> list:
        """Cotangents that, one vjp each, give the full Jacobian."""
        if self.out_dim is None:
            return [1.0]
        return [tuple(1.0 if j == i else 0.0 for j in range(self.out_dim)) for i in range(self.out_dim)]


@dataclasses.dataclass
class PeerImpl:
    reverse: Callable | None  # (*args) -> something flattening to the Jacobian rows
    forward: Callable | None  # (*args) -> something flattening to the output tangent
    args: tuple  # arguments converted for this tool
    version: str = ""


def make_cases(quick: bool) -> list[Case]:
    """The Table-1 programs at the paper's sizes (``quick`` only shortens the
    timings, not the problems)."""
    rng = np.random.default_rng(0)

    def vec(n):
        return [float(v) for v in rng.standard_normal(n)]

    def dot_case(n):
        return Case(
            name=f"dot_list_{n}",
            description=f"dot product of two {n}-element lists (loop), gradient",
            primal=programs.dot,
            args=(vec(n), vec(n)),
            hand_vjp=handwritten.dot_vjp,
            hand_jvp=handwritten.dot_jvp,
            hand_grad=handwritten.dot_grad,
            peers=dot_peers(),
        )

    def matvec_case(n):
        return Case(
            name=f"sum_mat_vec_{n}",
            description=f"sum of M v, M a list of {n} rows of {n} (nested loops), gradient",
            primal=programs.sum_mat_vec,
            args=([vec(n) for _ in range(n)], vec(n)),
            hand_vjp=handwritten.sum_mat_vec_vjp,
            hand_jvp=handwritten.sum_mat_vec_jvp,
            hand_grad=handwritten.sum_mat_vec_grad,
            peers=matvec_peers(),
        )

    layers, x, out_w = programs.neural_inputs(0, [50, 100, 50])
    ps, vs = programs.particles_input(4)
    return [
        Case(
            name="scalar_mul",
            description="x * y (Table 1: scalar multiplication), gradient",
            primal=programs.mul,
            args=(1.5, -2.25),
            hand_vjp=handwritten.mul_vjp,
            hand_jvp=handwritten.mul_jvp,
            hand_grad=handwritten.mul_grad,
        ),
        Case(
            name="rotate_vec_by_quat",
            description="rotate_vec_by_quat (Table 1), full 3x7 Jacobian",
            primal=programs.rotate_vec_by_quat,
            args=(0.9, 0.1, -0.3, 0.3, 1.0, 2.0, -0.5),
            hand_vjp=handwritten.rotate_vec_by_quat_vjp,
            hand_jvp=handwritten.rotate_vec_by_quat_jvp,
            hand_grad=handwritten.rotate_vec_by_quat_jac,
            out_dim=3,
        ),
        # Loops and lists (samples/paper_programs.py).
        dot_case(1000),
        dot_case(100000),
        matvec_case(100),
        matvec_case(300),
        Case(
            name="neural_50_100_50",
            description="dense ReLU network 50-100-50, safe softmax, sum of outputs (gradient ~0), gradient",
            primal=programs.neural,
            args=(layers, x),
            hand_vjp=handwritten.neural_vjp,
            hand_jvp=handwritten.neural_jvp,
            hand_grad=handwritten.neural_grad,
            peers={"jax.jit": peer_neural_jax_jit, "torch": peer_neural_torch},
        ),
        Case(
            name="neural_weighted_50_100_50",
            description="the same network, weighted sum of outputs, gradient wrt (layers, x)",
            primal=programs.neural_weighted,
            args=(layers, x, out_w),
            wrt=("layers", "x"),
            hand_vjp=handwritten.neural_weighted_vjp,
            hand_jvp=handwritten.neural_weighted_jvp,
            hand_grad=handwritten.neural_weighted_grad,
            peers={"jax.jit": peer_neural_jax_jit, "torch": peer_neural_torch},
        ),
        Case(
            name="particles_4x1000",
            description="4 particles x 1000 explicit-Euler steps, sum of x*y, gradient",
            primal=programs.particles,
            args=(ps, vs),  # n_steps: its default, 1000
            wrt=("ps", "vs"),
            hand_vjp=handwritten.particles_vjp,
            hand_jvp=handwritten.particles_jvp,
            hand_grad=handwritten.particles_grad,
            peers={"jax.jit": peer_particles_jax_jit, "torch": peer_particles_torch},
        ),
    ]


# ----------------------------------------------------------------------------
# generic derivative tasks (so every method computes the same thing)


def hand_methods(case: Case):
    """The hand-written reverse (the gradient, or the Jacobian's rows) and forward (one jvp along the
    case's direction) callables, each behind a wrapper like adcompiler's, and the args."""
    direction = case.direction()
    grad, jvp = case.hand_grad, case.hand_jvp

    def reverse(*a):
        return grad(*a)

    def forward(*a):
        return jvp(a, direction)[1]

    return reverse, forward, tuple(case.args)


def vjp_problem(case: Case, jac: np.ndarray) -> str | None:
    """Check the hand-written vjp, with a cotangent that is not a unit seed, against the Jacobian
    ``jac`` (m x n, the hand-written gradient's, itself checked against finite differences):
    its cotangents must be w^T jac and its value the primal's."""
    args = tuple(case.args)
    weights = [0.75 - 0.5 * i for i in range(len(case.cotangents()))]
    ct = weights[0] if case.out_dim is None else tuple(weights)
    value, cts = case.hand_vjp(args, ct)
    problems = []
    if not np.allclose(flatten(value), flatten(case.primal(*args)), rtol=1e-12, atol=1e-12):
        problems.append("hand-written vjp value != primal")
    expected = np.array(weights) @ jac
    if not np.allclose(flatten(cts), expected, rtol=1e-9, atol=1e-12 * max(1.0, float(np.abs(expected).max()))):
        problems.append("hand-written vjp != cotangent . hand-written Jacobian")
    return "; ".join(problems) or None


def adc_methods(case: Case, f):
    """reverse/forward callables for an ``adcompiler.differentiate`` result."""
    cts = case.cotangents()
    direction = case.direction()
    # f.grad is looked up on every call, as a user writes it: after the first call it is the
    # generated function itself (the API's fast path), which a reference taken earlier would miss.
    if case.out_dim is None:

        def reverse(*a):
            return f.grad(*a)

    else:

        def reverse(*a):
            return [f.vjp(a, ct)[1] for ct in cts]

    def forward(*a):
        return f.jvp(a, direction)[1]

    return reverse, forward


def adc_differentiate(case: Case):
    import adcompiler

    if case.wrt is None:
        return adcompiler.differentiate(case.primal)
    return adcompiler.differentiate(wrt=case.wrt)(case.primal)


def _zeros_like(tree):
    if isinstance(tree, (tuple, list)):
        return type(tree)(_zeros_like(t) for t in tree)
    return 0.0


def adc_module_methods(case: Case, workdir: str):
    """reverse/forward callables from the module that ``adc compile`` writes
    (``NAME_reverse(*params, ct=...)``, ``NAME_forward(*params, *tangents)``):
    the generated code without the ``f.grad``/``f.vjp`` wrapper.

    The CLI differentiates every parameter, including those left to their
    defaults: forward mode gets zero tangents for the parameters outside
    ``case.wrt`` (and the defaulted ones), reverse mode's cotangents are cut
    down to those of ``case.wrt``."""
    import importlib.util
    import inspect

    params = list(inspect.signature(case.primal).parameters.values())
    defaults = tuple(p.default for p in params[len(case.args) :])
    if any(d is inspect.Parameter.empty for d in defaults):
        raise NotImplementedError("a parameter without a default is not in the case's args")
    keep = case.wrt_index()
    src = inspect.getsourcefile(case.primal)
    name = case.primal.__name__
    out = os.path.join(workdir, f"{case.name}_ad.py")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "adcompiler",
            "compile",
            src,
            "--function",
            name,
            "--import",  # run the file's top-level code: benchmarks/programs.py puts samples/ on sys.path
            "-o",
            out,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        raise RuntimeError(f"adc compile failed: {lines[-1] if lines else proc.returncode}")
    spec = importlib.util.spec_from_file_location(f"adc_bench_{case.name}", out)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(src))  # in case it imports its neighbours
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(os.path.dirname(src))
    rev_fn = getattr(mod, f"{name}_reverse")
    fwd_fn = getattr(mod, f"{name}_forward")
    cts = case.cotangents()
    full_args = tuple(case.args) + defaults
    direction = [_zeros_like(a) for a in full_args]
    for i, d in zip(keep, case.direction()):
        direction[i] = d
    direction = tuple(direction)
    everything = keep == list(range(len(full_args)))

    def pick(ct):
        return ct if everything else tuple(ct[i] for i in keep)

    if case.out_dim is None:

        def reverse(*a):
            return pick(rev_fn(*a)[1])

    else:

        def reverse(*a):
            return [pick(rev_fn(*a, ct=ct)[1]) for ct in cts]

    if defaults:

        def forward(*a):
            return fwd_fn(*a, *defaults, *direction)[1]

    else:

        def forward(*a):
            return fwd_fn(*a, *direction)[1]

    return reverse, forward


# ----------------------------------------------------------------------------
# peers.  The default builders differentiate the primal itself, which works
# for programs built from arithmetic only (the Table-1 straight-line ones).


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return ""


def peer_autograd(case: Case) -> PeerImpl:
    import autograd
    import autograd.numpy as anp

    n = case.n_in
    primal = case.primal
    if case.out_dim is None:
        g = autograd.grad(primal, argnum=tuple(range(n)))
        reverse = g
    else:

        def packed(p):
            return anp.array(primal(*[p[i] for i in range(n)]))

        jac = autograd.jacobian(packed)

        def reverse(*a):
            return jac(np.array(a))

    return PeerImpl(reverse, None, tuple(case.args), _version("autograd"))


def _jax():
    import jax

    jax.config.update("jax_enable_x64", True)
    return jax


def _jax_impl(case: Case, jit: bool) -> PeerImpl:
    jax = _jax()
    n = case.n_in
    primal = case.primal
    argnums = tuple(range(n))
    if case.out_dim is None:
        rev = jax.grad(primal, argnums=argnums)
    else:
        rev = jax.jacrev(primal, argnums=argnums)
    direction = tuple(case.direction())

    def fwd(*a):
        return jax.jvp(primal, a, direction)[1]

    if jit:
        rev = jax.jit(rev)
        fwd = jax.jit(fwd)
    block = jax.block_until_ready

    def reverse(*a):
        return block(rev(*a))

    def forward(*a):
        return block(fwd(*a))

    return PeerImpl(reverse, forward, tuple(case.args), _version("jax"))


def peer_jax(case):
    return _jax_impl(case, jit=False)


def peer_jax_jit(case):
    return _jax_impl(case, jit=True)


def peer_torch(case: Case) -> PeerImpl:
    import torch
    import torch.func

    primal = case.primal
    f64 = torch.float64
    scalar_out = case.out_dim is None
    direction = case.direction()

    def reverse(*a):
        xs = [torch.tensor(v, dtype=f64, requires_grad=True) for v in a]
        out = primal(*xs)
        if scalar_out:
            return torch.autograd.grad(out, xs)
        return [torch.autograd.grad(o, xs, retain_graph=True, allow_unused=True, materialize_grads=True) for o in out]

    def forward(*a):
        xs = tuple(torch.tensor(v, dtype=f64) for v in a)
        ts = tuple(torch.tensor(v, dtype=f64) for v in direction)
        return torch.func.jvp(primal, xs, ts)[1]

    return PeerImpl(reverse, forward, tuple(case.args), _version("torch"))


DEFAULT_PEERS = {
    "autograd": peer_autograd,
    "jax": peer_jax,
    "jax.jit": peer_jax_jit,
    "torch": peer_torch,
}


# Vectorised peers for the dot product (the idiomatic way to write it there).


def peer_dot_autograd(case):
    import autograd
    import autograd.numpy as anp

    g = autograd.grad(lambda x, y: anp.dot(x, y), argnum=(0, 1))
    return PeerImpl(g, None, tuple(np.array(a) for a in case.args), _version("autograd"))


def _jax_peer(case, make_fn, jit):
    """reverse and forward of the two-argument function make_fn(jax.numpy), eager or under jax.jit."""
    jax = _jax()
    import jax.numpy as jnp

    fn = make_fn(jnp)
    rev = jax.grad(fn, argnums=(0, 1))
    direction = tuple(jnp.asarray(d) for d in case.direction())

    def fwd(a, b):
        return jax.jvp(fn, (a, b), direction)[1]

    if jit:
        rev, fwd = jax.jit(rev), jax.jit(fwd)
    block = jax.block_until_ready
    return PeerImpl(
        lambda a, b: block(rev(a, b)),
        lambda a, b: block(fwd(a, b)),
        tuple(jnp.asarray(x) for x in case.args),
        _version("jax"),
    )


def _dot_jax(case, jit):
    return _jax_peer(case, lambda jnp: jnp.dot, jit)


def dot_peers() -> dict:
    """The peers timed on the dot product, list and array versions alike (they run on arrays)."""
    return {"autograd": peer_dot_autograd, "jax": peer_dot_jax, "jax.jit": peer_dot_jax_jit, "torch": peer_dot_torch}


def matvec_peers() -> dict:
    """The peers timed on the sum of a matrix-vector product."""
    return {
        "autograd": peer_matvec_autograd,
        "jax": peer_matvec_jax,
        "jax.jit": peer_matvec_jax_jit,
        "torch": peer_matvec_torch,
    }


def peer_dot_jax(case):
    return _dot_jax(case, False)


def peer_dot_jax_jit(case):
    return _dot_jax(case, True)


def peer_dot_torch(case):
    import torch
    import torch.func

    direction = tuple(torch.tensor(d, dtype=torch.float64) for d in case.direction())

    def reverse(x, y):
        x = x.detach().requires_grad_(True)
        y = y.detach().requires_grad_(True)
        return torch.autograd.grad(torch.dot(x, y), (x, y))

    def forward(x, y):
        return torch.func.jvp(torch.dot, (x, y), direction)[1]

    args = tuple(torch.tensor(a, dtype=torch.float64) for a in case.args)
    return PeerImpl(reverse, forward, args, _version("torch"))


# Vectorised peers for the later programs: sum(M @ v), the dense network,
# the particle simulation (the idiomatic array code in each tool, not the
# scalar loops: the scalar Python loops would time Python, not the tool).


def _sum_matvec_np(xp):
    return lambda m, v: xp.sum(m @ v)


def peer_matvec_autograd(case):
    import autograd
    import autograd.numpy as anp

    g = autograd.grad(_sum_matvec_np(anp), argnum=(0, 1))
    return PeerImpl(g, None, tuple(np.array(a) for a in case.args), _version("autograd"))


def _matvec_jax(case, jit):
    return _jax_peer(case, _sum_matvec_np, jit)


def peer_matvec_jax(case):
    return _matvec_jax(case, False)


def peer_matvec_jax_jit(case):
    return _matvec_jax(case, True)


def peer_matvec_torch(case):
    import torch
    import torch.func

    fn = _sum_matvec_np(torch)
    direction = tuple(torch.tensor(d, dtype=torch.float64) for d in case.direction())

    def reverse(m, v):
        m = m.detach().requires_grad_(True)
        v = v.detach().requires_grad_(True)
        return torch.autograd.grad(fn(m, v), (m, v))

    def forward(m, v):
        return torch.func.jvp(fn, (m, v), direction)[1]

    args = tuple(torch.tensor(a, dtype=torch.float64) for a in case.args)
    return PeerImpl(reverse, forward, args, _version("torch"))


def _neural_np(xp, where, weighted):
    """The network of samples/paper_programs.py on arrays: relu as where(z < 0),
    the paper's safe softmax (max started at 0)."""

    def net(layers, x, out_w=None):
        h = x
        for w, b in layers:
            z = w @ h + b
            h = where(z < 0.0, 0.0 * z, z)
        m = xp.maximum(xp.max(h), 0.0 * xp.max(h))
        e = xp.exp(h - m)
        p = e / xp.sum(e)
        return xp.sum(out_w * p) if weighted else xp.sum(p)

    return net


def _neural_args(case, conv):
    layers = [(conv(w), conv(b)) for w, b in case.args[0]]
    return (layers,) + tuple(conv(a) for a in case.args[1:])


def peer_neural_jax_jit(case):
    jax = _jax()
    import jax.numpy as jnp

    weighted = len(case.args) == 3
    net = _neural_np(jnp, jnp.where, weighted)
    rev = jax.jit(jax.grad(net, argnums=(0, 1)))
    d_layers, d_x = case.direction()
    direction = ([(jnp.asarray(w), jnp.asarray(b)) for w, b in d_layers], jnp.asarray(d_x))

    if weighted:

        def fwd(layers, x, out_w):
            return jax.jvp(lambda l, xx: net(l, xx, out_w), (layers, x), direction)[1]

    else:

        def fwd(layers, x):
            return jax.jvp(net, (layers, x), direction)[1]

    fwd = jax.jit(fwd)
    block = jax.block_until_ready
    return PeerImpl(
        lambda *a: block(rev(*a)),
        lambda *a: block(fwd(*a)),
        _neural_args(case, jnp.asarray),
        _version("jax"),
    )


def peer_neural_torch(case):
    import torch
    import torch.func

    weighted = len(case.args) == 3
    net = _neural_np(torch, torch.where, weighted)

    def t(a):
        return torch.tensor(a, dtype=torch.float64)

    d_layers, d_x = case.direction()
    direction = ([(t(w), t(b)) for w, b in d_layers], t(d_x))

    def reverse(layers, x, *rest):
        flat = [p.detach().requires_grad_(True) for wb in layers for p in wb]
        x = x.detach().requires_grad_(True)
        lay = [(flat[2 * k], flat[2 * k + 1]) for k in range(len(layers))]
        g = torch.autograd.grad(net(lay, x, *rest), flat + [x])
        return [(g[2 * k], g[2 * k + 1]) for k in range(len(layers))], g[-1]

    def forward(layers, x, *rest):
        return torch.func.jvp(lambda l, xx: net(l, xx, *rest), (layers, x), direction)[1]

    return PeerImpl(reverse, forward, _neural_args(case, t), _version("torch"))


def peer_particles_jax_jit(case):
    jax = _jax()
    import jax.numpy as jnp

    dt, mass, n_steps = 0.05, 1.0, 1000

    def sim(p, v):
        def body(_, pv):
            p, v = pv
            a = (-0.5 * p - 0.2 * v) / mass
            return p + dt * v, v + dt * a

        p, v = jax.lax.fori_loop(0, n_steps, body, (p, v))
        return jnp.sum(p[:, 0] * p[:, 1])

    rev = jax.jit(jax.grad(sim, argnums=(0, 1)))
    direction = tuple(jnp.asarray(d) for d in case.direction())
    fwd = jax.jit(lambda p, v: jax.jvp(sim, (p, v), direction)[1])
    block = jax.block_until_ready
    return PeerImpl(
        lambda p, v: block(rev(p, v)),
        lambda p, v: block(fwd(p, v)),
        tuple(jnp.asarray(a) for a in case.args),
        _version("jax"),
    )


def peer_particles_torch(case):
    import torch
    import torch.func

    dt, mass, n_steps = 0.05, 1.0, 1000

    def sim(p, v):
        for _ in range(n_steps):
            a = (-0.5 * p - 0.2 * v) / mass
            p, v = p + dt * v, v + dt * a
        return torch.sum(p[:, 0] * p[:, 1])

    direction = tuple(torch.tensor(d, dtype=torch.float64) for d in case.direction())

    def reverse(p, v):
        p = p.detach().requires_grad_(True)
        v = v.detach().requires_grad_(True)
        return torch.autograd.grad(sim(p, v), (p, v))

    def forward(p, v):
        return torch.func.jvp(sim, (p, v), direction)[1]

    args = tuple(torch.tensor(a, dtype=torch.float64) for a in case.args)
    return PeerImpl(reverse, forward, args, _version("torch"))


# ----------------------------------------------------------------------------
# timing


def time_call(fn: Callable, args: tuple, quick: bool) -> float:
    """Median per-call seconds over several timeit repeats."""
    timer = timeit.Timer(lambda: fn(*args))
    number, repeat = _autorange(timer, quick), (3 if quick else 7)
    times = timer.repeat(repeat=repeat, number=number)
    return statistics.median(times) / number


def time_interleaved(calls: list, quick: bool) -> list:
    """Median per-call seconds of each ``(fn, args)``, the repeats taken in turn: repeat k of every
    call before repeat k + 1 of any, so that a change of load hits them all alike.  A call that
    raises gets its exception in place of a time."""
    samples = interleaved_samples(calls, quick)
    return [s if isinstance(s, BaseException) else statistics.median(s) for s in samples]


def interleaved_samples(calls: list, quick: bool) -> list:
    """Per-call seconds of each ``(fn, args)`` in every repeat (see ``time_interleaved``), or the
    exception the call raised."""
    timers, numbers = [], []
    for fn, args in calls:
        timer = timeit.Timer(lambda fn=fn, args=args: fn(*args))
        try:
            number = _autorange(timer, quick)
        except Exception as exc:  # noqa: BLE001 - reported in the row
            number = exc
        timers.append(timer)
        numbers.append(number)
    times: list = [[] for _ in calls]
    for _ in range(3 if quick else 9):
        for k, (timer, number) in enumerate(zip(timers, numbers)):
            if not isinstance(number, BaseException):
                times[k].append(timer.timeit(number) / number)
    return [number if isinstance(number, BaseException) else ts for number, ts in zip(numbers, times)]


def _autorange(timer: timeit.Timer, quick: bool) -> int:
    """Calls per repeat: enough for ~20 ms (quick) or ~0.2 s (timeit's autorange)."""
    if not quick:
        return timer.autorange()[0]
    number = 1
    while True:
        t = timer.timeit(number)
        if t >= 0.02 or number >= 10**6:
            return number
        number *= 10 if t < 0.002 else 2


FULL_FD_MAX_INPUTS = 200  # above this, check along a few random directions


def check_hand_written(case: Case) -> str | None:
    """Compare the hand-written vjp/jvp with central finite differences: the
    full Jacobian for small cases; for large ones (thousands of inputs) the
    directional derivative along the case direction and three random
    directions, against <vjp, d> and the jvp."""
    if len(flatten(case.wrt_args())) > FULL_FD_MAX_INPUTS or case.wrt is not None:
        return check_hand_written_directions(case)
    x0 = flatten(case.args)
    template = tuple(case.args)

    def f(vec):
        return flatten(case.primal(*unflatten(template, vec)))

    cols = []
    for i in range(len(x0)):
        h = 1e-6 * max(1.0, abs(x0[i]))
        xp, xm = x0.copy(), x0.copy()
        xp[i] += h
        xm[i] -= h
        cols.append((f(xp) - f(xm)) / (2 * h))
    jac_fd = np.array(cols).T  # (m, n)
    reverse, forward, args = hand_methods(case)
    jac_rev = flatten(reverse(*args)).reshape(jac_fd.shape)
    tan = flatten(forward(*args))
    tan_fd = jac_fd @ flatten(case.direction())
    problems = []
    if not np.allclose(jac_rev, jac_fd, rtol=1e-5, atol=1e-6):
        problems.append(f"hand-written gradient != finite differences (max err {np.abs(jac_rev - jac_fd).max():.3g})")
    problems.append(vjp_problem(case, jac_rev))
    if not np.allclose(tan, tan_fd, rtol=1e-5, atol=1e-6):
        problems.append(f"hand-written jvp != finite differences (max err {np.abs(tan - tan_fd).max():.3g})")
    return "; ".join(p for p in problems if p) or None


def check_hand_written_directions(case: Case) -> str | None:
    """Central differences along directions d in the space of the
    differentiated args: (f(x + h d) - f(x - h d)) / 2h against the
    hand-written jvp along d and against <J^T u, d> from the hand-written
    gradient (or Jacobian rows); then the vjp against the gradient."""
    keep = case.wrt_index()
    wrt_template = case.wrt_args()
    x0 = flatten(wrt_template)
    n = len(x0)

    def f(vec):
        args = list(case.args)
        for i, a in zip(keep, unflatten(wrt_template, vec)):
            args[i] = a
        return flatten(case.primal(*args))

    reverse, forward, args = hand_methods(case)
    jac_rev = flatten(reverse(*args)).reshape(len(case.cotangents()), n)
    rng = np.random.default_rng(1)
    dirs = [flatten(case.direction())] + [rng.standard_normal(n) for _ in range(3)]
    problems = [vjp_problem(case, jac_rev)]
    scale = max(1.0, float(np.abs(x0).max()))
    for k, d in enumerate(dirs):
        h = 1e-6 * scale / max(1.0, float(np.abs(d).max()))
        fd = (f(x0 + h * d) - f(x0 - h * d)) / (2 * h)
        via_rev = jac_rev @ d
        tol = dict(rtol=1e-5, atol=1e-6 * max(1.0, float(np.abs(jac_rev).sum(axis=1).max())))
        if not np.allclose(via_rev, fd, **tol):
            problems.append(f"hand-written gradient . d{k} = {via_rev} but finite differences give {fd}")
        if k == 0:
            tan = flatten(forward(*args))
            if not np.allclose(tan, fd, **tol):
                problems.append(f"hand-written jvp = {tan} but finite differences give {fd}")
    return "; ".join(p for p in problems if p) or None


def short_error(exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {msg[0][:200] if msg else ''}".rstrip(": ")


# ----------------------------------------------------------------------------
# running one case


def run_case(case: Case, quick: bool, use_peers: bool, log, workdir: str | None = None, ref=None) -> dict:
    """Every method on one case, checked and timed; with ``ref`` (the reference harness, see
    reference.py) also the hand-written baseline against the reference's."""
    res: dict[str, Any] = {
        "name": case.name,
        "description": case.description,
        "n_inputs": len(flatten(case.args)),
        "out_dim": case.out_dim or 1,
        "rows": [],
    }
    args = tuple(case.args)
    hand_rev, hand_fwd, _ = hand_methods(case)
    expected_rev = flatten(hand_rev(*args))
    expected_fwd = flatten(hand_fwd(*args))
    rows = res["rows"]

    pending: dict = {}  # rows timed together, interleaved (see time_interleaved)

    def add(method, mode, fn, fargs, expected=None, together=False):
        row = {
            "method": method,
            "mode": mode,
            "status": "ok",
            "seconds": None,
            "error": None,
        }
        rows.append(row)
        try:
            if expected is not None:
                got = flatten(fn(*fargs))
                if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-7, atol=1e-9):
                    row["status"] = "WRONG"
                    row["error"] = f"derivative differs from hand-written: got {got[:7]}, expected {expected[:7]}"
                    log(f"  {method:>12} {mode:8} WRONG")
                    return row
            if together:
                pending[id(row)] = (row, fn, fargs)
                return row
            row["seconds"] = time_call(fn, fargs, quick)
            log(f"  {method:>12} {mode:8} {fmt_time(row['seconds'])}")
        except Exception as exc:  # noqa: BLE001 - any failure is reported, not fatal
            row["status"] = "error"
            row["error"] = short_error(exc)
            log(f"  {method:>12} {mode:8} error: {row['error']}")
        return row

    add("primal", "primal", case.primal, args, together=True)
    add("hand-written", "reverse", hand_rev, args, together=True)
    add("hand-written", "forward", hand_fwd, args, together=True)

    # adcompiler: transformation first (cold), then the derivatives.
    adc = {
        "status": "ok",
        "error": None,
        "transform_ms_first": None,
        "transform_ms_median": None,
    }
    res["adcompiler"] = adc
    try:
        import adcompiler  # noqa: F401
    except Exception as exc:  # noqa: BLE001
        adc["status"] = "unavailable"
        adc["error"] = short_error(exc)
    if adc["status"] == "ok":
        try:
            adc["transform_ms_first"], adc["transform_ms_median"] = transform_times(case, quick)
            f = adc_differentiate(case)
            rev, fwd = adc_methods(case, f)
            rev(*args)
        except Exception as exc:  # noqa: BLE001
            adc["status"] = "unsupported"
            adc["error"] = short_error(exc)
            adc["traceback"] = traceback.format_exc(limit=-3)
    if adc["status"] == "ok":
        add("adcompiler", "reverse", rev, args, expected_rev, together=True)
        add("adcompiler", "forward", fwd, args, expected_fwd, together=True)
    else:
        for mode in ("reverse", "forward"):
            rows.append(
                {
                    "method": "adcompiler",
                    "mode": mode,
                    "status": adc["status"],
                    "seconds": None,
                    "error": adc["error"],
                }
            )
        log(f"    adcompiler {adc['status']}: {adc['error']}")

    if adc["status"] == "ok" and workdir:
        try:
            mrev, mfwd = adc_module_methods(case, workdir)
        except Exception as exc:  # noqa: BLE001
            for mode in ("reverse", "forward"):
                rows.append(
                    {
                        "method": "adc module",
                        "mode": mode,
                        "status": "unsupported",
                        "seconds": None,
                        "error": short_error(exc),
                    }
                )
            log(f"    adc module unsupported: {short_error(exc)}")
        else:
            add("adc module", "reverse", mrev, args, expected_rev, together=True)
            add("adc module", "forward", mfwd, args, expected_fwd, together=True)

    # the primal, the hand-written derivatives and adcompiler's, timed in turn within each repeat
    # (on a shared machine the load drifts: timed one after another, their ratios drift with it)
    for (row, _, _), seconds in zip(pending.values(), time_interleaved([v[1:] for v in pending.values()], quick)):
        if isinstance(seconds, BaseException):
            row["status"], row["error"] = "error", short_error(seconds)
            log(f"  {row['method']:>12} {row['mode']:8} error: {row['error']}")
        else:
            row["seconds"] = seconds
            log(f"  {row['method']:>12} {row['mode']:8} {fmt_time(seconds)}")

    if ref is not None:
        res["reference"] = reference_check(case, ref, quick)
        if res["reference"]:
            log(reference_line(res["reference"]))

    if use_peers:
        for name, builder in (case.peers or DEFAULT_PEERS).items():
            try:
                impl = builder(case)
            except ImportError as exc:
                for mode in ("reverse", "forward"):
                    rows.append(
                        {
                            "method": name,
                            "mode": mode,
                            "status": "not installed",
                            "seconds": None,
                            "error": short_error(exc),
                        }
                    )
                continue
            except Exception as exc:  # noqa: BLE001
                for mode in ("reverse", "forward"):
                    rows.append(
                        {
                            "method": name,
                            "mode": mode,
                            "status": "error",
                            "seconds": None,
                            "error": short_error(exc),
                        }
                    )
                continue
            if impl.reverse is not None:
                add(name, "reverse", impl.reverse, impl.args, expected_rev)
            if impl.forward is not None:
                add(name, "forward", impl.forward, impl.args, expected_fwd)

    # ratios
    by = {(r["method"], r["mode"]): r["seconds"] for r in rows}
    primal_t = by.get(("primal", "primal"))
    for r in rows:
        t = r["seconds"]
        hand_t = by.get(("hand-written", r["mode"]))
        r["vs_primal"] = t / primal_t if t and primal_t else None
        r["vs_hand"] = t / hand_t if t and hand_t else None
    return res


def reference_check(case: Case, ref, quick: bool) -> dict | None:
    """The case's hand-written gradient against the reference harness's ``handgrad.py`` for the same
    program: both on the same numbers (in each one's layout), first compared entry by entry, then
    timed interleaved; the ratio is the median of the repeats' ratios.  None if the reference has no
    such program."""
    part = reference.counterpart_of(case.name)
    if part is None:
        return None
    mine_args = part.case_args(tuple(case.args))
    ref_args = part.args(mine_args)
    ref_grad = part.function(ref)
    out = {"program": "/".join(part.key), "status": "ok", "seconds": None, "reference_seconds": None}
    out.update({"ratio": None, "flagged": False, "error": None})
    try:
        mine, theirs = flatten(case.hand_grad(*mine_args)), flatten(part.grad(ref_grad(*ref_args)))
        if mine.shape != theirs.shape or not np.allclose(mine, theirs, rtol=1e-7, atol=1e-9):
            out["status"], out["error"] = "differs", "the two hand-written gradients disagree"
            return out
        mine_s, ref_s = interleaved_samples([(case.hand_grad, mine_args), (ref_grad, ref_args)], quick)
        for failed in (mine_s, ref_s):
            if isinstance(failed, BaseException):
                raise failed
    except Exception as exc:  # noqa: BLE001 - reported in the table
        out["status"], out["error"] = "error", short_error(exc)
        return out
    out["seconds"], out["reference_seconds"] = statistics.median(mine_s), statistics.median(ref_s)
    # the ratio of each repeat's pair (timed back to back, so under the same load), then their median
    out["ratio"] = statistics.median(a / b for a, b in zip(mine_s, ref_s, strict=True))
    out["flagged"] = out["ratio"] > SLOWER_THAN_REFERENCE
    return out


def reference_line(check: dict) -> str:
    """One log line: 'baseline vs reference: 0.93x', flagged when the baseline is slower."""
    if check["status"] != "ok":
        return f"  baseline vs reference ({check['program']}): {check['status']}: {check['error']}"
    flag = f"  <-- SLOWER than the reference (> {SLOWER_THAN_REFERENCE}x)" if check["flagged"] else ""
    return f"  baseline vs reference ({check['program']}): {check['ratio']:.2f}x{flag}"


def transform_times(case: Case, quick: bool) -> tuple[float, float]:
    """ms adcompiler spends transforming: a fresh ``adcompiler.differentiate(fn)``
    plus its first reverse call (``f.grad``, or one ``f.vjp`` for a vector
    output), which generates and loads the reverse code, minus the median time
    of that same call on the already-built derivative, so that what remains is
    the transformation and not the derivative's own run.  The cotangent is
    built before the clock starts (building it is the harness's work).
    Returns (first, median of the repeats); *first* is the cold one, taken
    before anything else in the process has used adcompiler on this case."""
    args = tuple(case.args)
    ct = case.cotangents()[0]
    if case.out_dim is None:

        def first_reverse(f):
            return f.grad(*args)

    else:

        def first_reverse(f):
            return f.vjp(args, ct)

    totals = []
    for _ in range(3 if quick else 7):
        t0 = time.perf_counter()
        f = adc_differentiate(case)
        first_reverse(f)
        totals.append(time.perf_counter() - t0)
    runs = []
    for _ in range(3):  # f is built and has run once: these calls are the derivative alone
        t0 = time.perf_counter()
        first_reverse(f)
        runs.append(time.perf_counter() - t0)
    run = statistics.median(runs)
    samples = [(t - run) * 1e3 for t in totals]
    return samples[0], statistics.median(samples)


# ----------------------------------------------------------------------------
# reporting


def fmt_time(t: float | None) -> str:
    if t is None:
        return "-"
    if t < 1e-6:
        return f"{t * 1e9:.0f} ns"
    if t < 1e-3:
        return f"{t * 1e6:.2f} µs"
    if t < 1:
        return f"{t * 1e3:.2f} ms"
    return f"{t:.2f} s"


def fmt_ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x" if r < 100 else f"{r:.0f}x"


def machine_info() -> dict:
    pkgs = [
        "adcompiler",
        "numpy",
        "autograd",
        "jax",
        "jaxlib",
        "torch",
        "matplotlib",
        "black",
    ]
    info = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "cpu_count": os.cpu_count(),
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),  # see onethread.py
        "packages": {p: _version(p) or None for p in pkgs},
    }
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        info["git_commit"] = (
            subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
            or None
        )
    except Exception:  # noqa: BLE001
        info["git_commit"] = None
    return info


def run_line(report: dict, git: bool = False) -> str:
    """When, how and where a report was measured: one line under its title."""
    m = report["machine"]
    line = (
        f"{report['timestamp']} · {'quick' if report['quick'] else 'full'} run · "
        f"Python {m['python']} · {m.get('cpu_model') or m['machine']} · {m['cpu_count']} CPUs · {m['platform']}"
    )
    return line + (f" · git {m.get('git_commit') or '?'}" if git else "")


def packages_line(report: dict) -> str:
    return "Packages: " + ", ".join(f"{k} {v}" for k, v in report["machine"]["packages"].items() if v)


def markdown(report: dict) -> str:
    out = [
        "# adcompiler benchmark: straight-line programs (Table 1)",
        "",
        run_line(report),
        "",
        packages_line(report),
        "",
        "Time is the median per-call time. *reverse* = gradient (scalar output) or full Jacobian "
        "by one vjp per output; *forward* = one jvp along a fixed direction. "
        "*vs primal* = time / primal time; *vs hand* = time / hand-written derivative of the same mode.",
        "",
        "| case | method | mode | time per call | vs primal | vs hand | status |",
        "| --- | --- | --- | ---: | ---: | ---: | --- |",
    ]
    notes = []
    for c in report["cases"]:
        for r in c["rows"]:
            status = r["status"]
            if r["error"] and status != "ok":
                if r["error"] not in notes:
                    notes.append(r["error"])
                status += f" [{notes.index(r['error']) + 1}]"
            out.append(
                f"| {c['name']} | {r['method']} | {r['mode']} | {fmt_time(r['seconds'])} | "
                f"{fmt_ratio(r['vs_primal'])} | {fmt_ratio(r['vs_hand'])} | {status} |"
            )
    out += [
        "",
        "## adcompiler transformation time (fresh differentiate + first reverse call, minus one call "
        "of the built derivative)",
        "",
    ]
    out += [
        "| case | first (ms) | median of fresh repeats (ms) | status |",
        "| --- | ---: | ---: | --- |",
    ]
    for c in report["cases"]:
        a = c.get("adcompiler", {})
        first, med = a.get("transform_ms_first"), a.get("transform_ms_median")
        out.append(
            f"| {c['name']} | {'-' if first is None else f'{first:.2f}'} | "
            f"{'-' if med is None else f'{med:.2f}'} | {a.get('status', '-')} |"
        )
    out += reference_markdown(report)
    if notes:
        out += ["", "Notes:", ""]
        out += [f"{i + 1}. `{n}`" for i, n in enumerate(notes)]
    return "\n".join(out) + "\n"


def reference_markdown(report: dict) -> list[str]:
    """The table of the hand-written baselines against the reference harness's (or the note saying
    why there is none)."""
    out = ["", "## Hand-written baselines vs the reference harness's handgrad.py", ""]
    checks = [(c["name"], c.get("reference")) for c in report["cases"] if c.get("reference")]
    if not checks:
        return out + [report["reference"]["note"]]
    out += [
        f"The reverse-mode baseline of each case (`handwritten.py`'s gradient) and the reference's hand-written "
        f"gradient for the same program ({report['reference']['folder']}), on the same numbers, compared entry by "
        f"entry, then timed interleaved. *baseline vs reference* = baseline time / reference time: at most 1x "
        f"means the *vs hand* ratios above are not flattered by a slow baseline; above {SLOWER_THAN_REFERENCE}x "
        f"is flagged.",
        "",
        "| case | reference program | baseline | reference | baseline vs reference | status |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for name, r in checks:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}x" + (" **slower**" if r["flagged"] else "")
        status = r["status"] if r["status"] == "ok" else f"{r['status']}: {r['error']}"
        out.append(
            f"| {name} | {r['program']} | {fmt_time(r['seconds'])} | {fmt_time(r['reference_seconds'])} | "
            f"{ratio} | {status} |"
        )
    return out


CHART_METHODS = ("adcompiler", "adc module", "autograd", "jax", "jax.jit", "torch")
CHART_COLORS = ("tab:blue", "tab:cyan", "tab:green", "tab:orange", "tab:red", "tab:purple")


def plot(report: dict, path: str) -> bool:
    """A PNG beside the table: one panel per mode (reverse, forward), one group of horizontal bars per
    case, one bar per method (adcompiler's API and written module, then the peers), drawn from the
    line at 1x to time / hand-written time on a log scale.  False if matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, LogLocator
    except Exception:  # noqa: BLE001
        return False
    cases = report["cases"]
    seen = {r["method"] for c in cases for r in c["rows"] if r["status"] != "not installed"}
    methods = [m for m in CHART_METHODS if m in seen]
    fig, axes = plt.subplots(1, 2, figsize=(14, 1.6 + 0.55 * len(cases)), sharey=True, squeeze=False)
    for ax, mode in zip(axes[0], ("reverse", "forward")):
        _plot_mode(ax, cases, methods, mode)
        low, high = ax.get_xlim()
        wide = math.log10(high / low) > 4  # more than 4 decades: label the powers of 10 only
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0,) if wide else (1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}x"))
        ax.xaxis.set_minor_formatter(FuncFormatter(lambda x, _: ""))
    axes[0][0].set_yticks(range(len(cases)), [c["name"] for c in cases], fontsize=8)
    axes[0][0].invert_yaxis()
    handles = [plt.Rectangle((0, 0), 1, 1, color=CHART_COLORS[CHART_METHODS.index(m)]) for m in methods]
    fig.legend(handles, methods, loc="upper center", ncol=len(methods), fontsize=9, frameon=False)
    fig.suptitle(
        f"time / hand-written derivative (log scale; left of the line: faster than by hand) · {run_line(report)}",
        fontsize=8,
        y=0.005,
        va="bottom",
    )
    fig.tight_layout(rect=(0, 0.02, 1, 0.97))
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def _plot_mode(ax, cases: list, methods: list, mode: str) -> None:
    """One panel: the bars of ``mode`` (see ``plot``); a method with no time says why in small red text."""
    height = 0.8 / max(1, len(methods))
    for k, method in enumerate(methods):
        color = CHART_COLORS[CHART_METHODS.index(method)]
        for i, c in enumerate(cases):
            y = i - 0.4 + (k + 0.5) * height
            row = next((r for r in c["rows"] if r["method"] == method and r["mode"] == mode), None)
            if row is None:
                continue
            if row["vs_hand"]:
                ratio = row["vs_hand"]
                ax.barh(y, ratio - 1.0, height=height, color=color, left=1.0)  # from the 1x line
                left = ratio < 1.0  # a bar left of the line gets its label on its left
                x = ratio / 1.04 if left else ratio * 1.04
                ax.text(x, y, fmt_ratio(ratio), va="center", ha="right" if left else "left", fontsize=6)
            elif row["status"] not in ("ok", "not installed"):
                ax.text(1.05, y, f"{method}: {row['status']}", va="center", fontsize=6, color="tab:red")
    ratios = [r["vs_hand"] for c in cases for r in c["rows"] if r["mode"] == mode and r["vs_hand"]]
    ax.set_xscale("log")
    ax.set_xlim(min([0.5] + ratios) / 2.5, max([4.0] + ratios) * 2.5)  # room for the labels
    ax.axvline(1.0, color="black", linewidth=1)
    ax.grid(axis="x", which="major", alpha=0.3)
    ax.set_xlabel("time / hand-written " + ("gradient" if mode == "reverse" else "jvp"))
    ax.set_title("reverse mode: gradient (rotate: 3x7 Jacobian)" if mode == "reverse" else "forward mode: one jvp")


# ----------------------------------------------------------------------------


def load_reference(folder: str | None):
    """(the reference harness or None, a sentence saying which, or why not)."""
    if not folder:
        return None, "reference harness not found (../shared/peers): baselines not timed against it"
    try:
        ref = reference.load(folder)
    except Exception as exc:  # noqa: BLE001 - the check is skipped, with the reason
        return None, f"reference harness not loaded from {folder} ({short_error(exc)}): baselines not timed against it"
    return ref, f"reference harness: {ref.folder} (hand-written baselines timed against its handgrad.py)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help="short timings (3 repeats of ~20 ms); the problem sizes stay the paper's",
    )
    ap.add_argument("--no-peers", action="store_true", help="skip autograd / jax / torch")
    ap.add_argument("--case", action="append", help="run only this case (repeatable)")
    options.add_out(ap)
    options.add_reference(ap, reference.default_dir(), " to time the hand-written baselines against")
    options.add_strict(ap, "any derivative is WRONG")
    ns = ap.parse_args(argv)

    def log(msg):
        print(msg, flush=True)

    ref, ref_note = load_reference(ns.reference)
    log(ref_note)

    cases = make_cases(ns.quick)
    if ns.case:
        cases = [c for c in cases if c.name in ns.case]
        if not cases:
            ap.error(f"no such case; known: {[c.name for c in make_cases(ns.quick)]}")

    bad = False
    for c in cases:
        problem = check_hand_written(c)
        if problem:
            log(f"hand-written derivative check FAILED for {c.name}: {problem}")
            bad = True
    if bad:
        return 2
    log(f"hand-written derivatives agree with finite differences ({len(cases)} cases)")

    started = time.perf_counter()
    report = {
        "timestamp": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ"),
        "quick": ns.quick,
        "machine": machine_info(),
        "reference": {"folder": ref.folder if ref else None, "note": ref_note},
        "cases": [],
    }
    with tempfile.TemporaryDirectory(prefix="adc_bench_") as workdir:
        for c in cases:
            log(f"{c.name}: {c.description}")
            report["cases"].append(run_case(c, ns.quick, not ns.no_peers, log, workdir, ref))
    report["wall_seconds"] = time.perf_counter() - started

    os.makedirs(ns.out, exist_ok=True)
    with open(os.path.join(ns.out, "latest.json"), "w") as fh:
        json.dump(report, fh, indent=2, default=str)
    md = markdown(report)
    with open(os.path.join(ns.out, "latest.md"), "w") as fh:
        fh.write(md)
    png = os.path.join(ns.out, "latest.png")
    wrote_png = plot(report, png)
    log("")
    log(md)
    log(f"wrote {os.path.join(ns.out, 'latest.json')}, latest.md" + (", latest.png" if wrote_png else ""))
    wrong = any(r["status"] == "WRONG" for c in report["cases"] for r in c["rows"])
    return 1 if (wrong and ns.strict) else 0


# ----------------------------------------------------------------------------
# NumPy cases: the Table-1 programs on arrays (samples/paper_numpy.py), with
# the vectorised hand-written adjoints/tangents of handwritten.py.  Added to
# the cases of ``make_cases`` (defined above) by the wrapper below.


def make_numpy_cases(quick: bool) -> list[Case]:
    """dot_np_N, sum_mat_vec_np_N, neural_np_50_100_50,
    neural_weighted_np_50_100_50 and particles_np_4x1000, at the paper's sizes."""
    rng = np.random.default_rng(0)

    def dot_case(n):
        return Case(
            name=f"dot_np_{n}",
            description=f"np.dot of two {n}-element arrays, gradient",
            primal=programs.dot_np,
            args=(rng.standard_normal(n), rng.standard_normal(n)),
            hand_vjp=handwritten.dot_np_vjp,
            hand_jvp=handwritten.dot_np_jvp,
            hand_grad=handwritten.dot_np_grad,
            peers=dot_peers(),
        )

    def matvec_case(n):
        return Case(
            name=f"sum_mat_vec_np_{n}",
            description=f"np.sum(m @ v), m an ({n}, {n}) array, gradient",
            primal=programs.sum_mat_vec_np,
            args=(rng.standard_normal((n, n)), rng.standard_normal(n)),
            hand_vjp=handwritten.sum_mat_vec_np_vjp,
            hand_jvp=handwritten.sum_mat_vec_np_jvp,
            hand_grad=handwritten.sum_mat_vec_np_grad,
            peers=matvec_peers(),
        )

    layers, x, out_w = programs.neural_inputs_np(0, [50, 100, 50])
    ps, vs = programs.particles_input_np(4)
    net_peers = {
        "autograd": peer_neural_np_autograd,
        "jax.jit": peer_neural_jax_jit,
        "torch": peer_neural_torch,
    }
    return [
        dot_case(1000),
        dot_case(100000),
        matvec_case(100),
        matvec_case(300),
        Case(
            name="neural_np_50_100_50",
            description="dense ReLU network 50-100-50 on arrays, safe softmax, sum of outputs (gradient ~0), gradient",
            primal=programs.neural_np,
            args=(layers, x),
            hand_vjp=handwritten.neural_np_vjp,
            hand_jvp=handwritten.neural_np_jvp,
            hand_grad=handwritten.neural_np_grad,
            peers=net_peers,
        ),
        Case(
            name="neural_weighted_np_50_100_50",
            description="the same network on arrays, weighted sum of outputs, gradient wrt (layers, x)",
            primal=programs.neural_weighted_np,
            args=(layers, x, out_w),
            wrt=("layers", "x"),
            hand_vjp=handwritten.neural_weighted_np_vjp,
            hand_jvp=handwritten.neural_weighted_np_jvp,
            hand_grad=handwritten.neural_weighted_np_grad,
            peers=net_peers,
        ),
        Case(
            name="particles_np_4x1000",
            description="4 particles x 1000 explicit-Euler steps on (4, 2) arrays, sum of x*y, gradient",
            primal=programs.particles_np,
            args=(ps, vs),  # n_steps: its default, 1000
            wrt=("ps", "vs"),
            hand_vjp=handwritten.particles_np_vjp,
            hand_jvp=handwritten.particles_np_jvp,
            hand_grad=handwritten.particles_np_grad,
            peers={
                "autograd": peer_particles_np_autograd,
                "jax.jit": peer_particles_jax_jit,
                "torch": peer_particles_torch,
            },
        ),
    ]


def peer_neural_np_autograd(case):
    """autograd on the same array network (reverse mode only)."""
    import autograd
    import autograd.numpy as anp

    weighted = len(case.args) == 3
    net = _neural_np(anp, anp.where, weighted)
    g = autograd.grad(net, argnum=(0, 1))
    return PeerImpl(g, None, _neural_args(case, np.asarray), _version("autograd"))


def peer_particles_np_autograd(case):
    import autograd
    import autograd.numpy as anp

    dt, mass, n_steps = 0.05, 1.0, 1000

    def sim(p, v):
        for _ in range(n_steps):
            a = (-0.5 * p - 0.2 * v) / mass
            p, v = p + dt * v, v + dt * a
        return anp.sum(p[:, 0] * p[:, 1])

    g = autograd.grad(sim, argnum=(0, 1))
    return PeerImpl(g, None, tuple(np.asarray(a) for a in case.args), _version("autograd"))


_make_scalar_cases = make_cases


def make_cases(quick: bool) -> list[Case]:  # noqa: F811  (the scalar cases, then the NumPy ones)
    return _make_scalar_cases(quick) + make_numpy_cases(quick)


if __name__ == "__main__":
    sys.exit(main())
