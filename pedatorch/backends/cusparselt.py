"""``pedatorch.backends.cusparselt``: NVIDIA's structured-sparsity library (``torch.backends.cusparselt``)."""
__all__ = ["version", "is_available", "get_max_alg_id"]


def version():
    """cuSPARSELt's version number, or None without it."""
    return None


def is_available():
    """Is cuSPARSELt there?  Not in pedatorch."""
    return False


def get_max_alg_id():
    return None
