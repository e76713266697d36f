"""``pedatorch.save`` and ``pedatorch.load``, in PyTorch's own file format, and what ``torch.serialization`` offers.

The file ``torch.save(obj, "ckpt.pt")`` writes is a zip archive (stored, not compressed) of a few records::

    ckpt/data.pkl               obj, pickled (protocol 2); each tensor is a call
                                torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)
                                whose storage is a reference ('storage', torch.FloatStorage, '0', 'cpu', numel)
    ckpt/data/0, data/1, ...    the raw bytes of each storage (little-endian), each starting at a multiple of 64
    ckpt/.format_version, .storage_alignment, byteorder, version, .data/serialization_id

A storage is the flat memory behind a tensor and all its views: ``x`` and ``x.t()`` name the same record, so
they share memory again after loading. The pickle names torch's functions and classes (``torch FloatStorage``),
so real PyTorch loads pedatorch's files, and pedatorch maps those names back to its own objects
(``_TORCH_NAMES``), so it loads PyTorch's files without torch installed.

Loading is safe by default: a pickle can name any function and have it called (``os.system``), so with
``weights_only=True`` the unpickler accepts only the names in an allow-list -- the tensor rebuilders, storage
types, ``OrderedDict``, ``Size``, dtypes, devices, a few builtins -- plus what the program allowed, and
calls, creates and changes nothing else (``_WeightsOnlyUnpickler``)::

    torch.serialization.add_safe_globals([MyConfig])            # from now on
    with torch.serialization.safe_globals([MyConfig]):           # inside the block only
        torch.load("ckpt.pt", weights_only=True)

Anything else raises ``pickle.UnpicklingError`` naming it. ``weights_only=False`` unpickles anything (a whole
pickled ``nn.Module``): only for files from a trusted source.
"""
import codecs
import collections
import enum
import io
import mmap
import os
import pickle
import secrets
import shutil
import struct
import sys
import tempfile
import warnings
import zipfile
from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING   # Python 2 names in protocol-2 pickles (__builtin__)
from contextlib import contextmanager

import numpy as np

from . import _dtype
from ._device import device
from ._tensor import Size, Tensor
from .storage import TypedStorage, UntypedStorage, storage_view
from .backend import address, as_strided, namespace, storage_root, to_host
from .cuda import device_count as _cuda_device_count, is_available as _cuda_is_available
from .nn.parameter import Parameter
from .ops.creation import empty_strided

__all__ = ["DEFAULT_PROTOCOL", "LoadEndianness", "SourceChangeWarning", "add_safe_globals", "clear_safe_globals",
           "get_safe_globals", "safe_globals", "get_default_load_endianness", "set_default_load_endianness",
           "get_crc32_options", "set_crc32_options", "get_default_mmap_options", "set_default_mmap_options",
           "mkdtemp", "save", "load"]

DEFAULT_PROTOCOL = 2   # the pickle protocol torch.save writes with


class SourceChangeWarning(Warning):
    """The source of a pickled module's class changed since it was saved."""


@contextmanager
def mkdtemp():
    """A temporary directory, removed after the ``with`` block."""
    path = tempfile.mkdtemp()
    try:
        yield path
    finally:
        shutil.rmtree(path)


# ---------------------------------------------------------------- the weights_only allow-list
# Each entry is a class or function, or a (class or function, "module.QualName") pair for an
# object saved under another name.

_safe_globals = []


def add_safe_globals(safe_globals):
    """Allow these classes and functions in ``weights_only`` loads from now on."""
    for g in safe_globals:
        if g not in _safe_globals:
            _safe_globals.append(g)


def get_safe_globals():
    """The classes and functions the program allowed (a copy of the list)."""
    return list(_safe_globals)


def clear_safe_globals():
    """Forget every allowed class and function."""
    _safe_globals.clear()


class safe_globals:
    """``with safe_globals([MyConfig]):`` allows these only inside the block.

    On leaving, the list is as it was before the block.
    """

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        self._before = get_safe_globals()
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc_info):
        _safe_globals[:] = self._before
        return False


