"""``pedatorch.xpu``: Intel GPUs (``torch.xpu``), as on a PyTorch built without them.

pedatorch has no XPU backend.  Questions get the answers of such a build (not available, 0
devices, 0 bytes); requests that need a device raise its AssertionError.
"""
from collections import OrderedDict

__all__ = ["is_available", "device_count", "is_initialized", "init", "current_device", "set_device",
           "synchronize", "get_device_name", "get_device_properties", "get_device_capability", "empty_cache",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "mem_get_info", "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state",
           "set_rng_state", "get_rng_state_all", "set_rng_state_all", "is_bf16_supported", "is_tf32_supported",
           "get_arch_list", "get_gencode_flags", "device", "device_of", "stream", "current_stream",
           "can_device_access_peer", "get_per_process_memory_fraction", "set_per_process_memory_fraction",
           "reset_peak_memory_stats", "reset_accumulated_memory_stats", "default_generators",
           "memory_stats_as_nested_dict", "memory_snapshot"]


def _not_compiled(*args, **kwargs):
    raise AssertionError("Torch not compiled with XPU enabled")


def is_available():
    """Can tensors go to an ``xpu`` device?  No."""
    return False


def device_count():
    return 0


def is_initialized():
    return False


def is_bf16_supported(including_emulation=True):
    return False


def is_tf32_supported():
    return False


def get_arch_list():
    return []


def get_gencode_flags():
    return ""


# what needs a device fails as in PyTorch without XPU
init = current_device = set_device = synchronize = _not_compiled
get_device_name = get_device_properties = get_device_capability = mem_get_info = _not_compiled
initial_seed = get_rng_state = _not_compiled
current_stream = can_device_access_peer = _not_compiled
get_per_process_memory_fraction = set_per_process_memory_fraction = _not_compiled
reset_peak_memory_stats = reset_accumulated_memory_stats = _not_compiled

default_generators = ()   # one random generator per device: none


def empty_cache():
    """Nothing cached, nothing to free."""


def memory_stats(device=None):
    return OrderedDict()


def memory_stats_as_nested_dict(device=None):
    return {}


def memory_snapshot():
    return []


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


# Seeding an absent device is a no-op, so that seed-everything helpers run on any machine.
def manual_seed(seed):
    int(seed)   # PyTorch's one check: the seed must be a number


def manual_seed_all(seed):
    int(seed)   # PyTorch's one check: the seed must be a number


def seed():
    pass


def seed_all():
    pass


def set_rng_state(new_state, device="xpu"):
    pass


def get_rng_state_all():
    return []


def set_rng_state_all(new_states):
    pass


class stream:
    """``with torch.xpu.stream(s):`` queues work on stream ``s``; ``stream(None)`` does nothing."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            _not_compiled()

    def __exit__(self, *exc_info):
        return False


class device:
    """``with torch.xpu.device(0):`` selects an XPU device inside the block; there are none."""

    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        raise NotImplementedError("PyTorch was compiled without XPU support")

    def __exit__(self, *exc_info):
        return False


class device_of(device):
    """``with torch.xpu.device_of(tensor):`` selects the tensor's XPU device."""

    def __init__(self, obj):
        super().__init__(-1)
