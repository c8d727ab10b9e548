"""The back end: generated programs to Python source, loaded; the runtime helpers they call."""
