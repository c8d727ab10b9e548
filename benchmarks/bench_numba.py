"""backend="numba" on the Table 1 programs of ../shared/peers/programs.py (lists and NumPy variants).

For each program: the @njit-compiled primal, the gradient (reverse) and jvp (forward) of
``differentiate(f, backend="numba")``, a hand-written adjoint compiled with @njit (written here for
arrays; ../shared/peers/handgrad.py's own adjoint compiled the same way where Numba takes it), and
the CPython gradient of ``backend="python"``.  Times are the best of several runs of a call,
compile time (generation and Numba's compilation: the first call) apart.  The derivative's time is
given twice: through the entry (lists converted to arrays and the result back to lists) and the
compiled code alone on the converted arguments, which is what the primal's time is measured on.

    python benchmarks/bench_numba.py [--peers ../shared/peers] [--quick]
"""

from __future__ import annotations

import onethread  # noqa: F401  (first: BLAS on one thread, before NumPy is imported)

import argparse
import inspect
import os
import re

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
import sys
import time
import tracemalloc
import types

import numba
import numpy as np

from timing import best

import adcompiler
from adcompiler.targets.numba.values import convert

HERE = os.path.dirname(os.path.abspath(__file__))


# ---- hand-written adjoints, for arrays (what the lists reach compiled code as) ---------------------


def hand_dot(xs, ys):
    return ys.copy(), xs.copy()


def hand_sum_mat_vec(M, v):
    dM = np.empty_like(M)
    dv = np.zeros_like(v)
    for i in range(M.shape[0]):
        for j in range(v.shape[0]):
            dM[i, j] = v[j]
            dv[j] += M[i, j]
    return dM, dv


def make_hand_particles(steps, dt, k, friction, mass):
    def hand_particles(state):
        cp = -dt * k / mass
        cv = 1.0 - dt * friction / mass
        out = np.empty_like(state)
        for n in range(state.shape[0]):
            px, py, vx, vy = state[n, 0], state[n, 1], state[n, 2], state[n, 3]
            for _ in range(steps):
                ax = (1.0 / mass) * (-k * px - friction * vx)
                ay = (1.0 / mass) * (-k * py - friction * vy)
                px, py = px + dt * vx, py + dt * vy
                vx, vy = vx + dt * ax, vy + dt * ay
            dpx, dpy, dvx, dvy = py, px, 0.0, 0.0
            for _ in range(steps):
                dpx, dvx = dpx + cp * dvx, dt * dpx + cv * dvx
                dpy, dvy = dpy + cp * dvy, dt * dpy + cv * dvy
            out[n, 0], out[n, 1], out[n, 2], out[n, 3] = dpx, dpy, dvx, dvy
        return out

    return hand_particles


def hand_neural_check_np(layers, x):
    hs = []
    zs = []
    h = x
    for W, b in layers:
        z = W @ h + b
        hs.append(h)
        zs.append(z)
        h = np.maximum(z, 0.0)
    e = np.exp(h - max(np.max(h), 0.0))
    out = e / np.sum(e)
    dout = np.arange(1.0, out.shape[0] + 1.0)
    dh = out * (dout - np.dot(out, dout))
    grads = []
    for l in range(len(layers) - 1, -1, -1):
        dz = np.where(zs[l] >= 0.0, dh, 0.0)
        grads.append((np.outer(dz, hs[l]), dz))
        dh = layers[l][0].T @ dz
    return grads, dh


# ---- hand-written tangents (value and jvp in one function), the forward mode's baseline ----------


def tangent_scalar_mult(x, y, dx, dy):
    return x * y, dx * y + x * dy


def tangent_dot(xs, ys, dxs, dys):
    """One loop reading each of the four arrays once."""
    s = 0.0
    ds = 0.0
    for i in range(xs.shape[0]):
        s += xs[i] * ys[i]
        ds += dxs[i] * ys[i] + xs[i] * dys[i]
    return s, ds


