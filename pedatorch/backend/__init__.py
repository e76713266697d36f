"""The backend floor: the one place that names an array library.

A tensor's values live in an array of some backend: a numpy array on the CPU, a cupy array on a CUDA
device. An op does not name numpy for its arrays; it asks for the namespace of its inputs::

    xp = namespace(a, b)          # numpy for CPU arrays, cupy for CUDA arrays
    out = xp.exp(a) + b

and a factory asks for the namespace of the device it allocates on (``device_namespace(dev)``), so one
code path serves both devices. Where numpy and cupy differ, the answer lives here (``scatter_add``,
``as_strided``, ``to_host``), so that no op needs an ``if cupy:``. dtype names and constants
(``np.float32``, ``np.inf``) are the same objects in both libraries and may be used anywhere.

cupy is imported when a CUDA device is first used. The meta device (``meta``: shapes without data) is a
backend too, always there. Tests can register a stand-in CUDA backend
(``pedatorch.backend.standin``): numpy inside, but an array type that, like cupy's, refuses to mix
with numpy arrays, so an op that still calls numpy on a device array fails loudly in CI, on machines
without a GPU.
"""
import warnings

import numpy as np

# PyTorch's kernels overflow to inf and make NaN silently; numpy warns ("overflow encountered in multiply").
# Silenced for pedatorch's own code only (the warning names the pedatorch line that called numpy), so a
# learner's numpy code warns as before, and no op pays for an np.errstate on its hot path.
warnings.filterwarnings("ignore", message=r"(overflow|invalid value|divide by zero|underflow) encountered",
                        category=RuntimeWarning, module=r"pedatorch\.")

__all__ = ["Backend", "CPU_BACKEND", "CPU_ARRAY", "namespace", "address", "storage_root", "device_namespace", "backend_of", "is_array", "cuda_backend",
           "cuda_available", "register_cuda", "to_host", "scatter_add", "as_strided", "astype",
           "ufunc_at", "reduceat", "select", "on_host", "host_view_at"]

_SCALARS = (bool, int, float, complex, np.generic)


class Backend:
    """What one array library offers: its namespace ``xp``, its array type, and the operations that
    differ between libraries. The CPU backend is numpy itself; see ``cupy_backend`` for the GPU."""

    device_type = "cpu"

    def __init__(self, name, xp, array_type):
        self.name, self.xp, self.array_type = name, xp, array_type

    def device_index(self, arr):
        """Which device of this type holds ``arr`` (None for the CPU, which has no index)."""
        return None

    def device_count(self):
        return 1

    def to_host(self, arr):
        """A numpy array with ``arr``'s values (``arr`` itself when it already is one)."""
        return arr

    def from_host(self, arr, index):
        """``arr`` (a numpy array) copied onto device ``index`` of this backend."""
        return arr

    def scatter_add(self, target, index, values):
        """``target[index] += values`` where repeated indices add up (numpy: ``np.add.at``)."""
        np.add.at(target, index, values)

    def as_strided(self, arr, shape, strides):
        """A view of ``arr``'s memory with these shape and byte strides."""
        return np.lib.stride_tricks.as_strided(arr, shape, strides)

    def synchronize(self, index=None):
        pass

    def address(self, arr):
        """The address of ``arr``'s first element in its device's memory."""
        return arr.__array_interface__["data"][0]

    def __repr__(self):
        return f"<pedatorch backend {self.name}>"


