"""``pedatorch.cpu.amp``: the older spelling of ``pedatorch.amp`` for the CPU (``torch.cpu.amp``), deprecated.

``torch.cpu.amp.autocast(...)`` is ``torch.amp.autocast("cpu", ...)`` and ``torch.cpu.amp.GradScaler(...)`` is
``torch.amp.GradScaler("cpu", ...)``; each warns with PyTorch's FutureWarning, then behaves as the new one.
"""
import warnings

from .._warnings import user_stacklevel
from .._dtype import bfloat16
from ..amp.autocast_mode import autocast as _autocast
from ..amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["autocast", "GradScaler"]


class autocast(_autocast):
    """``torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16, cache_enabled=True)``: ``pedatorch.autocast``."""

    def __init__(self, enabled=True, dtype=bfloat16, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=user_stacklevel())
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``torch.cpu.amp.GradScaler(...)``: ``pedatorch.amp.GradScaler("cpu", ...)``."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=user_stacklevel())
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)
