"""``scipy.stats`` distributions' methods (issue 37), each written as a function of the standardised
variable ``z = (x - loc) / scale`` with what adcompiler differentiates (NumPy, and ``scipy.special``'s
functions, whose rules are in ``rules/scipy_special.py``).  A call ``norm.logpdf(x, loc=m, scale=s)`` is
lowered as a call of the function of this module that computes it (``written``), its arguments bound as
SciPy binds them (positional or keyword), so both modes, second order and the generated code are those of
any function of the user's.  The values are SciPy's to rounding, outside the support too (``-inf`` for a
log density there, 0 or 1 for a distribution function); a parameter out of its range (a scale that is not
positive) gives what the formula gives, where SciPy gives NaN.  Outside the support the formula is
computed at a point inside it (``_inside``) and its derivative there is zero.

``norm``, ``expon``, ``laplace``, ``logistic``, ``cauchy``, ``uniform`` and ``lognorm`` have ``logpdf``,
``pdf``, ``cdf``, ``logcdf``, ``sf``, ``logsf`` and ``ppf``; ``t`` and ``beta`` ``logpdf`` and ``pdf``;
``gamma`` those and ``cdf``, ``sf`` (in ``x``, ``loc`` and ``scale``: ``a``'s has no closed form); ``poisson``
``logpmf`` and ``pmf``.

Imported only when the user's code calls a method of ``scipy.stats`` (SciPy is then imported).
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaln, gammainc, gammaincc, gammaln, log_ndtr, ndtr, ndtri, xlog1py, xlogy

_LOG_PI = 1.1447298858494002  # log(pi)
_HALF_LOG_TWO_PI = 0.9189385332046727  # log(2 pi) / 2


def logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -0.5 * z * z - np.log(scale) - 0.9189385332046727


def pdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.exp(-0.5 * z * z - 0.9189385332046727) / scale


def cdf(x, loc=0.0, scale=1.0):
    return ndtr((x - loc) / scale)


def logcdf(x, loc=0.0, scale=1.0):
    return log_ndtr((x - loc) / scale)


def sf(x, loc=0.0, scale=1.0):
    return ndtr((loc - x) / scale)


def logsf(x, loc=0.0, scale=1.0):
    return log_ndtr((loc - x) / scale)


def ppf(q, loc=0.0, scale=1.0):
    return ndtri(q) * scale + loc


def _inside(inside, z, at):
    """``z`` where ``inside``, else ``at`` (a point of the support): what a formula outside the support is
    computed at, so that it makes no NaN (whose derivative would reach the arguments) and no warning."""
    return np.where(inside, z, at)


# ---- expon: exp(-z) / scale on z >= 0


def expon_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.where(z >= 0.0, -_inside(z >= 0.0, z, 0.0) - np.log(scale), -np.inf)


def expon_pdf(x, loc=0.0, scale=1.0):
    return np.exp(expon_logpdf(x, loc, scale))


def expon_cdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.where(z > 0.0, -np.expm1(-_inside(z > 0.0, z, 1.0)), 0.0)


def expon_logcdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.where(z > 0.0, np.log(-np.expm1(-_inside(z > 0.0, z, 1.0))), -np.inf)


def expon_sf(x, loc=0.0, scale=1.0):
    return np.exp(expon_logsf(x, loc, scale))


def expon_logsf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.where(z > 0.0, -_inside(z > 0.0, z, 1.0), 0.0)


def expon_ppf(q, loc=0.0, scale=1.0):
    return -np.log1p(-q) * scale + loc


# ---- laplace: exp(-|z|) / (2 scale)


def laplace_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -np.abs(z) - np.log(2.0 * scale)


def laplace_pdf(x, loc=0.0, scale=1.0):
    return np.exp(laplace_logpdf(x, loc, scale))


def laplace_cdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.where(z < 0.0, 0.5 * np.exp(np.minimum(z, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(z, 0.0)))


def laplace_logcdf(x, loc=0.0, scale=1.0):
    return np.log(laplace_cdf(x, loc, scale))


def laplace_sf(x, loc=0.0, scale=1.0):
    return laplace_cdf(-x, -loc, scale)


def laplace_logsf(x, loc=0.0, scale=1.0):
    return np.log(laplace_cdf(-x, -loc, scale))


def laplace_ppf(q, loc=0.0, scale=1.0):
    low = q <= 0.5
    return np.where(low, np.log(2.0 * _inside(low, q, 0.25)), -np.log(2.0 - 2.0 * _inside(low, 0.75, q))) * scale + loc


# ---- logistic: exp(-z) / (scale (1 + exp(-z))^2), symmetric in z


def logistic_logpdf(x, loc=0.0, scale=1.0):
    z = np.abs((x - loc) / scale)
    return -z - 2.0 * np.log1p(np.exp(-z)) - np.log(scale)


def logistic_pdf(x, loc=0.0, scale=1.0):
    return np.exp(logistic_logpdf(x, loc, scale))


def logistic_cdf(x, loc=0.0, scale=1.0):
    return 1.0 / (1.0 + np.exp(-(x - loc) / scale))


def logistic_logcdf(x, loc=0.0, scale=1.0):
    return -np.logaddexp(0.0, -(x - loc) / scale)


def logistic_sf(x, loc=0.0, scale=1.0):
    return 1.0 / (1.0 + np.exp((x - loc) / scale))


def logistic_logsf(x, loc=0.0, scale=1.0):
    return -np.logaddexp(0.0, (x - loc) / scale)


def logistic_ppf(q, loc=0.0, scale=1.0):
    return np.log(q / (1.0 - q)) * scale + loc


# ---- cauchy: 1 / (pi scale (1 + z^2))


def cauchy_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -_LOG_PI - np.log1p(z * z) - np.log(scale)


def cauchy_pdf(x, loc=0.0, scale=1.0):
    return np.exp(cauchy_logpdf(x, loc, scale))


def cauchy_cdf(x, loc=0.0, scale=1.0):
    return 0.5 + np.arctan((x - loc) / scale) / np.pi


def cauchy_logcdf(x, loc=0.0, scale=1.0):
    return np.log(cauchy_cdf(x, loc, scale))


def cauchy_sf(x, loc=0.0, scale=1.0):
    return 0.5 - np.arctan((x - loc) / scale) / np.pi


def cauchy_logsf(x, loc=0.0, scale=1.0):
    return np.log(cauchy_sf(x, loc, scale))


def cauchy_ppf(q, loc=0.0, scale=1.0):
    return np.tan(np.pi * (q - 0.5)) * scale + loc


# ---- uniform on [loc, loc + scale]


def uniform_logpdf(x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.where((z >= 0.0) & (z <= 1.0), -np.log(scale) + 0.0 * z, -np.inf)


def uniform_pdf(x, loc=0.0, scale=1.0):
    return np.exp(uniform_logpdf(x, loc, scale))


def uniform_cdf(x, loc=0.0, scale=1.0):
    return np.clip((x - loc) / scale, 0.0, 1.0)


def uniform_logcdf(x, loc=0.0, scale=1.0):
    return np.log(uniform_cdf(x, loc, scale))


def uniform_sf(x, loc=0.0, scale=1.0):
    return 1.0 - uniform_cdf(x, loc, scale)


def uniform_logsf(x, loc=0.0, scale=1.0):
    return np.log(uniform_sf(x, loc, scale))


def uniform_ppf(q, loc=0.0, scale=1.0):
    return q * scale + loc


# ---- lognorm(s): the log of x - loc over scale normal with sd s


def lognorm_logpdf(x, s, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    y = np.log(_inside(z > 0.0, z, 1.0))
    return np.where(z > 0.0, -0.5 * (y / s) ** 2 - y - np.log(s) - _HALF_LOG_TWO_PI - np.log(scale), -np.inf)


def lognorm_pdf(x, s, loc=0.0, scale=1.0):
    return np.exp(lognorm_logpdf(x, s, loc, scale))


def lognorm_cdf(x, s, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.where(z > 0.0, ndtr(np.log(_inside(z > 0.0, z, 1.0)) / s), 0.0)


def lognorm_logcdf(x, s, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.where(z > 0.0, log_ndtr(np.log(_inside(z > 0.0, z, 1.0)) / s), -np.inf)


def lognorm_sf(x, s, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.where(z > 0.0, ndtr(-np.log(_inside(z > 0.0, z, 1.0)) / s), 1.0)


def lognorm_logsf(x, s, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.where(z > 0.0, log_ndtr(-np.log(_inside(z > 0.0, z, 1.0)) / s), 0.0)


def lognorm_ppf(q, s, loc=0.0, scale=1.0):
    return np.exp(s * ndtri(q)) * scale + loc


# ---- t(df), gamma(a), beta(a, b)


def t_logpdf(x, df, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    norm = gammaln((df + 1.0) / 2.0) - gammaln(df / 2.0) - 0.5 * (np.log(df) + _LOG_PI)
    return norm - (df + 1.0) / 2.0 * np.log1p(z * z / df) - np.log(scale)


def t_pdf(x, df, loc=0.0, scale=1.0):
    return np.exp(t_logpdf(x, df, loc, scale))


def gamma_logpdf(x, a, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    zs = _inside(z > 0.0, z, 1.0)
    return np.where(z > 0.0, xlogy(a - 1.0, zs) - zs - gammaln(a) - np.log(scale), -np.inf)


def gamma_pdf(x, a, loc=0.0, scale=1.0):
    return np.exp(gamma_logpdf(x, a, loc, scale))


def gamma_cdf(x, a, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.where(z > 0.0, gammainc(a, _inside(z > 0.0, z, 1.0)), 0.0)


def gamma_sf(x, a, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return np.where(z > 0.0, gammaincc(a, _inside(z > 0.0, z, 1.0)), 1.0)


def beta_logpdf(x, a, b, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    inside = (z > 0.0) & (z < 1.0)
    zs = _inside(inside, z, 0.5)
    return np.where(inside, xlogy(a - 1.0, zs) + xlog1py(b - 1.0, -zs) - betaln(a, b) - np.log(scale), -np.inf)


def beta_pdf(x, a, b, loc=0.0, scale=1.0):
    return np.exp(beta_logpdf(x, a, b, loc, scale))


# ---- poisson(mu): a count k - loc


def poisson_logpmf(k, mu, loc=0.0):
    n = k - loc
    inside = (n >= 0.0) & (n == np.floor(n))
    ns = _inside(inside, n, 0.0)
    return np.where(inside, xlogy(ns, mu) - gammaln(ns + 1.0) - mu, -np.inf)


def poisson_pmf(k, mu, loc=0.0):
    return np.exp(poisson_logpmf(k, mu, loc))


def _left_out() -> None:
    """gamma's cdf and sf in ``a`` (scipy.special.gammainc's derivative in it has no closed form): refused at the
    user's call where ``a`` varies (``rules.custom.NOT_IN``)."""
    from .custom import NOT_IN

    NOT_IN[gamma_cdf] = ((1,), "scipy.stats.gamma.cdf")
    NOT_IN[gamma_sf] = ((1,), "scipy.stats.gamma.sf")


_left_out()
METHODS = {"logpdf": logpdf, "pdf": pdf, "cdf": cdf, "logcdf": logcdf, "sf": sf, "logsf": logsf, "ppf": ppf}
FAMILIES = ("expon", "laplace", "logistic", "cauchy", "uniform", "lognorm", "t", "gamma", "beta", "poisson")
DISTRIBUTIONS = {"norm": METHODS} | {
    family: {
        name[len(family) + 1 :]: value
        for name, value in globals().items()
        if name.startswith(family + "_") and callable(value) and name[len(family) + 1 :].isidentifier()
    }
    for family in FAMILIES
}


def written(target):
    """The function of this module computing what ``target``, a method of a ``scipy.stats`` distribution,
    does; None for anything else."""
    import scipy.stats

    name = getattr(target, "__name__", None)
    for family, methods in DISTRIBUTIONS.items():
        if getattr(target, "__self__", None) is getattr(scipy.stats, family, None) and name in methods:
            return methods[name]
    return None


def offered() -> str:
    """What a refusal says adcompiler differentiates: each distribution and its methods."""
    return "; ".join(f"{family}'s {', '.join(methods)}" for family, methods in DISTRIBUTIONS.items())