def _allowed_globals_by_name():
    """``{"module.QualName": object}`` for the allowed globals: what a loader looks names up in."""
    by_name = {}
    for g in _safe_globals:
        if isinstance(g, tuple):
            if len(g) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), "
                                 f"but got tuple of length: {len(g)}")
            if type(g[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, "
                                f"but got: {type(g[1])}")
            g, name = g
        else:
            name = f"{g.__module__}.{g.__qualname__}"
        by_name[name] = g
    return by_name


# ---------------------------------------------------------------- loading and saving options

class LoadEndianness(enum.Enum):
    """The byte order to assume for a file that does not record one."""
    NATIVE = 1
    LITTLE = 2
    BIG = 3


_options = {"load_endianness": None,       # None: the machine's own order
            "compute_crc32": True,         # save a checksum with each record
            "mmap_flags": mmap.MAP_PRIVATE if hasattr(mmap, "MAP_PRIVATE") else None}


def get_default_load_endianness():
    """The byte order assumed for files that do not record one (None: native)."""
    return _options["load_endianness"]


def set_default_load_endianness(endianness):
    """Set that byte order: a ``LoadEndianness`` or None."""
    if not isinstance(endianness, LoadEndianness) and endianness is not None:
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _options["load_endianness"] = endianness


def get_crc32_options():
    """Does save write a CRC32 checksum for each record?"""
    return _options["compute_crc32"]


def set_crc32_options(compute_crc32):
    _options["compute_crc32"] = compute_crc32


def get_default_mmap_options():
    """The ``mmap`` flags ``load(mmap=True)`` maps files with (``mmap.MAP_PRIVATE``: copy on write)."""
    return _options["mmap_flags"]


class set_default_mmap_options:
    """Set the ``mmap`` flags for ``load(mmap=True)``: for good, or inside a ``with`` block."""

    def __init__(self, flags):
        if not hasattr(mmap, "MAP_PRIVATE"):
            raise RuntimeError("Changing the default mmap options is currently not supported for Windows")
        if flags != mmap.MAP_PRIVATE and flags != mmap.MAP_SHARED:
            raise ValueError("Invalid argument in function set_default_mmap_options, "
                             f"expected mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got {flags}")
        self.prev = _options["mmap_flags"]
        _options["mmap_flags"] = flags

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        _options["mmap_flags"] = self.prev


# ================================================================ torch's names for pedatorch's objects
# A storage type names the dtype of a storage's elements: torch.FloatStorage holds float32 values. dtypes
# without such a legacy class (uint16, uint32, uint64) are saved with torch.storage.UntypedStorage (bytes)
# and the dtype passed to _rebuild_tensor_v3, as torch does.
_STORAGE_NAMES = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
                  "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
                  "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
                  "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage"}


class _TorchName:
    """A name in torch's namespace (``torch._utils._rebuild_tensor_v2``, ``torch.FloatStorage``, ``torch.float32``).

    The pickler writes it as pickle's GLOBAL opcode, ``c<module>\\n<name>\\n``: when torch loads the file it
    finds its own object under that name, and pedatorch's loader maps the name back to pedatorch's object.
    (pickle's own way of writing a global imports the module to check the name, and torch need not be
    installed, hence this class.)"""

    __slots__ = ("module", "name")
    _made = {}

    def __new__(cls, dotted):   # one object per name, so that the pickle memo writes each name once
        if dotted not in cls._made:
            obj = cls._made[dotted] = object.__new__(cls)
            obj.module, _, obj.name = dotted.rpartition(".")
        return cls._made[dotted]

    def __call__(self, *args):   # pickle wants the function of a (function, args) reduction to be callable
        raise TypeError(f"{self.module}.{self.name} is torch's name, written into files; it is not callable here")


class _StorageRecord:
    """A storage being saved: the array that owns the memory and the record ``data/<key>`` it goes to."""

    def __init__(self, key, owner, storage_type, numel, location):
        self.key, self.owner, self.storage_type, self.numel = key, owner, storage_type, numel
        self.location = location     # 'cpu', 'cuda:0': where load puts it back


class _Pickler(pickle._Pickler):
    """pickle's (pure-Python) Pickler, writing tensors, dtypes, devices and sizes under torch's names.

    - a tensor becomes ``_rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
      OrderedDict())`` (``_rebuild_tensor_v3(..., dtype)`` for dtypes without a storage class), a Parameter
      ``_rebuild_parameter(tensor, requires_grad, OrderedDict())``;
    - the storage argument is a persistent id, ``('storage', torch.FloatStorage, key, location, numel)``: the
      bytes go to the record ``data/<key>``, one per storage however many tensors view it.
    """

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = {}   # (device, address, nbytes) -> _StorageRecord, in the order first met

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if type(obj) is Size:
            return _TorchName("torch.Size"), (tuple(obj),)
        if type(obj) is device:
            return _TorchName("torch.device"), (obj.type,) if obj.index is None else (obj.type, obj.index)
        return NotImplemented

    def _reduce_tensor(self, t):
        if isinstance(t, Parameter):   # the parameter wraps a plain tensor over the same storage
            return (_TorchName("torch._utils._rebuild_parameter"),
                    (Tensor._make(t._data), t.requires_grad, collections.OrderedDict()))
        if t.is_meta:   # no storage to write: the shape, strides and dtype are the whole tensor
            return (_TorchName("torch._utils._rebuild_meta_tensor_no_storage"),
                    (t.dtype, tuple(t.shape), t.stride(), t.requires_grad))
        owner, offset, stride = _storage_of(t)
        record = self._record(owner, t.dtype, str(t.device))
        args = (record, offset, tuple(t.shape), stride, t.requires_grad, collections.OrderedDict())
        if t.dtype.name in _STORAGE_NAMES:
            return _TorchName("torch._utils._rebuild_tensor_v2"), args
        return _TorchName("torch._utils._rebuild_tensor_v3"), args + (t.dtype,)

    def _record(self, owner, dtype, location, untyped=False):
        name = None if untyped else _STORAGE_NAMES.get(dtype.name)
        storage_type = _TorchName(f"torch.{name}" if name else "torch.storage.UntypedStorage")
        # a storage is known by where its memory is (a device array's .base may be a new wrapper each time)
        where = (location, address(owner), owner.nbytes)
        record = self.storages.get(where)
        if record is None:
            numel = owner.nbytes // dtype.itemsize if name else owner.nbytes
            record = self.storages[where] = _StorageRecord(str(len(self.storages)), owner, storage_type, numel,
                                                           location)
        elif record.storage_type is not storage_type:   # one record has one element type
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        return record

    def persistent_id(self, obj):
        if isinstance(obj, (TypedStorage, UntypedStorage)):   # a storage saved by itself (``save(x.storage())``)
            untyped = obj.untyped()
            obj = self._record(untyped._owner, obj.dtype, str(untyped.device), untyped=type(obj) is UntypedStorage)
        if type(obj) is _StorageRecord:
            return ("storage", obj.storage_type, obj.key, obj.location, obj.numel)
        return None

    def _save_torch_name(self, obj):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
        self.memoize(obj)

    def _save_dtype(self, obj):   # a dtype is the global torch.float32 itself (no call)
        self.save(_TorchName("torch." + obj.name))

    dispatch[_TorchName] = _save_torch_name
    dispatch[_dtype.dtype] = _save_dtype


