"""Storages: the flat memory behind a tensor and all its views (``torch.storage``).

A tensor is a view: a storage, an offset into it, sizes and strides. ``x.untyped_storage()`` is that
memory as bytes (``UntypedStorage``: its ``size()`` counts bytes); ``x.storage()`` is the older, deprecated
view of the same memory as elements of the tensor's dtype (``TypedStorage``: ``size()`` counts elements,
``s[i]`` is a Python number). Both look at the tensor's memory itself: writing ``s[0] = 1`` changes every
tensor that views it. The legacy classes (``torch.FloatStorage``, ``torch.LongStorage``, ...) are
TypedStorages of one dtype.

Here a storage holds the array that owns the memory (``backend.storage_root`` of a tensor's array); its
bytes are that array's buffer in memory order.
"""
import warnings

import numpy as np

from ._warnings import user_stacklevel
from . import _dtype as D
from ._device import as_device, device_of, factory_device, to_device_array
from .backend import CPU_ARRAY, address, as_strided, device_namespace, to_host

__all__ = ["UntypedStorage", "TypedStorage", "LEGACY_STORAGES", "legacy_class", "storage_view"]

_warned = [False]


def _warn_typed_storage_removal(stacklevel=user_stacklevel()):
    """PyTorch's deprecation warning for TypedStorage, given once per process."""
    if not _warned[0]:
        _warned[0] = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=user_stacklevel())


def _new_owner(cls_name, args, np_dtype, device):
    """The memory of a new storage, from its constructor's arguments: ``(n)`` n zeros (PyTorch leaves them
    uninitialized), or ``(sequence)`` its values; on ``device``."""
    if len(args) > 1:
        raise TypeError(f"{cls_name}() takes at most 1 positional argument ({len(args)} given)")
    arg = args[0] if args else 0
    host = device_namespace(None)
    if isinstance(arg, (int, np.integer)) and not isinstance(arg, bool):
        values = host.zeros(int(arg), np_dtype)
    else:
        values = host.asarray(list(arg)).astype(np_dtype)
    dev = as_device(factory_device(None) if device is None else device)
    return values if dev is None or dev.type == "cpu" else to_device_array(values, dev)


class UntypedStorage:
    """The bytes of a tensor's memory: ``UntypedStorage(n)`` (n bytes), ``UntypedStorage([1, 2, 3])``, or
    ``tensor.untyped_storage()`` (the tensor's own memory, shared with it)."""

    def __init__(self, *args, device=None):
        self._owner = _new_owner(type(self).__name__, args, np.uint8, device)

    @classmethod
    def _wrap(cls, owner):
        """The storage of the array ``owner`` (which owns its memory), without copying."""
        s = cls.__new__(cls)
        s._owner = owner
        return s

    def _bytes(self):
        """The memory as a flat uint8 array, in memory order (a view: writes reach the tensors)."""
        return self._owner.reshape(-1, order="A").view(np.uint8)

    # ---------------------------------------------------------------- what it is
    def data_ptr(self):
        return address(self._owner)

    def nbytes(self):
        return self._owner.nbytes

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

    @property
    def dtype(self):
        return D.uint8

    @property
    def device(self):
        return device_of(self._owner)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    is_sparse = False

    def get_device(self):
        return self.device.index   # (None on the CPU, as PyTorch's)

    def is_shared(self):
        return False

    def is_pinned(self, device="cuda"):
        return False

    def type(self):
        return "torch.storage.UntypedStorage"

    def untyped(self):
        return self

    # ---------------------------------------------------------------- bytes
    def __getitem__(self, idx):
        if isinstance(idx, slice):   # a view of the same bytes
            return UntypedStorage._wrap(self._bytes()[idx])
        return int(self._bytes()[_index(idx, self.nbytes())])

    def __setitem__(self, idx, value):
        self._bytes()[idx if isinstance(idx, slice) else _index(idx, self.nbytes())] = value

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self):
        return to_host(self._bytes()).tolist()

    def fill_(self, value):
        self._bytes()[...] = value
        return self

    def copy_(self, source, non_blocking=False):
        if source.nbytes() != self.nbytes():
            raise RuntimeError(f"size mismatch, m1: [{self.nbytes()}], m2: [{source.nbytes()}]")
        self._bytes()[...] = _on_same_device(source._bytes(), self._owner)
        return self

    def clone(self):
        return UntypedStorage._wrap(self._bytes().copy())

    # ---------------------------------------------------------------- moving (what ``map_location`` calls)
    def cpu(self):
        return self if type(self._owner) is CPU_ARRAY else UntypedStorage._wrap(to_host(self._owner))

    def cuda(self, device=None, non_blocking=False):
        dev = as_device("cuda" if device is None else f"cuda:{device}" if isinstance(device, int) else device)
        return UntypedStorage._wrap(to_device_array(self._owner, dev))

    def to(self, *, device, non_blocking=False):
        return UntypedStorage._wrap(to_device_array(self._owner, as_device(device)))

    def __str__(self):
        info = f"[torch.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}]"
        if self.device.type == "meta":
            return "...\n" + info
        return " " + "\n ".join(str(b) for b in self.tolist()) + "\n" + info

    __repr__ = __str__


