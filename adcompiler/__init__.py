"""adcompiler: source-to-source automatic differentiation for plain Python.

@adcompiler.differentiate
def f(x, y): ...

f.jvp((x, y), (tx, ty))   # forward mode
f.vjp((x, y), ct)         # reverse mode
f.grad(x, y)              # gradient of a scalar output
f.source("reverse")       # the generated derivative code
"""

from .api.differentiable import Differentiable, differentiate
from .api.check import check_grad
from .api.custom_rules import custom_jvp, custom_vjp
from .errors import MissingRuleError, UnsupportedSyntaxError
from .api.functional import grad, hessian, hvp, jacfwd, jacrev, jvp, ravel, value_and_grad, vjp
from .api.higher import hessian_matrix, jacobian
from .front.parallel import prange
from .rules import defrule

__all__ = [
    "Differentiable",
    "MissingRuleError",
    "UnsupportedSyntaxError",
    "check_grad",
    "custom_jvp",
    "custom_vjp",
    "defrule",
    "differentiate",
    "grad",
    "hessian",
    "hessian_matrix",
    "hvp",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "prange",
    "ravel",
    "value_and_grad",
    "vjp",
]
try:
    from importlib.metadata import version as _installed_version

    __version__ = _installed_version("adcompiler")
except Exception:  # noqa: BLE001 - run from a bare checkout: no metadata
    __version__ = "0.1.0"
