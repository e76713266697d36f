"""``pedatorch.backends.openmp``: OpenMP threading (``torch.backends.openmp``)."""
__all__ = ["is_available"]


def is_available():
    """Does pedatorch run its own loops on OpenMP threads?  No: numpy runs them (BLAS may thread)."""
    return False
