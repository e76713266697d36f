"""``pedatorch.fft``: PyTorch's ``torch.fft``, the discrete Fourier transforms.

``import pedatorch.fft`` and ``torch.fft.fft(x)`` work as with torch.

The DFT of a length-n signal x, and its inverse::

    X[k] = sum_j x[j] exp(-2 pi i jk / n)          fft     (the "forward" transform)
    x[j] = 1/n sum_k X[k] exp(+2 pi i jk / n)      ifft    (the "backward" transform)

``norm=`` says which direction carries the 1/n (n: the number of points, the product over all
transformed dims):

    norm          fft, rfft, hfft, ...     ifft, irfft, ihfft, ...
    "backward"    none                     1/n          (the default, also norm=None)
    "forward"     1/n                      none
    "ortho"       1/sqrt(n)                1/sqrt(n)    (each transform is unitary)

so every pair (fft, ifft) with the same ``norm`` is a round trip.

The families:

- ``fft``/``ifft`` (``fft2``, ``fftn``, ...): complex to complex (a real input is made complex first).
- ``rfft``/``irfft``: a real signal's spectrum is Hermitian (X[n-k] = conj(X[k])), so ``rfft`` keeps only
  the n // 2 + 1 non-negative frequencies of the last dim; ``irfft`` takes those back to a real signal, whose
  length is ``n`` (default 2 * (m - 1): give ``n`` for odd lengths).
- ``hfft``/``ihfft``: the same pair the other way round: ``ihfft`` is the one-sided *inverse* transform of a
  real signal, ``hfft`` takes a one-sided Hermitian signal to its real spectrum.

``n``/``s`` crop or zero-pad the input to that length before transforming; ``dim`` picks the dims
(``fftn``: all by default, ``fft2``: the last two).  ``fftfreq``/``rfftfreq`` give the frequency of each
output bin; ``fftshift``/``ifftshift`` roll the zero frequency to the middle and back.

Each transform is composed, as in ATen, of the three kernels in ``ops/spectral.py`` (``FftC2CBackward0``,
``FftR2CBackward0``, ``FftC2RBackward0``, whose gradients are transforms again), with a cast to complex
(``ToCopyBackward0``), cropping (``SliceBackward0``), zero-padding (``ConstantPadNdBackward0``) and conjugates
(``ConjBackward0``) around them; ``x.grad_fn`` chains therefore match PyTorch's.  Integer and bool inputs
compute in the default float dtype; float16 and bfloat16 are refused, as PyTorch's CPU kernels refuse them.
"""
import numbers

import numpy as np

from . import _dtype as D
from ._device import as_device, factory_device
from ._tensor import Tensor
from .autograd.function import before_checks
from .autograd.grad_mode import _state, no_grad
from .backend import device_namespace
from .ops._util import add_numpy_names, wrap_dims, write_out, _type_word
from .ops.creation import _finish
from .ops.elementwise import conj
from .ops.manip import roll
from .ops.spectral import (FftC2C, FftR2C, FftC2R, conj_physical, wrap_fft_dim, norm_mode, promote_fft,
                           resize_fft_input)

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


# ====================================================================== argument checks

