"""Keep freed memory for reuse (glibc): fewer page faults for the big temporaries of training steps.

Every training step allocates and frees the same large arrays (activations, gradients, im2col
buffers).  By default glibc hands blocks above a threshold back to the kernel on free and maps them
again on the next allocation, so each step pays a page fault per 4 KiB of every big array; that was
about 30% of a LeNet step here.  Raising the mmap and trim thresholds keeps those blocks in the heap.
Set PEDATORCH_MALLOC_TUNING=0 to leave the allocator alone.  Only on Linux with glibc; a no-op
elsewhere.
"""
import os
import sys

_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3


def tune():
    if os.environ.get("PEDATORCH_MALLOC_TUNING", "1") == "0" or not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    ok = mallopt(_M_MMAP_THRESHOLD, 32 * 1024 * 1024)     # the largest value glibc accepts
    ok &= mallopt(_M_TRIM_THRESHOLD, 512 * 1024 * 1024)
    ok &= mallopt(_M_TOP_PAD, 16 * 1024 * 1024)
    return bool(ok)
