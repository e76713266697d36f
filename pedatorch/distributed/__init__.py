"""``torch.distributed``: not available in pedatorch.

Training across processes or machines needs process groups and collective communication (all-reduce of
gradients); pedatorch has none, so ``is_available()`` is False, as in a PyTorch build without
distributed support.  Programs that check it (``if dist.is_available() and dist.is_initialized()``) take
their single-process path; the rest fails with PyTorch's own errors for an uninitialised group.
"""

__all__ = ["is_available", "is_initialized", "init_process_group", "get_rank", "get_world_size", "barrier"]

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


def is_available():
    return False


def is_initialized():
    return False


def is_torchelastic_launched():
    return False


def init_process_group(*args, **kwargs):
    raise RuntimeError("torch.distributed is not available in pedatorch: there is no process-group backend "
                       "(gloo, nccl, mpi). Train in one process.")


def get_rank(group=None):
    raise ValueError(_NOT_INITIALIZED)


def get_world_size(group=None):
    raise ValueError(_NOT_INITIALIZED)


def barrier(group=None, async_op=False, device_ids=None):
    raise ValueError(_NOT_INITIALIZED)
