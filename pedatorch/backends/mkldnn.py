"""``pedatorch.backends.mkldnn``: flags for Intel's oneDNN library (``torch.backends.mkldnn``).

pedatorch does not use oneDNN (numpy does its CPU work), so ``is_available()`` is False.  The
flags are kept and checked as in PyTorch; they change nothing here.
"""
import sys
from contextlib import contextmanager

from . import _Flag, _OpPrecision, _allow_mutation, _bool_check, _flag_module, _precision_check

__all__ = ["is_available", "is_acl_available", "flags", "set_flags", "verbose", "VERBOSE_OFF", "VERBOSE_ON",
           "VERBOSE_ON_CREATION"]


def is_available():
    """Is oneDNN there?  Not in pedatorch."""
    return False


def is_acl_available():
    """Is oneDNN built with Arm's Compute Library?  Not in pedatorch."""
    return False


VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2


class verbose:
    """``with mkldnn.verbose(VERBOSE_ON):`` makes oneDNN log its kernels; without oneDNN, nothing to log."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        return None if self.level == VERBOSE_OFF else self

    def __exit__(self, *exc_info):
        return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    """Set the flags that are not None; return the old values, for ``flags()`` to restore."""
    module = sys.modules[__name__]
    orig_flags = (module.enabled, module.deterministic, module.allow_tf32, module.fp32_precision)
    if _enabled is not None:
        module.enabled = _enabled
    if _deterministic is not None:
        module.deterministic = _deterministic
    if _allow_tf32 is not None:
        module.allow_tf32 = _allow_tf32
    if _fp32_precision is not None:
        module.fp32_precision = _fp32_precision
    return orig_flags


@contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """Set the oneDNN flags inside the ``with`` block; the old values come back after it."""
    with _allow_mutation():
        orig_flags = set_flags(enabled, deterministic, allow_tf32, fp32_precision)
    try:
        yield
    finally:
        with _allow_mutation():
            set_flags(*orig_flags)


matmul = _OpPrecision("mkldnn", "none")
conv = _OpPrecision("mkldnn", "none")
rnn = _OpPrecision("mkldnn", "none")

_flag_module(
    __name__,
    enabled=_Flag(True, _bool_check("set_enabled_mkldnn")),
    deterministic=_Flag(False, _bool_check("set_deterministic_mkldnn")),
    allow_tf32=_Flag(False, _bool_check("_set_onednn_allow_tf32")),
    fp32_precision=_Flag("none", _precision_check("mkldnn")),
)
