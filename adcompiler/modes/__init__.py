"""The two modes of differentiation: forward (tangents), reverse (primal and adjoint sweeps)."""
