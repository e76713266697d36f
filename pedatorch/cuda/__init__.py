"""``pedatorch.cuda``: NVIDIA GPUs, through cupy (imported on first use, never by ``import pedatorch``).

Everything here asks the CUDA backend (``pedatorch.backend.cuda_backend()``); on a machine without cupy
or a GPU, ``is_available()`` is False, ``device_count()`` 0, and the rest raise PyTorch's
``AssertionError: Torch not compiled with CUDA enabled``.
"""
import os
from collections import OrderedDict

from .. import backend as _backend
from .._device import device as _device_cls

__all__ = ["is_available", "device_count", "is_initialized", "init", "current_device", "set_device", "device",
           "device_of", "get_device_name", "get_device_properties", "get_device_capability", "synchronize",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state", "set_rng_state",
           "get_rng_state_all", "set_rng_state_all", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats",
           "reset_max_memory_allocated", "reset_accumulated_memory_stats", "empty_cache", "mem_get_info",
           "memory_stats", "memory_summary", "Event", "Stream", "current_stream", "default_stream", "stream",
           "StreamContext", "is_bf16_supported"]


def is_available():
    """Is there a GPU to compute on? False, without an error or a warning, where cupy or a GPU is missing."""
    return _backend.cuda_available()


def device_count():
    return _backend.cuda_backend().device_count() if is_available() else 0


def is_initialized():
    return _backend._cuda is not None


def init():
    _backend.cuda_backend()


_current = 0   # the device that ``cuda`` without an index means


def _index(device, optional=True):
    """A device index from an int, a str, a device, or None (the current device)."""
    if device is None:
        return _current
    if isinstance(device, str):
        device = _device_cls(device)
    if isinstance(device, _device_cls):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return _current if device.index is None else device.index
    if isinstance(device, int) and not isinstance(device, bool):
        return _current if device < 0 and optional else device
    raise ValueError(f"Expected a cuda device, but got: {device!r}")


def current_device():
    """The index of the device ``'cuda'`` means."""
    _backend.cuda_backend()
    return _current


def set_device(device):
    """Make ``device`` the one ``'cuda'`` means (and cupy's current device)."""
    global _current
    idx = _index(device)
    if idx < 0:
        return
    b = _backend.cuda_backend()
    if idx >= b.device_count():
        raise RuntimeError("CUDA error: invalid device ordinal")
    _current = idx
    b.use_device(idx)


class device:
    """``with pedatorch.cuda.device(1): ...``: another current device inside the block."""

    def __init__(self, device):
        self.idx = _index(device)
        self.prev = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev = current_device()
            if self.prev != self.idx:
                set_device(self.idx)

    def __exit__(self, *exc_info):
        if self.idx >= 0 and self.prev != self.idx:
            set_device(self.prev)
        return False