def tangent_dot_np(xs, ys, dxs, dys):
    """Three BLAS dot products (quicker than tangent_dot's loop, which Numba does not vectorise)."""
    return np.dot(xs, ys), np.dot(dxs, ys) + np.dot(xs, dys)


def tangent_sum_mat_vec(M, v, dM, dv):
    s = 0.0
    ds = 0.0
    for i in range(M.shape[0]):
        for j in range(v.shape[0]):
            s += M[i, j] * v[j]
            ds += dM[i, j] * v[j] + M[i, j] * dv[j]
    return s, ds


def tangent_sum_mat_vec_np(M, v, dM, dv):
    return np.sum(np.dot(M, v)), np.sum(np.dot(dM, v) + np.dot(M, dv))


def tangent_neural_check_np(layers, x, dlayers, dx):
    h, dh = x, dx
    for l in range(len(layers)):
        W, b = layers[l]
        dW, db = dlayers[l]
        z = np.dot(W, h) + b
        dz = np.dot(dW, h) + np.dot(W, dh) + db
        h, dh = np.maximum(z, 0.0), np.where(z > 0.0, dz, 0.0)
    top = np.max(h)
    m, dm = (top, dh[np.argmax(h)]) if top > 0.0 else (0.0, 0.0)
    e = np.exp(h - m)
    de = e * (dh - dm)
    total = np.sum(e)
    out = e / total
    dout = (de - out * np.sum(de)) / total
    w = np.arange(1.0, out.shape[0] + 1.0)
    return np.sum(w * out), np.sum(w * dout)


def make_tangent_particles(steps, dt, k, friction, mass):
    def tangent_particles(state, dstate):
        """A scalar loop per particle, its tangent beside it (no array made)."""
        s = 0.0
        ds = 0.0
        for n in range(state.shape[0]):
            px, py, vx, vy = state[n, 0], state[n, 1], state[n, 2], state[n, 3]
            dpx, dpy, dvx, dvy = dstate[n, 0], dstate[n, 1], dstate[n, 2], dstate[n, 3]
            for _ in range(steps):
                ax = (1.0 / mass) * (-k * px - friction * vx)
                ay = (1.0 / mass) * (-k * py - friction * vy)
                dax = (1.0 / mass) * (-k * dpx - friction * dvx)
                day = (1.0 / mass) * (-k * dpy - friction * dvy)
                px, py, dpx, dpy = px + dt * vx, py + dt * vy, dpx + dt * dvx, dpy + dt * dvy
                vx, vy, dvx, dvy = vx + dt * ax, vy + dt * ay, dvx + dt * dax, dvy + dt * day
            s += px * py
            ds += dpx * py + px * dpy
        return s, ds

    return tangent_particles


def njit_with_callees(fn):
    """``fn`` compiled by @njit, with every function of its module it calls compiled too."""
    scope = dict(fn.__globals__)
    plain = {k: v for k, v in scope.items() if isinstance(v, types.FunctionType) and v.__module__ == fn.__module__}
    for name, f in plain.items():
        scope[name] = numba.njit(types.FunctionType(f.__code__, scope, name))
    return scope[fn.__name__]


def reference_adjoint(handgrad, name: str):
    """handgrad.py's adjoint ``name`` compiled by @njit; where Numba refuses ``np.concatenate`` of a
    list (``grad_particles_np``), the same code with a tuple, the one change it takes (reported as is)."""
    fn = getattr(handgrad, name)
    source = inspect.getsource(fn)
    edited = re.sub(r"np\.concatenate\(\[([^\]]*)\]", r"np.concatenate((\1)", source)
    if edited == source:
        return numba.njit(fn)
    scope = dict(fn.__globals__)
    exec(edited, scope)
    return numba.njit(scope[name])


