"""``pedatorch.signal.windows``: PyTorch's ``torch.signal.windows``, the window functions of scipy.signal.

A window tapers a frame of a signal to zero at its ends before a Fourier transform, so that the frame's
abrupt edges do not leak energy into every frequency (``torch.stft(x, n_fft, window=hann(n_fft))``).
Each is a formula in k = 0 .. M-1, written here with tensor ops, as PyTorch writes them (so a window made
with ``requires_grad=True`` is differentiable in its parameters' linspace)::

    general_cosine(a)   sum_i (-1)^i a_i cos(2 pi i k / N)        N = M - 1 (sym) or M (periodic)
    hann                general_cosine([0.5, 0.5])
    hamming             general_hamming(0.54) = general_cosine([0.54, 0.46])
    blackman            general_cosine([0.42, 0.5, 0.08])
    nuttall             general_cosine([0.3635819, 0.4891775, 0.1365995, 0.0106411])
    bartlett            1 - |2k / N - 1|                           (a triangle)
    cosine              sin(pi (k + 1/2) / M)
    gaussian            exp(-(k - N/2)^2 / (2 std^2))
    exponential         exp(-|k - center| / tau)
    kaiser              I0(beta sqrt(1 - (2k / N - 1)^2)) / I0(beta)

``sym=True`` (the default) gives a symmetric window, for filter design; ``sym=False`` a periodic one (the
symmetric window of length M + 1 without its last point), for spectral analysis: the older
``torch.hann_window(M)`` is ``hann(M, sym=False)``.  Only float32 and float64 are accepted, as in PyTorch.
"""
import math
from collections.abc import Iterable

from .. import _dtype as D
from .._tensor import strided
from ..ops.creation import empty, ones, linspace, tensor, arange
from ..ops.elementwise import exp, sin, cos, sqrt, minimum
from ..ops.special import i0

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _checks(function_name, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{function_name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{function_name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (D.float32, D.float64):
        raise ValueError(f"{function_name} expects float32 or float64 dtypes, got: {dtype}")


def _empty(dtype, device, requires_grad):
    return empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided, device=None,
                requires_grad=False):
    """exp(-|k - center| / tau); the center defaults to the middle of the window."""
    dtype = dtype or D.get_default_dtype()
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _empty(dtype, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = linspace(-center * constant, (-center + (M - 1)) * constant, M, dtype=dtype, device=device,
                 requires_grad=requires_grad)
    return exp(-k.abs())


def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """sin(pi (k + 1/2) / M): half a sine period."""
    dtype = dtype or D.get_default_dtype()
    _checks("cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, device, requires_grad)
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = linspace(0.5 * constant, (0.5 + (M - 1)) * constant, M, dtype=dtype, device=device,
                 requires_grad=requires_grad)
    return sin(k)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """exp(-(k - N/2)^2 / (2 std^2)): a bell of width ``std`` samples."""
    dtype = dtype or D.get_default_dtype()
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _empty(dtype, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = linspace(start * constant, (start + (M - 1)) * constant, M, dtype=dtype, device=device,
                 requires_grad=requires_grad)
    return exp(-(k ** 2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """I0(beta sqrt(1 - (2k/N - 1)^2)) / I0(beta): larger beta, narrower window."""
    dtype = dtype or D.get_default_dtype()
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M == 0:
        return _empty(dtype, device, requires_grad)
    if M == 1:
        return ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    beta = tensor(beta, dtype=dtype, device=device)
    start = -beta
    constant = 2.0 * beta / (M if not sym else M - 1)
    end = minimum(beta, start + (M - 1) * constant)   # (rounding must not take k past beta: sqrt of < 0)
    k = linspace(start, end, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return i0(sqrt(beta * beta - k ** 2)) / i0(beta)


def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """sum_i (-1)^i a_i cos(2 pi i k / N): the family of hann, hamming, blackman, nuttall."""
    dtype = dtype or D.get_default_dtype()
    _checks("general_cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, device, requires_grad)
    if M == 1:
        return ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = linspace(0, (M - 1) * constant, M, dtype=dtype, device=device, requires_grad=requires_grad)
    a_i = tensor([(-1) ** i * w for i, w in enumerate(a)], device=device, dtype=dtype, requires_grad=requires_grad)
    i = arange(a_i.shape[0], dtype=a_i.dtype, device=a_i.device, requires_grad=a_i.requires_grad)
    # one row per cosine term, summed down the rows
    return (a_i.unsqueeze(-1) * cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """alpha - (1 - alpha) cos(2 pi k / N)."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """0.54 - 0.46 cos(2 pi k / N)."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """0.5 - 0.5 cos(2 pi k / N) = sin^2(pi k / N)."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """0.42 - 0.5 cos(2 pi k / N) + 0.08 cos(4 pi k / N)."""
    dtype = dtype or D.get_default_dtype()
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """1 - |2k / N - 1|: a triangle."""
    dtype = dtype or D.get_default_dtype()
    _checks("bartlett", M, dtype, layout)
    if M == 0:
        return _empty(dtype, device, requires_grad)
    if M == 1:
        return ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    constant = 2 / (M if not sym else M - 1)
    k = linspace(-1, -1 + (M - 1) * constant, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return 1 - k.abs()


def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    """The 4-term Nuttall window: general_cosine([0.3635819, 0.4891775, 0.1365995, 0.0106411])."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)
