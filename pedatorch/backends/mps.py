"""``pedatorch.backends.mps``: Apple's Metal GPUs (``torch.backends.mps``); pedatorch has no Metal backend."""
__all__ = ["get_core_count", "get_name", "is_built", "is_available", "is_macos13_or_newer",
           "is_macos_or_newer"]


def is_built():
    """Was this library built with Metal support?  No."""
    return False


def is_available():
    """Can tensors go to an ``mps`` device?  No."""
    return False


def is_macos_or_newer(major, minor):
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


def is_macos13_or_newer(minor=0):
    return is_macos_or_newer(13, minor)


def get_name():
    raise RuntimeError("Cannot execute getName() without MPS backend.")


def get_core_count():
    raise RuntimeError("Cannot execute getCoreCount() without MPS backend.")
