"""``pedatorch.utils``: hooks handles, data loading, gradient checkpointing."""
from . import hooks, data  # noqa: F401
