"""``pedatorch.backends.cpu``: what the CPU can do (``torch.backends.cpu``)."""
__all__ = ["get_cpu_capability"]


def _features():
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features  # numpy's own detection
    except ImportError:
        return {}
    return features


def has_cpu_feature(name):
    """Does the CPU have this instruction-set extension, by numpy's name ("AVX512_SKX", "AVX512FP16")?
    (Some of PyTorch's choices depend on it: oneDNN's bfloat16 kernels need AVX-512.)"""
    return bool(_features().get(name))


def get_cpu_capability():
    """The widest vector instructions the array code uses: "AVX512", "AVX2" or "DEFAULT".

    PyTorch reports the kernels it picked at start-up; pedatorch's kernels are numpy's, which
    picks its own vector code per CPU, so we report what numpy detected.
    """
    features = _features()
    if features.get("AVX512_SKX"):          # AVX-512 F, CD, BW, DQ and VL: PyTorch's AVX512 level
        return "AVX512"
    if features.get("AVX2") and features.get("FMA3"):
        return "AVX2"
    return "DEFAULT"
