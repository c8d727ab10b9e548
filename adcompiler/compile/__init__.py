"""From a user function to loaded generated code: the driver (``pipeline.Program``) that runs the
passes, the lock it builds under (``building``), emission of the IR as Python source (``emit``,
``lines``, ``nesting``, ``origins``), loading it (``load``), and showing it (``display``, ``page``)."""
