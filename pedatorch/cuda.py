"""``pedatorch.cuda``: is a GPU there?  (cupy is imported only when one is asked for.)"""
from ._device import cuda_is_available, cupy_module


def is_available():
    return cuda_is_available()


def device_count():
    if not is_available():
        return 0
    return cupy_module().cuda.runtime.getDeviceCount()


def current_device():
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")
    return cupy_module().cuda.runtime.getDevice()


def synchronize(device=None):
    if is_available():
        cupy_module().cuda.Stream.null.synchronize()


def manual_seed(seed):
    pass


def manual_seed_all(seed):
    pass


def is_bf16_supported():
    return is_available()