def cases(P, quick: bool):
    """(name, function, arguments, hand adjoint on converted arguments, handgrad.py's name)."""
    n_dot, n_mat = (1000, 30) if quick else (100000, 300)
    particles = make_hand_particles(P.PARTICLE_STEPS, P.DT, P.FORCE_K, P.FRICTION, P.MASS)
    layers, x = P.inputs_neural()
    layers_np = [(np.array(W), np.array(b)) for W, b in layers]
    state = P.inputs_particles()[0]
    tangent_particles = make_tangent_particles(P.PARTICLE_STEPS, P.DT, P.FORCE_K, P.FRICTION, P.MASS)
    TANGENTS.update(particles=tangent_particles, particles_np=tangent_particles, dot=tangent_dot)
    return [
        ("scalar_mult", P.scalar_mult, P.inputs_scalar_mult(), lambda x, y: (y, x), "grad_scalar_mult"),
        ("dot", P.dot, P.inputs_dot(n_dot), hand_dot, None),
        ("dot_np", P.dot_np, tuple(map(np.array, P.inputs_dot(n_dot))), hand_dot, "grad_dot_np"),
        ("sum_mat_vec", P.sum_mat_vec, P.inputs_sum_mat_vec(n_mat), hand_sum_mat_vec, None),
        ("sum_mat_vec_np", P.sum_mat_vec_np, tuple(map(np.array, P.inputs_sum_mat_vec(n_mat))), hand_sum_mat_vec, None),
        ("neural_check", P.neural_check, (layers, x), None, None),
        ("neural_check_np", P.neural_check_np, (layers_np, np.array(x)), hand_neural_check_np, "grad_neural_check_np"),
        ("particles", P.particles, (state,), particles, "grad_particles"),
        ("particles_np", P.particles_np, (np.array(state),), particles, "grad_particles_np"),
    ]


TANGENTS = {
    "scalar_mult": tangent_scalar_mult,
    "dot_np": tangent_dot_np,
    "sum_mat_vec": tangent_sum_mat_vec,
    "sum_mat_vec_np": tangent_sum_mat_vec_np,
    "neural_check_np": tangent_neural_check_np,
}  # the rest added by cases()


def run(peers: str, quick: bool, only=()) -> list:
    sys.path.insert(0, peers)
    import handgrad
    import programs as P

    rows = []
    for name, fn, args, hand, theirs in cases(P, quick):
        if only and name not in only:
            continue
        row = {"program": name}
        d = adcompiler.differentiate(fn, backend="numba")
        converted = tuple(map(convert, args))
        primal = njit_with_callees(fn)
        try:
            row["primal"] = best(lambda: primal(*converted))
        except numba.core.errors.TypingError as e:
            row["primal"] = float("nan")
            row["primal refused"] = str(e).splitlines()[1][:80]
        start = time.perf_counter()
        try:
            d.grad(*args)
        except SyntaxError as e:  # outside the target: reported, not timed
            row["refused"] = str(e).split(" is not supported")[0]
            rows.append(row)
            continue
        row["compile grad"] = time.perf_counter() - start
        core = next(iter(d._compiled_for.values()))["grad"].compiled
        row["grad"] = best(lambda: d.grad(*args))
        row["grad core"] = best(lambda: core(*converted))
        tangents = args
        start = time.perf_counter()
        d.jvp(args, tangents)
        row["compile jvp"] = time.perf_counter() - start
        row["jvp"] = best(lambda: d.jvp(args, tangents))
        forward = next(iter(d._compiled_for.values()))["forward"].compiled
        converted_t = tuple(map(convert, tangents))
        row["jvp core"] = best(lambda: forward(*converted, *converted_t))
        if name in TANGENTS:
            compiled_tangent = numba.njit(TANGENTS[name])
            want = forward(*converted, *converted_t)
            got = compiled_tangent(*converted, *converted_t)
            assert np.allclose(got, want, rtol=1e-9), (name, got, want)  # the baseline computes the same
            row["hand jvp"] = best(lambda: compiled_tangent(*converted, *converted_t))
        if hand is not None:
            compiled_hand = numba.njit(hand)
            row["hand"] = best(lambda: compiled_hand(*converted))
        if theirs is not None:
            try:
                compiled_theirs = reference_adjoint(handgrad, theirs)
                compiled_theirs(*converted)
                row["handgrad.py"] = best(lambda: compiled_theirs(*converted))
            except Exception as e:  # Numba does not compile it: said, not hidden
                row["handgrad.py"] = f"not compiled ({type(e).__name__})"
        python = adcompiler.differentiate(fn)
        row["cpython grad"] = best(lambda: python.grad(*args), repeat=3)
        tracemalloc.start()
        d.grad(*args)
        row["peak MB (Python side)"] = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        rows.append(row)
    return rows


