"""The CUDA backend: cupy. Imported by ``pedatorch.backend.cuda_backend()`` on the first use of a CUDA device,
never by ``import pedatorch``."""
from . import Backend


class CupyBackend(Backend):
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

    # memory: cupy's pool, with the peak tracked at each allocation (frees only lower the use)
    def _install_allocator(self):
        pool = self._pool = self.xp.get_default_memory_pool()
        runtime = self.xp.cuda.runtime

        def malloc(size):
            mem = pool.malloc(size)
            dev = runtime.getDevice()
            self._peak[dev] = max(self._peak.get(dev, 0), pool.used_bytes())
            self._peak_reserved[dev] = max(self._peak_reserved.get(dev, 0), pool.total_bytes())
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
        self._pool.free_all_blocks()

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
