"""Imported first by every benchmark script, before NumPy: BLAS and OpenMP run on one thread.

On a shared 2-core machine a multi-threaded BLAS spins its threads against the other processes:
under a load of 4, one ``np.dot`` of two 100000-element arrays took 15.8 ms instead of 45 us, which
made every ratio involving it meaningless.  The reference harness runs its workers with one BLAS
thread too.  A variable already set in the environment is left as it is.
"""

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
