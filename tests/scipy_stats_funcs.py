"""One function per method of a scipy.stats distribution adcompiler writes (tests/test_scipy_stats_families.py):
the sum of the method over x, its shape parameters, loc and scale by position."""

import numpy as np
import scipy.stats as st


def norm_logpdf(x, loc, scale):
    return np.sum(st.norm.logpdf(x, loc, scale))


def norm_pdf(x, loc, scale):
    return np.sum(st.norm.pdf(x, loc, scale))


def norm_cdf(x, loc, scale):
    return np.sum(st.norm.cdf(x, loc, scale))


def norm_logcdf(x, loc, scale):
    return np.sum(st.norm.logcdf(x, loc, scale))


def norm_sf(x, loc, scale):
    return np.sum(st.norm.sf(x, loc, scale))


def norm_logsf(x, loc, scale):
    return np.sum(st.norm.logsf(x, loc, scale))


def norm_ppf(x, loc, scale):
    return np.sum(st.norm.ppf(x, loc, scale))


def expon_logpdf(x, loc, scale):
    return np.sum(st.expon.logpdf(x, loc, scale))


def expon_pdf(x, loc, scale):
    return np.sum(st.expon.pdf(x, loc, scale))


def expon_cdf(x, loc, scale):
    return np.sum(st.expon.cdf(x, loc, scale))


def expon_logcdf(x, loc, scale):
    return np.sum(st.expon.logcdf(x, loc, scale))


def expon_sf(x, loc, scale):
    return np.sum(st.expon.sf(x, loc, scale))


def expon_logsf(x, loc, scale):
    return np.sum(st.expon.logsf(x, loc, scale))


def expon_ppf(x, loc, scale):
    return np.sum(st.expon.ppf(x, loc, scale))


def laplace_logpdf(x, loc, scale):
    return np.sum(st.laplace.logpdf(x, loc, scale))


def laplace_pdf(x, loc, scale):
    return np.sum(st.laplace.pdf(x, loc, scale))


def laplace_cdf(x, loc, scale):
    return np.sum(st.laplace.cdf(x, loc, scale))


def laplace_logcdf(x, loc, scale):
    return np.sum(st.laplace.logcdf(x, loc, scale))


def laplace_sf(x, loc, scale):
    return np.sum(st.laplace.sf(x, loc, scale))


def laplace_logsf(x, loc, scale):
    return np.sum(st.laplace.logsf(x, loc, scale))


def laplace_ppf(x, loc, scale):
    return np.sum(st.laplace.ppf(x, loc, scale))


def logistic_logpdf(x, loc, scale):
    return np.sum(st.logistic.logpdf(x, loc, scale))


def logistic_pdf(x, loc, scale):
    return np.sum(st.logistic.pdf(x, loc, scale))


def logistic_cdf(x, loc, scale):
    return np.sum(st.logistic.cdf(x, loc, scale))


def logistic_logcdf(x, loc, scale):
    return np.sum(st.logistic.logcdf(x, loc, scale))


def logistic_sf(x, loc, scale):
    return np.sum(st.logistic.sf(x, loc, scale))


def logistic_logsf(x, loc, scale):
    return np.sum(st.logistic.logsf(x, loc, scale))


def logistic_ppf(x, loc, scale):
    return np.sum(st.logistic.ppf(x, loc, scale))


def cauchy_logpdf(x, loc, scale):
    return np.sum(st.cauchy.logpdf(x, loc, scale))


def cauchy_pdf(x, loc, scale):
    return np.sum(st.cauchy.pdf(x, loc, scale))


def cauchy_cdf(x, loc, scale):
    return np.sum(st.cauchy.cdf(x, loc, scale))


def cauchy_logcdf(x, loc, scale):
    return np.sum(st.cauchy.logcdf(x, loc, scale))


def cauchy_sf(x, loc, scale):
    return np.sum(st.cauchy.sf(x, loc, scale))


def cauchy_logsf(x, loc, scale):
    return np.sum(st.cauchy.logsf(x, loc, scale))


def cauchy_ppf(x, loc, scale):
    return np.sum(st.cauchy.ppf(x, loc, scale))


def uniform_logpdf(x, loc, scale):
    return np.sum(st.uniform.logpdf(x, loc, scale))


def uniform_pdf(x, loc, scale):
    return np.sum(st.uniform.pdf(x, loc, scale))


def uniform_cdf(x, loc, scale):
    return np.sum(st.uniform.cdf(x, loc, scale))


def uniform_logcdf(x, loc, scale):
    return np.sum(st.uniform.logcdf(x, loc, scale))


def uniform_sf(x, loc, scale):
    return np.sum(st.uniform.sf(x, loc, scale))


def uniform_logsf(x, loc, scale):
    return np.sum(st.uniform.logsf(x, loc, scale))


def uniform_ppf(x, loc, scale):
    return np.sum(st.uniform.ppf(x, loc, scale))


def lognorm_logpdf(x, loc, scale, s0):
    return np.sum(st.lognorm.logpdf(x, s0, loc, scale))


def lognorm_pdf(x, loc, scale, s0):
    return np.sum(st.lognorm.pdf(x, s0, loc, scale))


def lognorm_cdf(x, loc, scale, s0):
    return np.sum(st.lognorm.cdf(x, s0, loc, scale))


def lognorm_logcdf(x, loc, scale, s0):
    return np.sum(st.lognorm.logcdf(x, s0, loc, scale))


def lognorm_sf(x, loc, scale, s0):
    return np.sum(st.lognorm.sf(x, s0, loc, scale))


def lognorm_logsf(x, loc, scale, s0):
    return np.sum(st.lognorm.logsf(x, s0, loc, scale))


def lognorm_ppf(x, loc, scale, s0):
    return np.sum(st.lognorm.ppf(x, s0, loc, scale))


def t_logpdf(x, loc, scale, s0):
    return np.sum(st.t.logpdf(x, s0, loc, scale))


def t_pdf(x, loc, scale, s0):
    return np.sum(st.t.pdf(x, s0, loc, scale))


def gamma_logpdf(x, loc, scale, s0):
    return np.sum(st.gamma.logpdf(x, s0, loc, scale))


def gamma_pdf(x, loc, scale, s0):
    return np.sum(st.gamma.pdf(x, s0, loc, scale))


def gamma_cdf(x, loc, scale, s0):
    return np.sum(st.gamma.cdf(x, s0, loc, scale))


def gamma_sf(x, loc, scale, s0):
    return np.sum(st.gamma.sf(x, s0, loc, scale))


def beta_logpdf(x, loc, scale, s0, s1):
    return np.sum(st.beta.logpdf(x, s0, s1, loc, scale))


def beta_pdf(x, loc, scale, s0, s1):
    return np.sum(st.beta.pdf(x, s0, s1, loc, scale))


def poisson_logpmf(k, mu):
    return np.sum(st.poisson.logpmf(k, mu))


def poisson_pmf(k, mu):
    return np.sum(st.poisson.pmf(k, mu, loc=1.0))


def gamma_model(theta, data):
    """A log likelihood over data points one at a time (numbers, not arrays): keywords, as users write them."""
    total = 0.0
    for d in data:
        total = total + st.gamma.logpdf(d, theta[0], scale=theta[1]) + st.t.logpdf(d, df=theta[2], loc=0.5)
    return total


def gamma_cdf_in_a(x, a):
    """gamma.cdf's derivative in a has no rule: refused at this line where a varies."""
    return np.sum(st.gamma.cdf(x, a, scale=2.0))
