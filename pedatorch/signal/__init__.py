"""``pedatorch.signal``: PyTorch's ``torch.signal`` (its one submodule: ``windows``)."""
from . import windows  # noqa: F401

__all__ = ["windows"]
