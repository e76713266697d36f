"""The CUDA backend: cupy. Imported by ``pedatorch.backend.cuda_backend()`` on the first use of a CUDA device,
never by ``import pedatorch``."""
from . import DeviceBackend


class CupyBackend(DeviceBackend):
    """cupy's namespace mirrors numpy's; what differs is answered here."""

    device_type = "cuda"

    def __init__(self):
        import cupy
        import cupyx
        if cupy.cuda.runtime.getDeviceCount() < 1:   # raises CUDARuntimeError when there is no driver
            raise RuntimeError("no CUDA device")
        super().__init__("cupy", cupy, cupy.ndarray)
        self._cupyx = cupyx
        self._generators, self._peak, self._peak_reserved = {}, {}, {}
        self._install_allocator()

    def device_index(self, arr):
        return arr.device.id

    def address(self, arr):
        return arr.data.ptr

    def device_count(self):
        return self.xp.cuda.runtime.getDeviceCount()

    def to_host(self, arr):
        return arr.get()

    def from_host(self, arr, index):
        with self.xp.cuda.Device(index):
            return self.xp.asarray(arr)

    def to_device(self, arr, index):
        """``arr`` (a cupy array) on device ``index`` (a peer copy when it is elsewhere)."""
        if arr.device.id == index:
            return arr
        with self.xp.cuda.Device(index):
            return self.xp.asarray(arr)

    def scatter_add(self, target, index, values):
        # cupy has no ufunc.at for every dtype; cupyx.scatter_add is its np.add.at
        self._cupyx.scatter_add(target, index, values)

    def ufunc_at(self, name, target, index, values):
        """np.<name>.at: for add cupyx's atomic scatter_add (its order, and so its rounding, is the GPU's, as
        in PyTorch's CUDA index_add); the others in rounds (``DeviceBackend.ufunc_at``)."""
        if name == "add":
            self._cupyx.scatter_add(target, index, values)
        else:
            super().ufunc_at(name, target, index, values)

    def as_strided(self, arr, shape, strides):
        return self.xp.lib.stride_tricks.as_strided(arr, shape, strides)

    def synchronize(self, index=None):
        if index is None:
            self.xp.cuda.Stream.null.synchronize()
        else:
            with self.xp.cuda.Device(index):
                self.xp.cuda.Stream.null.synchronize()

    def use_device(self, index):
        self.xp.cuda.Device(index).use()

    def device_name(self, index):
        return self.device_properties(index)["name"]

    def device_properties(self, index):
        p = self.xp.cuda.runtime.getDeviceProperties(index)
        name = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
        return dict(name=name, major=p["major"], minor=p["minor"], total_memory=p["totalGlobalMem"],
                    multi_processor_count=p["multiProcessorCount"])

    # random numbers: one cupy Generator per device, made on first use
    def reset_generator(self, index, seed):
        self._generators.pop(index, None)

    def generator(self, index, seed):
        g = self._generators.get(index)
        if g is None:
            with self.xp.cuda.Device(index):
                g = self._generators[index] = self.xp.random.default_rng(seed)
        return g

    def new_generator(self, index, seed):
        """A fresh generator on device ``index`` (for ``pedatorch.Generator(device='cuda')``), not the device's
        default one."""
        with self.xp.cuda.Device(index):
            return self.xp.random.default_rng(seed)

    def generator_state(self, rng):
        """A host copy (uint8 numpy array) of generator ``rng``'s state: its cuRAND states' bytes (cupy keeps
        them in ``bit_generator._state``, a device array; no public API)."""
        return self.to_host(rng.bit_generator._state).view("uint8")

    def set_generator_state(self, rng, state):
        """Restore what ``generator_state`` returned."""
        dst = rng.bit_generator._state
        if state.size != dst.size:
            raise RuntimeError(f"RNG state is wrong size: expected {dst.size} bytes, got {state.size}")
        dst[...] = self.xp.asarray(state.view("int8"))

    def device_context(self, index):
        """``with backend.device_context(i):`` device ``i`` is cupy's current device inside the block (cupy's
        generators draw only on the device that holds their state)."""
        return self.xp.cuda.Device(index)

    # memory: cupy's pool, with the peak use tracked at each allocation (frees only lower the use). The pool
    # grows only at an allocation and shrinks only in empty_cache, so its peak size is read there, not here.
    def _install_allocator(self):
        pool = self._pool = self.xp.get_default_memory_pool()
        peak = self._peak

        def malloc(size):
            mem = pool.malloc(size)
            used = pool.used_bytes()   # (of the current device, where mem was allocated)
            if used > peak.get(mem.device_id, 0):
                peak[mem.device_id] = used
            return mem
        self.xp.cuda.set_allocator(malloc)

    def _on(self, index, fn):
        with self.xp.cuda.Device(index):
            return fn()

    def memory_allocated(self, index):
        return self._on(index, self._pool.used_bytes)

    def memory_reserved(self, index):
        return self._on(index, self._pool.total_bytes)

    def max_memory_allocated(self, index):
        return max(self._peak.get(index, 0), self.memory_allocated(index))

    def max_memory_reserved(self, index):
        return max(self._peak_reserved.get(index, 0), self.memory_reserved(index))

    def reset_peak(self, index):
        self._peak[index] = self.memory_allocated(index)
        self._peak_reserved[index] = self.memory_reserved(index)

    def empty_cache(self):
        for index in range(self.device_count()):   # the pool's size before it shrinks is its peak so far
            self._peak_reserved[index] = self.max_memory_reserved(index)
            self._on(index, self._pool.free_all_blocks)

    def mem_get_info(self, index):
        return self._on(index, self.xp.cuda.runtime.memGetInfo)

    # streams and events are cupy's own
    def new_stream(self):
        return self.xp.cuda.Stream(non_blocking=True)

    def null_stream(self):
        return self.xp.cuda.Stream.null

    def new_event(self, timing):
        return self.xp.cuda.Event(disable_timing=not timing)

    def elapsed_ms(self, start, end):
        return self.xp.cuda.get_elapsed_time(start, end)

    # linalg: what cupy's differs in
    def cholesky(self, a, upper):
        L = self.xp.linalg.cholesky(a)   # (no ``upper=``: the conjugate transpose of the lower factor)
        return self.xp.ascontiguousarray(self.xp.conj(self.xp.swapaxes(L, -1, -2))) if upper else L

    def linalg_errors(self):
        """cupy returns NaN for a singular matrix unless asked to raise LinAlgError, as numpy does."""
        return self._cupyx.errstate(linalg="raise")

    def argsort_stable(self, a, axis):
        return self.xp.argsort(a, axis=axis)   # cupy's sorts are stable (NaN last, as numpy's)

    def accumulate(self, ufunc_name, a, axis):
        """A running ``ufunc`` along ``axis`` as a scan in log2(n) steps (Hillis-Steele): step k combines
        each element with the one 2**k places before it. Exact for maximum/minimum (they pick, not round)."""
        xp = self.xp
        if ufunc_name in ("add", "multiply"):
            return getattr(xp, ufunc_name).accumulate(a, axis=axis)
        f = getattr(xp, ufunc_name)
        out = xp.moveaxis(a, axis, -1).copy()
        n, step = out.shape[-1], 1
        while step < n:
            out[..., step:] = f(out[..., step:], out[..., :-step])   # (the right side is a new array)
            step *= 2
        return xp.ascontiguousarray(xp.moveaxis(out, -1, axis))