class DeviceBackend(Backend):
    """What a device backend can build from array operations where its library lacks numpy's kernel."""

    def eig(self, a):
        """Eigenvalues and vectors of general (non-symmetric) matrices: cupy has no LAPACK geev, so they are
        computed on the host and moved back (PyTorch's CUDA eig also runs geev on the CPU, through MAGMA)."""
        w, v = np.linalg.eig(self.to_host(a))
        index = self.device_index(a)
        return self.from_host(w, index), self.from_host(v, index)

    def ufunc_at(self, name, target, index, values):
        """``np.<name>.at(target, index, values)`` with array operations only (cupy has no ``multiply.at``,
        and its scatter_max/min kernels don't take every dtype): the updates are applied in rounds, round r
        writing each target's r-th update, so that no round visits a target twice and repeats combine in
        numpy's order (the same results as on the CPU)."""
        xp = self.xp
        ufunc = getattr(xp, name)
        pos = xp.arange(target.size).reshape(target.shape)[index]   # the flat target of each update
        vals = xp.broadcast_to(xp.asarray(values, dtype=target.dtype), pos.shape).ravel()
        pos = pos.ravel()
        order = xp.argsort(pos)                      # stable: repeats keep their order
        pos, vals = pos[order], vals[order]
        rank = xp.arange(pos.size) - xp.searchsorted(pos, pos)   # how many earlier updates hit the same target
        flat = target.reshape(-1) if target.flags.c_contiguous else target.ravel()   # (a copy when strided)
        for r in range(int(rank.max()) + 1 if pos.size else 0):
            sel = rank == r
            p = pos[sel]
            flat[p] = ufunc(flat[p], vals[sel])
        if not target.flags.c_contiguous:
            target[...] = flat.reshape(target.shape)

    def reduceat(self, name, a, starts, axis):
        """``np.<name>.reduceat`` for increasing ``starts`` (cupy has only ``add.reduceat``): each run starts as
        its first row, and the run's other rows are combined into it (``ufunc_at``)."""
        xp = self.xp
        if name == "add":
            return xp.add.reduceat(a, starts, axis=axis)
        a = xp.moveaxis(a, axis, 0)
        out = a[starts].copy()
        run = xp.cumsum(xp.bincount(starts, minlength=a.shape[0])) - 1   # the run each row is in (-1: before all)
        rest = run >= 0
        rest[starts] = False
        self.ufunc_at(name, out, run[rest], a[rest])
        return xp.moveaxis(out, 0, axis)


CPU_BACKEND = Backend("numpy", np, np.ndarray)
CPU_ARRAY = np.ndarray   # ``type(a) is CPU_ARRAY``: the quick test for a host array, where speed matters

_cuda = None          # the registered CUDA backend (cupy's, or the tests' stand-in), once asked for
_cuda_error = None    # why there is none (ImportError, no GPU): asked once, remembered


def register_cuda(backend):
    """Make ``backend`` the CUDA backend (None: forget it, and look for cupy again on the next use).
    The tests' stand-in registers itself through this; users never need it."""
    global _cuda, _cuda_error
    _cuda, _cuda_error = backend, None


def cuda_backend():
    """The CUDA backend; PyTorch's AssertionError when there is no usable GPU (cupy is imported here,
    on first use only)."""
    global _cuda, _cuda_error
    if _cuda is None:
        if _cuda_error is None:
            try:
                from .cupy_backend import CupyBackend
                _cuda = CupyBackend()
            except Exception as e:   # no cupy, no driver, no device
                _cuda_error = e
        if _cuda is None:
            raise AssertionError("Torch not compiled with CUDA enabled")
    return _cuda


def cuda_available():
    """Is there a CUDA backend with at least one device? False, silently, where cupy or a GPU is missing."""
    try:
        return cuda_backend().device_count() > 0
    except AssertionError:
        return False


def backend_of(arr):
    """The backend holding array ``arr`` (numpy arrays, numbers and numpy scalars: the CPU)."""
    if type(arr) is np.ndarray or isinstance(arr, _SCALARS) or isinstance(arr, np.ndarray):
        return CPU_BACKEND
    if _cuda is not None and isinstance(arr, _cuda.array_type):
        return _cuda
    if type(arr) is MetaArray:
        return META_BACKEND
    if type(arr) is SparseCOO:   # (a sparse array lives where its values do)
        return backend_of(arr.values)
    raise TypeError(f"pedatorch holds no arrays of type {type(arr).__name__}")


def on_host(arr):
    """Is ``arr`` in the CPU's memory (a numpy array), not on a device? (Some PyTorch kernels exist only on
    one side: avg_pool3d has no float16 on the CPU.)"""
    return backend_of(arr) is CPU_BACKEND


def namespace(*arrays):
    """The array namespace (numpy or cupy) to compute on these arrays with; numbers and None don't count.
    The first array decides: arrays of two devices in one op fail in the op (cupy refuses numpy arrays),
    and ``ArrayFunction.apply`` turns that into PyTorch's error naming both devices."""
    for a in arrays:
        if type(a) is np.ndarray:
            return np
        if _cuda is not None and isinstance(a, _cuda.array_type):
            return _cuda.xp
        if type(a) is MetaArray:
            return META_BACKEND.xp
    return np


def device_namespace(device):
    """The array namespace that allocates on ``device`` (a ``pedatorch.device``)."""
    if device is None or device.type == "cpu":
        return np
    if device.type == "cuda":
        return cuda_backend().xp
    if device.type == "meta":
        return META_BACKEND.xp
    raise RuntimeError(f"pedatorch has no arrays on device type {device.type}")


