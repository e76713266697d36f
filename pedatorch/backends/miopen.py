"""``pedatorch.backends.miopen``: AMD's MIOpen library (``torch.backends.miopen``); unused by pedatorch."""
import sys
from contextlib import contextmanager

from . import _Flag, _allow_mutation, _bool_check, _flag_module


def set_flags(_immediate=None):
    """Set ``immediate`` (unless None); return the old value in a tuple."""
    module = sys.modules[__name__]
    orig_flags = (module.immediate,)
    if _immediate is not None:
        module.immediate = _immediate
    return orig_flags


@contextmanager
def flags(immediate=False):
    """Set MIOpen's immediate mode inside the ``with`` block."""
    with _allow_mutation():
        orig_flags = set_flags(immediate)
    try:
        yield
    finally:
        with _allow_mutation():
            set_flags(*orig_flags)


_flag_module(__name__, immediate=_Flag(False, _bool_check("set_miopen_immediate")))