# ================================================================ tensors <-> storages
def _storage_of(t):
    """``(owner, offset, stride)``: the flat array that holds ``t``'s memory (shared with ``t``'s views), where
    ``t`` starts in it and ``t``'s strides, both counted in elements of ``t``'s dtype.

    Memory that is not one dense block of whole elements (a view of a foreign buffer, negative strides)
    is saved as a contiguous copy of ``t`` alone."""
    arr = t._data
    owner = storage_root(arr)
    item = arr.itemsize
    flags = getattr(owner, "flags", None)
    start = address(arr) - address(owner)
    if (flags is not None and (flags.c_contiguous or flags.f_contiguous) and start % item == 0
            and owner.nbytes % item == 0 and all(s >= 0 and s % item == 0 for s in arr.strides)):
        return owner, start // item, t.stride()
    copy = namespace(arr).ascontiguousarray(arr)
    return copy, 0, Tensor._make(copy).stride()


def _storage_bytes(owner):
    """The bytes of a storage in memory order, on the host, as a flat uint8 array."""
    return to_host(owner.reshape(-1, order="A").view(np.uint8))


def _tensor_from_storage(storage, dtype, storage_offset, size, stride, requires_grad):
    """A tensor viewing ``storage`` (an UntypedStorage) as ``dtype`` elements, as ``Tensor.set_`` would.

    Tensors of one storage view one array, so they share memory as they did when saved. The sizes and
    strides come from the file: they are checked to be integers here, and to stay inside the storage by
    ``storage_view``, before any view is made."""
    if not (_is_int(storage_offset) and isinstance(size, tuple) and isinstance(stride, tuple)
            and len(size) == len(stride) and all(_is_int(n) and n >= 0 for n in size) and all(map(_is_int, stride))):
        raise pickle.UnpicklingError(f"malformed tensor in the file: storage offset {storage_offset!r:.40}, "
                                     f"size {size!r:.80}, stride {stride!r:.80}")
    view = storage_view(storage, dtype.np, storage_offset, size, stride)
    t = Tensor._make(view)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _own_bytes(data):
    """A writable uint8 array of its own holding a copy of ``data`` (bytes-like): the storage of the tensors
    read from a file."""
    raw = np.empty(len(data), np.uint8)
    raw[:] = np.frombuffer(data, np.uint8)
    return raw


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _expect(ok, function, what, got):
    """The arguments of a rebuild function come from the file: a wrong kind is a malformed file."""
    if not ok:
        raise pickle.UnpicklingError(f"{function} expects {what}, but the file gives it {type(got).__name__}")


# torch._utils' rebuild functions, as the loader calls them for the names in data.pkl
def _rebuild_tensor(storage, storage_offset, size, stride):
    _expect(isinstance(storage, TypedStorage), "_rebuild_tensor", "a storage", storage)
    return _tensor_from_storage(storage.untyped(), storage.dtype, storage_offset, size, stride, False)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    _expect(isinstance(storage, TypedStorage), "_rebuild_tensor_v2", "a storage", storage)
    t = _tensor_from_storage(storage.untyped(), storage.dtype, storage_offset, size, stride, requires_grad)
    return _apply_metadata(t, metadata)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    _expect(isinstance(storage, TypedStorage), "_rebuild_tensor_v3", "a storage", storage)
    _expect(isinstance(dtype, _dtype.dtype), "_rebuild_tensor_v3", "a dtype", dtype)
    t = _tensor_from_storage(storage.untyped(), dtype, storage_offset, size, stride, requires_grad)
    return _apply_metadata(t, metadata)


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    _expect(isinstance(dtype, _dtype.dtype), "_rebuild_meta_tensor_no_storage", "a dtype", dtype)
    _expect(isinstance(size, (tuple, list)) and isinstance(stride, (tuple, list)) and len(size) == len(stride)
            and all(_is_int(v) and v >= 0 for v in (*size, *stride)), "_rebuild_meta_tensor_no_storage",
            "sizes and strides", size)
    return empty_strided(size, stride, dtype=dtype, device="meta", requires_grad=bool(requires_grad))