def run_hessians(peers: str) -> str:
    """hessian and hvp of backend="numba" against backend="python" (compiled forward over reverse)."""
    sys.path.insert(0, peers)
    import programs as P

    state = P.inputs_particles()[0]
    out = []
    for name, fn, args in [
        ("scalar_mult", P.scalar_mult, P.inputs_scalar_mult()),
        ("particles", P.particles, (state,)),
        ("sum_mat_vec (n = 10)", P.sum_mat_vec, P.inputs_sum_mat_vec(10)),
        ("particles_np", P.particles_np, (np.array(state),)),
    ]:
        compiled, python = adcompiler.differentiate(fn, backend="numba"), adcompiler.differentiate(fn)
        start = time.perf_counter()
        h = adcompiler.hessian_matrix(compiled)(*args)
        took = time.perf_counter() - start
        v = np.linspace(-1.0, 1.0, h.shape[0])
        times = [
            best(lambda d=d: adcompiler.hessian_matrix(d)(*args), repeat=repeat) * 1e6
            for d, repeat in ((compiled, 5), (python, 3))
        ]
        times += [best(lambda d=d: adcompiler.hvp(d)(args, v), repeat=5) * 1e6 for d in (compiled, python)]
        out.append(
            f"{name:22s} n {h.shape[0]:4d}  hessian numba {times[0]:10.1f} us  python {times[1]:10.1f} us"
            f"  hvp numba {times[2]:9.1f} us  python {times[3]:9.1f} us  compile {took:.2f} s"
        )
    return "\n".join(out)


def report(rows: list) -> str:
    out = []
    for r in rows:
        if "refused" in r:
            primal = r.get("primal refused") or f"{r['primal'] * 1e6:9.2f} us"
            out.append(f"{r['program']:16s} @njit primal: {primal}\n{'':16s} backend='numba': {r['refused']}")
            continue
        us = {k: v * 1e6 for k, v in r.items() if isinstance(v, float) and "MB" not in k and "compile" not in k}
        ratios = f"grad/primal {r['grad core'] / r['primal']:5.2f}  jvp/primal {r['jvp core'] / r['primal']:5.2f}"
        if "hand" in r:
            ratios += f"  grad/hand {r['grad core'] / r['hand']:5.2f}"
        if "hand jvp" in r:
            ratios += f"  jvp/hand jvp {r['jvp core'] / r['hand jvp']:5.2f}"
        if isinstance(r.get("handgrad.py"), float):
            ratios += f"  grad/handgrad.py {r['grad core'] / r['handgrad.py']:5.2f}"
        out.append(
            f"{r['program']:16s} "
            + "  ".join(f"{k} {v:9.2f} us" for k, v in us.items())
            + f"\n{'':16s} {ratios}  speed-up over CPython grad {r['cpython grad'] / r['grad']:7.1f}x"
            + f"  compile grad {r['compile grad']:.2f} s, jvp {r['compile jvp']:.2f} s"
            + f"  peak {r['peak MB (Python side)']:.2f} MB  handgrad.py {r.get('handgrad.py', '-')!s:.24}"
        )
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", default=os.path.join(HERE, "..", "..", "shared", "peers"))
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("-p", "--program", action="append", default=[], help="only this program (repeatable)")
    parser.add_argument("--hessian", action="store_true", help="hessian and hvp against backend='python'")
    options = parser.parse_args(argv)
    if options.hessian:
        return print(run_hessians(os.path.abspath(options.peers)))
    print(report(run(os.path.abspath(options.peers), options.quick, options.program)))


if __name__ == "__main__":
    main()
