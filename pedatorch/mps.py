"""``pedatorch.mps``: Apple's Metal GPUs (``torch.mps``), as on a PyTorch built without them.

pedatorch has no Metal backend: ``is_available()`` is False, ``device_count()`` 0, and what
needs the device raises the RuntimeError PyTorch raises there.
"""
__all__ = ["is_available", "device_count", "synchronize", "empty_cache", "manual_seed", "seed",
           "get_rng_state", "set_rng_state", "set_per_process_memory_fraction", "current_allocated_memory",
           "driver_allocated_memory", "recommended_max_memory"]


def _no_mps(what):
    raise RuntimeError(f"Cannot execute {what}() without MPS backend.")


def is_available():
    """Can tensors go to an ``mps`` device?  No."""
    return False


def device_count():
    return 0


def manual_seed(seed):
    """Seeding an absent device is a no-op, so that seed-everything helpers run on any machine."""


def synchronize():
    _no_mps("deviceSynchronize")


def empty_cache():
    _no_mps("emptyCache")


def seed():
    _no_mps("getDefaultGenerator")


def get_rng_state(device="mps"):
    _no_mps("getDefaultGenerator")


def set_rng_state(new_state, device="mps"):
    _no_mps("getDefaultGenerator")


def set_per_process_memory_fraction(fraction):
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    _no_mps("setMemoryFraction")


def current_allocated_memory():
    _no_mps("getCurrentAllocatedMemory")


def driver_allocated_memory():
    _no_mps("getDriverAllocatedMemory")


def recommended_max_memory():
    _no_mps("getRecommendedMaxMemory")
