# fuzz: {'params': [('float', 'x')], 'outputs': 1, 'point': [1.286572]}
# found: python -m adcompiler.fuzz --programs 500 --seed 201 (program 63: ys1[1] = (-0.2) in a branch); minimised by hand


def f(x):
    ys = [x, x]
    ys[1] = 0.5
    return ys[0] * ys[1]
