"""What users call: ``differentiate`` (``differentiable``) and its entry points (``entries``), the
JAX-style functions (``functional``, ``higher``), ``check_grad`` (``check``), custom rules
(``custom_rules``), and what the API does with the arguments of a call: binding and refusing them
(``arguments``, ``iterables``), records and pytrees (``trees``), methods, ``*args``, pickling, and
what a call runs (``runs``)."""
