"""``pedatorch.backends.nnpack``: the NNPACK CPU convolution library (``torch.backends.nnpack``)."""
from contextlib import contextmanager

from . import _allow_mutation

__all__ = ["is_available", "flags", "set_flags"]

_enabled = True


def is_available():
    """Is NNPACK there?  Not in pedatorch."""
    return False


def set_flags(_enabled_value):
    """Set whether NNPACK may be used; return the old value in a tuple."""
    global _enabled
    orig_flags = (_enabled,)
    _enabled = _enabled_value
    return orig_flags


@contextmanager
def flags(enabled=False):
    """Set whether NNPACK may be used inside the ``with`` block."""
    with _allow_mutation():
        orig_flags = set_flags(enabled)
    try:
        yield
    finally:
        with _allow_mutation():
            set_flags(orig_flags[0])
