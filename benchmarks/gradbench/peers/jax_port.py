"""The evals in JAX (x64, ``jax.jit``): the JAX peer where GradBench has no JAX tool for an eval, and
the reference the relay's own eval drivers validate against when GradBench's drivers cannot run.

Written here from each eval's README (GradBench's JAX tool covers gmm, kmeans, llsq, lse and ode;
``peer_tool.py`` uses GradBench's own code for those when given a GradBench checkout).  Every
derivative is JAX's own (``grad``, ``jvp``, ``jacfwd``); ``finish`` blocks on the asynchronous
result inside the timed region.  ``particle`` and ``saddle`` loop while a condition on the values
holds: ``lax.while_loop`` under forward mode, a bounded ``lax.scan`` under reverse mode (which
cannot go through a while loop); the descent that drives them is Python calling jitted code.
"""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import multigammaln
from protocol import Function

jax.config.update("jax_enable_x64", True)


def block(out):
    return jax.block_until_ready(out)


def floats(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def tolist(x):
    return np.asarray(x, dtype=np.float64).tolist()


# ------------------------------------------------------------------------------------------------ lse


def logsumexp(x):
    a = jnp.max(x)
    return a + jnp.log(jnp.sum(jnp.exp(x - a)))


def lse():
    prepare = lambda raw: (jnp.asarray(floats(raw["x"])),)  # noqa: E731
    return {
        "primal": Function(prepare, jax.jit(logsumexp), float, finish=block),
        "gradient": Function(prepare, jax.jit(jax.grad(logsumexp)), tolist, finish=block),
    }


# ------------------------------------------------------------------------------------------------ det


def det_of_minor(A, rows, cols):
    if len(rows) == 1:
        return A[rows[0], cols[0]]
    total = 0.0
    sign = 1.0
    for j in range(len(cols)):
        total = total + sign * A[rows[0], cols[j]] * det_of_minor(A, rows[1:], cols[:j] + cols[j + 1 :])
        sign = -sign
    return total


def det_by_minors(A):
    ell = A.shape[0]
    return det_of_minor(A, list(range(ell)), list(range(ell)))


def det():
    prepare = lambda raw: (jnp.asarray(floats(raw["A"]).reshape(raw["ell"], raw["ell"])),)  # noqa: E731
    return {
        "primal": Function(prepare, jax.jit(det_by_minors), float, finish=block),
        "gradient": Function(prepare, jax.jit(jax.grad(det_by_minors)), lambda g: tolist(np.ravel(g)), finish=block),
    }


# ----------------------------------------------------------------------------------------------- llsq


@partial(jax.jit, static_argnums=1)
def llsq_objective(x, n):
    t = -1.0 + jnp.arange(n) * 2.0 / (n - 1)
    powers = t[:, None] ** jnp.arange(x.shape[0])[None, :]
    r = jnp.sign(t) - powers @ x
    return 0.5 * jnp.sum(r * r)


def llsq():
    prepare = lambda raw: (jnp.asarray(floats(raw["x"])), int(raw["n"]))  # noqa: E731
    gradient = jax.jit(jax.grad(llsq_objective), static_argnums=1)
    return {
        "primal": Function(prepare, llsq_objective, float, finish=block),
        "gradient": Function(prepare, gradient, tolist, finish=block),
    }


# ------------------------------------------------------------------------------------------------ ode


def ode_fun(x, y):
    return jnp.concatenate((x[:1], x[1:] * y[:-1]))


@partial(jax.jit, static_argnums=1)
def ode_solve(x, s):
    h = 2.0 / s

    def step(y, _):
        k1 = ode_fun(x, y)
        k2 = ode_fun(x, y + h / 2 * k1)
        k3 = ode_fun(x, y + h / 2 * k2)
        k4 = ode_fun(x, y + h * k3)
        return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4), None

    y, _ = jax.lax.scan(step, jnp.zeros_like(x), None, length=s)
    return y


def ode():
    prepare = lambda raw: (jnp.asarray(floats(raw["x"])), int(raw["s"]))  # noqa: E731
    gradient = jax.jit(jax.grad(lambda x, s: ode_solve(x, s)[-1]), static_argnums=1)
    return {
        "primal": Function(prepare, ode_solve, tolist, finish=block),
        "gradient": Function(prepare, gradient, tolist, finish=block),
    }