def is_array(x):
    """Is ``x`` an array of some backend (what ``isinstance(x, np.ndarray)`` asks, for every device)?"""
    return (isinstance(x, np.ndarray) or _cuda is not None and isinstance(x, _cuda.array_type)
            or type(x) is MetaArray)


def to_host(arr):
    """A numpy array with the values of ``arr``, wherever it lives (a copy only when it is on a device)."""
    if type(arr) is np.ndarray:
        return arr
    return backend_of(arr).to_host(arr)


def astype(arr, np_dtype):
    """``arr`` converted to ``np_dtype`` as PyTorch converts. numpy/cupy's ``astype`` is, except from
    bfloat16 to an integer type: ml_dtypes turns NaN, inf and out-of-range values into 0, where
    PyTorch converts through float32 (exact for bfloat16) and then as C does, like every float type; and from
    float64 to float16/bfloat16, which PyTorch rounds to float32 first."""
    target = np.dtype(np_dtype)
    if arr.dtype.name == "bfloat16" and target.kind in "iu":
        arr = arr.astype(np.float32)
    if arr.dtype == np.float64 and target.itemsize == 2 and target.kind in "fV":
        # double to float16/bfloat16: PyTorch's conversion goes through float (two roundings), numpy's is direct
        arr = arr.astype(np.float32)
    if np.dtype(np_dtype) == np.uint8 and arr.dtype.kind in "fc":
        # a negative float to uint8 is undefined in C, and CPUs and GPUs disagree; PyTorch goes through int64
        # on every device (-2.5 -> -2 -> 254), and so does pedatorch
        arr = arr.real.astype(np.int64) if arr.dtype.kind == "c" else arr.astype(np.int64)
    with np.errstate(invalid="ignore", over="ignore"):   # NaN -> int, a big int -> half: PyTorch converts silently
        return arr.astype(np_dtype)


def scatter_add(target, index, values):
    """``target[index] += values`` in place, repeated indices adding up, on target's device."""
    backend_of(target).scatter_add(target, index, values)


def as_strided(arr, shape, strides):
    """A view of ``arr``'s memory with these shape and byte strides, on arr's device."""
    return backend_of(arr).as_strided(arr, shape, strides)


def address(arr):
    """The address of ``arr``'s first element (in its device's memory)."""
    return backend_of(arr).address(arr)


def _holds_memory(x):
    """An array, or numpy's stand-in for one (``as_strided`` views hang off a DummyArray), not bytes or mmap."""
    return hasattr(x, "__array_interface__") and not isinstance(x, bytes) or hasattr(x, "shape")


def storage_root(arr):
    """The array that owns ``arr``'s memory (views of views are collapsed to their owner)."""
    root = arr
    while getattr(root, "base", None) is not None and _holds_memory(root.base):
        root = root.base
    return root


def host_view_at(root, offset, like):
    """A view of the host array ``root``'s memory at byte ``offset``, with ``like``'s shape, dtype and strides
    (an empty view too: numpy's own slicing points an empty view at the buffer's start); None when
    ``root`` cannot lend its buffer that way."""
    if not isinstance(root, CPU_ARRAY) or not root.flags.c_contiguous or not 0 <= offset <= root.nbytes:
        return None
    view = np.ndarray(like.shape, like.dtype, buffer=root, offset=offset, strides=like.strides)
    if not like.flags.writeable:
        view.flags.writeable = False
    return view


def writeable(arr):
    """May ``arr`` be written to? Not when its memory overlaps itself as PyTorch checks it (a stride 0
    over more than one element: an ``expand`` view, or a ``diagonal``/``as_strided`` view of one), nor
    when numpy's flag says no (broadcast views and read-only buffers; cupy keeps no flag)."""
    if isinstance(arr, np.ndarray):
        flags = arr.flags
        if not flags.writeable:
            return False
        if flags.c_contiguous:   # (no stride 0 over more than one element: the common case, decided at once)
            return True
    return not any(st == 0 and n > 1 for n, st in zip(arr.shape, arr.strides))


def overlaps_itself(arr):
    """PyTorch's internal-overlap test: a stride 0 over more than one element (an ``expand`` view, or a
    ``diagonal``/``as_strided`` view of one). An in-place op refuses to write there. (A sparse array has no
    strided memory: its entries are its own.)"""
    return type(arr) is not SparseCOO and any(st == 0 and n > 1 for n, st in zip(arr.shape, arr.strides))


