"""``pedatorch.accelerator``: the device-agnostic accelerator API (``torch.accelerator``).

Code written against this module runs on whatever accelerator there is, without naming it::

    device = torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")
    model.to(device)

PyTorch asks its build which accelerator it has (CUDA, XPU, MPS, ...) and hands each call to
that device's module (``torch.cuda`` ...).  pedatorch's only accelerator is CUDA through cupy:
it counts as built when cupy is installed (``backends.cuda.is_built()``), and every call below
is handed to ``pedatorch.cuda``.  On a machine without it, ``current_accelerator()`` is None,
``device_count()`` 0, and the rest raise PyTorch's RuntimeError.
"""
import warnings
from collections import OrderedDict

from ._warnings import user_stacklevel
from ._device import device as _device

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "device_count",
           "device_index", "empty_cache", "empty_host_cache", "get_memory_info", "is_available",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx", "set_device_index",
           "synchronize"]

_NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def _device_module():
    """The module of the accelerator's device type (pedatorch.cuda), or None when none is built."""
    from . import backends, cuda
    return cuda if backends.cuda.is_built() else None


def _require():
    """The device module of an accelerator that is usable now; PyTorch's error otherwise."""
    module = _device_module()
    if module is None or not module.is_available():
        raise RuntimeError(_NONE_AVAILABLE)
    return module


def current_accelerator(check_available=False):
    """The accelerator's device type as a device (``device(type='cuda')``), or None.

    Without ``check_available`` this says which accelerator pedatorch is built for (cupy
    installed); with it, also that one is usable now (a GPU is there).
    """
    module = _device_module()
    if module is None or (check_available and not module.is_available()):
        return None
    return _device("cuda")


def is_available():
    """Is there an accelerator to compute on?"""
    module = _device_module()
    return module is not None and module.is_available()


def device_count():
    """How many devices the accelerator has (0 without one)."""
    module = _device_module()
    return 0 if module is None else module.device_count()


def current_device_index():
    """The index of the accelerator device that new work goes to."""
    return _require().current_device()


def current_device_idx():
    """Deprecated name of ``current_device_index``."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=user_stacklevel())
    return current_device_index()


def _get_device_index(device, optional=False):
    """An int index from an int, a str ('cuda:1') or a device; None (when optional) is the current one."""
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _device(device)
    index = None
    if isinstance(device, _device):
        accelerator = current_accelerator()
        if accelerator is None:
            raise RuntimeError("Accelerator expected")
        if accelerator.type != device.type:
            raise ValueError(f"{device.type} doesn't match the current accelerator {accelerator}.")
        index = device.index
    if index is None:
        if not optional:
            raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
        return current_device_index()
    return index


def set_device_index(device, /):
    """Make ``device`` (an index, 'cuda:1' or a device) the current accelerator device.

    A negative index does nothing (PyTorch's rule).
    """
    index = _get_device_index(device, optional=False)
    if index < 0:
        return
    _require().set_device(index)


def set_device_idx(device, /):
    """Deprecated name of ``set_device_index``."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=user_stacklevel())
    set_device_index(device)


def synchronize(device=None, /):
    """Wait until the work queued on ``device`` (default: the current one) has finished."""
    index = _get_device_index(device, optional=True)
    _require().synchronize(index)


class device_index:
    """``with torch.accelerator.device_index(1):``: work goes to device 1 inside the block.

    ``device_index(None)`` changes nothing.
    """

    def __init__(self, device, /):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc_info):
        if self.idx is not None:
            set_device_index(self.prev_idx)


# ---------------------------------------------------------------- memory of the accelerator device
# Each asks the device module (torch.cuda.memory_allocated ...): only it knows its allocator.

def empty_cache():
    """Give the memory the allocator keeps for reuse back to the device."""
    _require().empty_cache()


def empty_host_cache():
    """Give back cached pinned host memory: pedatorch keeps none."""
    _require()


def memory_stats(device_index=None, /):
    """The allocator's statistics for a device, as an ordered dict of names to numbers."""
    module = _require()
    return OrderedDict(module.memory_stats(_get_device_index(device_index, optional=True)))


def memory_allocated(device_index=None, /):
    """Bytes held by live tensors on a device."""
    return _require().memory_allocated(_get_device_index(device_index, optional=True))


def max_memory_allocated(device_index=None, /):
    """The most bytes held by live tensors on a device since the start (or the last reset)."""
    return _require().max_memory_allocated(_get_device_index(device_index, optional=True))


def memory_reserved(device_index=None, /):
    """Bytes the allocator holds on a device (live tensors and its cache)."""
    return _require().memory_reserved(_get_device_index(device_index, optional=True))


def max_memory_reserved(device_index=None, /):
    """The most bytes the allocator held on a device since the start (or the last reset)."""
    return _require().max_memory_reserved(_get_device_index(device_index, optional=True))


def reset_peak_memory_stats(device_index=None, /):
    """Start the "max" statistics afresh."""
    _require().reset_peak_memory_stats(_get_device_index(device_index, optional=True))


def reset_accumulated_memory_stats(device_index=None, /):
    """Start the running totals of the statistics afresh."""
    _require().reset_accumulated_memory_stats(_get_device_index(device_index, optional=True))


def get_memory_info(device_index=None, /):
    """``(free, total)`` bytes of the device."""
    return _require().mem_get_info(_get_device_index(device_index, optional=True))