# --------------------------------------------------------------------------------------------- kmeans


def kmeans_cost(points, centroids):
    p2 = jnp.sum(points * points, axis=1)
    c2 = jnp.sum(centroids * centroids, axis=1)
    dist2 = p2[:, None] + c2[None, :] - 2.0 * points @ centroids.T
    return jnp.sum(jnp.min(dist2, axis=1))


@jax.jit
def kmeans_dir(points, centroids):
    gradient = jax.grad(kmeans_cost, argnums=1)
    g, h = jax.jvp(lambda c: gradient(points, c), (centroids,), (jnp.ones_like(centroids),))
    return g / h


def kmeans():
    prepare = lambda raw: (jnp.asarray(floats(raw["points"])), jnp.asarray(floats(raw["centroids"])))  # noqa: E731
    return {
        "cost": Function(prepare, jax.jit(kmeans_cost), float, finish=block),
        "dir": Function(prepare, kmeans_dir, tolist, finish=block),
    }


# ------------------------------------------------------------------------------------------------ gmm


def gmm_log_posterior(alpha, mu, q, l, x, gamma, m):
    n, d = x.shape
    k = alpha.shape[0]
    cols, rows = np.triu_indices(d, 1)  # strictly lower entries, column by column
    Q = jnp.zeros((k, d, d)).at[:, rows, cols].set(l) + jax.vmap(jnp.diag)(jnp.exp(q))
    z = jnp.einsum("kij,nkj->nki", Q, x[:, None, :] - mu[None, :, :])  # Q_k (x_n - mu_k)
    beta = alpha + jnp.sum(q, axis=1) - 0.5 * jnp.sum(z * z, axis=2)
    slse = jnp.sum(jax.scipy.special.logsumexp(beta, axis=1))
    log_likelihood = slse - n * (0.5 * d * math.log(2 * math.pi) + jax.scipy.special.logsumexp(alpha))
    nw = d + m + 1
    C = nw * d * math.log(gamma / math.sqrt(2.0)) - multigammaln(0.5 * nw, d)
    prior = k * C - 0.5 * gamma**2 * (jnp.sum(jnp.exp(q) ** 2) + jnp.sum(l**2)) + m * jnp.sum(q)
    return log_likelihood + prior


