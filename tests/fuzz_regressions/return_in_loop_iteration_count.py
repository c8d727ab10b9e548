# fuzz: {'params': [('float', 'z')], 'outputs': 1, 'point': [-0.34592]}
# xfail: reverse mode crashes (NameError: name 'n_i' is not defined): a for loop that an early return may leave is replayed in the adjoint sweep as `for i in reversed(range(n_i))`, but the primal sweep never counts its iterations into n_i
# found: python -m adcompiler.fuzz --programs 500 --seed 201 (program 88); minimised by hand


def f(z):
    for i in range(3):
        if z > 1.0:
            return 0.5
    return z * z