def _check_args(fname, input, n=None, dim=None, norm=None, n_name="n", one_dim=True):
    """PyTorch's argument parser: a Tensor input, an int ``n`` (a list of ints ``s``), an int ``dim``, a str
    ``norm``.  Returns the input as the op computes with it: inside ``autocast`` on the CPU, PyTorch casts the
    input of fft_fft, fft_rfft, ... (not of the hfft2/ihfft2/hfftn/ihfftn family) to float32 first."""
    if not isinstance(input, Tensor):
        raise TypeError(f"fft_{fname}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"fft_{fname}(): argument 'norm' must be str, not {type(norm).__name__}")
    for name, v in ((n_name, n), ("dim", dim)):
        if v is None:
            continue
        ok = isinstance(v, numbers.Integral) and not isinstance(v, bool)
        if not one_dim:   # s, dim of the n-dimensional transforms: an int or a sequence of ints
            ok = ok or isinstance(v, (tuple, list)) and all(isinstance(e, numbers.Integral) for e in v)
        if not ok:
            kind = "int" if one_dim else "tuple of ints"
            raise TypeError(f"fft_{fname}(): argument '{name}' must be {kind}, not {type(v).__name__}")
    return before_checks(f"fft_{fname}", input)[0]


def _check_out(fname, out, want_complex):
    if out is None:
        return
    if want_complex and not out.is_complex():
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {_type_word(out._data.dtype)}")
    if not want_complex and not out.is_floating_point():
        raise RuntimeError(f"{fname} expects a floating point output tensor, but got {_type_word(out._data.dtype)}")


def _finish_out(out, result, primitive):
    """``out=``: PyTorch's out= variants of the kernels are not differentiable."""
    if out is None:
        return result
    if _state.enabled and (result.requires_grad or out.requires_grad):
        raise RuntimeError(f"{primitive}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    return write_out(out, result)


def _conj_out(out, r):
    """The inverse r2c transforms (ifft and ihfft of a real input) end in ATen's ``conj_physical_out``: its
    out= must have the result's dtype, and it does not refuse inputs that require grad (PyTorch's out then
    carries a NotImplemented grad_fn; here it is a plain tensor)."""
    if out is None:
        return conj(r)
    if out.dtype is not r.dtype:
        raise RuntimeError(f"Found dtype {_type_word(out._data.dtype)} but expected {_type_word(r._data.dtype)}")
    with no_grad():
        return write_out(out, conj(r))


def _n_points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


# ====================================================================== one-dimensional transforms

def _c2c(fname, input, n, dim, norm, forward, out):
    if not input.is_complex():
        raise RuntimeError(f"{fname} expects a complex input tensor, but got {_type_word(input._data.dtype)}")
    d = wrap_fft_dim(dim, input.dim())
    n = input.shape[d] if n is None else n
    _n_points(n)
    x = resize_fft_input(input, (d,), (n,))
    normalization = norm_mode(norm, forward)
    _check_out(fname, out, True)
    return _finish_out(out, FftC2C.apply(x, (d,), normalization, forward), "_fft_c2c")


def _r2c(fname, input, n, dim, norm, forward, onesided, out):
    if input.is_complex():
        raise RuntimeError(f"{fname} expects a real input tensor, but got {_type_word(input._data.dtype)}")
    _check_out(fname, out, True)
    x = promote_fft(input)
    d = wrap_fft_dim(dim, x.dim())
    n = x.shape[d] if n is None else n
    _n_points(n)
    x = resize_fft_input(x, (d,), (n,))
    normalization = norm_mode(norm, forward)
    r = FftR2C.apply(x, (d,), normalization, onesided)
    # the inverse direction of a real signal: the conjugate of the forward one (ATen has no r2c inverse)
    return _finish_out(out, r, "_fft_r2c") if forward else _conj_out(out, r)


def _c2r(fname, input, n, dim, norm, forward, out):
    _check_out(fname, out, False)
    x = promote_fft(input, require_complex=True)
    d = wrap_fft_dim(dim, x.dim())
    n = 2 * (x.shape[d] - 1) if n is None else n
    _n_points(n)
    x = resize_fft_input(x, (d,), (n // 2 + 1,))   # (n given: the one-sided length that n needs)
    normalization = norm_mode(norm, forward)
    if forward:   # hfft: the c2r kernel computes the inverse direction; conj turns it into the forward one
        x = conj(x)
    return _finish_out(out, FftC2R.apply(x, (d,), normalization, n), "_fft_c2r")


def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D DFT along ``dim`` (complex result; a real input takes the r2c kernel, both halves kept)."""
    input = _check_args("fft", input, n, dim, norm)
    if input.is_complex():
        return _c2c("fft", input, n, dim, norm, True, out)
    return _r2c("fft", input, n, dim, norm, True, False, out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D inverse DFT along ``dim``."""
    input = _check_args("ifft", input, n, dim, norm)
    if input.is_complex():
        return _c2c("ifft", input, n, dim, norm, False, out)
    return _r2c("ifft", input, n, dim, norm, False, False, out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The 1-D DFT of a real signal: the n // 2 + 1 non-negative frequencies."""
    input = _check_args("rfft", input, n, dim, norm)
    return _r2c("rfft", input, n, dim, norm, True, True, out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``rfft``: a one-sided spectrum to a real signal of length n (default 2 * (m - 1))."""
    input = _check_args("irfft", input, n, dim, norm)
    return _c2r("irfft", input, n, dim, norm, False, out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The DFT of a one-sided Hermitian signal: a real spectrum of length n (default 2 * (m - 1))."""
    input = _check_args("hfft", input, n, dim, norm)
    return _c2r("hfft", input, n, dim, norm, True, out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of ``hfft``: the one-sided inverse DFT of a real signal."""
    input = _check_args("ihfft", input, n, dim, norm)
    return _r2c("ihfft", input, n, dim, norm, False, True, out)


# ====================================================================== n-dimensional transforms

def _shape_and_dims(input, s, dim):
    """ATen's ``canonicalize_fft_shape_and_dim_args``: the dims (default: the last len(s), or all) and the
    length of each (-1 in ``s``: the input's)."""
    nd = input.dim()
    dims = None
    if dim is not None:
        if isinstance(dim, numbers.Integral):
            dim = (dim,)
        dims = tuple(wrap_fft_dim(d, nd) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if isinstance(s, numbers.Integral):
            s = (s,)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > nd:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {nd} dimensions.")
        if dims is None:
            dims = tuple(range(nd - len(s), nd))
        shape = tuple(input.shape[d] if n == -1 else int(n) for n, d in zip(s, dims))
    elif dims is None:
        dims, shape = tuple(range(nd)), tuple(input.shape)
    else:
        shape = tuple(input.shape[d] for d in dims)
    for n in shape:
        _n_points(n)
    return list(shape), dims


def _c2r_shape_and_dims(fname, input, s, dim):
    """The n-D c2r transforms: the output length of the last dim, and the one-sided input length it needs."""
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError(f"{fname} must transform at least one axis")
    if s is None or (s if not isinstance(s, numbers.Integral) else (s,))[-1] == -1:
        last_dim_size = 2 * (input.shape[dims[-1]] - 1)
    else:
        last_dim_size = shape[-1]
    _n_points(last_dim_size)
    shape[-1] = last_dim_size // 2 + 1
    return shape, dims, last_dim_size


def _fftn_c2c(fname, input, s, dim, norm, forward, out):
    input = _check_args(fname, input, s, dim, norm, "s", one_dim=False)
    shape, dims = _shape_and_dims(input, s, dim)
    x = promote_fft(input, require_complex=True)
    x = resize_fft_input(x, dims, shape)
    normalization = norm_mode(norm, forward)
    _check_out("fftn", out, True)
    return _finish_out(out, FftC2C.apply(x, dims, normalization, forward), "_fft_c2c")


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D DFT over ``dim`` (default: all dims, or the last len(s))."""
    return _fftn_c2c("fftn", input, s, dim, norm, True, out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D inverse DFT over ``dim``."""
    return _fftn_c2c("ifftn", input, s, dim, norm, False, out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D DFT (``fftn`` over the last two dims by default)."""
    return _fftn_c2c("fft2", input, s, dim, norm, True, out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-D inverse DFT."""
    return _fftn_c2c("ifft2", input, s, dim, norm, False, out)


def _rfftn(fname, input, s, dim, norm, out):
    input = _check_args(fname, input, s, dim, norm, "s", one_dim=False)
    if input.is_complex():
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {_type_word(input._data.dtype)}")
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = resize_fft_input(promote_fft(input), dims, shape)
    normalization = norm_mode(norm, True)
    _check_out("rfftn", out, True)
    return _finish_out(out, FftR2C.apply(x, dims, normalization, True), "_fft_r2c")


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D DFT of a real signal, one-sided in the last of ``dim``."""
    return _rfftn("rfftn", input, s, dim, norm, out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _rfftn("rfft2", input, s, dim, norm, out)


def _irfftn(fname, input, s, dim, norm, out):
    input = _check_args(fname, input, s, dim, norm, "s", one_dim=False)
    shape, dims, last_dim_size = _c2r_shape_and_dims("irfftn", input, s, dim)
    x = resize_fft_input(promote_fft(input, require_complex=True), dims, shape)
    normalization = norm_mode(norm, False)
    _check_out("irfftn", out, False)
    return _finish_out(out, FftC2R.apply(x, dims, normalization, last_dim_size), "_fft_c2r")


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of ``rfftn``: the last of ``dim`` becomes s[-1] long (default 2 * (m - 1))."""
    return _irfftn("irfftn", input, s, dim, norm, out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _irfftn("irfft2", input, s, dim, norm, out)


def _hfftn(fname, input, s, dim, norm, out):
    input = _check_args(fname, input, s, dim, norm, "s", one_dim=False)
    shape, dims, last_dim_size = _c2r_shape_and_dims("hfftn", input, s, dim)
    x = resize_fft_input(promote_fft(input, require_complex=True), dims, shape)
    normalization = norm_mode(norm, True)
    # a forward c2c over all but the last dim, then the last one as hfft does it (conj, then c2r)
    tmp = FftC2C.apply(x, dims[:-1], normalization, True) if len(dims) > 1 else x
    _check_out("hfftn", out, False)
    return _finish_out(out, FftC2R.apply(conj(tmp), dims[-1:], normalization, last_dim_size), "_fft_c2r")


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-D DFT of a signal Hermitian in the last of ``dim`` (given one-sided): a real result."""
    return _hfftn("hfftn", input, s, dim, norm, out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _hfftn("hfft2", input, s, dim, norm, out)


def _ihfftn(fname, input, s, dim, norm, out):
    input = _check_args(fname, input, s, dim, norm, "s", one_dim=False)
    shape, dims = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    if input.is_complex():
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {_type_word(input._data.dtype)}")
    x = resize_fft_input(promote_fft(input), dims, shape)
    normalization = norm_mode(norm, False)
    # the one-sided inverse transform of the last dim (the conjugate of r2c's forward one), then the
    # inverse c2c transform of the others
    tmp = FftR2C.apply(x, dims[-1:], normalization, True)
    if len(dims) == 1:
        return _conj_out(out, tmp)
    tmp = conj_physical(tmp)
    _check_out("ihfftn", out, True)
    return _finish_out(out, FftC2C.apply(tmp, dims[:-1], normalization, False), "_fft_c2c")


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of ``hfftn``: one-sided in the last of ``dim``."""
    return _ihfftn("ihfftn", input, s, dim, norm, out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _ihfftn("ihfft2", input, s, dim, norm, out)


# ====================================================================== frequencies and shifts

def _freq(fname, size, values_of, n, d, out, dtype, device, requires_grad):
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"fft_{fname}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    dt = out.dtype if out is not None and dtype is None else dtype or D.get_default_dtype()
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    if dt.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_type_word(dt.np)}'")
    if size < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {size}: [{size}]")
    device = factory_device(device)
    xp = device_namespace(None if device is None else as_device(device))
    k = values_of(xp, size)
    # ATen: arange in the dtype, then one multiply by the C double 1 / (n d) (inf for n d = 0; half types
    # compute in float32)
    compute = np.dtype(np.float32) if dt.np.itemsize == 2 else dt.np
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = compute.type(np.float64(1.0) / np.float64(n * d))
        values = (k.astype(dt.np).astype(compute) * scale).astype(dt.np)
    result = _finish(values, device, requires_grad)
    return result if out is None else write_out(out, result)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The frequency of each bin of a length-n ``fft`` with sample spacing d:
    [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n d)."""
    def values(xp, size):
        k = xp.arange(size, dtype=np.float64)
        return xp.where(k < (size + 1) // 2, k, k - size)
    return _freq("fftfreq", n, values, n, d, out, dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The frequency of each bin of a length-n ``rfft``: [0, 1, ..., n // 2] / (n d)."""
    half = n // 2 if n >= 0 else -(-n // 2)   # (ATen's n / 2 rounds towards zero)
    return _freq("rfftfreq", half + 1, lambda xp, size: xp.arange(size, dtype=np.float64), n, d, out, dtype,
                 device, requires_grad)


def _shifted(input, dim, shift_of):
    dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, numbers.Integral) else list(dim)
    if not dims:
        raise RuntimeError("`shifts` required")
    dims = list(wrap_dims(dims, input.dim())) if input.dim() else dims
    return roll(input, [shift_of(input.shape[d]) for d in dims], dims)


def fftshift(input, dim=None):
    """Roll the zero frequency to the middle: each dim in ``dim`` (default all) rolled by size // 2."""
    return _shifted(input, dim, lambda n: n // 2)


def ifftshift(input, dim=None):
    """Undo ``fftshift``: roll by (size + 1) // 2."""
    return _shifted(input, dim, lambda n: (n + 1) // 2)



add_numpy_names(globals())   # fft(x, axis=0), fftn(x, axis=(0,)): PyTorch's argument parser takes numpy's names
