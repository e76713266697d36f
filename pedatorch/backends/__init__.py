"""``pedatorch.backends``: the flags PyTorch programs set for its compute libraries (``torch.backends``).

PyTorch hands much of its work to libraries (cuDNN, cuBLAS, oneDNN, MKL...) and lets programs
tune them with flags::

    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    with torch.backends.cudnn.flags(enabled=False):
        ...

pedatorch computes everything with numpy (and, later, cupy), so most flags change nothing here.
They still exist, check their values as PyTorch does, and read back what was set, so that
such programs run unchanged.

One trick makes ``cudnn.benchmark = 1`` fail as in PyTorch: each flag is a descriptor
(``_Flag``) on the module's *class*, and the module's class is swapped for a subclass of
``types.ModuleType`` that holds them (``_flag_module``).  An assignment to the module
attribute then runs the descriptor's check.
"""
import sys
from contextlib import contextmanager

__all__ = ["disable_global_flags", "flags_frozen", "flags", "set_flags"]

# PyTorch's test suite freezes the flags so that a test cannot forget to undo a change;
# then only the flags() context managers may change them.
_frozen = False


def disable_global_flags():
    """Forbid plain assignments to flags from now on (``flags()`` context managers still work)."""
    global _frozen
    _frozen = True


def flags_frozen():
    return _frozen


@contextmanager
def _allow_mutation():
    """Let the flags() context managers change flags even when they are frozen."""
    global _frozen
    old, _frozen = _frozen, False
    try:
        yield
    finally:
        _frozen = old


class _Flag:
    """One flag: a default value and a check run on every assignment."""

    def __init__(self, default, check):
        self.value = default
        self.check = check

    def __get__(self, module, owner=None):
        return self.value

    def __set__(self, module, value):
        if _frozen:
            raise RuntimeError(f"not allowed to set {module.__name__} flags after disable_global_flags; "
                               "please use flags() context manager instead")
        self.check(value)
        self.value = value


def _bool_check(setter):
    """A check that accepts only True/False; ``setter`` names PyTorch's C++ setter in the error."""
    def check(value):
        if not isinstance(value, bool):
            raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")
    return check


_PRECISIONS = ("none", "ieee", "tf32", "bf16")


def _precision_check(backend, allowed=_PRECISIONS):
    """A check for an ``fp32_precision`` string ('none', 'ieee', 'tf32', and 'bf16' off cuda)."""
    def check(value):
        if value not in _PRECISIONS:
            raise RuntimeError(f"Unknown precision: {value}")
        if value not in allowed:
            raise RuntimeError(f"backend '{backend}' does not support precision '{value}'")
    return check


def _flag_module(module_name, **flags):
    """Give module ``module_name`` the ``_Flag`` attributes in ``flags``."""
    module = sys.modules[module_name]
    module.__class__ = type(type(module).__name__, (type(module),), flags)
    return module


class _OpPrecision:
    """``cudnn.conv.fp32_precision``: the precision of float32 work for one kind of op."""

    def __init__(self, backend, default, allowed=_PRECISIONS):
        self._check = _precision_check(backend, allowed)
        self._value = default

    @property
    def fp32_precision(self):
        return self._value

    @fp32_precision.setter
    def fp32_precision(self, value):
        self._check(value)
        self._value = value

    def __setattr__(self, name, value):
        if name not in ("fp32_precision", "_check", "_value"):
            raise AttributeError("Unknown attribute " + name)
        super().__setattr__(name, value)


# ---------------------------------------------------------------- the generic flag

def set_flags(_fp32_precision="none"):
    """Set ``fp32_precision`` (unless None); return the old value, for ``flags()`` to restore."""
    module = sys.modules[__name__]
    orig_flags = (module.fp32_precision,)
    if _fp32_precision is not None:
        module.fp32_precision = _fp32_precision
    return orig_flags


@contextmanager
def flags(fp32_precision="none"):
    """Set the generic ``fp32_precision`` inside the ``with`` block."""
    with _allow_mutation():
        orig_flags = set_flags(fp32_precision)
    try:
        yield
    finally:
        with _allow_mutation():
            set_flags(*orig_flags)


_flag_module(__name__, fp32_precision=_Flag("none", _precision_check("generic")))

from . import (cpu, cuda, cudnn, cusparselt, kleidiai, mha, miopen, mkl, mkldnn, mps,  # noqa: E402,F401
               nnpack, openmp, opt_einsum)
