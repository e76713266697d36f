"""``torch.nn.attention``: choosing the kernel of ``F.scaled_dot_product_attention``.

PyTorch has several attention kernels (FlashAttention, memory-efficient, cuDNN, and the plain "math"
formula) and picks one per call; ``sdpa_kernel`` limits the choice inside a ``with`` block.  pedatorch
always computes the math formula (softmax(q k^T / sqrt(d)) v, written out in
``nn/functional``), so the switches change no number: they are kept, in
``pedatorch.backends.cuda``, for programs that set and read them.
"""
import contextlib
from enum import IntEnum

from ...backends import cuda as _flags

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(IntEnum):
    """The attention kernels PyTorch can pick (``ERROR`` means none fits)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __repr__(self):
        return f"<SDPBackend.{self.name}: {self.value}>"

    def __str__(self):
        return f"SDPBackend.{self.name}"


# which switch of pedatorch.backends.cuda each backend is
_SWITCH = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash",
           SDPBackend.EFFICIENT_ATTENTION: "mem_efficient", SDPBackend.CUDNN_ATTENTION: "cudnn"}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Allow only ``backends`` (one SDPBackend or a list) inside the block; the switches are restored after."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                             f"got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    wanted = {_SWITCH[b] for b in backends if b in _SWITCH}
    saved = {name: _flags._sdp[name] for name in _SWITCH.values()}
    try:
        for name in _SWITCH.values():
            _flags._sdp[name] = name in wanted
        yield {}
    finally:
        _flags._sdp.update(saved)
