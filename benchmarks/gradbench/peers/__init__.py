"""Peer tools for the GradBench harness: JAX and PyTorch ports of the evals GradBench's own JAX and
PyTorch tools lack (and, for JAX, of every eval: the relay's reference when GradBench's drivers
cannot run)."""
