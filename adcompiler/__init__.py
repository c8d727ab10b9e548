"""adcompiler: source-to-source automatic differentiation for plain Python.

@adcompiler.differentiate
def f(x, y): ...

f.jvp((x, y), (tx, ty))   # forward mode
f.vjp((x, y), ct)         # reverse mode
f.grad(x, y)              # gradient of a scalar output
f.source("reverse")       # the generated derivative code
"""

from .api import Differentiable, differentiate
from .errors import MissingRuleError, UnsupportedSyntaxError

__all__ = [
    "Differentiable",
    "MissingRuleError",
    "UnsupportedSyntaxError",
    "differentiate",
]
__version__ = "0.1.0"
