"""``pedatorch.cuda.amp``: the older spelling of ``pedatorch.amp`` for CUDA (``torch.cuda.amp``), deprecated.

``torch.cuda.amp.autocast(...)`` is ``torch.amp.autocast("cuda", ...)``, ``torch.cuda.amp.GradScaler(...)`` is
``torch.amp.GradScaler("cuda", ...)``; each warns with PyTorch's FutureWarning and then behaves as the new one
(so without a GPU both warn that CUDA is not available and disable themselves).
"""
import functools
import warnings

from .._warnings import user_stacklevel
from . import is_available as _cuda_available
from .._dtype import float16
from ..amp.autocast_mode import autocast as _autocast, custom_bwd as _custom_bwd, custom_fwd as _custom_fwd
from ..amp.grad_scaler import GradScaler as _GradScaler, OptState  # noqa: F401

__all__ = ["amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd", "GradScaler"]


def amp_definitely_not_available():
    """No CUDA: autocast and GradScaler for "cuda" would be pass-throughs."""
    return not _cuda_available()


class autocast(_autocast):
    """``torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)``: ``pedatorch.autocast``."""

    def __init__(self, enabled=True, dtype=float16, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', "
                      "args...)` instead.", FutureWarning, stacklevel=user_stacklevel())
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``torch.cuda.amp.GradScaler(...)``: ``pedatorch.amp.GradScaler("cuda", ...)``."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', "
                      "args...)` instead.", FutureWarning, stacklevel=user_stacklevel())
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``torch.cuda.amp.custom_fwd``: ``pedatorch.amp.custom_fwd(..., device_type='cuda')``."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use `torch.amp.custom_fwd(args..., "
                  "device_type='cuda')` instead.", FutureWarning, stacklevel=user_stacklevel())
    return functools.partial(_custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """``torch.cuda.amp.custom_bwd``: ``pedatorch.amp.custom_bwd(..., device_type='cuda')``."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use `torch.amp.custom_bwd(args..., "
                  "device_type='cuda')` instead.", FutureWarning, stacklevel=user_stacklevel())
    return functools.partial(_custom_bwd, device_type="cuda")(bwd)
