"""``pedatorch.backends.opt_einsum``: contraction-order search for einsum (``torch.backends.opt_einsum``).

PyTorch uses the ``opt_einsum`` package when it is installed.  These flags say whether it is
there and whether to use it; pedatorch's einsum is numpy's, which ignores them.
"""
import importlib.util
from contextlib import contextmanager

from . import _allow_mutation

__all__ = ["is_available", "get_opt_einsum", "flags", "set_flags"]


def is_available():
    """Is the ``opt_einsum`` package installed?"""
    return importlib.util.find_spec("opt_einsum") is not None


# Plain attributes: PyTorch checks values only in set_flags()/flags(), not on assignment.
enabled = is_available()
strategy = "auto" if is_available() else None


def get_opt_einsum():
    """The ``opt_einsum`` package, or None when it is not installed."""
    if not is_available():
        return None
    import opt_einsum
    return opt_einsum


def _set_enabled(value):
    global enabled
    if value and not is_available():
        raise ValueError(f"opt_einsum is not available, so setting `enabled` to {value} will not reap the benefits "
                         "of calculating an optimal path for einsum. torch.einsum will fall back to contracting "
                         "from left to right. To enable this optimal path calculation, please install opt-einsum.")
    enabled = value


def _set_strategy(value):
    global strategy
    if not is_available():
        raise ValueError(f"opt_einsum is not available, so setting `strategy` to {value} will not be meaningful. "
                         "torch.einsum will bypass path calculation and simply contract from left to right. "
                         "Please install opt_einsum or unset `strategy`.")
    if not enabled:
        raise ValueError(f"opt_einsum is not enabled, so setting a `strategy` to {value} will not be meaningful. "
                         "torch.einsum will bypass path calculation and simply contract from left to right. "
                         "Please set `enabled` to `True` as well or unset `strategy`.")
    if value not in ("auto", "greedy", "optimal"):
        raise ValueError(f"`strategy` must be one of the following: [auto, greedy, optimal] but is {value}")
    strategy = value


def set_flags(_enabled=None, _strategy=None):
    """Set the flags that are not None; return the old values, for ``flags()`` to restore."""
    orig_flags = (enabled, strategy if is_available() else None)
    if _enabled is not None:
        _set_enabled(_enabled)
    if _strategy is not None:
        _set_strategy(_strategy)
    return orig_flags


@contextmanager
def flags(enabled=None, strategy=None):
    """Set the einsum flags inside the ``with`` block."""
    with _allow_mutation():
        orig_flags = set_flags(enabled, strategy)
    try:
        yield
    finally:
        with _allow_mutation():
            set_flags(*orig_flags)


