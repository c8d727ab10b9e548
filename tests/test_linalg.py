"""np.linalg's derivatives against analytic ones (d log det A = tr(A^-1 dA), dw_i = v_i^T dA v_i,
ds_i = u_i^T dA v_i, L dL^T + dL L^T = dA, dQ R + Q dR = dA), stacks against their matrices one at a
time, Hessians where autograd has none against differences of adcompiler's gradient (itself checked
against differences in test_systematic.py), and the refusals."""

import numpy as np
import pytest

import adcompiler
import linalg_funcs as F
from adcompiler.errors import UnsupportedSyntaxError

RNG = np.random.default_rng(18)
A = RNG.normal(size=(4, 4)) + 4 * np.eye(4)
S = A + A.T  # symmetric, distinct eigenvalues
P = A @ A.T + np.eye(4)  # positive definite
TALL = RNG.normal(size=(5, 3))
DA = RNG.normal(size=(4, 4))
DS = DA + DA.T


def jvp(f, a, da):
    return adcompiler.differentiate(f).jvp((a,), (da,))[1]


def fd_hessian(f, a, h=1e-6):
    """Central differences of adcompiler's gradient."""
    grad = adcompiler.differentiate(f).grad
    cols = []
    for k in range(a.size):
        e = np.zeros(a.size)
        e[k] = h
        e = e.reshape(a.shape)
        cols.append(((grad(a + e) - grad(a - e)) / (2 * h)).ravel())
    return np.array(cols).T


def test_logdet_tangent_is_trace_of_solve():
    assert np.isclose(jvp(F.logdet, A, DA), np.trace(np.linalg.solve(A, DA)))


def test_logdet_gradient_is_inverse_transpose():
    np.testing.assert_allclose(adcompiler.differentiate(F.logdet).grad(A), np.linalg.inv(A).T)


def test_eigenvalue_tangent_is_v_dA_v():
    w, v = np.linalg.eigh(S)
    np.testing.assert_allclose(jvp(F.eigenvalues, S, DS), np.einsum("ji,jk,ki->i", v, DS, v))


def test_eigenvector_tangent_keeps_them_orthonormal():
    v, dv = adcompiler.differentiate(F.eigenvectors_upper).jvp((S,), (DS,))
    np.testing.assert_allclose(dv.T @ v + v.T @ dv, 0, atol=1e-10)  # d(V^T V) = 0


def test_eigh_reads_one_triangle():
    below = np.tril(DA, -1)  # the upper triangle is what UPLO='U' reads: the rest changes nothing
    np.testing.assert_allclose(jvp(F.eigenvectors_upper, S, below), 0, atol=1e-12)


def test_singular_value_tangent_is_u_dA_v():
    u, s, vh = np.linalg.svd(TALL, full_matrices=False)
    d = RNG.normal(size=TALL.shape)
    np.testing.assert_allclose(jvp(F.singular_values, TALL, d), np.einsum("ji,jk,ik->i", u, d, vh))


def test_svd_tangents_reconstruct_dA():
    d = RNG.normal(size=TALL.shape)
    (u, s, vh), (du, ds, dvh) = adcompiler.differentiate(F.svd_all).jvp((TALL,), (d,))
    np.testing.assert_allclose(du * s @ vh + u * ds @ vh + u * s @ dvh, d, atol=1e-10)


def test_cholesky_tangent():
    l, dl = adcompiler.differentiate(F.cholesky).jvp((P,), (DS,))
    np.testing.assert_allclose(dl @ l.T + l @ dl.T, DS, atol=1e-10)
    np.testing.assert_allclose(np.triu(dl, 1), 0)


def test_qr_tangents():
    d = RNG.normal(size=TALL.shape)
    (q, r), (dq, dr) = adcompiler.differentiate(F.qr).jvp((TALL,), (d,))
    np.testing.assert_allclose(dq @ r + q @ dr, d, atol=1e-10)
    np.testing.assert_allclose(q.T @ dq + dq.T @ q, 0, atol=1e-10)
    np.testing.assert_allclose(np.tril(dr, -1), 0)


def test_pinv_of_an_invertible_matrix_is_differentiated_as_inv():
    ct = RNG.normal(size=A.shape)
    got = adcompiler.differentiate(F.pinv).vjp((A,), ct)[1]
    expected = adcompiler.differentiate(F.inv).vjp((A,), ct)[1]
    np.testing.assert_allclose(got, expected, rtol=1e-8)


def test_matrix_power_tangent():
    a = A / 4
    h = 1e-6
    expected = (F.power(a + h * DA) - F.power(a - h * DA)) / (2 * h)
    np.testing.assert_allclose(jvp(F.power, a, DA), expected, rtol=1e-6)


