"""``pedatorch.backends.cpu``: what the CPU can do (``torch.backends.cpu``)."""
__all__ = ["get_cpu_capability"]


def get_cpu_capability():
    """The widest vector instructions the array code uses: "AVX512", "AVX2" or "DEFAULT".

    PyTorch reports the kernels it picked at start-up; pedatorch's kernels are numpy's, which
    picks its own vector code per CPU, so we report what numpy detected.
    """
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features  # numpy's own detection
    except ImportError:
        return "DEFAULT"
    if features.get("AVX512_SKX"):          # AVX-512 F, CD, BW, DQ and VL: PyTorch's AVX512 level
        return "AVX512"
    if features.get("AVX2") and features.get("FMA3"):
        return "AVX2"
    return "DEFAULT"
