"""GradBench's evals written in plain Python and NumPy, as their READMEs define them.

One module per eval (https://github.com/gradbench/gradbench/tree/main/evals): the objective the
way a scientist writes it, loops where the mathematics has loops, NumPy where it is natural, and
nothing bent to suit adcompiler.  ``tool.py`` differentiates these functions with adcompiler as a
user would; ``particle`` and ``saddle`` call ``adcompiler.grad``/``jvp`` inside the function
(nested derivatives), as the evals ask.
"""

EVALS = ("det", "gmm", "ba", "ht", "kmeans", "llsq", "lse", "lstm", "ode", "particle", "saddle")

# The evals whose peers differentiate another formulation than the one written here, which the
# modules also hold (kmeans: ``cost_matmul``, the matrix-product expansion GradBench's JAX and PyTorch
# tools use; ba: ``reproj_errs``, the observations batched into arrays, which JAX does with vmap).
PEERS_FORMULATION = ("ba", "kmeans")
