"""What adcompiler's GradBench tool runs for each eval: JSON input to NumPy, the call, NumPy to JSON.

``functions(eval, backend)`` gives ``{function name: protocol.Function}`` for one GradBench
module.  The derivatives are made
with ``adcompiler.differentiate(..., backend=backend)`` and the functions of functions in
``adcompiler`` (``jacobian``, ``hvp``), as a user of the library writes them.

The primal under ``backend="numba"`` is the eval module's function compiled by ``numba.njit``
where Numba takes it (its first call compiles it), else the plain Python function; the response
says which (``primal_kind``).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

import numpy as np
from evals import PEERS_FORMULATION
from protocol import Function

import adcompiler

BA_NCAMPARAMS = 11


def eval_module(name: str):
    """The eval's plain NumPy module, ``evals.<name>``."""
    return importlib.import_module(f"evals.{name}")


def primal(fn: Callable, backend: str) -> tuple[Callable, dict]:
    """``fn`` as the primal runs on ``backend``: under Numba, ``fn`` compiled by ``numba.njit`` with
    every function of its module compiled too (as a Numba user decorates each), when Numba takes it
    (tried at the first call), else ``fn``; ``notes["primal_kind"]`` says which ran."""
    notes = {"primal_kind": "python"}
    if backend != "numba":
        return fn, notes
    compiled = njit_module(fn.__module__)[fn.__name__]
    state = {"call": None}

    def call(*args):
        if state["call"] is None:
            try:
                value = compiled(*args)
                state["call"] = compiled
                notes["primal_kind"] = "numba"
                return value
            except Exception as e:  # noqa: BLE001 - Numba's typing errors have many classes
                state["call"] = fn
                notes["primal_kind"] = "python"
                notes["numba_primal_refused"] = numba_reason(str(e))
        return state["call"](*args)

    return call, notes


_NJIT_MODULES: dict[str, dict] = {}


def njit_module(name: str) -> dict:
    """A copy of the module's namespace in which each function it defines is ``numba.njit`` of
    itself: the module is executed again into a new dict, so the module adcompiler reads is
    untouched."""
    if name not in _NJIT_MODULES:
        import inspect
        import sys
        import types

        import numba

        module = importlib.import_module(name)
        copy = types.ModuleType(f"{name}__njit")
        copy.__file__ = module.__file__
        sys.modules[copy.__name__] = copy  # (Numba links a recursive function through its module)
        namespace = copy.__dict__
        exec(compile(inspect.getsource(module), module.__file__, "exec"), namespace)
        for key, value in list(namespace.items()):
            if isinstance(value, types.FunctionType) and value.__module__ == namespace["__name__"]:
                namespace[key] = numba.njit(value)
        _NJIT_MODULES[name] = namespace
    return _NJIT_MODULES[name]


def numba_reason(message: str) -> str:
    """The informative line of a Numba typing error (its first line only names the pipeline step)."""
    keys = (
        "No implementation of function",
        "Untyped global name",
        "Unknown attribute",
        "Cannot determine Numba type",
        "Use of unsupported",
        "non-precise type",
        "Cannot unify",
        "Invalid use of",
        "NameError",
        "not supported",
    )
    for line in message.splitlines():
        if any(k in line for k in keys):
            return line.strip()[:300]
    return first_line(message)


def first_line(message: str) -> str:
    """The first non-empty line of an error message."""
    for line in message.splitlines():
        if line.strip():
            return line.strip()
    return message.strip()


