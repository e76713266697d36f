"""``pedatorch.backends.cuda``: flags for matrix products and attention on NVIDIA GPUs (``torch.backends.cuda``).

``matmul.allow_tf32`` is the one flag with an effect PyTorch documents outside this module: it
is another spelling of ``torch.set_float32_matmul_precision`` ("highest" = no TF32), so the two
read each other here too.  The rest are kept and read back; pedatorch's kernels ignore them.
"""
from .._warnings import user_stacklevel
import importlib.util
import warnings
from contextlib import contextmanager

__all__ = ["is_built", "matmul", "flash_sdp_enabled", "enable_flash_sdp", "mem_efficient_sdp_enabled",
           "enable_mem_efficient_sdp", "math_sdp_enabled", "enable_math_sdp", "cudnn_sdp_enabled",
           "enable_cudnn_sdp", "allow_fp16_bf16_reduction_math_sdp", "fp16_bf16_reduction_math_sdp_allowed",
           "is_flash_attention_available", "is_ck_sdpa_available", "sdp_kernel", "preferred_linalg_library",
           "preferred_blas_library"]


def is_built():
    """Could pedatorch use an NVIDIA GPU on a machine that has one?  Yes when cupy is installed.

    (PyTorch answers for its build; pedatorch's GPU code is cupy, found here without importing it.)
    """
    return importlib.util.find_spec("cupy") is not None


# torch.set_float32_matmul_precision's setting lives here, with the cuBLAS flags (matmul.allow_tf32 is
# another spelling of it); the package root re-exports the two functions
_float32_matmul_precision = "highest"


def set_float32_matmul_precision(precision):
    global _float32_matmul_precision
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision}")
    _float32_matmul_precision = precision


def get_float32_matmul_precision():
    return _float32_matmul_precision


def _check_bool(value, what):
    if not isinstance(value, bool):
        raise RuntimeError(f"{what} expects a bool, but got {type(value).__name__}")


class _CuBLAS:
    """``torch.backends.cuda.matmul``: how float32/float16/bfloat16 matrix products may round."""

    _flags = {"allow_fp16_reduced_precision_reduction": (True, True),   # (allowed, split-k allowed)
              "allow_bf16_reduced_precision_reduction": (True, True),
              "allow_fp16_accumulation": False,
              "fp32_precision": "none"}

    @property
    def allow_tf32(self):
        return get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        _check_bool(value, "set_allow_tf32_cublas")
        set_float32_matmul_precision("high" if value else "highest")

    @property
    def allow_fp16_reduced_precision_reduction(self):
        return self._flags["allow_fp16_reduced_precision_reduction"][0]

    @allow_fp16_reduced_precision_reduction.setter
    def allow_fp16_reduced_precision_reduction(self, value):
        self._flags["allow_fp16_reduced_precision_reduction"] = _reduction_setting(
            value, "allow_fp16_reduced_precision_reduction")

    @property
    def allow_fp16_reduced_precision_reduction_split_k(self):
        return self._flags["allow_fp16_reduced_precision_reduction"][1]

    @property
    def allow_bf16_reduced_precision_reduction(self):
        return self._flags["allow_bf16_reduced_precision_reduction"][0]

    @allow_bf16_reduced_precision_reduction.setter
    def allow_bf16_reduced_precision_reduction(self, value):
        self._flags["allow_bf16_reduced_precision_reduction"] = _reduction_setting(
            value, "allow_bf16_reduced_precision_reduction")

    @property
    def allow_bf16_reduced_precision_reduction_split_k(self):
        return self._flags["allow_bf16_reduced_precision_reduction"][1]

    @property
    def allow_fp16_accumulation(self):
        return self._flags["allow_fp16_accumulation"]

    @allow_fp16_accumulation.setter
    def allow_fp16_accumulation(self, value):
        _check_bool(value, "set_allow_fp16_accumulation_cublas")
        self._flags["allow_fp16_accumulation"] = value

    @property
    def fp32_precision(self):
        return self._flags["fp32_precision"]

    @fp32_precision.setter
    def fp32_precision(self, value):
        from . import _precision_check
        _precision_check("cuda", ("none", "ieee", "tf32"))(value)
        self._flags["fp32_precision"] = value

    def __getattr__(self, name):          # only reached for names that are not properties
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):   # a typo must not silently make a new attribute
        if not isinstance(getattr(type(self), name, None), property):
            raise AttributeError("Unknown attribute " + name)
        super().__setattr__(name, value)