def gmm():
    def prepare(raw):
        l = floats(raw["l"]).reshape(raw["k"], raw["d"] * (raw["d"] - 1) // 2)
        params = tuple(jnp.asarray(floats(raw[key])) for key in ("alpha", "mu", "q")) + (jnp.asarray(l),)
        return params + (jnp.asarray(floats(raw["x"])), float(raw["gamma"]), int(raw["m"]))

    objective = jax.jit(gmm_log_posterior, static_argnums=(5, 6))
    jacobian = jax.jit(jax.grad(gmm_log_posterior, argnums=(0, 1, 2, 3)), static_argnums=(5, 6))

    def post(g):
        return dict(zip(("alpha", "mu", "q", "l"), (tolist(v) for v in g), strict=True))

    return {
        "objective": Function(prepare, objective, float, finish=block),
        "jacobian": Function(prepare, jacobian, post, finish=block),
    }


# ------------------------------------------------------------------------------------------------- ba


def rodrigues_rotate_point(rot, X):
    sqtheta = jnp.sum(rot * rot)
    safe = jnp.where(sqtheta != 0.0, sqtheta, 1.0)
    theta = jnp.sqrt(safe)
    w = rot / theta
    rotated = X * jnp.cos(theta) + jnp.cross(w, X) * jnp.sin(theta) + w * (jnp.dot(w, X) * (1.0 - jnp.cos(theta)))
    return jnp.where(sqtheta != 0.0, rotated, X + jnp.cross(rot, X))


def ba_project(cam, X):
    Xcam = rodrigues_rotate_point(cam[0:3], X - cam[3:6])
    proj = Xcam[0:2] / Xcam[2]
    rsq = jnp.sum(proj * proj)
    distorted = proj * (1.0 + cam[9] * rsq + cam[10] * rsq * rsq)
    return distorted * cam[6] + cam[7:9]


def ba_reproj_err(cam, X, w, feat):
    return w * (ba_project(cam, X) - feat)


@jax.jit
def ba_objective(cams, X, w, obs, feats):
    errs = jax.vmap(ba_reproj_err)(cams[obs[:, 0]], X[obs[:, 1]], w, feats)
    return errs, 1.0 - w * w


@jax.jit
def ba_blocks(cams, X, w, obs, feats):
    """(p, 2, 15) Jacobian blocks of the reprojection errors (cam, X, w) and the weight errors'.  jacrev:
    two outputs against 15 inputs, 2.5x faster than jacfwd here (p = 31843: 15.1 against 38.4 ms; p = 200000:
    200 against 289 ms, one thread), so the faster of JAX's two is the one compared."""
    jac = jax.vmap(jax.jacrev(ba_reproj_err, argnums=(0, 1, 2)))(cams[obs[:, 0]], X[obs[:, 1]], w, feats)
    return jnp.concatenate((jac[0], jac[1], jac[2][:, :, None]), axis=2), -2.0 * w


def ba_sparse(blocks, w_d, n, m, obs):
    """ADBench's BASparseMat (row starts, columns, values) from the blocks, with NumPy."""
    p = len(w_d)
    blocks = np.asarray(blocks)
    j = np.arange(p)
    block_cols = np.concatenate(
        (
            11 * obs[:, :1] + np.arange(11)[None, :],
            11 * n + 3 * obs[:, 1:2] + np.arange(3)[None, :],
            (11 * n + 3 * m + j)[:, None],
        ),
        axis=1,
    )  # (p, 15)
    cols = np.concatenate((np.repeat(block_cols, 2, axis=0).ravel(), 11 * n + 3 * m + j))
    vals = np.concatenate((blocks.reshape(-1), np.asarray(w_d)))
    rows = np.concatenate(([0], 15 * np.arange(1, 2 * p + 1), 30 * p + np.arange(1, p + 1)))
    return rows, cols, vals


def ba_inputs(raw):
    n, m, p = raw["n"], raw["m"], raw["p"]
    obs = np.stack((np.arange(p) % n, np.arange(p) % m), axis=1)
    arrays = (
        np.tile(floats(raw["cam"]), (n, 1)),
        np.tile(floats(raw["x"]), (m, 1)),
        np.full(p, float(raw["w"])),
        obs,
        np.tile(floats(raw["feat"]), (p, 1)),
    )
    return tuple(jnp.asarray(a) for a in arrays) + (n, m, obs)


def ba():
    def objective(cams, X, w, obs, feats, n, m, obs_np):
        return ba_objective(cams, X, w, obs, feats)

    def jacobian(cams, X, w, obs, feats, n, m, obs_np):
        blocks, w_d = block(ba_blocks(cams, X, w, obs, feats))
        return ba_sparse(blocks, w_d, n, m, obs_np)

    def post_objective(out):
        errs, werrs = out
        return {
            "reproj_error": {"elements": tolist(errs[0]), "repeated": int(errs.shape[0])},
            "w_err": {"element": float(werrs[0]), "repeated": int(werrs.shape[0])},
        }

    def post_jacobian(out):
        rows, cols, vals = (np.concatenate((a[:30], a[-1:])) for a in out)
        return {"rows": [int(r) for r in rows], "cols": [int(c) for c in cols], "vals": tolist(vals)}

    return {
        "objective": Function(ba_inputs, objective, post_objective, finish=block),
        "jacobian": Function(ba_inputs, jacobian, post_jacobian),
    }


# ------------------------------------------------------------------------------------------------- ht


def angle_axis_to_rotation_matrix(angle_axis):
    norm = jnp.sqrt(jnp.sum(angle_axis * angle_axis))
    safe = jnp.where(norm < 0.0001, 1.0, norm)
    x, y, z = angle_axis / safe
    s, c = jnp.sin(safe), jnp.cos(safe)
    R = jnp.array(
        [
            [x * x + (1 - x * x) * c, x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
            [x * y * (1 - c) + z * s, y * y + (1 - y * y) * c, y * z * (1 - c) - x * s],
            [x * z * (1 - c) - y * s, z * y * (1 - c) + x * s, z * z + (1 - z * z) * c],
        ]
    )
    return jnp.where(norm < 0.0001, jnp.eye(3), R)


def euler_angles_to_rotation_matrix(xzy):
    tx, tz, ty = xzy[0], xzy[1], xzy[2]
    one, zero = jnp.ones_like(tx), jnp.zeros_like(tx)
    Rx = jnp.array([[one, zero, zero], [zero, jnp.cos(tx), -jnp.sin(tx)], [zero, jnp.sin(tx), jnp.cos(tx)]])
    Ry = jnp.array([[jnp.cos(ty), zero, jnp.sin(ty)], [zero, one, zero], [-jnp.sin(ty), zero, jnp.cos(ty)]])
    Rz = jnp.array([[jnp.cos(tz), -jnp.sin(tz), zero], [jnp.sin(tz), jnp.cos(tz), zero], [zero, zero, one]])
    return Rz @ Ry @ Rx


def to_pose_params(theta, n_bones):
    pose = jnp.zeros((n_bones + 3, 3))
    pose = pose.at[0].set(theta[0:3]).at[1].set(1.0).at[2].set(theta[3:6])
    i_theta, i_pose = 6, 5
    for _ in range(5):
        for joint in range(3):
            pose = pose.at[i_pose, 0].set(theta[i_theta])
            i_theta += 1
            if joint == 0:
                pose = pose.at[i_pose, 1].set(theta[i_theta])
                i_theta += 1
            i_pose += 1
        i_pose += 1
    return pose


def skinned_vertex_positions(pose, parents, base_relatives, inverse_base_absolutes, base_positions, weights, mirrored):
    rotations = jax.vmap(euler_angles_to_rotation_matrix)(pose[3:])
    relatives = base_relatives @ jnp.zeros((len(parents), 4, 4)).at[:, 0:3, 0:3].set(rotations).at[:, 3, 3].set(1.0)
    absolutes = []
    for i, parent in enumerate(parents):
        absolutes.append(relatives[i] if parent == -1 else absolutes[parent] @ relatives[i])
    transforms = jnp.stack(absolutes) @ inverse_base_absolutes  # (bones, 4, 4)
    moved = jnp.einsum("bij,vj->bvi", transforms, base_positions)[:, :, 0:3]  # (bones, vertices, 3)
    positions = jnp.einsum("vb,bvi->vi", weights, moved)
    if mirrored:
        positions = positions * jnp.array([-1.0, 1.0, 1.0])
    R = angle_axis_to_rotation_matrix(pose[0]) * pose[1]
    return positions @ R.T + pose[2]


def ht_objective(theta, us, model, points, correspondences, triangles):
    parents, base_relatives, inverse_base_absolutes, base_positions, weights, mirrored = model
    pose = to_pose_params(theta, len(parents))
    vertices = skinned_vertex_positions(
        pose, parents, base_relatives, inverse_base_absolutes, base_positions, weights, mirrored
    )
    if us is None:
        return (points - vertices[correspondences]).ravel()
    corners = triangles[correspondences]
    u0, u1 = us[:, 0:1], us[:, 1:2]
    hand = u0 * vertices[corners[:, 0]] + u1 * vertices[corners[:, 1]] + (1.0 - u0 - u1) * vertices[corners[:, 2]]
    return (points - hand).ravel()


def ht():
    cache = {}

    def prepare(raw):
        data = raw["data"]
        model = data["model"]
        parents = tuple(int(p) for p in model["parents"])
        arrays = (
            parents,
            jnp.asarray(floats(model["base_relatives"])),
            jnp.asarray(floats(model["inverse_base_absolutes"])),
            jnp.asarray(floats(model["base_positions"])),
            jnp.asarray(floats(model["weights"])),
            bool(model["is_mirrored"]),
        )
        us = jnp.asarray(floats(raw["us"])) if len(raw["us"]) > 0 else None
        return (
            jnp.asarray(floats(raw["theta"])),
            us,
            arrays,
            jnp.asarray(floats(data["points"])),
            jnp.asarray(np.asarray(data["correspondences"], dtype=np.int64)),
            jnp.asarray(np.asarray(model["triangles"], dtype=np.int64)),
        )

    def compiled(kind, parents, mirrored, simple):
        key = (kind, parents, mirrored, simple)
        if key not in cache:

            def objective(theta, us, rel, inv, pos, wts, points, corr, tri):
                model = (parents, rel, inv, pos, wts, mirrored)
                return ht_objective(theta, None if simple else us, model, points, corr, tri)

            if kind == "objective":
                cache[key] = jax.jit(objective)
            elif simple:
                cache[key] = jax.jit(jax.jacfwd(objective))
            else:

                def jacobian(theta, us, *rest):
                    J_theta = jax.jacfwd(objective)(theta, us, *rest)
                    f_us = lambda u: objective(theta, u, *rest)  # noqa: E731
                    _, du0 = jax.jvp(f_us, (us,), (jnp.tile(jnp.array([1.0, 0.0]), (us.shape[0], 1)),))
                    _, du1 = jax.jvp(f_us, (us,), (jnp.tile(jnp.array([0.0, 1.0]), (us.shape[0], 1)),))
                    return jnp.column_stack((du0, du1, J_theta))

                cache[key] = jax.jit(jacobian)
        return cache[key]

    def runner(kind):
        def run(theta, us, model, points, corr, tri):
            parents, rel, inv, pos, wts, mirrored = model
            f = compiled(kind, parents, mirrored, us is None)
            return f(theta, us if us is not None else jnp.zeros((0, 2)), rel, inv, pos, wts, points, corr, tri)

        return run

    return {
        "objective": Function(prepare, runner("objective"), tolist, finish=block),
        "jacobian": Function(prepare, runner("jacobian"), tolist, finish=block),
    }


# ----------------------------------------------------------------------------------------------- lstm


def lstm_objective(main_params, extra_params, state, sequence):
    n_layers = main_params.shape[0] // 2
    h = state.shape[1]

    def step(state, xs):
        x, y_next = xs
        x = x * extra_params[0]
        new_state = []
        for i in range(n_layers):
            weight, bias = main_params[2 * i], main_params[2 * i + 1]
            hidden, cell = state[2 * i], state[2 * i + 1]
            gates = jnp.concatenate((x, hidden, x, hidden)) * weight + bias
            forget = jax.nn.sigmoid(gates[0:h])
            ingate = jax.nn.sigmoid(gates[h : 2 * h])
            outgate = jax.nn.sigmoid(gates[2 * h : 3 * h])
            change = jnp.tanh(gates[3 * h :])
            cell = cell * forget + ingate * change
            hidden = outgate * jnp.tanh(cell)
            new_state += [hidden, cell]
            x = hidden
        ypred = x * extra_params[1] + extra_params[2]
        ynorm = ypred - jnp.log(jnp.sum(jnp.exp(ypred)) + 2.0)
        return jnp.stack(new_state), jnp.sum(y_next * ynorm)

    _, totals = jax.lax.scan(step, state, (sequence[:-1], sequence[1:]))
    return -jnp.sum(totals) / ((sequence.shape[0] - 1) * h)


def lstm():
    prepare = lambda raw: tuple(  # noqa: E731
        jnp.asarray(floats(raw[k])) for k in ("main_params", "extra_params", "state", "sequence")
    )
    gradient = jax.jit(jax.grad(lstm_objective, argnums=(0, 1)))
    return {
        "objective": Function(prepare, jax.jit(lstm_objective), float, finish=block),
        "jacobian": Function(
            prepare, gradient, lambda g: tolist(np.concatenate([np.ravel(v) for v in g])), finish=block
        ),
    }


# ------------------------------------------------------------------------------------------- particle
#
# The Euler loop runs until the particle crosses the x axis.  Forward mode over it is a
# ``lax.while_loop``; reverse mode cannot go through one, so the reverse outer derivative runs a
# ``lax.scan`` of ``MAX_STEPS`` steps whose steps after the crossing change nothing (``lax.cond``),
# and checks that the crossing happened.  The inner gradient is JAX's, inside the loop body.

MAX_STEPS = 1000  # the particle crosses the axis after about 350 steps here
MAX_DESCENT = 1000  # the descents here take a few hundred steps


def particle_potential(x, w):
    return 1.0 / jnp.linalg.norm(x - jnp.array([10.0, 10.0 - w])) + 1.0 / jnp.linalg.norm(x - jnp.array([10.0, 0.0]))


def particle_force(x, w, inner_forward):
    if inner_forward:
        _, dx = jax.jvp(lambda x: particle_potential(x, w), (x,), (jnp.array([1.0, 0.0]),))
        _, dy = jax.jvp(lambda x: particle_potential(x, w), (x,), (jnp.array([0.0, 1.0]),))
        return -jnp.array([dx, dy])
    return -jax.grad(particle_potential)(x, w)


def bounded_while(cond, body, state, bounded, limit):
    """``lax.while_loop``, or with ``bounded`` a ``lax.scan`` of ``limit`` steps that stop changing
    the state once ``cond`` fails (reverse mode can go through that)."""
    if not bounded:
        return jax.lax.while_loop(cond, body, state)
    step = lambda s, _: (jax.lax.cond(cond(s), body, lambda s: s, s), None)  # noqa: E731
    return jax.lax.scan(step, state, None, length=limit)[0]


def naive_euler(w, inner_forward, bounded):
    """(x_0(t_f)^2, whether the particle is still above the axis, which must be False)."""
    dt = 0.1

    def body(state):
        x, xdot, _ = state
        x_new = x + dt * xdot
        above = x_new[1] > 0.0
        xdot_new = xdot + dt * particle_force(x, w, inner_forward)
        return jnp.where(above, x_new, x), jnp.where(above, xdot_new, xdot), above

    x, xdot, above = bounded_while(
        lambda s: s[2], body, (jnp.array([0.0, 8.0]), jnp.array([0.75, 0.0]), jnp.array(True)), bounded, MAX_STEPS
    )
    delta_t_f = -x[1] / xdot[1]
    x_t_f = x + delta_t_f * xdot
    return x_t_f[0] * x_t_f[0], above


def argmin(f, g, x):
    """GradBench's multivariate_argmin, on NumPy values."""
    fx, gx = f(x), g(x)
    eta, i = 1e-5, 0
    while np.linalg.norm(gx) > 1e-5:
        if i == 10:
            eta, i = 2.0 * eta, 0
            continue
        x_prime = x - eta * gx
        if np.linalg.norm(x - x_prime) <= 1e-5:
            break
        fx_prime = f(x_prime)
        if fx_prime < fx:
            x, fx, gx = x_prime, fx_prime, g(x_prime)
            i += 1
        else:
            eta, i = eta / 2.0, 0
    return x


def checked(value_and_flag, what):
    value, unfinished = value_and_flag
    if bool(unfinished):
        raise RuntimeError(f"{what}: the bounded loop ran out of steps; raise its limit")
    return value


_PARTICLE = {}


def particle_compiled(outer_forward, inner_forward):
    key = (outer_forward, inner_forward)
    if key not in _PARTICLE:
        value = jax.jit(lambda w: naive_euler(w, inner_forward, False))
        if outer_forward:
            tangent = lambda w: jax.jvp(lambda w: naive_euler(w, inner_forward, False), (w,), (1.0,))[1]  # noqa: E731
        else:
            tangent = jax.grad(lambda w: naive_euler(w, inner_forward, True), has_aux=True)
        _PARTICLE[key] = value, jax.jit(tangent)
    return _PARTICLE[key]


def particle_solve(w0, outer_forward, inner_forward):
    value, tangent = particle_compiled(outer_forward, inner_forward)
    objective = lambda w: float(checked(value(w[0]), "particle"))  # noqa: E731
    gradient = lambda w: np.array([float(checked(tangent(w[0]), "particle"))])  # noqa: E731
    return float(argmin(objective, gradient, np.array([w0]))[0])


def particle():
    prepare = lambda raw: (float(raw["w"]),)  # noqa: E731
    modes = {"rr": (False, False), "rf": (False, True), "fr": (True, False), "ff": (True, True)}
    return {
        name: Function(prepare, lambda w, o=o, i=i: particle_solve(w, o, i), float) for name, (o, i) in modes.items()
    }


# --------------------------------------------------------------------------------------------- saddle
#
# The inner ascent (GradBench's multivariate_argmin on -f) as a loop over the solver's state, its
# branches as ``jnp.where``; bounded as for particle when the outer derivative is reverse mode.


def saddle_f(x, y):
    return (x[0] * x[0] + x[1] * x[1]) - (y[0] * y[0] + y[1] * y[1])


def gradient2(f, x, forward):
    """The gradient of ``f`` at the 2-vector ``x``: two jvps, or one grad."""
    if forward:
        _, d0 = jax.jvp(f, (x,), (jnp.array([1.0, 0.0]),))
        _, d1 = jax.jvp(f, (x,), (jnp.array([0.0, 1.0]),))
        return jnp.array([d0, d1])
    return jax.grad(f)(x)


def descent(f, forward, start, bounded):
    """(argmin of f from ``start``, whether the loop was still going): the solver's steps as one
    loop over (x, f(x), grad f(x), eta, i, going)."""

    def body(state):
        x, fx, gx, eta, i, _ = state
        small_gradient = jnp.linalg.norm(gx) <= 1e-5
        widen = ~small_gradient & (i == 10)
        x_prime = x - eta * gx
        small_step = ~small_gradient & ~widen & (jnp.linalg.norm(x - x_prime) <= 1e-5)
        fx_prime = f(x_prime)
        trying = ~small_gradient & ~widen & ~small_step
        accept = trying & (fx_prime < fx)
        reject = trying & ~accept
        gx_prime = gradient2(f, x_prime, forward)
        return (
            jnp.where(accept, x_prime, x),
            jnp.where(accept, fx_prime, fx),
            jnp.where(accept, gx_prime, gx),
            jnp.where(widen, 2.0 * eta, jnp.where(reject, eta / 2.0, eta)),
            jnp.where(widen | reject, 0, jnp.where(accept, i + 1, i)),
            ~(small_gradient | small_step),
        )

    state = (start, f(start), gradient2(f, start, forward), jnp.array(1e-5), jnp.array(0), jnp.array(True))
    state = bounded_while(lambda s: s[5], body, state, bounded, MAX_DESCENT)
    return state[0], state[5]


def saddle_inner_max(x, start, inner_forward, bounded):
    y, going = descent(lambda y: -saddle_f(x, y), inner_forward, start, bounded)
    return saddle_f(x, y), going


_SADDLE = {}


def saddle_compiled(outer_forward, inner_forward):
    key = (outer_forward, inner_forward)
    if key not in _SADDLE:
        bounded = not outer_forward
        cost = lambda x, s: saddle_inner_max(x, s, inner_forward, bounded)  # noqa: E731

        def cost_gradient(x, s):
            if outer_forward:
                d0 = jax.jvp(lambda x: cost(x, s), (x,), (jnp.array([1.0, 0.0]),), has_aux=True)[1]
                d1 = jax.jvp(lambda x: cost(x, s), (x,), (jnp.array([0.0, 1.0]),), has_aux=True)[1]
                return jnp.array([d0, d1]), jnp.array(False)
            return jax.grad(lambda x: cost(x, s), has_aux=True)(x)

        def final(x, s):
            return descent(lambda y: -saddle_f(x, y), outer_forward, s, False)

        _SADDLE[key] = jax.jit(cost), jax.jit(cost_gradient), jax.jit(final)
    return _SADDLE[key]


def saddle_solve(start, outer_forward, inner_forward):
    cost, cost_gradient, final = saddle_compiled(outer_forward, inner_forward)
    s = jnp.asarray(start)
    x = argmin(
        lambda x: float(checked(cost(jnp.asarray(x), s), "saddle")),
        lambda x: np.asarray(checked(cost_gradient(jnp.asarray(x), s), "saddle")),
        np.asarray(start),
    )
    y = checked(final(jnp.asarray(x), s), "saddle")
    return np.concatenate((np.asarray(x), np.asarray(y)))


def saddle():
    prepare = lambda raw: (floats(raw["start"]),)  # noqa: E731
    modes = {"rr": (False, False), "rf": (False, True), "fr": (True, False), "ff": (True, True)}
    return {
        name: Function(prepare, lambda s, o=o, i=i: saddle_solve(s, o, i), tolist) for name, (o, i) in modes.items()
    }


MAKERS = {
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


def functions(eval_name: str) -> dict[str, Function]:
    return MAKERS[eval_name]()