def storage_view(storage, np_dtype, offset=0, size=None, stride=None):
    """An array over ``storage``'s memory (an UntypedStorage) as elements of ``np_dtype``, from element
    ``offset`` with ``size`` and ``stride`` (by default all of it, contiguous): how ``Tensor.set_`` and
    ``torch.load`` make a tensor of a storage. Views of one storage share its memory."""
    raw = storage._bytes()
    if raw.nbytes % np.dtype(np_dtype).itemsize:
        raise RuntimeError(f"a storage of {raw.nbytes} bytes cannot hold elements of {np.dtype(np_dtype)} "
                           f"({np.dtype(np_dtype).itemsize} bytes each)")
    flat = raw.view(np_dtype)
    size = (flat.size - offset,) if size is None else tuple(size)
    if stride is None:   # contiguous
        stride, step = [], 1
        for n in reversed(size):
            stride.insert(0, step)
            step *= max(n, 1)
    stride = tuple(stride)
    if all(size):
        reach = offset + 1 + sum((n - 1) * st for n, st in zip(size, stride))
        if offset < 0 or min(stride, default=0) < 0 or reach > flat.size:
            # (PyTorch's set_ grows the storage instead; a numpy buffer cannot grow under its views)
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
                               f"and itemsize {flat.itemsize} requiring a storage size of {reach * flat.itemsize} "
                               f"are out of bounds for storage of size {flat.nbytes}")
        start = flat[offset:]
    else:
        start = flat[:0]
    return as_strided(start, size, tuple(st * flat.itemsize for st in stride))


def _index(idx, n):
    """A storage index wrapped and checked (PyTorch's IndexError for one out of range)."""
    if not isinstance(idx, (int, np.integer)) or isinstance(idx, bool):
        raise RuntimeError(f"can't index a storage with {type(idx)}")
    if not -n <= idx < n:
        raise IndexError(f"index {idx} out of range for storage of size {n}")
    return idx + n if idx < 0 else idx


def _on_same_device(arr, like):
    """``arr`` moved where ``like`` lives (a storage copy may cross devices)."""
    return to_device_array(arr, device_of(like))


class _LegacyStorageMeta(type):
    """``isinstance(x.storage(), torch.FloatStorage)`` is True: a legacy class is a TypedStorage's dtype."""

    def __instancecheck__(cls, instance):
        if cls is TypedStorage:
            return type.__instancecheck__(cls, instance)
        return isinstance(instance, TypedStorage) and instance.dtype is cls.dtype and instance.device.type == "cpu"