def _apply_metadata(t, metadata):
    """torch saves a conjugated or negated view (``x.conj()`` of a complex x) as its storage plus a flag;
    pedatorch has no such lazy views, so the flag is applied to the values here (a copy)."""
    if not metadata:
        return t
    _expect(isinstance(metadata, dict), "_rebuild_tensor_v2", "a dict of tensor flags", metadata)
    values = t._data
    if metadata.get("conj"):
        values = namespace(values).conj(values)
    if metadata.get("neg"):
        values = -values
    result = Tensor._make(values)
    return result.requires_grad_(True) if t.requires_grad else result


def _rebuild_parameter(data, requires_grad, backward_hooks):
    _expect(isinstance(data, Tensor), "_rebuild_parameter", "a tensor", data)
    return Parameter(data, bool(requires_grad))


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    """A tensor subclass or a tensor with Python attributes: rebuilt by ``func``, then given its attributes."""
    t = func(*args)
    _expect(isinstance(new_type, type) and issubclass(new_type, Tensor), "_rebuild_from_type_v2", "a tensor type",
            new_type)
    _expect(isinstance(t, Tensor), "_rebuild_from_type_v2", "a tensor", t)
    if type(t) is not new_type:
        t.__class__ = new_type   # the same object, now of its class (Tensor's subclasses share its layout)
    return _set_state(t, state)


def _set_state(t, state):
    """Set the attributes a file records for a tensor, except names of pedatorch's own Tensor attributes
    (a file must not replace ``_data`` or ``grad``)."""
    if isinstance(state, tuple) and len(state) == 2:   # (__dict__, slots), as object.__reduce_ex__ gives
        state = {**(state[0] or {}), **(state[1] or {})}
    _expect(state is None or isinstance(state, dict), "_set_obj_state", "a dict of attributes", state)
    for name, value in (state or {}).items():
        if isinstance(name, str) and not hasattr(Tensor, name) and not name.startswith("__"):
            setattr(t, name, value)
    return t


class _StorageType:
    """What a storage class name in a file (``torch.FloatStorage``) loads as: the element dtype it names."""

    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype

    def __repr__(self):
        return f"StorageType(dtype={self.dtype})"


# ================================================================ the names a file may use
def _torch_names():
    """``{"torch._utils._rebuild_tensor_v2": pedatorch's object, ...}``: what torch.load(weights_only=True)
    accepts by default (the names torch's own unpickler allows), as pedatorch's objects."""
    names = {"torch._utils._rebuild_tensor": _rebuild_tensor,
             "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
             "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
             "torch._utils._rebuild_parameter": _rebuild_parameter,
             "torch._utils._rebuild_meta_tensor_no_storage": _rebuild_meta_tensor_no_storage,
             "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
             "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
             "torch.Tensor": Tensor, "torch.nn.parameter.Parameter": Parameter,
             "torch.Size": Size, "torch.device": device,
             "torch.storage.UntypedStorage": _StorageType("UntypedStorage", _dtype.uint8),
             "collections.OrderedDict": collections.OrderedDict, "collections.Counter": collections.Counter,
             "builtins.set": set, "builtins.complex": complex, "builtins.bytearray": bytearray,
             "_codecs.encode": codecs.encode}   # protocol 2 writes bytes as encode(str, 'latin1')
    for d in _dtype._ALL:
        names["torch." + d.name] = d
    for dtype_name, storage_name in _STORAGE_NAMES.items():
        storage_type = _StorageType(storage_name, getattr(_dtype, dtype_name))
        names["torch." + storage_name] = names["torch.cuda." + storage_name] = storage_type   # old files: cuda.X
    return names


_TORCH_NAMES = _torch_names()

# what torch.load(weights_only=True) accepts but pedatorch cannot rebuild
_NOT_IN_PEDATORCH = {
    "torch._utils._rebuild_sparse_tensor": "sparse tensors", "torch.serialization._get_layout": "sparse tensors",
    "torch._utils._rebuild_qtensor": "quantized tensors", "torch._utils._rebuild_nested_tensor": "nested tensors",
    "torch._utils._rebuild_wrapper_subclass": "tensor subclasses without storage",
    "torch._utils._rebuild_device_tensor_from_numpy": "tensors of devices other than cpu and cuda",
    "torch._utils._rebuild_device_tensor_from_cpu_tensor": "tensors of devices other than cpu and cuda"}