def floats(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def tolist(x) -> Any:
    return np.asarray(x, dtype=np.float64).tolist()


# ---------------------------------------------------------------------------------------------- evals


def lse(backend: str) -> dict[str, Function]:
    m = eval_module("lse")
    p, notes = primal(m.logsumexp, backend)
    d = adcompiler.differentiate(m.logsumexp, backend=backend)
    prepare = lambda raw: (floats(raw["x"]),)  # noqa: E731
    return {
        "primal": Function(prepare, p, float, notes),
        "gradient": Function(prepare, d.grad, tolist),
    }


def det(backend: str) -> dict[str, Function]:
    m = eval_module("det")
    p, notes = primal(m.det, backend)
    d = adcompiler.differentiate(m.det, backend=backend)
    prepare = lambda raw: (floats(raw["A"]).reshape(raw["ell"], raw["ell"]),)  # noqa: E731
    return {
        "primal": Function(prepare, p, float, notes),
        "gradient": Function(prepare, d.grad, lambda g: tolist(np.ravel(g))),
    }


def llsq(backend: str) -> dict[str, Function]:
    m = eval_module("llsq")
    p, notes = primal(m.llsq, backend)
    d = adcompiler.differentiate(m.llsq, wrt=("x",), backend=backend)
    prepare = lambda raw: (floats(raw["x"]), int(raw["n"]))  # noqa: E731
    return {
        "primal": Function(prepare, p, float, notes),
        "gradient": Function(prepare, d.grad, tolist),
    }


def ode(backend: str) -> dict[str, Function]:
    m = eval_module("ode")
    p, notes = primal(m.solve, backend)
    d = adcompiler.differentiate(m.last, wrt=("x",), backend=backend)
    prepare = lambda raw: (floats(raw["x"]), int(raw["s"]))  # noqa: E731
    return {
        "primal": Function(prepare, p, tolist, notes),
        "gradient": Function(prepare, d.grad, tolist),
    }


def kmeans(backend: str, peers: bool = False) -> dict[str, Function]:
    """The eval's functions; ``peers``: on the matrix-product expansion GradBench's JAX and PyTorch
    tools use (``evals/kmeans.py`` ``cost_matmul``)."""
    m = eval_module("kmeans")
    fn = m.cost_matmul if peers else m.cost
    p, notes = primal(fn, backend)
    d = adcompiler.differentiate(fn, wrt=("centroids",), backend=backend)
    made: dict = {}

    def direction(points, centroids):
        # The gradient and H 1 (H is diagonal) from one forward pass over the gradient code, as GradBench's
        # JAX tool takes both from jax.jvp of jax.grad: the derivative of d.grad, made once (for the
        # signature of d's first call), then called as it is (adcompiler.jvp(functools.partial(d.grad,
        # points), ...) is the same code through the functional API, which binds the arguments each call).
        g = made.get("g")
        if g is None:
            d.grad(points, centroids)
            g = made["g"] = adcompiler.differentiate(d.grad, wrt=("centroids",), backend=backend)
        gradient, hessian_diagonal = g.jvp((points, centroids), (np.ones_like(centroids),))
        return gradient / hessian_diagonal

    prepare = lambda raw: (floats(raw["points"]), floats(raw["centroids"]))  # noqa: E731
    return {
        "cost": Function(prepare, p, float, notes),
        "dir": Function(prepare, direction, tolist),
    }


def gmm(backend: str) -> dict[str, Function]:
    m = eval_module("gmm")
    p, notes = primal(m.log_posterior, backend)
    d = adcompiler.differentiate(m.log_posterior, wrt=("alpha", "mu", "q", "l"), backend=backend)

    def prepare(raw):
        return (
            floats(raw["alpha"]),
            floats(raw["mu"]),
            floats(raw["q"]),
            floats(raw["l"]).reshape(raw["k"], raw["d"] * (raw["d"] - 1) // 2),
            floats(raw["x"]),
            float(raw["gamma"]),
            int(raw["m"]),
        )

    def post(g):
        alpha, mu, q, l = g
        return {"alpha": tolist(alpha), "mu": tolist(mu), "q": tolist(q), "l": tolist(l)}

    return {
        "objective": Function(prepare, p, float, notes),
        "jacobian": Function(prepare, d.grad, post),
    }


def ba_inputs(raw) -> tuple:
    """The eval's one camera, point, weight and feature repeated as ADBench does (``p``
    observations, camera i % n and point i % m for observation i)."""
    n, m, p = raw["n"], raw["m"], raw["p"]
    cams = np.tile(floats(raw["cam"]), (n, 1))
    X = np.tile(floats(raw["x"]), (m, 1))
    w = np.full(p, float(raw["w"]))
    feats = np.tile(floats(raw["feat"]), (p, 1))
    obs = np.stack((np.arange(p) % n, np.arange(p) % m), axis=1)
    return cams, X, w, obs, feats


def ba(backend: str, peers: bool = False) -> dict[str, Function]:
    """The eval's functions; ``peers``: on the observations batched into arrays (``evals/ba.py``
    ``reproj_errs``), as GradBench's JAX tool batches its one-observation function with ``jax.vmap``."""
    mod = eval_module("ba")
    if peers:
        return _ba_batched(mod, backend)
    p_objective, notes = primal(mod.objective, backend)
    d_reproj = adcompiler.differentiate(mod.reproj_err, wrt=("cam", "X", "w"), backend=backend)
    reproj_jacobian = adcompiler.jacobian(d_reproj)
    d_w = adcompiler.differentiate(mod.w_err, backend=backend)

    blocks = _ba_blocks_compiled(d_reproj, d_w) if backend == "numba" else None

    def jacobian(cams, X, w, obs, feats):
        """The sparse Jacobian of (reprojection errors, weight errors) as ADBench's BASparseMat:
        row starts, column indices and values, each observation a 2 x 15 block."""
        n, m, p = len(cams), len(X), len(w)
        block = BA_NCAMPARAMS + 3 + 1
        if blocks is not None:
            return _ba_sparse(n, m, obs, *blocks(cams, X, w, obs, feats))
        rows = [0]
        cols, vals = [], []
        for j in range(p):
            cam, pt = obs[j]
            J = reproj_jacobian(cams[cam], X[pt], w[j], feats[j])  # (2, 15): cam, X, w
            columns = list(range(BA_NCAMPARAMS * cam, BA_NCAMPARAMS * (cam + 1)))
            columns += list(range(BA_NCAMPARAMS * n + 3 * pt, BA_NCAMPARAMS * n + 3 * pt + 3))
            columns.append(BA_NCAMPARAMS * n + 3 * m + j)
            for i_row in range(2):
                rows.append(rows[-1] + block)
                cols.extend(columns)
                vals.extend(J[i_row])
        for j in range(p):
            rows.append(rows[-1] + 1)
            cols.append(BA_NCAMPARAMS * n + 3 * m + j)
            vals.append(d_w.grad(w[j]))
        return rows, cols, vals

    return {
        "objective": Function(ba_inputs, p_objective, _ba_post_objective, notes),
        "jacobian": Function(ba_inputs, jacobian, _ba_post_jacobian),
    }


def _ba_batched(mod, backend: str) -> dict[str, Function]:
    """ba's functions on the batched formulation: each row of the Jacobian's blocks (one per error
    coordinate) is one vjp of ``reproj_errs`` with that coordinate's unit cotangent in every row, since
    observation j's errors depend on row j of the gathered cameras and points only; the weight errors'
    derivatives are one vjp of ``w_errs`` with ones."""
    p_objective, notes = primal(mod.objective_batched, backend)
    d_errs = adcompiler.differentiate(mod.reproj_errs, wrt=("cams", "X", "w"), backend=backend)
    d_w = adcompiler.differentiate(mod.w_errs, backend=backend)

    def jacobian(cams, X, w, obs, feats):
        p, ncam = len(w), BA_NCAMPARAMS
        rows = (cams[obs[:, 0]], X[obs[:, 1]], w, feats)
        vals = np.empty((p, 2, ncam + 4))
        for r in range(2):
            ct = np.zeros((p, 2))
            ct[:, r] = 1.0
            _, (g_cam, g_x, g_w) = d_errs.vjp(rows, ct)
            vals[:, r, :ncam] = g_cam
            vals[:, r, ncam : ncam + 3] = g_x
            vals[:, r, ncam + 3] = g_w
        _, (wvals,) = d_w.vjp((w,), np.ones(p))
        return _ba_sparse(len(cams), len(X), obs, vals, wvals)

    return {
        "objective": Function(ba_inputs, p_objective, _ba_post_objective, notes),
        "jacobian": Function(ba_inputs, jacobian, _ba_post_jacobian),
    }


def _ba_post_objective(out):
    errs, werrs = out
    return {
        "reproj_error": {"elements": tolist(errs[0]), "repeated": len(errs)},
        "w_err": {"element": float(werrs[0]), "repeated": len(werrs)},
    }


def _ba_post_jacobian(out):
    # Only the first 30 entries and the last go back (the input repeats one observation).
    rows, cols, vals = (list(part[:30]) + list(part[-1:]) for part in out)  # lists or arrays
    return {
        "rows": [int(r) for r in rows],
        "cols": [int(c) for c in cols],
        "vals": [float(v) for v in vals],
    }


_BA_BLOCKS = """# The loop of GradBench ba's Jacobian blocks (benchmarks/gradbench/adapters.py), a module of its own
# so that Numba's cache serves it in the next process; named after the derivatives' files, so that
# changed derivatives make a new module (Numba checks a cached function's own file only).
import numba
import numpy as np

NCAM = {ncam}


@numba.njit(cache=True)
def blocks(cams, X, w, obs, feats):
    p = len(w)
    vals = np.empty((p, 2, NCAM + 4))
    wvals = np.empty(p)
    ct = np.zeros(2)
    for j in range(p):
        cam, pt = cams[obs[j, 0]], X[obs[j, 1]]
        for r in range(2):
            ct[:] = 0.0
            ct[r] = 1.0
            _, (g_cam, g_x, g_w) = reverse(cam, pt, w[j], feats[j], ct)
            vals[j, r, :NCAM] = g_cam
            vals[j, r, NCAM : NCAM + 3] = g_x
            vals[j, r, NCAM + 3] = g_w
        wvals[j] = w_grad(w[j])
    return vals, wvals
"""


def _ba_blocks_compiled(d_reproj, d_w):
    """Under Numba, the Jacobian's blocks as a Numba user writes them: one ``@njit`` loop over the
    observations calling the compiled reverse of ``reproj_err`` once per error row (a unit cotangent)
    and the compiled gradient of ``w_err`` (``Differentiable.compiled``, issue 36), no Python between
    observations.  Gives ``blocks(cams, X, w, obs, feats) -> (vals (p, 2, 15), wvals (p,))``.  The loop
    is a module written beside the derivatives' own (in adcompiler's cache directory), named after them
    and compiled with ``cache=True``, so that a second process loads it as it loads the derivatives
    (docs/numba.md: a cached caller keeps the derivatives it was compiled with; a new name for new ones)."""
    import os

    example = (np.zeros(BA_NCAMPARAMS), np.zeros(3), 1.0, np.zeros(2))
    reverse = d_reproj.compiled("reverse", *example)
    w_grad = d_w.compiled("grad", 1.0)
    files = [f.py_func.__code__.co_filename for f in (reverse, w_grad)]
    text = _BA_BLOCKS.format(ncam=BA_NCAMPARAMS)
    module = _module_beside(files, "ba_blocks", text) if all(map(os.path.isfile, files)) else None
    if module is None:  # (derivatives not cached on disk: the loop compiled in each process too)
        module = type(os)("ba_blocks")
        exec(compile(text, "<ba blocks>", "exec"), vars(module))
    module.reverse, module.w_grad = reverse, w_grad  # (read when blocks first compiles)
    return module.blocks


def _module_beside(files: list, name: str, text: str):
    """The module of ``text``, written (once) beside the generated modules ``files`` as ``name`` followed by
    their names, and imported; None where it cannot be written."""
    import importlib.util
    import os
    import sys

    stems = "_".join(os.path.splitext(os.path.basename(f))[0] for f in files)
    path = os.path.join(os.path.dirname(files[0]), f"{name}_{stems}.py")
    try:
        if not os.path.exists(path):
            with open(path + ".tmp", "w") as out:
                out.write(text)
            os.replace(path + ".tmp", path)
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # (Numba imports a cached function's module by name to load it)
        spec.loader.exec_module(module)
    except OSError:
        return None
    return module


def _ba_sparse(n: int, m: int, obs, vals, wvals) -> tuple:
    """BASparseMat's rows, columns and values from the blocks (as the Python loop of ``ba`` builds them), as
    arrays (as GradBench's JAX tool and our JAX port return them; the JSON is made outside the timed call)."""
    p, block = len(wvals), BA_NCAMPARAMS + 4
    cam, pt = obs[:, 0], obs[:, 1]
    columns = np.concatenate(
        (
            BA_NCAMPARAMS * cam[:, None] + np.arange(BA_NCAMPARAMS),
            BA_NCAMPARAMS * n + 3 * pt[:, None] + np.arange(3),
            (BA_NCAMPARAMS * n + 3 * m + np.arange(p))[:, None],
        ),
        axis=1,
    )
    cols = np.concatenate((np.repeat(columns, 2, axis=0).reshape(-1), BA_NCAMPARAMS * n + 3 * m + np.arange(p)))
    rows = np.concatenate(([0], block * np.arange(1, 2 * p + 1), 2 * p * block + np.arange(1, p + 1)))
    return rows, cols, np.concatenate((vals.reshape(-1), wvals))


def ht_inputs(raw) -> tuple:
    """(theta, us or None, the model and data arrays in objective order)."""
    data = raw["data"]
    model = data["model"]
    arrays = (
        np.asarray(model["parents"], dtype=np.int64),
        floats(model["base_relatives"]),
        floats(model["inverse_base_absolutes"]),
        floats(model["base_positions"]),
        floats(model["weights"]),
        bool(model["is_mirrored"]),
        floats(data["points"]),
        np.asarray(data["correspondences"], dtype=np.int64),
    )
    us = floats(raw["us"]) if len(raw["us"]) > 0 else None
    return floats(raw["theta"]), us, arrays, np.asarray(model["triangles"], dtype=np.int64)


def ht(backend: str) -> dict[str, Function]:
    mod = eval_module("ht")
    p_simple, notes = primal(mod.objective_simple, backend)
    p_complicated, notes_c = primal(mod.objective_complicated, backend)
    notes_both = {}
    d_simple = adcompiler.differentiate(mod.objective_simple, wrt=("theta",), backend=backend)
    d_complicated = adcompiler.differentiate(mod.objective_complicated, wrt=("theta", "us"), backend=backend)
    jac_simple = adcompiler.jacobian(d_simple, mode="forward")

    def objective(theta, us, arrays, triangles):
        if us is None:
            out = p_simple(theta, *arrays)
            notes_both.update(notes)
        else:
            out = p_complicated(theta, us, *arrays, triangles)
            notes_both.update(notes_c)
        return out

    def jacobian(theta, us, arrays, triangles):
        """(3 points, 26) for the simple variant.  For the complicated one, ADBench's 28 columns: two
        for the points' own barycentric coordinates (each residual depends on its point's ``us``
        only, so one jvp with every point's u_0 moving gives a column for them all), then the 26 of
        theta, each a jvp."""
        if us is None:
            return jac_simple(theta, *arrays)
        args = (theta, us, *arrays, triangles)
        no_theta, no_us = np.zeros_like(theta), np.zeros_like(us)
        columns = [d_complicated.jvp(args, (no_theta, np.tile(u, (len(us), 1))))[1] for u in ([1.0, 0.0], [0.0, 1.0])]
        columns += [d_complicated.jvp(args, (e, no_us))[1] for e in np.eye(len(theta))]
        return np.column_stack(columns)

    return {
        "objective": Function(ht_inputs, objective, tolist, notes_both),
        "jacobian": Function(ht_inputs, jacobian, tolist),
    }


def lstm(backend: str) -> dict[str, Function]:
    mod = eval_module("lstm")
    p, notes = primal(mod.objective, backend)
    d = adcompiler.differentiate(mod.objective, wrt=("main_params", "extra_params"), backend=backend)
    prepare = lambda raw: tuple(  # noqa: E731
        floats(raw[k]) for k in ("main_params", "extra_params", "state", "sequence")
    )

    def post(g):
        main, extra = g
        return tolist(np.concatenate((np.ravel(main), np.ravel(extra))))

    return {
        "objective": Function(prepare, p, float, notes),
        "jacobian": Function(prepare, d.grad, post),
    }


def particle(backend: str) -> dict[str, Function]:
    mod = eval_module("particle")
    prepare = lambda raw: (float(raw["w"]),)  # noqa: E731
    return {
        name: Function(prepare, lambda w, f=getattr(mod, name): f(w, backend=backend), float)
        for name in ("rr", "ff", "fr", "rf")
    }


def saddle(backend: str) -> dict[str, Function]:
    mod = eval_module("saddle")
    prepare = lambda raw: (floats(raw["start"]),)  # noqa: E731
    return {
        name: Function(prepare, lambda s, f=getattr(mod, name): f(s, backend=backend), tolist)
        for name in ("rr", "ff", "fr", "rf")
    }


MAKERS: dict[str, Callable[..., dict[str, Function]]] = {
    "det": det,
    "gmm": gmm,
    "ba": ba,
    "ht": ht,
    "kmeans": kmeans,
    "llsq": llsq,
    "lse": lse,
    "lstm": lstm,
    "ode": ode,
    "particle": particle,
    "saddle": saddle,
}


def functions(eval_name: str, backend: str, peers: bool = False) -> dict[str, Function]:
    """The GradBench functions of ``eval_name`` on adcompiler's ``backend``; ``peers``: on the peers'
    formulation where it differs (``PEERS_FORMULATION``)."""
    if eval_name not in MAKERS:
        raise KeyError(f"no adcompiler implementation of the eval {eval_name!r}")
    if eval_name in PEERS_FORMULATION:
        return MAKERS[eval_name](backend, peers)
    return MAKERS[eval_name](backend)
