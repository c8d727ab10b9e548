# fuzz: {'params': [('float', 'x'), ('int', 'n')], 'outputs': 1, 'point': [0.3, 2]}
# found: python -m adcompiler.testing.fuzz --mode what --seed 20261204 (program 29); minimised by hand
# jvp raised NameError (fn): the value of a function no derivative flows out of, called through its decorator's
# wrapper, was called by the wrapper's closure variable, which the code was not handed (compile.pipeline.primal_name)
import functools
import math


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@logged
def f(x, n):
    t = math.tanh(x) * n
    return 0.1 * n + 0.5
