"""GradBench's evals written in plain Python and NumPy, as their READMEs define them.

One module per eval (https://github.com/gradbench/gradbench/tree/main/evals): the objective the
way a scientist writes it, loops where the mathematics has loops, NumPy where it is natural, and
nothing bent to suit adcompiler.  ``tool.py`` differentiates these functions with adcompiler as a
user would; ``particle`` and ``saddle`` call ``adcompiler.grad``/``jvp`` inside the function
(nested derivatives), as the evals ask.
"""

EVALS = ("det", "gmm", "ba", "ht", "kmeans", "llsq", "lse", "lstm", "ode", "particle", "saddle")
