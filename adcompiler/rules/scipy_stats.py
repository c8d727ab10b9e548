"""``scipy.stats.norm``'s methods (issue 37), each written as a function of the standardised variable
``z = (x - loc) / scale`` with what adcompiler differentiates (NumPy, and ``scipy.special``'s ``ndtr``,
``log_ndtr`` and ``ndtri``, whose rules are in ``rules/scipy_special.py``).  A call ``norm.logpdf(x, loc=m,
scale=s)`` is lowered as a call of the function of this module of the same name, its arguments bound
as SciPy binds them (positional or keyword), so both modes, second order and the generated code are
those of any function of the user's.  The values are SciPy's to rounding; a scale that is not positive
gives NaN where SciPy does, infinities where the formula does (SciPy: NaN).

Imported only when the user's code calls ``scipy.stats.norm`` (SciPy is then imported).
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri


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


METHODS = {"logpdf": logpdf, "pdf": pdf, "cdf": cdf, "logcdf": logcdf, "sf": sf, "logsf": logsf, "ppf": ppf}


def written(target):
    """The function of this module computing what ``target``, a method of ``scipy.stats.norm``, does;
    None for anything else."""
    import scipy.stats

    name = getattr(target, "__name__", None)
    if getattr(target, "__self__", None) is not scipy.stats.norm or name not in METHODS:
        return None
    return METHODS[name]
