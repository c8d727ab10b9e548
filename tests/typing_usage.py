"""What a user's typed code writes with adcompiler; checked by mypy (tests/test_typing.py), never run."""

import math
from typing import Any, Callable

import adcompiler


@adcompiler.differentiate
def f(x: float, y: float) -> float:
    return x * math.sin(y)


@adcompiler.differentiate(wrt=("x",))
def g(x: float, n: int) -> float:
    return x**n


value: float = f(1.0, 2.0)
gradient: Any = f.grad(1.0, 2.0)
out, tangent = f.jvp((1.0, 2.0), (1.0, 0.0))
out, cotangents = f.vjp((1.0, 2.0), 1.0)
both: tuple[Any, Any] = g.value_and_grad(1.5, 3)
text: str = f.source("reverse")
df: Callable[..., Any] = adcompiler.grad(math.hypot, argnums=(0, 1))
primal, pullback = adcompiler.vjp(f, 1.0, 2.0)
cts: tuple[Any, ...] = pullback(1.0)
jac: Callable[..., Any] = adcompiler.jacfwd(f, argnums=0)
hess: Callable[..., Any] = adcompiler.hessian_matrix(f)
worst: float = adcompiler.check_grad(f, 1.0, 2.0, tol=1e-8)
version: str = adcompiler.__version__


@adcompiler.custom_vjp
def cube(x: float) -> float:
    return x * x * x


def cube_fwd(x: float) -> tuple[float, float]:
    return x * x * x, x


def cube_bwd(x: float, g: float) -> tuple[float]:
    return (3.0 * x * x * g,)


cube.defvjp(cube_fwd, cube_bwd)
three: float = cube(1.0)


@adcompiler.custom_jvp
def square(x: float) -> float:
    return x * x


@square.defjvp
def square_jvp(primals: tuple[float], tangents: tuple[float]) -> tuple[float, float]:
    (x,), (t,) = primals, tangents
    return x * x, 2.0 * x * t
