"""User functions outside the differentiable subset, for test_error_catalogue.py.

Each function uses one unsupported construct; the line holding it carries a
marker comment ``# ERR:<name>`` and the test looks the marker up to learn the
line number adcompiler must report. Keep one marker per name. The functions
are never called directly; they live in a real file because adcompiler reads
source with inspect.
"""

import math

import numpy as np

COUNTER = 0.0


def c_class(x):
    class Point:  # ERR:class
        pass

    return x * 2.0


def c_try_except(x):
    y = x * 2.0
    try:  # ERR:try_except
        y = math.log(y)
    except ValueError:
        y = 0.0
    return y


def c_try_finally(x):
    y = x * 2.0
    try:  # ERR:try_finally
        y = y + 1.0
    finally:
        y = y * 3.0
    return y


def c_try_star(x):
    y = x * 2.0
    try:  # ERR:try_star
        y = y + 1.0
    except* ValueError:
        y = 0.0
    return y


def c_with(x):
    y = x * 2.0
    with open(__file__) as fh:  # ERR:with
        y = y + 1.0
    return y


def c_yield(x):
    y = x * 2.0
    yield y  # ERR:yield


def c_yield_value(x):
    y = yield x  # ERR:yield_value
    return y


def c_yield_from(x):
    yield from [x, x]  # ERR:yield_from
    return x


def c_genexp(x):
    g = (x * i for i in range(3))  # ERR:genexp
    return sum(g)


async def c_async_def(x):  # ERR:async_def
    return x * 2.0


async def c_await(x):
    y = await c_async_def(x)  # ERR:await
    return y


def c_global(x):
    global COUNTER  # ERR:global
    COUNTER = x
    return x * 2.0


def make_nonlocal():
    acc = 0.0

    def c_nonlocal(x):
        nonlocal acc  # ERR:nonlocal
        acc = x
        return x * 2.0

    return c_nonlocal


def c_nested_nonlocal(x):
    acc = 0.0

    def bump(v):
        nonlocal acc  # ERR:nested_nonlocal
        acc = acc + v

    bump(x)
    return acc


def c_lambda(x):
    sq, cube = lambda u: u * u, lambda u: u**3  # ERR:lambda
    return sq(x) + cube(x)


def c_nested_recursive(x):
    def power(u, n):  # ERR:nested_recursive
        return 1.0 if n == 0 else u * power(u, n - 1)

    return power(x, 3)


def c_nested_escape(x):
    def scale(u):
        return u * x

    fs = [scale]  # ERR:nested_escape
    return fs[0](x)


SHIFTS = [0.5, 1.5]


def c_const_list_write(x):
    SHIFTS[0] = x  # ERR:const_list_write
    return x * SHIFTS[0]


def c_draw_params(x):
    return np.sum(np.random.normal(x, 1.0, size=3))  # ERR:draw_params


def c_kwargs(x, **options):  # ERR:kwargs
    return x * 2.0


def c_kwonly(x, *, scale):  # ERR:kwonly
    return x * scale


def c_posonly(x, y, /):  # ERR:posonly
    return x * y


def c_walrus(x):
    y = (z := x * 2.0) + 1.0  # ERR:walrus
    return y + z


def c_match(x):
    k = 1
    match k:  # ERR:match
        case 1:
            y = x * 2.0
        case _:
            y = x
    return y


def c_del(x):
    y = x * 2.0
    z = y + 1.0
    del y  # ERR:del
    return z


def c_dict(x):
    d = {0: x, 1: x * 2.0}  # ERR:dict
    return x * 3.0


def c_dictcomp(x):
    d = {i: x * i for i in range(3)}  # ERR:dictcomp
    return x * 3.0


def c_set(x):
    s = {x, x * 2.0}  # ERR:set
    return x * 3.0


def c_setcomp(x):
    s = {x * i for i in range(3)}  # ERR:setcomp
    return x * 3.0


def c_string_arith(x):
    y = x * "2.0"  # ERR:string_arith
    return y


def c_raise(x):
    if x < 0.0:
        raise ValueError  # ERR:raise
    return x * 2.0


def c_import(x):
    import cmath  # ERR:import

    return x * 2.0


def c_import_from(x):
    from math import sin  # ERR:import_from

    return sin(x)


# A function with no source: exec compiles it from a string, so inspect cannot
# read it. The test differentiates it directly, and through c_call_no_source.
_NS = {}
exec("def no_source(u):\n    return u * u\n", _NS)
no_source = _NS["no_source"]


def c_call_no_source(x):
    y = no_source(x) + 1.0  # ERR:call_no_source
    return y


def c_ulp(x):
    y = math.ulp(x) * 2.0  # ERR:ulp
    return y


def c_divmod(xs):
    q, r = divmod(xs[0], 2.0)  # ERR:divmod
    return r * 2.0


def c_array_param_write(A):
    A[0] = 1.0  # ERR:array_param_write
    return np.sum(A * A)


def c_no_return(x):  # ERR:no_return_def
    y = x * 2.0


def c_bare_return(x):
    y = x * 2.0
    return  # ERR:bare_return


def c_tuple_shapes(x):
    if x > 0.0:
        return x, x * 2.0
    return x, x * 2.0, x * 3.0  # ERR:tuple_shapes


def c_call_local(x):
    g = x * 2.0
    y = g(x)  # ERR:call_local
    return y


def c_function_value(x):
    g = math.sin  # ERR:function_value
    y = g(x)
    return y


def c_attr_local(x):
    y = x * 2.0
    z = y.strides  # ERR:attr_local
    return z


class _Scaled:
    def __init__(self, a):
        self.a = a


def c_attr_assign(x):
    s = _Scaled(x)
    s.a = s.a * 2.0  # ERR:attr_assign
    return s.a


def c_annassign(x):
    y: float = x * 2.0  # ERR:annassign
    return y


def c_starred_call(x):
    args = [x, 2.0]
    y = math.pow(*args)  # ERR:starred_call
    return y


def c_bitwise(x):
    y = x * 2.0
    z = y & 1  # ERR:bitwise
    return z


def c_is_compare(x):
    y = x * 2.0
    if y is x:  # ERR:is_compare
        y = 1.0
    return y


def c_loop_var_after(x):
    for i in range(3):
        x = x * 2.0
    return x * i  # ERR:loop_var_after


def c_loop_var_reassigned(x):
    for i in range(3):
        x = x * 2.0
    i = 5  # ERR:loop_var_reassigned
    return x * i


def c_param_loop_var(x, xs):
    s = 0.0
    for x in xs:  # ERR:param_loop_var
        s = s + x * x
    return s + x


def c_list_slice_assign(xs):
    ys = list(xs)
    ys[1:3] = [xs[0], xs[0]]  # ERR:list_slice_assign
    return ys[1] * ys[2]


def c_linalg_eigh(a):  # (the marker's name is README's; eig is refused: its values may be complex)
    w, v = np.linalg.eig(a)  # ERR:linalg_eigh
    return np.sum(w)


def c_add_at(x):
    y = np.zeros(3)
    np.multiply.at(y, [0, 0], x)  # ERR:add_at
    return np.sum(y)


def c_mixed_list_read(x, i):
    xs = [x, [x, x]]
    y = xs[i]
    return y * 2.0  # ERR:mixed_list_read (a number for i = 0)
