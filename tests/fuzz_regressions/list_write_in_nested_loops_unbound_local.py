# fuzz: {'params': [('float', 'x')], 'outputs': 1, 'point': [0.391741]}
# found: python -m adcompiler.fuzz --programs 500 --seed 201 (program 246) and --seed 202 (program 372) on 18d3050: reverse mode raised UnboundLocalError (t2_1) for a constant written into a list element inside nested loops; fixed upstream before this file was written; minimised with --minimise, then by hand


def f(x):
    ys = [x]
    for i in range(len(ys)):
        for v in reversed(ys):
            ys[i] = 0.5**2
    return ys[0] + x