_MISSING_DTYPES = ("complex32", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
                   "float8_e8m0fnu", "float4_e2m1fn_x2", "qint8", "quint8", "qint32", "quint4x2", "quint2x4",
                   "bits8", "bits16", "bits1x8", "bits2x4", "bits4x2", *(f"int{i}" for i in range(1, 8)),
                   *(f"uint{i}" for i in range(1, 8)))
_NOT_IN_PEDATORCH.update({f"torch.{name}": "this dtype" for name in _MISSING_DTYPES})
_NOT_IN_PEDATORCH.update({f"torch.{name}": "quantized tensors" for name in
                          ("QInt8Storage", "QUInt8Storage", "QInt32Storage", "QUInt4x2Storage", "QUInt2x4Storage")})

_BLOCKED_MODULES = ("sys", "os", "posix", "nt")   # never, not even when allowed by name (as torch)


def _python3_name(module, name):
    """Protocol-2 pickles may use Python 2's names (``__builtin__ set``): the Python 3 name."""
    if (module, name) in NAME_MAPPING:
        return NAME_MAPPING[(module, name)]
    return IMPORT_MAPPING.get(module, module), name


class _Loading:
    """What both unpicklers of data.pkl share: storages come from the archive's records (each read once,
    then shared by every tensor that views it) and go where ``map_location`` says."""

    def __init__(self, file, archive, restore_location, **kwargs):
        super().__init__(file, **kwargs)
        self.archive = archive
        self.restore_location = restore_location
        self.storages = {}   # key -> UntypedStorage on its device

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] in ("storage", b"storage")):
            raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got {pid!r:.100}")
        _, storage_type, key, location, numel = (p.decode("ascii") if isinstance(p, bytes) else p for p in pid)
        if not (isinstance(storage_type, _StorageType) and isinstance(key, str) and isinstance(location, str)
                and _is_int(numel) and numel >= 0):
            raise pickle.UnpicklingError(f"malformed storage reference in the file: {pid!r:.200}")
        if key not in self.storages:
            raw = self.archive.storage(key, numel * storage_type.dtype.itemsize)
            if self.archive.byteorder != sys.byteorder and storage_type.dtype.itemsize > 1:
                raw.view(storage_type.dtype.np).byteswap(inplace=True)
            restored = self.restore_location(UntypedStorage._wrap(raw), location)
            if not isinstance(restored, UntypedStorage):
                raise TypeError(f"map_location must return a storage (or None), but returned "
                                f"{type(restored).__name__}")
            self.storages[key] = restored
        # (a TypedStorage, as PyTorch's loader gives: the tensors' rebuild functions take it, and a storage
        # saved by itself loads as one)
        return TypedStorage(wrap_storage=self.storages[key], dtype=storage_type.dtype, _internal=True)


class _Unpickler(_Loading, pickle.Unpickler):
    """Reads data.pkl of a trusted file (``weights_only=False``): any global, torch's names as pedatorch's
    objects (``torch.nn.modules.linear.Linear`` -> ``pedatorch.nn.modules.linear.Linear``)."""

    def find_class(self, module, name):
        module, name = _python3_name(module, name)
        full = f"{module}.{name}"
        if full in _TORCH_NAMES:
            return _TORCH_NAMES[full]
        if full in _NOT_IN_PEDATORCH:
            raise pickle.UnpicklingError(f"pedatorch cannot load {full}: it has no {_NOT_IN_PEDATORCH[full]}")
        if module == "torch" or module.startswith("torch."):
            return _pedatorch_counterpart(module, name)
        return super().find_class(module, name)