def writeable_alias(arr):
    """A writeable view of ``arr``'s memory: numpy marks a view of an expanded array read-only (``e[0]`` of
    ``v.expand(2, 3)``), though the memory it shows is its owner's and PyTorch writes there (and ``fill_``
    writes even where one location holds several elements). A read-only owner (a file's buffer) stays
    read-only."""
    if not isinstance(arr, np.ndarray) or arr.flags.writeable:
        return arr
    root = storage_root(arr)
    if not (isinstance(root, np.ndarray) and root.flags.writeable):
        return arr
    # an owner laid out as a permuted tensor (``empty_like`` of a transposed array) is C-contiguous with its
    # dims in stride order: the same memory, as a buffer numpy accepts
    root = root.transpose(sorted(range(root.ndim), key=lambda d: -root.strides[d]))
    if not root.flags.c_contiguous:
        return arr
    return np.ndarray(arr.shape, arr.dtype, buffer=root, offset=address(arr) - address(root), strides=arr.strides)


def allocation_error(e):
    """numpy's MemoryError for an array too large to allocate, as PyTorch's CPU allocator words it (a
    RuntimeError); ``e.shape``/``e.dtype`` give the size numpy tried (else it is unknown)."""
    shape, dtype = getattr(e, "shape", None), getattr(e, "dtype", None)
    n = int(np.prod(shape, dtype=object)) * dtype.itemsize if shape is not None and dtype is not None else 0
    return RuntimeError("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: "
                        f"you tried to allocate {n} bytes. Error code 12 (Cannot allocate memory)")


def cholesky(a, upper=False):
    """``np.linalg.cholesky(a, upper=upper)`` on a's device (cupy's has no ``upper``: there it is the
    conjugate transpose of the lower factor)."""
    b = backend_of(a)
    if b is CPU_BACKEND:
        return np.linalg.cholesky(a, upper=upper)
    return b.cholesky(a, upper)


def maximum(a, b):
    """PyTorch's elementwise max: ``a`` where the two are equal (max(-0.0, 0.0) is -0.0), NaN where either is.
    numpy's loops keep their second operand on a tie, except float16's, which keeps the first; on a device
    the tie is settled explicitly."""
    return _tie_first("maximum", a, b)


def minimum(a, b):
    """PyTorch's elementwise min: ``a`` where the two are equal, NaN where either is (see ``maximum``)."""
    return _tie_first("minimum", a, b)


def _tie_first(name, a, b):
    xp = namespace(a, b)
    fn = getattr(xp, name)
    if xp is not np:
        return xp.where(a == b, a, fn(a, b))
    dt = np.result_type(a, b)
    return fn(a, b) if dt == np.float16 else fn(b, a)


def eig(a):
    """``np.linalg.eig(a)`` for arrays of any device (see DeviceBackend.eig)."""
    b = backend_of(a)
    return np.linalg.eig(a) if b is CPU_BACKEND else b.eig(a)


def linalg_errors(arr):
    """A context in which ``xp.linalg`` raises ``numpy.linalg.LinAlgError`` for a singular (or not positive
    definite) matrix on arr's device: numpy always does; cupy only inside ``cupyx.errstate(linalg='raise')``
    (by default it returns NaN/inf silently)."""
    b = backend_of(arr)
    if b is CPU_BACKEND:
        import contextlib
        return contextlib.nullcontext()
    return b.linalg_errors()


def ufunc_at(name, target, index, values):
    """``np.<name>.at(target, index, values)`` (name: add, multiply, maximum, minimum) in place on target's
    device: repeated indices combine. cupy's side: ``CupyBackend.ufunc_at`` (cupyx scatter kernels)."""
    if type(target) is np.ndarray:
        getattr(np, name).at(target, index, values)
        return
    backend_of(target).ufunc_at(name, target, index, values)


_SAME_SIZE_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def select(mask, x):
    """``where(mask, x, 0)``: x where mask is true, +0 elsewhere (a gradient through relu, clamp, threshold).

    On the CPU this is done with the bits: an element ANDed with all ones is itself, with all zeros +0.0. That
    is np.where's result exactly, also for inf and NaN (which a multiply by the 0/1 mask would turn into NaN)
    and for -0.0 (which it would keep where it must become +0.0), in four fast passes: numpy's ``where``
    branches on every element and takes 5x as long on a mask of random signs. A GPU's ``where`` is fast."""
    if type(x) is CPU_ARRAY and x.dtype.kind == "f" or x.dtype.name == "bfloat16" and isinstance(x, np.ndarray):
        bits = _SAME_SIZE_UINT[x.dtype.itemsize]
        ones = -np.asarray(mask, dtype=bool).astype(bits)   # True -> all ones, False -> 0
        return np.bitwise_and(x.view(bits), ones).view(x.dtype)
    xp = namespace(x)
    return xp.where(mask, x, xp.zeros((), x.dtype))


