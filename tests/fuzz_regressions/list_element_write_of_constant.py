# fuzz: {'params': [('float', 'x')], 'outputs': 1, 'point': [1.286572]}
# xfail: reverse mode cannot be built (AttributeError: 'Const' object has no attribute 'name' in sweep.shadow_code): writing a number literal into an element of an active list (ys[1] = 0.5) asks the literal for its name when it builds the shadow list's write
# found: python -m adcompiler.fuzz --programs 500 --seed 201 (program 63: ys1[1] = (-0.2) in a branch); minimised by hand


def f(x):
    ys = [x, x]
    ys[1] = 0.5
    return ys[0] * ys[1]
