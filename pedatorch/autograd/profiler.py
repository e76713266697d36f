"""``torch.autograd.profiler``: the older interface to the profiler of ``pedatorch.profiler``.

``profile`` here takes the old arguments (``enabled``, ``use_cuda``, ``use_kineto``...) and records with
the same machinery; ``record_function`` is the same class.  ``emit_nvtx``/``emit_itt`` mark ranges for
NVIDIA's and Intel's tools, which do not watch a numpy program: entering them does nothing.
"""
from ..profiler import (profile as _profile, record_function, kineto_available, ProfilerActivity, EventList,
                        FunctionEvent)

__all__ = ["profile", "record_function", "emit_nvtx", "emit_itt", "kineto_available", "ProfilerActivity",
           "EventList", "FunctionEvent"]


class profile(_profile):
    """``with torch.autograd.profiler.profile() as prof:``; ``enabled=False`` records nothing."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        super().__init__(record_shapes=record_shapes, profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules, acc_events=acc_events)
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            self.start()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self.stop()
        return False

    @property
    def function_events(self):
        return self.events()


class emit_itt:
    """Marks ranges for Intel's profilers; nothing here watches them, so it does nothing."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class emit_nvtx(emit_itt):
    """Marks ranges for NVIDIA's profilers; as ``emit_itt``, it does nothing, but it needs a GPU (PyTorch
    synchronizes the device on entering it)."""

    def __enter__(self):
        if self.enabled:
            from .. import cuda
            cuda.synchronize()
        return self