class _WeightsOnlyUnpickler(_Loading, pickle._Unpickler):
    """Reads data.pkl of any file (``weights_only=True``) so that nothing in the file runs.

    A pickle is a little program: GLOBAL pushes a function or class found by name, REDUCE calls it, NEWOBJ
    makes an instance, BUILD sets an object's attributes. Here GLOBAL (``find_class``) answers only for the
    names torch accepts by default (``_TORCH_NAMES``) and those the program allowed (``add_safe_globals``);
    REDUCE and NEWOBJ call only those; BUILD sets attributes only on a tensor, an OrderedDict or an instance
    of an allowed class -- never on a shared object such as ``torch.float32`` or a class. This is pickle's
    own (pure-Python) unpickler with those four steps checked, as torch's weights-only unpickler checks them.
    """

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.user_allowed = _allowed_globals_by_name()
        self.allowed = {id(g): g for g in [*_TORCH_NAMES.values(), *self.user_allowed.values()]}

    def find_class(self, module, name):
        module, name = _python3_name(module, name)
        full = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked.")
        if full in _TORCH_NAMES:
            return _TORCH_NAMES[full]
        if full in self.user_allowed:
            return self.user_allowed[full]
        if full in _NOT_IN_PEDATORCH:
            raise pickle.UnpicklingError(f"pedatorch cannot load {full}: it has no {_NOT_IN_PEDATORCH[full]}")
        shown = full[len("builtins."):] if full.startswith("builtins.") else full
        raise pickle.UnpicklingError(
            f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
            f"`torch.serialization.add_safe_globals([{shown}])` or the `torch.serialization.safe_globals([{shown}])` "
            "context manager to allowlist this global if you trust this class/function.")

    def _is_allowed(self, obj):
        return id(obj) in self.allowed

    def load_reduce(self):   # stack: ... function, args
        func = self.stack[-2]
        if not self._is_allowed(func):
            raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function {func!r:.100}")
        pickle._Unpickler.load_reduce(self)

    def load_newobj(self, opcode_args=1):   # stack: ... class, args (, kwargs for NEWOBJ_EX)
        cls = self.stack[-1 - opcode_args]
        if not self._is_allowed(cls):
            raise pickle.UnpicklingError("Can only create new object for nn.Parameter or classes allowlisted via "
                                         f"`add_safe_globals` but got {cls!r:.100}")
        if opcode_args == 1:
            pickle._Unpickler.load_newobj(self)
        else:
            pickle._Unpickler.load_newobj_ex(self)

    def load_newobj_ex(self):
        self.load_newobj(opcode_args=2)

    def load_build(self):    # stack: ... object, state
        inst = self.stack[-2]
        if not (type(inst) in (Tensor, Parameter, collections.OrderedDict) or self._is_allowed(type(inst))):
            raise pickle.UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                                         f"`add_safe_globals`, but got {type(inst)}")
        pickle._Unpickler.load_build(self)

    dispatch[pickle.REDUCE[0]] = load_reduce
    dispatch[pickle.NEWOBJ[0]] = load_newobj
    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex
    dispatch[pickle.BUILD[0]] = load_build


def _pedatorch_counterpart(module, name):
    """``torch.nn.modules.linear.Linear`` -> ``pedatorch.nn.modules.linear.Linear`` (trusted files only)."""
    import importlib
    try:
        obj = importlib.import_module("pedatorch" + module[len("torch"):])
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj
    except (ImportError, AttributeError):
        raise pickle.UnpicklingError(f"the file names {module}.{name}, which pedatorch does not have "
                                     f"(no pedatorch{module[len('torch'):]}.{name})") from None


# where a storage goes: torch's map_location rules
_NO_CUDA = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are "
            "running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map "
            "your storages to the CPU.")


def _restore(storage, location):
    """The storage on the device ``location`` names ('cpu', 'cuda', 'cuda:1'), as torch's
    ``default_restore_location``."""
    if location == "cpu":
        return storage
    if location == "cuda" or location.startswith("cuda:"):
        if not _cuda_is_available():
            raise RuntimeError(_NO_CUDA)
        index = device(location).index or 0
        if index >= _cuda_device_count():
            raise RuntimeError(f"Attempting to deserialize object on CUDA device {index} but "
                               f"torch.cuda.device_count() is {_cuda_device_count()}. Please use torch.load with "
                               "map_location to map your storages to an existing device.")
        return storage.cuda(index)
    raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with "
                       f"{location})")


def _restore_location(map_location):
    """``(storage, location) -> storage``, from ``load``'s map_location: None (where it was saved), a device
    or its name (everything there), a dict {saved location: new location}, or a function."""
    if map_location is None:
        return _restore
    if isinstance(map_location, dict):
        return lambda storage, location: _restore(storage, str(map_location.get(location, location)))
    if isinstance(map_location, (str, bytes, device)):
        target = map_location.decode() if isinstance(map_location, bytes) else str(map_location)
        return lambda storage, location: _restore(storage, target)

    def call(storage, location):
        result = map_location(storage, location)
        return _restore(storage, location) if result is None else result
    return call


# ================================================================ the zip archive
_ALIGNMENT = 64        # every record's bytes start at a multiple of this (so a storage can be mapped in place)
_ZIP64_OVER = 2 ** 30  # records bigger than this get zip64 sizes (zipfile would decide so from 2 GiB on)
_LEGACY_MAGIC = b"\x8a\x0a" + (0x1950a86a20f9469cfc6c).to_bytes(10, "little")   # torch's pre-1.6 format


