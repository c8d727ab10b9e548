# fuzz: {'params': [('float', 'x'), ('list', 'xs', 3)], 'outputs': 1, 'point': [-0.200274, [1.17042, -1.173517, 0.775306]]}
# found: python -m adcompiler.fuzz --programs 500 --seed 203 (program 480: h0(a, ws) returning a constant); minimised by hand


def h(a, ws):
    return 0.5 * a


def f(x, xs):
    return h(x, xs) + xs[0]