def reduceat(name, a, starts, axis=0):
    """``np.<name>.reduceat(a, starts, axis)`` (name: add, maximum, minimum) on a's device, for increasing
    ``starts``: the reduction of each run ``a[starts[i]:starts[i+1]]``. cupy has only ``add.reduceat``."""
    if type(a) is CPU_ARRAY or isinstance(a, np.ndarray):
        return getattr(np, name).reduceat(a, starts, axis=axis)
    return backend_of(a).reduceat(name, a, starts, axis)


def argsort_stable(a, axis=-1):
    """Indices that sort ``a`` along ``axis``, stable (ties keep their order; NaN last), on a's device:
    numpy needs ``kind="stable"``; cupy's sort is always stable (and older cupy refuses ``kind``)."""
    if type(a) is CPU_ARRAY or isinstance(a, np.ndarray):
        return np.argsort(a, axis=axis, kind="stable")
    return backend_of(a).argsort_stable(a, axis)


def accumulate(ufunc_name, a, axis):
    """``np.<ufunc_name>.accumulate(a, axis=axis)`` on a's device (``"maximum"``: the running max); cupy's
    ufuncs accumulate only ``add`` and ``multiply``."""
    if type(a) is CPU_ARRAY or isinstance(a, np.ndarray):
        return getattr(np, ufunc_name).accumulate(a, axis=axis)
    return backend_of(a).accumulate(ufunc_name, a, axis)


def host_bytes(arr):
    """The bytes of ``arr``'s elements in C order, copied to the host (what a message between processes carries)."""
    return np.ascontiguousarray(to_host(arr)).tobytes()


def host_from_bytes(data, dtype, shape):
    """A new, writable host array of ``dtype`` and ``shape`` from ``data`` (the inverse of host_bytes)."""
    return np.frombuffer(data, dtype=dtype).reshape(shape).copy()


def dlpack_device(capsule):
    """(device type, device id) of a legacy DLPack capsule ("dltensor"): read from the DLTensor it holds, whose
    first fields are ``void *data`` and ``DLDevice {int32 device_type; int32 device_id}``."""
    import ctypes
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    try:
        ptr = get(capsule, b"dltensor")
    except ValueError:   # already consumed ("used_dltensor") or not a DLPack capsule
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
                           "only once, so you might have already constructed a tensor from it once.") from None
    device = (ctypes.c_int32 * 2).from_address(ptr + ctypes.sizeof(ctypes.c_void_p))
    return int(device[0]), int(device[1])


# ---------------------------------------------------------------- memory shared between processes

def share_between_processes(*arrays):
    """Copies of host arrays ``arrays`` (views of one memory block) in an anonymous shared mapping, the
    whole block moved once, each copy with its array's layout and place in it: processes forked afterwards
    see each other's writes there (``Tensor.share_memory_``).  Device arrays come back as they are (CUDA
    memory is shared between processes by handles, not by copying), and so do arrays already shared."""
    import mmap
    arr = arrays[0]
    root = storage_root(arr)
    if not isinstance(arr, np.ndarray) or is_shared_between_processes(arr) or not isinstance(root, np.ndarray) \
            or root.nbytes == 0 or not (root.flags.c_contiguous or root.flags.f_contiguous):
        return list(arrays)
    buffer = mmap.mmap(-1, root.nbytes)   # MAP_SHARED | MAP_ANONYMOUS: inherited by fork as the same pages
    new_root = np.ndarray(root.shape, root.dtype, buffer=buffer, strides=root.strides)
    new_root[...] = root
    start = root.__array_interface__["data"][0]
    return [np.ndarray(a.shape, a.dtype, buffer=buffer, offset=a.__array_interface__["data"][0] - start,
                       strides=a.strides) for a in arrays]


def is_shared_between_processes(arr):
    """Does ``arr`` live in memory made by ``share_between_processes``?"""
    import mmap
    base = arr
    while getattr(base, "base", None) is not None:
        base = base.base
        if isinstance(base, mmap.mmap):
            return True
    return False


# the meta device is always there (it needs numpy alone); its module builds on the classes above
from .meta import MetaArray, META_BACKEND, no_meta_kernel  # noqa: E402
from .sparse import SparseCOO  # noqa: E402