def _write_record(zf, name, data):
    """One record, stored (not compressed), its bytes aligned as torch aligns them: the local header gets an
    extra field of padding (torch's: id 'FB', filled with 'Z')."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    big = len(data) > _ZIP64_OVER
    header = 30 + len(name.encode("utf-8")) + (20 if big else 0) + 4   # + zip64 sizes + our field's own header
    pad = -(zf.fp.tell() + header) % _ALIGNMENT
    info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad
    with zf.open(info, "w", force_zip64=big) as out:
        out.write(data)


def _write_archive(file, prefix, data_pkl, storages, byteorder_record=True):
    with zipfile.ZipFile(file, "w") as zf:
        _write_record(zf, f"{prefix}/data.pkl", data_pkl)
        _write_record(zf, f"{prefix}/.format_version", b"1")
        _write_record(zf, f"{prefix}/.storage_alignment", str(_ALIGNMENT).encode())
        if byteorder_record:
            _write_record(zf, f"{prefix}/byteorder", sys.byteorder.encode())
        for record in storages:
            _write_record(zf, f"{prefix}/data/{record.key}", memoryview(_storage_bytes(record.owner)))
        _write_record(zf, f"{prefix}/version", b"3\n")
        _write_record(zf, f"{prefix}/.data/serialization_id", str(secrets.randbelow(10 ** 40)).zfill(40).encode())


def _write_atomically(path, write):
    """Write a file so that it is either the old one or the complete new one, never half of one: write a
    temporary file next to it, flush it to the disk, then rename it over the old one (one step)."""
    if os.path.islink(path):
        path = os.path.realpath(path)   # write the file the link points to, as open() would
    if os.path.exists(path) and not os.path.isfile(path):   # /dev/null, a pipe: cannot be replaced
        with open(path, "wb") as out:
            write(out)
        return
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise RuntimeError(f"Parent directory {os.path.dirname(path)} does not exist.")
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)  # umask applies
    try:
        with open(fd, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _describe(f):
    """How error messages name the file."""
    if isinstance(f, (str, os.PathLike)):
        return repr(os.fspath(f))
    name = getattr(f, "name", None)
    return repr(name) if isinstance(name, str) else f"the {type(f).__name__} object"


class _Archive:
    """A file written by ``torch.save``, open for reading: its records by name, its storages' bytes."""

    def __init__(self, f, use_mmap):
        self.name = _describe(f)
        self.file = open(f, "rb") if isinstance(f, (str, os.PathLike)) else f
        self.owns_file = self.file is not f
        try:
            self._open(use_mmap)
        except BaseException:
            self.close()
            raise

    def _open(self, use_mmap):
        if not getattr(self.file, "seekable", lambda: False)():   # zip reading jumps around: a pipe is read whole
            self.file = io.BytesIO(self.file.read())
        start = self.file.tell()
        head = self.file.read(32)
        self.file.seek(start)
        if not head:
            raise EOFError(f"Ran out of input: {self.name} is empty (0 bytes), not a file written by torch.save")
        if not head.startswith(b"PK\x03\x04"):
            if _LEGACY_MAGIC in head:
                raise RuntimeError(
                    f"{self.name} is in PyTorch's legacy format (torch.save(..., _use_new_zipfile_serialization="
                    "False), or PyTorch before 1.6), which pedatorch does not read. Load it with torch.load and "
                    "save it again with torch.save(obj, f) (the zip format).")
            hint = (" (a .safetensors file: read it with pedatorch.safetensors.load_file)"
                    if self.name.endswith(".safetensors'") else "")
            raise pickle.UnpicklingError(
                f"{self.name} is not a file written by torch.save: it does not start as a zip archive does "
                f"(b'PK\\x03\\x04'), but with {head[:8]!r}{hint}")
        try:
            self.zip = zipfile.ZipFile(self.file)
        except (zipfile.BadZipFile, EOFError, struct.error) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: failed finding central directory "
                               f"({self.name} is not a complete zip archive: {e}; truncated or corrupted?)") from None
        names = self.zip.namelist()
        self.prefix = names[0].split("/")[0] if names else ""
        if f"{self.prefix}/data.pkl" not in names:
            if f"{self.prefix}/constants.pkl" in names:
                raise RuntimeError(f"{self.name} is a TorchScript archive (torch.jit.save), which pedatorch.load "
                                   "does not read")
            raise RuntimeError(f"PytorchStreamReader failed locating file data.pkl: file not found ({self.name} "
                               f"is a zip archive, but not one written by torch.save)")
        order = self._read_optional("byteorder")
        if order is None:   # older files: the default load endianness says
            setting = get_default_load_endianness()
            order = (b"big" if setting == LoadEndianness.BIG else
                     sys.byteorder.encode() if setting == LoadEndianness.NATIVE else b"little")
        if order not in (b"little", b"big"):
            raise ValueError("Unknown endianness type: " + order.decode(errors="replace"))
        self.byteorder = order.decode()
        self.mmap = self._map() if use_mmap else None

    def _map(self):
        """The whole file mapped into memory: storages become views of it, read from the disk when touched.
        MAP_PRIVATE (the default): writes to a tensor stay in memory; MAP_SHARED: they go to the file."""
        flags = get_default_mmap_options()
        if flags is None:   # Windows: no flags, but the same copy-on-write mapping
            return mmap.mmap(self.file.fileno(), 0, access=mmap.ACCESS_COPY)
        if flags == mmap.MAP_SHARED:   # the file must be open for writing
            with open(self.file.name, "r+b") as f:
                return mmap.mmap(f.fileno(), 0, flags=flags, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        return mmap.mmap(self.file.fileno(), 0, flags=flags, prot=mmap.PROT_READ | mmap.PROT_WRITE)

    def _info(self, name):
        try:
            return self.zip.getinfo(f"{self.prefix}/{name}")
        except KeyError:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found "
                               f"({self.name})") from None

    def read(self, name):
        info = self._info(name)
        if info.CRC == 0 and info.file_size:   # written without checksums (torch's set_crc32_options(False)):
            info.CRC = None                      # zipfile checks none when the expected one is None
        try:
            return self.zip.read(info)
        except (zipfile.BadZipFile, EOFError, struct.error, zipfile.LargeZipFile) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: {e} ({self.name} is "
                               "corrupted)") from None

    def _read_optional(self, name):
        return self.read(name) if f"{self.prefix}/{name}" in self.zip.NameToInfo else None

    def storage(self, key, nbytes):
        """The bytes of record ``data/<key>`` as a writable uint8 array (a view of the mapped file with mmap)."""
        name = f"data/{key}"
        info = self._info(name)
        if info.file_size != nbytes:
            raise RuntimeError(f"{self.name}: record {name} holds {info.file_size} bytes, but data.pkl describes "
                               f"a storage of {nbytes} bytes (a corrupted file?)")
        if self.mmap is None:
            return _own_bytes(self.read(name))
        if info.compress_type != zipfile.ZIP_STORED:
            raise RuntimeError(f"{self.name}: record {name} is compressed, so it cannot be mapped (mmap=True)")
        name_len, extra_len = struct.unpack_from("<HH", self.mmap, info.header_offset + 26)
        offset = info.header_offset + 30 + name_len + extra_len   # the local header, then the bytes
        return np.ndarray((nbytes,), np.uint8, buffer=self.mmap, offset=offset)

    def close(self):
        if getattr(self, "zip", None) is not None:
            self.zip.close()
        if self.owns_file:
            self.file.close()