@pytest.mark.parametrize(
    "f, a",
    [
        (F.logdet, None),
        (F.eigenvalues, "sym"),
        (F.eigenvectors_upper, "sym"),
        (F.cholesky, "pd"),
        (F.qr, "tall"),
        (F.svd_all, "tall"),
        (F.pinv, "tall"),
        (F.power, None),
    ],
)
def test_stacks_are_their_matrices(f, a):
    """Each matrix of a stack gets the derivative it gets alone, in both modes."""
    base = {"sym": S, "pd": P, "tall": TALL}.get(a, A / 4)
    stack = np.stack([base, base + 0.1 * np.eye(*base.shape), 1.5 * base])
    d = RNG.normal(size=stack.shape)
    d = d + np.swapaxes(d, -1, -2) if a in ("sym", "pd") else d
    out, t = adcompiler.differentiate(f).jvp((stack,), (d,))
    value, ct = (out, t) if not isinstance(out, tuple) else (out[0], t[0])
    cts = np.ones_like(value) if not isinstance(out, tuple) else tuple(np.ones_like(o) for o in out)
    g = adcompiler.differentiate(f).vjp((stack,), cts)[1][0]
    for k in range(len(stack)):
        out_k, t_k = adcompiler.differentiate(f).jvp((stack[k],), (d[k],))
        np.testing.assert_allclose(ct[k], t_k if not isinstance(out_k, tuple) else t_k[0], atol=1e-10)
        cts_k = tuple(c[k] for c in cts) if isinstance(cts, tuple) else cts[k]
        np.testing.assert_allclose(g[k], adcompiler.differentiate(f).vjp((stack[k],), cts_k)[1][0], atol=1e-10)


@pytest.mark.parametrize(
    "f, a",
    [
        (F.qr_hessian, TALL),
        (F.svd_hessian, TALL.T),
        (F.eigh_hessian, S + np.tril(DA, -1)),
        (F.cholesky_hessian, P + np.triu(DA, 1)),
        (F.power_hessian, A / 4),
        (F.norms_hessian, TALL),
    ],
    ids=["qr", "svd", "eigh", "cholesky", "matrix_power", "norms"],
)
def test_second_order_against_differences_of_the_gradient(f, a):
    np.testing.assert_allclose(adcompiler.hessian_matrix(f)(a), fd_hessian(f, a), rtol=1e-5, atol=1e-6)


def test_decomposition_in_a_loop():
    f = adcompiler.differentiate(F.eigh_in_loop, wrt=("a",))
    h = 1e-6
    expected = (F.eigh_in_loop(S + h * DS, 3) - F.eigh_in_loop(S - h * DS, 3)) / (2 * h)
    assert np.isclose(np.sum(f.grad(S, 3) * DS), expected, rtol=1e-6)
    assert np.isclose(f.jvp((S, 3), (DS,))[1], expected, rtol=1e-6)


def test_multi_dot_is_a_chain_of_dots():
    b = RNG.normal(size=(5, 5))
    ga, gb = adcompiler.differentiate(F.multi_dot).vjp((TALL.T, b), np.ones((3, 3)))[1]
    np.testing.assert_allclose(ga, np.ones((3, 3)) @ TALL.T @ b.T + np.ones((3, 3)).T @ TALL.T @ b)
    np.testing.assert_allclose(gb, TALL @ np.ones((3, 3)) @ TALL.T)


def test_ord_must_be_a_constant():
    with pytest.raises(UnsupportedSyntaxError, match="ord not one of the constants"):
        adcompiler.differentiate(F.norm_with_variable_ord, wrt=("a",)).grad(A, 2.0)


def test_complete_qr_is_refused_with_its_location():
    with pytest.raises(UnsupportedSyntaxError, match=r"linalg_funcs.py:\d+.*mode not one of the constants"):
        adcompiler.differentiate(F.qr_complete).grad(TALL)


def test_qr_of_a_wide_matrix_says_why():
    """Known only from the matrix's shape at run time: told at the user's line all the same (it named none)."""
    with pytest.raises(ValueError, match=r"linalg_funcs.py:\d+: .*wide matrix.*\(at `q, r = np.linalg.qr"):
        adcompiler.differentiate(F.qr).vjp((TALL.T,), (np.ones((3, 3)), np.ones((3, 5))))


def test_full_svd_of_a_matrix_that_is_not_square_says_why():
    with pytest.raises(ValueError, match=r"linalg_funcs.py:\d+: .*full_matrices=False.*\(at `.*np.linalg.svd\(a\)"):
        adcompiler.differentiate(F.svd_default).vjp((TALL,), np.ones((5, 5)))
    adcompiler.differentiate(F.svd_default).vjp((A,), np.ones((4, 4)))  # square: the same as reduced


def test_a_module_adc_compile_wrote_says_the_line_too(tmp_path):
    """Outside adcompiler (a module ``adc compile`` wrote, run where adcompiler is not asked): the source's line
    from the derivative code's own ``# line N`` comment."""
    from shared import adc, written

    text = "import numpy as np\n\n\ndef left(a):\n    u, s, vh = np.linalg.svd(a)\n    return np.sum(u)\n"
    (tmp_path / "svd_left.py").write_text(text)
    run = adc("compile", str(tmp_path / "svd_left.py"), "--mode", "reverse", "-o", str(tmp_path / "svd_left_d.py"))
    assert run.returncode == 0, run.stderr
    left_reverse = written(tmp_path, "svd_left_run", (tmp_path / "svd_left_d.py").read_text())["left_reverse"]
    with pytest.raises(ValueError, match=r"full_matrices=False.*\(at line 5 of the source: `u, s, vh = np.linalg.svd"):
        left_reverse(TALL, 1.0)