class TypedStorage(metaclass=_LegacyStorageMeta):
    """A storage seen as elements of one dtype (deprecated in PyTorch, still common in older code):
    ``tensor.storage()``, ``TypedStorage([1., 2.], dtype=torch.float64)``, ``torch.FloatStorage(3)``."""

    dtype = None   # (a legacy class fixes it: FloatStorage.dtype is torch.float32)

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        dtype = type(self).dtype if type(self).dtype is not None else dtype
        if dtype is None:
            dtype = D.get_default_dtype()
        if wrap_storage is not None:
            self._untyped_storage, self.dtype = wrap_storage, dtype
            return
        self._untyped_storage = UntypedStorage._wrap(_new_owner(type(self).__name__, args, dtype.np, device))
        self.dtype = dtype

    def _values(self):
        """The memory as a flat array of this storage's dtype (a view)."""
        return self._untyped_storage._bytes().view(self.dtype.np)

    # ---------------------------------------------------------------- what it is
    def untyped(self):
        return self._untyped_storage

    def size(self):
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self):
        return self.size()

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def element_size(self):
        return self.dtype.itemsize

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self):
        return self._untyped_storage.is_cuda

    is_sparse = False

    def get_device(self):
        return self._untyped_storage.get_device()

    def is_shared(self):
        return False

    def is_pinned(self, device="cuda"):
        return False

    def pickle_storage_type(self):
        return _LEGACY_NAMES[self.dtype.name]

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            prefix = "torch." if self.device.type == "cpu" else f"torch.{self.device.type}."
            return prefix + _LEGACY_NAMES[self.dtype.name]
        target = dtype if isinstance(dtype, D.dtype) else LEGACY_STORAGES[dtype.rsplit(".", 1)[-1]].dtype
        return self._to(target)

    # ---------------------------------------------------------------- elements
    def __getitem__(self, idx):
        if self.device.type == "meta":
            raise NotImplementedError("Not available for 'meta' device type")
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        v = self._values()[_index(idx, self.size())]
        v = to_host(v.reshape(1))[0]
        return float(v) if self.dtype is D.bfloat16 else v.item()

    def __setitem__(self, idx, value):
        self._values()[idx if isinstance(idx, slice) else _index(idx, self.size())] = value

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self):
        v = to_host(self._values())
        return (v.astype(np.float32) if self.dtype is D.bfloat16 else v).tolist()

    def fill_(self, value):
        self._values()[...] = value
        return self

    def copy_(self, source, non_blocking=None):
        src = source._values() if isinstance(source, TypedStorage) else source._bytes().view(self.dtype.np)
        if src.size != self.size():
            raise RuntimeError(f"size mismatch, m1: [{self.size()}], m2: [{src.size}]")
        self._values()[...] = _on_same_device(src, self._values()).astype(self.dtype.np)
        return self

    def clone(self):
        return TypedStorage(wrap_storage=self._untyped_storage.clone(), dtype=self.dtype, _internal=True)

    def _to(self, dtype):
        """A copy with the values converted to ``dtype`` (``s.float()``, ``s.long()``)."""
        if dtype is self.dtype:
            return self
        values = self._values().astype(dtype.np)
        return TypedStorage(wrap_storage=UntypedStorage._wrap(values), dtype=dtype, _internal=True)

    def double(self): return self._to(D.float64)
    def float(self): return self._to(D.float32)
    def half(self): return self._to(D.float16)
    def bfloat16(self): return self._to(D.bfloat16)
    def long(self): return self._to(D.int64)
    def int(self): return self._to(D.int32)
    def short(self): return self._to(D.int16)
    def char(self): return self._to(D.int8)
    def byte(self): return self._to(D.uint8)
    def bool(self): return self._to(D.bool)
    def cfloat(self): return self._to(D.complex64)
    def cdouble(self): return self._to(D.complex128)

    # ---------------------------------------------------------------- moving
    def cpu(self):
        return TypedStorage(wrap_storage=self._untyped_storage.cpu(), dtype=self.dtype, _internal=True)

    def cuda(self, device=None, non_blocking=False):
        return TypedStorage(wrap_storage=self._untyped_storage.cuda(device), dtype=self.dtype, _internal=True)

    def to(self, *, device, non_blocking=False):
        return TypedStorage(wrap_storage=self._untyped_storage.to(device=device), dtype=self.dtype, _internal=True)

    def __str__(self):
        _warn_typed_storage_removal()
        info = f"[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {len(self)}]"
        if self.device.type == "meta":
            return "...\n" + info
        return " " + "\n ".join(str(self[i]) for i in range(self.size())) + "\n" + info

    __repr__ = __str__


_LEGACY_NAMES = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
                 "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
                 "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
                 "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage"}

# torch.FloatStorage & co.: TypedStorages of one dtype (``torch.FloatStorage([1, 2])``)
LEGACY_STORAGES = {name: _LegacyStorageMeta(name, (TypedStorage,), {"dtype": getattr(D, dtype_name),
                                                                     "__module__": "torch"})
                   for dtype_name, name in _LEGACY_NAMES.items()}


def legacy_class(dtype):
    """The legacy storage class of ``dtype`` (``torch.FloatStorage`` for float32)."""
    return LEGACY_STORAGES[_LEGACY_NAMES[dtype.name]]
