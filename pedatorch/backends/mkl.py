"""``pedatorch.backends.mkl``: Intel's Math Kernel Library (``torch.backends.mkl``)."""
__all__ = ["is_available", "verbose", "VERBOSE_OFF", "VERBOSE_ON"]


def is_available():
    """Does the array library's BLAS come from MKL?

    pedatorch's matrix products are numpy's, so this asks numpy which BLAS it was built with
    (pip's numpy uses OpenBLAS: False; some conda builds use MKL: True).
    """
    import numpy as np
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]
    except Exception:   # older numpy, or a build that does not say
        return False
    return "mkl" in blas.lower()


VERBOSE_OFF = 0
VERBOSE_ON = 1


class verbose:
    """``with mkl.verbose(VERBOSE_ON):`` makes MKL log its calls; pedatorch logs nothing."""

    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        return None if self.enable == VERBOSE_OFF else self

    def __exit__(self, *exc_info):
        return False
