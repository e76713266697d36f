"""Padding modules: ZeroPad, ConstantPad, ReflectionPad, ReplicationPad, CircularPad (1d/2d/3d), all
one class (``_PadNd``) that calls ``F.pad`` with its mode."""
from .. import functional as F
from .module import Module

__all__ = ["ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


def _pad_tuple(padding, n):
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    return tuple(padding)


class _PadNd(Module):
    _n = 1
    mode = "constant"

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = _pad_tuple(padding, self._n)
        self.value = value

    def forward(self, input):
        if self.mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


def _pad_class(name, n, mode, zero=False):
    attrs = {"_n": n, "mode": mode}
    if mode == "constant":
        if zero:
            attrs["__init__"] = lambda self, padding: _PadNd.__init__(self, padding, 0.0)
        else:
            attrs["extra_repr"] = lambda self: f"padding={self.padding}, value={self.value}"
    return type(name, (_PadNd,), attrs)


ZeroPad1d = _pad_class("ZeroPad1d", 1, "constant", True)
ZeroPad2d = _pad_class("ZeroPad2d", 2, "constant", True)
ZeroPad3d = _pad_class("ZeroPad3d", 3, "constant", True)
ConstantPad1d = _pad_class("ConstantPad1d", 1, "constant")
ConstantPad2d = _pad_class("ConstantPad2d", 2, "constant")
ConstantPad3d = _pad_class("ConstantPad3d", 3, "constant")
ReflectionPad1d = _pad_class("ReflectionPad1d", 1, "reflect")
ReflectionPad2d = _pad_class("ReflectionPad2d", 2, "reflect")
ReflectionPad3d = _pad_class("ReflectionPad3d", 3, "reflect")
ReplicationPad1d = _pad_class("ReplicationPad1d", 1, "replicate")
ReplicationPad2d = _pad_class("ReplicationPad2d", 2, "replicate")
ReplicationPad3d = _pad_class("ReplicationPad3d", 3, "replicate")
CircularPad1d = _pad_class("CircularPad1d", 1, "circular")
CircularPad2d = _pad_class("CircularPad2d", 2, "circular")
CircularPad3d = _pad_class("CircularPad3d", 3, "circular")
for _c in (ConstantPad1d, ConstantPad2d, ConstantPad3d):
    def _init(self, padding, value):
        _PadNd.__init__(self, padding, value)
    _c.__init__ = _init
