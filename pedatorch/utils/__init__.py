"""``pedatorch.utils``: hooks handles, data loading, gradient checkpointing.

Only ``hooks`` loads with this package: autograd (below the data loader in the layers) imports it. ``data``
and ``checkpoint`` load on first use (``pedatorch.utils.data``), as PyTorch's do after ``import torch``."""
import importlib

from . import hooks  # noqa: F401


def __getattr__(name):
    if name in ("data", "checkpoint", "_pytree", "dlpack"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
