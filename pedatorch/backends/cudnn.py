"""``pedatorch.backends.cudnn``: flags for NVIDIA's cuDNN library (``torch.backends.cudnn``).

pedatorch never calls cuDNN (its convolutions are its own code, on numpy or cupy), so
``is_available()`` is False and ``version()`` is None, as on a PyTorch built without cuDNN.
The flags are kept, checked and read back as in PyTorch; they change nothing here.
"""
import sys
from contextlib import contextmanager

from . import _Flag, _OpPrecision, _allow_mutation, _bool_check, _flag_module, _precision_check

__all__ = ["is_available", "version", "is_acceptable", "flags", "set_flags"]

_CUDA_PRECISIONS = ("none", "ieee", "tf32")   # cuDNN has no bf16 mode for float32 work


def is_available():
    """Is cuDNN there?  Never in pedatorch."""
    return False


def version():
    """cuDNN's version number, or None without cuDNN."""
    return None


def is_acceptable(tensor):
    """Would PyTorch hand this tensor to cuDNN?  Not without cuDNN."""
    return False


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None, _allow_tf32=None,
              _fp32_precision="none", _depthwise_kernel=None):
    """Set the flags that are not None; return the old values, for ``flags()`` to restore."""
    module = sys.modules[__name__]
    orig_flags = (module.enabled, module.benchmark, module.benchmark_limit, module.deterministic,
                  module.allow_tf32, module.fp32_precision, module.depthwise_kernel)
    if _enabled is not None:
        module.enabled = _enabled
    if _benchmark is not None:
        module.benchmark = _benchmark
    # benchmark_limit exists only where cuDNN does (PyTorch ignores it elsewhere, and so do we)
    if _deterministic is not None:
        module.deterministic = _deterministic
    if _allow_tf32 is not None:
        module.allow_tf32 = _allow_tf32
    if _fp32_precision is not None:
        module.fp32_precision = _fp32_precision
    if _depthwise_kernel is not None:
        module.depthwise_kernel = _depthwise_kernel
    return orig_flags


@contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
          fp32_precision="none", depthwise_kernel="auto"):
    """Set the cuDNN flags inside the ``with`` block; the old values come back after it.

    As in PyTorch the defaults are *not* the current values: ``flags()`` alone turns cuDNN off.
    """
    with _allow_mutation():
        orig_flags = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32,
                               fp32_precision, depthwise_kernel)
    try:
        yield
    finally:
        with _allow_mutation():
            set_flags(*orig_flags)


def _depthwise_check(value):
    if not isinstance(value, str):
        raise RuntimeError(f"set_cudnn_depthwise_kernel expects a str, but got {type(value).__name__}")


# the per-op precisions of float32 work (the newer API that replaces allow_tf32)
conv = _OpPrecision("cuda", "tf32", _CUDA_PRECISIONS)
rnn = _OpPrecision("cuda", "tf32", _CUDA_PRECISIONS)

_flag_module(
    __name__,
    enabled=_Flag(True, _bool_check("set_enabled_cudnn")),
    benchmark=_Flag(False, _bool_check("set_benchmark_cudnn")),
    deterministic=_Flag(False, _bool_check("set_deterministic_cudnn")),
    allow_tf32=_Flag(True, _bool_check("set_allow_tf32_cudnn")),
    fp32_precision=_Flag("none", _precision_check("cuda", _CUDA_PRECISIONS)),
    depthwise_kernel=_Flag("auto", _depthwise_check),
)
benchmark_limit = None   # how many cuDNN algorithms benchmark=True tries; None without cuDNN
