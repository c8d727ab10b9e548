# fuzz: {'params': [('float', 'z')], 'outputs': 1, 'point': [-0.34592]}
# found: python -m adcompiler.fuzz --programs 500 --seed 201 (program 88); minimised by hand


def f(z):
    for i in range(3):
        if z > 1.0:
            return 0.5
    return z * z