def _reduction_setting(value, name):
    """``True`` or ``(allowed, split_k_allowed)``, checked as PyTorch checks it."""
    if isinstance(value, bool):
        return value, True
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)!r}")
    if not value:
        raise TypeError(f"{name} expects at least one boolean argument")
    if len(value) > 2:
        raise TypeError(f"{name} expects at most two boolean arguments")
    for item, which in zip(value, ("allow_reduced_precision", "allow_splitk")):
        if not isinstance(item, bool):
            raise TypeError(f"{name} expects a bool for {which}, but got {type(item)!r}")
    allowed, split_k = value[0], (value[1] if len(value) == 2 else True)
    if allowed and not split_k:
        raise RuntimeError("allow_splitk=False is not supported when reduced precision reductions are enabled")
    return allowed, split_k


matmul = _CuBLAS()


# ---------------------------------------------------------------- scaled_dot_product_attention kernels
# Which fused attention kernels F.scaled_dot_product_attention may pick.  pedatorch always runs
# the plain "math" formula; the switches are kept for programs that set them.

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True, "math_fp16_bf16_reduction": False}


def _set_sdp(name, enabled):
    _check_bool(enabled, f"set_sdp_use_{name}")
    _sdp[name] = enabled


def flash_sdp_enabled():
    return _sdp["flash"]


def enable_flash_sdp(enabled):
    _set_sdp("flash", enabled)


def mem_efficient_sdp_enabled():
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled):
    _set_sdp("mem_efficient", enabled)


def math_sdp_enabled():
    return _sdp["math"]


def enable_math_sdp(enabled):
    _set_sdp("math", enabled)


def cudnn_sdp_enabled():
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled):
    _set_sdp("cudnn", enabled)


def fp16_bf16_reduction_math_sdp_allowed():
    return _sdp["math_fp16_bf16_reduction"]


def allow_fp16_bf16_reduction_math_sdp(enabled):
    _set_sdp("math_fp16_bf16_reduction", enabled)


def is_flash_attention_available():
    """Is a FlashAttention kernel built in?  Not in pedatorch."""
    return False


def is_ck_sdpa_available():
    """Is AMD's Composable Kernel attention built in?  Not in pedatorch."""
    return False


@contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """Deprecated: switch attention kernels inside the ``with`` block."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager "
                  "will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context "
                  "manager, with updated signature.", FutureWarning, stacklevel=user_stacklevel())
    names = ("flash", "math", "mem_efficient", "cudnn")
    saved = {name: _sdp[name] for name in names}
    for name, enabled in zip(names, (enable_flash, enable_math, enable_mem_efficient, enable_cudnn)):
        _set_sdp(name, enabled)
    try:
        yield
    finally:
        _sdp.update(saved)


# ---------------------------------------------------------------- preferred libraries
# PyTorch can choose between GPU linear-algebra libraries.  pedatorch keeps the choice as a string.

_preferred = {"linalg": "default", "blas": "cublas"}


def preferred_linalg_library(backend=None):
    """Get (and with ``backend``, set) the preferred library: "default", "cusolver" or "magma"."""
    return _prefer("linalg", backend, ("default", "cusolver", "magma"))


def preferred_blas_library(backend=None):
    """Get (and with ``backend``, set) the preferred library: "cublas", "cublaslt" or "ck"."""
    return _prefer("blas", backend, ("cublas", "cublaslt", "hipblaslt", "ck"))


def _prefer(kind, backend, choices):
    if backend is not None:
        if not isinstance(backend, str):
            raise RuntimeError("Unknown input value type.")
        if backend.lower() not in choices:
            raise RuntimeError(f"Unknown input value. Choose from: {', '.join(choices)}.")
        _preferred[kind] = backend.lower()
    return _preferred[kind]