class device_of(device):
    """``with pedatorch.cuda.device_of(tensor):`` the tensor's device is current inside the block."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


def get_device_name(device=None):
    return _backend.cuda_backend().device_name(_index(device))


class _CudaDeviceProperties:
    """What ``get_device_properties`` returns (the fields PyTorch code reads most)."""

    def __init__(self, name, major, minor, total_memory, multi_processor_count):
        self.name, self.major, self.minor = name, major, minor
        self.total_memory, self.multi_processor_count = total_memory, multi_processor_count

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // 2**20}MB, multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    return _CudaDeviceProperties(**_backend.cuda_backend().device_properties(_index(device)))


def get_device_capability(device=None):
    p = get_device_properties(device)
    return p.major, p.minor


def is_bf16_supported(including_emulation=True):
    return is_available()


def synchronize(device=None):
    """Wait until the device has finished all work queued on it."""
    _backend.cuda_backend().synchronize(_index(device))


# ---------------------------------------------------------------- random numbers
# CUDA tensors draw from the device's own generator (cupy's), not from the CPU's mt19937 stream, as in
# PyTorch: the same seed gives different numbers on cuda and on cpu.

_DEFAULT_SEED = 67280421310721   # PyTorch's default_rng_seed_val, the seed of a generator nobody seeded
_seeds = {}                      # device index -> the seed of its generator, set by manual_seed / manual_seed_all
_seed_all = _DEFAULT_SEED        # the seed of devices not in _seeds (manual_seed_all sets it for every device)


def _seed64(seed):
    return int(seed) & 0xFFFF_FFFF_FFFF_FFFF


def manual_seed(seed):
    """Seed the generator of the current device (lazily: it is made on its first use)."""
    _seeds[_current] = _seed64(seed)
    if is_initialized():
        _backend.cuda_backend().reset_generator(_current, _seeds[_current])


def manual_seed_all(seed):
    """Seed the generators of all devices (``pedatorch.manual_seed`` calls this too). Lazy, as PyTorch's: where
    CUDA is not initialized yet, the seed is remembered and nothing is imported (no cupy, no driver)."""
    global _seed_all
    _seed_all = _seed64(seed)
    _seeds.clear()
    if is_initialized():
        b = _backend.cuda_backend()
        for i in range(max(b.device_count(), 1)):
            b.reset_generator(i, _seed_all)


def seed():
    manual_seed(int.from_bytes(os.urandom(8), "little"))


def seed_all():
    manual_seed_all(int.from_bytes(os.urandom(8), "little"))


def initial_seed():
    _backend.cuda_backend()
    return _seeds.get(_current, _seed_all)


def _generator(index):
    """The random generator of device ``index`` (the backend's ``xp.random.Generator``: cupy's
    ``default_rng(seed)``), made on first use from the seed ``manual_seed`` / ``manual_seed_all`` set."""
    return _backend.cuda_backend().generator(index, _seeds.get(index, _seed_all))


def get_rng_state(device="cuda"):
    """The state of the device's generator, as a uint8 CPU tensor (cupy's generator state, not PyTorch's
    Philox seed and offset: states move between pedatorch runs, not to PyTorch)."""
    from .._tensor import Tensor   # lazy: the tensor module is above this one
    idx = _index(device)
    b = _backend.cuda_backend()
    return Tensor._make(b.generator_state(_generator(idx)))


def set_rng_state(new_state, device="cuda"):
    """Restore what ``get_rng_state`` returned."""
    idx = _index(device)
    _backend.cuda_backend().set_generator_state(_generator(idx), _backend.to_host(new_state._data).reshape(-1))


def get_rng_state_all():
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states):
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def _new_generator(index, seed):
    """A generator of its own on device ``index`` (``pedatorch.Generator(device='cuda')``)."""
    return _backend.cuda_backend().new_generator(index, _seed64(seed))


# ---------------------------------------------------------------- memory

def memory_allocated(device=None):
    """Bytes held by tensors on the device now."""
    return _backend.cuda_backend().memory_allocated(_index(device))


def max_memory_allocated(device=None):
    """The most bytes held by tensors at once since the start (or the last reset_peak_memory_stats)."""
    return _backend.cuda_backend().max_memory_allocated(_index(device))


def memory_reserved(device=None):
    """Bytes the allocator holds from the driver (cupy's memory pool)."""
    return _backend.cuda_backend().memory_reserved(_index(device))


def max_memory_reserved(device=None):
    return _backend.cuda_backend().max_memory_reserved(_index(device))


def reset_peak_memory_stats(device=None):
    _backend.cuda_backend().reset_peak(_index(device))


reset_max_memory_allocated = reset_peak_memory_stats


def reset_accumulated_memory_stats(device=None):
    _backend.cuda_backend()


def empty_cache():
    """Give the blocks the allocator keeps but no tensor uses back to the driver."""
    if is_initialized():
        _backend.cuda_backend().empty_cache()


def mem_get_info(device=None):
    """(free, total) bytes of the device, as the driver sees them."""
    return _backend.cuda_backend().mem_get_info(_index(device))


def memory_stats(device=None):
    idx = _index(device)
    return OrderedDict([("allocated_bytes.all.current", memory_allocated(idx)),
                        ("allocated_bytes.all.peak", max_memory_allocated(idx)),
                        ("reserved_bytes.all.current", memory_reserved(idx)),
                        ("reserved_bytes.all.peak", max_memory_reserved(idx))])


def memory_summary(device=None, abbreviated=False):
    stats = memory_stats(device)
    return "\n".join(f"{k:<32}{v / 2**20:>12.1f} MiB" for k, v in stats.items())


# ---------------------------------------------------------------- streams and events

class Stream:
    """A queue of device work (cupy's Stream); ``with pedatorch.cuda.stream(s):`` queues work on it."""

    def __init__(self, device=None, priority=0, **kwargs):
        self.device = _device_cls("cuda", _index(device))
        self._s = _backend.cuda_backend().new_stream()

    def synchronize(self):
        self._s.synchronize()

    def query(self):
        return self._s.done

    def wait_stream(self, other):
        self.wait_event(other.record_event())

    def wait_event(self, event):
        event.wait(self)

    def record_event(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def __enter__(self):
        self._s.__enter__()
        return self

    def __exit__(self, *exc_info):
        return self._s.__exit__(*exc_info)

    def __repr__(self):
        return f"<pedatorch.cuda.Stream device={self.device}>"


_default_stream = None


def default_stream(device=None):
    global _default_stream
    if _default_stream is None:
        _default_stream = Stream.__new__(Stream)
        _default_stream.device = _device_cls("cuda", _index(device))
        _default_stream._s = _backend.cuda_backend().null_stream()
    return _default_stream


_stream_stack = []


def current_stream(device=None):
    return _stream_stack[-1] if _stream_stack else default_stream(device)


class StreamContext:
    """``with pedatorch.cuda.stream(s):`` work inside the block goes to ``s``."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            _stream_stack.append(self.stream)
            self.stream.__enter__()
        return self.stream

    def __exit__(self, *exc_info):
        if self.stream is not None:
            self.stream.__exit__(*exc_info)
            _stream_stack.pop()
        return False


def stream(stream):
    return StreamContext(stream)


class Event:
    """A marker in a stream: ``start.record(); ...; end.record(); end.synchronize();
    start.elapsed_time(end)`` is the device time between them, in milliseconds."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self._e = _backend.cuda_backend().new_event(enable_timing)
        self._recorded = False

    def record(self, stream=None):
        stream = stream or current_stream()
        self._e.record(stream._s)
        self._recorded = True

    def synchronize(self):
        self._e.synchronize()

    def query(self):
        return self._e.done

    def wait(self, stream=None):
        stream = stream or current_stream()
        stream._s.wait_event(self._e)

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if not (self._recorded and end_event._recorded):
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return _backend.cuda_backend().elapsed_ms(self._e, end_event._e)

