"""``torch.random``: the default generator's seed and state, and ``fork_rng``.

The functions are the ones ``pedatorch`` itself offers (``manual_seed``, ``get_rng_state``...); this module
adds ``fork_rng``, a ``with`` block after which the random streams are where they were before it::

    with torch.random.fork_rng():
        noise = torch.randn(3)      # draws here do not move the numbers drawn after the block
"""
import contextlib
import warnings

from ._warnings import user_stacklevel
from ._random import manual_seed, seed, initial_seed, get_rng_state, set_rng_state, default_generator
from . import cuda as _cuda

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]

_fork_rng_warned_already = False


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Save the CPU generator's state (and the CUDA devices' in ``devices``, all of them by default),
    run the block, restore them.  ``enabled=False`` runs the block without forking."""
    global _fork_rng_warned_already
    if device_type == "meta" or not enabled:
        yield
        return
    device_type = device_type or "cuda"   # (the CPU stream is always forked; cuda is the only accelerator)
    if device_type != "cuda":
        raise RuntimeError(f"torch has no module of `{device_type}`, you should register a module by "
                           f"`torch._register_device_module`.")
    if devices is None:
        count = _cuda.device_count()
        if count > 1 and not _fork_rng_warned_already:
            warnings.warn(f"CUDA reports that you have {count} available devices, and you have used {_caller} "
                          f"without explicitly specifying which devices are being used. Set the "
                          f"'{_devices_kw}' keyword argument of {_caller} to the devices you use.", stacklevel=user_stacklevel())
            _fork_rng_warned_already = True
        devices = list(range(count))
    else:
        devices = list(devices)   # (a generator would be used up by the first pass)
    cpu_state = get_rng_state()
    device_states = [_cuda.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for d, state in zip(devices, device_states):
            _cuda.set_rng_state(state, d)
