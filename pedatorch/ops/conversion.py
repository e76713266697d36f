"""Moving a tensor to another dtype or device (``Tensor.to``), recorded as ``ToCopyBackward0``."""

import warnings

from .._device import to_device_array, device_of
from ..backend import astype
from .._layout import relayout, format_strides
from .._tensor import preserve_format
from ..autograd.function import ArrayFunction
from ._util import register, user_stacklevel


_warned_complex = [False]


def _warn_complex_to_real():
    """PyTorch's warning (once per process) when a cast or copy_ drops imaginary parts."""
    if not _warned_complex[0]:
        _warned_complex[0] = True
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning,
                      stacklevel=user_stacklevel())


class ToCopy(ArrayFunction):
    """out = x in another dtype and/or on another device;  dx = grad moved back"""
    node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, x, dev, np_dtype, memory_format="preserve_format"):
        ctx.src = (device_of(x), x.dtype)
        out = x
        if np_dtype is not None and x.dtype != np_dtype:
            if x.dtype.kind == "c" and np_dtype.kind != "c":
                _warn_complex_to_real()
                out = out.real
            out = astype(out, np_dtype)   # bfloat16 -1.0 -> uint8 is 255, as for float16/32/64
        if dev is not None:
            moved = to_device_array(out, dev)
            if moved is not out:
                out = moved
        if out is x:
            out = x.copy()
        # a new tensor in PyTorch's layout (preserve_format: x's strides where dense), not numpy's
        return relayout(out, format_strides(x.shape, [st // x.itemsize for st in x.strides], memory_format))

    @staticmethod
    def backward(ctx, grad):
        dev, dt = ctx.src
        from .._dtype import from_numpy_dtype
        g = grad
        if grad.device != dev:
            g = to_copy(g, dev, None, False)
        if g._data.dtype != dt:
            if g.is_complex() and dt.kind != "c":
                g = g.real
            g = to_copy(g, None, from_numpy_dtype(dt), False)
        return g, None, None, None


def to_copy(t, dev, dt, copy, memory_format=preserve_format):
    """``t.to(dev, dt)``: the same tensor when nothing changes (unless ``copy``), as PyTorch decides: the
    device, the dtype and the memory format (unless preserve_format) already are the asked ones."""
    np_dt = dt.np if dt is not None else None
    same_dev = dev is None or dev == t.device or (dev.type == t.device.type and dev.index is None)
    same_dt = np_dt is None or np_dt == t._data.dtype
    if same_dev and same_dt and not copy and (memory_format is preserve_format or t.is_contiguous(memory_format)):
        return t
    if same_dev:
        dev = None
    return ToCopy.apply(t, dev, np_dt, memory_format.name)


def to(self, *args, **kwargs):
    """``Tensor.to``: ``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``, ``memory_format=``;
    self when nothing changes (``Tensor._parse_to`` reads the arguments)."""
    dev, dt, copy, fmt = self._parse_to(args, dict(kwargs))
    return to_copy(self, dev, dt, copy, fmt)


register({"to": to})