# ================================================================ save and load
def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True)

    Save ``obj`` (tensors, state_dicts, containers of them, any picklable object) to ``f``: a path (``str``,
    ``pathlib.Path``) or a binary file object. The file is PyTorch's own format, so ``torch.load`` reads it.
    A path is written atomically: after a crash it holds the old file or the new one, never half of one.
    ``pickle_module`` is accepted for PyTorch's signature; the pickler is always Python's own (its pure-Python
    Pickler, which can write torch's names without importing torch).
    """
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("pedatorch.save writes only PyTorch's zip format "
                                  "(_use_new_zipfile_serialization=True, the default since PyTorch 1.6)")
    data = io.BytesIO()   # everything is pickled before the file is touched: a failure leaves it as it was
    pickler = _Pickler(data, pickle_protocol)
    pickler.dump(obj)
    storages = list(pickler.storages.values())

    def write(out, prefix="archive"):
        _write_archive(out, prefix, data.getvalue(), storages, not _disable_byteorder_record)
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        # the records' folder is named after the file, as torch names it ('ckpt.pt' -> 'ckpt/data.pkl')
        stem = os.path.splitext(os.path.basename(path))[0] or "archive"
        _write_atomically(path, lambda out: write(out, stem))
    else:
        write(f)


_UNSAFE_MESSAGE = ("Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can "
                   "result in arbitrary code execution. Do it only if you got the file from a trusted source.")
_DOCS_MESSAGE = ("\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
                 "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def _weights_only_message(message):
    """torch.load's explanation around an error of the weights-only unpickler."""
    if "was not an allowed global by default" in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have two options, do those "
                f"steps only if you trust the source of the checkpoint. \n\t(1) {_UNSAFE_MESSAGE}\n\t(2) "
                "Alternatively, to load with `weights_only=True` please check the recommended steps in the "
                f"following error message.\n\tWeightsUnpickler error: {message}{_DOCS_MESSAGE}")
    return f"Weights only load failed. {_UNSAFE_MESSAGE}\n\n\n{message}{_DOCS_MESSAGE}"


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load an object saved by ``torch.save`` (pedatorch's or PyTorch's) from a path or a binary file object.

    weights_only (the default, unless a ``pickle_module`` is given): only tensors, containers, numbers,
    strings and the globals allowed by ``add_safe_globals`` -- nothing in the file can run code.
    map_location: where storages go -- None (where they were saved), ``'cpu'``, a device, a dict
    ``{'cuda:0': 'cpu'}``, or a function ``(storage, location) -> storage``.
    mmap: map the file into memory instead of reading it (``f`` must be a path).
    """
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
        if pickle_load_args:
            warnings.warn("pickle_load_args only works if `weights_only=False`.")
    pickle_load_args.setdefault("encoding", "utf-8")
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    archive = _Archive(f, bool(mmap))
    try:
        data = io.BytesIO(archive.read("data.pkl"))
        restore = _restore_location(map_location)
        if not weights_only:
            return _Unpickler(data, archive, restore, **pickle_load_args).load()
        try:
            return _WeightsOnlyUnpickler(data, archive, restore, encoding=pickle_load_args["encoding"]).load()
        except pickle.UnpicklingError as e:
            raise pickle.UnpicklingError(_weights_only_message(str(e))) from None
    finally:
        archive.close()
